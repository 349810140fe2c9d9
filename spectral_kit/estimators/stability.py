"""Stability based sparse PCA/LSI as a scikit-learn transformer (X is samples × features)."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ..preprocess import row_norms
from ..stability import SbSResult, sbs, sparse_loadings
from ..stability.sbs import first_stable
from ..validation import validate_data_named

__all__ = ["StableSparsePCA"]


class StableSparsePCA(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Project on the stable top-k eigenvectors of a principal submatrix (SbS-PCA / SbS-LSI).

    Mavroeidis & Vazirgiannis, Algorithm 1: features whose covariances (PCA) or cosine
    similarities (LSI) have the widest bootstrap confidence intervals are removed until the
    top-k eigenvector space of the remaining covariance/similarity matrix A′ is provably
    stable (Lemma 1, via Stewart's theorem) and retains the fraction ``retain`` of the
    original variance. The loadings are sparse: zero on every removed feature.

    If no such submatrix exists, a :class:`UserWarning` says which criterion failed (no
    stable subspace at all, or none retaining ``retain``), at which retention, and what to
    try (``diagnosis_``: e.g. the ``retain`` that finds the first stable subspace further
    down the path); the transformer then falls back to the stable subspace of the greatest
    retention met along the removal path; when no subspace on the path is stable, to the
    first stable one further down the path (``result_.onward``, found by going on from
    where the path stopped), or to the single feature left at its end (a one-dimensional
    space is trivially invariant).

    X may be a SciPy sparse matrix (LSI on a term–document matrix, the paper's own use): it
    is never densified. The removal path is screened by bounds rather than Proposition 1
    (``prune="rayleigh"`` of :func:`~spectral_kit.stability.sbs`: the same path, far fewer
    eigendecompositions on wide data).

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
    progress : None or bool, default=None
        Progress bars (text in a terminal, a widget in a notebook) for the bootstrap and the
        removal path: None shows them for large work (about a thousand features or more)
        once it has run 2 s, True always, False never.
    max_seconds : float or None, default=None
        Time budget for ``fit``. When the work would not finish within it,
        :class:`~spectral_kit.progress.BudgetExceeded` (a ``TimeoutError``) stops it and says
        how long it would take -- after a few per cent of the bootstrap when the measured
        rate already projects well beyond the budget.

    Attributes
    ----------
    components_ : ndarray of shape (``n_components_``, ``n_features_in_``)
        Sparse loadings (unit rows, zero outside ``support_``).
    n_components_ : int
        The stable k chosen.
    support_ : ndarray of bool, shape (``n_features_in_``,)
        Features kept.
    stable_ks_ : tuple of int
        Every stable k of the kept submatrix.
    retained_ : float
        Retention measure at ``n_components_``.
    found_ : bool
        Whether Algorithm 1 met the criterion (False: the fallback above was used).
    failed_ : str or None
        The criterion that failed when nothing was found: ``"stability"`` (Lemma 1 held
        nowhere on the path) or ``"retain"`` (stable subspaces exist but retain less).
    diagnosis_ : str
        In words: what was found, or which criterion failed at which a, and what to try
        (e.g. the ``retain`` that finds the first stable subspace further down the path).
    mean_ : ndarray of shape (``n_features_in_``,)
        Training means (PCA) or zeros (LSI).
    scale_ : ndarray of shape (``n_features_in_``,)
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
        progress: bool | None = None,
        max_seconds: float | None = None,
    ):
        self.retain = retain
        self.variant = variant
        self.criterion = criterion
        self.confidence = confidence
        self.method = method
        self.n_resamples = n_resamples
        self.random_state = random_state
        self.progress = progress
        self.max_seconds = max_seconds

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        return tags

    def fit(self, X: object, y: object = None) -> StableSparsePCA:
        """Run SbS on ``X`` (samples × features); ``y`` is ignored."""
        X = validate_data_named(self, X, ensure_min_samples=3, dtype=np.float64,
                                accept_sparse=("csr", "csc"))
        result = sbs(
            X, self.variant, self.retain, criterion=self.criterion, confidence=self.confidence,
            method=self.method, n_resamples=self.n_resamples, random_state=self.random_state,
            prune="rayleigh", full_trajectory=False, progress=self.progress,
            max_seconds=self.max_seconds,
        )
        self.found_ = result.found
        self.failed_ = result.failed
        self.diagnosis_ = result.diagnosis
        if result.found:
            kept, k, stable, retained = result.kept, result.k, result.stable_ks, result.retained
        else:
            kept, k, stable, retained = _fallback(result, X)
            warnings.warn(
                f"{result.diagnosis} Falling back to {kept.size} feature(s) and k = {k}, "
                f"which retain {retained:.3g}.",
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
            self.mean_, self.scale_ = np.asarray(X.mean(axis=0)).ravel(), np.ones(X.shape[1])
        else:
            self.mean_ = np.zeros(X.shape[1])
            # safe from over- and underflow: data near 1e±200 get true norms, not 0 or inf
            self.scale_ = row_norms(X.T)
        self._n_features_out = self.n_components_
        return self

    def transform(self, X: object) -> np.ndarray:
        """Coordinates of ``X`` on the sparse loadings, shape (n_samples, ``n_components_``)."""
        check_is_fitted(self, "components_")
        X = validate_data_named(self, X, reset=False, dtype=np.float64,
                                accept_sparse=("csr", "csc"))
        W = self.components_.T / self.scale_[:, None]
        # (X − mean) W without densifying a sparse X: the centring is a rank-one correction.
        return np.asarray(X @ W) - self.mean_ @ W


def _fallback(result: SbSResult, X: object) -> tuple[np.ndarray, int, tuple[int, ...], float]:
    """Best stable subspace on the removal path, when none meets the criterion."""
    if result.best is not None:
        kept, k, value, stable = result.best
        return kept, k, stable, value
    onward = result.onward
    if onward is None and result.stopped != "one feature left":
        # A result computed without the continuation: follow the path again.
        further = first_stable(result, X)
        onward = (further.kept, further.k, further.retained, further.stable_ks)
    if onward is None or onward[1] is None:
        # Lemma 1 holds nowhere down to the last feature: a one-dimensional space is
        # trivially invariant.
        last = (result.kept if onward is None else onward[0])[:1]
        value = float(result.A[last[0], last[0]]) / result.total
        value = np.sqrt(max(value, 0.0)) if result.criterion == "frobenius" else value
        return last, 1, (), value
    kept, k, value, stable = onward
    return kept, int(k), stable, float(value)
