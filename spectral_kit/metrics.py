"""Scores the papers use to judge a weighting or a clustering."""

from __future__ import annotations

import numpy as np
from scipy.optimize import linear_sum_assignment

from .validation import check_array, check_indices, check_labels, check_mask

__all__ = ["balanced_pair_accuracy", "clustering_accuracy", "selection_counts", "sparsity_gap"]


def sparsity_gap(alpha: object, relevant: object) -> float:
    """Mean weight of the relevant features ÷ mean weight of the others.

    The "sparsity gap" of Wolf & Shashua (2005, Sec. 6, Fig. 3b): large when α concentrates
    on the relevant features.

    Parameters
    ----------
    alpha : array-like of shape (n_features,)
        Feature weights, e.g. ``q_alpha(...).alpha``.
    relevant : array-like of bool, shape (n_features,)
        Mask of the truly relevant features; needs at least one of each kind.

    Returns
    -------
    float
        The ratio of the two means; ``inf`` when the irrelevant features weigh 0 on average.

    Examples
    --------
    The experiment of Fig. 3b with three clusters: Q-α puts about twenty times more weight
    on each of the five relevant features than on each of the 120 permuted ones.

    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.metrics import sparsity_gap
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> res = q_alpha(data.M, k=3, random_state=0)
    >>> round(sparsity_gap(res.alpha, data.relevant), 1)
    22.3
    >>> a = res.alpha
    >>> round(float(a[data.relevant].mean() / a[~data.relevant].mean()), 1)
    22.3
    """
    a = check_array(alpha, "alpha", ndim=1)
    mask = check_mask(relevant, "relevant", a.shape[0])
    if mask.all() or not mask.any():
        raise ValueError("relevant must mark at least one relevant and one irrelevant feature.")
    irrelevant = float(a[~mask].mean())
    if irrelevant == 0.0:
        return float("inf")
    return float(a[mask].mean()) / irrelevant


def clustering_accuracy(y_true: object, y_pred: object) -> float:
    """Fraction of samples whose cluster maps to their class under the best one-to-one
    matching of clusters to classes (Hungarian algorithm).

    This is the "percent of samples with labels matching the correct labeling (the maximum
    over the flips of the class labels)" of Wolf & Shashua (2005, Sec. 6), for any number
    of clusters; clusters left without a class count as errors.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The true classes.
    y_pred : array-like of shape (n_samples,)
        Cluster labels (any names; only which samples share a cluster matters).

    Returns
    -------
    float
        The fraction of samples in [0, 1] that the best matching labels correctly.

    Examples
    --------
    Cluster names do not matter: clusters 1, 0, 2 are matched to classes 0, 1, 2, and one
    sample of class 2 sits in class 1's cluster, so five of six are right.

    >>> from spectral_kit.metrics import clustering_accuracy
    >>> round(clustering_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2]), 4)
    0.8333
    """
    t = _true_labels(y_true)
    p = check_labels(y_pred, t.shape[0], "y_pred", min_classes=1)
    _, t_idx = np.unique(t, return_inverse=True)
    _, p_idx = np.unique(p, return_inverse=True)
    table = np.zeros((p_idx.max() + 1, t_idx.max() + 1), dtype=np.int64)
    np.add.at(table, (p_idx, t_idx), 1)
    rows, cols = linear_sum_assignment(-table)
    return float(table[rows, cols].sum()) / t.shape[0]


def selection_counts(selected: object, relevant: object) -> tuple[int, int]:
    """How many selected features are relevant and how many are not.

    Parameters
    ----------
    selected : sequence of int
        Indices of the selected features (e.g. the top of ``rank_features``).
    relevant : array-like of bool, shape (n_features,)
        Mask of the truly relevant features.

    Returns
    -------
    (int, int)
        The number of selected features that are relevant (hits) and that are not.

    Examples
    --------
    Weston et al.'s linear problem has its six relevant features first:

    >>> from spectral_kit.datasets import make_weston_linear
    >>> from spectral_kit.metrics import selection_counts
    >>> data = make_weston_linear(n_samples=20, random_state=0)
    >>> selection_counts([0, 3, 7], data.relevant)
    (2, 1)
    """
    mask = check_mask(relevant, "relevant")
    idx = check_indices(_as_list(selected, "selected"), "selected", size=mask.shape[0])
    hits = int(mask[idx].sum())
    return hits, int(idx.size - hits)


def balanced_pair_accuracy(y_true: object, y_pred: object) -> float:
    """Pairwise clustering accuracy of Xing et al. (2002), balanced over pair kinds.

    The score of the UCI table of Shashua & Wolf (2004): it reproduces the table's raw-data
    column, where the matched-label accuracy does not.

    Over all pairs of samples, a pair is right when "same class" and "same cluster" agree.
    Xing et al. draw pairs from the same class and from different classes with probability
    1/2 each, so the score is the mean of (same-class pairs put in one cluster) and
    (different-class pairs put in different clusters); chance level is 0.5.

    Parameters
    ----------
    y_true : array-like of shape (n_samples,)
        The true classes: at least two, one of them with two samples or more.
    y_pred : array-like of shape (n_samples,)
        Cluster labels.

    Returns
    -------
    float
        The balanced pair accuracy in [0, 1].

    Examples
    --------
    Six samples, three classes of two. Two of the three same-class pairs share a cluster,
    and ten of the twelve different-class pairs are split (sample 4 joins samples 2 and 3):

    >>> from spectral_kit.metrics import balanced_pair_accuracy
    >>> balanced_pair_accuracy([0, 0, 1, 1, 2, 2], [1, 1, 0, 0, 0, 2])
    0.75
    >>> (2 / 3 + 10 / 12) / 2
    0.75
    """
    t = _true_labels(y_true)
    p = check_labels(y_pred, t.shape[0], "y_pred", min_classes=1)
    _, ti = np.unique(t, return_inverse=True)
    _, pi = np.unique(p, return_inverse=True)
    table = np.zeros((ti.max() + 1, pi.max() + 1))
    np.add.at(table, (ti, pi), 1.0)

    def pairs(x: np.ndarray) -> np.ndarray:
        return x * (x - 1.0) / 2.0

    total = pairs(float(t.size))
    same = float(pairs(table.sum(axis=1)).sum())
    together = float(pairs(table.sum(axis=0)).sum())
    same_together = float(pairs(table).sum())
    if same == 0.0 or same == total:
        raise ValueError("y_true needs at least two classes and one class with two samples.")
    return 0.5 * same_together / same + 0.5 * (1.0 - (together - same_together) / (total - same))


def _true_labels(y_true: object) -> np.ndarray:
    if y_true is None or np.ndim(y_true) != 1 or np.size(y_true) == 0:
        raise ValueError(f"y_true must be a non-empty 1-D array of labels; got {y_true!r:.60}.")
    return check_labels(y_true, np.size(y_true), "y_true", min_classes=1)


def _as_list(values: object, name: str) -> object:
    if values is None or isinstance(values, (str, bytes, dict)) or np.ndim(values) != 1:
        raise TypeError(f"{name} must be a 1-D sequence of feature indices; got {values!r:.60}.")
    return values
