"""Sparse LDA as a scikit-learn classifier and feature selector (Moghaddam et al. 2006)."""

from __future__ import annotations

import dataclasses
import numbers
import time

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.feature_selection import SelectorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted

from ..progress import check_max_seconds, check_progress
from ..sparse_lda import (
    eslda,
    greedy_backward,
    greedy_forward,
    gslda,
    simple_threshold,
)
from ..sparse_lda._numerics import subset_vector
from ..sparse_lda.data import scatter_matrices
from ..sparse_lda.lda import lda_coefficients
from ..sparse_lda.pair import check_pair, resolve_epsilon
from ..validation import (
    check_choice,
    check_finite_scalar,
    scale_exponent,
    unscale,
    validate_data_named,
)
from .qalpha import n_to_select

__all__ = ["METHODS", "SparseLDA"]

#: How the k features are chosen: GSLDA (both greedy passes), the exact branch-and-bound,
#: one greedy pass, or simple thresholding with the renormalization fix.
METHODS = ("gslda", "eslda", "forward", "backward", "threshold")


class SparseLDA(ClassifierMixin, SelectorMixin, BaseEstimator):
    """Sparse linear discriminant: k features chosen by sparse LDA, then LDA on them.

    The k features maximize the generalized Rayleigh quotient λ_max(A_S, B_S) of the
    between-class (A) and within-class (B) covariances (Moghaddam, Weiss & Avidan 2006,
    Eq. 3), found greedily (GSLDA) or exactly (ESLDA). The classifier is Gaussian LDA on the
    selected features with the shared covariance B + εI; for two classes its ``coef_`` is
    the sparse discriminant of Eq. 6 (zero outside the support).

    Parameters
    ----------
    n_features_to_select : int or float, default=0.5
        Cardinality k, or a fraction of the features (0.5 = the paper's "half-sparsity"). A
        fraction is raised to at least min(n_features, n_classes − 1), the number of
        discriminant directions of LDA.
    method : {"gslda", "eslda", "forward", "backward", "threshold"}, default="gslda"
        Selection algorithm (see :mod:`spectral_kit.sparse_lda`).
    regularization : None, float or "auto", default="auto"
        Within-class regularization B ← B + εI (Sec. 3.2); ``"auto"`` adds ε only when B is
        rank-deficient. The value used is ``epsilon_``.
    max_seconds : float, optional
        Time budget of the selection. ESLDA uses its incumbent when it is reached
        (``optimal_`` is False); GSLDA raises :class:`~spectral_kit.progress.BudgetExceeded`,
        with the time it would take, as soon as the rate of its first steps projects the
        path beyond the budget (:func:`~spectral_kit.sparse_lda.gslda`).
    progress : None or bool, default=None
        A progress bar of the GSLDA path (text in a terminal, a widget in a notebook): None
        shows one for 1000 or more features once the path has run two seconds; True
        always, False never.
    n_jobs : int, optional
        Worker processes for an ESLDA search that runs longer than two seconds (None: one
        process; −1: every CPU). The selection is certified either way.

    Attributes
    ----------
    classes_ : ndarray
    support_ : ndarray of bool, shape (``n_features_in_``,)
        Mask of the selected features (also ``get_support()``).
    coef_ : ndarray of shape (1, ``n_features_in_``) or (n_classes, ``n_features_in_``)
        Zero outside the support.
    intercept_ : ndarray
    discriminant_ : ndarray of shape (``n_features_in_``,)
        The sparse factor x of Eq. 6 (xᵀ(B + εI)x = 1).
    value_ : float
        λ_max(A_S, B_S + εI), the generalized Rayleigh quotient of the selection.
    epsilon_ : float
        Regularization used.
    optimal_ : bool or None
        For ``method="eslda"``: whether optimality was certified; None otherwise.
    path_ : GSLDAPath or NestedPath or None
        The whole greedy path when the method produces one (supports and values for all k).
    n_features_in_ : int
    feature_names_in_ : ndarray of str, when X has feature names.

    Examples
    --------
    >>> from sklearn.datasets import make_classification
    >>> from spectral_kit import SparseLDA
    >>> X, y = make_classification(200, 20, n_informative=4, random_state=0)
    >>> model = SparseLDA(n_features_to_select=4).fit(X, y)
    >>> model.get_support().nonzero()[0]
    array([ 8,  9, 12, 19])

    Four of the twenty features keep most of the training accuracy of LDA on all of them:

    >>> from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
    >>> full = LinearDiscriminantAnalysis().fit(X, y)
    >>> round(model.score(X, y), 2), round(full.score(X, y), 2)
    (0.73, 0.77)
    """

    def __init__(
        self,
        n_features_to_select: float | int = 0.5,
        *,
        method: str = "gslda",
        regularization: float | str | None = "auto",
        max_seconds: float | None = None,
        n_jobs: int | None = None,
        progress: bool | None = None,
    ):
        self.n_features_to_select = n_features_to_select
        self.method = method
        self.regularization = regularization
        self.max_seconds = max_seconds
        self.n_jobs = n_jobs
        self.progress = progress

    def fit(self, X: object, y: object) -> SparseLDA:
        """Select k features of ``X`` (samples × features) and fit LDA on them."""
        start = time.perf_counter()
        X, y = validate_data_named(self, X, y, dtype=np.float64, ensure_min_samples=2)
        check_classification_targets(y)
        method = check_choice(self.method, "method", METHODS)
        progress = check_progress(self.progress)
        # ESLDA accepts 0 s (the start alone); a GSLDA path needs a positive budget
        max_seconds = (self.max_seconds if method == "eslda" or self.max_seconds is None
                       else check_max_seconds(self.max_seconds))
        classes = np.unique(y)
        if classes.size < 2:
            raise ValueError(
                f"SparseLDA needs at least two classes in y; got 1 class ({classes[0]!r})."
            )
        n = X.shape[1]
        k = n_to_select(self.n_features_to_select, n)
        if not isinstance(self.n_features_to_select, numbers.Integral):
            # A fraction never keeps fewer features than LDA has discriminant directions.
            k = max(k, min(n, classes.size - 1))
        # The selection does not depend on the units of X: it runs on X / 2^e (exact), with
        # A and B of unit scale, and ε and the coefficients are scaled back.
        e = scale_exponent(X)
        regularization = self.regularization
        if isinstance(regularization, numbers.Real) and not isinstance(regularization, bool):
            regularization = float(np.ldexp(check_finite_scalar(
                regularization, "regularization", low=0.0), -2 * e))
        sc = scatter_matrices(np.ldexp(X, -e), y)
        A = sc.d if sc.d is not None else sc.A
        eps = resolve_epsilon(regularization, sc.B, sc.A)
        self.path_, self.optimal_ = None, None
        if method == "gslda":
            if max_seconds is not None:  # the scatter matrices count against the budget
                max_seconds = max(max_seconds - (time.perf_counter() - start), 1e-9)
            self.path_ = gslda(A, sc.B, regularization=eps, progress=progress,
                               max_seconds=max_seconds)
            support = self.path_.support_at(k)
        elif method == "forward":
            self.path_ = greedy_forward(A, sc.B, k, regularization=eps)
            support = self.path_.support_at(k)
        elif method == "backward":
            self.path_ = greedy_backward(A, sc.B, regularization=eps)
            support = self.path_.support_at(k)
        elif method == "threshold":
            support = simple_threshold(A, sc.B, k, regularization=eps).support
        else:
            result = eslda(A, sc.B, k, max_seconds=max_seconds, regularization=eps,
                           n_jobs=self.n_jobs)
            support, self.optimal_ = result.support, result.optimal
        pair = check_pair(A, sc.B, eps)
        self.value_, self.discriminant_ = subset_vector(pair, support)
        self.classes_ = sc.classes
        self.epsilon_ = float(unscale(eps, 2 * e, "ε"))
        self.discriminant_ = unscale(self.discriminant_, -e, "the discriminant")
        coef, self.intercept_ = lda_coefficients(sc.means, sc.priors, sc.B, support, eps)
        self.coef_ = unscale(coef, -e, "the LDA coefficients")
        if self.path_ is not None:
            self.path_ = _with_epsilon(self.path_, self.epsilon_)
        mask = np.zeros(n, dtype=bool)
        mask[support] = True
        self.support_ = mask
        return self

    def decision_function(self, X: object) -> np.ndarray:
        """LDA scores: 1-D for two classes (positive → ``classes_[1]``), else one per class."""
        check_is_fitted(self, "coef_")
        X = validate_data_named(self, X, dtype=np.float64, reset=False)
        scores = X @ self.coef_.T + self.intercept_
        return scores[:, 0] if self.classes_.size == 2 else scores

    def predict(self, X: object) -> np.ndarray:
        """Class of every sample of ``X``."""
        scores = self.decision_function(X)
        if self.classes_.size == 2:
            return self.classes_[(scores > 0).astype(int)]
        return self.classes_[np.argmax(scores, axis=1)]

    def _get_support_mask(self) -> np.ndarray:
        check_is_fitted(self, "support_")
        return self.support_


def _with_epsilon(path, epsilon: float):
    """The path with its ε in the units of X (it was computed on X / 2^e)."""
    nested = {f: _with_epsilon(getattr(path, f), epsilon)
              for f in ("forward", "backward") if hasattr(path, f)}
    return dataclasses.replace(path, epsilon=epsilon, **nested)
