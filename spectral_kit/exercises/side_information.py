"""Exercises of notebook 02 (Shashua & Wolf 2004: side information, kernels, topography)."""

from __future__ import annotations

import numpy as np

from ._core import exercise


@exercise(
    "02.1", "the side scaling of one feature",
    {"data_seed": 0, "feature": 0},
    rtol=1e-9,
    hints=(
        "D_ii compares how much feature i varies in the side data W with how much it varies "
        "in the main data M.",
        "Row 0 of data.W and row 0 of data.M are feature 0; np.var uses ddof = 0.",
        "np.var(data.W[0]) / np.var(data.M[0])",
    ),
    solution="```python\nanswer = np.var(data.W[0]) / np.var(data.M[0])\n```\n"
             "A target feature varies in the side data only by its within-cluster spread, so "
             "D₀₀ is well below 1.",
)
def _side_scaling(data_seed: int, feature: int) -> float:
    from ..datasets import make_two_structures

    data = make_two_structures(random_state=data_seed)
    return np.var(data.W[feature]) / np.var(data.M[feature])


@exercise(
    "02.2", "where α switches to the nuisance",
    {"data_seed": 0, "k": 3, "grid": tuple(10.0 ** np.arange(-3, 3.01, 0.5))},
    kind="grid",
    hints=(
        "Loop over the grid from small to large λ.",
        "For each λ: alpha = q_alpha_side(data.M, data.W, 3, lam).alpha, then "
        "structure_shares(alpha, groups)['nuisance'].",
        "Stop at the first λ whose nuisance share is above 0.5.",
    ),
    solution="```python\ngrid = 10.0 ** np.arange(-3, 3.01, 0.5)\n"
             "answer = next(lam for lam in grid\n"
             "              if structure_shares(q_alpha_side(data.M, data.W, 3, lam).alpha,\n"
             "                                  groups)['nuisance'] > 0.5)\n```",
)
def _switch(data_seed: int, k: int, grid: tuple[float, ...]) -> float:
    from ..datasets import make_two_structures
    from ..qalpha import q_alpha_side
    from ..widgets.sparsity_gap import structure_shares

    data = make_two_structures(random_state=data_seed)
    groups = {"target": data.target, "nuisance": data.nuisance}
    for lam in grid:
        alpha = q_alpha_side(data.M, data.W, k, lam).alpha
        if structure_shares(alpha, groups)["nuisance"] > 0.5:
            return lam
    return float("nan")


@exercise(
    "02.3", "one entry of the hidden-session kernel",
    {"lam": 0.01, "data_seed": 0, "section": 8, "degree": 2, "i": 0, "j": 1},
    rtol=1e-8,
    hints=(
        "First centre every row of sessions.M and scale it to unit norm: "
        "preprocess_rows(sessions.M).",
        "Cut rows 0 and 1 into sections of 8 consecutive samples; square the inner product of "
        "each pair of sections and add them up.",
        "P = preprocess_rows(sessions.M).reshape(60, -1, 8); ((P[0] * P[1]).sum(1) ** 2).sum()",
    ),
    solution="```python\nP = preprocess_rows(sessions.M).reshape(sessions.M.shape[0], -1, 8)\n"
             "answer = ((P[0] * P[1]).sum(axis=1) ** 2).sum()\n```\n"
             "The same as `kernel_matrix(preprocess_rows(sessions.M), \"sections\", degree=2, "
             "section=8)[0, 1]`.",
)
def _session_kernel(lam: float, data_seed: int, section: int, degree: int, i: int,
                    j: int) -> float:
    from ..datasets import make_hidden_sessions
    from ..preprocess import preprocess_rows
    from ..qalpha.kernel import kernel_matrix

    sessions = make_hidden_sessions(lam, random_state=data_seed)
    V = kernel_matrix(preprocess_rows(sessions.M), "sections", degree=degree, section=section)
    return V[i, j]


@exercise(
    "02.4", "the hybrid features of the topographical map",
    {"data_seed": 0, "k": 2, "rounds": 2, "top": 6},
    kind="indices",
    hints=(
        "topo.top_features(r, 6) gives round r's six most relevant features (r = 0, 1).",
        "A feature relevant to both structures is in both lists.",
        "sorted(set(topo.top_features(0, 6)) & set(topo.top_features(1, 6)))",
    ),
    solution="```python\nanswer = sorted(set(topo.top_features(0, 6)) & "
             "set(topo.top_features(1, 6)))\n```\nThese are the hybrids 1A, 2B, 3C.",
)
def _hybrids(data_seed: int, k: int, rounds: int, top: int) -> list[int]:
    from ..datasets import make_topographic
    from ..topography import topographic_map

    data = make_topographic(random_state=data_seed)
    topo = topographic_map(data.M, k, rounds=rounds)
    first, second = (set(topo.top_features(r, top).tolist()) for r in (0, 1))
    return sorted(first & second)
