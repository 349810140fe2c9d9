"""Q-α as a scikit-learn feature selector."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..qalpha import q_alpha, q_alpha_supervised
from ..qalpha.supervised import DEFAULT_READING, check_class_labels
from ..validation import check_int, reject_missing, unique_labels

__all__ = ["QAlphaSelector", "n_to_select"]


def n_to_select(n_features_to_select: object, n_features: int) -> int:
    """Resolve an int count or a fraction in (0, 1] to a count in [1, n_features]."""
    value = n_features_to_select
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(
            f"n_features_to_select must be an int or a float in (0, 1]; got {value!r}."
        )
    if isinstance(value, numbers.Integral):
        if value < 1:
            raise ValueError(f"n_features_to_select must be ≥ 1; got {value}.")
        return int(min(value, n_features))
    if not 0.0 < float(value) <= 1.0:
        raise ValueError(
            f"n_features_to_select as a fraction must lie in (0, 1]; got {value}."
        )
    return max(1, round(float(value) * n_features))


def _check_no_constant_columns(X: np.ndarray) -> None:
    """Name constant columns of X (Q-α scales every feature to unit norm after centring)."""
    flat = np.flatnonzero(np.ptp(X, axis=0) == 0)
    if flat.size:
        listed = ", ".join(str(i) for i in flat[:10]) + (" ..." if flat.size > 10 else "")
        raise ValueError(
            f"X has {flat.size} constant feature(s) (column index {listed}); Q-α centres "
            "every feature and scales it to unit norm, which a constant cannot take. Remove "
            "them first, e.g. with sklearn.feature_selection.VarianceThreshold() in the "
            "pipeline before this selector."
        )


def _check_y(y: object, n_samples: int) -> np.ndarray:
    """``y`` as class labels with at least two classes, or a clear error."""
    labels = np.asarray(y)
    if labels.ndim == 1 and labels.shape[0] == n_samples and unique_labels(
            labels, "y").size < 2:
        raise ValueError(
            f"QAlphaSelector needs at least two classes in y; got 1 class "
            f"({np.unique(labels)[0].item()!r}). Fit without y, or with use_labels=False, for "
            "unsupervised Q-α."
        )
    return check_class_labels(labels, n_samples, "y")


class QAlphaSelector(SelectorMixin, BaseEstimator):
    """Keep the features with the largest Q-α weights (Wolf & Shashua 2005).

    Unsupervised Q-α (Defs. 1–5) when fitted without labels; supervised Q-α (Def. 6) when
    ``y`` is given and ``use_labels`` is true, so the same selector works in a clustering
    pipeline and in a classification ``Pipeline``/``GridSearchCV``. With labels the default
    reading of Def. 6 is ``"balanced"`` (see :func:`spectral_kit.q_alpha_supervised`): on
    the suite of labelled problems and its held-out variants (reproduction
    ``wolf-shashua-2005/supervised-suite``) it is the reading with the best mean share of
    relevant features, never behind ignoring the labels, and level with the best filter
    where the classes differ in their means.

    Parameters
    ----------
    n_features_to_select : int or float, default=0.5
        Number of features to keep, or a fraction of them.
    k : int, default=2
        Number of clusters / leading eigenvectors for unsupervised Q-α (clipped to
        ``n_samples − 1``).
    use_labels : bool, default=True
        Use ``y`` (as class labels) when it is given. ``y`` must then hold at least two
        classes and must not be a continuous target (a float y with many distinct values
        raises ``ValueError``); fit without ``y`` or with ``use_labels=False`` for
        unsupervised Q-α.
    reading : str, default="balanced"
        Reading of Def. 6 (``"balanced"``, ``"class-means"``, ``"class"``, ``"global"``,
        ``"uncentred"`` or ``"label-subspace"``); see :func:`spectral_kit.q_alpha_supervised`
        for when each one is the right choice.
    k_within, k_between, gamma
        Parameters of supervised Q-α (Def. 6); ``None`` takes the reading's own choice.
    method, spectrum, criterion, init, n_init, max_iter, tol
        See :func:`spectral_kit.q_alpha`.
    random_state : None, int or Generator

    Attributes
    ----------
    alpha_ : ndarray of shape (``n_features_in_``,)
        The Q-α weights (unit norm, Σα > 0).
    support_ : ndarray of bool
        Mask of the selected features.
    result_ : QAlphaResult
        The full result of the run.
    n_iter_ : int
        Iterations performed.
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X has feature names.

    Examples
    --------
    >>> from sklearn.pipeline import make_pipeline
    >>> from sklearn.svm import LinearSVC
    >>> from spectral_kit import QAlphaSelector
    >>> from spectral_kit.datasets import make_weston_linear
    >>> X, y, relevant = make_weston_linear(100, random_state=0)
    >>> model = make_pipeline(QAlphaSelector(n_features_to_select=6), LinearSVC())
    >>> model.fit(X, y).score(X, y) > 0.9
    True
    """

    def __init__(
        self,
        n_features_to_select: float | int = 0.5,
        *,
        k: int = 2,
        use_labels: bool = True,
        reading: str = DEFAULT_READING,
        k_within: int = 2,
        k_between: int | None = None,
        gamma: float | None = None,
        method: str = "auto",
        spectrum: str = "standard",
        criterion: str = "top",
        init: str = "pca",
        n_init: int = 1,
        max_iter: int = 300,
        tol: float = 1e-6,
        random_state: object = None,
    ):
        self.n_features_to_select = n_features_to_select
        self.k = k
        self.use_labels = use_labels
        self.reading = reading
        self.k_within = k_within
        self.k_between = k_between
        self.gamma = gamma
        self.method = method
        self.spectrum = spectrum
        self.criterion = criterion
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X: object, y: object = None) -> QAlphaSelector:
        """Run Q-α on ``X`` (samples × features); use ``y`` as class labels if given."""
        reject_missing(X, "X")
        if y is not None:
            reject_missing(y, "y")
        X = validate_data(self, X, ensure_min_samples=2, dtype=np.float64)
        n_select = n_to_select(self.n_features_to_select, X.shape[1])
        _check_no_constant_columns(X)
        common = {
            "method": self.method, "init": self.init, "n_init": self.n_init,
            "max_iter": self.max_iter,
            "tol": self.tol, "random_state": self.random_state,
        }
        labels = None if (y is None or not self.use_labels) else _check_y(y, X.shape[0])
        if labels is not None:
            result = q_alpha_supervised(
                X.T, labels, reading=self.reading, k_within=self.k_within,
                k_between=self.k_between, gamma=self.gamma, **common,
            )
        else:
            k = min(check_int(self.k, "k", low=1), X.shape[0] - 1)
            result = q_alpha(
                X.T, k, spectrum=self.spectrum, criterion=self.criterion, **common
            )
        self.result_ = result
        self.alpha_ = result.alpha
        self.n_iter_ = result.n_iter
        support = np.zeros(X.shape[1], dtype=bool)
        support[result.top_features(n_select)] = True
        self.support_ = support
        return self

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_
