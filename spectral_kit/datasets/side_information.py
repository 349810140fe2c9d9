"""Synthetic data with hidden variables and with several valid structures.

* :func:`make_hidden_sessions` -- the hidden-session data of the kernel Q-α experiment
  (Wolf & Shashua 2005, Sec. 6, Fig. 6);
* :func:`make_two_structures` -- main data with a target and a dominant nuisance structure,
  plus side data that carries the nuisance only (the setting of Shashua & Wolf 2004, Sec. 3);
* :func:`make_topographic` -- the two-solution data of the topographical map (Shashua & Wolf
  2004, Sec. 4, Fig. 2).

X is samples × features (scikit-learn's orientation); ``.M`` / ``.W`` give the papers'
features-as-rows matrices.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import as_generator, check_data_size, check_finite_scalar, check_int
from .synthetic import SyntheticData, permute_columns

__all__ = [
    "TopographicData",
    "TwoStructureData",
    "make_hidden_sessions",
    "make_topographic",
    "make_two_structures",
]


def _gaussian_clusters(
    centers: np.ndarray, labels: np.ndarray, variances: np.ndarray, rng: np.random.Generator
) -> np.ndarray:
    """Points ``centers[y] + N(0, diag(variances[y]))`` for the labels y."""
    return centers[labels] + rng.standard_normal((labels.size, centers.shape[1])) * np.sqrt(
        variances[labels]
    )


def make_hidden_sessions(
    lam: float = 0.1,
    *,
    n_clusters: int = 3,
    per_cluster: int = 40,
    n_relevant: int = 12,
    n_irrelevant: int = 48,
    session_length: int = 8,
    center: bool = False,
    random_state: object = None,
) -> SyntheticData:
    """Clustered measurements multiplied by hidden ±1 session signs (Wolf & Shashua 2005,
    Sec. 6, "Kernel Q-α experiments", Fig. 6).

    Three clusters of 40 points in the 12 relevant coordinates, each with a mean drawn
    uniformly from the unit hypercube and a diagonal covariance whose entries are uniform in
    [λ, 2λ]. The 48 irrelevant coordinates are drawn the same way (their own means and
    covariances) and each is permuted independently over the samples, so that no single
    coordinate tells a relevant from an irrelevant feature. The whole matrix is then
    multiplied entrywise by hidden signs: for every feature, one independent random sign per
    session of ``session_length`` consecutive samples. The expected inner product of two
    observed feature rows is then zero, and plain Q-α has nothing to work with.

    Samples are ordered by cluster (points 0–39 in cluster 0, ...), so with 40 points per
    cluster every session lies inside one cluster; the paper does not say whether the points
    were shuffled.

    The paper draws the cluster means from the unit hypercube, so the clean measurements have
    positive means; it does not say whether they were centred before the signs were applied.
    ``center=True`` centres every clean coordinate over the samples first (zero-mean
    measurements). The choice changes which of kernel Q-α and "square the data, then Q-α"
    does better (see :func:`spectral_kit.reproduce.side_information.hidden_sessions`).

    Parameters
    ----------
    lam : float
        The covariance parameter λ > 0 of the experiment.
    n_clusters, per_cluster, n_relevant, n_irrelevant, session_length : int
        The paper's 3, 40, 12, 48 and 8.
    center : bool
        Centre the clean measurements before applying the hidden signs.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        ``X`` (120 × 60 with the defaults, relevant features first), cluster labels ``y``,
        and the mask ``relevant``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_hidden_sessions
    >>> data = make_hidden_sessions(0.1, random_state=0)
    >>> data.X.shape, np.bincount(data.y).tolist(), int(data.relevant.sum())
    ((120, 60), [40, 40, 40], 12)

    The signs hide the positive cluster means: about half the entries are negative.

    >>> round(float((data.X < 0).mean()), 1)
    0.5
    """
    lam = check_finite_scalar(lam, "lam", low=0.0, low_inclusive=False)
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    per_cluster = check_int(per_cluster, "per_cluster", low=1)
    n_relevant = check_int(n_relevant, "n_relevant", low=1)
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    session_length = check_int(session_length, "session_length", low=1)
    check_data_size(n_clusters * per_cluster, n_relevant + n_irrelevant,
                    "n_clusters · per_cluster × n_relevant + n_irrelevant", copies=4.2)
    rng = as_generator(random_state)
    y = np.repeat(np.arange(n_clusters), per_cluster)
    parts = []
    for dim in (n_relevant, n_irrelevant):
        centers = rng.uniform(0.0, 1.0, size=(n_clusters, dim))
        variances = rng.uniform(lam, 2.0 * lam, size=(n_clusters, dim))
        parts.append(_gaussian_clusters(centers, y, variances, rng))
    X = np.hstack([parts[0], permute_columns(parts[1], rng)])
    if center:
        X -= X.mean(axis=0)
    n_sessions = -(-y.size // session_length)
    signs = rng.choice(np.array([-1.0, 1.0]), size=(n_sessions, X.shape[1]))
    X = X * np.repeat(signs, session_length, axis=0)[: y.size]
    relevant = np.zeros(X.shape[1], dtype=bool)
    relevant[:n_relevant] = True
    return SyntheticData(X, y, relevant)


@dataclass(frozen=True)
class TwoStructureData:
    """Main data with two valid structures and side data that carries only one of them.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        Main data.
    X_side : ndarray of shape (n_side, n_features)
        Side data: the same nuisance structure, a single target cluster.
    y_target, y_nuisance : ndarray of shape (n_samples,)
        Cluster labels of the main samples under each structure.
    y_side_nuisance : ndarray of shape (n_side,)
        Nuisance labels of the side samples.
    target, nuisance : ndarray of bool, shape (n_features,)
        Masks of the features that carry each structure; the rest are irrelevant.

    Examples
    --------
    ``M`` and ``W`` are the main and side data with features as rows, as Q-α with side
    information takes them:

    >>> from spectral_kit.datasets import make_two_structures
    >>> data = make_two_structures(random_state=0)
    >>> data.M.shape, data.W.shape
    ((32, 120), (32, 40))
    >>> int(data.target.sum()), int(data.nuisance.sum()), int(data.irrelevant.sum())
    (4, 8, 20)
    """

    X: np.ndarray
    X_side: np.ndarray
    y_target: np.ndarray
    y_nuisance: np.ndarray
    y_side_nuisance: np.ndarray
    target: np.ndarray
    nuisance: np.ndarray

    @property
    def M(self) -> np.ndarray:
        """Main data with features as rows (n_features × n_samples)."""
        return self.X.T

    @property
    def W(self) -> np.ndarray:
        """Side data with features as rows (n_features × n_side), the paper's W."""
        return self.X_side.T

    @property
    def irrelevant(self) -> np.ndarray:
        """Mask of the features that carry neither structure."""
        return ~(self.target | self.nuisance)


