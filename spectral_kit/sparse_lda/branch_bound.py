"""ESLDA: exact sparse LDA by branch-and-bound on the eigenvalue bounds (Sec. 2.3).

A node is a pair (F, T) with F ⊆ T: the k-subsets S with F ⊆ S ⊆ T. By the inclusion
principle (Thm. 1, Eq. 8) λ_max(A_S, B_S) ≤ λ_max(A_T, B_T) for every such S, and the bound
tightens as T shrinks. Nodes are expanded best-first (largest bound first) from an incumbent
given by GSLDA, so that the search can stop at any time with the incumbent and a certified
upper bound: the largest bound still open.

What makes n = 40, k = 20 tractable (the paper quotes ≈ 2 hours):

* **All one-removal bounds at once.** At a node, f(T∖j) for every free j -- in the rank-one
  case ``f(T) − w_j²/P_jj`` with P = B_T⁻¹, w = P d_T (one inverse, O(m²) after it); in general
  stacked eigen-solves.
* **Two-removal bounds (rank one).** f(T∖{i, j}) = f(T) − w_Rᵀ (P_RR)⁻¹ w_R with R = {i, j}, a
  2 × 2 solve, for all pairs in O(m²). Any S in the node leaves out ``e = |T| − k`` free
  variables, so when e ≥ 2 a subset without j is bounded by max_i f(T∖{i, j}).
  For a general A the same bounds come from the inertia of A_T − μB_T at μ just under the
  threshold (:class:`_PairsAtThreshold`): one inverse tells, for every pair, whether
  f(T∖{i, j}) can exceed μ -- wherever at most two eigenvalues of the node lie above μ.
* **Fixing.** A free j whose exclusion bound is already ≤ the incumbent must be in every
  improving S: it moves to F without branching.
* **Narendra–Fukunaga branching.** Free variables u_1, u_2, … sorted by increasing exclusion
  bound; child i excludes u_i and includes u_1 … u_{i−1}. The children partition the node, and
  the ones with low bounds -- the largest subtrees -- are pruned first.
* **Closed-form leaves.** Nodes needing one or (rank one) two more removals, or one more
  inclusion, are solved directly from the same quantities.

What makes sparse PCA at n = 60–120, k = 5–10 a matter of seconds (:class:`_Search`; the
search above is kept as :class:`_ReferenceSearch`):

* **Cardinality bounds** (:mod:`.bounds`, each with its proof): the e-th largest removal
  bound; for B = I (or divided by λ_min(B)) the trace–Frobenius (Wolkowicz–Styan), row-sum
  (Gershgorin, as in Berk & Bertsimas 2019), fixed-block and soft-threshold (ℓ₁) bounds; the
  generalized top-entries bound from a node's own eigenpairs. They use k, so they prune near
  the root, where f(T) is close to λ_max(A, B).
* **Perron-weighted row sums.** The row-sum bound holds for every positive weighting; a
  nonlinear power iteration (warm-started from node to node) finds weights at which it is
  nearly the largest k-sparse eigenvalue of |A| -- for correlated blocks of variables, where
  the unweighted sums overshoot, it certifies Sonar's k = 20 in seconds.
* **Schur-complement loss bounds (rank one, any B).** Removing R from T loses exactly
  x_Rᵀ (P_RR)⁻¹ x_R (P = B_T⁻¹, x = P d_T), which is ≥ 2yᵀx_R − yᵀP_RR y for every y; with
  y along x / diag(P) or P_ff⁻¹ x_f and the double sum bounded row by row, the loss splits
  into per-variable terms, summed over the e removed or the r kept variables. They capture
  many removals at once where λ_min(B) is tiny (smooth within-class covariances) and the
  cardinality bounds above are useless.
* **The perspective bound (rank one, B ≠ I;** :mod:`.perspective`). Given F, the kept
  variables' gain is best-subset regression on the Schur complement Q = B_T / B_F; a
  diagonal D ⪯ Q splits it into a convex (perspective) relaxation whose tangent planes bound
  every subset by per-variable terms, used like the kept-side Schur terms for the node,
  fixing and children. Conditioning on F makes the free variables of a smooth process nearly
  independent, so D is a tenth of diag(Q) deep in the tree: on the random n = 80, k = 40
  pairs it prunes most of the nodes the Schur bounds leave. The branching order stays on
  the other exclusion bounds: sorted by the perspective terms, the tree grew several times.
* **Fixing out (rank one).** The same kept-side terms bound the subsets that keep a free j:
  f(T) − base + ψ_j + (the r − 1 largest other ψ). Where that cannot beat the incumbent,
  j leaves T and the node is evaluated again without it (its bounds tighten with the
  smaller T); on the random n = 60–80 pairs this removes 8–31 % of the nodes.
* **Cheap nodes.** Far from the leaves (e > k) the O(m²) bounds decide without an
  eigen-solve; children are bounded when they are created, so best-first order follows them.
* **Short finishes.** Rank one: a node that needs at most three more variables is solved by
  one vectorized bordered-Cholesky pass over all the candidate subsets instead of a subtree,
  without factorizing B_T or bounding it at all. General A: a node that needs at most
  six more is settled by a threshold test, not by values
  (:func:`._numerics.completions_above`): with μ just under the incumbent and f(F) < μ,
  f(F ∪ R) > μ exactly when K_RR is not positive definite, K the Schur complement of
  A_FF − μB_FF in μB − A over the candidates, scaled to a unit diagonal (Haynsworth
  inertia, Sylvester) -- one m × m matrix for the node. Pairs and triples are decided by
  their principal minors (a triple only through an entry of size ≥ ½); more variables by
  a chain of Schur complements that stops once the variables left give a positive
  definite block (interlacing), ordered by a pivoted Cholesky factorization. Only the
  subsets that pass (improvements and near-ties) are evaluated. Where the test cannot
  decide (some smaller F ∪ R' already reaches μ) pairs are solved by bordering F's
  whitened eigenproblem (:func:`._numerics.bordered_add_pairs_values`, values of
  arrowhead secular equations, Weyl's inequality skipping pairs) and a node that needs
  three or more is branched. On the benchmark's general pairs at n = 60, k = 10 this takes
  the noise-only pair from an estimated hour to under a minute, the planted one (θ = 10)
  from 13.8 s to 0.5 s. A general node that needs up to seven more solves its children
  that keep the first variable u_1 the same way, as one test from F ∪ {u_1}, instead of
  queuing them (:meth:`_Search.solves_kept_directly`). All r + 1 children of a node are
  bounded together, on (r + 1) × |u| arrays.
* **Node kernels without wrappers.** LAPACK's ``dpotrf``/``dpotri``/``dtrtri``/``dposv``
  directly, no factorization at all when B = I, submatrices by ``take`` rather than ``ix_``;
  the rank-one pair values f(T ∖ {i, j}) only for the blocks of free variables the bounds
  read (:class:`_PairValues`). On vectors of tens of entries NumPy's Python-level
  wrappers cost more than the work they wrap, so the node code calls the ufunc reductions
  (``np.add.reduce`` for ``.sum()``, ``np.maximum.reduce`` for ``.max()``) and the
  in-place array methods (``partition``, ``sort``, ``nonzero``) itself: the same arithmetic,
  bit for bit (the same trees), a few per cent less time a node.
* **A stronger start.** GSLDA's support polished by a best-improvement one-swap local search.

Bounds computed by cancellation carry a rounding margin (∝ eps · cond(B_T) · f(T)); a node is
pruned only when its bound plus that margin cannot beat the incumbent by more than ``gap``.
"""

from __future__ import annotations

import heapq
import math
import time
from dataclasses import replace
from itertools import count
from typing import Any

