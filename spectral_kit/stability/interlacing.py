"""Eigenvalue tests that decide stability without, or before, an eigendecomposition.

Mavroeidis & Vazirgiannis, Sec. 2.4 and 4.3: Cauchy's interlacing theorem (Theorem 2) and its
extension to order-(n−k) principal submatrices (Corollary 1); Lemma 1, a sufficient condition
for Stewart's theorem in terms of eigenvalue gaps; and Proposition 1, which uses interlacing
to rule out every order-(n−k) principal submatrix at once, from the eigenvalues of the full
A and E alone.

All functions take eigenvalues (any order; they are sorted descending, λ₁ ≥ λ₂ ≥ …) and
index eigenvalues and subspace dimensions from 1, as the paper does.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..validation import check_array, check_finite_scalar, check_int, check_symmetric

__all__ = [
    "cauchy_interlacing",
    "descending_eigenvalues",
    "eigengaps",
    "interlacing_bounds",
    "lemma1_distance_bound",
    "lemma1_stable_ks",
    "proposition1_rules_out",
]


def descending_eigenvalues(A: object, name: str = "A") -> np.ndarray:
    """Eigenvalues λ₁ ≥ … ≥ λₙ of a symmetric matrix, in the paper's order.

    Mavroeidis & Vazirgiannis (2007) index eigenvalues in descending order (Sec. 2.4); every
    test of this module reads them that way.

    Parameters
    ----------
    A : array-like of shape (n, n)
        Symmetric matrix (a covariance or cosine matrix, or a perturbation E).
    name : str, default "A"
        Argument name used in error messages.

    Returns
    -------
    ndarray of shape (n,)
        The eigenvalues, descending.

    Raises
    ------
    ValueError
        If ``A`` is not a finite, square, symmetric 2-D array.

    Examples
    --------
    >>> from spectral_kit.stability import descending_eigenvalues
    >>> descending_eigenvalues([[2.0, 1.0], [1.0, 2.0]])
    array([3., 1.])
    """
    A = check_array(A, name)
    check_symmetric(A, name)
    return scipy.linalg.eigvalsh(0.5 * (A + A.T), check_finite=False)[::-1].copy()


def _sorted(values: object, name: str) -> np.ndarray:
    return np.sort(check_array(values, name, ndim=1))[::-1]


def eigengaps(eigenvalues: object) -> np.ndarray:
    """The eigengaps ``λᵢ − λᵢ₊₁`` for i = 1 … n − 1.

    The gap ``λ_k − λ_{k+1}`` is what Lemma 1 of Mavroeidis & Vazirgiannis (2007) compares with
    ``4·λ₁(E)``.

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        Eigenvalues in any order (sorted descending first).

    Returns
    -------
    ndarray of shape (n - 1,)
        The non-negative gaps between consecutive eigenvalues.

    Raises
    ------
    ValueError
        If ``eigenvalues`` is not a finite 1-D array.

    Examples
    --------
    >>> from spectral_kit.stability import eigengaps
    >>> eigengaps([1.0, 5.0, 4.0])
    array([1., 3.])
    """
    lam = _sorted(eigenvalues, "eigenvalues")
    return lam[:-1] - lam[1:]


def interlacing_bounds(eigenvalues: object, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Where the eigenvalues of any order-(n−k) principal submatrix must lie (Corollary 1).

    Mavroeidis & Vazirgiannis (2007), Corollary 1 of Cauchy's interlacing theorem (Theorem 2):
    the eigenvalues μ₁ ≥ … ≥ μₙ₋ₖ of any principal submatrix of order n − k of a symmetric A
    satisfy ``λᵢ ≥ μᵢ ≥ λᵢ₊ₖ``.

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        Eigenvalues of A, in any order.
    k : int
        Number of removed rows/columns, ``0 <= k <= n - 1``.

    Returns
    -------
    upper, lower : ndarray of shape (n - k,)
        ``λᵢ`` and ``λᵢ₊ₖ`` for i = 1 … n − k.

    Raises
    ------
    ValueError
        If ``eigenvalues`` is not a finite 1-D array or ``k`` is out of range.

    Examples
    --------
    >>> from spectral_kit.stability import interlacing_bounds
    >>> upper, lower = interlacing_bounds([4.0, 3.0, 2.0, 1.0], 1)
    >>> upper, lower
    (array([4., 3., 2.]), array([3., 2., 1.]))
    """
    lam = _sorted(eigenvalues, "eigenvalues")
    n = lam.size
    k = check_int(k, "k", low=0, high=n - 1)
    return lam[: n - k].copy(), lam[k:].copy()


