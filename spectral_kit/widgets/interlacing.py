"""InterlacingExplorer: the generalized inclusion principle and sparse LDA's λ_max against k.

Moghaddam, Weiss & Avidan (2006): for every k-subset S the eigenvalues of the principal pair
(A_S, B_S) interlace those of (A, B) (Thm. 1, Eq. 7), so the best sparse discriminant of
cardinality k has λ_k(A, B) ≤ λ_max(A_S, B_S) ≤ λ_n(A, B) (Eq. 8). The explorer draws both on
a random pair of the paper's Monte Carlo (Sec. 3.1) while n, k, the regularization λ of B and
the smoothness of the random processes move.
"""

from __future__ import annotations

import math
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure

from ..plots.sparse_lda import (
    plot_interlacing,
    plot_lambda_vs_k,
    update_interlacing,
    update_lambda_vs_k,
)
from ..sparse_lda import (
    ESLDASearch,
    GSLDAPath,
    Interlacing,
    MatrixPair,
    NestedPath,
    RandomPair,
    check_pair,
    generalized_spectrum,
    gslda,
    interlacing,
    random_pair,
    simple_threshold_path,
)
from ..sparse_lda.data import PAIR_KINDS
from ..validation import check_choice, check_finite_scalar, check_int
from .base import Explorer
from .controls import SLIDERS, SliderSpec, make_slider

__all__ = ["InterlacingExplorer", "InterlacingState"]

# The smoothness of the random pair's processes is a control of its own (the Hurst exponent
# of Sec. 3.1's Brownian-like processes), registered under one canonical name.
SLIDERS.setdefault(
    "smoothness",
    SliderSpec("H", "smoothness of the random processes (Hurst exponent; 0.5 = Brownian "
               "motion)", "float", 0.05, 0.95, 0.05, 0.5),
)

#: The methods drawn against k, in the colours of the paper's figures.
METHODS = ("ST", "GSLDA", "ESLDA")


#: Preference among equally good subsets (the more exact method names the subset).
_RANK = {"ST": 0, "GSLDA": 1, "ESLDA": 2}


