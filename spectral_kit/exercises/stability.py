"""Exercises of notebook 05 (Mavroeidis & Vazirgiannis: stability-based sparse PCA)."""

from __future__ import annotations

from ._core import exercise


@exercise(
    "05.1", "the cosine of a resample the paper does not list",
    {"documents": (1, 2, 2, 3, 4)},
    rtol=1e-3,
    hints=(
        "The resample holds documents d2, d3, d3, d4, d5: rows 1, 2, 2, 3, 4 of X1.",
        "graduation is (2, 4, 4, 3, 1), unemployment (3, 3, 3, 0, 0) in that resample.",
        "cosine = inner product / (product of the norms) = 30 / √(46·27)",
    ),
    solution="```python\nanswer = similarity_matrix(X1[[1, 2, 2, 3, 4]], \"cosine\")[0, 1]\n"
             "```\n$30/\\sqrt{46\\cdot 27}$: the inner product of graduation (2, 4, 4, 3, 1) "
             "and unemployment (3, 3, 3, 0, 0) over the product of their norms.",
)
def _cosine(documents: tuple[int, ...]) -> float:
    import numpy as np

    from ..datasets.stability_examples import EXAMPLE1_DOCUMENTS

    X = np.asarray(EXAMPLE1_DOCUMENTS, dtype=float)[list(documents)]
    # Independent of the library's similarity_matrix: the definition itself.
    return X[:, 0] @ X[:, 1] / np.sqrt((X[:, 0] @ X[:, 0]) * (X[:, 1] @ X[:, 1]))


@exercise(
    "05.2", "how far a stable space can move (Lemma 1)",
    {"eigenvalues": (4.4, 4.0, 0.4, 0.3), "norm_E": 0.75},
    rtol=1e-3,
    hints=(
        "Lemma 1: k is stable when the gap λ_k − λ_{k+1} exceeds 4‖E‖₂ = 3.",
        "Only the gap 4.0 − 0.4 = 3.6 (k = 2) is larger than 3.",
        "The bound is 2ε/(gap − 2ε) with ε = 0.75 and gap = 3.6.",
    ),
    solution="```python\nlam = [4.4, 4.0, 0.4, 0.3]\n"
             "answer = lemma1_distance_bound(lam, 0.75, lemma1_stable_ks(lam, 0.75)[0])\n```\n"
             "$2\\varepsilon/(\\delta - 2\\varepsilon) = 1.5/2.1 \\approx 0.714$, for k = 2.",
)
def _distance_bound(eigenvalues: tuple[float, ...], norm_E: float) -> float:
    lam = sorted(eigenvalues, reverse=True)
    gaps = [(lam[k - 1] - lam[k], k) for k in range(1, len(lam))]
    gap, _ = next((g, k) for g, k in gaps if g > 4 * norm_E)
    return 2 * norm_E / (gap - 2 * norm_E)


@exercise(
    "05.3", "the samples that make k = 3 stable",
    {"n_features": 8, "n_clusters": 3, "sigma": 0.3, "data_seed": 0, "n_resamples": 200,
     "grid": tuple(range(600, 2001, 200))},
    kind="grid",
    hints=(
        "Try the explorer first: 3 groups, σ = 0.3, confidence 0.9, and move the samples.",
        "For one n: d = make_grouped_factors(n, 8, 3, 0.3, random_state=0); "
        "stability_report(bootstrap_distribution(d.X, \"covariance\", 200, "
        "random_state=0)).stable_ks",
        "Loop over n = 600, 800, …, 2000 and stop at the first n whose stable k contain 3.",
    ),
    solution="```python\ndef k3_stable(n):\n"
             "    d = make_grouped_factors(n, 8, 3, 0.3, random_state=0)\n"
             "    dist = bootstrap_distribution(d.X, \"covariance\", 200, random_state=0)\n"
             "    return 3 in stability_report(dist).stable_ks\n\n"
             "answer = next(n for n in range(600, 2001, 200) if k3_stable(n))\n```",
)
def _samples_for_k3(n_features: int, n_clusters: int, sigma: float, data_seed: int,
                    n_resamples: int, grid: tuple[int, ...]) -> float:
    from ..stability import bootstrap_distribution, stability_report
    from ..widgets.stability import make_grouped_factors

    for n in grid:
        d = make_grouped_factors(n, n_features, n_clusters, sigma, random_state=data_seed)
        dist = bootstrap_distribution(d.X, "covariance", n_resamples, random_state=data_seed)
        if n_clusters in stability_report(dist).stable_ks:
            return n
    return float("nan")