def cauchy_interlacing(
    eigenvalues: object, sub_eigenvalues: object, *, rtol: float = 1e-10
) -> bool:
    """Whether ``λᵢ ≥ μᵢ ≥ λᵢ₊ₖ`` for i = 1 … n − k (Theorem 2 for k = 1, Corollary 1).

    ``eigenvalues`` are those of a symmetric matrix of order n, ``sub_eigenvalues`` those of
    an order-(n−k) principal submatrix (Mavroeidis & Vazirgiannis 2007, Sec. 2.4); the
    inequalities hold for every such pair, so a False flags a bug or a matrix that is not a
    principal submatrix.

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        Eigenvalues of the full symmetric matrix, in any order.
    sub_eigenvalues : array-like of shape (n - k,)
        Eigenvalues of the submatrix, in any order, ``1 <= n - k <= n``.
    rtol : float, default 1e-10
        Tolerance for rounding, relative to ``max |λ|``.

    Returns
    -------
    bool
        True when the interlacing inequalities hold.

    Raises
    ------
    ValueError
        If ``sub_eigenvalues`` has no entry or more entries than ``eigenvalues``, or either is
        not a finite 1-D array.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import cauchy_interlacing
    >>> B = np.random.default_rng(0).standard_normal((5, 5))
    >>> A = B + B.T
    >>> cauchy_interlacing(np.linalg.eigvalsh(A), np.linalg.eigvalsh(A[1:, 1:]))
    True
    >>> cauchy_interlacing([3.0, 1.0], [4.0])
    False
    """
    lam = _sorted(eigenvalues, "eigenvalues")
    mu = _sorted(sub_eigenvalues, "sub_eigenvalues")
    if not 1 <= mu.size <= lam.size:
        raise ValueError(
            f"sub_eigenvalues must have between 1 and {lam.size} entries; got {mu.size}."
        )
    upper, lower = interlacing_bounds(lam, lam.size - mu.size)
    rtol = check_finite_scalar(rtol, "rtol", low=0.0)
    tol = rtol * max(float(np.abs(lam).max()), 1e-300)
    return bool(np.all(mu <= upper + tol) and np.all(mu >= lower - tol))


def lemma1_stable_ks(eigenvalues_A: object, lambda1_E: float) -> tuple[int, ...]:
    """The k with ``λ_k(A) − λ_{k+1}(A) > 4·λ₁(E)`` and ``λ₁(E) > 0`` (Lemma 1).

    Mavroeidis & Vazirgiannis (2007), Lemma 1: for each such k the prerequisites of Stewart's
    theorem (Theorem 1) hold and the space spanned by the first k eigenvectors of A is stable
    under A + E. The proof uses ``λ₁(E) = ‖E‖₂``, true for the entrywise non-negative E of
    :func:`perturbation_matrix` (Perron–Frobenius); for an E of mixed sign pass ``‖E‖₂``
    instead.

    Parameters
    ----------
    eigenvalues_A : array-like of shape (n,)
        Eigenvalues of A, in any order.
    lambda1_E : float
        The largest eigenvalue of E (its spectral norm).

    Returns
    -------
    tuple of int
        The stable k, ascending (empty when there is none).

    Raises
    ------
    ValueError
        If ``eigenvalues_A`` is not a finite 1-D array or ``lambda1_E`` is not finite.

    Examples
    --------
    >>> from spectral_kit.stability import lemma1_stable_ks
    >>> lemma1_stable_ks([10.0, 9.0, 2.0, 1.5], lambda1_E=0.5)
    (2,)
    """
    lam = _sorted(eigenvalues_A, "eigenvalues_A")
    lam1 = check_finite_scalar(lambda1_E, "lambda1_E")
    if lam1 <= 0:
        return ()
    gaps = lam[:-1] - lam[1:]
    return tuple(int(i) + 1 for i in np.flatnonzero(gaps > 4 * lam1))


