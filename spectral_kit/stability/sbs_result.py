"""What Algorithm 1 (SbS-LSI / SbS-PCA) returns: its steps, its outcome, and why.

Mavroeidis & Vazirgiannis, Sec. 4.3. :class:`SbSStep` is one principal submatrix visited on
the removal path; :class:`SbSResult` the outcome, with the whole path and, when no submatrix
met both criteria, which one failed and what to try.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_array, check_choice, check_finite_scalar
from .bootstrap import BootstrapIntervals

__all__ = ["CRITERIA", "SbSResult", "SbSStep", "retained_fraction"]

#: ``"variance"``: Σ_{i≤k} μᵢ(A′) / trace(A) (PCA's variance; LSI's squared Frobenius norm);
#: ``"frobenius"``: its square root, ‖U_kᵀ D′‖_F / ‖D‖_F for the data D with A = DDᵀ.
CRITERIA = ("variance", "frobenius")


@dataclass(frozen=True)
class SbSStep:
    """One principal submatrix visited by Algorithm 1.

    Attributes
    ----------
    n_features : int
        Order of the submatrix A′.
    removed_feature : int or None
        Original index of the feature whose removal led here (None at the start).
    eigenvalues : ndarray or None
        λ₁ ≥ … of A′ (None when not recorded: Prop. 1 ruled A′ out and the full trajectory
        was not requested).
    threshold : float or None
        ``4·λ₁(E′)``, the eigengap Lemma 1 requires.
    stable_ks : tuple of int
        The k whose top-k space is stable by Lemma 1.
    retained : ndarray or None
        Termination measure for k = 1 … n_features (fraction of variance or of the
        Frobenius norm of the original matrix).
    ruled_out : bool
        Proposition 1 excluded A′ before any eigendecomposition.
    eigendecomposed : bool
        Algorithm 1 computed the eigenvalues of A′ (steps that were not ruled out).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import sbs, sparse_loadings
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))  # one factor behind features 0-2; 3-5 are noise
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> result = sbs(X, "pca", retain=0.5, n_resamples=200, random_state=0)
    >>> step = result.trajectory[0]  # the full matrix
    >>> step.n_features, step.stable_ks, step.eigendecomposed
    (6, (1,), True)
    >>> bool(step.eigengaps[0] > step.threshold)  # Lemma 1 holds for k = 1
    True
    """

    n_features: int
    removed_feature: int | None
    eigenvalues: np.ndarray | None
    threshold: float | None
    stable_ks: tuple[int, ...]
    retained: np.ndarray | None
    ruled_out: bool
    eigendecomposed: bool

    @property
    def eigengaps(self) -> np.ndarray | None:
        """``λᵢ − λᵢ₊₁`` of A′, i = 1 … n_features − 1."""
        return None if self.eigenvalues is None else -np.diff(self.eigenvalues)


@dataclass(frozen=True)
class SbSResult:
    """Outcome of Algorithm 1.

    Attributes
    ----------
    found : bool
        A stable principal submatrix meeting the termination criterion was found.
    kept : ndarray of int
        Original indices of the features of the final submatrix, ascending.
    removed : ndarray of int
        Original indices of the removed features, in removal order.
    stable_ks : tuple of int
        Stable k of the final submatrix (Lemma 1).
    k : int or None
        The smallest stable k that meets the termination criterion.
    retained : float or None
        The termination measure at that k.
    stopped : str
        ``"criteria met"``, ``"one feature left"`` or ``"retain unreachable"`` (even all
        remaining features hold less than ``retain``; removing more only lowers it).
    trajectory : tuple of SbSStep
        Every submatrix visited, in order.
    n_eigendecompositions : int
        Submatrices Algorithm 1 had to eigendecompose (each: the eigenvalues of A′ and E′).
    n_ruled_out : int
        Submatrices excluded without computing λ₁(E′): by Proposition 1 (``prune=True``), or
        by the interlacing and Rayleigh-quotient bounds of ``prune="rayleigh"``.
    retain : float
    criterion : str
    total : float
        The denominator of the termination measure: trace of the original A.
    A, E : ndarray
        The full similarity/covariance and perturbation matrices.
    intervals : BootstrapIntervals or None
        The intervals E was built from (when :func:`sbs` computed them).
    failed : str or None
        When nothing was found, the criterion that failed: ``"stability"`` (no submatrix on
        the path has a stable top-k space by Lemma 1) or ``"retain"`` (some have, but none
        retains the fraction asked for). None when found.
    best : tuple or None
        The stable subspace of greatest retention on the path, ``(kept, k, retained,
        stable_ks)``, whether or not it meets ``retain``; None when Lemma 1 held nowhere on
        the path.
    onward : tuple or None
        When the path stopped (``retain`` out of reach) before Lemma 1 held anywhere: the
        first submatrix further down the same removal path with a stable top-k space,
        ``(kept, k, retained, stable_ks)`` with the smallest stable k -- what a ``retain`` of
        at most ``retained`` finds -- or ``(kept, None, retained, ())`` with the single
        feature left at the path's end when Lemma 1 holds nowhere. None otherwise.
    closest_gap : float or None
        The largest ratio ``(λ_k − λ_{k+1}) / (4·λ₁(E′))`` met on the path (Lemma 1 needs
        more than 1): how far the data were from stability.
    diagnosis : str
        In words: what was found, or which criterion failed, at which a, and what to try.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import sbs, sparse_loadings
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))  # one factor behind features 0-2; 3-5 are noise
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> result = sbs(X, "pca", retain=0.5, n_resamples=200, random_state=0)
    >>> result.found, result.k, result.stopped
    (True, 1, 'criteria met')
    >>> round(result.retained, 3)
    0.895
    >>> print(result.diagnosis)
    Found: k = 1 eigenvector(s) of 6 of 6 features are stable (Lemma 1) and retain a = 0.895 ≥ 0.5.
    """

    found: bool
    kept: np.ndarray
    removed: np.ndarray
    stable_ks: tuple[int, ...]
    k: int | None
    retained: float | None
    stopped: str
    trajectory: tuple[SbSStep, ...]
    n_eigendecompositions: int
    n_ruled_out: int
    retain: float
    criterion: str
    total: float
    A: np.ndarray
    E: np.ndarray
    intervals: BootstrapIntervals | None = None
    failed: str | None = None
    best: tuple[np.ndarray, int, float, tuple[int, ...]] | None = None
    closest_gap: float | None = None
    diagnosis: str = ""
    onward: tuple[np.ndarray, int | None, float | None, tuple[int, ...]] | None = None

    @property
    def n_removed(self) -> int:
        return int(self.removed.size)


def retained_fraction(
    eigenvalues: object, total: float, criterion: str = "variance"
) -> np.ndarray:
    """Termination measure for k = 1 … n: ``Σ_{i≤k} μᵢ / total``, or its square root.

    ``"variance"`` is PCA's fraction of the original variance (Mavroeidis & Vazirgiannis 2007,
    Sec. 4.3, with A′ a principal submatrix of the covariance matrix and ``total`` = trace of
    the full one) and, for LSI, the fraction of the squared Frobenius norm of the (unit-norm)
    term vectors kept by the projection onto k eigenvectors. ``"frobenius"`` is its square
    root, ``‖U_kᵀD′‖_F / ‖D‖_F`` where A = DDᵀ.

    Parameters
    ----------
    eigenvalues : array-like of shape (n,)
        Eigenvalues μ of the submatrix A′, in any order (sorted descending first).
    total : float
        The denominator: trace of the original A (positive).
    criterion : {"variance", "frobenius"}
        Which measure.

    Returns
    -------
    ndarray of shape (n,)
        The measure for k = 1 … n, non-decreasing.

    Raises
    ------
    ValueError
        If ``total`` is not positive, ``eigenvalues`` is not a finite 1-D array or
        ``criterion`` is unknown.

    Examples
    --------
    >>> from spectral_kit.stability import retained_fraction
    >>> retained_fraction([1.0, 3.0], total=5.0)
    array([0.6, 0.8])
    >>> retained_fraction([1.0, 3.0], total=5.0, criterion="frobenius").round(4)
    array([0.7746, 0.8944])
    """
    criterion = check_choice(criterion, "criterion", CRITERIA)
    total = check_finite_scalar(total, "total", low=0.0, low_inclusive=False)
    mu = np.sort(check_array(eigenvalues, "eigenvalues", ndim=1))[::-1]
    fraction = np.cumsum(mu) / total
    return np.sqrt(np.maximum(fraction, 0.0)) if criterion == "frobenius" else fraction


