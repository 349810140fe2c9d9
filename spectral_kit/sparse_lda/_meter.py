"""Progress and time budget of the GSLDA path (:func:`~.greedy.gslda`).

The greedy steps are far from equal in cost -- the first forward steps solve tiny
subproblems, the first backward steps the largest -- so the bar of
:mod:`spectral_kit.progress` advances by a modelled cost of each step, and the budget's
projection from the first steps measures the rate per unit of that cost.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np

from ..progress import Progress
from .pair import MatrixPair

__all__ = ["LARGE_FEATURES", "Meter", "step_costs"]

#: ``progress=None`` shows a bar (after two seconds) for a GSLDA path over this many features.
LARGE_FEATURES = 1000
#: Units of the bar: thousandths of the estimated work (:func:`step_costs`), so that the
#: budget's projection from the first steps is not fooled by their being the cheap ones.
_UNITS = 1000
#: Python and LAPACK overhead of one step (rank one) or one subproblem (general A), in the
#: flops of the cost model.
_STEP_OVERHEAD = 2000.0
_SOLVE_OVERHEAD = 400.0


def step_costs(pair: MatrixPair) -> np.ndarray:
    """Modelled cost (flops plus overhead) of every step of :func:`~.greedy.gslda_pair`,
    in order.

    Rank one: forward step s (and the renormalized values along the backward order) updates
    s rows of the n − s live columns; backward step s the same after the O(n³) inverse.
    General A: forward step s solves n − s eigenproblems of size s + 1; backward step s
    one of size n − s.
    """
    n = pair.n
    s = np.arange(n, dtype=float)
    live = n - s
    if pair.rank_one:
        forward = live * (s + 1) + _STEP_OVERHEAD
        backward = forward[: max(n - 1, 0)].copy()
        if backward.size:
            # the Cholesky inverse of B: n³ flops, but level-3 BLAS, several times faster per
            # flop than the matrix-vector products of the steps
            backward[0] += n**3 / 30.0
        return np.concatenate([forward, backward, forward])
    forward = live * ((s + 1) ** 3 + _SOLVE_OVERHEAD)
    # one eigen-solve with vectors of the m = n − s variables and a secular root per
    # variable (:func:`~._numerics.drop_one_values`), not m eigen-solves
    backward = (10.0 * live**3 + _SOLVE_OVERHEAD * live)[: max(n - 1, 0)]
    return np.concatenate([forward, backward])


class Meter:
    """A :class:`~spectral_kit.progress.Progress` over the steps of
    :func:`~.greedy.gslda_pair`, advanced in thousandths of the modelled work
    (:func:`step_costs`); entering it gives the callback each step calls (None when neither
    a bar nor a budget is asked for)."""

    def __init__(self, pair: MatrixPair, progress: bool | None, max_seconds: float | None):
        self.pair, self.progress, self.max_seconds = pair, progress, max_seconds
        self.bar: Progress | None = None

    def __enter__(self) -> Callable[[], None] | None:
        if self.progress is False and self.max_seconds is None:
            return None
        costs = step_costs(self.pair)
        self.units = np.floor(_UNITS * np.cumsum(costs) / costs.sum()).astype(int)
        self.step = 0
        n = self.pair.n
        self.bar = Progress(
            _UNITS, f"GSLDA path over {n} features", progress=self.progress,
            max_seconds=self.max_seconds, unit="‰", large=n >= LARGE_FEATURES,
            hint=("Select k features by greedy forward selection alone (method='forward', "
                  "which stops at k) or on fewer features."),
        )
        return self._tick

    def _tick(self) -> None:
        assert self.bar is not None
        done = int(self.units[min(self.step, self.units.size - 1)])
        self.step += 1
        # steps worth less than a unit wait for the next one: the budget's projection
        # then always divides by a measured share of the work
        if done > self.bar.done:
            self.bar.update(done - self.bar.done)

    def __exit__(self, *exc: Any) -> None:
        if self.bar is not None:
            self.bar.close()