import numpy as np
import scipy.linalg
from threadpoolctl import threadpool_limits

from ..validation import check_finite_scalar, check_int
from . import bounds
from ._numerics import (
    add_one_values,
    batched_values,
    bordered_add_pairs_values,
    bordered_add_values,
    completions_above,
    local_swap_search,
    rank_one_add_subsets_values,
    rank_one_add_values,
    secular_top_root,
    submatrix,
    subset_value,
    subset_vector,
)
from .greedy import gslda_pair
from .pair import MatrixPair, check_k, check_pair
from .parallel import check_n_jobs, parallel_advance, start_workers
from .perspective import perspective_terms
from .results import ESLDAResult, GSLDAPath
from .spectrum import check_support

__all__ = ["DEFAULT_GAP", "ESLDASearch", "eslda", "eslda_pair", "single_threaded_blas"]

#: Default relative optimality gap: values within it of the incumbent count as ties.
DEFAULT_GAP = 1e-10

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny

# LAPACK directly: the node matrices are small, and scipy.linalg's checks cost more than
# the factorizations themselves.
_potrf = scipy.linalg.lapack.dpotrf
_potri = scipy.linalg.lapack.dpotri
_trtri = scipy.linalg.lapack.dtrtri
_posv = scipy.linalg.lapack.dposv


class _NodeInfo:
    """Bounds of one node: f(T), the one-removal values g and, for rank one, pair values H;
    ``extra`` holds what the cardinality bounds reuse (P = B_T⁻¹, eigenpairs)."""

    __slots__ = ("H", "extra", "f_T", "g", "margin")

    def __init__(self, f_T: float, g: np.ndarray, H: np.ndarray | _PairValues | None,
                 margin: float,
                 extra: dict | None = None):
        self.f_T, self.g, self.H, self.margin = f_T, g, H, margin
        self.extra = extra


class _PairValues:
    """Rank one: the two-removal values f(T ∖ {i, j}) of a node, computed for the blocks
    the search asks for (free variables only) rather than for all of T × T.

    f(T∖{i,j}) = f(T) − [w_i w_j] [[P_ii P_ij] [P_ij P_jj]]⁻¹ [w_i w_j]ᵀ, with P = B_T⁻¹ and
    w = P d_T; entries with i = j are −∞ (not a pair)."""

    __slots__ = ("P", "f_T", "p", "w")
    #: The entries are the subsets' values (up to rounding), so a leaf may be chosen by them.
    exact = True

    def __init__(self, P: np.ndarray, w: np.ndarray, f_T: float):
        self.P, self.w, self.f_T = P, w, f_T
        self.p = P.diagonal()

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        P_rc = submatrix(self.P, rows, cols)
        p_r, p_c = self.p[rows], self.p[cols]
        w_r, w_c = self.w[rows], self.w[cols]
        det = np.multiply.outer(p_r, p_c)
        det -= P_rc * P_rc
        quad = np.multiply.outer(w_r * w_r, p_c)
        quad += np.multiply.outer(p_r, w_c * w_c)
        quad -= 2.0 * P_rc * np.multiply.outer(w_r, w_c)
        same = np.equal.outer(rows, cols)
        det[same] = 1.0
        H = self.f_T - quad / det
        H[same] = -np.inf
        return H


class _PairsAtThreshold(_PairValues):
    """General A: bounds on the two-removal values f(T ∖ {i, j}) of a node from the inertia
    of W = A_T − μB_T at one level μ just under the threshold, for the blocks the search
    asks for.

    Let q ∈ {1, 2} generalized eigenvalues of (A_T, B_T) lie above μ and none at it, so that
    W is invertible with q positive eigenvalues. For S = T ∖ R, λ_max(A_S, B_S) > μ exactly
    when W_SS has a positive eigenvalue (B_S ≻ 0). Haynsworth's inertia additivity gives
    In(W) = In(W_SS) + In(W / W_SS), and the Schur complement is W / W_SS = ((W⁻¹)_RR)⁻¹, so

        λ_max(A_S, B_S) > μ  ⇔  (W⁻¹)_RR has at most q − 1 positive eigenvalues.

    For R = {i, j} and q = 1 that is "the 2 × 2 block is negative definite", for q = 2 "it is
    not positive definite". A pair failing it is *dead*: f(T ∖ {i, j}) ≤ μ. (A singular
    W_SS -- μ itself a value of S -- makes the block singular, and the margins below never
    count a singular block as dead for q = 2; for q = 1 only a positive diagonal entry,
    i.e. f(T ∖ i) ≤ μ by the one-variable test, does.) One matrix,
    W⁻¹ = L⁻ᵀ V (Λ − μI)⁻¹ Vᵀ L⁻¹ from the node's eigenpairs, decides every pair; a dead
    pair's bound is lowered to μ, a live one keeps min(g_i, g_j) (inclusion).

    Rounding: the node's margin δ stands for the error of its eigen-solve, as everywhere in
    the search. With γ = min_t |λ_t − μ| > 2δ, a perturbation of C = L⁻¹A_T L⁻ᵀ of size δ
    moves (C − μI)⁻¹ by at most δ / (γ(γ − δ)), so each entry of W⁻¹ is taken to be within
    ε_i ε_j of the exact one, ε_i = ‖L⁻¹e_i‖ √(δ / (γ(γ − δ)) + m·eps/γ); a pair is declared
    dead only when its block's test holds by more than that.

    The entries are bounds, not values: :attr:`exact` is False, so no leaf is chosen by them.
    """

    __slots__ = ("M", "err", "g", "mu", "q")
    exact = False

    def __init__(self, M: np.ndarray, err: np.ndarray, g: np.ndarray, mu: float, q: int):
        self.M, self.err, self.g, self.mu, self.q = M, err, g, mu, q

    def block(self, rows: np.ndarray, cols: np.ndarray) -> np.ndarray:
        diag, err = self.M.diagonal(), self.err
        a, b = diag[rows][:, None], diag[cols][None, :]
        c = submatrix(self.M, rows, cols)
        ea, eb = (err[rows] ** 2)[:, None], (err[cols] ** 2)[None, :]
        ec = np.multiply.outer(err[rows], err[cols])
        det = a * b - c * c
        det_err = np.abs(a) * eb + np.abs(b) * ea + 2.0 * np.abs(c) * ec + ea * eb + ec * ec
        if self.q == 1:  # live only if the block is negative definite
            dead = (a > ea) | (b > eb) | (det < -det_err)
        else:  # q = 2: dead if the block is positive definite
            dead = (a > ea) & (det > det_err)
        H = np.minimum.outer(self.g[rows], self.g[cols])
        np.minimum(H, self.mu, out=H, where=dead)
        H[np.equal.outer(rows, cols)] = -np.inf
        return H


def _pairs_block(H: np.ndarray | _PairValues, rows: np.ndarray,
                 cols: np.ndarray) -> np.ndarray:
    """The (rows, cols) block of a node's two-removal values, stored or computed."""
    if isinstance(H, _PairValues):
        return H.block(rows, cols)
    return H[np.ix_(rows, cols)]


def _pairs_exact(H: np.ndarray | _PairValues) -> bool:
    """Whether a node's two-removal entries are values (a leaf may be picked by them) rather
    than bounds."""
    return not isinstance(H, _PairValues) or H.exact


def _scaled(pair: MatrixPair) -> MatrixPair:
    """The pair in correlation scale, D B D with D = diag(B)^{-1/2}: every λ_max(A_S, B_S) is
    unchanged and the Cholesky factors of B_T are better conditioned."""
    s = 1.0 / np.sqrt(np.diag(pair.B))
    B = pair.B * np.outer(s, s)
    A = pair.A * np.outer(s, s)
    d = None if pair.d is None else pair.d * s
    return replace(pair, A=A, B=B, d=d)


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


