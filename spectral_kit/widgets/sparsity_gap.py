"""SparsityGapExplorer: Q-α's weights, live, in two modes.

* ``mode="standard"`` (default): the multi-cluster data of Fig. 3b of Wolf & Shashua (2005):
  α as sorted bars, the sparsity gap and Lemma 13's bound;
* ``mode="side"``: data with two valid structures and side data for one of them (Shashua &
  Wolf 2004, Sec. 3, Def. 3): the λ slider and the cluster count k move α from one structure
  to the other. ``SparsityGapExplorer(mode="side")`` returns a
  :class:`SideInformationExplorer`.
"""

from __future__ import annotations

import math
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..datasets import make_multiclass_clusters
from ..datasets.side_information import make_two_structures
from ..metrics import sparsity_gap
from ..plots.q_alpha import plot_alpha_bars
from ..plots.side_information import plot_alpha_structures, plot_success_rates
from ..qalpha import q_alpha
from ..qalpha.side import SideInformationProblem, SideQAlphaResult
from ..theory import lemma13_bound
from ..validation import check_choice, check_int
from .base import Explorer
from .controls import make_slider

__all__ = ["MODES", "SideInformationExplorer", "SparsityGapExplorer", "structure_shares"]

#: The explorer's modes: plain Q-α on Fig. 3b's data, or Q-α with side information.
MODES = ("standard", "side")


