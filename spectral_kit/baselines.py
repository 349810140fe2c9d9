"""Filter methods that Q-α is compared against.

Supervised, the filters of the Q-α paper's experiments (Wolf & Shashua 2005, Sec. 6): each
returns one score per feature, larger meaning more relevant, for data X (samples ×
features) and class labels y -- Pearson correlation with the label, Fisher's criterion and
the Kolmogorov–Smirnov statistic between classes. :func:`rank_features` turns scores into a
ranking.

Unsupervised, the graph-spectral filters users compare unsupervised Q-α with: the
Laplacian score (He, Cai & Niyogi 2005) and SPEC (Zhao & Liu 2007). Both score how smoothly
a feature varies over a similarity graph of the samples. They return the papers' values:
for the Laplacian score and SPEC's φ₁, φ₂ *smaller* means more relevant (rank with
``rank_features(-score)``); for φ₃ larger does.
"""

from __future__ import annotations

import numpy as np
import scipy.linalg
from scipy.spatial.distance import cdist

from .validation import (
    check_array,
    check_finite_scalar,
    check_int,
    check_labels,
    check_nonconstant_rows,
    check_symmetric,
    scale_exponent,
)

__all__ = [
    "fisher_score",
    "heat_kernel_affinity",
    "ks_score",
    "laplacian_score",
    "pearson_score",
    "rank_features",
    "spec_score",
]


def _check(X: object, y: object) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    y = check_labels(y, X.shape[0], "y")
    # Every score is invariant to the scale of a feature: a power of two near each column's
    # max |x| is divided out (exactly), so no square over- or underflows.
    peak = np.maximum(X.max(axis=0), -X.min(axis=0))
    return np.ldexp(X, -np.frexp(np.where(peak > 0, peak, 1.0))[1]), y


def pearson_score(X: object, y: object) -> np.ndarray:
    """Absolute Pearson correlation between each feature and the label.

    One of the three classical filters Q-α is compared with (Wolf & Shashua 2005, Sec. 6,
    the Weston et al. experiment), and the gene-ranking baseline of Moghaddam, Weiss &
    Avidan (2006, Sec. 3). Labels are coded 0, 1, ... in sorted order; with more than two
    classes the codes are treated as numbers, as a correlation filter does. Constant
    features score 0.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Data with samples as rows (scikit-learn's orientation), at least two samples.
    y : array-like of shape (n_samples,)
        Class labels.

    Returns
    -------
    ndarray of shape (n_features,)
        ``|r|`` in [0, 1] per feature; larger is more relevant.

    Examples
    --------
    One feature follows the label, one is noise; the score is NumPy's correlation
    coefficient, in absolute value:

    >>> import numpy as np
    >>> from spectral_kit.baselines import pearson_score
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1], 20)
    >>> X = np.column_stack([y + 0.5 * rng.standard_normal(40), rng.standard_normal(40)])
    >>> scores = pearson_score(X, y)
    >>> np.round(scores, 3)
    array([0.822, 0.048])
    >>> round(float(abs(np.corrcoef(X[:, 0], y)[0, 1])), 3)
    0.822
    """
    X, y = _check(X, y)
    codes = np.unique(y, return_inverse=True)[1].astype(np.float64)
    Xc = X - X.mean(axis=0)
    yc = codes - codes.mean()
    denom = np.sqrt((Xc**2).sum(axis=0) * (yc @ yc))
    with np.errstate(invalid="ignore", divide="ignore"):
        r = np.where(denom > 0, (Xc.T @ yc) / denom, 0.0)
    return np.abs(r)