def make_two_structures(
    n_samples: int = 120,
    *,
    n_side: int = 40,
    n_target: int = 4,
    n_nuisance: int = 8,
    n_irrelevant: int = 20,
    target_clusters: int = 3,
    nuisance_clusters: int = 2,
    spread: float = 0.005,
    random_state: object = None,
) -> TwoStructureData:
    """Two valid clusterings of the same points, and side data for one of them.

    Modelled on the faces of Shashua & Wolf (2004, Secs. 1 and 3): the main samples belong to
    one of ``target_clusters`` "identities" and, independently, one of ``nuisance_clusters``
    "conditions". ``n_target`` features follow the identity, ``n_nuisance`` follow the
    condition, and ``n_irrelevant`` are permuted noise. Cluster centres are uniform in the
    unit cube and every coordinate has variance ``spread`` around its centre. Because more
    features follow the nuisance, plain Q-α selects the nuisance features.

    The side data are samples of one further identity (a new centre) under every condition:
    the nuisance features vary there as much as in the main data, the target features only by
    their within-cluster spread. Q-α with side information (Def. 3) therefore moves α from the
    nuisance to the target features.

    Parameters
    ----------
    n_samples, n_side : int
        Number of main and side samples.
    n_target, n_nuisance, n_irrelevant : int
        Number of features of each kind (in this order in X).
    target_clusters, nuisance_clusters : int
        Number of clusters of each structure (≥ 2).
    spread : float
        Within-cluster variance of every coordinate.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    TwoStructureData
        The main data X, the side data X_side, the labels of both structures and the
        masks of the target and nuisance features.

    Examples
    --------
    Plain Q-α weighs the eight nuisance features; with the side data (Def. 3 of Shashua
    & Wolf 2004) the weight moves to the four target features:

    >>> import numpy as np
    >>> from spectral_kit import q_alpha, q_alpha_side
    >>> from spectral_kit.datasets import make_two_structures
    >>> data = make_two_structures(random_state=0)
    >>> plain = q_alpha(data.M, k=2, random_state=0).alpha
    >>> side = q_alpha_side(data.M, data.W, k=2, random_state=0).alpha
    >>> [round(float(a[data.target].mean()), 2) for a in (plain, side)]
    [0.0, 0.44]
    >>> [round(float(a[data.nuisance].mean()), 2) for a in (plain, side)]
    [0.33, 0.0]
    """
    n_samples = check_int(n_samples, "n_samples", low=4)
    n_side = check_int(n_side, "n_side", low=2)
    n_target = check_int(n_target, "n_target", low=1)
    n_nuisance = check_int(n_nuisance, "n_nuisance", low=1)
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    target_clusters = check_int(target_clusters, "target_clusters", low=2)
    nuisance_clusters = check_int(nuisance_clusters, "nuisance_clusters", low=2)
    spread = check_finite_scalar(spread, "spread", low=0.0, low_inclusive=False)
    check_data_size(n_samples + n_side, n_target + n_nuisance + n_irrelevant,
                    "n_samples + n_side × n_target + n_nuisance + n_irrelevant", copies=2.5)
    rng = as_generator(random_state)

    y_target = np.arange(n_samples) % target_clusters
    y_nuisance = rng.permutation(np.arange(n_samples) % nuisance_clusters)
    y_side_nuisance = rng.permutation(np.arange(n_side) % nuisance_clusters)

    # One extra target centre: the side data's single identity.
    target_centers = rng.uniform(0.0, 1.0, size=(target_clusters + 1, n_target))
    nuisance_centers = rng.uniform(0.0, 1.0, size=(nuisance_clusters, n_nuisance))
    noise_centers = rng.uniform(0.0, 1.0, size=(target_clusters, n_irrelevant))

    def sample(y_t: np.ndarray, y_n: np.ndarray) -> np.ndarray:
        m = y_t.size
        t = target_centers[y_t] + np.sqrt(spread) * rng.standard_normal((m, n_target))
        u = nuisance_centers[y_n] + np.sqrt(spread) * rng.standard_normal((m, n_nuisance))
        noise_labels = rng.integers(0, target_clusters, size=m)
        z = noise_centers[noise_labels] + np.sqrt(spread) * rng.standard_normal(
            (m, n_irrelevant)
        )
        return np.hstack([t, u, permute_columns(z, rng)])

    X = sample(y_target, y_nuisance)
    X_side = sample(np.full(n_side, target_clusters), y_side_nuisance)
    n_features = n_target + n_nuisance + n_irrelevant
    target = np.zeros(n_features, dtype=bool)
    target[:n_target] = True
    nuisance = np.zeros(n_features, dtype=bool)
    nuisance[n_target : n_target + n_nuisance] = True
    return TwoStructureData(X, X_side, y_target, y_nuisance, y_side_nuisance, target, nuisance)


