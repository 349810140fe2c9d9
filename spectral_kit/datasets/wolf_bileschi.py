"""Data of the variable-weighting report (Wolf & Bileschi 2005).

* :func:`make_permuted_gaussians` -- Gaussian clusters in which every coordinate but the first
  few is permuted across samples, which keeps its distribution and removes its relation to
  the clusters; :func:`make_wolf_bileschi_fig1` (two clusters, 3 relevant of 203, Fig. 1)
  and :func:`make_wolf_bileschi_fig2` (four clusters, Fig. 2) are its two settings;
* :func:`make_wolf_bileschi_ideal` -- the ideal case of the random-matrix argument (Sec. 2):
  two tight clusters in n₁ relevant features plus i.i.d. Gaussian noise;
* :func:`haar_filters`, :func:`haar_features` -- over-complete Haar wavelet features of images
  (the representation of the face-recognition and car-detection experiments, Sec. 6).

Generators return :class:`~spectral_kit.datasets.SyntheticData` ``(X, y, relevant)`` with X
samples × features; ``data.M`` is the papers' features-as-rows matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import (
    as_generator,
    check_array,
    check_data_size,
    check_finite_scalar,
    check_int,
)
from .synthetic import SyntheticData, permute_columns

__all__ = [
    "HaarFilters",
    "haar_features",
    "haar_filters",
    "make_permuted_gaussians",
    "make_wolf_bileschi_fig1",
    "make_wolf_bileschi_fig2",
    "make_wolf_bileschi_ideal",
]


def make_permuted_gaussians(
    n_clusters: int = 2,
    n_per_cluster: int = 50,
    *,
    n_relevant: int = 3,
    n_irrelevant: int = 200,
    sigma: float = 1.0,
    random_state: object = None,
) -> SyntheticData:
    """Gaussian clusters with all but ``n_relevant`` coordinates permuted (Sec. 2, Fig. 1).

    The report's recipe (footnote 2, in Matlab)::

        M = [mvnrnd(rand(203,1) - 0.5, diag(rand(203,1) + .5), 50)', ...
             mvnrnd(rand(203,1) - 0.5, diag(rand(203,1) + .5), 50)'];
        for i = 4:203, M(i,:) = M(i, randperm(100)); end

    Every cluster has its own mean, uniform in [−0.5, 0.5] per coordinate, and its own
    diagonal covariance ``σ² · diag(u)``, u uniform in [0.5, 1.5]; then each coordinate
    after the first ``n_relevant`` is permuted independently across all samples.

    Parameters
    ----------
    n_clusters, n_per_cluster : int
        Number of Gaussians and points drawn from each (samples are ordered by cluster).
    n_relevant, n_irrelevant : int
        Clustered and permuted coordinates (the report: 3 and 200).
    sigma : float
        Scale of the cluster standard deviations. σ = 1 is the footnote as printed, with
        which the clusters overlap heavily even in the relevant coordinates (k-means on
        them recovers about 60 % of the labels, chance being 50 %); σ = 0.1 gives the well
        separated clusters of Fig. 1(a–b). The printed ``diag(rand(203,1)+.5, 50)`` is
        garbled, so the intended scale is not recoverable from the text.
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (n_clusters · n_per_cluster, n_relevant + n_irrelevant), the cluster of
        every sample, and the mask of the relevant (unpermuted) coordinates.

    Examples
    --------
    With σ = 0.1 the three relevant coordinates separate the two clusters; the permuted
    ones have lost all relation to them (Fisher's criterion near 0):

    >>> import numpy as np
    >>> from spectral_kit.baselines import fisher_score
    >>> from spectral_kit.datasets import make_permuted_gaussians
    >>> data = make_permuted_gaussians(2, 50, sigma=0.1, random_state=0)
    >>> data.X.shape, np.bincount(data.y).tolist()
    ((100, 203), [50, 50])
    >>> score = fisher_score(data.X, data.y)
    >>> np.round(score[:3], 2), round(float(score[3:].mean()), 2)
    (array([6.89, 2.61, 9.92]), 0.01)
    """
    n_clusters = check_int(n_clusters, "n_clusters", low=1)
    n_per_cluster = check_int(n_per_cluster, "n_per_cluster", low=1)
    n_relevant = check_int(n_relevant, "n_relevant", low=0)
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    if n_relevant + n_irrelevant == 0:
        raise ValueError("n_relevant + n_irrelevant must be at least 1; got 0 features.")
    sigma = check_finite_scalar(sigma, "sigma", low=0.0, high=1e150,
                                hint="σ² must stay within float64's range.")
    check_data_size(n_clusters * n_per_cluster, n_relevant + n_irrelevant,
                    "n_clusters · n_per_cluster × n_relevant + n_irrelevant")
    rng = as_generator(random_state)
    n = n_relevant + n_irrelevant
    y = np.repeat(np.arange(n_clusters), n_per_cluster)
    means = rng.random((n_clusters, n)) - 0.5
    variances = sigma**2 * (rng.random((n_clusters, n)) + 0.5)
    X = means[y] + np.sqrt(variances[y]) * rng.standard_normal((y.size, n))
    X[:, n_relevant:] = permute_columns(X[:, n_relevant:], rng)
    relevant = np.zeros(n, dtype=bool)
    relevant[:n_relevant] = True
    return SyntheticData(X, y, relevant)


def make_wolf_bileschi_fig1(
    *, n_irrelevant: int = 200, sigma: float = 1.0, random_state: object = None
) -> SyntheticData:
    """Fig. 1: two 3-D Gaussians of 50 points each, plus ``n_irrelevant`` permuted coordinates.

    See :func:`make_permuted_gaussians` for the recipe and the meaning of ``sigma``.

    Parameters
    ----------
    n_irrelevant : int
        Number of permuted coordinates (the report: 200).
    sigma : float
        Scale of the cluster standard deviations (1 as printed; 0.1 separates the
        clusters as drawn in Fig. 1a–b).
    random_state : None, int or Generator
        Seed of the draws.

    Returns
    -------
    SyntheticData
        X of shape (100, 3 + n_irrelevant), the cluster (0/1) of every sample, and the
        first three features marked relevant.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> data.M.shape, np.bincount(data.y).tolist(), np.flatnonzero(data.relevant).tolist()
    ((203, 100), [50, 50], [0, 1, 2])
    """
    return make_permuted_gaussians(
        2, 50, n_relevant=3, n_irrelevant=n_irrelevant, sigma=sigma, random_state=random_state
    )


def make_wolf_bileschi_fig2(
    *, n_irrelevant: int = 200, sigma: float = 1.0, random_state: object = None
) -> SyntheticData:
    """Fig. 2: 3 relevant of 203 variables from four Gaussians with diagonal covariances.

    The report gives no sizes for this experiment; we use Fig. 1's recipe with four
    clusters of 25 points (q = 100, as in Fig. 1). See :func:`make_permuted_gaussians`.

    Parameters
    ----------
    n_irrelevant, sigma, random_state
        As in :func:`make_wolf_bileschi_fig1`.

    Returns
    -------
    SyntheticData
        X of shape (100, 3 + n_irrelevant), the cluster (0–3) of every sample, and the
        first three features marked relevant.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_fig2
    >>> data = make_wolf_bileschi_fig2(n_irrelevant=50, random_state=0)
    >>> data.X.shape, np.bincount(data.y).tolist()
    ((100, 53), [25, 25, 25, 25])
    """
    return make_permuted_gaussians(
        4, 25, n_relevant=3, n_irrelevant=n_irrelevant, sigma=sigma, random_state=random_state
    )


def make_wolf_bileschi_ideal(
    n_relevant: int = 3,
    n_irrelevant: int = 200,
    n_samples: int = 100,
    *,
    random_state: object = None,
) -> SyntheticData:
    """The ideal case of the random-matrix argument (Sec. 2).

    Two equally sized, perfectly tight clusters at ``±[1, …, 1]ᵀ/√q`` in the n₁ relevant
    features, so every relevant row has unit norm and ``A₁ = M₁ᵀM₁`` has the single
    eigenvalue n₁; the n₂ irrelevant features are i.i.d. N(0, 1/q), so every row has
    expected squared norm 1 and ``A₂ = M₂ᵀM₂`` is Wishart.

    Parameters
    ----------
    n_relevant : int
        n₁, the number of relevant features, ≥ 0.
    n_irrelevant : int
        n₂, the number of noise features, ≥ 0.
    n_samples : int
        q, the number of samples, ≥ 2.
    random_state : None, int or Generator
        Seed of the noise.

    Returns
    -------
    SyntheticData
        X of shape (q, n₁ + n₂) with the relevant features first; y is the cluster (0/1).

    Examples
    --------
    ``A₁ = M₁ᵀM₁`` has the single non-zero eigenvalue n₁ = 3, and the top eigenvalue of
    the noise kernel ``A₂ = M₂ᵀM₂`` is near the Wishart edge:

    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_ideal
    >>> from spectral_kit.theory import wishart_top_eigenvalue
    >>> data = make_wolf_bileschi_ideal(3, 200, 100, random_state=0)
    >>> M1, M2 = data.M[data.relevant], data.M[~data.relevant]
    >>> np.round(np.linalg.eigvalsh(M1.T @ M1)[-2:], 6)
    array([0., 3.])
    >>> round(float(np.linalg.eigvalsh(M2.T @ M2)[-1]), 2)
    5.57
    >>> round(wishart_top_eigenvalue(200, 100), 2)
    5.83
    """
    n1 = check_int(n_relevant, "n_relevant", low=0)
    n2 = check_int(n_irrelevant, "n_irrelevant", low=0)
    q = check_int(n_samples, "n_samples", low=2)
    if n1 + n2 == 0:
        raise ValueError("n_relevant + n_irrelevant must be at least 1; got 0 features.")
    check_data_size(q, n1 + n2, "n_samples × n_relevant + n_irrelevant", copies=2.0)
    rng = as_generator(random_state)
    y = (np.arange(q) >= q // 2).astype(int)
    signs = np.where(y == 0, 1.0, -1.0)
    X = np.empty((q, n1 + n2))
    X[:, :n1] = signs[:, None] / np.sqrt(q)
    X[:, n1:] = rng.standard_normal((q, n2)) / np.sqrt(q)
    relevant = np.zeros(n1 + n2, dtype=bool)
    relevant[:n1] = True
    return SyntheticData(X, y, relevant)


# ------------------------------------------------------------------------------- Haar

HAAR_ORIENTATIONS = ("vertical", "horizontal", "diagonal")


@dataclass(frozen=True)
class HaarFilters:
    """A bank of 2-D Haar wavelets on an image grid.

    Attributes
    ----------
    matrix : ndarray of shape (height · width, n_filters)
        One unit-norm filter per column (row-major pixels); features are ``images @ matrix``.
    orientation : ndarray of str
        ``"vertical"`` (left − right), ``"horizontal"`` (top − bottom), ``"diagonal"``
        (checkerboard) or ``"average"``.
    size, top, left : ndarray of int
        Side of each filter's square support and its upper-left pixel.
    shape : tuple of int
        The image shape (height, width).
    """

    matrix: np.ndarray
    orientation: np.ndarray
    size: np.ndarray
    top: np.ndarray
    left: np.ndarray
    shape: tuple[int, int]

    @property
    def n_filters(self) -> int:
        """The number of filters (columns of ``matrix``)."""
        return self.matrix.shape[1]

    def image(self, j: int) -> np.ndarray:
        """Filter j as an image (for showing which wavelets a weighting picks, Fig. 3)."""
        return self.matrix[:, j].reshape(self.shape)


def _haar_patch(orientation: str, s: int) -> np.ndarray:
    h = s // 2
    patch = np.ones((s, s))
    if orientation == "vertical":
        patch[:, h:] = -1.0
    elif orientation == "horizontal":
        patch[h:, :] = -1.0
    elif orientation == "diagonal":
        patch[:h, h:] = -1.0
        patch[h:, :h] = -1.0
    return patch / s  # s² entries of magnitude 1/s: unit L2 norm


def haar_filters(
    shape: tuple[int, int],
    *,
    sizes: tuple[int, ...] | None = None,
    overcomplete: bool = True,
    include_average: bool = False,
) -> HaarFilters:
    """Haar wavelets of several sizes and positions on an image of the given shape.

    Following the wavelet templates the report builds on (Oren et al. 1997, its [16]), the
    filters are the three 2-D Haar wavelets (vertical, horizontal, diagonal) on square
    supports of side s (a power of two), shifted by s/2 when ``overcomplete`` (the
    over-complete dictionary that makes the features informative but correlated) and by s
    otherwise. Without overlap, with every size up to the image side and with the average
    filter, an image of side 2^J gets exactly the orthonormal 2-D Haar basis -- a rotation of
    pixel space, which PCA would not notice (Sec. 1).

    Parameters
    ----------
    shape : (height, width)
    sizes : tuple of int, optional
        Supports to use (even); default every power of two from 2 to min(height, width).
    overcomplete : bool
        Shift filters by half their size (True) or their full size (False).
    include_average : bool
        Add the normalised box filter of the largest size at each of its positions.

    Returns
    -------
    HaarFilters
        The filters as the unit-norm columns of ``matrix``, with the orientation, size and
        position of each.

    Examples
    --------
    On 8 × 8 images the over-complete bank has 177 filters of sizes 2, 4 and 8:

    >>> import numpy as np
    >>> from spectral_kit.datasets import haar_filters
    >>> bank = haar_filters((8, 8))
    >>> bank.matrix.shape, np.unique(bank.size).tolist()
    ((64, 177), [2, 4, 8])
    >>> bank.image(0)[:2, :3]
    array([[ 0.5, -0.5,  0. ],
           [ 0.5, -0.5,  0. ]])

    Without overlap and with the average filter it is the orthonormal Haar basis:

    >>> basis = haar_filters((8, 8), overcomplete=False, include_average=True).matrix
    >>> basis.shape, bool(np.allclose(basis.T @ basis, np.eye(64)))
    ((64, 64), True)
    """
    if not isinstance(shape, (tuple, list)):
        raise TypeError(f"shape must be a pair (height, width); got {shape!r:.60}.")
    if len(shape) != 2:
        raise ValueError(f"shape must be (height, width); got {shape!r}.")
    height = check_int(shape[0], "shape[0]", low=2)
    width = check_int(shape[1], "shape[1]", low=2)
    if sizes is None:
        top_power = int(np.floor(np.log2(min(height, width))))
        sizes = tuple(2**j for j in range(1, top_power + 1))
    sizes = tuple(check_int(s, "sizes", low=2, high=min(height, width)) for s in sizes)
    odd = [s for s in sizes if s % 2]
    if odd or not sizes:
        raise ValueError(f"sizes must be a non-empty tuple of even integers; got {sizes!r}.")
    columns, orient, size, tops, lefts = [], [], [], [], []

    def add(patch: np.ndarray, name: str, s: int, r: int, c: int) -> None:
        image = np.zeros((height, width))
        image[r : r + s, c : c + s] = patch
        columns.append(image.ravel())
        orient.append(name)
        size.append(s)
        tops.append(r)
        lefts.append(c)

    for s in sizes:
        step = s // 2 if overcomplete else s
        for r in range(0, height - s + 1, step):
            for c in range(0, width - s + 1, step):
                for name in HAAR_ORIENTATIONS:
                    add(_haar_patch(name, s), name, s, r, c)
    if include_average:
        s = max(sizes)
        step = s // 2 if overcomplete else s
        for r in range(0, height - s + 1, step):
            for c in range(0, width - s + 1, step):
                add(np.full((s, s), 1.0 / s), "average", s, r, c)
    return HaarFilters(
        matrix=np.column_stack(columns), orientation=np.array(orient), size=np.array(size),
        top=np.array(tops), left=np.array(lefts), shape=(height, width),
    )


def haar_features(images: object, filters: HaarFilters | None = None) -> np.ndarray:
    """Haar wavelet responses of every image (samples × features, scikit-learn's X).

    Parameters
    ----------
    images : array-like of shape (n_images, height, width)
    filters : HaarFilters, optional
        Default: :func:`haar_filters` of the images' shape (over-complete, all sizes).

    Returns
    -------
    ndarray of shape (n_images, n_filters)
        A linear map of the pixels, so a template learned on the features maps back to an
        image (as in the car-detection experiment, Fig. 4).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.datasets import haar_features, haar_filters
    >>> images = np.random.default_rng(0).random((5, 8, 8))
    >>> haar_features(images).shape
    (5, 177)

    With the orthonormal basis the features keep every image's norm:

    >>> basis = haar_filters((8, 8), overcomplete=False, include_average=True)
    >>> X = haar_features(images, basis)
    >>> bool(np.allclose(np.linalg.norm(X, axis=1), np.linalg.norm(images, axis=(1, 2))))
    True
    """
    arr = check_array(images, "images", ndim=3, rows_label="images")
    shape = (arr.shape[1], arr.shape[2])
    bank = haar_filters(shape) if filters is None else filters
    if bank.shape != shape:
        raise ValueError(
            f"filters were built for images of shape {bank.shape}; got images of shape {shape}."
        )
    return arr.reshape(arr.shape[0], -1) @ bank.matrix
