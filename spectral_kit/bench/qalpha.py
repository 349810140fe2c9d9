"""Q-α speed: the matrix-free α-step against dense G, and a whole run at 10⁶ features."""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..datasets import make_multiclass_clusters
from ..linalg import leading_eigenvector
from ..preprocess import preprocess_rows
from ..qalpha import q_alpha
from ..qalpha.models import StandardModel
from ._core import BenchResult, benchmark, peak_memory, timed

__all__ = ["run"]


def _structured(n_features: int, n_samples: int, random_state: int) -> np.ndarray:
    """n features of which 1 % carry three clusters; the rest are permuted copies."""
    n_relevant = max(5, n_features // 100)
    data = make_multiclass_clusters(
        3, n_points=n_samples, n_relevant=n_relevant, n_irrelevant=n_features - n_relevant,
        spread=0.1, random_state=random_state,
    )
    return np.ascontiguousarray(data.M)


def _alpha_step(n: int, q: int, k: int) -> list[BenchResult]:
    M = preprocess_rows(_structured(n, q, random_state=0))
    model = StandardModel(M)
    # A realistic α-step: the Q of one Q-α iteration, warm-started from the previous α.
    Q = model.initial_subspace("pca", k, np.random.default_rng(0))
    alpha_prev = leading_eigenvector(model.alpha_operator(Q, None), random_state=0).vector
    Q = model.eigen_step(alpha_prev, Q)
    op = model.alpha_operator(Q, alpha_prev)

    def naive() -> np.ndarray:
        # What the paper's algorithm does literally: form G, then eigendecompose it.
        P = M @ Q
        G = (M @ M.T) * (P @ P.T)
        _, V = scipy.linalg.eigh(G, subset_by_index=[n - 1, n - 1])
        return V[:, 0]

    def dense_lanczos() -> np.ndarray:
        P = M @ Q
        G = (M @ M.T) * (P @ P.T)
        return leading_eigenvector(G, v0=alpha_prev).vector

    t_naive, v_naive = timed(naive)
    t_dense, v_dense = timed(dense_lanczos)
    t_cold, pair_cold = timed(lambda: leading_eigenvector(op, random_state=0), repeat=2)
    t_warm, pair_warm = timed(lambda: leading_eigenvector(op, v0=alpha_prev), repeat=2)
    cos = abs(float(v_naive @ pair_warm.vector))
    size = f"n={n:,}, q={q}, k={k}"
    return [
        BenchResult(
            f"α-step, matrix-free warm Lanczos/LOBPCG ({size})", t_warm,
            "form G + scipy.linalg.eigh", t_naive, goal="ratio ≥ 100",
            extra={"|cos| to dense": round(cos, 12), "matvecs": pair_warm.n_matvec},
        ),
        BenchResult(
            f"α-step, matrix-free warm ({size})", t_warm, "form G + Lanczos on dense G",
            t_dense, extra={"|cos| to dense": round(abs(float(v_dense @ pair_warm.vector)), 12)},
        ),
        BenchResult(
            f"α-step, matrix-free cold ARPACK ({size})", t_cold, "form G + scipy.linalg.eigh",
            t_naive, extra={"matvecs": pair_cold.n_matvec},
        ),
    ]


def _whole_run(n: int, q: int, k: int) -> BenchResult:
    M = _structured(n, q, random_state=1)
    peak, seconds, res = peak_memory(lambda: q_alpha(M, k, random_state=0))
    relevant = max(5, n // 100)
    hits = int(np.sum(res.top_features(relevant) < relevant))
    return BenchResult(
        f"whole Q-α run (n={n:,}, q={q}, k={k}, 1 % relevant)", seconds,
        goal="< 60 s and peak < 3×M",
        extra={
            "peak incl. M / size of M": round(1 + peak / M.nbytes, 2),
            "M [MB]": round(M.nbytes / 2**20, 1),
            "iterations": res.n_iter,
            "converged": res.converged,
            "relevant in top": f"{hits}/{relevant}",
        },
    )


@benchmark("qalpha")
def run(quick: bool = False) -> list[BenchResult]:
    """α-step at n = 10⁴ (quick: 3·10³) against dense G; a whole run at n = 10⁶ (quick: 10⁵)."""
    n_step = 3_000 if quick else 10_000
    n_run = 100_000 if quick else 1_000_000
    return [*_alpha_step(n_step, 100, 3), _whole_run(n_run, 100, 3)]
