"""Q-α speed: the α-step against SciPy's eigen-solvers on the same operator; a run at 10⁶ features.

The α-step's peer is what a user would write: ``scipy.sparse.linalg.eigsh`` (ARPACK) on the
same matrix-free ``LinearOperator`` G, started cold -- the headline. Beside it: ``eigsh``
warm-started from the previous α (what the warm start alone buys), cold ``lobpcg``, and,
as a secondary row, forming G (n × n) and calling ``scipy.linalg.eigh`` as the paper's
algorithm is printed. Every solver is asked for the same relative accuracy.
"""

from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import eigsh, lobpcg

from ..datasets import make_multiclass_clusters
from ..linalg import CountingOperator, leading_eigenvector
from ..preprocess import preprocess_rows
from ..qalpha import q_alpha
from ..qalpha.models import StandardModel
from ._core import BenchResult, benchmark, peak_memory, timed

__all__ = ["run"]

#: Relative accuracy asked of every solver (the kit's default for the α-step).
TOL = 1e-12


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
    start = np.random.default_rng(0).standard_normal(n)

    def form_g_eigh() -> np.ndarray:
        # The algorithm as printed: form G, then eigendecompose it.
        P = M @ Q
        G = (M @ M.T) * (P @ P.T)
        _, V = scipy.linalg.eigh(G, subset_by_index=[n - 1, n - 1])
        return V[:, 0]

    def arpack(v0: np.ndarray) -> tuple[np.ndarray, int]:
        counted = CountingOperator(op)
        _, V = eigsh(counted, k=1, which="LA", v0=v0, tol=TOL)
        return V[:, 0], counted.count

    def cold_lobpcg(scale: float) -> tuple[np.ndarray, int]:
        counted = CountingOperator(op)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _, X = lobpcg(counted, start[:, None].copy(), tol=TOL * scale, maxiter=1000,
                          largest=True)
        return X[:, 0], counted.count

    t_ours, ours = timed(lambda: leading_eigenvector(op, v0=alpha_prev, tol=TOL), repeat=5)
    t_cold, (v_cold, mv_cold) = timed(lambda: arpack(start), repeat=5)
    t_warm, (v_warm, mv_warm) = timed(lambda: arpack(alpha_prev), repeat=5)
    t_lobpcg, (v_lobpcg, mv_lobpcg) = timed(lambda: cold_lobpcg(ours.value), repeat=5)
    t_dense, v_dense = timed(form_g_eigh)

    def misfit(v: np.ndarray) -> float:
        """1 − |cos| to the dense eigenvector: every solver reaches the same vector."""
        return max(0.0, 1.0 - abs(float(v @ v_dense)) / float(np.linalg.norm(v)))

    size = f"n={n:,}, q={q}, k={k}"
    ours_name = f"α-step, ours: matrix-free, warm LOBPCG from previous α ({size})"
    ours_extra = {"1−|cos| ours to dense": misfit(ours.vector), "matvecs ours": ours.n_matvec}
    return [
        BenchResult(
            ours_name, t_ours,
            "scipy.sparse.linalg.eigsh(op, k=1, which='LA') on the same operator, cold",
            t_cold, goal="ratio > 1", headline=True,
            extra={**ours_extra, "1−|cos| peer": misfit(v_cold), "matvecs peer": mv_cold},
        ),
        BenchResult(
            ours_name, t_ours, "eigsh on the same operator, warm (v0 = previous α)", t_warm,
            extra={"1−|cos| peer": misfit(v_warm), "matvecs peer": mv_warm},
        ),
        BenchResult(
            ours_name, t_ours, "scipy.sparse.linalg.lobpcg on the same operator, cold",
            t_lobpcg,
            extra={"1−|cos| peer": misfit(v_lobpcg), "matvecs peer": mv_lobpcg},
        ),
        BenchResult(
            ours_name, t_ours,
            "secondary, the algorithm as printed: form G (n×n) + scipy.linalg.eigh",
            t_dense, extra={"G [MB]": round(8.0 * n * n / 2**20, 1)},
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
    """α-step at n = 10⁴ (quick: 3·10³) against SciPy; a whole run at n = 10⁶ (quick: 10⁵)."""
    n_step = 3_000 if quick else 10_000
    n_run = 100_000 if quick else 1_000_000
    return [*_alpha_step(n_step, 100, 3), _whole_run(n_run, 100, 3)]