class _ReferenceSearch:
    """Best-first branch-and-bound state for one (pair, k): the inclusion bounds alone.

    The search as first written (one- and two-removal bounds, SciPy's wrappers at every
    node); :class:`_Search` adds the cardinality bounds and the low-overhead node kernels
    through the hooks :meth:`prune_early`, :meth:`prune_node`, :meth:`exclusion_bounds` and
    :meth:`child_bound`. Kept as the reference that the benchmark and the tests compare with.
    """

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, value: float, gap: float):
        self.pair, self.k, self.gap = pair, k, gap
        self.n = pair.n
        self.best_support, self.best_value = support, value
        self._threshold = self._threshold_of(value)
        self._node_info = _rank_one_node if pair.rank_one else _general_node
        self.heap: list[tuple[float, int, int, bytes, bytes]] = []
        self.tie = count()
        self.nodes = 0
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

    # -- one node ---------------------------------------------------------------------------
    def expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
        """Expand one node (``own``: its queued bound was computed for it, see :meth:`push`)."""
        k = self.k
        T = T_mask.nonzero()[0]
        in_F = F_mask[T]
        e, r = T.size - k, k - np.count_nonzero(in_F)
        if e == 0:
            self.offer(T)
            return
        if r == 0:
            self.offer(T[in_F])
            return
        self.nodes += 1
        if not own and self.prune_early(T, in_F, r):
            return
        info = self.node_info(T)
        margin, g, H = info.margin, info.g, info.H
        use_pairs = H is not None and e >= 2
        free = (~in_F).nonzero()[0]
        fixed = list(in_F.nonzero()[0])
        if self.prune_node(info, free, in_F, e, r):
            return

        while True:  # fixing: variables that every improving subset must contain
            h = self.exclusion_bounds(info, free, e)
            forced = h + margin <= self.threshold()
            if not forced.any():
                break
            fixed.extend(free[forced])
            free = free[~forced]
            r = k - len(fixed)
            if r < 0:
                return
            if r == 0:
                self.offer(T[np.array(fixed, dtype=np.intp)])
                return
        if np.maximum.reduce(h) + margin <= self.threshold():
            return
        out = self.excluded_free(info, free, r) if e >= 2 and r >= 2 else free[:0]
        if out.size:  # no improving subset keeps them: the node again, without them
            if out.size > e:
                return
            child_F = F_mask.copy()
            child_F[T[np.array(fixed, dtype=np.intp)]] = True
            child_T = T_mask.copy()
            child_T[T[out]] = False
            self.expand(child_F, child_T)
            return
        F_pos = np.array(fixed, dtype=np.intp)
        if e == 1:  # S = T∖u for one free u
            self.offer_best([np.delete(T, u) for u in free], g[free], margin)
            return
        if use_pairs and e == 2 and _pairs_exact(H):  # S = T∖{u, v}
            sub = _pairs_block(H, free, free)
            iu, ju = np.triu_indices(free.size, 1)
            supports = [np.delete(T, [free[a], free[b]]) for a, b in zip(iu, ju)]
            self.offer_best(supports, sub[iu, ju], margin)
            return
        if r <= self.exact_r(free.size) and self.solve_small(T[F_pos], T[free], r, margin):
            return  # S = F ∪ R for r free variables R: solved directly
        order = np.argsort(self.branching_keys(free, h), kind="stable")
        u = free[order]
        h_sorted = h[order]
        depth = int(T_mask.size - T.size) + len(fixed)
        child_bounds = self.child_bounds(info, u, h_sorted, r, e)
        merged = self.solves_kept_directly(r, free.size)
        for i in range(r + 1):
            bound = float(child_bounds[i])
            if merged and i == 1:  # children 1 … r keep u_1 and r − 1 of the rest
                if float(np.maximum.reduce(child_bounds[1:])) + margin <= self.threshold():
                    break
                if self.solve_small(np.append(T[F_pos], T[u[0]]), T[u[1:]], r - 1, margin):
                    self.nodes += 1
                    break
                merged = False  # not solvable at once: queued as the other children
            if bound + margin <= self.threshold():
                continue
            if i == r:  # includes u_1..u_r: the subset is complete
                self.offer(np.concatenate([T[F_pos], T[u[:r]]]))
                continue
            child_F = F_mask.copy()
            child_F[T[u[:i]]] = True
            child_F[T[F_pos]] = True
            child_T = T_mask.copy()
            child_T[T[u[i]]] = False
            self.push(bound + margin, depth + i + 1, child_F, child_T)

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
            try:
                self.expand(*self.queued_node(entry))
            except BaseException:
                # Interrupted (Ctrl-C, a kernel interrupt) or failed mid-expansion: the node
                # goes back, so that the queue still covers every subset the incumbent has
                # not beaten and a resumed search certifies nothing it has not searched
                # (children already queued only repeat part of its subtree).
                heapq.heappush(self.heap, entry)
                raise
            expanded += 1
        self.heap.clear()
        return "completed", self.threshold()