def fisher_score(X: object, y: object) -> np.ndarray:
    """Fisher's criterion ``Σ_c n_c (μ_c − μ)² / Σ_c n_c σ_c²`` per feature.

    The "Fisher criterion score" filter of Wolf & Shashua (2005, Sec. 6) and of Wolf &
    Bileschi (2005, Sec. 6, Table 1). For two classes of equal size it is
    ``(μ₁ − μ₂)² / (2 (σ₁² + σ₂²))``, with the classes' (population) variances. Features
    with no within-class spread score 0 when the class means agree and ``inf`` when they do
    not (a perfectly separating feature).

    Parameters
    ----------
    X, y
        As in :func:`pearson_score`; two or more classes.

    Returns
    -------
    ndarray of shape (n_features,)
        Between-class over within-class spread, ≥ 0; larger is more relevant.

    Examples
    --------
    One feature, three classes of three samples: the class means 2, 3 and 7 lie around
    the overall mean 4 (between-class sum 3·(4 + 1 + 9) = 42), each class has variance
    2/3 (within-class sum 9·2/3 = 6), so the criterion is 42/6 = 7.

    >>> import numpy as np
    >>> from spectral_kit.baselines import fisher_score
    >>> x = np.array([1.0, 2.0, 3.0, 2.0, 3.0, 4.0, 6.0, 7.0, 8.0])
    >>> y = np.repeat([0, 1, 2], 3)
    >>> fisher_score(x[:, None], y)
    array([7.])

    The two-class form on two classes of equal size:

    >>> a, b = x[:3], x[6:]
    >>> float(fisher_score(np.r_[a, b][:, None], [0, 0, 0, 1, 1, 1])[0])
    9.375
    >>> float((a.mean() - b.mean()) ** 2 / (2 * (a.var() + b.var())))
    9.375
    """
    X, y = _check(X, y)
    mu = X.mean(axis=0)
    between = np.zeros(X.shape[1])
    within = np.zeros(X.shape[1])
    for c in np.unique(y):
        Xc = X[y == c]
        between += Xc.shape[0] * (Xc.mean(axis=0) - mu) ** 2
        within += Xc.shape[0] * Xc.var(axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):
        score = np.where(within > 0, between / within, np.where(between > 0, np.inf, 0.0))
    return score


def ks_score(X: object, y: object) -> np.ndarray:
    """Kolmogorov–Smirnov statistic between the classes, per feature.

    The "Kolmogorov–Smirnov test" filter of Wolf & Shashua (2005, Sec. 6) and Wolf &
    Bileschi (2005, Sec. 6). For two classes, the two-sample KS statistic
    ``sup_t |F₁(t) − F₂(t)|``; for more, the largest statistic over pairs of classes.
    Computed for all features at once from the sorted pooled values.

    Parameters
    ----------
    X, y
        As in :func:`pearson_score`; two or more classes.

    Returns
    -------
    ndarray of shape (n_features,)
        The statistic in [0, 1] per feature; larger is more relevant.

    Examples
    --------
    Two classes of 30 samples whose first feature differs by one standard deviation in
    mean; the statistic is SciPy's two-sample KS statistic:

    >>> import numpy as np
    >>> from scipy.stats import ks_2samp
    >>> from spectral_kit.baselines import ks_score
    >>> rng = np.random.default_rng(1)
    >>> a, b = rng.normal(0.0, 1.0, 30), rng.normal(1.0, 1.0, 30)
    >>> X = np.column_stack([np.r_[a, b], rng.normal(size=60)])
    >>> np.round(ks_score(X, np.repeat([0, 1], 30)), 3)
    array([0.5  , 0.133])
    >>> float(ks_2samp(a, b).statistic)
    0.5
    """
    X, y = _check(X, y)
    classes = np.unique(y)
    best = np.zeros(X.shape[1])
    for i, a in enumerate(classes):
        for b in classes[i + 1 :]:
            best = np.maximum(best, _ks_two_sample(X[y == a], X[y == b]))
    return best


def _ks_two_sample(A: np.ndarray, B: np.ndarray) -> np.ndarray:
    pooled = np.sort(np.vstack([A, B]), axis=0)
    # Empirical CDFs of each class evaluated at every pooled value, column by column.
    Fa = np.stack([np.searchsorted(np.sort(A[:, j]), pooled[:, j], side="right")
                   for j in range(A.shape[1])], axis=1) / A.shape[0]
    Fb = np.stack([np.searchsorted(np.sort(B[:, j]), pooled[:, j], side="right")
                   for j in range(B.shape[1])], axis=1) / B.shape[0]
    return np.abs(Fa - Fb).max(axis=0)


