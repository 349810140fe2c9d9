"""Numerical kernels shared by the sparse-LDA algorithms (no validation here).

Callers pass a validated :class:`~spectral_kit.sparse_lda.pair.MatrixPair`.
"""

from __future__ import annotations

import functools
import itertools
from typing import NamedTuple

import numpy as np
import scipy.linalg

from ..linalg import fix_sign
from .pair import MatrixPair

#: Largest number of matrix entries held at once by the batched evaluators.
BATCH_ENTRIES = 4_000_000

_potrf = scipy.linalg.lapack.dpotrf
_pstrf = scipy.linalg.lapack.dpstrf
_trtrs = scipy.linalg.lapack.dtrtrs
_trtri = scipy.linalg.lapack.dtrtri
_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny


def submatrix(M: np.ndarray, rows: np.ndarray, cols: np.ndarray | None = None) -> np.ndarray:
    """``M[np.ix_(rows, cols)]`` (``cols`` defaults to ``rows``) for integer index arrays.

    Two ``take`` calls: on the node-sized matrices of the exact search they cost a quarter
    of fancy indexing with ``ix_``, and a node takes several.
    """
    return M.take(rows, axis=0).take(rows if cols is None else cols, axis=1)


def subset_value(pair: MatrixPair, support: np.ndarray) -> float:
    """λ_max(A_S, B_S) of one support (d_Sᵀ B_S⁻¹ d_S when A is rank one)."""
    idx = np.asarray(support, dtype=np.intp)
    B_S = submatrix(pair.B, idx)
    if pair.rank_one:
        # LAPACK directly: called at every leaf of the exact search
        L, info = _potrf(B_S, lower=1, overwrite_a=1)
        if info:
            raise np.linalg.LinAlgError(
                f"{info}-th leading minor of B_S is not positive definite")
        z, _ = _trtrs(L, pair.d[idx], lower=1)
        return float(z @ z)
    k = idx.size
    return float(
        scipy.linalg.eigh(
            submatrix(pair.A, idx), B_S, eigvals_only=True, subset_by_index=[k - 1, k - 1],
            check_finite=False,
        )[0]
    )


def subset_vector(pair: MatrixPair, support: np.ndarray) -> tuple[float, np.ndarray]:
    """λ_max(A_S, B_S) and the full-length factor x of Eq. 6 (xᵀBx = 1, Σx > 0)."""
    idx = np.asarray(support, dtype=np.intp)
    B_S = pair.B[np.ix_(idx, idx)]
    x = np.zeros(pair.n)
    if pair.rank_one:
        # The principal generalized eigenvector of (d dᵀ, B) is B⁻¹d.
        c, low = scipy.linalg.cho_factor(B_S, lower=True, check_finite=False)
        z = scipy.linalg.cho_solve((c, low), pair.d[idx], check_finite=False)
        value = float(pair.d[idx] @ z)
        norm2 = float(z @ B_S @ z)
        if norm2 > 0:
            z = z / np.sqrt(norm2)
        else:  # d_S = 0: every direction has quotient 0; take the B-unit first axis
            z = np.zeros(idx.size)
            z[0] = 1.0 / np.sqrt(B_S[0, 0])
    else:
        k = idx.size
        w, V = scipy.linalg.eigh(
            pair.A[np.ix_(idx, idx)], B_S, subset_by_index=[k - 1, k - 1], check_finite=False
        )
        value, z = float(w[0]), V[:, 0]  # eigh normalises to zᵀ B_S z = 1
    x[idx] = fix_sign(z)
    return value, x


