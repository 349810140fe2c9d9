"""Driver of the exact search: the incumbent, the best-first queue and the budget.

One job: keep the open nodes in a heap ordered by their bounds, pop the best one and hand
it to :meth:`_Driver.expand` (:mod:`.branching`) until the queue certifies the incumbent,
``max_nodes`` nodes are expanded or a deadline passes.

Invariant: the queue and the incumbent together cover every k-subset the incumbent has
not beaten by more than the gap -- after an interrupt too (the node being expanded goes
back) -- so the largest queued bound is a proven upper bound at any moment.
"""

from __future__ import annotations

import heapq
import time
from itertools import count
from typing import Any

import numpy as np

from ._numerics import (
    subset_value,
)
from .pair import MatrixPair

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny


#: Default relative optimality gap: values within it of the incumbent count as ties.
DEFAULT_GAP = 1e-10


class _Driver:
    """Best-first branch-and-bound state for one (pair, k): the incumbent and the queue.

    Subclasses define :meth:`expand` (one node: bound it, prune it or queue its children).
    """

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, value: float, gap: float):
        self.pair, self.k, self.gap = pair, k, gap
        self.n = pair.n
        self.best_support, self.best_value = support, value
        self._threshold = self._threshold_of(value)
        self.heap: list[tuple[float, int, int, bytes, bytes]] = []
        self.tie = count()
        self.nodes = 0
        #: While :meth:`advance` runs to a deadline (not slices that must make progress):
        #: when it passes, an expansion may stop between its children (:meth:`interrupted`).
        self.interrupt_at: float | None = None
        #: The queued bound of the node being expanded, valid for every part of it.
        self.expanding_bound = np.inf
        #: The whole search's deadline (``time.perf_counter()``), when it has one (set by
        #: :class:`.branch_bound.ESLDASearch`); slices of it may stop earlier.
        self.deadline: float | None = None
        self.push(np.inf, 0, np.zeros(self.n, dtype=bool), np.ones(self.n, dtype=bool))

    # -- incumbent --------------------------------------------------------------------------
    def _threshold_of(self, value: float) -> float:
        return value + self.gap * max(abs(value), _TINY)

    def threshold(self) -> float:
        """What a node's bound must exceed to be worth expanding: the incumbent plus the
        gap (kept up to date by :meth:`offer`; read several times at every node)."""
        return self._threshold

    def set_incumbent(self, support: np.ndarray, value: float) -> None:
        """Take a subset evaluated elsewhere (another process of the same search) as the
        incumbent if its value beats the current one."""
        if value > self.best_value:
            self.best_value, self.best_support = float(value), np.sort(support)
            self._threshold = self._threshold_of(value)

    def offer(self, support: np.ndarray) -> None:
        """Evaluate a feasible support exactly and keep it if it beats the incumbent."""
        value = subset_value(self.pair, support)
        if value > self.best_value:
            self.best_value, self.best_support = value, np.sort(support)
            self._threshold = self._threshold_of(value)

    def offer_best(self, supports: list[np.ndarray], bounds: np.ndarray, margin: float) -> None:
        """Exactly evaluate the candidate leaves whose computed value could be the best."""
        if bounds.size == 0:
            return
        top = float(bounds.max())
        for i in np.flatnonzero(bounds >= top - 2.0 * margin):
            if bounds[i] + margin > self.threshold():
                self.offer(supports[int(i)])

    # -- pickling (worker processes, :mod:`.parallel`) --------------------------------------
    def __getstate__(self) -> dict[str, Any]:
        """The search without its queue and without the state cached for the node being
        expanded (a worker gets its share of the queue separately)."""
        state = self.__dict__.copy()
        state["heap"] = []
        del state["tie"]
        for name in ("_kept", "_persp", "_order", "_excl", "_phi"):
            if name in state:
                state[name] = None
        return state

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__dict__.update(state)
        self.tie = count()

    # -- queue ------------------------------------------------------------------------------
    def push(self, bound: float, depth: int, F: np.ndarray, T: np.ndarray,
             own: bool = False) -> None:
        """Queue a node; ``own`` marks a bound computed for the node itself (not inherited)."""
        heapq.heappush(
            self.heap, (-bound, -depth, next(self.tie), F.tobytes(), T.tobytes(), own)
        )

    @staticmethod
    def queued_node(entry: tuple) -> tuple[np.ndarray, np.ndarray, bool]:
        """The (F, T, own) of a queue entry (:meth:`push`), as writable masks."""
        return (np.frombuffer(entry[3], dtype=bool).copy(),
                np.frombuffer(entry[4], dtype=bool).copy(), bool(entry[5]))

    def top_bound(self) -> float:
        return -self.heap[0][0] if self.heap else -np.inf

    # -- driver -----------------------------------------------------------------------------
    def advance(
        self, deadline: float | None = None, max_nodes: int | None = None,
        *, at_least_one: bool = False,
    ) -> tuple[str, float]:
        """Expand nodes best first until the optimum is certified, the search has expanded
        ``max_nodes`` in all, or ``time.perf_counter()`` passes ``deadline``.

        Returns why it stopped ("completed", "max_nodes", "max_seconds") and the largest
        open bound (the threshold once completed). The queue survives, so a stopped search
        can be resumed by another call; ``at_least_one`` expands a node even past the
        deadline, so that every call makes progress.
        """
        expanded = 0
        # a node of a wide search can take longer than a tenth of the budget: its expansion
        # stops between children once the deadline passes (slices that must make progress
        # expand whole nodes, so their trees do not depend on timing)
        self.interrupt_at = None if at_least_one else deadline
        try:
            while self.heap:
                bound = self.top_bound()
                if bound <= self.threshold():
                    break
                if max_nodes is not None and self.nodes >= max_nodes:
                    return "max_nodes", bound
                if (deadline is not None and time.perf_counter() > deadline
                        and not (at_least_one and expanded == 0)):
                    return "max_seconds", bound
                entry = heapq.heappop(self.heap)
                self.expanding_bound = -entry[0]
                try:
                    self.expand(*self.queued_node(entry))
                except BaseException:
                    # Interrupted (Ctrl-C, a kernel interrupt) or failed mid-expansion: the
                    # node goes back, so that the queue still covers every subset the
                    # incumbent has not beaten and a resumed search certifies nothing it has
                    # not searched (children already queued only repeat part of its subtree).
                    heapq.heappush(self.heap, entry)
                    raise
                expanded += 1
        finally:
            self.interrupt_at, self.expanding_bound = None, np.inf
        self.heap.clear()
        return "completed", self.threshold()

    def interrupted(self) -> bool:
        """True once the deadline of the running :meth:`advance` has passed (never for
        slices that must make progress); an expansion then queues what it has not split
        as one node and returns."""
        return self.interrupt_at is not None and time.perf_counter() > self.interrupt_at


    def expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
        """Expand one node (:mod:`.branching`)."""
        raise NotImplementedError