def rank_features(scores: object) -> np.ndarray:
    """Feature indices by decreasing score (ties keep the original order).

    Parameters
    ----------
    scores : array-like of shape (n_features,)
        One score per feature, larger meaning more relevant (negate the Laplacian score
        and SPEC's φ₁, φ₂, for which smaller is better).

    Returns
    -------
    ndarray of int, shape (n_features,)
        Indices of the features, the best first.

    Examples
    --------
    >>> from spectral_kit.baselines import rank_features
    >>> rank_features([0.2, 0.9, 0.5, 0.9])
    array([1, 3, 2, 0])

    The six relevant features of Weston et al.'s linear problem are 0–5; Fisher's
    criterion ranks five of them in its top six:

    >>> from spectral_kit.baselines import fisher_score
    >>> from spectral_kit.datasets import make_weston_linear
    >>> data = make_weston_linear(n_samples=100, random_state=0)
    >>> top = rank_features(fisher_score(data.X, data.y))[:6]
    >>> int(data.relevant[top].sum())
    5
    """
    s = check_array(scores, "scores", ndim=1)
    return np.argsort(-s, kind="stable")


# -- unsupervised: graph-spectral scores ------------------------------------------------------


def heat_kernel_affinity(
    X: object, *, n_neighbors: int | None = 5, t: float | None = None
) -> np.ndarray:
    """Similarity graph of the samples with heat-kernel weights ``S_ij = exp(−‖x_i − x_j‖²/t)``.

    He, Cai & Niyogi (2005), Sec. 3, steps 1–2: i and j are joined when either is among the
    other's ``n_neighbors`` nearest neighbours. With ``n_neighbors=None`` every pair is
    joined, the RBF graph of SPEC (Zhao & Liu 2007, Sec. 5; their ``2δ²`` is ``t``).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    n_neighbors : int or None
        Neighbours per sample, ``1 ≤ n_neighbors < n_samples``; None for the complete graph.
    t : float, optional
        Kernel width. The papers leave it to the user; by default the kit takes the mean
        squared distance over the graph's edges, which makes the weights scale-free.

    Returns
    -------
    ndarray of shape (n_samples, n_samples)
        Symmetric, non-negative, zero diagonal (O(n_samples²) memory).

    Examples
    --------
    Three samples on a line at 0, 1 and 3; with ``t = 2`` the weight of the pair at
    distance 1 is ``exp(−1/2)``:

    >>> import numpy as np
    >>> from spectral_kit.baselines import heat_kernel_affinity
    >>> X = np.array([[0.0], [1.0], [3.0]])
    >>> np.round(heat_kernel_affinity(X, n_neighbors=None, t=2.0), 3)
    array([[0.   , 0.607, 0.011],
           [0.607, 0.   , 0.135],
           [0.011, 0.135, 0.   ]])
    >>> round(float(np.exp(-1 / 2)), 3)
    0.607

    With one neighbour per sample the far pair (0, 3) is no longer joined:

    >>> np.round(heat_kernel_affinity(X, n_neighbors=1, t=2.0), 3)[0]
    array([0.   , 0.607, 0.   ])
    """
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    n = X.shape[0]
    # Distances of X·2^−e (exact) cannot overflow or underflow; a given t is rescaled alike.
    e = scale_exponent(X)
    sq = cdist(np.ldexp(X, -e), np.ldexp(X, -e), "sqeuclidean")
    np.fill_diagonal(sq, np.inf)
    if n_neighbors is None:
        edges = np.isfinite(sq)
    else:
        n_neighbors = check_int(n_neighbors, "n_neighbors", low=1, high=n - 1,
                                hint="(fewer than the number of samples)")
        nearest = np.argpartition(sq, n_neighbors - 1, axis=1)[:, :n_neighbors]
        edges = np.zeros((n, n), dtype=bool)
        edges[np.repeat(np.arange(n), n_neighbors), nearest.ravel()] = True
        edges |= edges.T
    if t is None:
        t = float(sq[edges].mean())
        if t <= 0:
            raise ValueError(
                "X: every pair of neighbouring samples coincides, so the default kernel width "
                "is 0; remove duplicate samples or pass t > 0."
            )
    else:
        t = np.ldexp(check_finite_scalar(t, "t", low=0.0, low_inclusive=False), -2 * e)
        if t == 0 or not np.isfinite(t):
            raise ValueError(f"t = {t!r} is out of range for data whose entries reach "
                             f"2^{e}; pass t on the scale of the squared distances.")
    return np.where(edges, np.exp(-np.where(edges, sq, 0.0) / t), 0.0)


