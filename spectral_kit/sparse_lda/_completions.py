"""Threshold test of the exact search's direct finishes: which completions F ∪ R of a node
can beat the incumbent, decided by signs, not values.

One job: :func:`completions_above`. With μ just under the incumbent and f(F) < μ,
f(F ∪ R) > μ exactly when K_RR is not positive definite, K the Schur complement of
A_FF − μB_FF in μB − A over the candidates (Haynsworth inertia, Sylvester); pairs and triples
by their principal minors, more variables by a chain of Schur complements.

Invariant: a subset reported as not above μ has value ≤ μ; where rounding or a smaller
completion already at μ could decide otherwise, the test returns None (undecided) and the
caller branches.
"""

from __future__ import annotations

import functools

import numpy as np

from ._numerics import _pair_layout, _potrf, _pstrf, _trtrs, submatrix
from .pair import MatrixPair

#: Smallest squared Cholesky pivot of μB_F − A_F, relative to its largest diagonal entry,
#: at which :func:`completions_above` still decides.
_CONDITION = 1e-8


class _Undecided(Exception):
    """Some subset with fewer variables than asked already reaches the threshold."""


def completions_above(pair: MatrixPair, F: np.ndarray, candidates: np.ndarray, r: int,
                      mu: float, max_steps: int | None = None) -> np.ndarray | None:
    """The r-subsets R of the candidates for which λ_max(A_S, B_S), S = F ∪ R, can exceed
    ``mu``; every other one is at most ``mu``. ``None`` when the test does not decide:
    f(F), some f(F ∪ {j}) or (r ≥ 4) some f(F ∪ R') with |R'| < r is not below ``mu``
    (f(F) not clearly below: μB_F − A_F nearly singular), or the chains of
    :func:`_indefinite_subsets` took more than ``max_steps`` steps.

    A threshold test, not an evaluation. With Z = A − μB and Z_FF negative definite
    (f(F) < μ), the inertia of Z_SS is that of Z_FF plus that of the Schur complement
    M = Z_RR − Z_RF Z_FF⁻¹ Z_FR (Haynsworth), so f(S) > μ ⇔ Z_SS has a positive eigenvalue ⇔
    M_RR does: one m × m matrix over the candidates answers the question for every R.
    Where its diagonal is negative (each f(F ∪ {j}) < μ), scale it to K = −D M D with a
    unit diagonal, D = diag(−M)^(−1/2) (Sylvester's law of inertia): f(F ∪ R) > μ exactly
    when K_RR is not positive definite, up to the boundary K_RR singular, f(F ∪ R) = μ.

    Returns positions into ``candidates``, shape (p, r), or ``None``. Boundary cases are
    returned, so a caller that evaluates what is returned exactly misses no subset above
    ``mu``.
    """
    A, B = pair.A, pair.B
    Z = submatrix(A, candidates) - mu * submatrix(B, candidates)
    if F.size:
        N = mu * submatrix(B, F) - submatrix(A, F)  # −Z_FF, positive definite iff f(F) < μ
        top = float(np.maximum.reduce(N.diagonal()))
        L, info = _potrf(N, lower=1, clean=1, overwrite_a=1)
        # f(F) within rounding of μ: Z_FF⁻¹ would swamp the signs the test reads
        if info or np.minimum.reduce(L.diagonal()) ** 2 <= _CONDITION * top:
            return None
        W, _ = _trtrs(L, submatrix(A, F, candidates) - mu * submatrix(B, F, candidates),
                      lower=1)
        Z += W.T @ W  # M = Z_RR − Z_RF Z_FF⁻¹ Z_FR = Z_RR + Wᵀ W
    neg = -Z.diagonal()
    if not np.minimum.reduce(neg, initial=np.inf) > 0.0:
        if r == 1 and np.isfinite(neg).all():
            return (neg <= 0.0).nonzero()[0][:, None]
        return None
    if r == 1:
        return np.empty((0, 1), dtype=np.intp)
    s = 1.0 / np.sqrt(neg)
    K = Z * s[:, None]
    K *= -s[None, :]
    try:
        return _indefinite_subsets(K, r, [np.inf if max_steps is None else max_steps])
    except _Undecided:
        return None


