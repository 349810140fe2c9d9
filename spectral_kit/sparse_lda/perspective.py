"""The perspective bound of a rank-one node: a convex relaxation of the r variables it keeps.

At a node F ⊆ S ⊆ T of ESLDA with A = d dᵀ, every S is F ∪ K for r of the free variables K.
With P = B_T⁻¹ and x = P d_T restricted to the free variables (``P_free``, ``x_free``),
Q = P_free⁻¹ is the Schur complement of B_F in B_T (the within-class covariance of the free
variables given F) and d̃ = Q x their residual mean difference, so that::

    f(F ∪ K) = f(F) + d̃_Kᵀ Q_KK⁻¹ d̃_K,      f(F) = f(T) − xᵀ Q x.

The gain d̃_Kᵀ Q_KK⁻¹ d̃_K is best-subset regression in disguise, and the bound here is the
perspective relaxation of it (Frangioni & Gentile 2006; Dong, Chen & Linderoth 2015), split
into per-variable terms ψ_i so that the search uses it exactly as the kept-side Schur terms
(:func:`.bounds.schur_kept_terms`): every S of the node has

    f(S) ≤ f(T) − base + Σ_{i∈K} ψ_i ≤ f(T) − base + top_r(ψ),

and the subsets that keep given free variables or leave one out are bounded by the same
sum over K. It needs a diagonal 0 ≺ D ⪯ Q, and it is strong where D is a large part of
diag(Q): given F, the free variables of a smooth process are nearly independent, so D is
a tenth of diag(Q) deep in the tree where it is a few thousandths of diag(B) at the root.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from .bounds import top_sums

__all__ = ["capped_simplex", "perspective_terms", "split_terms"]

_potrf = scipy.linalg.lapack.dpotrf
_potri = scipy.linalg.lapack.dpotri
_potrs = scipy.linalg.lapack.dpotrs
_syevr = scipy.linalg.lapack.dsyevr

_TINY = np.finfo(float).tiny
_EPS = np.finfo(float).eps
#: Smallest weight z_i of the relaxation (z_i → 0 removes variable i).
_Z_MIN = 1e-12
#: Smallest relative margin of D below the boundary of D ⪯ Q: keeps Q − D positive
#: semidefinite through the rounding of the top eigenvalue.
_SAFETY = 1e-6


def capped_simplex(a: np.ndarray, r: int) -> np.ndarray:
    """The z ∈ (0, 1]^m with Σz = r minimizing Σ a_i / z_i (a ≥ 0, 1 ≤ r ≤ m).

    Lagrange conditions give z_i = min(1, √a_i / ν) for the ν that makes Σz = r ("water
    filling"): if the c largest √a_i are capped at 1, ν = (sum of the others) / (r − c), and
    the right c is the first at which the next √a_i ≤ ν. With fewer than r positive a_i,
    those get 1 and the zeros share the rest. Every z_i is at least 1e-12 (z_i = 0 would
    remove variable i from the solves).
    """
    m = a.size
    root = np.sqrt(np.maximum(a, 0.0))
    total = float(np.add.reduce(root))
    if total <= 0.0:
        return np.full(m, r / m)
    if r * float(np.maximum.reduce(root)) <= total:  # nothing capped (the usual case): ν = Σ√a / r
        z = root * (r / total)
        np.maximum(z, _Z_MIN, out=z)
        return z
    srt = np.sort(root)[::-1]
    csum = np.cumsum(srt)
    # the same order of summation as the tails below: with at most r positive entries, a
    # tail of zeros is then exactly 0
    total = float(csum[-1])
    tail = total - csum[: r - 1]  # sums of all but the c largest, c = 1 … r − 1
    nu = np.empty(r)
    nu[0] = total / r
    nu[1:] = tail / np.arange(r - 1, 0, -1)
    fits = srt[:r] <= nu
    c = int(fits.argmax())
    if fits[c] and nu[c] > 0.0:
        z = root * (1.0 / nu[c])
    else:  # at most r entries are positive: each is capped, the zeros share the rest
        top = root > 0.0
        z = np.where(top, 1.0, (r - top.sum()) / max(m - top.sum(), 1))
    np.minimum(z, 1.0, out=z)
    np.maximum(z, _Z_MIN, out=z)
    return z


def _split(P_free: np.ndarray, log_s: np.ndarray,
           safety: float) -> tuple[np.ndarray, np.ndarray] | None:
    """D = s / λ_max(S^{1/2} P S^{1/2}) (less a margin) for s = exp(log_s): the largest
    multiple of s with D ⪯ Q = P⁻¹; and the top eigenvector (for the step on log s). None
    if LAPACK's eigensolver does not converge."""
    m = log_s.size
    s = np.exp(log_s)
    root = np.sqrt(s)
    N = P_free * np.multiply.outer(root, root)
    w, V, _, _, info = _syevr(N, compute_v=1, range="I", il=m, iu=m)
    if info:
        return None
    lam = float(w[0])
    return s / (lam * (1.0 + safety) + _TINY), V[:, 0]


def split_terms(Q: np.ndarray, d_res: np.ndarray, D: np.ndarray,
                y: np.ndarray) -> tuple[float, np.ndarray]:
    """c₀ = yᵀ(Q − D)y and ψ_i = D_i a_i² with a = y + D⁻¹(d̃ − Q y): for every y and every
    diagonal 0 ≺ D ⪯ Q, each K has d̃_Kᵀ Q_KK⁻¹ d̃_K ≤ c₀ + Σ_{i∈K} ψ_i (proof in
    :func:`perspective_terms`; ``d_res`` is d̃ = Q x)."""
    Qy = Q @ y
    a = y + (d_res - Qy) / D
    return float(y @ Qy) - float(D @ (y * y)), D * a * a


def perspective_terms(P_free: np.ndarray, x_free: np.ndarray, r: int, *,
                      rounds: int = 5, iters: int = 6, inner: int = 3,
                      stop: float = -np.inf, give_up: float = np.inf,
                      ) -> tuple[float, np.ndarray] | None:
    """Rank one: ``base`` and per-variable terms ψ with f(S) ≤ f(T) − base + Σ_{i∈K} ψ_i for
    every S = F ∪ K of the node (|K| = r), from the perspective relaxation of the gain.

    Parameters
    ----------
    P_free, x_free : ndarray
        P = B_T⁻¹ and x = P d_T on the free variables (m × m and m).
    r : int
        Free variables each subset keeps, 1 ≤ r ≤ m.
    rounds, iters, inner : int
        Steps on the split D (``rounds``), and solves in the first (``iters``) and later
        (``inner``) rounds: they choose y and D, on which only the tightness depends.
    stop : float
        Return as soon as top_r(ψ) − base ≤ ``stop`` (the search passes what prunes the
        node).
    give_up : float
        No further rounds when, after the first, top_r(ψ) − base exceeds ``stop`` by more
        than this.

    Returns
    -------
    (base, psi), or None when P_free is not numerically positive definite or too
    ill-conditioned for D ⪯ Q to be certain.

    Notes
    -----
    For every y ∈ ℝ^m and every diagonal D with 0 ≺ D ⪯ Q, let a = y + D⁻¹Q(x − y),
    c₀ = yᵀ(Q − D)y and ψ_i = D_i a_i² (:func:`split_terms`). Then every K has

        d̃_Kᵀ Q_KK⁻¹ d̃_K ≤ c₀ + Σ_{i∈K} ψ_i,

    so ``base = xᵀQx − c₀`` (with f(F) = f(T) − xᵀQx).

    Proof. The gain is max over w supported on K of 2wᵀd̃ − wᵀQw. For such w,
    wᵀQw = wᵀ(Q − D)w + Σ_{i∈K} D_i w_i². Convexity of the first term (Q − D ⪰ 0) gives
    wᵀ(Q − D)w ≥ 2yᵀ(Q − D)w − c₀, and for each i ∈ K, w_i² ≥ 2a_i w_i − a_i². Hence
    2wᵀd̃ − wᵀQw ≤ 2wᵀ(d̃ − (Q − D)y − D a) + c₀ + Σ_{i∈K} D_i a_i², and the bracket is zero
    because D a = D y + Q(x − y) = d̃ − (Q − D)y (d̃ = Q x). ∎

    Any y and D are valid; this routine picks them to make ``c₀ + top_r(ψ)`` small. For D on
    the boundary of D ⪯ Q along a scaling s, and weights z ∈ (0, 1]^m with Σz = r, the y
    solving (Q − D + D/z) y = d̃ makes the bound the tangent plane at z of the concave
    perspective relaxation g(z) = max_y 2yᵀd̃ − yᵀ(Q − D)y − Σ_i D_i y_i²/z_i of the gain
    (then a = y / z). The routine alternates y and the z that maximizes g's last term
    (:func:`capped_simplex`), starting from the variance scaling s_i = 1 / P_ii, and moves
    log s along the gradient of the relaxation's value, y_i²(1 − 1/z_i) D_i, projected on
    the boundary through the top eigenvector of S^{1/2} P S^{1/2}.
    """
    m = x_free.size
    c, info = _potrf(P_free, lower=1, clean=1)
    if info:
        return None
    Q, info = _potri(c, lower=1, overwrite_c=1)
    if info:
        return None
    Q += Q.T  # dpotri fills the lower triangle; the upper one is clean (zeros)
    Q.flat[:: m + 1] *= 0.5
    # D ⪯ Q is established on P_free and used with its computed inverse: the margin on D
    # must cover that inverse's relative error (≈ m·eps·cond)
    safety = max(_SAFETY, 1e3 * m * _EPS * float(np.sqrt(np.vdot(P_free, P_free)
                                                           * np.vdot(Q, Q))))
    if safety > 0.1:
        return None
    d_res = Q @ x_free
    gain = float(x_free @ d_res)
    log_s = -np.log(P_free.diagonal())
    best: tuple[float, float, np.ndarray] | None = None
    y = x_free
    # one Fortran-ordered buffer for the weighted matrix, factorized in place: LAPACK then
    # neither copies it nor cleans its upper triangle (Q is symmetric, dpotrs reads the lower)
    M = np.empty((m, m), order="F")
    M_diag = M.T.reshape(-1)[:: m + 1]
    Q_diag = Q.diagonal().copy()
    for rnd in range(rounds + 1):
        split = _split(P_free, log_s, safety)
        if split is None:
            break
        D, v = split
        z = capped_simplex(D * y * y, r)
        round_best: tuple[float, np.ndarray, np.ndarray] | None = None
        steps = iters if rnd == 0 else inner
        for step in range(steps):
            np.copyto(M, Q)
            np.add(Q_diag, D * (1.0 / z - 1.0), out=M_diag)
            L, info = _potrf(M, lower=1, clean=0, overwrite_a=1)
            if info:
                break
            y_new, info = _potrs(L, d_res, lower=1)
            if info:
                break
            c0, psi = split_terms(Q, d_res, D, y_new)
            total = c0 + float(top_sums(psi, r))
            if best is None or total < best[0]:
                best = (total, c0, psi)
                if total - gain <= stop:
                    return gain - c0, psi
            if round_best is None or total < round_best[0]:
                round_best = (total, y_new, z)
            y = y_new
            if step < steps - 1:  # after a round's last step, z restarts from its best
                z = capped_simplex(D * y * y, r)
        if round_best is None or rnd == rounds or best[0] - gain - stop > give_up:
            break
        _, y, z = round_best
        G = y * y * (1.0 - 1.0 / z) * D
        step = G - v * v * G.sum()
        scale = float(np.abs(step).max())
        if scale <= 0:
            break
        log_s = log_s - 0.5 * step / scale
    if best is None:
        return None
    _, c0, psi = best
    return gain - c0, psi
