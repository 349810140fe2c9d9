"""The filter methods the Q-α paper compares against (Wolf & Shashua 2005, Sec. 6).

Each returns one score per feature, larger meaning more relevant, for data X (samples ×
features) and class labels y; :func:`rank_features` turns scores into a ranking. The scores
are classical: Pearson correlation with the label, Fisher's criterion and the
Kolmogorov–Smirnov statistic between classes.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array, check_labels

__all__ = ["fisher_score", "ks_score", "pearson_score", "rank_features"]


def _check(X: object, y: object) -> tuple[np.ndarray, np.ndarray]:
    X = check_array(X, "X", min_rows=2, rows_label="samples", cols_label="features")
    y = check_labels(y, X.shape[0], "y")
    # Every score is invariant to the scale of a feature: a power of two near each column's
    # max |x| is divided out (exactly), so no square over- or underflows.
    peak = np.maximum(X.max(axis=0), -X.min(axis=0))
    return np.ldexp(X, -np.frexp(np.where(peak > 0, peak, 1.0))[1]), y


def pearson_score(X: object, y: object) -> np.ndarray:
    """|Pearson correlation| between each feature and the label.

    Labels are coded 0, 1, ... in sorted order; with more than two classes the codes are
    treated as numbers, as a correlation filter does. Constant features score 0.
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

    For two classes this is proportional to ``(μ₁ − μ₂)² / (σ₁² + σ₂²)`` when the classes
    have equal size. Features with no within-class spread score 0 when the class means
    agree and ``inf`` when they do not (a perfectly separating feature).
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

    For two classes, the two-sample KS statistic ``sup_t |F₁(t) − F₂(t)|``; for more, the
    largest statistic over pairs of classes. Computed for all features at once from the
    sorted pooled values.
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
    """Feature indices by decreasing score (ties keep the original order)."""
    s = check_array(scores, "scores", ndim=1)
    return np.argsort(-s, kind="stable")
