"""The exact search assembled: node kernels, node bounds and direct finishes on the driver.

One job: :class:`_Search` -- its state (scaled pair, λ_min(B), Perron weights, bound
statistics) and the two places where the cheap bounds change the driver's behaviour:
children bounded when they are queued (:meth:`_Search.push`) and nodes far from a leaf
expanded without an eigen-solve (:meth:`_Search.expand`).

Invariant: the same as :mod:`.driver` -- the queue and the incumbent cover every subset
not proven unable to beat the incumbent.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from . import bounds
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
    """

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
        self.pruned_early = 0
        self.stats: dict[str, tuple[int, int]] = {}
        self.perron_w = np.ones(n)
        # B = I makes the Schur kept terms exact: nothing left for the relaxation to add
        self.use_perspective = pair.rank_one and not self.identity_B
        self._kept = self._persp = self._order = None
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

    def expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
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

