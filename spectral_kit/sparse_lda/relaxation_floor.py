"""How low the ℓ₁ relaxation's bound can go: a primal point of the relaxation.

One job: :func:`relaxation_floor` -- a matrix X feasible for the semidefinite relaxation
behind :func:`~spectral_kit.sparse_lda.relaxation_bound` (d'Aspremont, El Ghaoui, Jordan &
Lanckriet, SIAM Review 2007, extended to B ≠ I), whose objective Tr(AX) no dual point's
bound can go below (weak duality). Where the floor is above the best subset found, the gap
left at the root is the relaxation's own, and only branching can close it: a limit
measured, not guessed.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import check_finite_scalar, check_int
from .pair import check_k, check_pair
from .relaxation import (
    RelaxationBound,
    _admm_run,
    _smoothed_run,
    _whitener,
    l1_relaxation_bound,
)
from .start import greedy_start

__all__ = ["RelaxationFloor", "relaxation_floor"]

#: Levels at which primal points are drawn, as fractions of the dual point's level c: the
#: relaxation's primal optimum sits at the level where the cardinality constraint binds,
#: and mixing a point from either side of it lands on the constraint.
_LEVELS = (0.8, 0.9, 1.0, 1.1, 1.25)
#: Smoothing width (× max|A|) of the runs whose gradients are averaged.
_MU = 0.003


@dataclass(frozen=True)
class RelaxationFloor:
    """A feasible point of the ℓ₁ relaxation and its objective.

    Attributes
    ----------
    value : float
        Tr(AX): every bound of :func:`~spectral_kit.sparse_lda.relaxation_bound` is at
        least this (to rounding), however long it is solved.
    X : ndarray, shape (n, n)
        Positive semidefinite, Tr(BX) = 1, and its off-diagonal entries' absolute
        values sum to at most (k − 1) Tr X.
    seconds : float
        Time spent.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> rng = np.random.default_rng(1)
    >>> A = np.cov(rng.standard_normal((30, 8)), rowvar=False)
    >>> floor = sl.relaxation_floor(A, np.eye(8), 2, steps=60)
    >>> bool(np.isclose(np.trace(floor.X), 1.0) and np.linalg.eigvalsh(floor.X)[0] > -1e-10)
    True
    >>> bool(floor.value >= sl.exhaustive(A, np.eye(8), 2).value - 1e-9)
    True
    """

    value: float
    X: np.ndarray
    seconds: float


def excess(X: np.ndarray, k: int) -> float:
    """Σ_{i≠j} |X_ij| − (k − 1) Tr X: the cardinality constraint of the relaxation holds
    where this is ≤ 0 (a convex function of X, so mixtures of feasible points are
    feasible)."""
    absolute = np.abs(X)
    return float(absolute.sum() - np.trace(absolute) - (k - 1) * np.trace(X))


def _subset_point(A: np.ndarray, B: np.ndarray | None, support: np.ndarray) -> np.ndarray:
    """x xᵀ for the top generalized eigenvector x of (A_S, B_S), xᵀBx = 1: feasible, since
    ‖x‖₁² ≤ |S| ‖x‖₂² (Cauchy–Schwarz), with Tr(AX) = λ_max(A_S, B_S)."""
    n = A.shape[0]
    S = np.asarray(support, dtype=int)
    _, V = scipy.linalg.eigh(A[np.ix_(S, S)], None if B is None else B[np.ix_(S, S)],
                             subset_by_index=[S.size - 1, S.size - 1], check_finite=False)
    x = np.zeros(n)
    x[S] = V[:, 0]
    scale = float(x @ x) if B is None else float(x @ B @ x)
    return np.outer(x, x) / scale


def _best_mixture(A: np.ndarray, k: int,
                  points: list[np.ndarray]) -> tuple[float, np.ndarray] | None:
    """The best feasible point among ``points`` and the mixtures of two of them, one on
    each side of the constraint, that land on it (a mixture of Tr(BX) = 1 points keeps
    Tr(BX) = 1, and by convexity of :func:`excess` a mixture at θ with
    θ e₁ + (1 − θ) e₂ = 0 is feasible)."""
    scored = [(float(np.sum(A * X)), excess(X, k), X) for X in points]
    best: tuple[float, np.ndarray] | None = None
    for value, e, X in scored:
        if e <= 0 and (best is None or value > best[0]):
            best = (value, X)
    for v1, e1, X1 in scored:
        for v2, e2, X2 in scored:
            if e1 > 0 >= e2:
                theta = e2 / (e2 - e1)
                value = theta * v1 + (1.0 - theta) * v2
                if best is None or value > best[0]:
                    best = (value, theta * X1 + (1.0 - theta) * X2)
    return best


def l1_relaxation_floor(A: np.ndarray, k: int, B: np.ndarray | None = None, *,
                        support: np.ndarray | None = None,
                        bound: RelaxationBound | None = None, steps: int = 300,
                        max_seconds: float | None = None) -> RelaxationFloor:
    """A lower bound on the optimum of the ℓ₁ relaxation bounded by
    :func:`~spectral_kit.sparse_lda.relaxation.l1_relaxation_bound`.

    For X ⪰ 0 with Tr(BX) = 1 and Σ_{i≠j} |X_ij| ≤ (k − 1) Tr X, and every dual point
    (symmetric Y with a zero diagonal, |Y_ij| ≤ c),

        λ_max(A − Y + c (k − 1) I, B) ≥ Tr(AX).

    Proof. With B = L Lᵀ, λ_max(M, B) = max Tr(MZ) over Z ⪰ 0 with Tr(BZ) = 1 (write
    Z = L⁻ᵀ Z̃ L⁻¹ with Tr Z̃ = 1: Tr(MZ) = Tr(L⁻¹ M L⁻ᵀ Z̃), maximal on the top
    eigenvector). So λ_max(M, B) ≥ Tr(MX) = Tr(AX) − Σ_{i≠j} Y_ij X_ij + c (k − 1) Tr X
    ≥ Tr(AX) − c Σ_{i≠j} |X_ij| + c (k − 1) Tr X ≥ Tr(AX). ∎

    The points tried: the subset point x xᵀ of ``support`` (so the floor is never below the
    subset's value), and at a few levels around the dual point's, the primal iterate of an
    ADMM run (B = I) or the mean gradient of a smoothed dual run (B ≠ I); then the best
    mixture of two that meets the constraint.

    Parameters
    ----------
    A, B : ndarray, shape (n, n)
        Symmetric; B positive definite (``None`` for B = I).
    k : int
        Cardinality.
    support : array of int, optional
        A subset of at most k variables (the incumbent).
    bound : RelaxationBound, optional
        A dual point to start from; solved here with half the time otherwise.
    steps : int
        First-order steps per level.
    max_seconds : float, optional
        About this long in all.

    Returns
    -------
    RelaxationFloor
    """
    start = time.perf_counter()
    deadline = None if max_seconds is None else start + max_seconds
    A = np.asarray(A, dtype=float)
    W = _whitener(None if B is None else np.asarray(B, dtype=float))
    if bound is None:
        bound = l1_relaxation_bound(A, k, B, max_steps=4 * steps, max_seconds=(
            None if max_seconds is None else max_seconds / 2))
    points = [] if support is None else [_subset_point(A, B, support)]
    if bound.c > 0:
        mu = _MU * max(float(np.abs(A).max()), np.finfo(float).eps)
        if W is not None:
            mu *= float(np.linalg.norm(W, 2)) ** 2
        for i, fraction in enumerate(_LEVELS):
            until = None if deadline is None else time.perf_counter() + (
                deadline - time.perf_counter()) / (len(_LEVELS) - i)
            level, state = fraction * bound.c, {}
            if W is None:
                # B = I: ADMM's primal iterate, which converges where the smoothed
                # gradients' mean is still spread
                _admm_run(A, k, level, bound.Y * fraction, steps, until, state)
            else:
                _smoothed_run(A, k, level, W, bound.Y * fraction, steps, mu, until, state)
            if "X" in state:
                points.append(state["X"])
    best = _best_mixture(A, k, points)
    if best is None:
        # nothing feasible drawn: a single variable's point always is
        i = int(np.argmax(np.diag(A) if B is None else np.diag(A) / np.diag(B)))
        X = _subset_point(A, B, np.array([i]))
        best = (float(np.sum(A * X)), X)
    return RelaxationFloor(best[0], best[1], time.perf_counter() - start)


def relaxation_floor(A: Any, B: Any, k: Any, *, regularization: Any = None,
                     support: Any = None, steps: Any = 300,
                     max_seconds: Any = None) -> RelaxationFloor:
    """How low :func:`~spectral_kit.sparse_lda.relaxation_bound` can ever go on (A, B) at
    cardinality k: the objective of a feasible point of its relaxation
    (:func:`l1_relaxation_floor` carries the proof).

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Symmetric between-class matrix (a vector d for A = d dᵀ), or a covariance.
    B : array-like of shape (n, n)
        Symmetric within-class matrix (the identity for sparse PCA).
    k : int
        Cardinality, 1 ≤ k ≤ n.
    regularization : None, float or "auto"
        As in :func:`~spectral_kit.sparse_lda.check_pair` (B ← B + εI).
    support : array-like of int, optional
        A subset of at most k variables, such as a search's incumbent: the floor is at
        least its value. Default: the exact search's greedy start
        (:func:`~spectral_kit.sparse_lda.start.greedy_start`).
    steps : int
        First-order steps per level tried.
    max_seconds : float, optional
        About this long in all.

    Returns
    -------
    RelaxationFloor
        ``value`` ≤ every bound the relaxation certifies.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> rng = np.random.default_rng(0)
    >>> A = np.cov(rng.standard_normal((40, 10)), rowvar=False)
    >>> floor = sl.relaxation_floor(A, np.eye(10), 3, steps=100)
    >>> bound = sl.relaxation_bound(A, np.eye(10), 3, max_steps=100)
    >>> bool(floor.value <= bound.value)
    True
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    steps = check_int(steps, "steps", low=2, hint="Give at least two first-order steps.")
    if max_seconds is not None:
        max_seconds = check_finite_scalar(max_seconds, "max_seconds", low=0.0)
    if support is not None:
        support = np.unique(np.asarray(support, dtype=int))
        if support.size == 0 or support.size > k or support[0] < 0 or support[-1] >= pair.n:
            raise ValueError(f"support must hold between 1 and k={k} distinct indices in "
                             f"[0, {pair.n}); pass the variables of one subset.")
    else:
        support = greedy_start(pair, k)
    identity = bool(np.array_equal(pair.B, np.eye(pair.n)))
    return l1_relaxation_floor(pair.A, k, None if identity else pair.B, support=support,
                               steps=steps, max_seconds=max_seconds)
