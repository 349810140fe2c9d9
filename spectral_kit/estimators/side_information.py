"""Q-α with side information as a scikit-learn feature selector."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.validation import check_array, check_is_fitted

from ..qalpha import q_alpha
from ..qalpha.side import q_alpha_side
from ..validation import check_int, reject_missing, validate_data_named
from .qalpha import n_to_select

__all__ = ["QAlphaSideSelector"]


class QAlphaSideSelector(SelectorMixin, BaseEstimator):
    """Keep the features that cluster the data while staying quiet in side data
    (Q-α with side information, Shashua & Wolf 2004, Def. 3).

    The side data are passed to :meth:`fit` (``X_side``), not to the constructor: they are
    data, not a setting, and they need not have as many samples as X. In a pipeline pass them
    as ``pipe.fit(X, selector__X_side=X_side)``. Without side data (``X_side=None``) D = 0
    and the selector is plain unsupervised Q-α, the λ → ∞ limit of Def. 3.

    Parameters
    ----------
    n_features_to_select : int or float, default=0.5
        Number of features to keep, or a fraction of them.
    k : int, default=2
        Number of clusters of the main data (clipped to ``n_samples − 1``).
    lam : float, default=0.1
        λ ≥ 0 of ``(D + λI)⁻¹G`` (the paper's 0.1).
    side_scale : {"main", "raw"}, default="main"
        How the side variances are scaled (see :mod:`spectral_kit.qalpha.side`).
    method, init, n_init, max_iter, tol
        See :func:`spectral_kit.q_alpha`.
    random_state : None, int or Generator

    Attributes
    ----------
    alpha_ : ndarray of shape (``n_features_in_``,)
        The weights (unit norm, Σα > 0).
    side_variance_ : ndarray of shape (``n_features_in_``,) or None
        The diagonal of D (None when fitted without side data).
    support_ : ndarray of bool
    result_ : QAlphaResult
    n_iter_ : int
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X has feature names.

    Examples
    --------
    >>> from spectral_kit import QAlphaSideSelector
    >>> from spectral_kit.datasets.side_information import make_two_structures
    >>> data = make_two_structures(random_state=0)
    >>> sel = QAlphaSideSelector(n_features_to_select=4, k=3).fit(data.X, X_side=data.X_side)
    >>> bool(sel.get_support()[data.target].all())
    True
    """

    def __init__(
        self,
        n_features_to_select: float | int = 0.5,
        *,
        k: int = 2,
        lam: float = 0.1,
        side_scale: str = "main",
        method: str = "auto",
        init: str = "pca",
        n_init: int = 1,
        max_iter: int = 300,
        tol: float = 1e-6,
        random_state: object = None,
    ):
        self.n_features_to_select = n_features_to_select
        self.k = k
        self.lam = lam
        self.side_scale = side_scale
        self.method = method
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.random_state = random_state

    def fit(self, X: object, y: object = None, *, X_side: object = None) -> QAlphaSideSelector:
        """Run Q-α-SI on ``X`` (samples × features) with side samples ``X_side``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Main data.
        y : ignored
            Unsupervised; present for pipeline compatibility.
        X_side : array-like of shape (n_side, n_features), optional
            Side data over the same features, at least two samples: samples that show only
            the structure to suppress.
        """
        X = validate_data_named(self, X, ensure_min_samples=2, dtype=np.float64)
        n_select = n_to_select(self.n_features_to_select, X.shape[1])
        k = min(check_int(self.k, "k", low=1), X.shape[0] - 1)
        common = {
            "method": self.method, "init": self.init, "n_init": self.n_init,
            "max_iter": self.max_iter, "tol": self.tol, "random_state": self.random_state,
        }
        if X_side is None:
            result = q_alpha(X.T, k, **common)
            self.side_variance_ = None
        else:
            reject_missing(X_side, "X_side")
            side = check_array(X_side, dtype=np.float64, ensure_min_samples=2,
                               input_name="X_side")
            if side.shape[1] != X.shape[1]:
                raise ValueError(
                    f"X_side has {side.shape[1]} features but X has {X.shape[1]}; the side "
                    "samples must be described by the same features as X."
                )
            result = q_alpha_side(
                X.T, side.T, k, self.lam, side_scale=self.side_scale, **common
            )
            self.side_variance_ = result.D
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
