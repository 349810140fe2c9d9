"""The matrix pairs sparse LDA works on: scatter matrices of labelled data, random pairs.

* :func:`scatter_matrices` -- A (between-class) and B (within-class) covariances of X, y
  (Sec. 2); two classes give the rank-one A = d dᵀ.
* :func:`random_pair` -- the Monte-Carlo pairs of Sec. 3.1: "random covariance matrices from
  synthetic stochastic Brownian processes of various degrees of smoothness, ranging from
  sub-Gaussian to super-Gaussian". The paper gives no formula; here B is the sample covariance
  of paths of a fractional Brownian motion (Hurst exponent = smoothness; 0.5 is Brownian
  motion) driven by generalized-Gaussian innovations (shape < 2 super-Gaussian, > 2
  sub-Gaussian), and A the sample covariance of one more path (rank one, two-class LDA) or of
  an independent set of paths (general A).
"""

from __future__ import annotations

from dataclasses import dataclass
from math import gamma
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import (
    as_generator,
    check_array,
    check_choice,
    check_data_size,
    check_finite_scalar,
    check_int,
    check_labels,
    check_memory,
    scale_exponent,
    unscale,
)

__all__ = [
    "PAIR_KINDS",
    "RandomPair",
    "ScatterMatrices",
    "fbm_covariance",
    "random_pair",
    "scatter_matrices",
]

PAIR_KINDS = ("rank_one", "general")


@dataclass(frozen=True)
class ScatterMatrices:
    """Between- and within-class covariances of labelled data (Sec. 2).

    Attributes
    ----------
    A : ndarray of shape (n, n)
        Between-class covariance ``Σ_c π_c (μ_c − μ)(μ_c − μ)ᵀ`` (rank ≤ #classes − 1).
    B : ndarray of shape (n, n)
        Within-class covariance ``Σ_c π_c Σ_c`` with the maximum-likelihood class
        covariances (divisor N), the pooled covariance of Gaussian LDA.
    d : ndarray of shape (n,) or None
        For two classes, ``√(π_0 π_1) (μ_1 − μ_0)`` so that A = d dᵀ; None otherwise.
    means : ndarray of shape (n_classes, n)
    priors : ndarray of shape (n_classes,)
    classes : ndarray of shape (n_classes,)

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> sc = sl.scatter_matrices(X, y)
    >>> sc.d.tolist(), sc.classes.tolist()
    ([1.0, 0.0], [0, 1])
    """

    A: np.ndarray
    B: np.ndarray
    d: np.ndarray | None
    means: np.ndarray
    priors: np.ndarray
    classes: np.ndarray


def scatter_matrices(X: Any, y: Any) -> ScatterMatrices:
    """A (between-class) and B (within-class) covariance matrices of labelled samples.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows (the paper's x are samples, A and B are n_features × n_features).
    y : array-like of shape (n_samples,)
        Class labels, at least two classes.

    Returns
    -------
    ScatterMatrices

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> X = np.array([[0.0, 1.0], [1.0, 0.0], [2.0, 1.0], [3.0, 0.0]])
    >>> y = np.array([0, 0, 1, 1])
    >>> sc = sl.scatter_matrices(X, y)
    >>> sc.A.tolist(), sc.B.tolist()
    ([[1.0, 0.0], [0.0, 0.0]], [[0.25, -0.25], [-0.25, 0.25]])
    """
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    labels = check_labels(y, X.shape[0], "y")
    d_ = X.shape[1]
    check_memory(5 * 8.0 * d_ * d_, f"the {d_} × {d_} scatter matrices of X's {d_} features",
                 hint="Select fewer features of X first.")
    e = scale_exponent(X)  # computed on X / 2^e (exact), so no product over- or underflows
    X = np.ldexp(X, -e)
    classes, inverse, counts = np.unique(labels, return_inverse=True, return_counts=True)
    N = X.shape[0]
    priors = counts / N
    means = np.zeros((classes.size, X.shape[1]))
    np.add.at(means, inverse, X)
    means /= counts[:, None]
    Xc = X - means[inverse]
    B = Xc.T @ Xc / N
    B = 0.5 * (B + B.T)
    mu = priors @ means
    diff = means - mu
    if classes.size == 2:
        d = np.sqrt(priors[0] * priors[1]) * (means[1] - means[0])
        A = np.outer(d, d)
    else:
        d = None
        A = (diff.T * priors) @ diff
        A = 0.5 * (A + A.T)
    A = unscale(A, 2 * e, "the between-class scatter of X")
    B = unscale(B, 2 * e, "the within-class scatter of X")
    d = None if d is None else unscale(d, e, "the mean difference of X")
    return ScatterMatrices(A, B, d, unscale(means, e, "the class means of X"), priors, classes)


