"""The generalized Rayleigh quotient, its spectrum and the generalized inclusion principle.

Moghaddam, Weiss & Avidan (2006):

* R(x; A, B) = xᵀAx / xᵀBx (Sec. 2), maximized by the principal generalized eigenvector;
* Thm. 1 (Eq. 7): for every k × k principal pair, λ_i(A, B) ≤ λ_i(A_k, B_k) ≤ λ_{i+n−k}(A, B);
* Eq. 8, the case i = k: λ_k(A, B) ≤ λ_max(A_k, B_k) ≤ λ_n(A, B);
* Prop. 2 (variational renormalization): on a fixed support S the best factor is the principal
  generalized eigenvector of (A_S, B_S) (Eq. 6), never worse than any other vector on S.

Eigenvalues are ranked in increasing order, as in the paper (λ_1 = λ_min, λ_n = λ_max).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import scipy.linalg

from ..linalg import principal_generalized_eigvalsh
from ..validation import check_array, check_indices, check_int
from ._numerics import subset_vector
from .pair import MatrixPair, check_k, check_pair
from .results import InclusionBounds, Interlacing, SparseDiscriminant

__all__ = [
    "check_support",
    "generalized_spectrum",
    "inclusion_bounds",
    "interlacing",
    "interlacing_bounds",
    "rayleigh_quotient",
    "renormalize",
    "subproblem_value",
]


def check_support(support: Any, n: int, name: str = "support", k: int | None = None
                  ) -> np.ndarray:
    """Sorted distinct indices in [0, n) from an index list or a boolean mask of length n;
    exactly ``k`` of them when ``k`` is given."""
    arr = np.asarray(support)
    if arr.dtype == bool:
        if arr.shape != (n,):
            raise ValueError(
                f"{name} as a boolean mask must have shape ({n},); got shape {arr.shape}."
            )
        idx = np.flatnonzero(arr)
    else:
        idx = check_indices(arr, name, size=n)
    if idx.size == 0:
        raise ValueError(f"{name} is empty; a sparse factor needs at least one feature.")
    if k is not None and idx.size != k:
        raise ValueError(f"{name} must be a support of size k={k}; got {idx.size} indices.")
    return idx


def rayleigh_quotient(x: Any, A: Any, B: Any, *, regularization: Any = None) -> float:
    """The generalized Rayleigh quotient R(x; A, B) = xᵀAx / xᵀBx (Sec. 2).

    Parameters
    ----------
    x : array-like of shape (n,)
        Any non-zero vector (sparse or not).
    A, B : array-like of shape (n, n)
        Between- and within-class matrices (B positive definite, or regularized).
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    float
        xᵀAx / xᵀBx.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> round(sl.rayleigh_quotient(np.array([1.0, 1.0, 0.0, 0.0]), A, np.eye(4)), 9)
    3.0
    """
    pair = check_pair(A, B, regularization)
    x = check_array(x, "x", ndim=1, rows_label="entries")
    if x.shape != (pair.n,):
        raise ValueError(f"x must have shape ({pair.n},) to match A and B; got {x.shape}.")
    peak = float(np.abs(x).max())
    if peak == 0:
        raise ValueError("x is the zero vector; the Rayleigh quotient needs x ≠ 0.")
    x = x / peak  # R(cx) = R(x): a unit-scale x keeps xᵀAx and xᵀBx in range
    return float(x @ pair.A @ x) / float(x @ pair.B @ x)


def _spectrum(pair: MatrixPair) -> np.ndarray:
    return scipy.linalg.eigh(pair.A, pair.B, eigvals_only=True, check_finite=False)


def generalized_spectrum(A: Any, B: Any, *, regularization: Any = None) -> np.ndarray:
    """λ_1(A, B) ≤ … ≤ λ_n(A, B), the roots of det(A − λB) = 0, ascending.

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        Symmetric, B positive definite (or regularized).
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    ndarray of shape (n,)
        The generalized eigenvalues, ascending.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> sl.generalized_spectrum(A, np.eye(4)).round(9).tolist()
    [0.5, 1.0, 1.0, 3.0]
    """
    return _spectrum(check_pair(A, B, regularization))


def subproblem_value(A: Any, B: Any, support: Any, *, regularization: Any = None) -> float:
    """λ_max(A_S, B_S): the best generalized Rayleigh quotient on the support S (Prop. 1).

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        Symmetric, B positive definite (or regularized).
    support : array-like of int or bool mask
        The indices S.
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    float
        λ_max(A_S, B_S).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> round(sl.subproblem_value(A, np.eye(4), [0, 1]), 9)
    3.0
    """
    pair = check_pair(A, B, regularization)
    idx = check_support(support, pair.n)
    return subset_vector(pair, idx)[0]


def inclusion_bounds(A: Any, B: Any, k: int, *, regularization: Any = None) -> InclusionBounds:
    """Eq. 8: ``(λ_k(A, B), λ_n(A, B))`` brackets λ_max(A_S, B_S) for every ``|S| = k``.

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        Symmetric, B positive definite (or regularized).
    k : int
        Cardinality, 1 ≤ k ≤ n.
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    InclusionBounds
        ``(lower, upper)``; unpacks as a tuple.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> lower, upper = sl.inclusion_bounds(A, np.eye(4), 2)
    >>> round(lower, 9), round(upper, 9)
    (1.0, 3.0)
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    lam = _spectrum(pair)
    return InclusionBounds(float(lam[k - 1]), float(lam[-1]))


