"""Upper bounds on λ_max(A_S, B_S) over the k-subsets S of a branch-and-bound node.

A node of ESLDA (Sec. 2.3) is a pair F ⊆ T: the subsets S with F ⊆ S ⊆ T and |S| = k. With
m = |T|, every such S leaves out e = m − k variables of T and takes r = k − |F| of the free
ones T ∖ F. The inclusion principle (Thm. 1, Eq. 8) bounds every S by f(T) = λ_max(A_T, B_T);
the bounds here also use the cardinality, so that they bite long before T has shrunk to k.

All functions work on node-local arrays (positions 0 … m−1 stand for the elements of T) and
take ``in_F`` (boolean, length m) and ``r``. None validates its input: the search calls them
with consistent arrays. Each docstring carries the proof that the bound holds for every S of
the node; ``tests/test_sparse_lda_bounds.py`` checks each against brute force.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "block_bound",
    "collatz_row_bound",
    "collatz_rows",
    "entry_sum_bound",
    "kth_largest",
    "pair_exclusion_bounds",
    "perron_rows_bound",
    "removal_bound",
    "removal_exclusion_bounds",
    "scaled_by_lambda_min",
    "schur_exclusion_losses",
    "schur_kept_terms",
    "schur_loss_terms",
    "soft_threshold_bound",
    "top_entries_bound",
    "top_sums",
    "wolkowicz_styan_bound",
]


#: Levels c of :func:`schur_loss_terms`: 2^(j/4), 1/16 … 8 (c = 1, exact for B = I, included).
_C_GRID = np.exp2(np.arange(-16, 13) / 4.0)


def top_sums(X: np.ndarray, r: int) -> np.ndarray:
    """Sum of the r largest entries of every row of X (r ≤ number of columns)."""
    c = X.shape[-1]
    if r <= 0:
        return np.zeros(X.shape[:-1])
    if r >= c:
        return X.sum(axis=-1)
    top = X.copy()
    top.partition(c - r, axis=-1)
    return np.add.reduce(top[..., c - r :], axis=-1)


def kth_largest(x: np.ndarray, j: int) -> float:
    """The j-th largest entry of a vector (j = 1 is the maximum)."""
    top = x.copy()
    top.partition(x.size - j)
    return float(top[x.size - j])


def removal_bound(g_free: np.ndarray, e: int) -> float:
    """Cardinality form of the one-removal bound: the e-th largest of f(T ∖ j) over free j.

    Proof. S leaves out a set R of e free variables. For each j ∈ R, S ⊆ T ∖ j, so
    f(S) ≤ f(T ∖ j) = g_j by the inclusion principle (Thm. 1). Hence
    f(S) ≤ min_{j∈R} g_j, and the minimum of e entries of g is at most its e-th largest. ∎
    """
    return kth_largest(g_free, e)


def removal_exclusion_bounds(g_free: np.ndarray, e: int) -> np.ndarray:
    """For every free j, a bound on the subsets of the node that leave j out:
    ``min(g_j, (e−1)-th largest of g over the other free variables)``.

    Proof. Such an S leaves out j and e − 1 other free variables R'. By inclusion
    f(S) ≤ g_j and f(S) ≤ g_i for every i ∈ R', so f(S) ≤ min_{i∈R'} g_i, which is at most
    the (e−1)-th largest of the g_i, i ≠ j. ∎
    """
    if e <= 1:
        return g_free.copy()
    s = np.sort(g_free)[::-1]
    ranks = np.empty(g_free.size, dtype=np.intp)
    ranks[np.argsort(-g_free, kind="stable")] = np.arange(g_free.size)
    # the (e−1)-th largest of the others: s[e−1] when j itself is among the first e−1
    others = np.where(ranks <= e - 2, s[e - 1], s[e - 2])
    return np.minimum(g_free, others)


def pair_exclusion_bounds(H_free: np.ndarray, e: int) -> np.ndarray:
    """For every free j, the (e−1)-th largest of f(T ∖ {i, j}) over free i ≠ j.

    ``H_free[i, j] ≥ f(T ∖ {i, j})`` (the values for rank one, bounds for a general A) with
    −∞ on the diagonal; e ≥ 2.

    Proof. A subset S that leaves j out leaves out e − 1 further free variables R'; for
    each i ∈ R', S ⊆ T ∖ {i, j}, so f(S) ≤ H_ij (Thm. 1). Then f(S) ≤ min_{i∈R'} H_ij,
    at most the (e−1)-th largest entry of row j off the diagonal. ∎

    The e-th largest of these values bounds the whole node (same argument as
    :func:`removal_bound`, with these per-variable bounds in place of g).
    """
    c = H_free.shape[1]
    top = H_free.copy()
    top.partition(c - (e - 1), axis=1)
    return top[:, c - (e - 1)]


#: Rows of at least TOP_BLOCK_MIN columns and max(2r, TOP_BLOCK) blocks of TOP_BLOCK
#: columns get their r largest entries through the blocks (:func:`_row_top_r`): per call
#: 1.5-1.8× faster than a partition at 300 columns, 2-3.5× at 500-2,000, about even at
#: 256 (0.94-1.07×) and up to 1.5× slower at 150, where the gathering costs more than it
#: saves.
TOP_BLOCK = 8
TOP_BLOCK_MIN = 256


def _row_top_r(M: np.ndarray, r: int) -> np.ndarray:
    """The r largest entries of every row of M (m × c, entries ≥ 0, 1 ≤ r ≤ c), as an
    m × r array in no order; M may be overwritten.

    Long rows are cut into nb = ⌊c / b⌋ blocks (b = :data:`TOP_BLOCK`): block β holds the
    columns β, β + nb, …, β + (b − 1)nb, and, for β < c − b·nb, the column b·nb + β; so the
    blocks' maxima are an elementwise maximum of b contiguous slices. Only the r blocks
    with the largest maxima are partitioned: on colon's 2,000 genes with r = 20, a row's
    r largest entries in half the time of partitioning the row.

    Proof that the blocks hold the r largest entries. Let v be the r-th largest block
    maximum of a row. The r chosen blocks have maxima ≥ v: r entries ≥ v. Every other block
    has maximum ≤ v, so no entry outside the chosen blocks exceeds the r largest entries
    inside them, which are therefore r largest entries of the row (ties change which
    entries, not their values). ∎
    """
    m, c = M.shape
    b = TOP_BLOCK
    nb, rest = divmod(c, b)
    if c < TOP_BLOCK_MIN or nb < max(2 * r, b):
        M.partition(c - r, axis=1)
        return M[:, c - r:]
    M = np.ascontiguousarray(M)  # any other layout: one copy here, not one per reshape below
    maxima = M[:, : nb * b].reshape(m, b, nb).max(axis=1)
    if rest:
        np.maximum(maxima[:, :rest], M[:, nb * b :], out=maxima[:, :rest])
    chosen = np.argpartition(maxima, nb - r, axis=1)[:, nb - r:]
    depth = b + (rest > 0)
    # flat indices of the chosen blocks' columns: (row, position in the block, block)
    flat = chosen[:, None, :] + (nb * np.arange(depth))[None, :, None]
    flat += (c * np.arange(m))[:, None, None]
    if rest:
        # blocks without a last column point at one of their own, zeroed once gathered
        short = chosen >= rest
        flat[:, b, :][short] -= nb
    picked = np.take(M.reshape(-1), flat)
    if rest:
        picked[:, b, :][short] = 0.0
    picked = picked.reshape(m, depth * r)
    picked.partition(picked.shape[1] - r, axis=1)
    return picked[:, picked.shape[1] - r:]


def _row_tops(M_T: np.ndarray, in_F: np.ndarray, r: int, w: np.ndarray | None = None,
              square: bool = False) -> tuple[np.ndarray, np.ndarray]:
    """Per row i of a node's matrix (|A_T|, or A_T with ``square``), off the diagonal and
    after weighting column j by w_j (or squaring): the sum over the F columns, and the r
    largest entries over the free columns, the row's own entry counted as 0 (an m × r
    array, unordered). The kernel of the row-sum bounds below: one weighted copy of the
    node's matrix, its F columns then set to 0 (the entries are ≥ 0 and there are more than
    r free columns, so the zeros never change the r largest values), and
    :func:`_row_top_r`."""
    m = M_T.shape[0]
    if square:
        M = np.multiply(M_T, M_T, order="C")
    elif w is not None:
        M = np.multiply(M_T, w, order="C")
    else:
        M = M_T.copy()
    M.flat[:: m + 1] = 0.0
    fixed = np.flatnonzero(in_F)
    base = M[:, fixed].sum(axis=1)
    M[:, fixed] = 0.0
    return base, _row_top_r(M, r)


def collatz_row_bound(A_T: np.ndarray, absA_T: np.ndarray, in_F: np.ndarray, r: int,
                      w: np.ndarray | None = None) -> float:
    """Weighted Gershgorin (Collatz–Wielandt) bound: the maximum of :func:`collatz_rows`."""
    return float(collatz_rows(A_T, absA_T, in_F, r, w).max())


def collatz_rows(A_T: np.ndarray, absA_T: np.ndarray, in_F: np.ndarray, r: int,
                 w: np.ndarray | None = None) -> np.ndarray:
    """Weighted Gershgorin (Collatz–Wielandt) bound on λ_max(A_S) with |S| = k (B = I).

    For a positive weight vector w (default all ones)::

        R_i = a_ii + (Σ_{j∈F∖i} |a_ij| w_j + top_{r_i}{|a_ij| w_j : j free, j ≠ i}) / w_i,

    with r_i = r for i ∈ F and r − 1 for a free i; the bound is max_{i∈T} R_i. With w = 1
    it is the row-sum bound of Berk & Bertsimas (2019). Returns the R_i; the search also
    uses them to order its branching (a large R_i marks a variable that can contribute most).

    Proof. D⁻¹A_S D with D = diag(w_S) has the eigenvalues of A_S, and Gershgorin's theorem
    puts each of them in a disc centred at a_ii of radius Σ_{j∈S∖i} |a_ij| w_j / w_i, for some
    i ∈ S. S contains F and, when i is free, r − 1 free variables besides i (r of them when
    i ∈ F), so the radius is at most the F-part plus the sum of the largest admissible free
    terms. The maximum over i ∈ T ⊇ S covers every S of the node. ∎
    """
    base, top_r = _row_tops(absA_T, in_F, r, w)
    s_r = top_r.sum(axis=1)
    # free rows: their own entry is 0 among the free columns, so the top r − 1 of the others
    # is the top r minus the smallest of those r (entries are ≥ 0)
    extra = np.where(in_F, s_r, s_r - top_r.min(axis=1))
    return np.diag(A_T) + (base + extra) / (1.0 if w is None else w)


def perron_rows_bound(A_T: np.ndarray, absA_T: np.ndarray, in_F: np.ndarray, r: int,
                      w: np.ndarray, target: float, iters: int) -> tuple[float, np.ndarray]:
    """The weighted row-sum bound (:func:`collatz_rows`) at weights found by a nonlinear
    power iteration: the smallest of its values along the iteration, and the last weights.

    Starting from ``w`` (positive), each step replaces w by the map

        𝒯(w)_i = (a_ii + σ) w_i + Σ_{j∈F∖i} |a_ij| w_j + top_{r_i}{|a_ij| w_j : j free, j ≠ i}

    (σ = max(0, −min a_ii), r_i as in :func:`collatz_rows`), normalized; R_i(w) =
    𝒯(w)_i / w_i − σ are the rows of :func:`collatz_rows`. It stops after ``iters`` steps,
    as soon as the bound is ≤ ``target``, or after ten steps without a relative gain of 10⁻⁴.

    Proof. Every positive w gives a valid bound on λ_max(A_S) for all S of the node
    (:func:`collatz_rows`), so the smallest of them is one too; the iteration only chooses
    which w to try. Why it finds good ones: 𝒯 is order preserving and homogeneous of degree
    one on the positive cone, and for such maps inf_w max_i 𝒯(w)_i / w_i is the cone
    spectral radius of 𝒯, approached by the normalized iterates (the Collatz–Wielandt
    formula of nonlinear Perron–Frobenius theory; Lemmens & Nussbaum 2012, Thm. 5.6.1). For a
    nonnegative A and F = ∅ that radius is at least max_S λ_max(A_S), with equality when the
    rows' r_i largest weighted entries fall inside one optimal S -- as for a block of
    strongly correlated variables, where the unweighted row sums are loose. ∎
    """
    sigma = max(0.0, -float(A_T.diagonal().min()))
    w = np.maximum(w / w.max(), 1e-12)
    best, since = np.inf, 0
    for _ in range(iters):
        R = collatz_rows(A_T, absA_T, in_F, r, w)
        value = float(R.max())
        # stalled: ten steps without a gain of one part in 10⁴
        since = 0 if value < best - 1e-4 * abs(best) else since + 1
        best = min(best, value)
        if best <= target or since >= 10:
            break
        w = (R + sigma) * w
        top = float(w.max())
        if not top > 0.0:  # A_T = 0 on the rows left: nothing to reweight
            w = np.ones_like(w)
            break
        w = np.maximum(w / top, 1e-12)
    return best, w


def wolkowicz_styan_bound(A_T: np.ndarray, in_F: np.ndarray, r: int, k: int) -> float:
    """Trace–Frobenius (Wolkowicz–Styan) bound on λ_max(A_S) with |S| = k (B = I).

    For a symmetric k × k matrix with trace t and Frobenius norm² f,
    λ_max ≤ t/k + √((k−1)/k · (f − t²/k)) (Wolkowicz & Styan 1980). Over the node,
    f ≤ f_hi = Σ_{i∈F} R_i + top_r{R_i : i free} with R_i the largest possible sum of a_ij²
    over j ∈ S (F-part plus the largest admissible free terms), and t lies in
    [t_F + bottom_r, t_F + top_r] of the free diagonal.

    Proof. Let λ_1 ≥ … ≥ λ_k be the eigenvalues of A_S, μ = t/k. Σ(λ_i − μ) = 0, so
    (λ_1 − μ)² = (Σ_{i>1}(λ_i − μ))² ≤ (k−1) Σ_{i>1}(λ_i − μ)² = (k−1)(f − kμ² − (λ_1 − μ)²)
    by Cauchy–Schwarz, i.e. λ_1 ≤ μ + √((k−1)/k (f − t²/k)). The right side grows with f and,
    as a function of t on t² ≤ k f, is concave with its maximum √f at t = √f; so over the
    node it is at most its value at f_hi and at √f_hi clipped to the range of t. Equality
    holds for an equicorrelated block, where the bound is exact. ∎
    """
    free = ~in_F
    base, top_r = _row_tops(A_T, in_F, r, square=True)
    base += np.diag(A_T) ** 2  # a_ii² is in every row's own sum
    s_r = top_r.sum(axis=1)
    R = base + np.where(in_F, s_r, s_r - top_r.min(axis=1))
    f_hi = float(R[in_F].sum() + top_sums(R[free], r))
    d = np.diag(A_T)
    t_F = float(d[in_F].sum())
    d_free = d[free]
    t_hi = t_F + float(top_sums(d_free, r))
    t_lo = t_F - float(top_sums(-d_free, r))
    t = min(max(np.sqrt(f_hi), t_lo), t_hi)
    return float(t / k + np.sqrt(max((k - 1) / k * (f_hi - t * t / k), 0.0)))


def scaled_by_lambda_min(bound_A: float, lambda_min_B: float) -> float:
    """A bound on λ_max(A_S) turned into one on λ_max(A_S, B_S): ``max(bound, 0) / λ_min(B)``.

    Proof. λ_min(B_S) ≥ λ_min(B) by interlacing (Thm. 1 with A = B). If λ_max(A_S, B_S) ≤ 0
    the claim holds as the right side is ≥ 0. Otherwise its eigenvector x has xᵀAx > 0 and
    xᵀAx / xᵀBx = (xᵀAx / xᵀx)(xᵀx / xᵀBx) ≤ λ_max(A_S) / λ_min(B_S). ∎
    """
    return max(bound_A, 0.0) / lambda_min_B


def entry_sum_bound(Q: np.ndarray, in_F: np.ndarray, r: int) -> float:
    """An upper bound on max 1ᵀ Q_SS 1 over the subsets of the node (Q symmetric).

    ρ_i = Σ_{j∈F} Q_ij + top_{r}{Q_ij : j free} for i ∈ F, and
    ρ_i = Q_ii + Σ_{j∈F} Q_ij + top_{r−1}{Q_ij : j free, j ≠ i} for a free i; the bound is
    Σ_{i∈F} ρ_i + top_r{ρ_i : i free}.

    Proof. 1ᵀQ_SS1 = Σ_{i∈S} Σ_{j∈S} Q_ij, and for i ∈ S the inner sum has the F-part fixed and
    r (free i: r − 1 besides itself) free terms, at most the largest such: ρ_i. S is F plus r
    free variables, so the outer sum is at most Σ_F ρ_i plus the r largest free ρ_i. ∎
    """
    free = ~in_F
    base = Q[:, in_F].sum(axis=1)
    Qf = Q[:, free].copy()
    nf = Qf.shape[1]
    # a free row must not pick its own entry among the "others"
    fi = np.flatnonzero(free)
    Qf[fi, np.arange(nf)] = -np.inf
    top_r = np.partition(Qf, nf - r, axis=1)[:, nf - r :]
    s_r = top_r.sum(axis=1)
    diag = np.diag(Q)
    # (the search calls this with e ≥ 1, so nf > r and the −∞ is never among a row's top r)
    rho = np.where(in_F, base + s_r, base + diag + s_r - top_r.min(axis=1))
    return float(rho[in_F].sum() + top_sums(rho[free], r))


def top_entries_bound(lam_desc: np.ndarray, U: np.ndarray, P: np.ndarray | None,
                      in_F: np.ndarray, r: int) -> float:
    """Generalized top-entries bound from the node's own generalized eigenpairs.

    With (A_T, B_T) = (B_T X Λ Xᵀ B_T, B_T), XᵀB_T X = I, write u_l = B_T x_l (columns of U,
    in decreasing order of λ_l) and P = B_T⁻¹ (None means B_T = I). For q ≥ 1 with λ_q ≥ 0,
    every S of the node has::

        λ_max(A_S, B_S) ≤ max_S 1ᵀ (P ∘ Σ_{l≤q} λ_l u_l u_lᵀ)_SS 1 + max(λ_{q+1}, 0),

    and the first term is bounded by :func:`entry_sum_bound`; the result is the minimum over
    the q tried (the columns of U). For B = I and q = 1 this is λ_1 · top_k(v_1²) + λ_2; for a
    rank-one A = d dᵀ (q = 1, λ_2 = 0) it is the entry-sum bound of diag(d) P diag(d).

    Proof. For x supported on S, xᵀA_T x = Σ_l λ_l (u_lᵀx)² ≤ Σ_{l≤q} λ_l (u_lᵀx)² +
    λ_{q+1}⁺ Σ_l (u_lᵀx)², and Σ_l (u_lᵀx)² = xᵀB_T X Xᵀ B_T x = xᵀB_T x as X Xᵀ = B_T⁻¹. By
    Cauchy–Schwarz, (u_lᵀx)² ≤ (u_{l,S}ᵀ B_S⁻¹ u_{l,S}) xᵀB_S x, and B_S⁻¹ ⪯ P_SS (the Schur
    complement B_S − B_SR B_RR⁻¹ B_RS = (P_SS)⁻¹ is ⪯ B_S). Dividing by xᵀB_S x and summing
    with the weights λ_l ≥ 0 gives Σ_l λ_l u_{l,S}ᵀ P_SS u_{l,S} = 1ᵀ(P ∘ A_q)_SS 1. ∎
    """
    best = np.inf
    m = U.shape[0]
    Aq = np.zeros((m, m)) if P is not None else None
    dq = np.zeros(m)
    for q in range(U.shape[1]):
        lam = lam_desc[q]
        if lam < 0:
            break
        tail = max(float(lam_desc[q + 1]), 0.0) if q + 1 < lam_desc.size else 0.0
        u = U[:, q]
        if P is None:
            dq += lam * u * u
            head = float(dq[in_F].sum() + top_sums(dq[~in_F], r))
        else:
            Aq += lam * np.outer(u, u)
            head = entry_sum_bound(Aq * P, in_F, r)
        best = min(best, head + tail)
    return best



def block_bound(lam_F: float, A_T: np.ndarray, in_F: np.ndarray, r: int) -> float:
    """Bound from the exact top eigenvalue of the fixed block (B = I).

    Split S = F ∪ R (R: the r free variables chosen). With λ_F = λ_max(A_F) (given),
    x̄ = √(top_r of ‖A_{F,j}‖² over free j) ≥ ‖A_{F,R}‖₂ and λ̄_R the trace–Frobenius and
    row-sum bounds for r-subsets of the free variables (F = ∅ there), the bound is the top
    eigenvalue of [[λ_F, x̄], [x̄, λ̄_R]] = (λ_F + λ̄_R)/2 + √(((λ_F − λ̄_R)/2)² + x̄²).

    Proof. For a unit z = (a; c) supported on S, zᵀA_S z = aᵀA_F a + 2aᵀA_{F,R} c + cᵀA_R c
    ≤ λ_F‖a‖² + 2‖A_{F,R}‖₂‖a‖‖c‖ + λ_max(A_R)‖c‖², the quadratic form of the 2 × 2 matrix
    at the unit vector (‖a‖, ‖c‖); its top eigenvalue grows with each diagonal entry and with
    the off-diagonal one, so the bounds on ‖A_{F,R}‖₂ (Frobenius norm of the r columns) and on
    λ_max(A_R) (:func:`wolkowicz_styan_bound`, :func:`collatz_rows` on the free block) may
    replace them. ∎
    """
    free = ~in_F
    A_R = A_T[np.ix_(free, free)]
    none = np.zeros(A_R.shape[0], dtype=bool)
    lam_R = wolkowicz_styan_bound(A_R, none, r, r) if r >= 1 else 0.0
    if r >= 1:
        lam_R = min(lam_R, float(collatz_rows(A_R, np.abs(A_R), none, r).max()))
    cross = A_T[np.ix_(in_F, free)]
    x2 = float(top_sums((cross * cross).sum(axis=0), r))
    half = 0.5 * (lam_F - lam_R)
    return float(0.5 * (lam_F + lam_R) + np.sqrt(half * half + x2))


def soft_threshold_bound(A_T: np.ndarray, c: float, k: int) -> float:
    """ℓ₁ (DSPCA-type) bound for B = I: ``λ_max(A_T − Y_c) + c (k − 1)``, where Y_c clips
    the off-diagonal entries of A_T to [−c, c] (so A_T − Y_c is A_T soft-thresholded at c
    off the diagonal); any c ≥ 0 is valid.

    Proof. For a unit x supported on S ⊆ T with |S| = k, xᵀA x = xᵀ(A − Y)x + xᵀY x. The first
    term is at most λ_max(A_T − Y). Y has a zero diagonal and |Y_ij| ≤ c, so
    xᵀY x ≤ c Σ_{i≠j} |x_i||x_j| = c (‖x‖₁² − ‖x‖₂²) ≤ c (k − 1), as ‖x‖₁² ≤ k ‖x‖₂² by
    Cauchy–Schwarz on k non-zero entries. (d'Aspremont et al.'s relaxation bounds sparse PCA
    by min_Y λ_max(A − Y) + k‖Y‖_max; the zero diagonal turns k into k − 1.) ∎
    """
    m = A_T.shape[0]
    M = np.sign(A_T) * np.maximum(np.abs(A_T) - c, 0.0)
    M.flat[:: m + 1] = A_T.diagonal()
    return float(np.linalg.eigvalsh(M)[-1]) + c * (k - 1)


def schur_loss_terms(P_free: np.ndarray, x_free: np.ndarray, e: int,
                     c_grid: np.ndarray | None = None) -> tuple[np.ndarray, float]:
    """Rank one: per-variable terms φ_i whose e smallest sum to a lower bound on the loss
    f(T) − f(S) of every subset of the node (B ≠ I allowed).

    With P = B_T⁻¹, x = P d_T (restricted here to the free variables), t_i = x_i / P_ii and
    Q = diag(t) P diag(t) (so Q_ii = x_i² / P_ii, the loss of removing i alone)::

        ρ_i = Q_ii + top_{e−1}{Q_ij : j free, j ≠ i}      (signed entries)
        φ_i = 2c Q_ii − c² ρ_i,

    for the c ≥ 0 of ``c_grid`` (default a geometric grid) that makes the sum of the e
    smallest φ_i largest. Returns φ (at that c) and that sum; the search bounds the node by
    f(T) − sum, and the subsets that leave j out by f(T) − φ_j − (sum of the e − 1 smallest
    other φ_i).

    Proof. S = T ∖ R with R a set of e free variables. By the Schur complement
    B_S⁻¹ = P_SS − P_SR P_RR⁻¹ P_RS, and with x_R = P_RS d_S + P_RR d_R, expanding
    f(T) = dᵀP d and f(S) = d_Sᵀ B_S⁻¹ d_S gives f(T) − f(S) = x_Rᵀ P_RR⁻¹ x_R. For M ≻ 0
    and any y, x_Rᵀ M⁻¹ x_R ≥ 2yᵀx_R − yᵀM y (expand ‖M^{−1/2}x_R − M^{1/2}y‖² ≥ 0). With
    y = c t_R: 2c Σ_{i∈R} Q_ii − c² Σ_{i∈R} Σ_{j∈R} Q_ij, and the inner sum over j ∈ R has
    Q_ii and e − 1 other free entries, at most ρ_i. So the loss is ≥ Σ_{i∈R} φ_i, at least
    the sum of the e smallest φ_i (or φ_j plus the e − 1 smallest others when j ∈ R). ∎
    For B = I (P = I) and c = 1 it is exact: the loss is Σ_{i∈R} x_i². Negative couplings
    (P_ij t_i t_j < 0, as for smooth within-class covariances) make ρ_i < Q_ii, so the bound
    can exceed the sum of the single-removal losses.
    """
    m = x_free.size
    p = P_free.diagonal()
    t = x_free / p
    q = x_free * t
    if e > 1:
        Q = P_free * np.multiply.outer(t, t)
        Q.flat[:: m + 1] = -np.inf
        rho = q + top_sums(Q, e - 1)
    else:
        rho = q
    if c_grid is None:
        c_grid = _C_GRID
    phi = 2.0 * c_grid[:, None] * q[None, :] - (c_grid * c_grid)[:, None] * rho[None, :]
    sums = -top_sums(-phi, e)
    best = int(sums.argmax())
    return phi[best], float(sums[best])


def schur_exclusion_losses(phi: np.ndarray, e: int) -> np.ndarray:
    """For every free j: φ_j + the sum of the e − 1 smallest other φ_i
    (:func:`schur_loss_terms`), a lower bound on the loss of the subsets leaving j out."""
    if e <= 1:
        return phi.copy()
    s = phi.copy()
    s.sort()
    ranks = np.empty(phi.size, dtype=np.intp)
    ranks[phi.argsort(kind="stable")] = np.arange(phi.size)
    low = np.add.reduce(s[: e - 1])
    # j among the e − 1 smallest: the others' e − 1 smallest are the first e without j
    others = np.where(ranks <= e - 2, np.add.reduce(s[:e]) - phi, low)
    return phi + others


def schur_kept_terms(P_free: np.ndarray, x_free: np.ndarray,
                     r: int, t: np.ndarray | None = None) -> tuple[Any, np.ndarray]:
    """Rank one: the loss bound of :func:`schur_loss_terms` written over the r free
    variables that S keeps (R' = free ∖ R), tighter when r is small.

    With a direction t (default x_i / P_ii, as there; any vector is valid), Q = diag(t) P
    diag(t), a_i = t_i x_i, s_i = Σ_{j free} Q_ij, σ = Σ_i s_i and, at the level c::

        base = 2c Σ_i a_i − c² σ,
        ψ_i  = 2c a_i − 2c² s_i + c² (Q_ii + top_{r−1}{Q_ij : j free, j ≠ i}),

    every S of the node loses at least base − Σ_{i∈R'} ψ_i ≥ base − top_r(ψ). Returns base
    and ψ at the c of the grid that makes ``base − top_r(ψ)`` largest; the search also bounds
    the subsets that keep given free variables or leave one out by the same sum over R'.

    Proof. As in :func:`schur_loss_terms` with y = c t_R, the loss is
    ≥ 2c Σ_{i∈R} a_i − c² 1ᵀQ_RR 1 for R = free ∖ R'. Σ_{i∈R} a_i = Σ_i a_i − Σ_{i∈R'} a_i
    and, Q being symmetric,
    1ᵀQ_RR1 = σ − 2 Σ_{i∈R'} s_i + 1ᵀQ_{R'R'}1, where the last sum is at most
    Σ_{i∈R'} (Q_ii + top_{r−1}{Q_ij : j ≠ i}). Collecting the terms of each i ∈ R' gives
    base − Σ_{i∈R'} ψ_i, and a sum of r of the ψ_i is at most the r largest. ∎
    With t = P_ff⁻¹ x_f (the search tries it too) and r = 0 the bound is exact: f(F).
    A t of shape (D, m) evaluates D directions in one pass and returns base and ψ for each
    (arrays of shapes (D,) and (D, m)).
    """
    m = x_free.size
    if t is None:
        t = x_free / P_free.diagonal()
    stacked = np.ndim(t) == 2
    t = np.atleast_2d(t)  # (directions, m): all directions in one pass
    Q = P_free[None, :, :] * (t[:, :, None] * t[:, None, :])
    q = t * x_free
    s = np.add.reduce(Q, axis=2)
    sigma = np.add.reduce(s, axis=1)
    diag = np.arange(m)
    own = Q[:, diag, diag].copy()
    if r > 1:
        Q[:, diag, diag] = -np.inf
        own += top_sums(Q, r - 1)
    c = _C_GRID[:, None, None]
    psi = 2.0 * c * q[None] - 2.0 * c * c * s[None] + c * c * own[None]
    base = (2.0 * _C_GRID[:, None] * np.add.reduce(q, axis=1)[None]
            - (_C_GRID * _C_GRID)[:, None] * sigma)
    totals = base - top_sums(psi, r)
    best = totals.argmax(axis=0)
    cols = np.arange(t.shape[0])
    if stacked:
        return base[best, cols], psi[best, cols]
    return float(base[best[0], 0]), psi[best[0], 0]