class SparsityGapExplorer(Explorer):
    """Sliders cluster count, k, σ (cluster spread) and the number of irrelevant features →
    Q-α's α as bars (relevant vs irrelevant), the sparsity gap, and Lemma 13's bound on the
    summed weight of the irrelevant features (Wolf & Shashua 2005, Sec. 4.2 and Fig. 3b).

    The data are :func:`~spectral_kit.datasets.make_multiclass_clusters` with 5 relevant
    coordinates; σ is the largest per-coordinate standard deviation of a cluster (the paper's
    variances lie in [0, 0.02], i.e. σ ≈ 0.14). Results are cached per slider state.

    Parameters
    ----------
    mode : {"standard", "side"}, optional
        ``"side"`` returns a :class:`SideInformationExplorer` (Q-α with side information on
        data with two valid structures; sliders λ and k) instead.
    random_state : int
        Seed of the data set (the same seed for every slider state).
    **values
        Initial slider values (``n_clusters``, ``k``, ``sigma``, ``n_irrelevant``).

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

    >>> from spectral_kit.widgets import SparsityGapExplorer
    >>> explorer = SparsityGapExplorer()
    >>> _ = explorer.update(k=2, n_irrelevant=60)
    >>> explorer.values["n_irrelevant"], explorer.errors
    (60, [])
    >>> explorer.close()
    """

    #: Which mode this class implements (see :data:`MODES`).
    mode = "standard"
    figsize = (8.0, 3.4)

    # Keyword-only like __init__, so that the signature shown for the class is the real one.
    def __new__(cls, *, mode: str | None = None, random_state: int = 0, **values: Any):
        if mode is not None:
            mode = check_choice(mode, "mode", MODES)
            if mode != cls.mode:
                if cls is not SparsityGapExplorer:
                    raise ValueError(
                        f"{cls.__name__} is the {cls.mode!r} mode of the explorer; got "
                        f"mode={mode!r}. Use SparsityGapExplorer(mode={mode!r})."
                    )
                cls = _MODE_CLASSES[mode]
        return super().__new__(cls)

    def __init__(self, *, mode: str | None = None, random_state: int = 0, **values: Any):
        self.random_state = check_int(random_state, "random_state", low=0)
        self._cache: OrderedDict = OrderedDict()
        super().__init__(**values)

    def _build_controls(self) -> dict:
        return {
            "n_clusters": make_slider("n_clusters", value=3),
            "k": make_slider("k", max=8, value=3),
            "sigma": make_slider("sigma", min=0.02, max=0.6, step=0.01, value=0.14),
            "n_irrelevant": make_slider("n_irrelevant", max=300, value=120),
        }

    def _draw(self, figure: Figure) -> None:
        ax_bars, ax_obj = figure.subplots(1, 2, width_ratios=[2.2, 1])
        self.bars = plot_alpha_bars(ax_bars, np.ones(2), np.array([True, False]))
        # Bars at rank ÷ number of features: the number of irrelevant features then moves
        # the bars, not the axes.
        self.bars.relative_x = True
        ax_bars.set_xlim(0.0, 1.0)
        ax_bars.set_xlabel(r"feature rank / number of features (sorted by $\alpha$)")
        ax_bars.set_title(r"Q-$\alpha$ weights (sorted)")
        (self.objective_line,) = ax_obj.plot([], [], "-o", ms=3)
        # Iterations on a fixed log axis up to q_alpha's max_iter: from 3 to 300 iterations
        # the trace stays readable without changing the limits.
        ax_obj.set_xscale("log")
        ax_obj.set_xlim(0.8, 375.0)
        ax_obj.set_ylim(0.48, 1.02)
        ax_obj.set_xlabel("iteration (log scale)")
        # Relative to the final value, so that the axes (and the cached background of the
        # blitted redraw) stay put while the data change; the value itself is in the text.
        ax_obj.set_ylabel(r"$\mathrm{tr}(Q^\top A_\alpha^2 Q)$ / final value")
        ax_obj.set_title("objective per iteration")
        self.iterations_text = ax_obj.text(0.95, 0.06, "", transform=ax_obj.transAxes,
                                           ha="right", va="bottom")
        self.ax_objective = ax_obj
        self.animate(self.bars.bars, self.bars.bound_line, self.bars.text,
                     self.objective_line, self.iterations_text)

    def compute(self, values: dict[str, Any]) -> dict[str, Any]:
        """Data, Q-α result, sparsity gap and Lemma 13 bound for one slider state."""
        key = tuple(sorted(values.items()))
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        data = make_multiclass_clusters(
            int(values["n_clusters"]), n_irrelevant=int(values["n_irrelevant"]),
            spread=float(values["sigma"]) ** 2, random_state=self.random_state,
        )
        k = min(int(values["k"]), data.X.shape[0] - 1)
        # A looser tolerance than the library default: α agrees to ~1e-3 in angle, which is
        # invisible in the bars, and the worst slider state stays within the latency target.
        result = q_alpha(data.M, k, tol=1e-5)
        has_irrelevant = bool((~data.relevant).any())
        out = {
            "data": data,
            "result": result,
            "gap": sparsity_gap(result.alpha, data.relevant) if has_irrelevant else None,
            "bound": lemma13_bound(data.M, data.relevant, result) if has_irrelevant else None,
        }
        self._cache[key] = out
        if len(self._cache) > 64:
            self._cache.popitem(last=False)
        return out

    def _render(self, values: dict[str, Any]) -> None:
        state = self.compute(values)
        res, data = state["result"], state["data"]
        ax_bars = self.bars.ax
        self.bars.update(res.alpha, data.relevant, gap=state["gap"], bound=state["bound"])
        # Limits from a few fixed levels: a limit that changes forces a full redraw instead
        # of the blitted one, so they must not follow every slider step. α has unit norm,
        # so no bar exceeds 1.
        bottom = min(0.0, math.floor(float(res.alpha.min()) * 1.1 / 0.05) * 0.05)
        _set_ylim(ax_bars, bottom, 1.0)
        it = np.arange(1, res.n_iter + 1)
        final = float(res.objective[-1])
        relative = res.objective / final
        self.objective_line.set_data(it, relative)
        low = 0.5 if relative.min() >= 0.5 else float(relative.min())
        _set_ylim(self.ax_objective, low - 0.02, 1.02)
        self.iterations_text.set_text(
            f"{res.n_iter} iterations" + ("" if res.converged else " (not converged)")
            + f"\nfinal value {final:.4g}"
        )
        gap = state["gap"]
        positive = "all α > 0" if res.all_positive else f"{int(np.sum(res.alpha <= 0))} α ≤ 0"
        self.status.value = (
            f"sparsity gap {gap:.1f}; {positive}" if gap is not None else positive
        )
        return None

    @property
    def state(self) -> dict[str, Any]:
        """Data and results behind the current picture."""
        return self.compute(self.values)