@dataclass
class InterlacingState:
    """Everything the explorer shows for one (n, smoothness, λ): the random pair, the
    library's paths and the ESLDA searches in progress.

    Attributes
    ----------
    n, smoothness, lam : int, float, float
    random_pair : RandomPair
        The pair before regularization.
    pair : MatrixPair
        The validated pair, B ← B + λI.
    spectrum : ndarray of shape (n,)
        λ_1(A, B) ≤ … ≤ λ_n(A, B) (:func:`~spectral_kit.sparse_lda.generalized_spectrum`).
    st : NestedPath
        Renormalized simple thresholding for every k
        (:func:`~spectral_kit.sparse_lda.simple_threshold_path`).
    gslda : GSLDAPath or None
        :func:`~spectral_kit.sparse_lda.gslda`, None until computed.
    searches : dict of int → ESLDASearch
        ESLDA per k, started on demand (after GSLDA, its initial incumbent).
    stopped : set of int
        Cardinalities whose search used up its time budget without a certificate.
    """

    n: int
    smoothness: float
    lam: float
    random_pair: RandomPair
    pair: MatrixPair
    spectrum: np.ndarray
    st: NestedPath
    gslda: GSLDAPath | None = None
    searches: dict = field(default_factory=dict)
    stopped: set = field(default_factory=set)
    _interlacings: dict = field(default_factory=dict, repr=False)

    @classmethod
    def compute(cls, n: int, smoothness: float, lam: float, kind: str,
                random_state: int) -> InterlacingState:
        """Draw the pair and compute what the first picture needs (spectrum and ST)."""
        rp = random_pair(n, smoothness=smoothness, kind=kind, random_state=random_state)
        A = rp.d if rp.d is not None else rp.A
        return cls(
            n, smoothness, lam, rp, check_pair(A, rp.B, lam),
            generalized_spectrum(A, rp.B, regularization=lam),
            simple_threshold_path(A, rp.B, regularization=lam),
        )

    @property
    def A(self) -> np.ndarray:
        """A as the library takes it (the vector d when A = d dᵀ)."""
        rp = self.random_pair
        return rp.d if rp.d is not None else rp.A

    @property
    def scale(self) -> float:
        """λ_n(A, B), by which every value is divided in the picture."""
        top = float(self.spectrum[-1])
        return top if top > 0 else 1.0

    @property
    def complete(self) -> bool:
        """GSLDA done and every k either certified optimal or stopped by the time budget."""
        return self.gslda is not None and all(
            k in self.stopped or (k in self.searches and self.searches[k].optimal)
            for k in range(1, self.n + 1)
        )

    def compute_gslda(self) -> GSLDAPath:
        """GSLDA's path (both passes, best per k), computed once."""
        if self.gslda is None:
            self.gslda = gslda(self.A, self.random_pair.B, regularization=self.lam)
        return self.gslda

    def search(self, k: int) -> ESLDASearch:
        """The ESLDA search at k (created from GSLDA's support when first asked for)."""
        if k not in self.searches:
            self.searches[k] = ESLDASearch(self.pair, k, self.compute_gslda().support_at(k))
        return self.searches[k]

    def best(self, k: int) -> tuple[str, np.ndarray, float]:
        """The best k-subset found so far: (method, support, λ_max(A_S, B_S))."""
        found = [("ST", self.st.support_at(k), float(self.st.values[k - 1]))]
        if self.gslda is not None:
            found.append(("GSLDA", self.gslda.support_at(k), float(self.gslda.values[k - 1])))
        if k in self.searches:
            run = self.searches[k]
            found.append(("ESLDA", run.support, run.value))
        top = max(v for _, _, v in found)
        tol = 1e-12 * max(abs(top), np.finfo(float).tiny)
        return max((f for f in found if f[2] >= top - tol), key=lambda f: _RANK[f[0]])

    def interlacing(self, support: np.ndarray) -> Interlacing:
        """Thm. 1 for one subset (:func:`~spectral_kit.sparse_lda.interlacing`), cached."""
        key = np.asarray(support).tobytes()
        if key not in self._interlacings:
            self._interlacings[key] = interlacing(self.A, self.random_pair.B, support,
                                                  regularization=self.lam)
        return self._interlacings[key]

    def advance(self, deadline: float, first: int, budget: float) -> None:
        """Run ESLDA until ``deadline``: k = ``first`` first, then the nearest k outwards;
        a search that has used ``budget`` seconds stops with its certified bound."""
        for k in sorted(range(1, self.n + 1), key=lambda j: (abs(j - first), j)):
            if k in self.stopped:
                continue
            run = self.search(k)
            if run.optimal:
                continue
            run.advance(min(deadline, time.perf_counter() + budget - run.seconds))
            if not run.optimal and run.seconds >= budget:
                run.stop()
                self.stopped.add(k)
            if time.perf_counter() >= deadline:
                return

    def eslda(self) -> dict[str, np.ndarray]:
        """ESLDA per k = 1…n: ``value`` (incumbent), ``upper_bound``, ``optimal``,
        ``started``, ``stopped`` and ``nodes`` (NaN values where no search has started)."""
        n = self.n
        out = {"value": np.full(n, np.nan), "upper_bound": np.full(n, np.nan),
               "optimal": np.zeros(n, dtype=bool), "started": np.zeros(n, dtype=bool),
               "stopped": np.zeros(n, dtype=bool), "nodes": np.zeros(n, dtype=np.int64)}
        for k, run in self.searches.items():
            out["value"][k - 1] = run.value
            out["upper_bound"][k - 1] = run.upper_bound
            out["optimal"][k - 1] = run.optimal
            out["started"][k - 1] = True
            out["nodes"][k - 1] = run.nodes
        for k in self.stopped:
            out["stopped"][k - 1] = True
        return out


