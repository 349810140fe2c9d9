"""The exact search assembled: node kernels, node bounds and direct finishes on the driver.

One job: :class:`_Search` -- its state (scaled pair, λ_min(B), Perron weights, bound
statistics) and the two places where the cheap bounds change the driver's behaviour:
children bounded when they are queued (:meth:`_Search.push`) and nodes far from a leaf
expanded without an eigen-solve (:meth:`_Search.expand`).

Invariant: the same as :mod:`.driver` -- the queue and the incumbent cover every subset
not proven unable to beat the incumbent.
"""

from __future__ import annotations

import heapq
import time

import numpy as np
import scipy.linalg

from . import bounds
from . import relaxation as _relaxation
from ._numerics import (
    submatrix,
    subset_value,
)
from .branching import _Branching
from .driver import _Driver
from .finishes import _DirectFinishes
from .node_bounds import _NodeBounds
from .nodes import _NodeKernels
from .pair import MatrixPair
from .start import local_swap_search


class _Search(_NodeBounds, _DirectFinishes, _NodeKernels, _Branching):
    """The search with cardinality bounds (:mod:`.bounds`) and low-overhead node kernels.

    Node kernels call LAPACK directly (``dpotrf``/``dpotri``/``dtrtri``/``dposv``: no input
    checks, no ``ix_``) and skip the Cholesky factor when B = I. Bounds, in
    the order they are tried at a node:

    1. before any factorization, and only when they can bite (B = I or λ_min(B) not tiny):
       the trace–Frobenius, row-sum, fixed-block and Perron-weighted row-sum bounds on A
       (:func:`.bounds.perron_rows_bound`), divided by λ_min(B) when B ≠ I;
    2. the cardinality forms of the one- and two-removal bounds (rank one: the values;
       general A: bounds from the inertia at the threshold, :class:`_PairsAtThreshold`);
    3. rank one: with B ≠ I the perspective bound (:func:`.perspective.perspective_terms`),
       then the Schur loss bounds, removed side and kept side
       (:func:`.bounds.schur_loss_terms`, :func:`.bounds.schur_kept_terms`);
    4. the generalized top-entries bound from the node's own eigenpairs (rank one: P = B_T⁻¹);
    5. per variable: cardinality and Schur exclusion bounds for fixing and for the children;
       rank one: the kept-side terms of 3. for fixing out (:meth:`excluded_free`).

    A search still open after :attr:`RELAX_AFTER_NODES` nodes solves the ℓ₁ relaxation at
    the root (:func:`.relaxation.l1_relaxation_bound`): its bound caps every queued node, and
    with B = I the root's dual point, restricted to a node's variables, bounds that node
    (one top eigenvalue, no solve) before it is branched.
    """

    #: Nodes expanded, and seconds spent, before the root relaxation is solved: searches that
    #: end sooner never pay for it.
    RELAX_AFTER_NODES = 40
    RELAX_AFTER_SECONDS = 2.0
    #: Sizes at which it is solved: below, the cardinality bounds close the searches; above,
    #: each of its steps (a dense eigendecomposition) costs seconds.
    RELAX_MIN_N, RELAX_MAX_N = 60, 1000
    #: Its time, each round: as long as the search has run so far (at least
    #: RELAX_MIN_SECONDS) and at most a share of the time left to the deadline, and at most
    #: RELAX_MAX_STEPS steps (the bound keeps improving with more). Searches run in short
    #: slices (an explorer's) never solve it: a slice must stay short.
    RELAX_SHARE = 0.2
    RELAX_MIN_SECONDS = 1.0
    RELAX_MAX_STEPS = 5000
    #: A later round (:meth:`relax_more`) that lowers the bound by less than this fraction
    #: is the last.
    RELAX_MIN_GAIN = 1e-3
    #: B = I: ADMM steps of the relaxation solved on a node's own variables, warm-started
    #: from the root's solution restricted to them (weak spiked p = 300, ten of the top
    #: forty variables left out: 10 steps take the node's bound from 2.458 to 2.434, 20 to
    #: 2.407, where the root's dual point restricted gives 2.458).
    NODE_RELAX_STEPS = 10
    #: Their share of the search's time, at most: on Sonar's correlation at k = 25 they
    #: pruned a fifth of the nodes they were tried on but took half the search.
    NODE_RELAX_SHARE = 0.2
    #: The narrowest smoothing width of later rounds with B ≠ I (× max|A|).
    RELAX_FINEST = 0.0025

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, value: float, gap: float):
        n = pair.n
        self.identity_B = bool(np.array_equal(pair.B, np.eye(n)))
        self.absA = np.abs(pair.A)
        self.scale_A = float(self.absA.max()) if n else 0.0
        lam_B = 1.0 if self.identity_B else float(
            scipy.linalg.eigvalsh(pair.B, subset_by_index=[0, 0], check_finite=False)[0])
        self.lambda_min_B = lam_B
        self.cheap = False
        # soft-threshold level: starts at the median |a_ij| and follows the best one found
        self.soft_c = float(np.median(self.absA)) if n > 1 else 0.0
        self.soft_seconds = 0.0
        self.soft_idle = 0
        self.pruned_early = 0
        self.stats: dict[str, tuple[int, int]] = {}
        self.perron_w = np.ones(n)
        # B = I makes the Schur kept terms exact: nothing left for the relaxation to add
        self.use_perspective = pair.rank_one and not self.identity_B
        self._kept = self._persp = self._order = None
        #: The root's ℓ₁ relaxation once solved (:meth:`relax_root`), and the bound of the
        #: node being expanded that caps its children's (:meth:`push`).
        self.relaxed: _relaxation.RelaxationBound | None = None
        self._node_cap = np.inf
        self._started = time.perf_counter()
        self._slicing = False
        self._relax_stalled = False
        self._tree_since = self._relax_seconds = 0.0
        self._relax_rounds = 0
        self._node_relax_seconds = 0.0
        super().__init__(pair, k, support, value, gap)
        if lam_B > 0 and k < n:
            # at the root the weights get many more steps: later nodes start from them
            root = self.cheap_bound(np.arange(n), np.zeros(n, dtype=bool), k,
                                    iters=self.PERRON_ROOT_ITERS)
            top = float(subset_value(pair, np.arange(n)))
            # worth the O(m²) per node only when it beats the inclusion bound at the root
            self.cheap = root < top * (1.0 - 1e-3) if top > 0 else False


    def push(self, bound: float, depth: int, F: np.ndarray, T: np.ndarray,
             own: bool = False) -> None:
        """With cheap bounds, a child is bounded when it is created: pruned at once, or
        queued under its own bound, so that best-first order follows the nodes' bounds."""
        # every subset of a child is one of the node's: the node's bound holds
        bound = min(bound, self._node_cap)
        if self.cheap and not own:
            T_idx = T.nonzero()[0]
            in_F = F[T_idx]
            r = self.k - np.count_nonzero(in_F)
            if T_idx.size > self.k and r > 0:
                b = self.cheap_bound(T_idx, in_F, r) + self.cheap_margin(T_idx.size)
                if b <= self.threshold():
                    self.pruned_early += 1
                    return
                bound, own = min(bound, b), True
        super().push(bound, depth, F, T, own)

    def advance(self, deadline: float | None = None, max_nodes: int | None = None,
                *, at_least_one: bool = False) -> tuple[str, float]:
        """:meth:`.driver._Driver.advance`, noting whether this is a short slice (a deadline
        and at least one node: an explorer's), in which the root relaxation waits."""
        self._slicing = at_least_one and deadline is not None
        return super().advance(deadline, max_nodes, at_least_one=at_least_one)

    # -- the ℓ₁ relaxation ------------------------------------------------------------------
    def relax_root(self) -> None:
        """Solve the root's ℓ₁ relaxation (first in a search still open after
        :attr:`RELAX_AFTER_NODES` nodes; then again, warm-started, while its bound is still
        the search's bound, :meth:`relax_more`) and cap every queued bound by it: each
        queued node stands for k-subsets, all of which the root's bound covers."""
        first = self.relaxed is None
        self._relax_rounds += 1
        n, k = self.n, self.k
        if not (self.RELAX_MIN_N <= n <= self.RELAX_MAX_N and 2 <= k < n):
            return
        now = time.perf_counter()
        deadline = self.deadline if self.deadline is not None else self.interrupt_at
        # as long as the search has run so far (at least RELAX_MIN_SECONDS): a search that
        # would end soon is not held up for long; and within a share of the time left
        seconds = max(self.RELAX_MIN_SECONDS, now - self._started)
        if deadline is not None:
            seconds = min(seconds, max(0.0, self.RELAX_SHARE * (deadline - now)))
        B = None if self.identity_B else self.pair.B
        if first:
            # B ≠ I: given up once its levels are ranked if it is no better than the search's
            # own bound by then (as with an ill-conditioned B); with B = I its dual point
            # still bounds the nodes (Sonar's correlation at k = 25: certified in 37 s with
            # it, not in 60 s without)
            give_up = np.inf if self.identity_B else max(self.expanding_bound,
                                                         self.top_bound())
            warm = {"give_up": give_up}
        elif self.identity_B:
            # warm-started, the level searched again from the last one: the first round,
            # short, ranks levels by runs too short to tell them apart (weak spiked p = 500:
            # it kept 0.104, where 0.085 ends 2 % lower)
            warm = {"c": self.relaxed.c, "Y0": self.relaxed.Y, "refine": True}
        else:
            # warm-started at the same level, each round with half the smoothing width
            width = max(self.RELAX_FINEST, 0.01 / 2.0 ** (self._relax_rounds - 1))
            warm = {"c": self.relaxed.c, "Y0": self.relaxed.Y, "smoothing": width}
        relaxed = _relaxation.l1_relaxation_bound(
            self.pair.A, k, B, max_steps=self.RELAX_MAX_STEPS, max_seconds=seconds,
            target=self.threshold(), **warm)
        self._tree_since = time.perf_counter()
        self._relax_seconds = relaxed.seconds
        if not np.isfinite(relaxed.value) or (first and relaxed.value >= warm["give_up"]):
            return
        if not first:
            gain = self.relaxed.value - relaxed.value
            # another round only while rounds still pay
            self._relax_stalled = gain <= self.RELAX_MIN_GAIN * abs(self.relaxed.value)
            if gain <= 0:
                return
        self.relaxed = relaxed
        # its dual point also points at good subsets: polished, they may beat the start
        for support in _relaxation.relaxation_supports(self.pair.A, relaxed, k, B):
            polished, _ = local_swap_search(self.pair, support, deadline=deadline)
            self.offer(polished)
        cap = -relaxed.value
        self.heap = [(max(entry[0], cap), *entry[1:]) for entry in self.heap]
        heapq.heapify(self.heap)
        self.expanding_bound = min(self.expanding_bound, relaxed.value)

    def relax_more(self) -> bool:
        """Whether to resume the root relaxation: the tree has had as long as the last round
        took, and the relaxation's bound is still the search's (the tree has not brought
        the largest open bound below it)."""
        relaxed = self.relaxed
        if relaxed is None or self._relax_stalled or self._slicing:
            return False
        if time.perf_counter() - self._tree_since < self._relax_seconds:
            return False
        return max(self.expanding_bound, self.top_bound()) >= relaxed.value

    def relaxed_bound(self, T: np.ndarray) -> float:
        """B = I: the root's dual point restricted to T bounds the k-subsets of T
        (:func:`.relaxation.relaxation_value`); ``inf`` before the root is relaxed."""
        relaxed = self.relaxed
        if relaxed is None or not self.identity_B or T.size <= self.k:
            return np.inf
        if T.size == self.n:
            return relaxed.value
        return _relaxation.relaxation_value(submatrix(self.pair.A, T),
                                            submatrix(relaxed.Y, T), relaxed.c, self.k)

    def solved_bound(self, T: np.ndarray) -> float:
        """B = I: :attr:`NODE_RELAX_STEPS` ADMM steps of the relaxation on T's variables,
        warm-started from the root's dual point, primal iterate and step size restricted
        to T. Every dual point they visit bounds the k-subsets of T
        (:func:`.relaxation.relaxation_value`); the best evaluated is returned."""
        started = time.perf_counter()
        relaxed = self.relaxed
        state = {} if relaxed.state is None else {
            "rho": relaxed.state["rho"], "Z": submatrix(relaxed.state["Z"], T)}
        value, _, _ = _relaxation._admm_run(
            submatrix(self.pair.A, T), self.k, relaxed.c, submatrix(relaxed.Y, T),
            self.NODE_RELAX_STEPS, None, state)
        self._node_relax_seconds += time.perf_counter() - started
        return value

    def solve_nodes(self) -> bool:
        """Whether to solve the relaxation at this node. As every bound, it is tried
        ``PATIENCE`` times, and kept if it has pruned: on weak signals its caps on the first
        nodes' children lower the search's bound even where it prunes nothing (weak spiked
        p = 300, seed 2: 4.17 % left at 120 s without it, 3.72 % with it). Once it prunes, at
        most :attr:`NODE_RELAX_SHARE` of the search's time so far: each try is a few dense
        eigendecompositions."""
        if self._slicing or not self.worth_trying("node relaxation"):
            return False
        if self.stats.get("node relaxation", (0, 0))[1] == 0:
            return True
        return self._node_relax_seconds <= self.NODE_RELAX_SHARE * (
            time.perf_counter() - self._started)

    def expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
        """Before the node's own bounds: the root relaxation once the search has run
        :attr:`RELAX_AFTER_NODES` nodes, and the node's relaxation bound (which prunes it or
        caps its children's bounds)."""
        if (self._relax_rounds == 0 and not self._slicing
                and self.nodes >= self.RELAX_AFTER_NODES
                and time.perf_counter() - self._started >= self.RELAX_AFTER_SECONDS
                ) or self.relax_more():
            self.relax_root()
        # the node's queued bound (capped by the root's relaxation once solved) holds for its
        # children: a child's own bound above it would raise the search's upper bound
        self._node_cap = self.expanding_bound
        if self.relaxed is not None and self.identity_B and self.worth_trying("relaxation"):
            T = T_mask.nonzero()[0]
            if T.size > self.k and np.count_nonzero(F_mask) < self.k:
                relaxed = self.relaxed_bound(T)
                if self.record("relaxation", relaxed <= self.threshold()):
                    self.nodes += 1
                    return
                self._node_cap = min(self._node_cap, relaxed)
                if T.size < self.n and self.solve_nodes():
                    solved = self.solved_bound(T)
                    if self.record("node relaxation", solved <= self.threshold()):
                        self.nodes += 1
                        return
                    self._node_cap = min(self._node_cap, solved)
        try:
            self._expand(F_mask, T_mask, own)
        finally:
            self._node_cap = np.inf

    def _expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
        """Rank-one nodes that keep at most :attr:`DIRECT_R` more variables are solved from
        F alone (:meth:`solve_direct`). Nodes far from a leaf (e > k) with cheap bounds skip
        the eigen-solve: there the removal bounds are near f(T) and the cardinality bounds
        do the pruning."""
        if self.solve_direct(F_mask, T_mask):
            return
        if not self.cheap:
            return super().expand(F_mask, T_mask, own)
        T = T_mask.nonzero()[0]
        in_F = F_mask[T]
        e, r = T.size - self.k, self.k - np.count_nonzero(in_F)
        if e <= self.k or r < 2:
            return super().expand(F_mask, T_mask, own)
        self.nodes += 1
        if own:  # bounded when queued (and the threshold only rises): just the row order
            A_T = submatrix(self.pair.A, T)
            R = bounds.collatz_rows(A_T, submatrix(self.absA, T), in_F, r)
            bound = np.inf
        else:
            b, R = self.cheap_bound(T, in_F, r, rows=True)
            bound = b + self.cheap_margin(T.size)
            if bound <= self.threshold():
                self.pruned_early += 1
                return
        if self.prune_soft(T):
            return
        free = np.flatnonzero(~in_F)
        # most promising first: child i leaves u_i out and keeps u_1 … u_{i−1}
        u = free[np.argsort(-R[free], kind="stable")]
        depth = int(T_mask.size - T.size) + int(in_F.sum())
        for i in range(r + 1):
            if i and self.interrupted():
                # the children not yet queued are the supports that keep u_1 … u_i: one
                # node, under the bound this node was queued with (its own is computed
                # when it is expanded)
                rest_F = F_mask.copy()
                rest_F[T[u[:i]]] = True
                _Driver.push(self, min(bound, self.expanding_bound), depth + i, rest_F,
                             T_mask.copy())
                return None
            if i == r:
                self.offer(np.concatenate([T[in_F], T[u[:r]]]))
                continue
            child_F = F_mask.copy()
            child_F[T[u[:i]]] = True
            child_T = T_mask.copy()
            child_T[T[u[i]]] = False
            self.push(bound, depth + i + 1, child_F, child_T)
        return None