@dataclass(frozen=True)
class TopographicData:
    """The two-solution data of the topographical map (Shashua & Wolf 2004, Fig. 2).

    Attributes
    ----------
    X : ndarray of shape (n_samples, 20)
        Features in the order 1, 2, 3, A, B, C, 1A, 2B, 3C, then 11 permuted copies of 1.
    y_first, y_second : ndarray of shape (n_samples,)
        Cluster labels induced by {1, 2, 3} and by {A, B, C}.
    feature_names : tuple of str
        "1", "2", "3", "A", "B", "C", "1A", "2B", "3C", then "p1", "p2", ... for the
        permuted copies.

    Examples
    --------
    The masks ``first``, ``second``, ``hybrid`` and ``irrelevant`` name the feature groups:

    >>> import numpy as np
    >>> from spectral_kit.datasets import make_topographic
    >>> data = make_topographic(random_state=0)
    >>> [data.feature_names[i] for i in np.flatnonzero(data.hybrid)]
    ['1A', '2B', '3C']
    >>> bool(np.allclose(data.X[:, data.hybrid], data.X[:, data.first] + data.X[:, data.second]))
    True
    """

    X: np.ndarray
    y_first: np.ndarray
    y_second: np.ndarray
    feature_names: tuple[str, ...]

    @property
    def M(self) -> np.ndarray:
        """The data with features as rows (20 × n_samples)."""
        return self.X.T

    @property
    def first(self) -> np.ndarray:
        """Mask of features 1, 2, 3."""
        return self._mask(0, 3)

    @property
    def second(self) -> np.ndarray:
        """Mask of features A, B, C."""
        return self._mask(3, 6)

    @property
    def hybrid(self) -> np.ndarray:
        """Mask of the sums 1A, 2B, 3C, relevant to both structures."""
        return self._mask(6, 9)

    @property
    def irrelevant(self) -> np.ndarray:
        """Mask of the permuted copies of feature 1."""
        return self._mask(9, self.X.shape[1])

    def _mask(self, start: int, stop: int) -> np.ndarray:
        mask = np.zeros(self.X.shape[1], dtype=bool)
        mask[start:stop] = True
        return mask


