"""SparsityGapExplorer: Q-α's weights on the multi-cluster data of Fig. 3b, live."""

from __future__ import annotations

from collections import OrderedDict
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..datasets import make_multiclass_clusters
from ..metrics import sparsity_gap
from ..plots.q_alpha import plot_alpha_bars
from ..qalpha import q_alpha
from ..theory import lemma13_bound
from .base import Explorer
from .controls import make_slider

__all__ = ["SparsityGapExplorer"]


class SparsityGapExplorer(Explorer):
    """Sliders cluster count, k, σ (cluster spread) and the number of irrelevant features →
    Q-α's α as bars (relevant vs irrelevant), the sparsity gap, and Lemma 13's bound on the
    summed weight of the irrelevant features (Wolf & Shashua 2005, Sec. 4.2 and Fig. 3b).

    The data are :func:`~spectral_kit.datasets.make_multiclass_clusters` with 5 relevant
    coordinates; σ is the largest per-coordinate standard deviation of a cluster (the paper's
    variances lie in [0, 0.02], i.e. σ ≈ 0.14). Results are cached per slider state.

    Parameters
    ----------
    random_state : int
        Seed of the data set (the same seed for every slider state).
    **values
        Initial slider values (``n_clusters``, ``k``, ``sigma``, ``n_irrelevant``).
    """

    figsize = (8.6, 3.4)

    def __init__(self, *, random_state: int = 0, **values: Any):
        self.random_state = int(random_state)
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
        ax_bars.set_title("Q-α weights (sorted)", fontsize=10)
        (self.objective_line,) = ax_obj.plot([], [], "-o", ms=3)
        ax_obj.set_xlabel("iteration")
        ax_obj.set_ylabel("trace(QᵀA_α²Q)")
        self.ax_objective = ax_obj

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
        self.bars.update(res.alpha, data.relevant, gap=state["gap"], bound=state["bound"])
        it = np.arange(1, res.n_iter + 1)
        self.objective_line.set_data(it, res.objective)
        self.ax_objective.set_xlim(0.5, max(res.n_iter, 2) + 0.5)
        lo, hi = float(res.objective.min()), float(res.objective.max())
        pad = max(hi - lo, 1e-9 * max(abs(hi), 1.0)) * 0.1
        self.ax_objective.set_ylim(lo - pad, hi + pad)
        self.ax_objective.set_title(
            f"{res.n_iter} iterations" + ("" if res.converged else " (not converged)"),
            fontsize=10,
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
