"""Stability based sparse PCA/LSI as a scikit-learn transformer (X is samples × features)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..stability import SbSResult, sbs, sparse_loadings, stable_principal_submatrix
from ..validation import validate_data_named

__all__ = ["StableSparsePCA"]


class StableSparsePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Project on the stable top-k eigenvectors of a principal submatrix (SbS-PCA / SbS-LSI).

    Mavroeidis & Vazirgiannis, Algorithm 1: features whose covariances (PCA) or cosine
    similarities (LSI) have the widest bootstrap confidence intervals are removed until the
    top-k eigenvector space of the remaining covariance/similarity matrix A′ is provably
    stable (Lemma 1, via Stewart's theorem) and retains the fraction ``retain`` of the
    original variance. The loadings are sparse: zero on every removed feature.

    If no such submatrix exists, a :class:`UserWarning` is raised and the transformer falls
    back to the stable subspace of the greatest retention met along the removal path; when
    no subspace on the path is stable, to the single feature left at its end (a
    one-dimensional space is trivially invariant).

    Parameters
    ----------
    retain : float, default=0.5
        Termination criterion a in (0, 1] (fraction of the original variance).
    variant : {"pca", "lsi"}, default="pca"
        Covariance of centred features (PCA) or cosine of raw features (LSI).
    criterion : {"variance", "frobenius"} or None, default=None
        See :func:`spectral_kit.stability.retained_fraction`; ``"variance"`` when None.
    confidence : float, default=0.9
        Coverage of the bootstrap intervals.
    method : {"bca", "percentile"}, default="bca"
    n_resamples : int, default=1000
    random_state : None, int or numpy Generator, default=None

    Attributes
    ----------
    components_ : ndarray of shape (n_components_, n_features_in_)
        Sparse loadings (unit rows, zero outside ``support_``).
    n_components_ : int
        The stable k chosen.
    support_ : ndarray of bool, shape (n_features_in_,)
        Features kept.
    stable_ks_ : tuple of int
        Every stable k of the kept submatrix.
    retained_ : float
        Retention measure at ``n_components_``.
    found_ : bool
        Whether Algorithm 1 met the criterion (False: the fallback above was used).
    mean_ : ndarray of shape (n_features_in_,)
        Training means (PCA) or zeros (LSI).
    scale_ : ndarray of shape (n_features_in_,)
        Ones (PCA) or training column norms (LSI: the cosine is the Gram matrix of the
        normalised columns).
    result_ : SbSResult
        The full run, with its trajectory and intervals.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X has feature names.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import StableSparsePCA
    >>> rng = np.random.default_rng(0)
    >>> latent = rng.normal(size=(500, 1))
    >>> X = np.hstack([latent + 0.1 * rng.normal(size=(500, 4)), rng.normal(size=(500, 3))])
    >>> model = StableSparsePCA(retain=0.5, n_resamples=200, random_state=0).fit(X)
    >>> model.n_components_, model.transform(X).shape
    (1, (500, 1))
    """

    def __init__(
        self,
        retain: float = 0.5,
        *,
        variant: str = "pca",
        criterion: str | None = None,
        confidence: float = 0.9,
        method: str = "bca",
        n_resamples: int = 1000,
        random_state: object = None,
    ):
        self.retain = retain
        self.variant = variant
        self.criterion = criterion
        self.confidence = confidence
        self.method = method
        self.n_resamples = n_resamples
        self.random_state = random_state

    def fit(self, X: object, y: object = None) -> StableSparsePCA:
        """Run SbS on ``X`` (samples × features); ``y`` is ignored."""
        X = validate_data_named(self, X, ensure_min_samples=3, dtype=np.float64)
        result = sbs(
            X, self.variant, self.retain, criterion=self.criterion, confidence=self.confidence,
            method=self.method, n_resamples=self.n_resamples, random_state=self.random_state,
        )
        self.found_ = result.found
        if result.found:
            kept, k, stable, retained = result.kept, result.k, result.stable_ks, result.retained
        else:
            kept, k, stable, retained = _fallback(result)
            warnings.warn(
                f"no principal submatrix has a stable top-k space retaining {self.retain:g} "
                f"of the variance (stopped: {result.stopped}); using {kept.size} feature(s) "
                f"and k = {k}, which retain {retained:.3g}. Lower retain, raise the number "
                "of samples, or avoid PCA/LSI on these data.",
                UserWarning, stacklevel=2,
            )
        chosen = SbSResult(
            True, kept, result.removed, stable, k, retained, result.stopped, (), 0, 0,
            result.retain, result.criterion, result.total, result.A, result.E,
        )
        self.result_ = result
        self.support_ = np.zeros(X.shape[1], dtype=bool)
        self.support_[kept] = True
        self.components_ = sparse_loadings(chosen, k).T
        self.n_components_ = int(k)
        self.stable_ks_ = stable
        self.retained_ = float(retained)
        if self.variant == "pca":
            self.mean_, self.scale_ = X.mean(axis=0), np.ones(X.shape[1])
        else:
            self.mean_, self.scale_ = np.zeros(X.shape[1]), np.linalg.norm(X, axis=0)
        self._n_features_out = self.n_components_
        return self

    def transform(self, X: object) -> np.ndarray:
        """Coordinates of ``X`` on the sparse loadings, shape (n_samples, n_components_)."""
        check_is_fitted(self, "components_")
        X = validate_data_named(self, X, reset=False, dtype=np.float64)
        return ((X - self.mean_) / self.scale_) @ self.components_.T


def _fallback(result: SbSResult) -> tuple[np.ndarray, int, tuple[int, ...], float]:
    """Best stable subspace on the removal path, when none meets the criterion."""
    best = None
    removed_so_far: list[int] = []
    n = result.A.shape[0]
    for step in result.trajectory:
        if step.removed_feature is not None:
            removed_so_far.append(step.removed_feature)
        for k in step.stable_ks:
            value = float(step.retained[k - 1])
            if best is None or value > best[3]:
                kept = np.setdiff1d(np.arange(n), removed_so_far)
                best = (kept, k, step.stable_ks, value)
    if best is not None:
        return best
    # Follow the same removal path further, down to the first stable submatrix.
    tiny = float(np.finfo(float).tiny)
    onward = stable_principal_submatrix(result.A, result.E, tiny, criterion=result.criterion,
                                        total=result.total)
    if onward.found:
        return onward.kept, int(onward.k), onward.stable_ks, float(onward.retained)
    last = onward.kept[:1]
    sub = result.A[np.ix_(last, last)]
    value = float(sub[0, 0]) / result.total
    value = np.sqrt(max(value, 0.0)) if result.criterion == "frobenius" else value
    return last, 1, (), value
