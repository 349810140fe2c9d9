"""Algo. 2 (parameter-free weighting, Wolf & Bileschi 2005) at scale.

* a whole run at n = 10⁶ features, q = 100 samples: wall time and peak memory beyond the
  (already normalised) data -- the dense H would need n² · 8 bytes = 8 TB -- beside SciPy's
  ``eigsh`` on the same matrix-free operator, started cold;
* α, the leading eigenvector of H, at n = 10⁴ against the peers a user would pick for the
  same vector: SciPy's ``eigsh`` on the same matrix-free operator
  (``H v = rowwise m_iᵀ(Mᵀdiag(v)M)m_i``), started cold -- the headline; forming H (n²
  entries) and calling ``eigsh`` on it, as the algorithm is printed; and scikit-learn's
  ``randomized_svd`` of the n × q(q+1)/2 matrix K of products with ``H = KKᵀ``.

Quick mode uses n = 10⁵ and n = 2000.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator, eigsh

from ..preprocess import preprocess_rows
from ..weighting import parameter_free_operator, parameter_free_weights
from ._core import BenchResult, benchmark, peak_memory, timed

__all__ = ["run"]

#: Share of features that carry the two clusters.
RELEVANT_SHARE = 0.01
#: Relative accuracy asked of every solver (the kit's default).
TOL = 1e-12


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
    # Both sides run under tracemalloc here, to show their peak memory at this size.
    peak, seconds, res = peak_memory(lambda: parameter_free_weights(M, preprocess=False))
    hits = int(np.sum(res.top_features(n_relevant) < n_relevant))
    start = np.random.default_rng(0).standard_normal(n)
    peak_peer, peer_seconds, (v_peer, mv_peer) = peak_memory(lambda: _arpack_free(M, start))
    return BenchResult(
        f"Algo. 2, matrix-free (n={n:,}, q={q}, 1 % relevant)", seconds,
        "scipy.sparse.linalg.eigsh on the same matrix-free operator, cold", peer_seconds,
        goal="memory O(nq): peak well below the data size",
        extra={
            "peak MB": round(peak / 2**20, 1),
            "peak MB peer": round(peak_peer / 2**20, 1),
            "data MB": round(M.nbytes / 2**20, 1),
            "dense H would need GB": round(8.0 * n * n / 2**30, 1),
            "matvecs": res.n_matvec,
            "matvecs peer": mv_peer,
            "1−|cos| peer": max(0.0, 1.0 - abs(float(v_peer @ res.eigenvector))),
            "relevant in top 1 %": f"{hits}/{n_relevant}",
        },
    )


def _counted(op) -> tuple[LinearOperator, list[int]]:
    count = [0]

    def matmat(V: np.ndarray) -> np.ndarray:
        count[0] += V.shape[1]
        return op.matmat(V)

    return LinearOperator(op.shape, matvec=lambda v: matmat(v[:, None])[:, 0], matmat=matmat,
                          dtype=np.float64), count


def _arpack_free(M: np.ndarray, start: np.ndarray) -> tuple[np.ndarray, int]:
    """The peer: ARPACK on Algo. 2's matrix-free H from a random start; vector, matvecs."""
    op, count = _counted(parameter_free_operator(M))
    return eigsh(op, k=1, which="LA", v0=start, tol=TOL)[1][:, 0], count[0]


def _product_rows(M: np.ndarray) -> np.ndarray:
    """K (n × q(q+1)/2) with ``K Kᵀ = H``: row i lists ``m_i m_iᵀ``'s upper triangle, √2 off
    the diagonal, so that ``(m_iᵀ m_j)² = ⟨m_i m_iᵀ, m_j m_jᵀ⟩ = k_iᵀ k_j``."""
    q = M.shape[1]
    r, c = np.triu_indices(q)
    weight = np.where(r == c, 1.0, np.sqrt(2.0))
    return M[:, r] * M[:, c] * weight


def _versus_peers(n: int, q: int) -> list[BenchResult]:
    """Algo. 2's α against SciPy and scikit-learn computing the same eigenvector."""
    from sklearn.utils.extmath import randomized_svd

    M, _ = _data(n, q, random_state=1)
    t_ours, ours = timed(
        lambda: parameter_free_weights(M, solver="matrix-free", preprocess=False), repeat=3
    )
    peak_ours, _, _ = peak_memory(
        lambda: parameter_free_weights(M, solver="matrix-free", preprocess=False)
    )
    start = np.random.default_rng(0).standard_normal(n)

    def arpack_dense() -> np.ndarray:
        H = (M @ M.T) ** 2
        return eigsh(H, k=1, which="LA", v0=start, tol=TOL)[1][:, 0]

    def sklearn_rsvd() -> np.ndarray:
        return randomized_svd(_product_rows(M), 1, random_state=0)[0][:, 0]

    t_free, (v_free, mv_free) = timed(lambda: _arpack_free(M, start), repeat=3)
    # Timed without tracemalloc (it slows allocations), then run again for the peak.
    t_dense, v_dense = timed(arpack_dense)
    t_rsvd, v_rsvd = timed(sklearn_rsvd)
    peak_dense = peak_memory(arpack_dense)[0]
    peak_rsvd = peak_memory(sklearn_rsvd)[0]
    reference = ours.eigenvector

    def misfit(v: np.ndarray) -> float:
        return max(0.0, 1.0 - abs(float(v @ reference)) / float(np.linalg.norm(v)))

    name = f"Algo. 2's α, ours: matrix-free, warm from uniform weights (n={n:,}, q={q})"
    return [
        BenchResult(
            name, t_ours, "scipy.sparse.linalg.eigsh(H, k=1, which='LA') on the same "
            "matrix-free operator, cold", t_free, goal="ratio > 1", headline=True,
            extra={"matvecs ours": ours.n_matvec, "matvecs peer": mv_free,
                   "1−|cos| peer": misfit(v_free), "peak MB ours": round(peak_ours / 2**20, 1)},
        ),
        BenchResult(
            name, t_ours, "form H = (MMᵀ)^∘2 (n×n) + scipy.sparse.linalg.eigsh", t_dense,
            extra={"1−|cos| peer": misfit(v_dense), "peak MB peer": round(peak_dense / 2**20, 1)},
        ),
        BenchResult(
            name, t_ours, "sklearn randomized_svd of K, n × q(q+1)/2 products, H = KKᵀ", t_rsvd,
            extra={"1−|cos| peer": misfit(v_rsvd), "peak MB peer": round(peak_rsvd / 2**20, 1)},
        ),
    ]


@benchmark("weighting")
def run(quick: bool = False) -> list[BenchResult]:
    """α against SciPy and scikit-learn at 10⁴ features, a run at 10⁶ (2000 and 10⁵ when quick)."""
    q = 100
    big, small = (10**5, 2000) if quick else (10**6, 10**4)
    return [*_versus_peers(small, q), _at_scale(big, q)]
