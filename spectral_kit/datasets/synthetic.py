"""Synthetic data of the Q-α paper (Wolf & Shashua 2005, Sec. 6).

Every generator returns a :class:`SyntheticData` ``(X, y, relevant)`` with X samples × features
(scikit-learn's convention), the class or cluster labels y, and a boolean mask of the features
that carry the structure. ``data.M`` is the papers' features-as-rows matrix ``X.T``.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np

from ..validation import as_generator, check_array, check_data_size, check_finite_scalar, check_int

__all__ = [
    "SyntheticData",
    "make_ben_dor",
    "make_multiclass_clusters",
    "make_weston_linear",
    "make_weston_nonlinear",
    "permute_columns",
]


class SyntheticData(NamedTuple):
    """Samples × features data with labels and the ground-truth relevant features.

    What every synthetic generator of the kit returns; unpack it as ``X, y, relevant`` or
    read its fields. ``M`` is the papers' features-as-rows matrix ``X.T``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, samples as rows (scikit-learn's orientation).
    y : ndarray of shape (n_samples,)
        Class or cluster label of every sample.
    relevant : ndarray of bool, shape (n_features,)
        True for the features that carry the structure.

    Examples
    --------
    >>> from spectral_kit.datasets import make_weston_nonlinear
    >>> data = make_weston_nonlinear(n_samples=50, random_state=0)
    >>> data.X.shape, data.M.shape, int(data.relevant.sum())
    ((50, 52), (52, 50), 2)
    >>> X, y, relevant = data
    >>> X is data.X
    True
    """

    X: np.ndarray
    y: np.ndarray
    relevant: np.ndarray

    @property
    def M(self) -> np.ndarray:
        """The data with features as rows (n_features × n_samples), as in the papers."""
        return self.X.T


def permute_columns(Z: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Permute every column of Z independently: keeps each feature's marginal distribution
    and destroys its relation to the samples' structure (how the papers make irrelevant
    features indistinguishable from relevant ones one at a time).

    The "each such added coordinate was permuted by a random permutation" of Wolf &
    Shashua (2005, Sec. 6) and the ``randperm`` of Wolf & Bileschi (2005, footnote 2).

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_features)
        Samples as rows; not modified.
    rng : numpy.random.Generator
        The random generator (a Generator, not a seed: callers share one stream).

    Returns
    -------
    ndarray of shape (n_samples, n_features)
        A new array whose every column holds the values of Z's column in another order.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import permute_columns
    >>> Z = np.arange(12.0).reshape(4, 3)
    >>> P = permute_columns(Z, np.random.default_rng(0))
    >>> P
    array([[ 3.,  1., 11.],
           [ 6.,  7.,  2.],
           [ 0.,  4.,  8.],
           [ 9., 10.,  5.]])
    >>> bool((np.sort(P, axis=0) == Z).all())
    True
    """
    Z = check_array(Z, "Z", min_rows=0, min_cols=0)
    if not isinstance(rng, np.random.Generator):
        raise TypeError(f"rng must be a numpy Generator; got {type(rng).__name__}.")
    idx = np.argsort(rng.random(Z.shape), axis=0)
    return np.take_along_axis(Z, idx, axis=0)


def make_weston_linear(
    n_samples: int = 100, *, noise_var: float = 20.0, random_state: object = None
) -> SyntheticData:
    """Weston et al.'s linear problem: 6 relevant features of 202 (Sec. 6, "Synthetic data").

    y ∈ {−1, 1} with equal probability. With probability 0.7, ``x_i = y·N(i, 1)`` for
    i = 1..3 and ``x_i = N(0, 1)`` for i = 4..6; otherwise ``x_i = N(0, 1)`` for i = 1..3 and
    ``x_i = y·N(i − 3, 1)`` for i = 4..6. The other 196 features are ``N(0, 20)``, read in the
    usual N(μ, σ²) notation as variance 20 (Q-α normalises every feature, so the choice only
    affects classifiers trained on selected noise features).

    Parameters
    ----------
    n_samples : int
        Number of samples, ≥ 2 (the paper's training sets have 10 to 100).
    noise_var : float
        Variance of the 196 noise features (> 0).
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (n_samples, 202), y in {−1, 1}, and features 0–5 marked relevant.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_weston_linear
    >>> data = make_weston_linear(n_samples=100, random_state=0)
    >>> data.X.shape, np.flatnonzero(data.relevant).tolist()
    ((100, 202), [0, 1, 2, 3, 4, 5])

    ``E[y·x_i]`` is 0.7·i for i = 1..3 and 0.3·(i − 3) for i = 4..6:

    >>> data = make_weston_linear(n_samples=10000, random_state=0)
    >>> np.round((data.y[:, None] * data.X[:, :6]).mean(axis=0), 1)
    array([0.7, 1.4, 2.1, 0.3, 0.6, 0.9])
    """
    n_samples = check_int(n_samples, "n_samples", low=2)
    noise_std = np.sqrt(check_finite_scalar(noise_var, "noise_var", low=0.0, low_inclusive=False))
    check_data_size(n_samples, 202, "n_samples", copies=1.1)
    rng = as_generator(random_state)
    y = rng.choice(np.array([-1, 1]), size=n_samples)
    first = rng.random(n_samples) < 0.7
    X = rng.normal(0.0, noise_std, size=(n_samples, 202))
    means = np.array([1.0, 2.0, 3.0])
    signal = y[:, None] * rng.normal(means, 1.0, size=(n_samples, 3))
    plain = rng.normal(0.0, 1.0, size=(n_samples, 3))
    X[:, 0:3] = np.where(first[:, None], signal, plain)
    signal2 = y[:, None] * rng.normal(means, 1.0, size=(n_samples, 3))
    plain2 = rng.normal(0.0, 1.0, size=(n_samples, 3))
    X[:, 3:6] = np.where(first[:, None], plain2, signal2)
    relevant = np.zeros(202, dtype=bool)
    relevant[:6] = True
    return SyntheticData(X, y, relevant)