def _indefinite_subsets(K: np.ndarray, r: int, steps: list) -> np.ndarray:
    """The r-subsets R with K_RR not (numerically) positive definite, K symmetric with a
    positive diagonal (a unit one where r ≤ 3); rows of positions into K.

    r ≤ 3: pairs and triples by their principal minors (:func:`_indefinite_triples`). Only
    :func:`completions_above` asks for them, with K already scaled; the chain below asks
    for r ≥ 4 only, as its r = 4 level is :func:`_chain_of_triples`.

    r ≥ 4: a chain over the variables u_1, u_2, …. The subsets that keep u_t and none of
    u_1 … u_{t−1} are those of the Schur complement S = K_WW − K_Wu K_uWᵀ / K_uu on the
    variables after it, W, with r − 1 to choose (inertia again: K_{u∪R'} is positive
    definite iff K_uu > 0 and S_R'R' is). The chain stops as soon as the variables left
    give a positive definite block: by Cauchy interlacing none of their subsets is then
    indefinite. The variables that Cholesky factorization with diagonal pivoting
    (LAPACK ``dpstrf``) leaves out of the positive definite block it builds lead the chain,
    so that it stops early: on the benchmark's noise-only general pair (n = 60, k = 10)
    this halves the time against ordering by the eigenvector of λ_min(K). One Cholesky
    factorization of the reversed order tells the chain's length (the leading blocks of a
    factorization are the factorizations of the leading blocks).

    ``steps`` (a one-item list) counts down the chain steps; :class:`_Undecided` when it
    runs out, or when a pair {u, j} is already indefinite (every subset that keeps it is:
    too many to list).
    """
    m = K.shape[0]
    if r <= 3:
        iu, ju = _pair_layout(m)
        v = K[iu, ju]
        if r == 2:
            return np.stack([iu, ju], axis=1)[(np.abs(v) >= 1.0).nonzero()[0]]
        return _indefinite_triples(K, iu, ju, v)
    if m < r:
        return np.empty((0, r), dtype=np.intp)
    _, piv, rank, _ = _pstrf(K.copy(), tol=0.0, lower=1, overwrite_a=1)
    if rank == m:
        return np.empty((0, r), dtype=np.intp)
    piv -= 1
    order = np.concatenate([piv[rank:], piv[:rank]])
    P = submatrix(K, order)
    info = _potrf(P[::-1, ::-1].copy(), lower=1, clean=0, overwrite_a=1)[1]
    if info == 0:
        return np.empty((0, r), dtype=np.intp)
    # steps t = 0 … length − 1: the block after t is positive definite once m − t < info
    length = min(m - r, m - info) + 1
    steps[0] -= length
    if steps[0] < 0:
        raise _Undecided
    if r == 4:
        return order[_chain_of_triples(P, length)]
    parts = []
    for t in range(length):
        p = P[t + 1 :, t]
        S = P[t + 1 :, t + 1 :] - np.outer(p, p / P[t, t])
        if not np.minimum.reduce(S.diagonal()) > 0.0:
            raise _Undecided
        sub = _indefinite_subsets(S, r - 1, steps)
        if sub.shape[0]:
            parts.append(np.concatenate([np.full((sub.shape[0], 1), t), sub + (t + 1)], axis=1))
    rows = np.concatenate(parts) if parts else np.empty((0, r), dtype=np.intp)
    return order[rows]


