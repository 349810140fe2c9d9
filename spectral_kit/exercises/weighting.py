"""Exercises of notebook 04 (Wolf & Bileschi 2005: weighting, then reduction)."""

from __future__ import annotations

from ._core import exercise


@exercise(
    "04.1", "how many irrelevant features a signal survives",
    {"theta": 2.5, "q": 100},
    hints=(
        "The relevant direction stands out while θ > 1 + √(n₂/q).",
        "Solve for n₂: √(n₂/q) < θ − 1.",
        "n₂ < q(θ − 1)²: put in θ = 2.5, q = 100.",
    ),
    solution="```python\nanswer = 100 * (2.5 - 1) ** 2      # = critical_irrelevant(2.5, 100)\n"
             "```\nFrom $\\theta > 1 + \\sqrt{n_2/q} \\iff n_2 < q(\\theta-1)^2$.",
)
def _critical(theta: float, q: int) -> float:
    from ..weighting import critical_irrelevant

    return critical_irrelevant(theta, q)


@exercise(
    "04.2", "Algo. 2 by hand: the top eigenvalue of H",
    {"sigma": 0.1, "data_seed": 0},
    rtol=1e-8,
    hints=(
        "Mp = preprocess_rows(data.M) centres every row and scales it to unit norm.",
        "H = (Mp @ Mp.T) ** 2 squares every entry of the 203 × 203 matrix MMᵀ.",
        "np.linalg.eigvalsh(H) is in increasing order: take the last value.",
    ),
    solution="```python\nMp = preprocess_rows(data.M)\n"
             "answer = np.linalg.eigvalsh((Mp @ Mp.T) ** 2)[-1]\n```\n"
             "It equals `parameter_free_weights(data.M).eigenvalue`, computed without forming H.",
)
def _h_eigenvalue(sigma: float, data_seed: int) -> float:
    import numpy as np

    from ..datasets import make_wolf_bileschi_fig1
    from ..preprocess import preprocess_rows

    # An independent reference: H formed explicitly (the library never forms it).
    Mp = preprocess_rows(make_wolf_bileschi_fig1(sigma=sigma, random_state=data_seed).M)
    return np.linalg.eigvalsh((Mp @ Mp.T) ** 2)[-1]


@exercise(
    "04.3", "supervised weights on overlapping clusters",
    {"sigma": 0.5, "data_seed": 0, "lam": 0.0},
    rtol=1e-3,
    hints=(
        "Draw the data: overlapping = make_wolf_bileschi_fig2(sigma=0.5, random_state=0).",
        "result = supervised_weights(overlapping.M, overlapping.y, 0.0) runs Algo. 3 with λ = 0.",
        "sparsity_gap(result.alpha, overlapping.relevant)",
    ),
    solution="```python\noverlapping = make_wolf_bileschi_fig2(sigma=0.5, random_state=0)\n"
             "result = supervised_weights(overlapping.M, overlapping.y, 0.0)\n"
             "answer = sparsity_gap(result.alpha, overlapping.relevant)\n```\n"
             "The labels make the relevant variables stand out where Algo. 2 sees nothing.",
)
def _supervised_gap(sigma: float, data_seed: int, lam: float) -> float:
    from ..datasets import make_wolf_bileschi_fig2
    from ..metrics import sparsity_gap
    from ..weighting import supervised_weights

    data = make_wolf_bileschi_fig2(sigma=sigma, random_state=data_seed)
    return sparsity_gap(supervised_weights(data.M, data.y, lam).alpha, data.relevant)