def lemma1_distance_bound(eigenvalues_A: object, norm_E: float, k: int) -> float | None:
    """Distance bound for the top-k space of A under *every* perturbation F with ``‖F‖₂ ≤ ε``.

    Following the proof of Lemma 1 (Mavroeidis & Vazirgiannis 2007): ‖F₁₁‖, ‖F₂₂‖, ‖F₁₂‖ ≤ ε,
    so δ ≥ λ_k − λ_{k+1} − 2ε, and when λ_k − λ_{k+1} > 4ε Stewart's theorem (Theorem 1) gives
    ``dist ≤ 2‖F₂₁‖/δ ≤ 2ε / (λ_k − λ_{k+1} − 2ε)`` (< 1). With ε = λ₁(E) = ‖E‖₂ this covers
    every F with ``|F| ≤ E`` entrywise, i.e. every matrix inside all the confidence intervals.

    Parameters
    ----------
    eigenvalues_A : array-like of shape (n,)
        Eigenvalues of A, in any order.
    norm_E : float
        ε, the spectral norm of the perturbation (≥ 0).
    k : int
        Dimension of the eigenvector space, ``1 <= k <= n - 1``.

    Returns
    -------
    float or None
        The bound ``2ε / (λ_k − λ_{k+1} − 2ε)``, or None when the gap is not larger than 4ε
        (Lemma 1 does not apply).

    Raises
    ------
    ValueError
        If ``norm_E`` is negative or ``k`` is out of range.

    Examples
    --------
    >>> from spectral_kit.stability import lemma1_distance_bound
    >>> lemma1_distance_bound([10.0, 9.0, 2.0, 1.5], norm_E=0.5, k=2)  # 1 / (7 - 1)
    0.16666666666666666
    >>> lemma1_distance_bound([10.0, 9.0, 2.0, 1.5], norm_E=0.5, k=1) is None
    True
    """
    lam = _sorted(eigenvalues_A, "eigenvalues_A")
    eps = check_finite_scalar(norm_E, "norm_E", low=0.0)
    k = check_int(k, "k", low=1, high=lam.size - 1)
    gap = float(lam[k - 1] - lam[k])
    if not gap > 4 * eps:
        return None
    return 2 * eps / (gap - 2 * eps)


def proposition1_rules_out(eigenvalues_A: object, eigenvalues_E: object, k: int) -> bool:
    """Proposition 1: no order-(n−k) principal submatrix can satisfy Lemma 1.

    Mavroeidis & Vazirgiannis (2007), Proposition 1. True when
    ``λᵢ(A) − λᵢ₊ₖ₊₁(A) ≤ 4·λ₁₊ₖ(E)`` for all i = 1 … n − k − 1. By Corollary 1 every eigengap
    ``μᵢ − μᵢ₊₁`` of an order-(n−k) principal submatrix A′ is at most ``λᵢ − λᵢ₊ₖ₊₁``, while
    ``μ₁(E′) ≥ λ₁₊ₖ(E)``; so ``μᵢ − μᵢ₊₁ ≤ 4·μ₁(E′)`` for every i, and Lemma 1 fails for A′ --
    whichever k features were removed. False means "cannot tell": the submatrix must be
    eigendecomposed.

    Parameters
    ----------
    eigenvalues_A, eigenvalues_E : array-like of shape (n,)
        Eigenvalues of the full A and E.
    k : int
        Number of removed rows/columns, 0 ≤ k ≤ n − 1.

    Returns
    -------
    bool
        True when every order-(n−k) principal submatrix is ruled out.

    Raises
    ------
    ValueError
        If the two sets of eigenvalues differ in length or ``k`` is out of range.

    Examples
    --------
    A large perturbation rules out every submatrix; a small one does not:

    >>> from spectral_kit.stability import proposition1_rules_out
    >>> proposition1_rules_out([10.0, 9.0, 2.0], [3.0, 2.5, 0.1], k=1)
    True
    >>> proposition1_rules_out([10.0, 9.0, 2.0], [0.1, 0.1, 0.1], k=1)
    False
    """
    lam = _sorted(eigenvalues_A, "eigenvalues_A")
    lamE = _sorted(eigenvalues_E, "eigenvalues_E")
    n = lam.size
    if lamE.size != n:
        raise ValueError(
            f"eigenvalues_E must have as many entries as eigenvalues_A ({n}); got {lamE.size}."
        )
    k = check_int(k, "k", low=0, high=n - 1)
    # i = 1 … n−k−1 (1-based) pairs λᵢ with λᵢ₊ₖ₊₁; an order-1 submatrix has no gap at all.
    spans = lam[: n - k - 1] - lam[k + 1 :]
    return bool(np.all(spans <= 4 * lamE[k]))