def _graph(X: object, affinity: object, n_neighbors: int | None, t: float | None):
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    check_nonconstant_rows(X.T, "X", what="feature", centered=True)
    # Every score is a ratio in each feature: scale each column by a power of two (exact)
    # so that its quadratic forms cannot over- or underflow.
    raw, X = X, np.ldexp(X, -np.array([scale_exponent(col) for col in X.T]))
    if affinity is None:
        S = heat_kernel_affinity(raw, n_neighbors=n_neighbors, t=t)
    else:
        S = check_array(affinity, "affinity")
        check_symmetric(S, "affinity")
        if S.shape[0] != X.shape[0]:
            raise ValueError(
                f"affinity must be n_samples × n_samples = {X.shape[0]} × {X.shape[0]}; "
                f"got shape {S.shape}."
            )
        if (S < 0).any():
            raise ValueError("affinity must be non-negative (a similarity, not a distance).")
    degrees = S.sum(axis=1)
    if (degrees <= 0).any():
        i = int(np.flatnonzero(degrees <= 0)[0])
        source = "X" if affinity is None else "affinity"
        raise ValueError(
            f"{source}: sample {i} has no similarity to any other sample (degree 0); the "
            "graph Laplacian scores need every sample connected. Pass a larger t or "
            "n_neighbors."
        )
    return X, S, degrees


def laplacian_score(
    X: object,
    *,
    n_neighbors: int = 5,
    t: float | None = None,
    affinity: object = None,
) -> np.ndarray:
    """Laplacian score of every feature (He, Cai & Niyogi 2005, Sec. 3, Eq. 8).

    With the similarity graph S of the samples, ``D = diag(S1)`` and ``L = D − S``, feature r
    (column ``f_r`` of X) is centred in the graph's degree measure,
    ``f̃_r = f_r − (f_rᵀD1 / 1ᵀD1) 1``, and scored

        ``L_r = f̃_rᵀ L f̃_r / f̃_rᵀ D f̃_r``,

    the graph-smoothness of the feature over its variance. **Smaller is better**: a relevant
    feature varies little between neighbouring samples. It equals SPEC's φ₂ on the same
    graph (Zhao & Liu 2007).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        No constant feature (it has no variance and no score).
    n_neighbors, t
        The k-nearest-neighbour heat-kernel graph, :func:`heat_kernel_affinity`.
    affinity : array-like of shape (n_samples, n_samples), optional
        A precomputed symmetric, non-negative S; replaces ``n_neighbors`` and ``t``.

    Returns
    -------
    ndarray of shape (n_features,)
        Scores in [0, 2] for a graph with zero diagonal (a ratio of Laplacian to degree
        quadratic forms); rank with ``rank_features(-score)``.

    Examples
    --------
    Feature 0 follows three clusters of samples, feature 1 is noise: feature 0 is the
    smoother over the neighbourhood graph, so it scores lower.

    >>> import numpy as np
    >>> from spectral_kit.baselines import heat_kernel_affinity, laplacian_score
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.column_stack([y + 0.2 * rng.standard_normal(30), rng.standard_normal(30)])
    >>> np.round(laplacian_score(X), 3)
    array([0.052, 0.105])

    Eq. 8 written out with the graph's Laplacian ``L = D − S``:

    >>> S = heat_kernel_affinity(X, n_neighbors=5)
    >>> d = S.sum(axis=1)
    >>> f = X[:, 0] - (X[:, 0] @ d) / d.sum()
    >>> round(float(f @ (np.diag(d) - S) @ f / (f @ (d * f))), 3)
    0.052
    """
    X, S, d = _graph(X, affinity, n_neighbors, t)
    F = X - (d @ X) / d.sum()
    smooth = np.einsum("ij,ij->j", F, d[:, None] * F - S @ F)
    spread = np.einsum("ij,ij->j", F, d[:, None] * F)
    return smooth / spread


