"""From interval widths to stable subspaces: the perturbation matrix E and Stewart's theorem.

Mavroeidis & Vazirgiannis, Sec. 2.3 and 4.2. E holds, entry by entry, the largest distance
between the estimated similarity/covariance and the endpoints of its confidence interval
(Example 2); Stewart's theorem on invariant subspaces (Theorem 1, after Stewart & Sun 1990,
Thm. V.2.7) bounds how far the top-k eigenvector space of A can move under A + E.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..validation import check_array, check_int, check_symmetric, max_abs

__all__ = [
    "StewartBound",
    "perturbation_matrix",
    "resample_subspace_distances",
    "stewart_bound",
    "stewart_bounds",
    "subspace_distance",
    "top_eigenspace",
]


def perturbation_matrix(A: object, lower: object, upper: object) -> np.ndarray:
    """E with ``E(i, j) = max(|A(i, j) − lower(i, j)|, |A(i, j) − upper(i, j)|)`` (Example 2).

    The conservative choice of Sec. 4.2: every entry of A may be off by as much as the
    farther end of its confidence interval.

    Parameters
    ----------
    A : array-like of shape (p, p)
        The similarity or covariance matrix (the estimate).
    lower, upper : array-like of shape (p, p)
        Confidence interval endpoints of every entry, ``lower ≤ upper``.

    Returns
    -------
    ndarray of shape (p, p)
        Entrywise non-negative; symmetric when A and the intervals are.

    Raises
    ------
    ValueError
        If the arrays are not finite, square and of the same shape, or ``lower > upper``
        somewhere.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import perturbation_matrix
    >>> A = np.array([[1.0, 0.5], [0.5, 1.0]])
    >>> lower = np.array([[0.8, 0.4], [0.4, 0.9]])
    >>> upper = np.array([[1.1, 0.9], [0.9, 1.3]])
    >>> perturbation_matrix(A, lower, upper)
    array([[0.2, 0.4],
           [0.4, 0.3]])
    """
    A = check_array(A, "A")
    lower = check_array(lower, "lower")
    upper = check_array(upper, "upper")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix; got shape {A.shape}.")
    for name, arr in (("lower", lower), ("upper", upper)):
        if arr.shape != A.shape:
            raise ValueError(f"{name} must have the shape of A, {A.shape}; got {arr.shape}.")
    scale = max(float(max_abs(upper)), float(max_abs(lower)), 1e-300)
    # Two p × p temporaries at most: p may be thousands.
    out = np.subtract(lower, upper)
    if float(out.max()) > 1e-12 * scale:
        i, j = np.argwhere(out > 1e-12 * scale)[0]
        raise ValueError(
            f"lower must not exceed upper; at entry ({i}, {j}) lower={lower[i, j]:g} > "
            f"upper={upper[i, j]:g}. Pass the endpoints in the order (lower, upper)."
        )
    np.subtract(A, lower, out=out)
    np.abs(out, out=out)
    other = np.subtract(A, upper)
    np.abs(other, out=other)
    return np.maximum(out, other, out=out)


@dataclass(frozen=True)
class StewartBound:
    """Stewart's theorem (Theorem 1) for the top-k eigenvector space of A under A + E.

    With V = [V₁ V₂] the eigenvectors of A (V₁: top k), ``Eᵢⱼ = Vᵢᵀ E Vⱼ`` and
    ``δ = λ_k − λ_{k+1} − ‖E₁₁‖₂ − ‖E₂₂‖₂``: when δ > 0 and ‖E₁₂‖₂ ≤ δ/2, A + E has an
    invariant subspace within distance ``2‖E₂₁‖₂/δ`` of range(V₁).

    Falsy when the conditions fail; ``bound`` is then None.

    Attributes
    ----------
    k : int
    delta : float
        δ of Theorem 1 (may be ≤ 0).
    lambda_min, mu_max : float
        λ_k and λ_{k+1} of A (smallest eigenvalue of Q₁, largest of Q₂).
    norm_E11, norm_E22, norm_E12, norm_E21 : float
        Spectral norms of the blocks of VᵀEV.
    holds : bool
        Whether δ > 0 and ‖E₁₂‖₂ ≤ δ/2.
    bound : float or None
        ``2‖E₂₁‖₂/δ`` when ``holds``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import stewart_bound
    >>> A = np.diag([5.0, 4.0, 1.0, 0.5])
    >>> result = stewart_bound(A, np.full((4, 4), 0.05), k=2)
    >>> bool(result), round(result.delta, 3), round(result.bound, 4)  # δ = 4 − 1 − 0.1 − 0.1
    (True, 2.8, 0.0714)
    """

    k: int
    delta: float
    lambda_min: float
    mu_max: float
    norm_E11: float
    norm_E22: float
    norm_E12: float
    norm_E21: float
    holds: bool
    bound: float | None

    def __bool__(self) -> bool:
        return self.holds


def check_matrix_and_perturbation(A: object, E: object) -> tuple[np.ndarray, np.ndarray]:
    """A and its perturbation E as float arrays: both symmetric, of the same shape."""
    A = check_array(A, "A")
    E = check_array(E, "E")
    check_symmetric(A, "A")
    check_symmetric(E, "E")
    if E.shape != A.shape:
        raise ValueError(f"E must have the shape of A, {A.shape}; got {E.shape}.")
    return A, E


def stewart_bound(A: object, E: object, k: int) -> StewartBound:
    """Check Stewart's theorem for the top-``k`` eigenvector space of A under perturbation E.

    Parameters
    ----------
    A, E : array-like of shape (p, p)
        Symmetric. E may have entries of any sign here (Theorem 1 does not need E ≥ 0).
    k : int
        Dimension of the invariant subspace, 1 ≤ k ≤ p − 1.

    Returns
    -------
    StewartBound
        δ, the block norms and the distance bound (None, and the result falsy, when the
        theorem's conditions fail).

    Raises
    ------
    ValueError
        If A or E is not a finite symmetric matrix, their shapes differ, or ``k`` is out of
        range.

    Examples
    --------
    The bound holds for the perturbed matrix's actual top-2 space:

    >>> import numpy as np
    >>> from spectral_kit.stability import stewart_bound, subspace_distance, top_eigenspace
    >>> A = np.diag([5.0, 4.0, 1.0, 0.5])
    >>> E = np.full((4, 4), 0.05)
    >>> result = stewart_bound(A, E, k=2)
    >>> round(result.bound, 4)
    0.0714
    >>> actual = subspace_distance(top_eigenspace(A, 2), top_eigenspace(A + E, 2))
    >>> bool(actual <= result.bound)
    True
    >>> bool(stewart_bound(A, np.full((4, 4), 2.0), k=2))  # too large: the theorem is silent
    False
    """
    A, E = check_matrix_and_perturbation(A, E)
    p = A.shape[0]
    k = check_int(k, "k", low=1, high=p - 1, hint="Theorem 1 needs a proper subspace.")
    w, W = _eigenbasis_blocks(A, E)
    return _stewart_from_blocks(w, W, k)


def stewart_bounds(A: object, E: object) -> tuple[StewartBound, ...]:
    """:func:`stewart_bound` for every k = 1 … p − 1, from one eigendecomposition of A.

    Stewart's theorem (Theorem 1 of Mavroeidis & Vazirgiannis 2007) for each dimension of the
    top eigenvector space: which k are stable under E, and by how much they may move.

    Parameters
    ----------
    A, E : array-like of shape (p, p)
        Symmetric; E may have entries of any sign.

    Returns
    -------
    tuple of StewartBound
        One result per k = 1 … p − 1, in that order.

    Raises
    ------
    ValueError
        If A or E is not a finite symmetric matrix or their shapes differ.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import stewart_bounds
    >>> results = stewart_bounds(np.diag([5.0, 4.0, 1.0, 0.5]), np.full((4, 4), 0.05))
    >>> [r.k for r in results], [round(r.bound, 3) for r in results]
    ([1, 2, 3], [0.217, 0.071, 0.577])
    """
    A, E = check_matrix_and_perturbation(A, E)
    w, W = _eigenbasis_blocks(A, E)
    return tuple(_stewart_from_blocks(w, W, k) for k in range(1, A.shape[0]))


def _eigenbasis_blocks(A: np.ndarray, E: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Eigenvalues of A (descending) and VᵀEV in the matching eigenvector basis."""
    w, V = scipy.linalg.eigh(0.5 * (A + A.T), check_finite=False)
    w, V = w[::-1], V[:, ::-1]
    return w, V.T @ (0.5 * (E + E.T)) @ V


def _stewart_from_blocks(w: np.ndarray, W: np.ndarray, k: int) -> StewartBound:
    norm = _spectral_norm
    n11, n22 = norm(W[:k, :k]), norm(W[k:, k:])
    n12, n21 = norm(W[:k, k:]), norm(W[k:, :k])
    delta = float(w[k - 1] - w[k] - n11 - n22)
    holds = bool(delta > 0 and n12 <= delta / 2)
    return StewartBound(
        k, delta, float(w[k - 1]), float(w[k]), n11, n22, n12, n21, holds,
        2 * n21 / delta if holds else None,
    )


def top_eigenspace(A: np.ndarray, k: int) -> np.ndarray:
    """Orthonormal basis (p × k) of the eigenvectors of the k largest eigenvalues of A.

    The space range(V₁) of Stewart's theorem (Theorem 1 of Mavroeidis & Vazirgiannis 2007).

    Parameters
    ----------
    A : ndarray of shape (p, p)
        Symmetric matrix.
    k : int
        Dimension, ``1 <= k <= p``.

    Returns
    -------
    ndarray of shape (p, k)
        Orthonormal columns spanning the top-k eigenvector space (their order and signs are
        not meaningful).

    Raises
    ------
    ValueError
        If ``A`` is not a finite symmetric matrix or ``k`` is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import top_eigenspace
    >>> V = top_eigenspace(np.diag([5.0, 4.0, 1.0]), 2)
    >>> np.round(V @ V.T, 12) + 0.0  # the projector onto the first two coordinates
    array([[1., 0., 0.],
           [0., 1., 0.],
           [0., 0., 0.]])
    """
    A = check_array(A, "A")
    check_symmetric(A, "A")
    p = A.shape[0]
    k = check_int(k, "k", low=1, high=p)
    _, V = scipy.linalg.eigh(A, subset_by_index=[p - k, p - 1], check_finite=False)
    return V


def subspace_distance(V: object, W: object) -> float:
    """``dist(range V, range W) = ‖(I − VVᵀ) W‖₂`` = sine of the largest principal angle.

    The distance of Theorem 1 (Stewart & Sun 1990, Sec. II.4; Mavroeidis & Vazirgiannis 2007,
    Sec. 2.3) between two subspaces of equal dimension, given orthonormal bases of shape (p, k).

    Parameters
    ----------
    V, W : array-like of shape (p, k)
        Orthonormal bases of the two subspaces.

    Returns
    -------
    float
        The distance, in [0, 1].

    Raises
    ------
    ValueError
        If the shapes differ or the arrays are not finite 2-D arrays.

    Examples
    --------
    Two lines at an angle of 0.3 rad, checked against SciPy's principal angles:

    >>> import numpy as np
    >>> from scipy.linalg import subspace_angles
    >>> from spectral_kit.stability import subspace_distance
    >>> V = np.array([[1.0], [0.0], [0.0]])
    >>> W = np.array([[np.cos(0.3)], [np.sin(0.3)], [0.0]])
    >>> bool(np.isclose(subspace_distance(V, W), np.sin(0.3)))
    True
    >>> bool(np.isclose(subspace_distance(V, W), np.sin(subspace_angles(V, W).max())))
    True
    """
    V = check_array(V, "V")
    W = check_array(W, "W")
    if V.shape != W.shape:
        raise ValueError(f"V and W must have the same shape; got {V.shape} and {W.shape}.")
    for name, U in (("V", V), ("W", W)):
        # with a basis that is not orthonormal the formula measures the basis, not its span
        if np.abs(U.T @ U - np.eye(U.shape[1])).max() > 1e-6:
            raise ValueError(
                f"{name} must have orthonormal columns (a basis of the subspace); "
                f"orthonormalize it first, for example np.linalg.qr({name})[0]."
            )
    return min(1.0, _spectral_norm(W - V @ (V.T @ W)))


def resample_subspace_distances(A: object, resampled: object, k: object) -> np.ndarray:
    """Distance between the top-k eigenspace of A and that of each resampled matrix.

    Parameters
    ----------
    A : array-like of shape (p, p)
        The estimate.
    resampled : array-like of shape (B, p, p)
        Matrices A*_b, e.g. ``BootstrapDistribution.matrices()``.
    k : int or sequence of int
        Subspace dimension(s), each in [1, p − 1]. Several k share one batched
        eigendecomposition of the B matrices.

    Returns
    -------
    ndarray of shape (B,), or (B, len(k)) for a sequence
        The subspace distance actually observed for each resample -- what Stewart's bound
        with E = A*_b − A limits.

    Raises
    ------
    ValueError
        If the shapes do not match or a k is out of range.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_distribution, resample_subspace_distances
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> dist = bootstrap_distribution(X, n_resamples=50, random_state=0)
    >>> d = resample_subspace_distances(dist.estimate, dist.matrices(), [1, 2])
    >>> d.shape, bool(np.all((0 <= d) & (d <= 1 + 1e-12)))
    ((50, 2), True)
    """
    A = check_array(A, "A")
    check_symmetric(A, "A")
    stack = check_array(resampled, "resampled", ndim=3)
    p = A.shape[0]
    if stack.shape[1:] != A.shape:
        raise ValueError(
            f"resampled must have shape (B, {p}, {p}); got shape {stack.shape}."
        )
    single = np.ndim(k) == 0
    ks = [check_int(v, "k", low=1, high=p - 1) for v in np.atleast_1d(k).tolist()]
    _, V = scipy.linalg.eigh(0.5 * (A + A.T), check_finite=False)
    _, vecs = np.linalg.eigh(stack)
    out = np.empty((stack.shape[0], len(ks)))
    for col, kk in enumerate(ks):
        V1 = V[:, p - kk :]
        W = vecs[:, :, p - kk :]
        residual = W - V1 @ (V1.T @ W)
        out[:, col] = np.minimum(1.0, np.linalg.norm(residual, ord=2, axis=(1, 2)))
    return out[:, 0] if single else out


def _spectral_norm(M: np.ndarray) -> float:
    if M.size == 0:
        return 0.0
    return float(np.linalg.norm(M, 2))
