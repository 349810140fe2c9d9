"""Weighted PCA and weighted Fisher discriminant as scikit-learn transformers.

Wolf & Bileschi (2005): weight the variables, then reduce -- PCA after Algo. 1 or 2, FDA
after Algo. 3. X is samples × features here; the library works on ``M = X.T``.
"""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator, ClassNamePrefixFeaturesOutMixin, TransformerMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..preprocess import preprocess_rows, row_norms
from ..validation import check_choice, check_int, validate_data_named
from ..weighting import (
    Projection,
    parameter_free_weights,
    pca_weights,
    supervised_weights,
    weighted_fda,
    weighted_pca,
)
from ..weighting.result import WeightingResult, nonnegative_weights

__all__ = ["WeightedFDA", "WeightedPCA"]

WEIGHTINGS = ("parameter-free", "q-alpha", "uniform")
FDA_WEIGHTINGS = ("supervised", "parameter-free", "uniform")


def _uniform_weights(n_features: int) -> WeightingResult:
    """Equal weights: the control that isolates the effect of normalising the features."""
    alpha, u, negative = nonnegative_weights(np.ones(n_features))
    return WeightingResult(alpha, u, 0.0, negative, "uniform", "none")


class _ReweightedReduction(ClassNamePrefixFeaturesOutMixin, TransformerMixin, BaseEstimator):
    """Shared fit/transform plumbing: normalise features, reweight by √α, project."""

    def _normalise(self, X: np.ndarray) -> np.ndarray:
        """M = X.T with centred, unit-norm rows; remembers the training mean and norms."""
        M = preprocess_rows(X.T, name="X.T")
        self.mean_ = X.mean(axis=0)
        self.scale_ = row_norms(X.T - self.mean_[:, None])
        return M

    def _store(self, result: WeightingResult, projection: Projection) -> None:
        self.result_ = result
        self.alpha_ = result.alpha
        self.weights_ = np.sqrt(result.alpha)
        self.components_ = projection.W.T.copy()
        self.center_ = projection.center
        self.n_components_ = self.components_.shape[0]

    @property
    def _n_features_out(self) -> int:
        return self.n_components_

    def transform(self, X: object) -> np.ndarray:
        """Project samples: ``((x − mean_) / scale_ · √α_ − center_) @ components_.T``."""
        check_is_fitted(self, "components_")
        X = validate_data_named(self, X, reset=False, dtype=np.float64)
        Z = (X - self.mean_) / self.scale_ * self.weights_ - self.center_
        return Z @ self.components_.T


class WeightedPCA(_ReweightedReduction):
    """PCA after variable weighting (Wolf & Bileschi 2005, Algos. 1 and 2).

    Every feature is centred and scaled to unit norm over the training samples, weighted by
    ``√α`` and the principal components of the reweighted data are kept. Unsupervised: ``y``
    is ignored.

    Parameters
    ----------
    n_components : int, default=2
        Number of principal components (clipped to min(n_samples, n_features)).
    weighting : {"parameter-free", "q-alpha", "uniform"}, default="parameter-free"
        Algo. 2 (leading eigenvector of ``(MMᵀ)^∘2``), Algo. 1 (Q-α with the full
        eigen-step) or equal weights (PCA of the normalised features, the control that
        separates the effect of the weights from that of the normalisation).
    k : int, optional
        Number of informative directions for Algo. 1; default ``n_components`` (the paper
        weights for the k directions PCA then keeps). Clipped to n_samples − 1.
    init : {"parameter-free", "pca", "random"}, default="parameter-free"
        Start of Algo. 1 (see :func:`spectral_kit.weighting.pca_weights`).
    max_iter, tol : int, float
        Iteration limit and tolerance of Algo. 1.
    random_state : None, int or Generator
        Seeds Algo. 1's random start.

    Attributes
    ----------
    alpha_ : ndarray of shape (``n_features_in_``,)
        The weights α (non-negative, unit norm).
    weights_ : ndarray of shape (``n_features_in_``,)
        ``√α_``, the factor applied to every normalised feature.
    components_ : ndarray of shape (``n_components_``, ``n_features_in_``)
        Principal directions of the reweighted, normalised features.
    explained_variance_ : ndarray of shape (``n_components_``,)
        Variance of the training samples along each component.
    mean_, scale_ : ndarray of shape (``n_features_in_``,)
        Training mean and L2 norm of every centred feature.
    result_ : WeightingResult
    n_iter_ : int
        Iterations of Algo. 1 (1 for the single eigen-solve of Algo. 2).
    n_components_ : int
        Number of components kept.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Names of the features seen in ``fit``, when X had string column names.

    Examples
    --------
    >>> from spectral_kit.estimators.weighting import WeightedPCA
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> WeightedPCA(n_components=2).fit_transform(data.X).shape
    (100, 2)
    """

    def __init__(
        self,
        n_components: int = 2,
        *,
        weighting: str = "parameter-free",
        k: int | None = None,
        init: str = "parameter-free",
        max_iter: int = 300,
        tol: float = 1e-6,
        random_state: object = None,
    ):
        self.n_components = n_components
        self.weighting = weighting
        self.k = k
        self.init = init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X: object, y: object = None) -> WeightedPCA:
        """Weight the features of ``X`` (samples × features) and fit the PCA."""
        X = validate_data_named(self, X, ensure_min_samples=2, dtype=np.float64)
        weighting = check_choice(self.weighting, "weighting", WEIGHTINGS)
        n_components = min(check_int(self.n_components, "n_components", low=1), *X.shape)
        M = self._normalise(X)
        if weighting == "parameter-free":
            result = parameter_free_weights(M, preprocess=False)
        elif weighting == "q-alpha":
            k = n_components if self.k is None else check_int(self.k, "k", low=1)
            result = pca_weights(
                M, min(k, X.shape[0] - 1), init=self.init, max_iter=self.max_iter,
                tol=self.tol, preprocess=False, random_state=self.random_state,
            )
        else:
            result = _uniform_weights(M.shape[0])
        projection = weighted_pca(M, result.alpha, n_components, preprocess=False)
        self._store(result, projection)
        self.explained_variance_ = projection.values / (X.shape[0] - 1)
        # Algo. 1 alternates; Algos. 2 and the uniform control are a single eigen-solve.
        self.n_iter_ = result.details.n_iter if result.details is not None else 1
        return self


