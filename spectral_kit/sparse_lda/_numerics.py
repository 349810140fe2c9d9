"""Numerical kernels shared by the sparse-LDA algorithms (no validation here).

Callers pass a validated :class:`~spectral_kit.sparse_lda.pair.MatrixPair`.
"""

from __future__ import annotations

import functools
import itertools

import numpy as np
import scipy.linalg

from ..linalg import fix_sign
from .pair import MatrixPair

#: Largest number of matrix entries held at once by the batched evaluators.
BATCH_ENTRIES = 4_000_000

_potrf = scipy.linalg.lapack.dpotrf
_trtrs = scipy.linalg.lapack.dtrtrs


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
    iu, ju = np.triu_indices(c, 1)
    counts = c - 1 - ju  # the k > j that extend pair (i, j)
    tp = np.repeat(np.arange(iu.size), counts)
    first = np.repeat(np.cumsum(counts) - counts, counts)
    tk = np.arange(tp.size) - first + np.repeat(ju + 1, counts)
    flat = np.concatenate([iu[tp] * c + tk, ju[tp] * c + tk])
    for a in (iu, ju, tp, tk, flat):
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


def swap_values(pair: MatrixPair, support: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """λ_max of every one-swap neighbour of a support: ``values[a, b]`` for S − S[a] + out[b].

    Returns the values (shape (k, n − k)) and ``out``, the variables not in S (sorted).
    Rank one: one bordered-Cholesky step per removed variable
    (:func:`rank_one_add_values`); general: stacked solves of all k(n − k) neighbours.
    """
    support = np.sort(np.asarray(support, dtype=np.intp))
    k = support.size
    out = np.setdiff1d(np.arange(pair.n), support)
    if out.size == 0:
        return np.empty((k, 0)), out
    if pair.rank_one:
        values = np.empty((k, out.size))
        for a in range(k):
            values[a] = rank_one_add_values(pair, np.delete(support, a), out)
        return values, out
    subsets = np.empty((k, out.size, k), dtype=np.intp)
    for a in range(k):
        subsets[a, :, : k - 1] = np.delete(support, a)
    subsets[:, :, k - 1] = out[None, :]
    return batched_values(pair, subsets.reshape(-1, k)).reshape(k, out.size), out


def local_swap_search(
    pair: MatrixPair, support: np.ndarray, *, max_rounds: int = 200
) -> tuple[np.ndarray, float]:
    """Best-improvement one-swap local search from ``support``: exchange one selected
    variable for one left out while that raises λ_max(A_S, B_S).

    Returns a support that no single swap improves (or the last one after ``max_rounds``)
    and its value, evaluated afresh (:func:`subset_value`).
    """
    support = np.sort(np.asarray(support, dtype=np.intp))
    value = subset_value(pair, support)
    for _ in range(max_rounds):
        values, out = swap_values(pair, support)
        if values.size == 0:
            break
        a, b = np.unravel_index(int(np.argmax(values)), values.shape)
        # a swap counts only when it beats rounding; its value is then computed exactly
        if values[a, b] <= value * (1.0 + 1e-12) + np.finfo(float).tiny:
            break
        candidate = np.sort(np.append(np.delete(support, a), out[b]))
        new_value = subset_value(pair, candidate)
        if new_value <= value:
            break
        support, value = candidate, new_value
    return support, value
