"""The exact search as first written -- inclusion bounds alone, SciPy's wrappers at every
node -- kept as the baseline that ``spectral-kit bench sparse-lda`` and the tests compare
the search with. Not used by the library.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..sparse_lda._numerics import (
    add_one_values,
    rank_one_add_values,
    secular_top_root,
)
from ..sparse_lda.branch_bound import ESLDASearch
from ..sparse_lda.branching import _Branching
from ..sparse_lda.nodes import _NodeInfo, _pairs_block
from ..sparse_lda.pair import MatrixPair

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny


def _rank_one_node(pair: MatrixPair, T: np.ndarray) -> _NodeInfo:
    B_T = pair.B[np.ix_(T, T)]
    d_T = pair.d[T]
    c, low = scipy.linalg.cho_factor(B_T, lower=True, check_finite=False)
    P = scipy.linalg.cho_solve((c, low), np.eye(T.size), check_finite=False)
    P = 0.5 * (P + P.T)
    w = P @ d_T
    f_T = float(d_T @ w)
    p = np.diag(P)
    g = f_T - w**2 / p
    # f(T∖{i,j}) = f(T) − [w_i w_j] [[P_ii P_ij] [P_ij P_jj]]⁻¹ [w_i w_j]ᵀ
    det = np.outer(p, p) - P**2
    np.fill_diagonal(det, 1.0)
    quad = (np.outer(w**2, p) - 2.0 * P * np.outer(w, w) + np.outer(p, w**2)) / det
    H = f_T - quad
    np.fill_diagonal(H, -np.inf)
    cond = float(np.linalg.norm(B_T) * np.linalg.norm(P))
    margin = 64.0 * T.size * _EPS * cond * abs(f_T)
    return _NodeInfo(f_T, g, H, margin)


def _general_node(pair: MatrixPair, T: np.ndarray) -> _NodeInfo:
    m = T.size
    B_T = pair.B[np.ix_(T, T)]
    L = scipy.linalg.cholesky(B_T, lower=True, check_finite=False)
    L_inv = scipy.linalg.solve_triangular(L, np.eye(m), lower=True, check_finite=False)
    C = L_inv @ pair.A[np.ix_(T, T)] @ L_inv.T
    lam, V = scipy.linalg.eigh(0.5 * (C + C.T), check_finite=False)
    if m == 1:
        g = np.array([-np.inf])
    else:
        Z = V.T @ L_inv
        Z /= np.linalg.norm(Z, axis=0)
        g = secular_top_root(lam, Z**2)
    # ‖B_T⁻¹‖₂ ≤ ‖L⁻¹‖_F², so this over-estimates cond(B_T): a safe rounding margin.
    cond = float(np.linalg.norm(B_T) * np.sum(L_inv**2))
    margin = 64.0 * m * _EPS * cond * float(np.abs(lam).max())
    return _NodeInfo(float(lam[-1]), g, None, margin)


class _ReferenceSearch(_Branching):
    """Best-first branch-and-bound for one (pair, k) with the inclusion bounds alone: the
    one- and two-removal values of each node, no cardinality bound, one variable at a time
    near the leaves."""

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, value: float, gap: float):
        self._node_info = _rank_one_node if pair.rank_one else _general_node
        super().__init__(pair, k, support, value, gap)

    # -- hooks ------------------------------------------------------------------------------
    def node_info(self, T: np.ndarray) -> _NodeInfo:
        return self._node_info(self.pair, T)

    def prune_early(self, T: np.ndarray, in_F: np.ndarray, r: int) -> bool:
        """Whether a bound computed without factorizing B_T already prunes the node."""
        return False

    def prune_node(self, info: _NodeInfo, free: np.ndarray, in_F: np.ndarray,
                   e: int, r: int) -> bool:
        """Whether a node bound beyond f(T) prunes the node."""
        return False

    def excluded_free(self, info: _NodeInfo, free: np.ndarray, r: int) -> np.ndarray:
        """Free variables (positions in T) that no improving subset of the node keeps."""
        return free[:0]

    def exclusion_bounds(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        """For each free j, a bound on the node's subsets that leave j out."""
        if info.H is not None and e >= 2:
            return _pairs_block(info.H, free, free).max(axis=1)
        return info.g[free]

    def branching_keys(self, free: np.ndarray, h: np.ndarray) -> np.ndarray:
        """What the free variables are sorted by for branching (increasing): their
        exclusion bounds ``h``."""
        return h

    def child_bound(self, info: _NodeInfo, u: np.ndarray, h_sorted: np.ndarray, i: int,
                    e: int) -> float:
        """Bound of the Narendra–Fukunaga child i: leaves u_i out, keeps u_1 … u_{i−1}."""
        if info.H is not None and e >= 2:
            return float(_pairs_block(info.H, u[i : i + 1], u[i + 1 :]).max())
        return float(h_sorted[i])

    def child_bounds(self, info: _NodeInfo, u: np.ndarray, h_sorted: np.ndarray, r: int,
                     e: int) -> np.ndarray:
        """:meth:`child_bound` of the children 0 … r."""
        return np.array([self.child_bound(info, u, h_sorted, i, e) for i in range(r + 1)])

    def exact_r(self, free: int) -> int:
        """Nodes with at most this many free variables still to choose are solved directly."""
        return 1

    def solves_kept_directly(self, r: int, free: int) -> bool:
        """Whether the children that keep u_1 (1 … r) are solved at once, as F ∪ {u_1}
        choosing r − 1 of the other free variables, instead of being queued."""
        return False

    def solve_small(self, F_idx: np.ndarray, cand: np.ndarray, r: int, margin: float) -> bool:
        """Offer the best S = F ∪ R over the r-subsets R of ``cand`` (r ≤ :meth:`exact_r`);
        whether it could (if not, the node is branched as any other)."""
        adder = rank_one_add_values if self.pair.rank_one else add_one_values
        values = adder(self.pair, F_idx, cand)
        self.offer_best([np.append(F_idx, u) for u in cand], values, margin)
        return True


class _ReferenceESLDASearch(ESLDASearch):
    """The search with the inclusion bounds alone, as first written (benchmarks, tests)."""

    _search_class = _ReferenceSearch
    _polish = False



def row_tops_before(M_T: np.ndarray, in_F: np.ndarray, r: int, w: np.ndarray | None = None,
                    square: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """:func:`spectral_kit.sparse_lda.bounds._row_tops` as first written: the whole node
    matrix weighted (or squared) and copied, its diagonal zeroed, the free columns sliced
    out and partitioned into a further copy -- four passes over m² entries where one
    suffices. The baseline of the wide-node rows."""
    m = M_T.shape[0]
    W = M_T * M_T if square else (M_T if w is None else M_T * w[None, :])
    W = W.copy()
    W.flat[:: m + 1] = 0.0
    free = ~in_F
    base = W[:, in_F].sum(axis=1)
    Wf = W[:, free]
    nf = Wf.shape[1]
    return base, np.partition(Wf, nf - r, axis=1)[:, nf - r:]