class _Search(_ReferenceSearch):
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

    #: Eigenpairs tried by the top-entries bound of a general A.
    TOP_Q = 3
    #: Smallest n at which the top-entries bound is tried when B ≠ I.
    TOP_MIN_N = 24
    #: A bound that has not pruned a single node in this many tries is no longer computed.
    PATIENCE = 300
    #: ... and the top-entries bound when B ≠ I after this many: through P_SS ⪰ B_S⁻¹ it
    #: pruned no node of any benchmark pair with B ≠ I (rank one n = 60–80, general A
    #: n = 30–60, with and without a planted direction), at O(m³) a try.
    TOP_PATIENCE_B = 50
    #: Most subsets a node may enumerate to finish directly (:meth:`exact_r`).
    EXACT_SUBSETS = 20_000
    #: Steps of the Perron weight iteration (:func:`.bounds.perron_rows_bound`) at a node
    #: and at the root.
    PERRON_ITERS = 10
    PERRON_ROOT_ITERS = 200
    #: Rank one, B ≠ I: nodes keeping at least this many more free variables get the
    #: perspective bound (:func:`.perspective.perspective_terms`); below it the node is a
    #: few direct evaluations away from its leaves.
    PERSPECTIVE_MIN_R = 2
    #: ... with this many solves in its first round (later rounds take three), and no
    #: further rounds once its bound then exceeds the threshold by more than this fraction
    #: of f(T). A call that does not prune still tightens the terms that fix variables out
    #: and bound the children: on the random k = n/2 pairs at n = 60–80, going on up to 5 %
    #: above the threshold (instead of 1 %) leaves 25–58 % fewer nodes, and once later
    #: rounds follow, two first solves instead of six cost no nodes.
    PERSPECTIVE_FIRST_STEPS = 2
    PERSPECTIVE_GIVE_UP = 0.05
    #: Nodes keeping at most this many more variables are solved directly from F
    #: (:meth:`solve_direct`; rank one, general A), with this relative margin for near-ties.
    DIRECT_R = 3
    #: General A: six, measured on the noise-only pair at n = 50, k = 10 (certified in
    #: 13.0 / 7.8 / 6.3 / 10.8 s with 5 / 6 / 7 / 8) and at n = 60 (54 s with 6, 90 s with 7).
    GENERAL_DIRECT_R = 6
    #: General A: most candidate triples of a node finished directly, and most chain steps
    #: of one direct finish (:func:`._numerics.completions_above`; past them the node is
    #: branched as any other).
    EXACT_TRIPLES = 40_000
    EXACT_STEPS = 5_000
    DIRECT_MARGIN = 1e-8

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

    # -- node kernels -------------------------------------------------------------------------
    def node_info(self, T: np.ndarray) -> _NodeInfo:
        return self._rank_one_info(T) if self.pair.rank_one else self._general_info(T)

    def _rank_one_info(self, T: np.ndarray) -> _NodeInfo:
        m = T.size
        d_T = self.pair.d[T]
        if self.identity_B:
            P = np.eye(m)
        else:
            c, info = _potrf(submatrix(self.pair.B, T), lower=1, clean=1, overwrite_a=1)
            if info:
                raise np.linalg.LinAlgError("B_T is not positive definite")
            P, info = _potri(c, lower=1, overwrite_c=1)
            P += P.T  # dpotri fills the lower triangle; the upper one is clean (zeros)
            P.flat[:: m + 1] *= 0.5
        w = P @ d_T
        f_T = float(d_T @ w)
        g = f_T - w * w / P.diagonal()
        H = _PairValues(P, w, f_T)
        # ‖B_T‖_F ≤ m in correlation scale; ‖B_T⁻¹‖₂ ≤ ‖P‖_F
        cond = m * float(np.sqrt(np.vdot(P, P)))
        margin = 64.0 * m * _EPS * cond * abs(f_T)
        return _NodeInfo(f_T, g, H, margin, {"P": P, "d": d_T, "w": w})

    def _general_info(self, T: np.ndarray) -> _NodeInfo:
        m = T.size
        A_T = submatrix(self.pair.A, T)
        if self.identity_B:
            L = L_inv = None
            C = A_T
            cond = 1.0
        else:
            L, info = _potrf(submatrix(self.pair.B, T), lower=1, clean=1, overwrite_a=1)
            if info:
                raise np.linalg.LinAlgError("B_T is not positive definite")
            L_inv, _ = _trtri(L, lower=1)
            C = L_inv @ A_T @ L_inv.T
            cond = m * float(np.vdot(L_inv, L_inv))
        lam, V = np.linalg.eigh(C)
        margin = 64.0 * m * _EPS * cond * float(np.abs(lam).max())
        H = None
        if m == 1:
            g = np.array([-np.inf])
        else:
            Z = V.T if L_inv is None else V.T @ L_inv
            Z2 = Z * Z
            norms2 = Z2.sum(axis=0)  # ‖L⁻¹e_i‖²
            g = secular_top_root(lam, Z2 / norms2)
            if m >= 3:
                H = self._pairs_at_threshold(lam, Z, norms2, g, margin)
        return _NodeInfo(float(lam[-1]), g, H, margin,
                         {"lam": lam, "V": V, "L": L, "L_inv": L_inv})

    def _pairs_at_threshold(self, lam: np.ndarray, Z: np.ndarray, norms2: np.ndarray,
                            g: np.ndarray, margin: float) -> _PairsAtThreshold | None:
        """:class:`_PairsAtThreshold` at μ = threshold − 2 · margin (a dead pair's bound plus
        the margin then prunes), or None where it does not apply: fewer than one or more
        than two eigenvalues above μ, or one within rounding of it."""
        mu = self.threshold() - 2.0 * margin
        q = int(np.count_nonzero(lam > mu))
        gap = float(np.abs(lam - mu).min())
        if q not in (1, 2) or not gap > 2.0 * margin:
            return None
        M = (Z.T / (lam - mu)) @ Z
        spread = margin / (gap * (gap - margin)) + lam.size * _EPS / gap
        return _PairsAtThreshold(M, np.sqrt(norms2 * spread), g, mu, q)

    # -- bounds -------------------------------------------------------------------------------
    def cheap_bound(self, T: np.ndarray, in_F: np.ndarray, r: int,
                    rows: bool = False, iters: int | None = None) -> Any:
        """Trace–Frobenius, row-sum, fixed-block and Perron-weighted row-sum bounds on A
        over the node (÷ λ_min(B) when B ≠ I); with ``rows``, also the unweighted row sums
        R_i (for the branching order). ``iters``: steps of the Perron weight iteration."""
        if iters is None:
            iters = self.PERRON_ITERS
        A_T = submatrix(self.pair.A, T)
        absA_T = submatrix(self.absA, T)
        b = bounds.wolkowicz_styan_bound(A_T, in_F, r, self.k)
        R = bounds.collatz_rows(A_T, absA_T, in_F, r)
        b = min(b, float(R.max()))
        if in_F.any() and self.worth_trying("block"):
            A_F = A_T[np.ix_(in_F, in_F)]
            lam_F = float(np.linalg.eigvalsh(A_F)[-1])
            block = bounds.block_bound(lam_F, A_T, in_F, r)
            self.record("block", block < b)
            b = min(b, block)
        # the threshold in units of A (bounds on A are divided by λ_min(B) below)
        target = (self.threshold() - self.cheap_margin(T.size)) * self.lambda_min_B
        if b > target and self.worth_trying("perron"):
            # weights warm-started from the last node's: neighbouring nodes share them
            perron, w = bounds.perron_rows_bound(A_T, absA_T, in_F, r, self.perron_w[T],
                                                 target, iters)
            self.perron_w[T] = w
            self.record("perron", perron <= target)
            b = min(b, perron)
        if not self.identity_B:
            b = bounds.scaled_by_lambda_min(b, self.lambda_min_B)
        return (b, R) if rows else b

    def cheap_margin(self, m: int) -> float:
        return 64.0 * m * self.k * _EPS * self.scale_A / self.lambda_min_B

    def prune_early(self, T: np.ndarray, in_F: np.ndarray, r: int) -> bool:
        if self.cheap:
            b = self.cheap_bound(T, in_F, r)
            if b + self.cheap_margin(T.size) <= self.threshold():
                self.pruned_early += 1
                return True
        return self.prune_soft(T)

    def prune_soft(self, T: np.ndarray) -> bool:
        """B = I: the soft-threshold bound at a few levels c around the last best one."""
        if not self.identity_B or not self.worth_trying("soft"):
            return False
        A_T = submatrix(self.pair.A, T)
        threshold = self.threshold() - self.cheap_margin(T.size) * T.size
        c0 = self.soft_c
        best, best_c = np.inf, c0
        for c in (c0, 0.8 * c0, 1.25 * c0):
            b = bounds.soft_threshold_bound(A_T, c, self.k)
            if b < best:
                best, best_c = b, c
            if best <= threshold:
                break
        self.soft_c = best_c
        return self.record("soft", best <= threshold)

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
            if i == r:
                self.offer(np.concatenate([T[in_F], T[u[:r]]]))
                continue
            child_F = F_mask.copy()
            child_F[T[u[:i]]] = True
            child_T = T_mask.copy()
            child_T[T[u[i]]] = False
            self.push(bound, depth + i + 1, child_F, child_T)
        return None

    def solve_direct(self, F_mask: np.ndarray, T_mask: np.ndarray) -> bool:
        """A node that keeps r more of its free variables, r ≤ :attr:`DIRECT_R` (rank one)
        or :attr:`GENERAL_DIRECT_R` (general A), is solved from F (:meth:`solve_small`)
        without factorizing B_T or computing a bound: near the leaves that costs less than
        the bounds. Returns whether the node was solved."""
        T = T_mask.nonzero()[0]
        in_F = F_mask[T]
        r = self.k - np.count_nonzero(in_F)
        free = T.size - (self.k - r)
        if not self.pair.rank_one:
            if not 1 <= r <= min(self.GENERAL_DIRECT_R, self.exact_r(free)) or free <= r:
                return False
            solved = self.solve_small(T[in_F], T[~in_F], r,
                                      self.DIRECT_MARGIN * max(abs(self.threshold()), _TINY))
            self.nodes += solved  # undecided: the node is expanded (and counted) as any other
            return solved
        if not 1 <= r <= min(self.DIRECT_R, self.exact_r(free)) or free <= r:
            return False
        self.nodes += 1
        # the values are compared with each other and with the incumbent only to choose
        # which subsets to evaluate exactly: a generous relative margin costs a few more
        # exact evaluations among near-ties, never a missed one
        margin = self.DIRECT_MARGIN * max(abs(self.threshold()), _TINY)
        self.solve_small(T[in_F], T[~in_F], r, margin)
        return True

    def prune_node(self, info: _NodeInfo, free: np.ndarray, in_F: np.ndarray,
                   e: int, r: int) -> bool:
        threshold = self.threshold() - info.margin
        h = self.exclusion_bounds(info, free, e)
        self._excl = (free, h)
        bound = min(info.f_T, bounds.kth_largest(h, e))
        if bound <= threshold:
            return True
        try_persp = self.use_perspective and e >= 2 and r >= self.PERSPECTIVE_MIN_R
        if try_persp:
            # first: where it applies it is the bound that prunes, and at every node it
            # prunes it saves the Schur terms below (the tree is the same in either order).
            # No patience: early in a search, under a weak incumbent, it may not prune for
            # hundreds of nodes, and its terms tighten fixing and children anyway.
            if self.perspective_bound(info, free, r) <= threshold:
                return self.record("perspective", True)
            self.record("perspective", False)
        if self.pair.rank_one and e >= 1:
            loss = self.schur_losses(info, free, e)
            if info.f_T - loss[1] + loss[2] <= threshold:
                return self.record("schur", True)
            self.record("schur", False)
            h = np.minimum(h, info.f_T - bounds.schur_exclusion_losses(loss[0], e) + loss[2])
            if self.kept_terms(info, free, r) <= threshold:
                return self.record("schur_kept", True)
            self.record("schur_kept", False)
            h = np.minimum(h, self.kept_exclusion(info, free, e))
            self._excl = self._order = (free, h)
            if try_persp:
                h = np.minimum(h, self._side_exclusion(self._persp, info, free, e))
                self._excl = (free, h)
        # The top-entries bound. With B ≠ I it goes through P_SS ⪰ B_S⁻¹, loose when S is
        # much smaller than T (and O(m³) a node): tried only on problems large enough to
        # amortize the tries, and dropped when it does not prune.
        patience = self.PATIENCE if self.identity_B else self.TOP_PATIENCE_B
        if not self.worth_trying("top_entries", patience) or (
                not self.identity_B and self.n < self.TOP_MIN_N):
            return False
        extra = info.extra
        if self.pair.rank_one:
            d, P = extra["d"], extra["P"]
            Q = P * np.multiply.outer(d, d)
            top = bounds.entry_sum_bound(Q, in_F, r)
            # rounding: the sums have ≤ k² terms of size ≤ max|Q|
            slack = 64.0 * self.k * self.k * _EPS * float(np.abs(Q).max())
        else:
            lam, V, L, L_inv = extra["lam"], extra["V"], extra["L"], extra["L_inv"]
            U = V[:, ::-1][:, : min(self.TOP_Q, lam.size)]
            P = None
            if L is not None:
                U = L @ U
                P = L_inv.T @ L_inv
            top = bounds.top_entries_bound(lam[::-1], U, P, in_F, r)
            scale = float(np.abs(lam).max()) * (1.0 if P is None else float(np.abs(P).max()))
            slack = 64.0 * self.k * self.k * _EPS * scale * float((U * U).sum())
        return self.record("top_entries", top + slack <= threshold)

    def schur_losses(self, info: _NodeInfo, free: np.ndarray,
                     e: int) -> tuple[np.ndarray, float, float]:
        """Rank one: the terms φ of :func:`.bounds.schur_loss_terms` over the free
        variables, their e-smallest sum and a rounding slack (kept for the node's fixing
        and children)."""
        extra = info.extra
        P = extra["P"]
        x = extra["w"]
        phi, total = bounds.schur_loss_terms(submatrix(P, free), x[free], e)
        # the terms are sums of ≤ m entries, each ≤ f(T) in size, computed from P and x
        slack = free.size * info.margin
        phi_T = np.full(info.g.size, np.nan)
        phi_T[free] = phi
        self._phi = (info, phi_T, slack)
        return phi, total, slack

    def kept_terms(self, info: _NodeInfo, free: np.ndarray, r: int) -> float:
        """Rank one: :func:`.bounds.schur_kept_terms` over the free variables; returns the
        node bound and keeps base, ψ (by position in T) and the slack for fixing and the
        children."""
        P, x = info.extra["P"], info.extra["w"]
        P_ff, x_f = submatrix(P, free), x[free]
        slack = free.size * info.margin
        t = x_f / P_ff.diagonal()
        # second direction: u = P_ff⁻¹ x_f, exact when nothing more is kept (any direction
        # is valid: an inexact solve costs tightness, not validity)
        failed = True
        if free.size > 1:
            _, u, failed = _posv(P_ff, x_f, lower=1)
        if failed:
            base, psi = bounds.schur_kept_terms(P_ff, x_f, r, t)
        else:
            bases, psis = bounds.schur_kept_terms(P_ff, x_f, r, np.array([t, u]))
            totals = bases - bounds.top_sums(psis, r)
            best = 1 if totals[1] > totals[0] else 0
            base, psi = float(bases[best]), psis[best]
            if best:
                # |Q_ij| ≤ max_i u_i² P_ii, which may exceed f(T) (along x / diag(P) it
                # cannot): the rounding slack grows with it
                amp = float((u * u * P_ff.diagonal()).max()) / max(abs(info.f_T), _EPS)
                slack *= max(1.0, amp)
        self._kept = self._side_state(info, free, base, psi, slack)
        return info.f_T - base + float(bounds.top_sums(psi, r)) + slack

    def perspective_bound(self, info: _NodeInfo, free: np.ndarray, r: int) -> float:
        """Rank one, B ≠ I: :func:`.perspective.perspective_terms` over the free variables;
        returns the node bound and keeps base, ψ and the slack (as :meth:`kept_terms`)."""
        self._persp = None
        slack = free.size * info.margin
        stop = self.threshold() - info.margin - info.f_T - slack
        terms = perspective_terms(submatrix(info.extra["P"], free), info.extra["w"][free], r,
                                  iters=self.PERSPECTIVE_FIRST_STEPS, stop=stop,
                                  give_up=self.PERSPECTIVE_GIVE_UP * abs(info.f_T))
        if terms is None:
            return np.inf
        base, psi = terms
        bound, slack = self.perspective_node_bound(info, free, r, base, psi)
        self._persp = self._side_state(info, free, base, psi, slack)
        return bound

    @staticmethod
    def perspective_node_bound(info: _NodeInfo, free: np.ndarray, r: int, base: float,
                               psi: np.ndarray) -> tuple[float, float]:
        """The node bound f(T) − base + top_r(ψ) + slack of perspective terms over the free
        variables, and its rounding slack."""
        top = float(bounds.top_sums(psi, r))
        # base and the ψ_i are differences of terms as large as themselves (and f(T)
        # itself): the rounding slack grows with them
        amp = (abs(base) + top) / max(abs(info.f_T), _EPS)
        slack = free.size * info.margin * max(1.0, amp)
        return info.f_T - base + top + slack, slack

    @staticmethod
    def _side_state(info: _NodeInfo, free: np.ndarray, base: float, psi: np.ndarray,
                    slack: float) -> tuple:
        """What :meth:`_kept_state` reads back: a kept-side bound f(T) − base + Σ ψ with ψ
        by position in T and the free set it was computed over."""
        psi_T = np.zeros(info.g.size)
        psi_T[free] = psi
        orig = np.zeros(info.g.size, dtype=bool)
        orig[free] = True
        return info, base, psi_T, orig, slack

    def _kept_state(self, info: _NodeInfo, free: np.ndarray, cached=None):
        """(base, ψ by position in T, the ψ of the variables fixed since, slack) of a
        kept-side bound (default the Schur kept terms) computed at this node, else None."""
        if cached is None:
            cached = self._kept
        if cached is None or cached[0] is not info:
            return None
        _, base, psi_T, orig, slack = cached
        # variables fixed since ψ was computed are kept by every subset: always in R'
        now = np.zeros(orig.size, dtype=bool)
        now[free] = True
        mandatory = float(np.add.reduce(psi_T[orig & ~now]))
        return base, psi_T, mandatory, slack

    def _kept_states(self, info: _NodeInfo, free: np.ndarray):
        """The kept-side states (:meth:`_kept_state`) this node has: the Schur kept terms,
        then the perspective terms."""
        for cached in (self._kept, self._persp):
            state = self._kept_state(info, free, cached)
            if state is not None:
                yield state

    def excluded_free(self, info: _NodeInfo, free: np.ndarray, r: int) -> np.ndarray:
        """Rank one: the free j whose kept-side bound on the subsets that keep j,
        f(T) − base + mandatory + ψ_j + (the r − 1 largest other ψ) + slack, does not beat
        the incumbent, for the Schur kept terms or the perspective terms of this node
        (fixing to zero: every improving subset leaves j out)."""
        bound = np.full(free.size, np.inf)
        for base, psi_T, mandatory, slack in self._kept_states(info, free):
            psi = psi_T[free]
            srt = -np.sort(-psi)
            # j among the r largest: the r largest; otherwise ψ_j and the r − 1 largest
            keeps = np.where(psi >= srt[r - 1], np.add.reduce(srt[:r]),
                             np.add.reduce(srt[: r - 1]) + psi)
            bound = np.minimum(bound, info.f_T - base + mandatory + keeps + slack)
        return free[bound + info.margin <= self.threshold()]

    def kept_exclusion(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        """For each free j, the kept-side bound on the subsets that leave j out: R' is
        the fixed-since variables plus r of the other free ones."""
        return self._side_exclusion(self._kept, info, free, e)

    def _side_exclusion(self, cached, info: _NodeInfo, free: np.ndarray,
                        e: int) -> np.ndarray:
        """:meth:`kept_exclusion` for the kept-side state ``cached``."""
        state = self._kept_state(info, free, cached)
        if state is None:
            return np.full(free.size, np.inf)
        base, psi_T, mandatory, slack = state
        r = free.size - e
        psi = psi_T[free]
        order = np.argsort(-psi, kind="stable")
        ranks = np.empty(psi.size, dtype=np.intp)
        ranks[order] = np.arange(psi.size)
        srt = psi[order]
        top_r = float(np.add.reduce(srt[:r]))
        others = np.where(ranks < r, top_r + srt[r] - psi, top_r) if r < psi.size else top_r
        return info.f_T - base + mandatory + others + slack

    def exact_r(self, free: int) -> int:
        """Rank one: up to three more variables, by one bordered-Cholesky pass over all the
        subsets (:func:`._numerics.rank_one_add_subsets_values`), while there are at most
        :attr:`EXACT_SUBSETS`; general A: up to :attr:`GENERAL_DIRECT_R`, by the threshold
        test of :func:`._numerics.completions_above`, while there are at most
        :attr:`EXACT_TRIPLES` triples of candidates (else two, by bordering F's whitened
        eigenproblem, :func:`._numerics.bordered_add_pairs_values`). They replace a subtree
        of up to ``free`` levels."""
        if not self.pair.rank_one:
            if math.comb(free, 3) <= self.EXACT_TRIPLES:
                return self.GENERAL_DIRECT_R
            return 2 if self.k >= 3 and math.comb(free, 2) <= self.EXACT_SUBSETS else 1
        for r in (3, 2):
            if math.comb(free, r) <= self.EXACT_SUBSETS:
                return r
        return 1

    def solves_kept_directly(self, r: int, free: int) -> bool:
        """General A, r ≤ :attr:`GENERAL_DIRECT_R` + 1: one direct solve from F ∪ {u_1}
        costs less than queuing a direct child and its own r − 1 … 1 siblings (rank one:
        no faster, so its trees stay as they were)."""
        if self.pair.rank_one:
            return False
        return 2 <= r <= self.GENERAL_DIRECT_R + 1 and r - 1 <= self.exact_r(free - 1) and free > r

    def solve_small(self, F_idx: np.ndarray, cand: np.ndarray, r: int, margin: float) -> bool:
        if not self.pair.rank_one:
            # the subsets that can beat the incumbent, by the sign of a Schur complement: near
            # the leaves, where the incumbent is rarely beaten, nothing is evaluated
            above = completions_above(self.pair, F_idx, cand, r, self.threshold() - margin,
                                      self.EXACT_STEPS)
            if above is not None:
                self.offer_rows(F_idx, cand, above, margin)
                return True
            if r >= 3:
                return False
            if r == 1:
                idx = None
                values, error = bordered_add_values(self.pair, F_idx, cand)
            else:
                # below the floor a subset cannot be offered (value + margin ≤ threshold)
                idx, values, error = bordered_add_pairs_values(
                    self.pair, F_idx, cand, floor=self.threshold() - margin)
            self.offer_near_top(F_idx, cand, idx, values, max(margin, error))
            return True
        if r == 1:
            idx, values = None, rank_one_add_values(self.pair, F_idx, cand)
        else:
            idx, values = rank_one_add_subsets_values(self.pair, F_idx, cand, r)
        self.offer_near_top(F_idx, cand, idx, values, margin)
        return True

    def offer_rows(self, F_idx: np.ndarray, cand: np.ndarray, rows: np.ndarray,
                   margin: float) -> None:
        """Offer the subsets F ∪ cand[row] that may beat the incumbent: evaluated together,
        then exactly those near the top."""
        if rows.shape[0] == 0:
            return
        supports = np.concatenate(
            [np.broadcast_to(F_idx, (rows.shape[0], F_idx.size)), cand[rows]], axis=1)
        values = batched_values(self.pair, supports)
        self.offer_near_top(F_idx, cand, rows, values, margin)

    def offer_near_top(self, F_idx: np.ndarray, cand: np.ndarray, idx: np.ndarray | None,
                       values: np.ndarray, margin: float) -> None:
        """Evaluate exactly (:meth:`offer`) the subsets F ∪ cand[idx[i]] (F ∪ {cand[i]}
        without ``idx``) whose computed value, accurate to ``margin``, could be the best
        and beat the incumbent."""
        if values.size == 0:
            return
        top = float(np.maximum.reduce(values))
        # supports built only for the subsets near the top (they are evaluated exactly)
        for i in (values >= top - 2.0 * margin).nonzero()[0]:
            if values[i] + margin > self.threshold():
                chosen = cand[i : i + 1] if idx is None else cand[idx[i]]
                self.offer(np.concatenate([F_idx, chosen]))

    def worth_trying(self, name: str, patience: int | None = None) -> bool:
        tries, prunes = self.stats.get(name, (0, 0))
        return prunes > 0 or tries < (self.PATIENCE if patience is None else patience)

    def record(self, name: str, pruned: bool) -> bool:
        tries, prunes = self.stats.get(name, (0, 0))
        self.stats[name] = (tries + 1, prunes + int(pruned))
        return pruned

    def exclusion_bounds(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        cached = getattr(self, "_excl", None)
        if cached is not None and cached[0] is free:
            return cached[1]
        if info.H is not None and e >= 2:
            h = bounds.pair_exclusion_bounds(_pairs_block(info.H, free, free), e)
        else:
            h = bounds.removal_exclusion_bounds(info.g[free], e)
        phi = getattr(self, "_phi", None)
        if phi is not None and phi[0] is info:
            # φ was computed over a larger free set: still valid (ρ took the top over more)
            h = np.minimum(h, info.f_T - bounds.schur_exclusion_losses(phi[1][free], e)
                           + phi[2])
            # after fixing: the kept-side terms afresh over the smaller free set (a smaller
            # r tightens every row's top_{r−1})
            self.kept_terms(info, free, free.size - e)
            h = np.minimum(h, self.kept_exclusion(info, free, e))
            self._order = (free, h)
            # the perspective terms stay those of the larger free set (valid, see
            # _kept_state): recomputing them would cost more than the fixing gains
            h = np.minimum(h, self._side_exclusion(self._persp, info, free, e))
        return h

    def branching_keys(self, free: np.ndarray, h: np.ndarray) -> np.ndarray:
        """The exclusion bounds without the perspective terms. Those are tighter but rank
        the variables differently, and on Brownian pairs sorting by them made the tree
        several times larger."""
        order = self._order
        return order[1] if order is not None and order[0] is free else h

    def child_bounds(self, info: _NodeInfo, u: np.ndarray, h_sorted: np.ndarray, r: int,
                     e: int) -> np.ndarray:
        """The children's bounds, all r + 1 at once on (r + 1) × |u| arrays (row i masks
        u_1 … u_i). Child i leaves u_i and e − 1 of u_{i+1}, … out and keeps u_1 … u_{i−1};
        its bound is the smallest of

        * u_i's exclusion bound, and the (e − 1)-th largest of (bounds on) f(T ∖ {u_i, j})
          where the node has them, else of f(T ∖ j), over the rest
          (:func:`.bounds.removal_bound`'s argument);
        * rank one: f(T) − φ_{u_i} − (the e − 1 smallest φ over the rest)
          (:func:`.bounds.schur_loss_terms`);
        * rank one: the kept-side bound with u_1 … u_{i−1} kept and the r − i + 1 largest ψ of
          the rest (:func:`.bounds.schur_kept_terms`).

        A row with too few variables left gives −∞: that child has no subset."""
        M = u.size
        rows = r + 1
        later = np.arange(M)[None, :] > np.arange(rows)[:, None]  # j > i: u_j is in "rest"
        bound = h_sorted[:rows].astype(float)
        if e >= 2:
            if info.H is not None:
                X = _pairs_block(info.H, u[:rows], u)
            else:
                X = np.broadcast_to(info.g[u], (rows, M))
            X = np.where(later, X, -np.inf)
            X.partition(M - (e - 1), axis=1)
            kth = X[:, M - (e - 1)]
            bound = np.minimum(bound, kth)
        if info.H is None or not self.pair.rank_one:
            return bound
        cached = getattr(self, "_phi", None)
        if cached is not None and cached[0] is info:
            phi_T, slack = cached[1], cached[2]
            low = np.zeros(rows)
            if e >= 2:
                Y = np.where(later, phi_T[u][None, :], np.inf)
                Y.partition(e - 2, axis=1)
                low = np.add.reduce(Y[:, : e - 1], axis=1)
            bound = np.minimum(bound, info.f_T - phi_T[u[:rows]] - low + slack)
        for base, psi_T, mandatory, slack in self._kept_states(info, u):
            psi = psi_T[u]
            prefix = np.concatenate([[0.0], np.add.accumulate(psi)])[:rows]
            Z = np.where(later, psi[None, :], -np.inf)
            Z = -np.sort(-Z, axis=1)  # each row's rest, largest first
            need = r - np.arange(rows)  # kept variables still to take from the rest
            top = np.add.accumulate(np.where(np.isfinite(Z), Z, 0.0), axis=1)
            have = M - 1 - np.arange(rows)
            chosen = np.where(
                need > 0, top[np.arange(rows), np.minimum(np.maximum(need - 1, 0), M - 1)], 0.0)
            kept = np.where(need <= have,
                            info.f_T - base + mandatory + prefix + chosen + slack, -np.inf)
            bound = np.minimum(bound, kept)
        return bound


class ESLDASearch:
    """ESLDA at one cardinality, run in slices of bounded time.

    The search of :func:`eslda` (best first from the GSLDA support after a one-swap local
    search, default gap), but resumable: each :meth:`advance` spends until a deadline on it
    and keeps the queue, so an explorer can give it a few tens of milliseconds at a time and
    keep its sliders live. At
    any moment the incumbent and the largest open bound bracket the optimum (Sec. 2.3:
    "preset thresholds based on generalized eigenvalue bounds can be used for early
    termination"). That holds after an interrupt too: Ctrl-C (or an error) during
    :meth:`advance` puts the node being expanded, and the nodes out with worker processes,
    back in the queue, and a later :meth:`advance` resumes the search.

    Parameters
    ----------
    pair : MatrixPair
        The validated pair (:func:`~spectral_kit.sparse_lda.check_pair`).
    k : int
        Cardinality.
    support : ndarray of int, shape (k,)
        The initial incumbent (GSLDA's support at k).
    gap : float
        Relative optimality gap, as in :func:`eslda`.
    """

    #: The branch-and-bound state class and whether a one-swap local search polishes the
    #: initial incumbent (:class:`_ReferenceESLDASearch` turns both back to the first search).
    _search_class: type = _Search
    _polish = True
    POLISH_MIN_N = 24
    #: With several worker processes: the workers are started after this many seconds of
    #: search in this process (most searches end sooner, and never start them), and take
    #: over after PARALLEL_AFTER: a worker needs most of a second to start and import the
    #: kit on an idle machine, longer beside a running search.
    START_WORKERS_AFTER = 0.2
    PARALLEL_AFTER = 2.0

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, gap: float = DEFAULT_GAP):
        self.pair, self.k = pair, int(k)
        scaled = _scaled(pair)
        support = np.sort(np.asarray(support, dtype=np.intp))
        self.initial_value = subset_value(scaled, support)
        value = self.initial_value
        # below POLISH_MIN_N the whole search costs less than one round of swaps
        if self._polish and pair.n >= self.POLISH_MIN_N:
            polished, polished_value = local_swap_search(scaled, support)
            if polished_value > value:
                support, value = polished, polished_value
        self._search = self._search_class(scaled, self.k, support, value, gap)
        self.seconds = 0.0
        self.optimal = False
        self._value: tuple[bytes, float] | None = None
        self._stopped_bound: float | None = None

    def advance(
        self, deadline: float | None = None, max_nodes: int | None = None,
        *, at_least_one: bool = True, n_jobs: int = 1,
    ) -> str:
        """Expand nodes until the optimum is certified, ``max_nodes`` nodes in all are
        expanded or ``time.perf_counter()`` passes ``deadline`` (by default at least one
        node per call, so that every slice makes progress); returns why it stopped:
        "completed", "max_nodes", "max_seconds" or "stopped" (after :meth:`stop`).

        With ``n_jobs`` > 1 (a validated count, :func:`.parallel.check_n_jobs`), a search
        not certified within :attr:`PARALLEL_AFTER` seconds goes on in that many worker
        processes (:func:`.parallel.parallel_advance`; :meth:`_advance_on_workers`)."""
        if self.stopped:
            return "stopped"
        start = time.perf_counter()
        try:
            if n_jobs == 1:
                stopped_by, _ = self._search.advance(deadline, max_nodes,
                                                     at_least_one=at_least_one)
            else:
                stopped_by = self._advance_on_workers(start, deadline, max_nodes,
                                                      at_least_one, n_jobs)
        finally:
            self.seconds += time.perf_counter() - start
        self.optimal = stopped_by == "completed"
        return stopped_by

    def _advance_on_workers(self, start: float, deadline: float | None,
                            max_nodes: int | None, at_least_one: bool, n_jobs: int) -> str:
        """:meth:`advance` with ``n_jobs`` > 1: here first, the workers started after
        :attr:`START_WORKERS_AFTER` seconds, and the queue handed to them after
        :attr:`PARALLEL_AFTER`."""
        for phase, after in enumerate((self.START_WORKERS_AFTER, self.PARALLEL_AFTER)):
            until = start + after if deadline is None else min(deadline, start + after)
            stopped_by, _ = self._search.advance(until, max_nodes,
                                                 at_least_one=at_least_one and phase == 0)
            out_of_time = deadline is not None and time.perf_counter() >= deadline
            if stopped_by != "max_seconds" or out_of_time:
                return stopped_by
            if phase == 0:
                start_workers(n_jobs)
        return parallel_advance(self._search, n_jobs, deadline, max_nodes)

    def stop(self) -> None:
        """Give up: keep the incumbent and the certified bound, free the queue."""
        if not self.optimal and self._stopped_bound is None:
            self._stopped_bound = self.upper_bound
            self._search.heap.clear()

    @property
    def stopped(self) -> bool:
        """Whether the search was given up before its certificate."""
        return self._stopped_bound is not None

    @property
    def support(self) -> np.ndarray:
        """The incumbent support (the optimum once :attr:`optimal`)."""
        return self._search.best_support

    @property
    def value(self) -> float:
        """λ_max(A_S, B_S) of the incumbent, evaluated on the caller's pair."""
        key = self.support.tobytes()
        if self._value is None or self._value[0] != key:
            self._value = (key, subset_value(self.pair, self.support))
        return self._value[1]

    @property
    def upper_bound(self) -> float:
        """A certified upper bound on the optimum (the value itself, up to the gap, once
        certified)."""
        if self._stopped_bound is not None:
            return self._stopped_bound
        search = self._search
        bound = search.threshold()
        if not self.optimal and search.heap:
            bound = max(bound, search.top_bound())
        if not np.isfinite(bound):
            # the root is still queued (a zero budget): its inclusion bound λ_max(A, B)
            # (Thm. 1) holds for every subset
            info = search.node_info(np.arange(self.pair.n))
            bound = info.f_T + info.margin
        return max(float(bound), self.value)

    @property
    def nodes(self) -> int:
        """Branch-and-bound nodes expanded so far."""
        return self._search.nodes

class _ReferenceESLDASearch(ESLDASearch):
    """The search with the inclusion bounds alone, as first written (benchmarks, tests)."""

    _search_class = _ReferenceSearch
    _polish = False


def eslda(
    A: Any,
    B: Any,
    k: int,
    *,
    init: Any = None,
    gap: float = DEFAULT_GAP,
    max_seconds: float | None = None,
    max_nodes: int | None = None,
    regularization: Any = None,
    n_jobs: int | None = None,
) -> ESLDAResult:
    """Exact sparse LDA (ESLDA): the k-subset with the largest λ_max(A_S, B_S), certified.

    Best-first branch-and-bound on the eigenvalue bounds of the generalized inclusion
    principle (Thm. 1, Eq. 8) and the cardinality bounds of :mod:`.bounds`, initialised from
    GSLDA (Sec. 2.3) polished by a one-swap local search. Sparse PCA is B = I.

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Between-class matrix, or the vector d of a rank-one A = d dᵀ (detected automatically
        from a matrix too); rank one makes every bound a Cholesky quantity.
    B : array-like of shape (n, n)
        Within-class matrix, positive definite unless ``regularization`` is given.
    k : int
        Cardinality, 1 ≤ k ≤ n.
    init : GSLDAPath or array-like of int, optional
        Initial incumbent: a GSLDA path (its support at k is used) or a support of size k.
        Default: run GSLDA.
    gap : float
        Relative optimality gap: the search stops when no open node can beat the incumbent by
        more than ``gap · |value|``. The default treats values equal to ~1e-10 as ties.
    max_seconds, max_nodes : optional
        Stop early and return the incumbent with a certified ``upper_bound``
        ("preset thresholds based on generalized eigenvalue bounds can be used for early
        termination", Sec. 2.3).
    regularization : None, float or "auto"
        B ← B + εI; reported as ``epsilon``.
    n_jobs : int, optional
        Worker processes for a search that is not certified within two seconds
        (:mod:`.parallel`): None or 1 runs in this process, −1 on every available CPU. The
        result is certified either way; the node count varies from run to run.

    Returns
    -------
    ESLDAResult
        The support, its value and factor, ``upper_bound``, ``optimal``, ``nodes_expanded``.
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    gap = check_finite_scalar(gap, "gap", low=0.0)
    if max_seconds is not None:
        max_seconds = check_finite_scalar(max_seconds, "max_seconds", low=0.0)
    if max_nodes is not None:
        max_nodes = check_int(max_nodes, "max_nodes", low=0)
    if init is not None and not isinstance(init, GSLDAPath):
        init = check_support(init, pair.n, "init", k)
    if isinstance(init, GSLDAPath) and init.values.size != pair.n:
        raise ValueError(
            f"init is a GSLDA path over {init.values.size} features but A and B have "
            f"{pair.n}; pass the path computed for this pair."
        )
    n_jobs = check_n_jobs(n_jobs)
    with single_threaded_blas():
        return eslda_pair(
            pair, k, init=init, gap=gap, max_seconds=max_seconds, max_nodes=max_nodes,
            n_jobs=n_jobs,
        )


def single_threaded_blas() -> threadpool_limits:
    """A context in which BLAS runs on one thread.

    The search makes thousands of LAPACK calls on matrices of at most n × n; for them BLAS
    threads only add synchronisation (on a busy two-core machine a 40 × 40 search ran 25×
    slower with two threads than with one).
    """
    return threadpool_limits(limits=1, user_api="blas")


def eslda_pair(
    pair: MatrixPair,
    k: int,
    *,
    init: GSLDAPath | np.ndarray | None = None,
    gap: float = DEFAULT_GAP,
    max_seconds: float | None = None,
    max_nodes: int | None = None,
    n_jobs: int = 1,
    _reference: bool = False,
) -> ESLDAResult:
    """:func:`eslda` on a validated pair with validated arguments (no BLAS thread change;
    ``n_jobs`` a count ≥ 1).

    ``_reference=True`` runs the search with the inclusion bounds alone, as first written
    (for benchmarks and tests that compare the two)."""
    if init is None:
        init = gslda_pair(pair)
    support = init.support_at(k) if isinstance(init, GSLDAPath) else np.asarray(init)
    search = (_ReferenceESLDASearch if _reference else ESLDASearch)(pair, k, support, gap)
    start = time.perf_counter()
    deadline = None if max_seconds is None else start + max_seconds
    stopped_by = search.advance(deadline, max_nodes, at_least_one=False, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    value, x = subset_vector(pair, search.support)
    return ESLDAResult(
        support=search.support, value=value, x=x, epsilon=pair.epsilon,
        upper_bound=float(max(search.upper_bound, value)), optimal=search.optimal,
        nodes_expanded=search.nodes, seconds=seconds,
        initial_value=float(search.initial_value), gap=gap, stopped_by=stopped_by,
    )