def batched_values(pair: MatrixPair, subsets: np.ndarray) -> np.ndarray:
    """λ_max(A_S, B_S) for every row S of ``subsets`` (shape (p, s)), in batches.

    Rank one: ``‖L⁻¹ d_S‖²`` with L the Cholesky factor of B_S; general: the top eigenvalue of
    ``L⁻¹ A_S L⁻ᵀ``. Stacked LAPACK calls through NumPy, so thousands of small subproblems cost
    one Python call.
    """
    subsets = np.asarray(subsets, dtype=np.intp)
    p, s = subsets.shape
    out = np.empty(p)
    if p == 0:
        return out
    step = max(1, BATCH_ENTRIES // max(1, 2 * s * s))
    for start in range(0, p, step):
        sub = subsets[start : start + step]
        rows, cols = sub[:, :, None], sub[:, None, :]
        L = np.linalg.cholesky(pair.B[rows, cols])
        if pair.rank_one:
            z = np.linalg.solve(L, pair.d[sub][..., None])[..., 0]
            out[start : start + step] = np.einsum("ij,ij->i", z, z)
        else:
            X = np.linalg.solve(L, pair.A[rows, cols])
            C = np.linalg.solve(L, np.swapaxes(X, 1, 2))
            C = 0.5 * (C + np.swapaxes(C, 1, 2))
            out[start : start + step] = np.linalg.eigvalsh(C)[:, -1]
    return out


def drop_one_values(pair: MatrixPair, T: np.ndarray) -> np.ndarray:
    """``f(T ∖ j)`` for every j in T (position-aligned with T), f = λ_max of the subproblem.

    Deleting variable j is the constraint x_j = 0. In the whitened coordinates y = Lᵀx
    (B_T = L Lᵀ) it reads q_jᵀ y = 0 with q_j = L⁻¹ e_j, so f(T ∖ j) is the largest eigenvalue
    of C = L⁻¹ A_T L⁻ᵀ restricted to the hyperplane q_j^⊥. With C = V Λ Vᵀ and z = Vᵀ q_j
    it is the largest root of the secular equation Σ_i z_i² / (λ_i − μ) = 0, which lies in
    [λ_{m−1}, λ_m] (Cauchy interlacing, the k = n − 1 case of Thm. 1). One eigen-solve of the
    node and a vectorized root search replace m eigen-solves: O(m³) instead of O(m⁴).
    """
    m = T.size
    if m == 1:
        return np.array([-np.inf])
    if pair.rank_one:
        P = np.linalg.inv(pair.B[np.ix_(T, T)])
        w = P @ pair.d[T]
        return float(pair.d[T] @ w) - w**2 / np.diag(P)
    L = scipy.linalg.cholesky(pair.B[np.ix_(T, T)], lower=True, check_finite=False)
    L_inv = scipy.linalg.solve_triangular(L, np.eye(m), lower=True, check_finite=False)
    C = L_inv @ pair.A[np.ix_(T, T)] @ L_inv.T
    lam, V = scipy.linalg.eigh(0.5 * (C + C.T), check_finite=False)
    Z = V.T @ L_inv
    Z /= np.linalg.norm(Z, axis=0)
    return secular_top_root(lam, Z**2)


def secular_top_root(lam: np.ndarray, z2: np.ndarray, *, max_iter: int = 60) -> np.ndarray:
    """Largest μ in [λ_{m−1}, λ_m] with Σ_i z2[i, j] / (λ_i − μ) = 0, for every column j.

    Each step keeps the pole at λ_m exact and models the other terms by a/(λ_{m−1} − μ) + b
    matched in value and slope at the current point (the "middle way" of LAPACK's dlaed4);
    the model's root comes from a quadratic. The iterate stays inside a sign bracket and
    falls back to bisection when the model step leaves it. When z2[m−1, j] = 0 the top
    eigenvector already satisfies the constraint and the answer is λ_m; when no root lies
    above λ_{m−1} the answer is λ_{m−1}.
    """
    D = lam[-1] - lam[-2]
    scale = max(float(np.abs(lam).max()), np.finfo(float).tiny)
    tol = 4 * np.finfo(float).eps * scale
    J = z2.shape[1]
    if tol >= D:
        return np.full(J, lam[-1])
    c = z2[-1]
    z1 = z2[:-1]
    lam1 = lam[:-1]
    # s = μ − λ_{m−1} ∈ [0, D]
    offsets = (lam1 - lam[-2])[:, None]
    lo, hi = np.zeros(J), np.full(J, D)
    s = np.full(J, 0.5 * D)
    # next to a pole (or for a pair scaled near the float limit) the terms overflow: the
    # model step is then NaN or outside [lo, hi] and the step bisects instead
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(max_iter):
            inv = 1.0 / (offsets - s)  # 1 / (λ_i − μ), i < m
            weighted = z1 * inv
            psi1 = weighted.sum(axis=0)
            dpsi1 = (weighted * inv).sum(axis=0)
            psi = psi1 + c / (D - s)
            lo = np.where(psi < 0, s, lo)
            hi = np.where(psi > 0, s, hi)
            a = dpsi1 * s * s
            b = psi1 + dpsi1 * s
            p = a + b * D + c
            model = 2 * a * D / (p + np.sqrt(np.maximum(p * p - 4 * a * b * D, 0.0)))
            converged = (np.abs(model - s) <= tol) | (psi == 0)
            inside = (model >= lo) & (model <= hi)  # False for NaN
            new = np.where(converged, s, np.where(inside, model, 0.5 * (lo + hi)))
            s = new
            if np.all(converged | (hi - lo <= tol)):
                break
    return lam[-2] + s


def add_one_values(pair: MatrixPair, F: np.ndarray, candidates: np.ndarray) -> np.ndarray:
    """``f(F ∪ {j})`` for every candidate j (stacked solves; any A)."""
    p = candidates.size
    subsets = np.empty((p, F.size + 1), dtype=np.intp)
    subsets[:, : F.size] = F
    subsets[:, F.size] = candidates
    return batched_values(pair, subsets)


def arrowhead_top_root(lam: np.ndarray, w2: np.ndarray, gamma: np.ndarray, *,
                       max_iter: int = 60) -> np.ndarray:
    """Largest eigenvalue of the arrowhead matrix [[diag(λ), w], [wᵀ, γ]] for every column.

    Parameters
    ----------
    lam : ndarray of shape (q,) or (q, p)
        λ, ascending (q ≥ 1): shared by every matrix, or one column per matrix.
    w2 : ndarray of shape (q, p)
        The squared borders w², one column per matrix.
    gamma : ndarray of shape (p,)
        The corners γ.

    Notes
    -----
    With s = μ − λ_q ≥ 0 the largest eigenvalue is the largest root of the secular function
    φ(s) = s + λ_q − γ − c/s − R(s), where c collects w_i² over the λ_i within rounding of
    λ_q and R(s) = Σ_rest w_i² / (s + λ_q − λ_i) is convex and decreasing on s > 0; φ is
    increasing there. Each step keeps the pole c/s exact and replaces R by its tangent at
    the current s, which lies below R: the model lies above φ, so its root (a quadratic's)
    lies below the root of φ, and the iterates rise to it monotonically, quadratically at
    the end. The start is the Weyl bound λ_max ≤ max(λ_q, γ) + ‖w‖. With c = 0 and
    φ(0) ≥ 0 the answer is λ_q.
    """
    lam2 = lam[:, None] if lam.ndim == 1 else lam
    top = lam2[-1]
    scale = max(float(np.maximum.reduce(np.abs(lam2), axis=None)),
                float(np.maximum.reduce(np.abs(gamma), initial=0.0)), _TINY)
    tol = 4 * _EPS * scale
    cluster = lam2 >= top - tol
    c = np.add.reduce(np.where(cluster, w2, 0.0), axis=0)
    rest = np.where(cluster, 0.0, w2)
    offsets = np.where(cluster, 1.0, top - lam2)  # > tol where rest is not 0
    a = top - gamma
    s = np.maximum(gamma - top, 0.0) + np.sqrt(np.add.reduce(w2, axis=0))
    for _ in range(max_iter):
        inv = 1.0 / (offsets + s)
        t = rest * inv
        R0 = np.add.reduce(t, axis=0)
        R1 = np.add.reduce(t * inv, axis=0)  # −R′(s)
        beta = a - R0 - R1 * s
        root = np.sqrt(beta * beta + 4.0 * (1.0 + R1) * c)
        # the root ≥ 0 of (1 + R1) s² + β s − c, without cancellation
        positive = beta > 0
        new = (np.where(positive, 2.0 * c, root - beta)
               / np.where(positive, beta + root, 2.0 * (1.0 + R1)))
        done = np.abs(new - s) <= tol
        s = new
        if done.all():
            break
    return top + s


class _Border(NamedTuple):
    """One bordering step from F (:func:`_first_border`), per candidate j (columns)."""

    lam: np.ndarray  # eigenvalues of C_F = G A_F Gᵀ (ascending); U its eigenvectors
    U: np.ndarray
    C_F: np.ndarray
    Lc: np.ndarray  # l_j = G B_{F,j}
    b: np.ndarray  # G A_{F,j}
    CL: np.ndarray  # C_F l_j
    d2: np.ndarray  # pivot δ_j² = B_jj − ‖l_j‖²
    ok: np.ndarray  # pivot numerically positive
    inv_d: np.ndarray  # 1 / δ_j (0 where not ok)
    c: np.ndarray  # border (G A_{F,j} − C_F l_j) / δ_j
    gamma: np.ndarray  # corner (l_jᵀ C_F l_j − 2 l_jᵀ G A_{F,j} + A_jj) / δ_j²
    G2: np.ndarray  # ‖L_{F∪j}⁻¹‖²_F = ‖G‖²_F + (‖Gᵀ l_j‖² + 1) / δ_j²


def _first_border(pair: MatrixPair, F: np.ndarray, candidates: np.ndarray) -> _Border:
    """The whitened matrix of F ∪ {j} for every candidate j as C_F bordered by (c_j, γ_j),
    from one Cholesky factor B_F = L Lᵀ (G = L⁻¹) and one eigen-solve of C_F (F not empty):
    with l_j = G B_{F,j} and the bordered Cholesky pivot δ_j² = B_jj − ‖l_j‖²,
    c_j = (G A_{F,j} − C_F l_j) / δ_j and γ_j = (l_jᵀ C_F l_j − 2 l_jᵀ G A_{F,j} + A_jj) / δ_j².
    A pivot at most eps · B_jj (B_{F∪j} numerically singular) is marked not ``ok``."""
    A, B = pair.A, pair.B
    L, info = _potrf(submatrix(B, F), lower=1, clean=1, overwrite_a=1)
    if info:
        raise np.linalg.LinAlgError("B_F is not positive definite")
    G, _ = _trtri(L, lower=1)
    C_F = G @ submatrix(A, F) @ G.T
    C_F = 0.5 * (C_F + C_F.T)
    lam, U = np.linalg.eigh(C_F)
    Lc = G @ submatrix(B, F, candidates)
    b = G @ submatrix(A, F, candidates)
    CL = C_F @ Lc
    B_jj = B.diagonal()[candidates]
    d2 = B_jj - np.add.reduce(Lc * Lc, axis=0)
    ok = d2 > _EPS * B_jj
    inv_d = np.where(ok, 1.0, 0.0) / np.sqrt(np.where(ok, d2, 1.0))
    inv_d2 = inv_d * inv_d
    gamma = (np.add.reduce(Lc * CL, axis=0) - 2.0 * np.add.reduce(Lc * b, axis=0)
             + A.diagonal()[candidates]) * inv_d2
    G2 = float(np.vdot(G, G)) + (np.add.reduce((G.T @ Lc) ** 2, axis=0) + 1.0) * inv_d2
    return _Border(lam, U, C_F, Lc, b, CL, d2, ok, inv_d, (b - CL) * inv_d, gamma, G2)


def bordered_add_values(pair: MatrixPair, F: np.ndarray,
                        candidates: np.ndarray) -> tuple[np.ndarray, float]:
    """``f(F ∪ {j})`` for every candidate j, any A, by bordering F's whitened eigenproblem;
    and a bound on their rounding error.

    With C_F = U Λ Uᵀ bordered by (c_j, γ_j) (:func:`_first_border`), the whitened matrix of
    F ∪ {j} is, in U's basis, the arrowhead matrix of :func:`arrowhead_top_root` with
    w = Uᵀ c_j: one eigen-solve of |F| × |F| and vectorized root-finding replace a
    generalized eigen-solve per candidate.

    Returns the values and an error bound 64 · |S| · eps · cond · max |f| (cond =
    |S| · ‖L_S⁻¹‖²_F, the largest over the candidates), the rounding allowance the exact
    search gives its node eigenvalues. A candidate whose pivot δ_j² is not positive
    (B_{F∪j} numerically singular) gets −∞.
    """
    s = F.size + 1
    if F.size == 0:
        A_cc, B_cc = pair.A.diagonal()[candidates], pair.B.diagonal()[candidates]
        with np.errstate(divide="ignore", invalid="ignore"):
            values = np.where(B_cc > 0, A_cc / B_cc, -np.inf)
            cond = float(np.max(1.0 / B_cc[B_cc > 0], initial=0.0))
        scale = float(np.abs(values[np.isfinite(values)]).max(initial=0.0))
        return values, 64.0 * _EPS * cond * scale
    first = _first_border(pair, F, candidates)
    w = first.U.T @ first.c
    values = np.where(first.ok, arrowhead_top_root(first.lam, w * w, first.gamma), -np.inf)
    cond = s * float(first.G2.max())
    scale = float(np.abs(values[first.ok]).max(initial=0.0))
    return values, 64.0 * s * _EPS * cond * scale


def bordered_add_pairs_values(pair: MatrixPair, F: np.ndarray, candidates: np.ndarray,
                              floor: float = -np.inf,
                              ) -> tuple[np.ndarray, np.ndarray, float]:
    """``f(F ∪ {i, j})`` for every pair i < j of the candidates (F not empty, any A), by
    bordering F's whitened eigenproblem twice; and a bound on their rounding error.

    The first border is that of :func:`bordered_add_values` (:func:`_first_border`). The
    second borders C_{F∪i} with j, whose whitened column follows from the first without a
    new factorization: with e_ij = (B_ij − l_iᵀ l_j) / δ_i, the bordered Cholesky column of
    j on F ∪ {i} is (l_j, e_ij), its pivot δ_j² − e_ij², and G_{F∪i} A_{F∪i, j} =
    (G A_{F,j}, (A_ij − l_iᵀ G A_{F,j}) / δ_i). Weyl's inequality bounds each pair by
    max(f(F ∪ {i}), γ_ij) + ‖c_ij‖ (its border c_ij and corner γ_ij); a pair whose bound
    is at most ``floor`` less the error bound gets −∞ without an eigen-solve: its value
    cannot exceed ``floor``. The others are arrowhead roots
    (:func:`arrowhead_top_root`) in the eigenbasis of their C_{F∪i} (one stacked
    eigen-solve of the |F| + 1 square matrices that are needed).

    Returns the pairs (positions into ``candidates``, shape (p, 2), lexicographic), their
    values (−∞ where a pivot is not positive or the value cannot exceed ``floor``) and an
    error bound as in :func:`bordered_add_values`, with the Weyl bounds and f(F ∪ {i})
    setting its scale.
    """
    f = F.size
    iu, ju = _pair_layout(candidates.size)
    idx = np.stack([iu, ju], axis=1)
    if iu.size == 0:
        return idx, np.empty(0), 0.0
    first = _first_border(pair, F, candidates)
    Lc, b, c1, g1, inv_d = first.Lc, first.b, first.c, first.gamma, first.inv_d
    w1 = first.U.T @ c1
    f1 = arrowhead_top_root(first.lam, w1 * w1, g1)  # f(F ∪ {i})
    B_cc, A_cc = submatrix(pair.B, candidates), submatrix(pair.A, candidates)
    B_jj = B_cc.diagonal()
    e = ((B_cc - Lc.T @ Lc) * inv_d[:, None])[iu, ju]
    fb = ((A_cc - Lc.T @ b) * inv_d[:, None])[iu, ju]
    d2_ij = first.d2[ju] - e * e
    ok = first.ok[iu] & first.ok[ju] & (d2_ij > _EPS * B_jj[ju])
    inv_d2 = np.where(ok, 1.0, 0.0) / np.where(ok, d2_ij, 1.0)
    Lj, bj, c1i = Lc[:, ju], b[:, ju], c1[:, iu]
    top = first.CL[:, ju] + c1i * e  # C_{F∪i} (l_j, e_ij), its first |F| rows
    last = np.add.reduce(c1i * Lj, axis=0) + g1[iu] * e
    border = np.empty((f + 1, iu.size))
    border[:f] = bj - top
    border[f] = fb - last
    border *= np.sqrt(inv_d2)
    quad = np.add.reduce(Lj * top, axis=0) + e * last
    cross = np.add.reduce(Lj * bj, axis=0) + e * fb
    gamma = (quad - 2.0 * cross + A_cc.diagonal()[ju]) * inv_d2
    weyl = np.maximum(f1[iu], gamma) + np.sqrt(np.add.reduce(border * border, axis=0))
    # ‖L_S⁻¹‖²_F ≤ ‖G_{F∪i}‖²_F + (‖G_{F∪i}‖²_F B_jj + 1) / δ_ij² (‖(l_j, e_ij)‖² ≤ B_jj)
    Gi2 = first.G2[iu]
    cond = (f + 2) * float(np.maximum.reduce(Gi2 + (Gi2 * B_jj[ju] + 1.0) * inv_d2,
                                             initial=0.0))
    # f(F ∪ {i}) ≤ f(F ∪ {i, j}) ≤ its Weyl bound (interlacing, Weyl): the scale of the
    # rounding is known before any value is computed
    scale = float(np.maximum.reduce(np.abs(weyl[ok]), initial=0.0)) + float(
        np.maximum.reduce(np.abs(f1), initial=0.0))
    error = 64.0 * (f + 2) * _EPS * cond * scale
    values = np.full(iu.size, -np.inf)
    live = (ok & (weyl > floor - error)).nonzero()[0]
    if live.size:
        rows, where = np.unique(iu[live], return_inverse=True)
        C1 = np.empty((rows.size, f + 1, f + 1))
        C1[:, :f, :f] = first.C_F
        C1[:, :f, f] = C1[:, f, :f] = c1.T[rows]
        C1[:, f, f] = g1[rows]
        lam1, U1 = np.linalg.eigh(C1)
        w = np.einsum("pab,ap->bp", U1[where], border[:, live])
        values[live] = arrowhead_top_root(lam1[where].T, w * w, gamma[live])
    return idx, values, error


@functools.lru_cache(maxsize=64)
def _pair_layout(m: int) -> tuple[np.ndarray, np.ndarray]:
    """``np.triu_indices(m, 1)`` (read-only, cached)."""
    iu, ju = np.triu_indices(m, 1)
    iu.setflags(write=False)
    ju.setflags(write=False)
    return iu, ju


def rank_one_add_values(
    pair: MatrixPair, F: np.ndarray, candidates: np.ndarray
) -> np.ndarray:
    """``d_{F+j}ᵀ B_{F+j}⁻¹ d_{F+j}`` for every candidate j by one bordered-Cholesky step.

    With B_F = L Lᵀ, l_j = L⁻¹ B_{F,j}, w = L⁻¹ d_F: the value is
    ``‖w‖² + (d_j − l_jᵀ w)² / (B_jj − ‖l_j‖²)`` (the Schur complement of B_F).
    """
    B = pair.B
    if F.size == 0:
        return pair.d[candidates] ** 2 / np.diag(B)[candidates]
    base, rho, Lc = _bordered(pair, F, candidates)
    schur = np.diag(B)[candidates] - np.einsum("ij,ij->j", Lc, Lc)
    schur = np.maximum(schur, np.finfo(float).eps * np.diag(B)[candidates])
    return base + rho**2 / schur


def _bordered(pair: MatrixPair, F: np.ndarray,
              candidates: np.ndarray) -> tuple[float, np.ndarray, np.ndarray | None]:
    """The bordered Cholesky step from a fixed set F (rank one): with B_F = L Lᵀ and
    w = L⁻¹ d_F, returns f(F) = ‖w‖², the candidates' residuals ρ_j = d_j − (L⁻¹B_{F,j})ᵀ w
    and Lc = L⁻¹ B_{F,c} (``None`` when F is empty: then ρ = d_c)."""
    d, B = pair.d, pair.B
    if not F.size:
        return 0.0, d[candidates].astype(float), None
    # LAPACK directly: at the leaves of ESLDA this runs thousands of times on small B_F
    L, info = _potrf(submatrix(B, F), lower=1, clean=1, overwrite_a=1)
    if info:
        raise np.linalg.LinAlgError("B_F is not positive definite")
    w, _ = _trtrs(L, d[F], lower=1)
    Lc, _ = _trtrs(L, submatrix(B, F, candidates), lower=1)
    return float(w @ w), d[candidates] - Lc.T @ w, Lc


@functools.lru_cache(maxsize=256)
def _combinations(c: int, r: int) -> np.ndarray:
    """All r-subsets of range(c), lexicographic, shape (C(c, r), r) (read-only, cached)."""
    idx = np.array(list(itertools.combinations(range(c), r)), dtype=np.intp).reshape(-1, r)
    idx.setflags(write=False)
    return idx


@functools.lru_cache(maxsize=64)
def _triple_layout(c: int) -> tuple[np.ndarray, ...]:
    """Index arrays of the r = 3 pass over c candidates (read-only, cached): the pairs
    (i < j) lexicographic, and for every triple i < j < k (in the order of
    :func:`_combinations`) its pair's position and k, and the flat positions of C_ik and C_jk
    in a c × c matrix (the i·c + k block first, then the j·c + k block)."""
    iu, ju = _pair_layout(c)
    counts = c - 1 - ju  # the k > j that extend pair (i, j)
    tp = np.repeat(np.arange(iu.size), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    tk = np.arange(tp.size) - first + np.repeat(ju + 1, counts)
    flat = np.concatenate([iu[tp] * c + tk, ju[tp] * c + tk])
    for a in (tp, tk, flat):
        a.setflags(write=False)
    return iu, ju, tp, tk, flat


def subset_gains(C: np.ndarray, rho: np.ndarray, r: int) -> np.ndarray:
    """ρ_Rᵀ C_RR⁻¹ ρ_R for every r-subset R of range(c) (r ≤ 3, the order of
    :func:`_combinations`), −∞ where C_RR is not numerically positive definite.

    r = 2 by the 2 × 2 inverse; r = 3 by bordering each pair {i, j} with k > j:
    ρ_Rᵀ C_RR⁻¹ ρ_R = q_ij + (ρ_k − C_{k,ij} α_ij)² / (C_kk − C_{k,ij} C_ij⁻¹ C_{ij,k}) with
    α_ij = C_ij⁻¹ ρ_ij and q_ij = ρ_ijᵀ α_ij (the Schur complement of C_ij: C_RR is positive
    definite exactly when C_ij is and that pivot is positive). The pairs' terms are computed
    once, every gather is a one-dimensional ``take``, and far fewer arrays of the triples'
    length are made than by 3 × 3 cofactors over two-dimensional gathers.
    """
    c = rho.size
    diag = C.diagonal()
    flat_C = C.ravel()
    if r == 1:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(diag > 0, rho * rho / diag, -np.inf)
    if r not in (2, 3):
        raise ValueError(f"r must be 1, 2 or 3; got {r}.")
    iu, ju, tp, tk, flat = _triple_layout(c)
    a, e = diag.take(iu), diag.take(ju)
    b = flat_C.take(iu * c + ju)
    det = a * e - b * b
    ri, rj = rho.take(iu), rho.take(ju)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        inv = 1.0 / det
        G11, G12, G22 = e * inv, -b * inv, a * inv
        al1 = G11 * ri + G12 * rj
        al2 = G12 * ri + G22 * rj
        q = ri * al1 + rj * al2
        pair_ok = (a > 0) & (det > 0)
        if r == 2:
            return np.where(pair_ok, q, -np.inf)
        terms = np.array([al1, al2, G11, G12, G22, q, pair_ok]).take(tp, axis=1)
        C_k = flat_C.take(flat).reshape(2, -1)
        cik, cjk = C_k[0], C_k[1]
        num = rho.take(tk) - (cik * terms[0] + cjk * terms[1])
        u1 = cik * terms[2] + cjk * terms[3]
        u2 = cik * terms[3] + cjk * terms[4]
        pivot = diag.take(tk) - (cik * u1 + cjk * u2)
        gains = terms[5] + num * num / pivot
        return np.where((pivot > 0) & (terms[6] > 0), gains, -np.inf)


def rank_one_add_subsets_values(
    pair: MatrixPair, F: np.ndarray, candidates: np.ndarray, r: int
) -> tuple[np.ndarray, np.ndarray]:
    """``d_Sᵀ B_S⁻¹ d_S`` for S = F ∪ R and every r-subset R of the candidates (r ≤ 3).

    The bordered Cholesky step of :func:`rank_one_add_values` for r variables at once: with
    B_F = L Lᵀ, w = L⁻¹ d_F, the candidates' residuals ρ_j = d_j − (L⁻¹B_{F,j})ᵀ w and Schur
    complement C = B_cc − (L⁻¹B_{F,c})ᵀ (L⁻¹B_{F,c}), the value is ‖w‖² + ρ_Rᵀ C_RR⁻¹ ρ_R
    (:func:`subset_gains`, all subsets in one vectorized pass).

    Returns the subsets (positions into ``candidates``, shape (p, r), lexicographic) and the
    values. A non-positive pivot (C_RR numerically singular) gives −∞: such a subset is left
    to exact evaluation only if nothing else is near the top.
    """
    if r not in (1, 2, 3):
        raise ValueError(f"r must be 1, 2 or 3; got {r}.")
    base, rho, Lc = _bordered(pair, F, candidates)
    C = submatrix(pair.B, candidates)
    if Lc is not None:
        C -= Lc.T @ Lc
    idx = _combinations(candidates.size, r)
    if idx.shape[0] == 0:
        return idx, np.empty(0)
    return idx, base + subset_gains(C, rho, r)