def make_topographic(
    n_samples: int = 150,
    *,
    n_clusters: int = 3,
    n_irrelevant: int = 11,
    spread: float = 0.01,
    second_scale: float = 0.8,
    random_state: object = None,
) -> TopographicData:
    """Two solution sets of relevant features and their sums (Shashua & Wolf 2004, Sec. 4).

    Features 1, 2, 3 place the samples in ``n_clusters`` clusters; features A, B, C place
    them in ``n_clusters`` other clusters (an independent assignment). The hybrid features
    1A, 2B, 3C are the sums 1 + A, 2 + B, 3 + C, and the ``n_irrelevant`` remaining features
    are independent random permutations of feature 1. The paper gives the counts (150 points,
    20 features, 9 relevant, three clusters per solution) but not the cluster geometry: here
    cluster c of either solution is centred at the c-th unit vector of its three features (so
    each feature marks one cluster and the three together separate all three), and every
    coordinate has variance ``spread`` around its centre.

    ``second_scale`` shrinks the centres of the second solution. With two equally strong
    solutions (``second_scale=1``) the first round of Q-α weighs both sets (and the hybrids
    most) and only the second round isolates one; with the second solution weaker the first
    round finds {1, 2, 3} and the second {A, B, C}, the order in which Fig. 2b draws them
    (horizontal axis first).

    Parameters
    ----------
    n_samples : int
        Number of samples, ≥ 6 (the paper: 150).
    n_clusters : int
        Clusters per solution, 2 or 3.
    n_irrelevant : int
        Number of permuted copies of feature 1 (the paper: 11, for 20 features in all).
    spread : float
        Within-cluster variance of every coordinate, > 0.
    second_scale : float
        Scale of the second solution's cluster centres, > 0.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    TopographicData
        X of shape (n_samples, 9 + n_irrelevant), the labels of both solutions and the
        feature names.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_topographic
    >>> data = make_topographic(random_state=0)
    >>> data.X.shape, data.feature_names[:9]
    ((150, 20), ('1', '2', '3', 'A', 'B', 'C', '1A', '2B', '3C'))
    >>> np.bincount(data.y_first).tolist(), np.bincount(data.y_second).tolist()
    ([50, 50, 50], [50, 50, 50])
    """
    n_samples = check_int(n_samples, "n_samples", low=2 * 3)
    n_clusters = check_int(
        n_clusters, "n_clusters", low=2, high=3,
        hint="Each solution has three features, which mark at most three clusters.",
    )
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    spread = check_finite_scalar(spread, "spread", low=0.0, low_inclusive=False)
    second_scale = check_finite_scalar(
        second_scale, "second_scale", low=0.0, low_inclusive=False
    )
    check_data_size(n_samples, 6 + n_irrelevant, "n_samples × n_irrelevant")
    rng = as_generator(random_state)
    y_first = np.arange(n_samples) % n_clusters
    y_second = rng.permutation(y_first)
    # Cluster c sits at the c-th unit vector: each feature singles out one cluster, and only
    # together do the three give all of them.
    centers = np.eye(3)[:n_clusters]
    variances = np.full((n_clusters, 3), spread)
    first = _gaussian_clusters(centers, y_first, variances, rng)
    second = _gaussian_clusters(second_scale * centers, y_second, variances, rng)
    copies = permute_columns(np.repeat(first[:, :1], n_irrelevant, axis=1), rng)
    X = np.hstack([first, second, first + second, copies])
    copy_names = tuple(f"p{i + 1}" for i in range(n_irrelevant))
    names = ("1", "2", "3", "A", "B", "C", "1A", "2B", "3C", *copy_names)
    return TopographicData(X, y_first, y_second, names)