def interlacing_bounds(spectrum: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Brackets of Thm. 1 from an ascending spectrum.

    ``lower[i] = λ_i`` and ``upper[i] = λ_{i+n−k}`` (1-based in the paper, 0-based here).

    Parameters
    ----------
    spectrum : array-like of shape (n,)
        λ_1 ≤ … ≤ λ_n (:func:`generalized_spectrum`).
    k : int
        Size of the principal subproblem, 1 ≤ k ≤ n.

    Returns
    -------
    lower, upper : ndarray of shape (k,)
        ``lower[i] ≤ μ_i ≤ upper[i]`` for the ascending eigenvalues μ of any k × k principal
        pair.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> lower, upper = sl.interlacing_bounds(np.array([0.5, 1.0, 2.0, 3.0]), 2)
    >>> lower.tolist(), upper.tolist()
    ([0.5, 1.0], [2.0, 3.0])
    """
    spectrum = check_array(spectrum, "spectrum", ndim=1)
    n = spectrum.size
    k = check_int(k, "k", low=1, high=n)
    return spectrum[:k].copy(), spectrum[n - k :].copy()


def interlacing(A: Any, B: Any, support: Any, *, regularization: Any = None) -> Interlacing:
    """Every eigenvalue of the principal pair (A_S, B_S) with its bracket from Thm. 1 (Eq. 7).

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        Symmetric, B positive definite (or regularized).
    support : array-like of int or bool mask
        The k indices S of the principal submatrices.
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    Interlacing
        The full spectrum, the k sub-eigenvalues and their lower/upper brackets.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> il = sl.interlacing(A, np.eye(4), [0, 2])
    >>> il.sub.tolist(), il.lower.tolist(), il.upper.tolist()
    ([1.0, 2.0], [0.5, 1.0], [1.0, 3.0])
    """
    pair = check_pair(A, B, regularization)
    idx = check_support(support, pair.n)
    spectrum = _spectrum(pair)
    sub = principal_generalized_eigvalsh(pair.A, pair.B, idx)
    lower, upper = interlacing_bounds(spectrum, idx.size)
    return Interlacing(idx, spectrum, sub, lower, upper, pair.epsilon)


def renormalize(A: Any, B: Any, support: Any, *, regularization: Any = None) -> SparseDiscriminant:
    """Variational renormalization (Prop. 2): the best factor on a given support.

    Whatever produced the sparsity pattern (thresholding, an SVM, a ranking), replacing the
    non-zero loadings by the principal generalized eigenvector of (A_S, B_S) (Eq. 6) can only
    raise the generalized Rayleigh quotient.

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        A may also be a vector d for the rank-one A = d dᵀ.
    support : array-like of int or bool mask
        The non-zero pattern, e.g. ``np.flatnonzero(x_candidate)``.
    regularization : None, float or "auto"

    Returns
    -------
    SparseDiscriminant
        ``value = λ_max(A_S, B_S)`` and the factor x with xᵀBx = 1.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> res = sl.renormalize(A, np.eye(4), [0, 1])
    >>> round(res.value, 9), res.x.round(6).tolist()
    (3.0, [0.707107, 0.707107, 0.0, 0.0])
    """
    pair = check_pair(A, B, regularization)
    idx = check_support(support, pair.n)
    value, x = subset_vector(pair, idx)
    return SparseDiscriminant(idx, value, x, pair.epsilon, "renormalize")
