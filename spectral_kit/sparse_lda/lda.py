"""Classifying with a sparse discriminant: Gaussian LDA restricted to a support.

On a support S the two-class Fisher direction B_S⁻¹(μ_1 − μ_0) is the principal generalized
eigenvector of (A_S, B_S) -- the renormalized sparse factor of Eq. 6 -- so classifying with
the sparse factor is LDA on the selected variables with the shared (regularized) within-class
covariance B + εI. This is how the error-vs-k curves of Figs. 2–4 are computed here.
"""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import check_array, check_finite_scalar, check_labels, scale_exponent, unscale
from .data import scatter_matrices
from .pair import resolve_epsilon
from .spectrum import check_support

__all__ = ["LinearDiscriminant", "discriminant_errors", "fit_discriminant", "lda_coefficients"]


@dataclass(frozen=True)
class LinearDiscriminant:
    """Gaussian LDA on a support S with covariance B + εI.

    Attributes
    ----------
    coef : ndarray of shape (1, n) for two classes, (n_classes, n) otherwise
        Zero outside S. For two classes ``B_S⁻¹ (μ_1 − μ_0)`` on S: the sparse discriminant.
    intercept : ndarray of shape (1,) or (n_classes,)
    classes : ndarray
    support : ndarray of int
    epsilon : float

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> lda = sl.fit_discriminant(X, y, [0])
    >>> lda.support.tolist(), float(lda.coef[0, 1])
    ([0], 0.0)
    """

    coef: np.ndarray
    intercept: np.ndarray
    classes: np.ndarray
    support: np.ndarray
    epsilon: float

    def decision_function(self, X: Any) -> np.ndarray:
        """Scores: 1-D (positive → ``classes[1]``) for two classes, (N, n_classes) otherwise."""
        X = check_array(X, "X", rows_label="samples", cols_label="features")
        n = self.coef.shape[1]
        if X.shape[1] != n:
            raise ValueError(
                f"X has {X.shape[1]} features but the discriminant was fitted on {n}; pass "
                "samples with the training data's features (one sample: X.reshape(1, -1))."
            )
        scores = X @ self.coef.T + self.intercept
        return scores[:, 0] if self.classes.size == 2 else scores

    def predict(self, X: Any) -> np.ndarray:
        """Class of every row of X (samples × features)."""
        scores = self.decision_function(X)
        if self.classes.size == 2:
            return self.classes[(scores > 0).astype(int)]
        return self.classes[np.argmax(scores, axis=1)]


def lda_coefficients(
    means: np.ndarray, priors: np.ndarray, B: np.ndarray, support: np.ndarray, epsilon: float
) -> tuple[np.ndarray, np.ndarray]:
    """Coefficients and intercepts of Gaussian LDA on ``support`` with covariance B + εI.

    Class scores ``xᵀW_c − ½ μ_cᵀW_c + log π_c`` with ``W_c = (B_S + εI)⁻¹ μ_{c,S}``; two
    classes are reduced to one row, class 1 minus class 0.
    """
    n = B.shape[0]
    B_S = B[np.ix_(support, support)].copy()
    B_S[np.diag_indices_from(B_S)] += epsilon
    M_S = means[:, support]
    W = scipy.linalg.cho_solve(
        scipy.linalg.cho_factor(B_S, lower=True, check_finite=False), M_S.T, check_finite=False
    ).T
    const = -0.5 * np.einsum("ij,ij->i", M_S, W) + np.log(priors)
    coef = np.zeros((means.shape[0], n))
    coef[:, support] = W
    if means.shape[0] == 2:
        return coef[1:] - coef[:1], np.array([const[1] - const[0]])
    return coef, const