def _indefinite_triples(X: np.ndarray, iu: np.ndarray, ju: np.ndarray,
                        v: np.ndarray) -> np.ndarray:
    """The triples {a, b, c} with X_RR not positive definite, X unit-diagonal with pairs
    (iu, ju) and their entries v; lexicographic rows a < b < c.

    With x, y, z off the diagonal: indefinite when one of them has |·| ≥ 1 or
    det = 1 − x² − y² − z² + 2xyz ≤ 0 (the principal minors). If all three are below ½ in
    size, X_RR is diagonally dominant (x² + y² + z² + 2|xyz| < 1), so every indefinite
    triple keeps a *strong* pair, |x| ≥ ½: only the triples through the strong pairs are
    tested (:func:`_third_variables`), p × m numbers for p strong pairs instead of
    m(m − 1)(m − 2)/6.
    """
    strong = (np.abs(v) >= 0.5).nonzero()[0]
    if not strong.size:
        return np.empty((0, 3), dtype=np.intp)
    a, b = iu[strong], ju[strong]
    pair, c = _third_variables(X[a], X[b], v[strong], a, b)
    if not pair.size:
        return np.empty((0, 3), dtype=np.intp)
    triples = np.sort(np.stack([a[pair], b[pair], c], axis=1), axis=1)
    return np.unique(triples, axis=0)


def _chain_of_triples(P: np.ndarray, length: int) -> np.ndarray:
    """The r = 4 chain of :func:`_indefinite_subsets` in one pass: for every step
    t < length the indefinite triples of the Schur complement of P_tt on the positions
    after t, all steps' Schur complements and strong pairs stacked together (one
    L × m × m array instead of L calls). Rows (t, a, b, c), t < a < b < c."""
    m = P.shape[0]
    t = np.arange(length)
    col = P[:, :length].T  # p_t as whole columns; the positions up to t are not read
    S = P[None, :, :] - col[:, :, None] * (col / P.diagonal()[:length, None])[:, None, :]
    d = S.reshape(length, m * m)[:, :: m + 1]
    after = np.arange(m)[None, :] > t[:, None]
    if not np.minimum.reduce(d[after], initial=np.inf) > 0.0:
        raise _Undecided
    d = 1.0 / np.sqrt(np.where(after, d, 1.0))
    S *= d[:, :, None]
    S *= d[:, None, :]
    strong = np.abs(S) >= 0.5
    strong &= _later_pairs(m)[:length]
    ts, a, b = strong.nonzero()
    if not ts.size:
        return np.empty((0, 4), dtype=np.intp)
    pair, c = _third_variables(S[ts, a], S[ts, b], S[ts, a, b], a, b)
    keep = c > ts[pair]
    pair, c = pair[keep], c[keep]
    if not pair.size:
        return np.empty((0, 4), dtype=np.intp)
    abc = np.sort(np.stack([a[pair], b[pair], c], axis=1), axis=1)
    return np.unique(np.concatenate([ts[pair, None], abc], axis=1), axis=0)


@functools.lru_cache(maxsize=64)
def _later_pairs(m: int) -> np.ndarray:
    """mask[t, a, b] = t < a < b, for t < m (read-only, cached)."""
    i = np.arange(m)
    mask = (i[:, None, None] < i[None, :, None]) & (i[None, :, None] < i[None, None, :])
    mask.setflags(write=False)
    return mask


def _third_variables(y: np.ndarray, z: np.ndarray, x: np.ndarray, a: np.ndarray,
                     b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For strong pairs {a, b} (entries x, |x| ≥ ½) and every third variable c ∉ {a, b}
    (rows y = X_a·, z = X_b·), the (pair, c) whose triple is not positive definite:
    1 − x² − y² − z² + 2xyz ≤ 0, or |x| ≥ 1 (then every c). A triple with |y| ≥ 1 is found
    through its pair {a, c}, itself strong."""
    x = x[:, None]
    det = z * (2.0 * x * y - z) - y * y + (1.0 - x * x)
    hit = (det <= 0.0) | (np.abs(x) >= 1.0)
    rows = np.arange(a.size)
    hit[rows, a] = hit[rows, b] = False
    return hit.nonzero()