def spec_score(
    X: object,
    *,
    ranking: int = 2,
    n_clusters: int | None = None,
    n_neighbors: int | None = None,
    t: float | None = None,
    affinity: object = None,
) -> np.ndarray:
    """SPEC feature scores (Zhao & Liu 2007, Sec. 3, ranking functions φ₁, φ₂, φ₃).

    With the similarity graph S, ``D = diag(S1)`` and the normalised Laplacian
    ``𝓛 = D^{-1/2}(D − S)D^{-1/2}`` (eigenpairs ``λ_1 = 0 ≤ λ_2 ≤ ... ≤ 2``, ``ξ_j``;
    ``ξ_1 ∝ D^{1/2}1``), each feature is normalised, ``f̂ = D^{1/2}f / ‖D^{1/2}f‖``, and with
    ``α_j = ξ_jᵀ f̂`` and the spectral function γ(λ) = λ:

    * ``φ₁ = f̂ᵀ𝓛f̂ = Σ_j λ_j α_j²`` (smaller is better);
    * ``φ₂ = f̂ᵀ𝓛f̂ / (1 − α_1²)``, which discounts the trivial component (smaller is
      better; equal to the Laplacian score on the same graph);
    * ``φ₃ = Σ_{j=2}^{k} (2 − λ_j) α_j²`` over the k − 1 leading non-trivial eigenvectors,
      k the number of clusters (larger is better).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        No constant feature.
    ranking : {1, 2, 3}
        Which of φ₁, φ₂, φ₃.
    n_clusters : int
        k for φ₃, ``2 ≤ k ≤ n_samples``; unused otherwise.
    n_neighbors, t
        The graph, :func:`heat_kernel_affinity`; SPEC's own is the complete RBF graph
        (``n_neighbors=None``, the default).
    affinity : array-like of shape (n_samples, n_samples), optional
        A precomputed symmetric, non-negative S.

    Returns
    -------
    ndarray of shape (n_features,)
        The chosen φ per feature: smaller is more relevant for φ₁ and φ₂, larger for φ₃.

    Examples
    --------
    Feature 0 follows three clusters, feature 1 is noise (both centred, as φ₃ expects:
    a feature's mean is its trivial component). On a 5-nearest-neighbour graph every
    ranking prefers feature 0, and φ₂ equals the Laplacian score:

    >>> import numpy as np
    >>> from spectral_kit.baselines import laplacian_score, spec_score
    >>> rng = np.random.default_rng(0)
    >>> y = np.repeat([0, 1, 2], 10)
    >>> X = np.column_stack([y + 0.2 * rng.standard_normal(30), rng.standard_normal(30)])
    >>> X = X - X.mean(axis=0)
    >>> np.round(spec_score(X, ranking=1, n_neighbors=5), 3)
    array([0.052, 0.104])
    >>> np.round(spec_score(X, ranking=3, n_clusters=3, n_neighbors=5), 3)
    array([1.819, 1.314])
    >>> bool(np.allclose(spec_score(X, ranking=2, n_neighbors=5), laplacian_score(X)))
    True
    """
    if isinstance(ranking, bool) or ranking not in (1, 2, 3):
        raise ValueError(f"ranking must be 1, 2 or 3 (SPEC's φ₁, φ₂, φ₃); got {ranking!r}.")
    X, S, d = _graph(X, affinity, n_neighbors, t)
    n = X.shape[0]
    root = np.sqrt(d)
    norm_L = np.eye(n) - S / np.outer(root, root)
    F = root[:, None] * X
    F /= np.linalg.norm(F, axis=0)
    if ranking in (1, 2):
        phi1 = np.einsum("ij,ij->j", F, norm_L @ F)
        if ranking == 1:
            return phi1
        trivial = (root / np.linalg.norm(root)) @ F
        return phi1 / (1.0 - trivial**2)
    if n_clusters is None:
        raise ValueError("spec_score with ranking=3 needs n_clusters (k ≥ 2).")
    k = check_int(n_clusters, "n_clusters", low=2, high=n)
    lam, xi = scipy.linalg.eigh(0.5 * (norm_L + norm_L.T), subset_by_index=[0, k - 1])
    alpha = xi[:, 1:].T @ F
    return ((2.0 - lam[1:])[:, None] * alpha**2).sum(axis=0)
