"""Node evaluation of the exact search: what one node (F ⊆ T) tells about its subsets.

One job: from T alone, compute f(T) = λ_max(A_T, B_T), the one-removal values g_j = f(T ∖ j)
and the two-removal values or bounds of f(T ∖ {i, j}) (:class:`_NodeInfo`), with the
rounding margin every comparison in the search adds. Node kernels call LAPACK directly
(``dpotrf``/``dpotri``/``dtrtri``) and skip the Cholesky factor when B = I.

Invariant: every quantity is a value or an upper bound of the subsets it stands for, to
within :attr:`_NodeInfo.margin` (∝ eps · cond(B_T) · f(T)); nothing here prunes or
branches (:mod:`.node_bounds`, :mod:`.branching` do).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np
import scipy.linalg

from ._numerics import (
    secular_top_root,
    submatrix,
)
from .pair import MatrixPair

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


class _NodeKernels:
    """Mixin of the search (:class:`.search._Search`): :meth:`node_info` for one node, on
    the search's scaled pair; the pair thresholds read the incumbent through
    ``self.threshold()``."""

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