def fit_discriminant(
    X: Any, y: Any, support: Any = None, *, regularization: Any = "auto"
) -> LinearDiscriminant:
    """Gaussian LDA on the variables in ``support`` with covariance B + εI.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Training samples (rows).
    y : array-like of shape (n_samples,)
    support : array-like of int or bool mask, optional
        The selected variables; default all.
    regularization : None, float or "auto"
        ε of B ← B + εI, resolved on the full within-class matrix B.

    Returns
    -------
    LinearDiscriminant

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> lda = sl.fit_discriminant(X, y)
    >>> lda.classes.tolist(), lda.coef.shape
    ([0, 1], (1, 2))
    """
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    check_labels(y, X.shape[0], "y")
    # The discriminant is equivariant to the scale of X (coef ∝ 1/scale, ε ∝ scale²): fit on
    # X / 2^e (exact) so that no scatter over- or underflows, then scale back.
    e = scale_exponent(X)
    if isinstance(regularization, numbers.Real) and not isinstance(
            regularization, (bool, np.bool_)):
        regularization = float(np.ldexp(check_finite_scalar(
            regularization, "regularization", low=0.0), -2 * e))
    sc = scatter_matrices(np.ldexp(X, -e), y)
    n = X.shape[1]
    idx = np.arange(n) if support is None else check_support(support, n)
    eps = resolve_epsilon(regularization, sc.B, sc.A)
    try:
        coef, intercept = lda_coefficients(sc.means, sc.priors, sc.B, idx, eps)
    except np.linalg.LinAlgError:
        raise ValueError(
            "the within-class covariance of X on the support plus ε·I is singular (a constant "
            "or duplicated feature, or fewer samples than features); pass "
            "regularization='auto' or a positive regularization."
        ) from None
    return LinearDiscriminant(unscale(coef, -e, "the discriminant's coefficients"), intercept,
                              sc.classes, idx, float(unscale(eps, 2 * e, "ε")))


def discriminant_errors(
    X_train: Any,
    y_train: Any,
    X_test: Any,
    y_test: Any,
    supports: Any,
    *,
    epsilon: float = 0.0,
) -> np.ndarray:
    """Test error of LDA on each support (one training scatter, one solve per support).

    Parameters
    ----------
    X_train, y_train, X_test, y_test
        Samples as rows.
    supports : sequence of array-like of int
        E.g. ``path.supports`` of a selection path.
    epsilon : float
        Regularization added to the training within-class matrix.

    Returns
    -------
    ndarray of shape (len(supports),)
        Fraction of misclassified test samples for each support.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> sl.discriminant_errors(X, y, X, y, [[0], [1]], epsilon=1e-6).tolist()
    [0.0, 0.5]
    """
    X_train = check_array(X_train, "X_train", min_rows=2)
    X_test = check_array(X_test, "X_test")
    if X_test.shape[1] != X_train.shape[1]:
        raise ValueError(
            f"X_test has {X_test.shape[1]} features but X_train has {X_train.shape[1]}."
        )
    y_test = check_labels(y_test, X_test.shape[0], "y_test", min_classes=1)
    check_labels(y_train, X_train.shape[0], "y_train")
    epsilon = check_finite_scalar(epsilon, "epsilon", low=0.0)
    if isinstance(supports, (str, bytes, dict)) or not hasattr(supports, "__len__"):
        raise TypeError(f"supports must be a sequence of index arrays; got {supports!r:.60}.")
    # Predictions do not depend on the scale of X: fit on X / 2^e (exact), ε scaled alike.
    e = scale_exponent(X_train)
    sc = scatter_matrices(np.ldexp(X_train, -e), y_train)
    eps = float(np.ldexp(epsilon, -2 * e))
    n = X_train.shape[1]
    errors = np.empty(len(supports))
    for i, support in enumerate(supports):
        idx = check_support(support, n, "supports")
        try:
            coef, intercept = lda_coefficients(sc.means, sc.priors, sc.B, idx, eps)
        except np.linalg.LinAlgError:
            raise ValueError(
                f"the within-class covariance of X_train on supports[{i}] plus epsilon·I is "
                f"not positive definite (epsilon={epsilon:g}); pass a positive epsilon."
            ) from None
        model = LinearDiscriminant(coef, intercept, sc.classes, idx, eps)
        errors[i] = float(np.mean(model.predict(np.ldexp(X_test, -e)) != y_test))
    return errors