class WeightedFDA(_ReweightedReduction):
    """Fisher's discriminant after supervised variable weighting (Wolf & Bileschi 2005,
    Algo. 3 and Appendix A).

    Every feature is centred and scaled to unit norm, weighted by ``√α`` with α the leading
    eigenvector of ``H − λG`` (Algo. 3), and the multi-class Fisher directions of the
    reweighted data are kept (after a PCA step to at most n_samples − n_classes dimensions,
    as fisherfaces).

    Parameters
    ----------
    n_components : int, optional
        Number of discriminant directions; default and upper limit n_classes − 1.
    weighting : {"supervised", "parameter-free", "uniform"}, default="supervised"
        Algo. 3; Algo. 2 (unsupervised weights, then FDA -- the "Algo. 2 + Fisher" of the
        paper's Table 1); or equal weights (FDA of the normalised features).
    lam : float, default=1.0
        λ ≥ 0, weight of the within-class scatter in Algo. 3 (1 weighs between- and
        within-class scatter equally for normalised features).
    n_pca : int, optional
        Dimension of the PCA step before FDA; default and upper limit
        min(rank, n_samples − n_classes).

    Attributes
    ----------
    alpha_, weights_, mean_, scale_, result_
        As in :class:`WeightedPCA`.
    components_ : ndarray of shape (``n_components_``, ``n_features_in_``)
        Discriminant directions in the reweighted, normalised feature space.
    fisher_ratios_ : ndarray of shape (``n_components_``,)
        ``wᵀS_Bw / wᵀS_Ww`` of every direction on the training data.
    classes_ : ndarray
    n_components_ : int
        Number of components kept.
    n_features_in_ : int
        Number of features seen in ``fit``.
    feature_names_in_ : ndarray of str
        Names of the features seen in ``fit``, when X had string column names.

    Examples
    --------
    On Fig. 1's data the three relevant features get the three largest weights:

    >>> import numpy as np
    >>> from spectral_kit.estimators import WeightedFDA
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> model = WeightedFDA().fit(data.X, data.y)
    >>> model.transform(data.X).shape  # two classes: one discriminant direction
    (100, 1)
    >>> sorted(np.argsort(model.alpha_)[-3:].tolist()) == np.flatnonzero(data.relevant).tolist()
    True
    """

    def __init__(
        self,
        n_components: int | None = None,
        *,
        weighting: str = "supervised",
        lam: float = 1.0,
        n_pca: int | None = None,
    ):
        self.n_components = n_components
        self.weighting = weighting
        self.lam = lam
        self.n_pca = n_pca

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    def fit(self, X: object, y: object) -> WeightedFDA:
        """Weight the features of ``X`` (samples × features) with labels ``y``; fit the FDA."""
        X, y = validate_data_named(self, X, y, ensure_min_samples=2, dtype=np.float64)
        check_classification_targets(y)
        self.classes_ = np.unique(y)
        if self.classes_.size < 2:
            raise ValueError(
                f"WeightedFDA needs at least two classes in y; got 1 class "
                f"({self.classes_[0]!r})."
            )
        weighting = check_choice(self.weighting, "weighting", FDA_WEIGHTINGS)
        M = self._normalise(X)
        if weighting == "supervised":
            result = supervised_weights(M, y, self.lam, preprocess=False)
        elif weighting == "parameter-free":
            result = parameter_free_weights(M, preprocess=False)
        else:
            result = _uniform_weights(M.shape[0])
        n_pca = None if self.n_pca is None else check_int(self.n_pca, "n_pca", low=1)
        projection = weighted_fda(M, y, result.alpha, n_pca=n_pca, preprocess=False)
        if self.n_components is not None:
            # Directions come sorted by Fisher ratio, so keeping the first ones is exact.
            keep = check_int(self.n_components, "n_components", low=1)
            projection = Projection(
                W=projection.W[:, :keep], embedding=projection.embedding[:, :keep],
                values=projection.values[:keep], center=projection.center,
            )
        self._store(result, projection)
        self.fisher_ratios_ = projection.values
        return self
