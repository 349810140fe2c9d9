"""The ℓ₁ (DSPCA) relaxation of sparse LDA/PCA as a certified upper bound.

One job: :func:`l1_relaxation_bound` -- an upper bound on max λ_max(A_S, B_S) over every
k-subset S, from the dual of d'Aspremont, El Ghaoui, Jordan & Lanckriet's semidefinite
relaxation of sparse PCA (SIAM Review 2007), extended to B ≠ I. Any dual point gives a valid
bound, so the solver can stop at any step (a deadline, a target) and still return one; the
exact search (:mod:`.search`) uses it at the root of searches that do not finish quickly and
re-evaluates the root's dual point on the nodes' variable sets.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import check_finite_scalar, check_int
from .pair import check_k, check_pair

__all__ = ["RelaxationBound", "l1_relaxation_bound", "relaxation_bound", "relaxation_supports",
           "relaxation_value"]

_EPS = np.finfo(float).eps
#: Smoothing widths μ (× max|A|) of the phases of :func:`l1_relaxation_bound`: wide for the
#: short runs that rank the levels c, then narrowing on the chosen level.
_MU = (0.05, 0.02, 0.01)
#: Levels tried, as fractions of the best soft-threshold level.
_LEVELS = (1.0, 0.8, 0.65, 0.5)
#: Steps of each short run that ranks the levels: 40 ranked them as runs of 300 did.
_RANKING_STEPS = 50
#: The pattern search on the level: its share of what is left, steps per trial, first
#: factor, and the factor at which it stops.
_REFINE_SHARE = 0.5
_REFINE_STEPS = 150
_REFINE_FACTOR = 0.85
_REFINE_LAST = 0.97


@dataclass(frozen=True)
class RelaxationBound:
    """A dual point of the ℓ₁ relaxation and the bound it certifies.

    Attributes
    ----------
    value : float
        The certified bound: ≥ λ_max(A_S, B_S) for every S of at most k variables
        (rounding included).
    Y : ndarray, shape (n, n)
        The dual matrix: symmetric, zero diagonal, entries at most c in absolute value.
    c : float
        The level of the box on Y.
    steps : int
        First-order steps taken.
    seconds : float
        Time spent.
    state : dict or None
        With B = I, ADMM's primal iterate ``"Z"`` and step size ``"rho"``, which warm-start
        the same relaxation on a node's variables; ``None`` otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]])
    >>> bound = sl.relaxation_bound(A, np.eye(3), 2, max_steps=50)
    >>> bool(3.0 - 1e-9 <= bound.value <= np.linalg.eigvalsh(A)[-1] + 1e-9)
    True
    """

    value: float
    Y: np.ndarray
    c: float
    steps: int
    seconds: float
    state: dict | None = field(default=None, compare=False, repr=False)


def _whitener(B: np.ndarray | None) -> np.ndarray | None:
    """L⁻¹ for B = L Lᵀ (``None`` for B = I): λ_max(M, B) = λ_max(L⁻¹ M L⁻ᵀ)."""
    if B is None:
        return None
    L = scipy.linalg.cholesky(B, lower=True, check_finite=False)
    return scipy.linalg.solve_triangular(L, np.eye(B.shape[0]), lower=True,
                                         check_finite=False)


def _shifted(A: np.ndarray, Y: np.ndarray, c: float, k: int,
             W: np.ndarray | None) -> np.ndarray:
    """The matrix whose top eigenvalue is the bound: A − Y + c (k − 1) I, whitened by W."""
    M = A - Y
    M.flat[:: M.shape[0] + 1] += c * (k - 1)
    return M if W is None else W @ M @ W.T


def _slack(M: np.ndarray) -> float:
    """Rounding of a computed top eigenvalue (backward error of the symmetric eigensolver,
    ≤ a small multiple of m · eps · ‖M‖₂, with ‖M‖₂ ≤ m · max|M_ij|)."""
    m = M.shape[0]
    return 16.0 * m * m * _EPS * float(np.abs(M).max()) if m else 0.0


def relaxation_value(A: np.ndarray, Y: np.ndarray, c: float, k: int,
                     B: np.ndarray | None = None, *, W: np.ndarray | None = None) -> float:
    """The bound certified by one dual point: λ_max(A − Y + c (k − 1) I, B) plus rounding.

    Valid for any symmetric Y with a zero diagonal and |Y_ij| ≤ c (the proof is in
    :func:`l1_relaxation_bound`), and for any principal submatrix: evaluated on A_T, Y_T
    (and B_T) it bounds the k-subsets of T. ``W`` is a precomputed whitener L⁻¹ of B.
    """
    if W is None and B is not None:
        W = _whitener(B)
    M = _shifted(A, Y, c, k, W)
    m = M.shape[0]
    top = float(scipy.linalg.eigh(M, eigvals_only=True, subset_by_index=[m - 1, m - 1],
                                  check_finite=False)[0])
    return top + _slack(M)


def _smoothed_run(A: np.ndarray, k: int, c: float, W: np.ndarray | None, Y: np.ndarray,
                  steps: int, mu: float, deadline: float | None,
                  state: dict | None = None) -> tuple[float, np.ndarray, int]:
    """Nesterov's accelerated projected gradient on the smoothed dual at level c:
    min over the box |Y_ij| ≤ c (zero diagonal) of μ log Σ exp(λ_i(M(Y)) / μ), whose gradient
    −W ᵀV diag(softmax(λ/μ)) VᵀW is 1/μ-Lipschitz (d'Aspremont et al., Sec. 4). Each
    matrix Wᵀ V diag(softmax(λ/μ)) Vᵀ W is positive semidefinite with Tr(BG) = 1, and
    their mean over the second half of the run, returned in ``state`` under "X" (as
    :func:`_admm_run` returns its primal iterate), approaches the penalized relaxation's
    primal solution. Returns the best exact bound seen, its Y and the steps taken."""
    m = A.shape[0]
    diag = np.arange(m)
    Y = np.clip(Y, -c, c)
    Y[diag, diag] = 0.0
    best, best_Y = np.inf, Y
    Z, t, taken = Y.copy(), 1.0, 0
    total, count = (None, 0) if state is None else (np.zeros_like(A), 0)
    # with W the gradient's Lipschitz constant grows by ‖W‖₂²
    step = mu if W is None else mu / float(np.linalg.norm(W, 2)) ** 2
    for taken in range(1, steps + 1):
        # all pairs: near the top the noise's eigenvalues crowd within a few μ, and partial
        # solvers asked for enough of them were slower than the full one
        w, V = np.linalg.eigh(_shifted(A, Z, c, k, W))
        weights = np.exp((w - w[-1]) / mu)
        weights /= weights.sum()
        G = (V * weights) @ V.T
        if W is not None:
            G = W.T @ G @ W
        if total is not None and taken > steps // 2:
            total += G
            count += 1
        # ∂/∂Y of the smoothed λ_max(A − Y + …) is −G: a gradient step adds step · G
        Y_next = np.clip(Z + step * G, -c, c)
        Y_next[diag, diag] = 0.0
        t_next = 0.5 * (1.0 + np.sqrt(1.0 + 4.0 * t * t))
        Z = Y_next + ((t - 1.0) / t_next) * (Y_next - Y)
        Y, t = Y_next, t_next
        if taken % 5 == 0 or taken == steps:
            value = relaxation_value(A, Y, c, k, W=W)
            if value < best:
                best, best_Y = value, Y.copy()
        if deadline is not None and time.perf_counter() > deadline:
            break
    if best_Y is not Y or not np.isfinite(best):
        value = relaxation_value(A, Y, c, k, W=W)
        if value < best:
            best, best_Y = value, Y
    if count:
        state["X"] = total / count
    return best, best_Y, taken


def _simplex(v: np.ndarray) -> np.ndarray:
    """Euclidean projection of v onto the probability simplex (sort-based)."""
    u = np.sort(v)[::-1]
    excess = np.cumsum(u) - 1.0
    r = int(np.flatnonzero(u * np.arange(1, v.size + 1) > excess)[-1])
    return np.maximum(v - excess[r] / (r + 1), 0.0)


def _admm_run(A: np.ndarray, k: int, c: float, Y: np.ndarray, steps: int,
              deadline: float | None, state: dict | None = None
              ) -> tuple[float, np.ndarray, int]:
    """ADMM on the penalized primal at level c (B = I): min −Tr(AX) + c Σ_{i≠j} |Z_ij| over
    X in the spectraplex {X ⪰ 0, Tr X = 1}, with X = Z. Its multiplier Λ of X = Z, once
    clipped to the box and its diagonal zeroed, is a dual point Y of the bound (the
    Lagrangian's minimum over Z is finite exactly on that box, and over X it is
    −λ_max(A − Λ)); started from the dual point Y. Each step is one symmetric
    eigendecomposition, as a smoothed step is, but the iterates reach the level's optimum
    in a few hundred steps where the smoothed gradient takes thousands (weak spiked
    covariances, p = 300 and 500). The step size ρ follows the residuals (Boyd et al. 2011,
    Sec. 3.4.1). ``state`` carries Z and ρ from one run to the next (the pattern search on
    the level moves c a little: the primal iterate stays near its optimum), and returns
    the last primal iterate X (in the spectraplex) under "X". Returns the
    best exact bound seen, its Y and the steps taken."""
    m = A.shape[0]
    off = ~np.eye(m, dtype=bool)
    state = {} if state is None else state
    rho = state.get("rho", max(float(np.abs(A).max()), _EPS))
    U = np.clip(Y, -c, c) * off / rho
    Z = state.get("Z", np.zeros_like(A))
    best, best_Y, taken = np.inf, np.clip(Y, -c, c) * off, 0
    X = Z
    for taken in range(1, steps + 1):
        w, V = np.linalg.eigh(Z - U + A / rho)
        lam = _simplex(w)
        keep = lam > 0
        X = (V[:, keep] * lam[keep]) @ V[:, keep].T
        previous = Z
        T = X + U
        # soft threshold off the diagonal (the diagonal is not penalized)
        Z = np.where(off, np.sign(T) * np.maximum(np.abs(T) - c / rho, 0.0), T)
        U += X - Z
        if taken % 10 == 0 or taken == steps:
            Y_now = np.clip(rho * U, -c, c) * off
            value = relaxation_value(A, Y_now, c, k)
            if value < best:
                best, best_Y = value, Y_now
            primal = float(np.linalg.norm(X - Z))
            dual = rho * float(np.linalg.norm(Z - previous))
            if primal > 10.0 * dual:
                rho, U = 2.0 * rho, U / 2.0
            elif dual > 10.0 * primal:
                rho, U = rho / 2.0, U * 2.0
        if deadline is not None and time.perf_counter() > deadline:
            break
    state["rho"], state["Z"] = rho, Z
    if taken:
        state["X"] = X
    if not np.isfinite(best):
        best = relaxation_value(A, best_Y, c, k)
    return best, best_Y, taken


def l1_relaxation_bound(
    A: np.ndarray,
    k: int,
    B: np.ndarray | None = None,
    *,
    max_steps: int = 400,
    max_seconds: float | None = None,
    target: float | None = None,
    c: float | None = None,
    Y0: np.ndarray | None = None,
    smoothing: float | None = None,
    give_up: float | None = None,
    refine: bool = False,
) -> RelaxationBound:
    """Upper bound on max_{|S| ≤ k} λ_max(A_S, B_S) from the ℓ₁ relaxation (DSPCA's dual).

    For any symmetric Y with a zero diagonal and |Y_ij| ≤ c,

        max_{|S| ≤ k} λ_max(A_S, B_S) ≤ λ_max(A − Y + c (k − 1) I, B).

    Proof. Let x ≠ 0 have at most k non-zero entries. Then xᵀA x = xᵀ(A − Y)x + xᵀY x, and
    since Y has a zero diagonal and |Y_ij| ≤ c,
    xᵀY x ≤ c Σ_{i≠j} |x_i||x_j| = c (‖x‖₁² − ‖x‖₂²) ≤ c (k − 1) ‖x‖₂²,
    by Cauchy–Schwarz on the k non-zero entries (‖x‖₁² ≤ k ‖x‖₂²). So
    xᵀA x ≤ xᵀ M x with M = A − Y + c (k − 1) I, and xᵀ M x ≤ λ_max(M, B) · xᵀB x for
    B ≻ 0 (Rayleigh quotient of the pencil). Dividing by xᵀB x and maximising over x
    supported on S gives λ_max(A_S, B_S) ≤ λ_max(M, B) for every |S| ≤ k. ∎

    With B = I and the minimum over (Y, c) this is the dual of d'Aspremont et al.'s
    semidefinite relaxation max Tr(AX) s.t. Tr X = 1, 1ᵀ|X|1 ≤ k, X ⪰ 0 (the zero diagonal
    of Y turns k into k − 1); with B ≠ I it is the same relaxation of x ↦ xᵀAx / xᵀBx.
    The bound may be far above the optimum when B is ill-conditioned (the c (k − 1) I term
    is measured against B's smallest eigenvalues). Every principal submatrix of a dual point
    is a dual point of the submatrix (:func:`relaxation_value`), whose bound is no larger by
    interlacing.

    The minimum over Y at a fixed c is approached, for B = I, by ADMM on the primal
    (:func:`_admm_run`: the multiplier, clipped to the box, is Y), and for B ≠ I by an
    accelerated projected gradient on a smoothed λ_max (Nesterov's smoothing, as in
    d'Aspremont et al., Sec. 4); c by short runs at a few levels around the best
    soft-threshold level, then a pattern search (the minimum over Y is convex in c). Every
    dual point visited is valid: the solver can stop at any step and returns the best bound
    it has evaluated.

    Parameters
    ----------
    A : ndarray, shape (n, n)
        Symmetric.
    k : int
        Cardinality, 1 ≤ k ≤ n.
    B : ndarray, shape (n, n), optional
        Symmetric positive definite; ``None`` for B = I.
    max_steps : int
        Gradient steps in all (each one symmetric eigendecomposition of size n).
    max_seconds : float, optional
        Stop after about this long (the best bound so far is returned).
    target : float, optional
        Stop as soon as the bound is at most ``target``.
    c, Y0 : optional
        A starting level and dual matrix (a warm start); with ``c`` given, c is not searched
        unless ``refine``.
    give_up : float, optional
        Return after the levels are ranked if the bound is not below it by then (a search
        whose own bounds are already tighter).
    smoothing : float, optional
        With ``c`` and B ≠ I: the smoothing width μ as a fraction of max|A| (default 0.01);
        narrower widths converge more slowly, to a lower bound.
    refine : bool
        With ``c``: search the level again from ``c`` (the pattern search below), rather
        than keep it.

    Returns
    -------
    RelaxationBound

    Examples
    --------
    >>> import numpy as np
    >>> from itertools import combinations
    >>> from spectral_kit.sparse_lda.relaxation import l1_relaxation_bound
    >>> rng = np.random.default_rng(0)
    >>> A = np.cov(rng.standard_normal((40, 12)), rowvar=False)
    >>> best = max(np.linalg.eigvalsh(A[np.ix_(S, S)])[-1] for S in combinations(range(12), 3))
    >>> bound = l1_relaxation_bound(A, 3, max_steps=100)
    >>> bool(best <= bound.value <= np.linalg.eigvalsh(A)[-1])
    True
    """
    start = time.perf_counter()
    deadline = None if max_seconds is None else start + max_seconds
    A = np.asarray(A, dtype=float)
    n = A.shape[0]
    if not 1 <= k <= n:
        raise ValueError(f"k={k} is out of range: it must be between 1 and n={n}.")
    W = _whitener(None if B is None else np.asarray(B, dtype=float))
    offdiag = ~np.eye(n, dtype=bool)
    off = np.abs(A[offdiag])
    if k == 1 or off.size == 0:
        # c (k − 1) = 0: Y takes all of A off the diagonal, M = diag(A)
        Y = A.copy()
        np.fill_diagonal(Y, 0.0)
        level = float(off.max()) if off.size else 0.0
        return RelaxationBound(relaxation_value(A, Y, level, k, W=W), Y, level, 0,
                               time.perf_counter() - start)
    scale = max(float(np.abs(A).max()), _EPS)
    if W is not None:
        scale *= float(np.linalg.norm(W, 2)) ** 2
    taken_all = 0
    admm_state: dict = {}

    def run(level: float, Y: np.ndarray, steps: int, mu: float,
            until: float | None = deadline) -> RelaxationBound:
        nonlocal taken_all
        if W is None:
            value, Y, taken = _admm_run(A, k, level, Y, steps, until, admm_state)
        else:
            value, Y, taken = _smoothed_run(A, k, level, W, Y, steps, mu * scale, until)
        taken_all += taken
        return RelaxationBound(value, Y, level, taken_all, 0.0)

    def done(bound: RelaxationBound) -> bool:
        return (taken_all >= max_steps or (target is not None and bound.value <= target)
                or (deadline is not None and time.perf_counter() > deadline))

    def rank_levels() -> RelaxationBound:
        # The level: the best soft-threshold level c₀ (Y = A clipped, no step), then short
        # runs at a few fractions of it (with a wide smoothing), which rank the levels
        # (smaller levels than c₀ win on spiked covariances, c₀ itself on Sonar's
        # correlations).
        levels = np.quantile(off, np.linspace(0.3, 0.995, 12))
        soft = [relaxation_value(A, np.clip(A, -t, t) * offdiag, t, k, W=W) for t in levels]
        c0 = float(levels[int(np.argmin(soft))])
        best = RelaxationBound(float(min(soft)), np.clip(A, -c0, c0) * offdiag, c0, 0, 0.0)
        # Y = 0, c = 0: the inclusion bound λ_max(A, B) (Thm. 1), never to be beaten by less
        trivial = relaxation_value(A, np.zeros_like(A), 0.0, k, W=W)
        if trivial < best.value:
            best = RelaxationBound(trivial, np.zeros_like(A), 0.0, 0, 0.0)
        short = max(5, min(_RANKING_STEPS, max_steps // 8))
        for fraction in _LEVELS:
            if done(best):
                break
            level = fraction * c0
            trial = run(level, np.clip(A, -level, level), min(short, max_steps - taken_all),
                        _MU[0])
            if trial.value < best.value:
                best = trial
        return best

    if c is not None and not refine:
        Y = np.zeros_like(A) if Y0 is None else np.array(Y0, dtype=float)
        best = run(float(c), Y, max_steps, _MU[-1] if smoothing is None else smoothing)
        return RelaxationBound(best.value, best.Y, best.c, taken_all,
                               time.perf_counter() - start)
    if c is not None:
        Y = np.zeros_like(A) if Y0 is None else np.array(Y0, dtype=float)
        best = run(float(c), Y, min(_REFINE_STEPS, max_steps), _MU[1])
    else:
        best = rank_levels()
        if best.c == 0.0 or (give_up is not None and best.value >= give_up):
            # the inclusion bound won, or the caller has a better bound already
            return RelaxationBound(best.value, best.Y, best.c, taken_all,
                                   time.perf_counter() - start)

    # The level again, by a pattern search on c with medium runs (the minimum over Y is
    # convex in c): a share of the steps and of the time.
    refine_steps = int(_REFINE_SHARE * (max_steps - taken_all))
    refine_until = None if deadline is None else (
        time.perf_counter() + _REFINE_SHARE * (deadline - time.perf_counter()))
    factor = _REFINE_FACTOR
    spent = taken_all
    while not done(best) and taken_all - spent < refine_steps and (
            refine_until is None or time.perf_counter() < refine_until):
        moved = False
        for level in (best.c * factor, best.c / factor):
            steps = min(_REFINE_STEPS, max_steps - taken_all)
            trial = run(level, best.Y * (level / best.c), steps, _MU[1], refine_until)
            if trial.value < best.value:
                best, moved = trial, True
                break
        if not moved:
            factor = np.sqrt(factor)
            if factor > _REFINE_LAST:
                break
    # then the chosen level with a narrowing smoothing, to the end of the budget
    for phase, mu in enumerate(_MU[1:]):
        if done(best):
            break
        left = len(_MU) - 1 - phase
        until = None if deadline is None else (
            time.perf_counter() + (deadline - time.perf_counter()) / left)
        trial = run(best.c, best.Y, max(1, (max_steps - taken_all) // left), mu, until)
        if trial.value < best.value:
            best = trial
    return RelaxationBound(best.value, best.Y, best.c, taken_all, time.perf_counter() - start,
                           dict(admm_state) if admm_state else None)


def relaxation_supports(A: np.ndarray, bound: RelaxationBound, k: int,
                        B: np.ndarray | None = None, count: int = 3) -> list[np.ndarray]:
    """Candidate k-subsets read off a dual point: the k largest entries (in absolute value)
    of each of the ``count`` top eigenvectors of A − Y + c (k − 1) I (against B). Near the
    relaxation's optimum these vectors carry its primal solution; one-swap polishing of
    such a subset beat the greedy start on weak spiked covariances."""
    W = _whitener(B)
    M = _shifted(A, bound.Y, bound.c, k, W)
    n = M.shape[0]
    count = min(count, n)
    _, V = scipy.linalg.eigh(M, subset_by_index=[n - count, n - 1], check_finite=False)
    if W is not None:
        V = W.T @ V
    return [np.sort(np.argsort(-np.abs(V[:, -j]), kind="stable")[:k])
            for j in range(1, count + 1)]


def relaxation_bound(A: Any, B: Any, k: Any, *, regularization: Any = None,
                     max_steps: Any = 600, max_seconds: Any = None) -> RelaxationBound:
    """A certified upper bound on the sparse LDA/PCA optimum, the largest λ_max(A_S, B_S) over
    the sets S of at most k variables, from the ℓ₁ relaxation (:func:`l1_relaxation_bound`,
    which carries the proof).

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Symmetric between-class matrix (a vector d for A = d dᵀ); for sparse PCA, the
        covariance or correlation matrix.
    B : array-like of shape (n, n)
        Symmetric within-class matrix (the identity for sparse PCA).
    k : int
        Cardinality, 1 ≤ k ≤ n.
    regularization : None, float or "auto"
        As in :func:`~spectral_kit.sparse_lda.check_pair` (B ← B + εI).
    max_steps : int
        First-order steps (each one eigendecomposition of size n).
    max_seconds : float, optional
        Stop after about this long with the best bound so far (every step's dual point is
        valid).

    Returns
    -------
    RelaxationBound
        ``value`` ≥ the optimum at every cardinality up to k (rounding included), and never
        above λ_max(A, B).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> rng = np.random.default_rng(0)
    >>> A = np.cov(rng.standard_normal((40, 10)), rowvar=False)
    >>> bound = sl.relaxation_bound(A, np.eye(10), 3, max_steps=100)
    >>> exact = sl.exhaustive(A, np.eye(10), 3).value
    >>> bool(exact <= bound.value)
    True
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    max_steps = check_int(max_steps, "max_steps", low=1,
                          hint="Give at least one first-order step.")
    if max_seconds is not None:
        max_seconds = check_finite_scalar(max_seconds, "max_seconds", low=0.0)
    identity = bool(np.array_equal(pair.B, np.eye(pair.n)))
    return l1_relaxation_bound(pair.A, k, None if identity else pair.B,
                               max_steps=max_steps, max_seconds=max_seconds)