def _set_xlim(ax: object, low: float, high: float) -> None:
    if tuple(np.round(ax.get_xlim(), 9)) != (round(low, 9), round(high, 9)):
        ax.set_xlim(low, high)


def _set_ylim(ax: object, low: float, high: float) -> None:
    if tuple(np.round(ax.get_ylim(), 9)) != (round(low, 9), round(high, 9)):
        ax.set_ylim(low, high)


def structure_shares(alpha: object, groups: Mapping[str, np.ndarray]) -> dict[str, float]:
    """The share of α that each structure carries: ``Σ_{i∈group} max(α_i, 0) / Σ_i |α_i|``.

    Parameters
    ----------
    alpha : array-like of shape (n_features,)
    groups : mapping of name → boolean mask of shape (n_features,)

    Returns
    -------
    dict of name → float in [0, 1]
        One entry per group (the shares of disjoint groups add up to at most 1).
    """
    a = np.asarray(alpha, dtype=np.float64)
    total = float(np.abs(a).sum())
    if total == 0.0:
        raise ValueError("alpha is all zero; it has no shares.")
    return {name: float(np.clip(a[np.asarray(mask, dtype=bool)], 0.0, None).sum() / total)
            for name, mask in groups.items()}


def _exponent(lam: float) -> float:
    """log10 λ rounded to the slider's grid, the key of cached solutions."""
    return round(math.log10(lam), 6)


