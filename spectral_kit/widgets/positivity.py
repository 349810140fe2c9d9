"""PositivityExplorer: Theorem 10 (probabilistic Perron–Frobenius) made visible."""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..plots.q_alpha import plot_eigenvector_entries, plot_positivity_curve
from ..theory import PositivityResult, PositivitySampler, wilson_interval
from ..validation import check_int
from .base import Explorer
from .controls import make_slider

__all__ = ["PositivityExplorer"]


class PositivityExplorer(Explorer):
    """Sliders n, μ, σ and trials → the probability that the leading eigenvector of a
    symmetric n × n matrix with i.i.d. N(μ, σ²) entries is same-sign, against n (Fig. 2a of
    Wolf & Shashua 2005), with the current n marked, and the sorted entries of one sampled
    leading eigenvector.

    The probability depends on μ/σ only, and the eigendecompositions behind it are cached
    per (n, block of trials), so μ and σ move the curve at once. Work that is not cached
    (a new n, or sizes above :data:`~spectral_kit.theory.CACHE_MAX_N`) is done in steps of
    about 60 ms: the curve appears at once with wide intervals that narrow as trials
    accumulate, and a slider move abandons the refinement in progress.

    Parameters
    ----------
    n_max : int
        Largest n on the slider and on the curve (default 150; up to 600 for heavy runs).
    random_state : int
        Seed of the random matrices.
    cache_bytes : int, optional
        Memory the sampler's eigendecompositions may take (default: the sampler's 64 MiB).
        At 200 trials the curve's blocks need about 83 MB, so a sweep evicts what the next
        one needs and 0 costs a μ move nothing (the dashboard's card uses 0).
    **values
        Initial slider values (``n``, ``mu``, ``sigma``, ``trials``).

    Raises
    ------
    ValueError
        For an unknown control, or a slider value outside its range or not a whole number
        where the slider is an integer one (here and in :meth:`update`); for an option out of
        range.

    Examples
    --------
    Headless (a notebook shows the controls and the figure when ``explorer`` is the last
    expression of a cell):

    >>> from spectral_kit.widgets import PositivityExplorer
    >>> explorer = PositivityExplorer()
    >>> _ = explorer.update(n=30, mu=0.3)
    >>> explorer.values["n"], explorer.errors
    (30, [])
    >>> explorer.close()
    """

    figsize = (8.0, 3.2)

    def __init__(self, *, n_max: int = 150, random_state: int = 0,
                 cache_bytes: int | None = None, **values: Any):
        self.n_max = check_int(n_max, "n_max", low=10, high=2000)
        seed = check_int(random_state, "random_state", low=0)
        self.sampler = (PositivitySampler(seed) if cache_bytes is None else
                        PositivitySampler(seed, cache_bytes=check_int(cache_bytes,
                                                                      "cache_bytes", low=0)))
        grid = np.unique(np.round(np.geomspace(2, self.n_max, 16)).astype(int))
        self.grid = grid
        super().__init__(**values)

    def _build_controls(self) -> dict:
        return {
            "n": make_slider("n", min=2, max=self.n_max, value=min(20, self.n_max)),
            "mu": make_slider("mu", value=round(1 / 6, 3)),
            "sigma": make_slider("sigma", value=round(2**0.5 / 6, 3)),
            "trials": make_slider("trials"),
        }

    def _draw(self, figure: Figure) -> None:
        ax_curve, ax_vec = figure.subplots(1, 2, width_ratios=[1.5, 1])
        empty = PositivityResult(
            n=self.grid, probability=np.zeros(self.grid.size), lower=np.zeros(self.grid.size),
            upper=np.ones(self.grid.size), successes=np.zeros(self.grid.size, int),
            trials=np.zeros(self.grid.size, int), ratio=0.0, confidence=0.95,
        )
        self.curve = plot_positivity_curve(ax_curve, empty)
        self.curve.auto_xlim = False
        ax_curve.set_xlim(1.8, self.n_max * 1.1)
        self.vector = plot_eigenvector_entries(ax_vec, np.ones(2))
        self.vector.relative_x = True
        ax_vec.set_xlim(0.0, 1.0)
        ax_vec.set_xlabel("entry rank / $n$ (sorted)")
        ax_vec.set_title("one sampled leading eigenvector")
        self.animate(self.curve.line, self.curve.band, self.curve.marker, self.curve.label,
                     self.curve.note, self.vector.stems, self.vector.label)

    def _render(self, values: dict[str, Any]) -> Iterator | None:
        n, mu, sigma, trials = (int(values["n"]), float(values["mu"]), float(values["sigma"]),
                                int(values["trials"]))
        if sigma <= 0:
            raise ValueError("σ must be positive.")
        ratio = mu / sigma
        sizes = np.union1d(self.grid, [n])
        successes = np.zeros(sizes.size, dtype=np.int64)
        done = np.zeros(sizes.size, dtype=np.int64)
        current = int(np.flatnonzero(sizes == n)[0])
        self.vector.update(self.sampler.leading_eigenvector(n, ratio))
        # The marked n first, then small to large: the cheap part of the curve appears first.
        order = [current, *[i for i in range(sizes.size) if i != current]]

        def advance(budget: float) -> bool:
            deadline = time.perf_counter() + budget
            for i in order:
                if done[i] < trials:
                    s, d = self.sampler.count(int(sizes[i]), ratio, trials, start=int(done[i]),
                                              deadline=deadline)
                    successes[i] += s
                    done[i] += d
                if time.perf_counter() > deadline:
                    break
            self._show(sizes, successes, done, current, ratio, trials)
            return bool(np.all(done >= trials))

        # The first picture answers the slider: half a step of sampling leaves room for the
        # redraw within the latency target; the refinement steps take whole ones.
        if advance(self.step_budget / 2):
            return None

        def refine() -> Iterator[None]:
            while not advance(self.step_budget):
                yield

        return refine()

    def _show(self, sizes, successes, done, current, ratio, trials) -> None:
        seen = done > 0
        p = successes / np.maximum(done, 1)
        lower, upper = wilson_interval(successes, done)
        # Sizes not reached yet are left out rather than drawn as [0, 1].
        self.curve.update(
            sizes[seen], p[seen], lower[seen], upper[seen], current_n=int(sizes[current]),
            current_p=float(p[current]), title=rf"$\mu/\sigma = {ratio:.3g}$",
        )
        complete = int(done.min())
        state = "" if complete >= trials else f" (refining: {complete}/{trials} trials)"
        self.status.value = (
            f"n = {int(sizes[current])}: P(same-sign) = {p[current]:.3f} "
            f"[{lower[current]:.3f}, {upper[current]:.3f}] from {int(done[current])} trials"
            f"{state}"
        )

    @property
    def result(self) -> dict[str, np.ndarray]:
        """The curve as currently drawn: n, probability, lower, upper."""
        x, y = self.curve.line.get_data()
        verts = self.curve.band.get_paths()[0].vertices
        half = len(x)
        return {
            "n": np.asarray(x), "probability": np.asarray(y),
            "lower": verts[:half, 1], "upper": verts[half:2 * half, 1][::-1],
        }