def make_weston_nonlinear(
    n_samples: int = 100, *, noise_var: float = 20.0, random_state: object = None
) -> SyntheticData:
    """Weston et al.'s non-linear problem: 2 relevant features of 52.

    The Q-α paper refers to Weston et al. (2001) for its definition, which we follow:
    y ∈ {−1, 1} with equal probability; for y = −1, (x₁, x₂) is drawn from N((−3/4, −3), I)
    or N((3/4, 3), I) with equal probability; for y = 1 from N((3, −3), I) or N((−3, 3), I).
    The other 50 features are ``N(0, 20)`` noise (variance 20).

    Parameters
    ----------
    n_samples : int
        Number of samples, ≥ 2.
    noise_var : float
        Variance of the 50 noise features (> 0).
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (n_samples, 52), y in {−1, 1}, and features 0 and 1 marked relevant.

    Examples
    --------
    Each class is a pair of opposite blobs, so no line separates the classes; the sign of
    the product x₁x₂ does, for most samples:

    >>> import numpy as np
    >>> from spectral_kit.datasets import make_weston_nonlinear
    >>> data = make_weston_nonlinear(n_samples=200, random_state=0)
    >>> data.X.shape, np.flatnonzero(data.relevant).tolist()
    ((200, 52), [0, 1])
    >>> product = data.X[:, 0] * data.X[:, 1]
    >>> float(np.mean((product < 0) == (data.y == 1)))
    0.925
    """
    n_samples = check_int(n_samples, "n_samples", low=2)
    noise_std = np.sqrt(check_finite_scalar(noise_var, "noise_var", low=0.0, low_inclusive=False))
    check_data_size(n_samples, 202, "n_samples", copies=0.3)
    rng = as_generator(random_state)
    y = rng.choice(np.array([-1, 1]), size=n_samples)
    which = rng.random(n_samples) < 0.5
    neg = np.where(which[:, None], [-0.75, -3.0], [0.75, 3.0])
    pos = np.where(which[:, None], [3.0, -3.0], [-3.0, 3.0])
    centers = np.where((y < 0)[:, None], neg, pos)
    X = rng.normal(0.0, noise_std, size=(n_samples, 52))
    X[:, :2] = centers + rng.standard_normal((n_samples, 2))
    relevant = np.zeros(52, dtype=bool)
    relevant[:2] = True
    return SyntheticData(X, y, relevant)


def _clustered(
    n_clusters: int, per_cluster: int, dim: int, spread: float, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray]:
    centers = rng.uniform(-1.0, 1.0, size=(n_clusters, dim))
    variances = rng.uniform(0.0, spread, size=(n_clusters, dim))
    y = np.repeat(np.arange(n_clusters), per_cluster)
    Z = centers[y] + rng.standard_normal((y.size, dim)) * np.sqrt(variances[y])
    return Z, y


