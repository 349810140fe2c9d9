"""Exercises of notebook 01 (Wolf & Shashua 2005: Q-α, positivity and sparsity)."""

from __future__ import annotations

from ._core import exercise


@exercise(
    "01.1", "the mean triple product (Prop. 9)",
    {"q": 20, "inner_ab": 0.6, "k": 4},
    hints=(
        "Prop. 8 gives the mean for one random unit vector c; Prop. 9 sums k orthonormal ones.",
        "Each of the k orthonormal c_l contributes the same mean as one uniform c.",
        "The mean is (k/q)·(aᵀb)²: put in q = 20, aᵀb = 0.6, k = 4.",
    ),
    solution="By Prop. 9, $\\mathbb{E}\\sum_{l\\le k}(a^\\top b)(a^\\top c_l)(b^\\top c_l) = "
             "\\frac{k}{q}(a^\\top b)^2$:\n\n```python\nanswer = 4 / 20 * 0.6**2\n```",
)
def _mean_triple_product(q: int, inner_ab: float, k: int) -> float:
    return k / q * inner_ab**2


@exercise(
    "01.2", "probability of a same-sign leading eigenvector",
    {"n": 40, "mu": 0.1, "sigma": 0.5, "trials": 500, "random_state": 0},
    hints=(
        "positivity_probability(n, mu=..., sigma=..., trials=..., random_state=...) simulates it.",
        "It returns an object whose .probability holds one value per n; you asked for one n.",
        "positivity_probability(40, mu=0.1, sigma=0.5, trials=500, random_state=0).probability[0]",
    ),
    solution="```python\nanswer = positivity_probability(40, mu=0.1, sigma=0.5, trials=500,\n"
             "                               random_state=0).probability[0]\n```\n"
             "Only μ/σ = 0.2 matters; the spike strength θ = 0.2·√40 ≈ 1.26 is barely above 1, "
             "so the large-n prediction Φ(√(θ² − 1))ⁿ is small too.",
)
def _positivity(n: int, mu: float, sigma: float, trials: int, random_state: int) -> float:
    from ..theory import positivity_probability

    return positivity_probability(n, mu, sigma, trials=trials,
                                  random_state=random_state).probability[0]


@exercise(
    "01.3", "the sparsity gap with four clusters",
    {"n_clusters": 4, "data_seed": 1, "k": 4},
    rtol=1e-3,
    hints=(
        "Draw the data with make_multiclass_clusters(n_clusters=4, random_state=1).",
        "result = q_alpha(data.M, 4) runs Q-α with k = 4 from the default start.",
        "sparsity_gap(result.alpha, data.relevant) is the mean relevant weight over the mean "
        "irrelevant one.",
    ),
    solution="```python\nd4 = make_multiclass_clusters(n_clusters=4, random_state=1)\n"
             "answer = sparsity_gap(q_alpha(d4.M, 4).alpha, d4.relevant)\n```\n"
             "The gap is well above the paper's 5–10. With `init=\"random\", random_state=3` "
             "Q-α can end in a poor local maximum: a lower objective and a much smaller gap.",
)
def _sparsity_gap(n_clusters: int, data_seed: int, k: int) -> float:
    from ..datasets import make_multiclass_clusters
    from ..metrics import sparsity_gap
    from ..qalpha import q_alpha

    data = make_multiclass_clusters(n_clusters=n_clusters, random_state=data_seed)
    return sparsity_gap(q_alpha(data.M, k).alpha, data.relevant)