class InterlacingExplorer(Explorer):
    """Sliders n, k, λ and H → the generalized inclusion principle (Thm. 1, Eq. 7) for a
    k-subset, and λ_max against k for ST, GSLDA and ESLDA inside the band of Eq. 8
    (Moghaddam, Weiss & Avidan 2006).

    The pair is :func:`~spectral_kit.sparse_lda.random_pair` (covariances of fractional
    Brownian paths with Hurst exponent H, the paper's Monte Carlo of Sec. 3.1) with the
    within-class matrix regularized, B ← B + λI (λ → ∞ turns sparse LDA into sparse PCA of A).
    The same seed serves every slider state, so H and λ move one pair continuously.

    * **Left**: the generalized spectrum λ_1 ≤ … ≤ λ_n of (A, B) in column 0; at x = i/k,
      the i-th eigenvalue of (A_S, B_S) on its bracket [λ_i(A, B), λ_{i+n−k}(A, B)], for the
      best k-subset S found so far (ST at once, then GSLDA's, then ESLDA's optimum; the
      status line names it). The red diamond is λ_max(A_S, B_S), the objective.
    * **Right**: λ_max(A_k, B_k) against k/n for renormalized simple thresholding (ST),
      GSLDA and exact ESLDA, inside the band λ_k(A, B) … λ_n(A, B) of Eq. 8; the dotted line
      marks the current k.

    Every value is divided by λ_n(A, B) (Fig. 1a's normalization) and columns and
    cardinalities are drawn at i/k and k/n, so no axis limit moves with a slider: each move
    is blitted over one cached background.

    A slider move first shows the spectrum, the band and ST (milliseconds); GSLDA follows in
    the first refinement step, then ESLDA in slices of ``step_budget`` seconds, the current k
    first and then outwards (ESLDA is exact but can take seconds for one k once n ≳ 24).
    While it runs, the ESLDA curve holds the optima certified so far (a gap where a k is
    still waiting), and a k whose search has started but not finished shows a grey bar from
    the incumbent (never below GSLDA) to the largest open bound: the optimum lies on that
    bar. After ``eslda_seconds`` of search a k stops with its bar. Searches are kept per
    slider state: moving k does not restart them, and returning to a pair resumes them.

    Parameters
    ----------
    kind : {"general", "rank_one"}
        A as the sample covariance of independent paths (full rank, every bracket visible)
        or A = d dᵀ (two-class LDA: only λ_max(A_S, B_S) is non-zero).
    n_max : int
        Largest n on the slider (3…40; default 30).
    eslda_seconds : float
        Search time per k after which ESLDA stops with its certified bound.
    random_state : int
        Seed of the random pair.
    **values
        Initial slider values (``n``, ``k``, ``lam``, ``smoothness``).

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

    >>> from spectral_kit.widgets import InterlacingExplorer
    >>> explorer = InterlacingExplorer()
    >>> _ = explorer.update(n=12, k=4)
    >>> explorer.values["n"], explorer.values["k"], explorer.errors
    (12, 4, [])
    >>> explorer.close()
    """

    figsize = (8.0, 4.8)
    #: Lower limit of the left panel (general A), in units of λ_max(A, B); smaller
    #: eigenvalues leave the panel at the bottom (the status line counts them).
    log_floor = 1e-4
    #: Slider states whose pair, curves and searches are kept.
    cache_size = 24

    def __init__(
        self,
        *,
        kind: str = "general",
        n_max: int = 30,
        eslda_seconds: float = 2.0,
        random_state: int = 0,
        **values: Any,
    ):
        self.kind = check_choice(kind, "kind", PAIR_KINDS)
        self.n_max = check_int(n_max, "n_max", low=3, high=40)
        self.eslda_seconds = check_finite_scalar(eslda_seconds, "eslda_seconds", low=0.0,
                                                 low_inclusive=False)
        self.random_state = check_int(random_state, "random_state", low=0)
        self._states: OrderedDict = OrderedDict()
        # In a live kernel a slider move can be handled on another thread than the one that
        # runs the refinement steps: computing, updating artists and drawing take turns.
        self._lock = threading.RLock()
        super().__init__(**values)

    # -- controls ---------------------------------------------------------------------------
    def _build_controls(self) -> dict:
        n = min(16, self.n_max)
        return {
            "n": make_slider("n", min=3, max=self.n_max, value=n),
            "k": make_slider("k", min=1, max=n, value=n // 2),
            "lam": make_slider("lam", value=1e-3),
            "smoothness": make_slider("smoothness"),
        }

    def _limits(self, name: str, values: dict[str, Any]) -> tuple[float, float] | None:
        if name == "k" and "n" in values:
            # k is checked against the range 1…n that the new n gives it.
            return 1.0, float(values["n"])
        return super()._limits(name, values)

    def _assign(self, values: dict[str, Any]) -> None:
        values = dict(values)
        # n first, so that k's range is 1…n before k is set.
        if "n" in values:
            self.controls["n"].value = values.pop("n")
            self._sync_k(int(self.controls["n"].value))
        super()._assign(values)

    def _sync_k(self, n: int) -> None:
        """Keep the cardinality slider's range at 1…n (k > n is clipped to n)."""
        control = self.controls["k"]
        if control.max == n:
            return
        batch, self._batch = self._batch, True
        try:
            if control.value > n:
                control.value = n
            control.max = n
        finally:
            self._batch = batch

    # -- artists ----------------------------------------------------------------------------
    def _draw(self, figure: Figure) -> None:
        ax_int, ax_k = figure.subplots(1, 2, width_ratios=[1, 1.15])
        rp = random_pair(4, kind=self.kind, random_state=0)
        blank = interlacing(rp.A, rp.B, [0, 1])
        self.interlacing_artists = plot_interlacing(ax_int, blank)
        art = self.interlacing_artists
        art["sub"].set_label(r"$\lambda_i(A_S, B_S)$, $S$: best $k$-subset so far")
        # Fixed limits: the background (ticks, labels, legends) is drawn once and the artists
        # are blitted over it. Columns sit at i/k, values are divided by λ_n(A, B).
        ax_int.set_xlim(-0.16, 1.1)
        ax_int.set_xticks([0.0, 1.0], ["$(A, B)$", "$i = k$"])
        if self.kind == "general":
            ax_int.set_yscale("log")
            ax_int.set_ylim(self.log_floor, 3.0)
        else:
            ax_int.set_ylim(-0.04, 1.1)
        ax_int.set_xlabel(r"$i/k$   (column $i$: $\lambda_i(A_S, B_S)$ on its bracket)")
        ax_int.set_ylabel(r"$\lambda / \lambda_{\max}(A, B)$")
        ax_int.set_title(r"Thm. 1: $\lambda_i(A_S, B_S) \in [\lambda_i, \lambda_{i+n-k}]$")
        ax_int.get_legend().remove()

        ks = np.arange(1, 3)
        nan = np.full(2, np.nan)
        self.curve_artists = plot_lambda_vs_k(
            ax_k, ks, dict.fromkeys(METHODS, nan), nan, 1.0
        )
        # Open circles around GSLDA's diamonds: where greedy is optimal both stay visible.
        self.curve_artists["curves"]["ESLDA"].set_markerfacecolor("none")
        self.curve_artists["curves"]["ESLDA"].set_markersize(7)
        self.open_bars = LineCollection(
            [], colors="0.45", linewidths=3.0, alpha=0.6,
            label="ESLDA running: incumbent … bound",
        )
        ax_k.add_collection(self.open_bars)
        self.k_line = ax_k.axvline(1, color="0.3", linestyle=":", linewidth=1.0)
        ax_k.set_xlim(0.0, 1.03)
        ax_k.set_xlabel("$k/n$   (fraction of the variables kept)")
        ax_k.set_ylabel(r"$\lambda_{\max}(A_k, B_k) / \lambda_{\max}(A, B)$")
        ax_k.set_title("Eq. 8: the best $k$-subset lies in the band")
        ax_k.set_ylim(0.0, 1.05)
        ax_k.get_legend().remove()
        # One legend for both panels, under them: inside the axes the moving artists (drawn
        # over the background, which holds the legend) would cover it.
        handles = [*ax_int.get_legend_handles_labels()[0],
                   *ax_k.get_legend_handles_labels()[0]]
        figure.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False,
                      columnspacing=1.2, handlelength=1.6)
        self.ax_int, self.ax_k = ax_int, ax_k

        self.animate(art["spectrum"], art["brackets"], art["sub"], art["top"],
                     self.curve_artists["band"],
                     self.curve_artists["lower"], self.curve_artists["upper"],
                     *self.curve_artists["curves"].values(), self.open_bars, self.k_line)

    def _draw_now(self) -> None:
        # Drawing reads the artists a refinement step on another thread may be updating.
        with self._lock:
            super()._draw_now()

    # -- computation ------------------------------------------------------------------------
    def state_for(self, n: int, smoothness: float, lam: float) -> InterlacingState:
        """The pair, paths and searches of one slider state (cached, least recently used
        dropped first)."""
        key = (int(n), round(float(smoothness), 6), round(math.log10(lam), 6))
        if key in self._states:
            self._states.move_to_end(key)
            return self._states[key]
        state = InterlacingState.compute(int(n), float(smoothness), float(lam), self.kind,
                                         self.random_state)
        self._states[key] = state
        if len(self._states) > self.cache_size:
            self._states.popitem(last=False)
        return state

    def _render(self, values: dict[str, Any]) -> Iterator | None:
        with self._lock:
            return self._render_locked(values)

    def _render_locked(self, values: dict[str, Any]) -> Iterator | None:
        n = int(values["n"])
        self._sync_k(n)
        k = min(int(self.controls["k"].value), n)
        state = self.state_for(n, float(values["smoothness"]), float(values["lam"]))
        self._current = (state, k)
        # A newer slider move supersedes the refinement of this one: the token tells.
        token = self._token = object()
        self._show_pair(state, k)
        self._show_progress(state, k)
        if state.complete:
            return None

        def step() -> bool | None:
            """One slice of work; None when superseded, else whether all is done."""
            with self._lock:
                if self._token is not token:
                    return None
                if state.gslda is None:  # one step: O(n⁴) for a general A
                    state.compute_gslda()
                else:
                    state.advance(time.perf_counter() + self.step_budget, k,
                                  self.eslda_seconds)
                self._show_progress(state, k)
                return state.complete

        def refine() -> Iterator[None]:
            while True:
                done = step()
                if done is None:
                    # Superseded: never finish (a finished generator makes the base class
                    # clear the newer one); it is not scheduled again.
                    yield
                    return
                if done:
                    return
                yield

        return refine()

    # -- drawing ----------------------------------------------------------------------------
    def _show_pair(self, state: InterlacingState, k: int) -> None:
        """The artists that depend on the pair only: spectrum, band, ST, current k."""
        n, s = state.n, state.scale
        ks = state.st.ks
        curves = {"ST": state.st.values / s, "GSLDA": np.full(n, np.nan),
                  "ESLDA": np.full(n, np.nan)}
        update_lambda_vs_k(self.curve_artists, ks / n, curves, state.spectrum / s, 1.0,
                           rescale=False)
        self.k_line.set_xdata([k / n, k / n])

    def _show_progress(self, state: InterlacingState, k: int) -> None:
        """The artists that refine: GSLDA, ESLDA and the best k-subset found so far."""
        n, s = state.n, state.scale
        method, support, _ = state.best(k)
        inter = state.interlacing(support)
        shown = replace(inter, spectrum=inter.spectrum / s, sub=inter.sub / s,
                        lower=inter.lower / s, upper=inter.upper / s)
        update_interlacing(self.interlacing_artists, shown, spacing=1.0 / k, rescale=False)
        x = state.st.ks / n
        lines = self.curve_artists["curves"]
        if state.gslda is not None:
            lines["GSLDA"].set_data(x, state.gslda.values / s)
        ex = state.eslda()
        lines["ESLDA"].set_data(x, np.where(ex["optimal"], ex["value"], np.nan) / s)
        open_k = np.flatnonzero(ex["started"] & ~ex["optimal"])
        self.open_bars.set_segments([
            np.array([[x[j], ex["value"][j] / s], [x[j], ex["upper_bound"][j] / s]])
            for j in open_k
        ])
        self.shown_method = method
        self.status.value = self._status(state, k, method, ex)

    def _status(self, state: InterlacingState, k: int, method: str,
                ex: dict[str, np.ndarray]) -> str:
        s = state.scale
        lo = state.spectrum[k - 1] / s
        lo = 0.0 if abs(lo) < 1e-12 else lo  # rank-one A: λ_k = 0 up to rounding
        parts = [f"k = {k}: Eq. 8 band [{lo:.3g}, 1]", f"ST {state.st.values[k - 1] / s:.4f}"]
        if state.gslda is None:
            parts.append("GSLDA computing…")
        else:
            parts.append(f"GSLDA {state.gslda.values[k - 1] / s:.4f}")
        if ex["optimal"][k - 1]:
            parts.append(f"ESLDA {ex['value'][k - 1] / s:.4f} (optimal)")
        elif ex["started"][k - 1]:
            verb = (f"stopped after {self.eslda_seconds:g} s" if ex["stopped"][k - 1]
                    else "searching")
            parts.append(f"ESLDA {verb}: optimum in [{ex['value'][k - 1] / s:.4f}, "
                         f"{ex['upper_bound'][k - 1] / s:.4f}]")
        done, stopped = int(ex["optimal"].sum()), int(ex["stopped"].sum())
        line = ",  ".join(parts) + f".  Left: the best k-subset so far ({method}). "
        line += f"ESLDA certified at {done} of {state.n} k"
        if stopped:
            line += f", {stopped} stopped with a bound"
        elif not state.complete:
            line += " (searching…)"
        line += "."
        if self.kind == "general":
            below = int(np.sum(state.spectrum / s < self.log_floor))
            if below:
                line += (f" {below} eigenvalue{'s' if below > 1 else ''} of (A, B) below "
                         f"{self.log_floor:g} λ_n (off the panel).")
        return line

    # -- inspection -------------------------------------------------------------------------
    @property
    def state(self) -> dict[str, Any]:
        """What the current picture shows: the state, k, its interlacing and ESLDA per k."""
        state, k = self._current
        method, support, value = state.best(k)
        return {"state": state, "k": k, "method": method, "support": support, "value": value,
                "interlacing": state.interlacing(support), "eslda": state.eslda()}
