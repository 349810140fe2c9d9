"""Algo. 2 (parameter-free weighting, Wolf & Bileschi 2005) at scale.

* a whole run at n = 10⁶ features, q = 100 samples: wall time and peak memory beyond the
  (already normalised) data -- the dense H would need n² · 8 bytes = 8 TB;
* matrix-free against dense at n = 10⁴: ``H v = rowwise m_iᵀ(Mᵀdiag(v)M)m_i`` against
  forming ``H = (MMᵀ)^∘2`` (n² entries) and running the same eigen-solver on it.

Quick mode uses n = 10⁵ and n = 2000.
"""

from __future__ import annotations

import numpy as np

from ..preprocess import preprocess_rows
from ..weighting import parameter_free_weights
from ._core import BenchResult, benchmark, peak_memory, timed

__all__ = ["run"]

#: Share of features that carry the two clusters.
RELEVANT_SHARE = 0.01


def _data(n: int, q: int, random_state: int) -> tuple[np.ndarray, int]:
    """Normalised rows: 1 % of them separate two clusters, the rest are Gaussian noise."""
    rng = np.random.default_rng(random_state)
    M = rng.standard_normal((n, q))
    n_relevant = max(3, int(RELEVANT_SHARE * n))
    signs = np.where(np.arange(q) < q // 2, 1.0, -1.0)
    M[:n_relevant] += 2.0 * signs
    return preprocess_rows(M), n_relevant


def _at_scale(n: int, q: int) -> BenchResult:
    M, n_relevant = _data(n, q, random_state=0)
    peak, seconds, res = peak_memory(lambda: parameter_free_weights(M, preprocess=False))
    hits = int(np.sum(res.top_features(n_relevant) < n_relevant))
    return BenchResult(
        f"Algo. 2, matrix-free (n={n:,}, q={q}, 1 % relevant)", seconds,
        goal="memory O(nq): peak well below the data size",
        extra={
            "peak MB": round(peak / 2**20, 1),
            "data MB": round(M.nbytes / 2**20, 1),
            "dense H would need GB": round(8.0 * n * n / 2**30, 1),
            "matvecs": res.n_matvec,
            "relevant in top 1 %": f"{hits}/{n_relevant}",
        },
    )


def _versus_dense(n: int, q: int) -> BenchResult:
    M, _ = _data(n, q, random_state=1)
    t_free, free = timed(
        lambda: parameter_free_weights(M, solver="matrix-free", preprocess=False), repeat=2
    )
    peak_dense, t_dense, dense = peak_memory(
        lambda: parameter_free_weights(M, solver="dense", preprocess=False)
    )
    peak_free, _, _ = peak_memory(
        lambda: parameter_free_weights(M, solver="matrix-free", preprocess=False)
    )
    return BenchResult(
        f"Algo. 2, matrix-free vs dense H (n={n:,}, q={q})", t_free,
        "form H = (MMᵀ)^∘2, same eigen-solver", t_dense, goal="ratio > 1",
        extra={
            "|cos| to dense": round(abs(float(free.alpha @ dense.alpha)), 12),
            "peak MB matrix-free": round(peak_free / 2**20, 1),
            "peak MB dense": round(peak_dense / 2**20, 1),
            "matvecs": free.n_matvec,
        },
    )


@benchmark("weighting")
def run(quick: bool = False) -> list[BenchResult]:
    """Algo. 2 at 10⁶ features and matrix-free vs dense at 10⁴ (10⁵ and 2000 when quick)."""
    q = 100
    big, small = (10**5, 2000) if quick else (10**6, 10**4)
    return [_at_scale(big, q), _versus_dense(small, q)]