class SideInformationExplorer(SparsityGapExplorer):
    """Sliders λ (side-data weight, log scale) and k (the number of clusters Q-α looks for)
    → α of Q-α with side information (Shashua & Wolf 2004, Def. 3) as bars coloured by the
    structure each feature belongs to, and the share of α on each structure against λ.

    The data are :func:`~spectral_kit.datasets.side_information.make_two_structures`: main
    samples with a target structure (3 clusters on 4 features) and a stronger nuisance
    structure (2 clusters on 8 features), 20 irrelevant features, and side data that show the
    nuisance only. α is the leading eigenvector of ``(D + λI)⁻¹G``, D the side variances:
    small λ lets the side data forbid the nuisance features, and α moves to the target;
    large λ ignores the side data (λ → ∞ is plain Q-α, which picks the nuisance). k matters
    too: with k = 1 (one cluster direction) the two nuisance clusters win even at small λ
    in 9 of the seeds 0–9, the three target clusters need k ≥ 2.

    Every picture is ``q_alpha_side(M, W, k, lam)``'s answer, computed through one
    :class:`~spectral_kit.qalpha.side.SideInformationProblem` (preprocessing and D paid
    once) and cached per (k, λ). The right panel is the same answer over λ for the current
    k, on every other λ step: after a slider move (and at construction) the bars come at
    once and the curve of a new k fills in in steps of ``step_budget`` seconds.

    Two maxima and hysteresis. The Eq. 2 objective has one local maximum per structure.
    With ``follow=True`` every move starts from the previous picture and keeps only that
    run (``SideInformationProblem.solve(warm_start=..., follow=True)``): α then stays on the
    structure it came from for as long as that maximum exists, and the marker leaves the
    curve, which still shows the answer from the PCA start; the status compares both
    objectives.

    Parameters
    ----------
    mode : {"side"}, optional
        Accepted so that ``SparsityGapExplorer(mode="side")`` can construct this class.
    follow : bool
        Continue from the previous picture instead of solving each state from the PCA start.
    random_state : int
        Seed of the data set.
    **values
        Initial slider values (``lam``, ``k``).

    Attributes
    ----------
    data : TwoStructureData
    problem : SideInformationProblem
    groups : dict of name → mask
        ``{"target": ..., "nuisance": ...}``.
    result : SideQAlphaResult
        The result behind the current bars.

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

    >>> from spectral_kit.widgets import SideInformationExplorer
    >>> explorer = SideInformationExplorer()
    >>> _ = explorer.update(lam=1.0)
    >>> explorer.values["lam"], explorer.errors
    (1.0, [])
    >>> explorer.close()
    """

    mode = "side"
    figsize = (8.0, 3.4)
    #: Spacing (decades) of the λ grid of the right panel: every other slider step.
    path_step = 0.2
    #: Upper y-limit of the bars: α has unit norm, so no weight exceeds 1.
    bars_ymax = 1.0

    def __init__(
        self,
        *,
        mode: str | None = None,
        follow: bool = False,
        random_state: int = 0,
        **values: Any,
    ):
        random_state = check_int(random_state, "random_state", low=0)
        self.follow = bool(follow)
        self.data = make_two_structures(random_state=random_state)
        self.problem = SideInformationProblem(self.data.M, self.data.W)
        self.groups = {"target": self.data.target, "nuisance": self.data.nuisance}
        self._solutions: dict[tuple[int, float], SideQAlphaResult] = {}
        self._previous: SideQAlphaResult | None = None
        self.result: SideQAlphaResult | None = None
        super().__init__(mode=mode, random_state=random_state, **values)

    # -- controls and artists ---------------------------------------------------------------
    def _build_controls(self) -> dict:
        controls = {"lam": make_slider("lam"), "k": make_slider("k", max=6, value=3)}
        lam = controls["lam"]
        count = round((lam.max - lam.min) / self.path_step) + 1
        self.path_exponents = np.round(np.linspace(lam.min, lam.max, count), 6)
        return controls

    def _draw(self, figure: Figure) -> None:
        ax_bars, ax_path = figure.subplots(1, 2, width_ratios=[1.55, 1])
        n = self.data.target.size
        self.bars = plot_alpha_structures(ax_bars, np.full(n, 1 / np.sqrt(n)), self.groups)
        ax_bars.set_ylim(-0.08, self.bars_ymax)
        ax_bars.set_xlim(-0.8, n - 0.2)
        ax_bars.set_xlabel("feature (target | nuisance | irrelevant)")
        ax_bars.set_title(r"$\alpha$ of Q-$\alpha$ with side information")
        ax_bars.get_legend().set_loc("center right")
        # One line of text: multi-line text costs more to draw than all the bars together.
        self.shares_text = ax_bars.text(0.02, 0.96, "", transform=ax_bars.transAxes,
                                        ha="left", va="top")
        lams = 10.0**self.path_exponents
        blank = np.zeros(lams.size)
        self.path_lines = plot_success_rates(ax_path, lams, {"target": blank,
                                                              "nuisance": blank})
        for line in self.path_lines:
            line.set_markersize(2.5)
        ax_path.set_xlim(lams[0], lams[-1])
        ax_path.set_ylabel(r"share of $\Sigma_i |\alpha_i|$")
        ax_path.set_xlabel(r"$\lambda$ (large $\lambda$: side data ignored)")
        ax_path.set_title(r"where $\alpha$ goes as $\lambda$ grows")
        ax_path.get_legend().set_loc("center left")
        self.lam_line = ax_path.axvline(lams[0], color="0.35", lw=0.8, ls=":")
        (self.path_marker,) = ax_path.plot(
            [], [], "o", ms=6, mfc="none", color="black", zorder=5
        )
        self.animate(*self.bars.patches, self.shares_text, *self.path_lines, self.lam_line,
                     self.path_marker)
        self.ax_bars, self.ax_path = ax_bars, ax_path

    # -- computation -------------------------------------------------------------------------
    def solution(self, k: int, lam: float) -> SideQAlphaResult:
        """``q_alpha_side(M, W, k, lam)`` from the PCA start, cached per (k, λ)."""
        key = (int(k), _exponent(lam))
        if key not in self._solutions:
            self._solutions[key] = self.problem.solve(int(k), float(lam))
        return self._solutions[key]

    def path(self, k: int) -> dict[str, np.ndarray]:
        """Shares of α per structure over the λ grid (NaN where not yet computed)."""
        out = {name: np.full(self.path_exponents.size, np.nan) for name in self.groups}
        out["lam"] = 10.0**self.path_exponents
        for i, e in enumerate(self.path_exponents):
            res = self._solutions.get((int(k), float(e)))
            if res is not None:
                for name, share in structure_shares(res.alpha, self.groups).items():
                    out[name][i] = share
        return out

    def _render(self, values: dict[str, Any]) -> Iterator | None:
        k, lam = int(values["k"]), float(values["lam"])
        cold = self.solution(k, lam)
        if self.follow:
            result = self.problem.solve(k, lam, warm_start=self._previous, follow=True)
        else:
            result = cold
        self._previous = self.result = result
        self._show(k, lam, result, cold)
        self._show_path(k)
        here = _exponent(lam)
        # Nearest λ first, so the neighbourhood of the slider fills in before the far ends.
        missing = [float(e) for e in sorted(self.path_exponents, key=lambda e: abs(e - here))
                   if (k, float(e)) not in self._solutions]
        if not missing:
            return None

        def refine() -> Iterator[None]:
            while missing:
                deadline = time.perf_counter() + self.step_budget
                while missing and time.perf_counter() < deadline:
                    self.solution(k, 10.0 ** missing.pop(0))
                self._show_path(k)
                yield

        return refine()

    # -- drawing -----------------------------------------------------------------------------
    def _show(self, k: int, lam: float, result: SideQAlphaResult,
              cold: SideQAlphaResult) -> None:
        alpha = result.alpha
        for patch, a in zip(self.bars.patches, alpha):
            patch.set_height(a)
        top = float(alpha.max()) * 1.08
        if top > self.ax_bars.get_ylim()[1]:
            self.ax_bars.set_ylim(-0.08, top)
        bottom = float(alpha.min()) * 1.08
        if bottom < self.ax_bars.get_ylim()[0]:
            self.ax_bars.set_ylim(bottom, self.ax_bars.get_ylim()[1])
        shares = structure_shares(alpha, self.groups)
        self.shares_text.set_text(
            rf"$k = {k}$, $\lambda = {lam:.3g}$:  target {shares['target']:.0%},  "
            f"nuisance {shares['nuisance']:.0%}"
        )
        self.lam_line.set_xdata([lam, lam])
        self.path_marker.set_data([lam, lam], [shares["target"], shares["nuisance"]])
        positive = "all α > 0" if result.all_positive else f"{int(np.sum(alpha <= 0))} α ≤ 0"
        winner = max(shares, key=shares.get)
        objective = float(result.objective[-1])
        line = (
            f"k = {k}, λ = {lam:.3g}: {shares[winner]:.0%} of α on the {winner} features; "
            f"{positive}; Eq. 2 objective {objective:.4g}"
        )
        if self.follow:
            line += f" (from the PCA start: {float(cold.objective[-1]):.4g})"
        self.status.value = line

    def _show_path(self, k: int) -> None:
        path = self.path(k)
        for line, name in zip(self.path_lines, self.groups):
            line.set_ydata(path[name])

    @property
    def state(self) -> dict[str, Any]:
        """The result behind the current picture, its shares and the path of the current k."""
        k = int(self.values["k"])
        return {
            "data": self.data,
            "result": self.result,
            "shares": structure_shares(self.result.alpha, self.groups),
            "path": self.path(k),
        }

    def compute(self, values: dict[str, Any]) -> dict[str, Any]:
        """The cold solution for a slider state (as :meth:`solution`)."""
        return {"result": self.solution(int(values["k"]), float(values["lam"]))}


_MODE_CLASSES = {"standard": SparsityGapExplorer, "side": SideInformationExplorer}
