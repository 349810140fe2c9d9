"""Exercises of notebook 03 (Moghaddam, Weiss & Avidan 2006: sparse LDA and its bounds)."""

from __future__ import annotations

from ._core import exercise

_PAIR = {"n": 12, "smoothness": 0.5, "pair_kind": "general", "pair_seed": 0}


def _pair(n: int, smoothness: float, pair_kind: str, pair_seed: int):
    from ..sparse_lda import random_pair

    rp = random_pair(n, smoothness=smoothness, kind=pair_kind, random_state=pair_seed)
    return rp.A, rp.B


@exercise(
    "03.1", "the guaranteed value of the best 5-subset (Eq. 8)",
    {**_PAIR, "k": 5},
    hints=(
        "Eq. (8): every k-subset has λ_max(A_S, B_S) between λ_k(A, B) and λ_n(A, B).",
        "The smallest possible value of the best subset is the lower end, λ_k(A, B).",
        "generalized_spectrum(A, B) lists λ₁ ≤ … ≤ λₙ in increasing order: take index k − 1.",
    ),
    solution="```python\nanswer = generalized_spectrum(A, B)[5 - 1]   # λ_5(A, B)\n```\n"
             "Every 5-subset — in particular the best — has λ_max(A_S, B_S) ≥ λ₅(A, B) "
             "by Eq. (8).",
)
def _lower_bound(n: int, smoothness: float, pair_kind: str, pair_seed: int, k: int) -> float:
    from ..sparse_lda import generalized_spectrum

    A, B = _pair(n, smoothness, pair_kind, pair_seed)
    return generalized_spectrum(A, B)[k - 1]


@exercise(
    "03.2", "the number of subsets exhaustive search evaluates",
    {"n": 40, "k": 20},
    kind="integer",
    hints=(
        "Exhaustive search evaluates every k-subset of n variables once.",
        "That is the binomial coefficient C(n, k).",
        "math.comb(40, 20)",
    ),
    solution="```python\nanswer = comb(40, 20)\n```\nAbout 1.4·10¹¹ subsets, against the few "
             "thousand nodes ESLDA expands.",
)
def _subsets(n: int, k: int) -> int:
    from math import comb

    return comb(n, k)


@exercise(
    "03.3", "sparse PCA of Brownian motion",
    {"n": 10, "hurst": 0.5, "k": 3},
    kind="indices",
    hints=(
        "Sparse PCA is sparse LDA with B = I: eslda(K, np.eye(10), 3).",
        "The result's .support holds the chosen time points.",
        "Brownian motion's variance grows with time, and late points are strongly correlated.",
    ),
    solution="```python\nanswer = eslda(K, np.eye(10), 3).support\n```\nThe three latest time "
             "points: their variances are the largest and they are strongly correlated.",
)
def _sparse_pca(n: int, hurst: float, k: int) -> list[int]:
    from itertools import combinations

    import numpy as np

    from ..sparse_lda import fbm_covariance

    # An independent reference: every k-subset, ordinary eigenvalues.
    K = fbm_covariance(n, hurst)
    best = max(combinations(range(n), k),
               key=lambda S: np.linalg.eigvalsh(K[np.ix_(S, S)])[-1])
    return list(best)


@exercise(
    "03.4", "what renormalization adds (Prop. 2)",
    {**_PAIR, "k": 3},
    hints=(
        "keep = simple_threshold(A, B, 3, loadings=\"discriminant\").support is the ST support.",
        "The thresholded direction: x = np.where(np.isin(np.arange(12), keep), w, 0.0), with w "
        "the dense discriminant of Section 1.",
        "renormalize(A, B, keep).value − rayleigh_quotient(x, A, B)",
    ),
    solution="```python\nkeep = simple_threshold(A, B, 3, loadings=\"discriminant\").support\n"
             "x3 = np.where(np.isin(np.arange(12), keep), w, 0.0)\n"
             "answer = renormalize(A, B, keep).value - rayleigh_quotient(x3, A, B)\n```\n"
             "It is ≥ 0 for every support: the renormalized value is the maximum of the "
             "quotient over all vectors with that support (Prop. 2), the thresholded x is one "
             "of them.",
)
def _renormalization_gain(n: int, smoothness: float, pair_kind: str, pair_seed: int,
                          k: int) -> float:
    import numpy as np
    import scipy.linalg

    from ..sparse_lda import rayleigh_quotient, renormalize, simple_threshold

    A, B = _pair(n, smoothness, pair_kind, pair_seed)
    w = scipy.linalg.eigh(A, B)[1][:, -1]
    keep = simple_threshold(A, B, k, loadings="discriminant").support
    x = np.where(np.isin(np.arange(n), keep), w, 0.0)
    return renormalize(A, B, keep).value - rayleigh_quotient(x, A, B)