def make_multiclass_clusters(
    n_clusters: int = 3,
    *,
    n_points: int = 60,
    n_relevant: int = 5,
    n_irrelevant: int = 120,
    spread: float = 0.02,
    random_state: object = None,
) -> SyntheticData:
    """The multi-class sparsity experiment of Fig. 3b (Wolf & Shashua 2005, Sec. 6).

    ``n_clusters`` centres are drawn uniformly in the cube [−1, 1]^5, each cluster with a
    diagonal covariance whose variances are uniform in [0, spread]; ⌈n_points / n_clusters⌉
    points are drawn around each centre. 120 further coordinates are drawn the same way
    around centres in [−1, 1]^120 and each of them is permuted independently, which breaks
    their correlation with the clusters. Only the first five features are relevant.

    Parameters
    ----------
    n_clusters : int
        Number of clusters n_c (≥ 1).
    n_points : int
        Approximate total number of points (the paper uses 60).
    n_relevant, n_irrelevant : int
        Number of clustered and of permuted coordinates (the paper: 5 and 120).
    spread : float
        Upper end of the uniform range of the per-coordinate variances (the paper: 0.02).
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (n_clusters · ⌈n_points / n_clusters⌉, n_relevant + n_irrelevant), the
        cluster of every sample (ordered by cluster), and the first ``n_relevant`` features
        marked relevant.

    Examples
    --------
    Four clusters of ⌈60/4⌉ = 15 points in 125 dimensions, five of them relevant:

    >>> import numpy as np
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> data = make_multiclass_clusters(n_clusters=4, random_state=0)
    >>> data.X.shape, np.bincount(data.y).tolist(), int(data.relevant.sum())
    ((60, 125), [15, 15, 15, 15], 5)
    """
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    n_points = check_int(n_points, "n_points", low=2)
    n_relevant = check_int(n_relevant, "n_relevant", low=1)
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    check_data_size(n_clusters * n_points, n_relevant + n_irrelevant,
                    "n_clusters · n_points × n_relevant + n_irrelevant", copies=1.35)
    spread = check_finite_scalar(spread, "spread", low=0.0)
    rng = as_generator(random_state)
    per_cluster = math.ceil(n_points / n_clusters)
    relevant_part, y = _clustered(n_clusters, per_cluster, n_relevant, spread, rng)
    noise_part, _ = _clustered(n_clusters, per_cluster, n_irrelevant, spread, rng)
    X = np.hstack([relevant_part, permute_columns(noise_part, rng)])
    relevant = np.zeros(n_relevant + n_irrelevant, dtype=bool)
    relevant[:n_relevant] = True
    return SyntheticData(X, y, relevant)


def make_ben_dor(
    m: int = 600,
    a: int = 25,
    b: int = 47,
    e: float = 0.72,
    d: float = 555.0,
    s: float = 0.75,
    *,
    random_state: object = None,
) -> SyntheticData:
    """Ben-Dor et al.'s synthetic microarray model (Wolf & Shashua 2005, Sec. 6, "Genomics").

    ``a`` samples of class A and ``b`` of class B, each with ``m`` features. A fraction ``e``
    of the features is irrelevant, drawn from N(0, s); each of the other (1 − e)·m features
    has class means μ_A, μ_B drawn uniformly from [−1.5d, 1.5d] and values drawn from
    ``N(μ_A, |μ_A|·s)`` or ``N(μ_B, |μ_B|·s)`` by class. As in the usual N(μ, σ²) notation the
    second parameter is a variance: the spread grows like √s, which is what lets a method stay
    "robust to s" up to s > 1000 (with s a standard deviation, s = 1000 would bury class
    differences of order d under noise 1000·d, and no method could find them). The defaults
    are the values fitted to the leukemia data (m = 600, a = 25, b = 47, e = 0.72, d = 555,
    s = 0.75). Labels: 0 for A, 1 for B.

    Parameters
    ----------
    m : int
        Number of features (genes), ≥ 1.
    a, b : int
        Number of samples of class A and of class B, each ≥ 1.
    e : float
        Fraction of irrelevant features, in [0, 1].
    d : float
        Scale of the class means, ≥ 0.
    s : float
        Variance factor, > 0.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (a + b, m) with the (1 − e)·m relevant features first, y (0 for A, 1
        for B) and the mask of the relevant features.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_ben_dor
    >>> data = make_ben_dor(random_state=0)
    >>> data.X.shape, np.bincount(data.y).tolist(), int(data.relevant.sum())
    ((72, 600), [25, 47], 168)

    The irrelevant features are N(0, s) with s = 0.75 a variance:

    >>> round(float(data.X[:, ~data.relevant].var()), 2)
    0.76
    """
    m = check_int(m, "m", low=1)
    a = check_int(a, "a", low=1)
    b = check_int(b, "b", low=1)
    e = check_finite_scalar(e, "e", low=0.0, high=1.0)
    d = check_finite_scalar(d, "d", low=0.0)
    s = check_finite_scalar(s, "s", low=0.0, low_inclusive=False)
    check_data_size(a + b, m, "a + b samples × m features", copies=2.3)
    rng = as_generator(random_state)
    n_irrelevant = round(e * m)
    n_relevant = m - n_irrelevant
    y = np.r_[np.zeros(a, dtype=int), np.ones(b, dtype=int)]
    mu = rng.uniform(-1.5 * d, 1.5 * d, size=(2, n_relevant))
    means = mu[y]
    rel = means + np.sqrt(np.abs(means) * s) * rng.standard_normal((a + b, n_relevant))
    irr = rng.normal(0.0, np.sqrt(s), size=(a + b, n_irrelevant))
    X = np.hstack([rel, irr])
    relevant = np.r_[np.ones(n_relevant, dtype=bool), np.zeros(n_irrelevant, dtype=bool)]
    return SyntheticData(X, y, relevant)
