"""The continuous baselines of Sec. 3: simple thresholding (ST) and correlation ranking.

* ST: "thresholding the largest eigenvector of C = B^{-1/2} A B^{-1/2} — but *with* the
  variational renormalization fix" (Sec. 3): keep the k largest ``|loadings|``, then solve the
  subproblem on that support (Prop. 2).
* Pearson ranking: "Pearson's correlation coefficient between the individual variables x_i and
  their class labels y_i ∈ {±1}" (Sec. 3), the filter used with DNA micro-arrays.

Both rank the variables once, so their supports are nested and one pass gives every k.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from ..linalg import leading_eigenvector
from ..validation import check_array, check_choice, check_labels
from ._numerics import subset_vector
from .greedy import nested_values
from .pair import MatrixPair, check_k, check_pair
from .results import NestedPath, SparseDiscriminant

__all__ = [
    "LOADINGS",
    "Ranking",
    "pearson_ranking",
    "simple_threshold",
    "simple_threshold_path",
    "threshold_loadings",
]

#: Which continuous factor ST thresholds: the principal eigenvector of C with the symmetric
#: B^{-1/2} (the paper's wording), or the principal generalized eigenvector x = B^{-1/2} v.
LOADINGS = ("whitened", "discriminant")


@dataclass(frozen=True)
class Ranking:
    """A ranking of the variables, best first.

    Attributes
    ----------
    order : ndarray of int, shape (n,)
        Feature indices sorted by decreasing score (ties keep the lower index first).
    scores : ndarray of shape (n,)
        The score of every feature, in the original feature order.
    method : str

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> sl.pearson_ranking(X, y).order.tolist()
    [0, 1]
    """

    order: np.ndarray
    scores: np.ndarray
    method: str = ""


def _rank(scores: np.ndarray) -> np.ndarray:
    return np.argsort(-scores, kind="stable")


def threshold_loadings(pair: MatrixPair, loadings: str = "whitened") -> np.ndarray:
    """The dense factor whose largest ``|entries|`` ST keeps (validated pair).

    Parameters
    ----------
    pair : MatrixPair
        A validated pair (:func:`check_pair`).
    loadings : {"whitened", "discriminant"}
        Which dense factor, as in :func:`simple_threshold`.

    Returns
    -------
    ndarray of shape (n,)
        The loadings whose largest absolute entries ST keeps.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> w = sl.threshold_loadings(sl.check_pair(A, np.eye(4)))
    >>> int(np.argmax(np.abs(w)))
    0
    """
    if not isinstance(pair, MatrixPair):
        raise TypeError(f"pair must be a MatrixPair (from check_pair(A, B)); got "
                        f"{type(pair).__name__}.")
    loadings = check_choice(loadings, "loadings", ("whitened", "discriminant"))
    w, U = scipy.linalg.eigh(pair.B, check_finite=False)
    B_inv_sqrt = (U / np.sqrt(w)) @ U.T  # symmetric B^{-1/2}
    if pair.rank_one:
        v = B_inv_sqrt @ pair.d
    else:
        C = B_inv_sqrt @ pair.A @ B_inv_sqrt
        v = leading_eigenvector(0.5 * (C + C.T), random_state=0).vector
    return v if loadings == "whitened" else B_inv_sqrt @ v


def simple_threshold_path(
    A: Any, B: Any, *, loadings: str = "whitened", regularization: Any = None
) -> NestedPath:
    """Simple thresholding with the renormalization fix, for every k = 1, …, n (Sec. 3).

    Parameters
    ----------
    A, B : array-like
        The pair (A may be a vector d for A = d dᵀ); B = I gives ST for sparse PCA.
    loadings : {"whitened", "discriminant"}
        ``"whitened"`` thresholds the principal eigenvector v of C = B^{-1/2} A B^{-1/2} with
        the symmetric square root, as the paper writes; ``"discriminant"`` thresholds
        x = B^{-1/2} v, the ordinary (dense) LDA direction. They coincide when B = I.
    regularization : None, float or "auto"

    Returns
    -------
    NestedPath
        ``order`` = features by decreasing ``|loading|``; renormalized values for every k.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> sl.simple_threshold_path(A, np.eye(4)).order.tolist()[:2]
    [0, 1]
    """
    loadings = check_choice(loadings, "loadings", LOADINGS)
    pair = check_pair(A, B, regularization)
    order = _rank(np.abs(threshold_loadings(pair, loadings)))
    return NestedPath(order, nested_values(pair, order), pair.epsilon, f"threshold-{loadings}")


def simple_threshold(
    A: Any, B: Any, k: int, *, loadings: str = "whitened", regularization: Any = None
) -> SparseDiscriminant:
    """ST at one cardinality k: the k largest ``|loadings|``, renormalized (Prop. 2).

    Parameters
    ----------
    A, B, loadings, regularization
        As in :func:`simple_threshold_path`.
    k : int
        Cardinality, 1 ≤ k ≤ n.

    Returns
    -------
    SparseDiscriminant

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> sl.simple_threshold(A, np.eye(4), 2).support.tolist()
    [0, 1]
    """
    loadings = check_choice(loadings, "loadings", LOADINGS)
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    order = _rank(np.abs(threshold_loadings(pair, loadings)))
    support = np.sort(order[:k])
    value, x = subset_vector(pair, support)
    return SparseDiscriminant(support, value, x, pair.epsilon, f"threshold-{loadings}")


def pearson_ranking(X: Any, y: Any) -> Ranking:
    """Rank features by ``|Pearson correlation|`` with the class label y ∈ {±1} (Sec. 3).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows (the paper's x_i are samples); raw or preprocessed, the correlation
        does not depend on the scale of a feature.
    y : array-like of shape (n_samples,)
        Two classes (any two labels; the larger one is coded +1).

    Returns
    -------
    Ranking
        ``scores`` = ``|r_i|``; a constant feature scores 0 (it carries no class information).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> r = sl.pearson_ranking(X, y)
    >>> r.order.tolist(), bool(r.scores[0] > r.scores[1])
    ([0, 1], True)
    """
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    labels = check_labels(y, X.shape[0], "y")
    classes = np.unique(labels)
    if classes.size != 2:
        raise ValueError(
            f"pearson_ranking needs two classes (labels ±1 in the paper); got {classes.size}. "
            "For more classes rank by the between/within ratio of each feature instead."
        )
    t = np.where(labels == classes[1], 1.0, -1.0)
    Xc = X - X.mean(axis=0)
    tc = t - t.mean()
    cov = Xc.T @ tc
    col_norms = np.sqrt(np.einsum("ij,ij->j", Xc, Xc))
    scale = np.abs(X).max(axis=0) * np.sqrt(X.shape[0])
    constant = col_norms <= 1e-12 * np.maximum(scale, np.finfo(float).tiny)
    scores = np.zeros(X.shape[1])
    scores[~constant] = np.abs(cov[~constant]) / (
        col_norms[~constant] * np.sqrt(float(tc @ tc))
    )
    return Ranking(_rank(scores), scores, "pearson")