@dataclass(frozen=True)
class RandomPair:
    """A random (A, B) pair of the Monte Carlo of Sec. 3.1.

    Attributes
    ----------
    A, B : ndarray of shape (n, n)
    d : ndarray of shape (n,) or None
        The path with A = d dᵀ when ``kind="rank_one"``.
    smoothness, shape : float
        Hurst exponent of the process and shape of its innovations.
    kind : str

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> p = sl.random_pair(5, random_state=0)
    >>> p.A.shape, p.kind, bool(np.allclose(p.A, np.outer(p.d, p.d)))
    ((5, 5), 'rank_one', True)
    """

    A: np.ndarray
    B: np.ndarray
    d: np.ndarray | None
    smoothness: float
    shape: float
    kind: str


def fbm_covariance(n: int, smoothness: float) -> np.ndarray:
    """Covariance of fractional Brownian motion at t = 1/n, …, 1 (Hurst index H = smoothness).

    ``C(t, s) = ½(t^{2H} + s^{2H} − |t−s|^{2H})``.

    H = 0.5 is Brownian motion (min(t, s)); H → 1 gives smoother, H → 0 rougher paths.

    Parameters
    ----------
    n : int
        Number of time points t = 1/n, …, 1.
    smoothness : float
        Hurst exponent H, 0 < H < 1.

    Returns
    -------
    ndarray of shape (n, n)
        The covariance matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> sl.fbm_covariance(2, 0.5).tolist()
    [[0.5, 0.5], [0.5, 1.0]]
    """
    n = check_int(n, "n", low=1)
    check_data_size(n, n, "n × n")
    H = check_finite_scalar(
        smoothness, "smoothness", low=0.0, high=1.0, low_inclusive=False, high_inclusive=False,
        hint="It is the Hurst exponent: 0.5 is Brownian motion.",
    )
    t = np.arange(1, n + 1) / n
    p = 2.0 * H
    return 0.5 * (t[:, None] ** p + t[None, :] ** p - np.abs(t[:, None] - t[None, :]) ** p)


def _paths(
    rng: np.random.Generator, L: np.ndarray, count: int, shape: float
) -> np.ndarray:
    """``count`` paths (columns) with covariance L Lᵀ and unit-variance gennorm innovations."""
    # here rather than at the top: scipy.stats takes most of a second to import, and only
    # the random pairs need it
    from scipy.stats import gennorm

    z = gennorm.rvs(shape, size=(L.shape[0], count), random_state=rng)
    z /= np.sqrt(gamma(3.0 / shape) / gamma(1.0 / shape))
    return L @ z


def random_pair(
    n: int,
    *,
    smoothness: float = 0.5,
    shape: float = 2.0,
    kind: str = "rank_one",
    n_samples: int | None = None,
    random_state: Any = None,
) -> RandomPair:
    """A random pair (A, B) from covariances of Brownian-like processes (Sec. 3.1).

    Parameters
    ----------
    n : int
        Size (number of variables = time points of the process), n ≥ 1.
    smoothness : float in (0, 1)
        Hurst exponent H of the fractional Brownian motion; 0.5 is Brownian motion.
    shape : float > 0
        Shape β of the generalized-Gaussian innovations: 2 Gaussian, < 2 super-Gaussian
        (heavy-tailed), > 2 sub-Gaussian (light-tailed).
    kind : {"rank_one", "general"}
        ``"rank_one"``: A = d dᵀ with d one more path (two-class LDA); ``"general"``: A is the
        sample covariance of ``n_samples`` independent paths (full rank).
    n_samples : int, optional
        Paths per sample covariance; default 2n (B is then positive definite almost surely).
    random_state : None, int or Generator

    Returns
    -------
    RandomPair

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> p = sl.random_pair(6, kind="general", random_state=1)
    >>> p.A.shape, p.d is None
    ((6, 6), True)
    """
    n = check_int(n, "n", low=1)
    kind = check_choice(kind, "kind", PAIR_KINDS)
    shape = check_finite_scalar(shape, "shape", low=0.0, low_inclusive=False)
    q = 2 * n if n_samples is None else check_int(n_samples, "n_samples", low=n + 1)
    check_data_size(q + 1, n, "n_samples × n", copies=4.2)
    K = fbm_covariance(n, smoothness)
    rng = as_generator(random_state)
    # A tiny jitter keeps the Cholesky factor of very smooth (H → 1) covariances defined.
    L = scipy.linalg.cholesky(K + 1e-12 * np.trace(K) / n * np.eye(n), lower=True)
    P = _paths(rng, L, q + 1, shape)
    Pc = P[:, :q] - P[:, :q].mean(axis=1, keepdims=True)
    B = Pc @ Pc.T / q
    B = 0.5 * (B + B.T)
    if kind == "rank_one":
        d = P[:, q].copy()
        A = np.outer(d, d)
    else:
        d = None
        Q = _paths(rng, L, q, shape)
        A = Q @ Q.T / q
        A = 0.5 * (A + A.T)
    return RandomPair(A, B, d, float(smoothness), shape, kind)
