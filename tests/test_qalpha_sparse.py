"""q_alpha on a SciPy sparse M: same α as on M.toarray(), without densifying M."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

from spectral_kit import q_alpha


def _random(seed: int, n: int = 80, q: int = 30, density: float = 0.2) -> sp.csr_matrix:
    rng = np.random.default_rng(seed)
    return sp.random(n, q, density=density, random_state=rng, format="csr")


@pytest.mark.parametrize("fmt", ["csr", "csc", "coo"])
@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("k", [1, 2, 3])
def test_sparse_alpha_matches_dense(fmt, seed, k):
    S = _random(seed).asformat(fmt)
    sparse = q_alpha(S, k, random_state=0, tol=1e-10)
    dense = q_alpha(S.toarray(), k, random_state=0, tol=1e-10)
    np.testing.assert_allclose(sparse.alpha, dense.alpha, rtol=0, atol=1e-10)
    np.testing.assert_allclose(sparse.objective, dense.objective, rtol=1e-10, atol=0)
    assert sparse.n_iter == dense.n_iter


@pytest.mark.parametrize("method", ["basic", "power", "ritz"])
@pytest.mark.parametrize("solver", ["dense", "matrix-free"])
def test_sparse_methods_and_solvers(method, solver):
    S = _random(3, n=60, q=25)
    kw = {"method": method, "solver": solver, "random_state": 0, "tol": 1e-10}
    a = q_alpha(S, 2, **kw)
    b = q_alpha(S.toarray(), 2, **kw)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-10)
    np.testing.assert_allclose(np.abs(a.Q.T @ b.Q), np.eye(2), atol=1e-8)


def test_sparse_random_starts_and_unpreprocessed():
    S = _random(4, n=50, q=20, density=0.3)
    a = q_alpha(S, 2, init="random", n_init=3, random_state=5, tol=1e-10)
    b = q_alpha(S.toarray(), 2, init="random", n_init=3, random_state=5, tol=1e-10)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-10)
    a = q_alpha(S, 2, preprocess=False, random_state=0, tol=1e-10)
    b = q_alpha(S.toarray(), 2, preprocess=False, random_state=0, tol=1e-10)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-10)
    # raw rows at 1e50 (beyond 2^64): scaled down exactly, α unchanged, objective back at M's scale
    big = q_alpha(S * 1e50, 2, preprocess=False, random_state=0, tol=1e-10)
    np.testing.assert_allclose(big.alpha, a.alpha, rtol=0, atol=1e-10)
    bigd = q_alpha(S.toarray() * 1e50, 2, preprocess=False, random_state=0, tol=1e-10)
    assert big.eigenvalue == pytest.approx(bigd.eigenvalue, rel=1e-10)


def test_duplicates_and_explicit_zeros_not_mutated():
    S = _random(6, n=40, q=15, density=0.5).tocoo()
    # a COO with duplicate entries and stored zeros: they sum like the dense matrix
    coo = sp.coo_matrix((np.r_[S.data, 0.5, -0.5, 0.0], (np.r_[S.row, 0, 0, 1],
                         np.r_[S.col, 3, 3, 2])), shape=S.shape)
    before = (coo.data.copy(), coo.row.copy(), coo.col.copy())
    a = q_alpha(coo, 2, random_state=0, tol=1e-10)
    b = q_alpha(coo.toarray(), 2, random_state=0, tol=1e-10)
    np.testing.assert_allclose(a.alpha, b.alpha, rtol=0, atol=1e-10)
    for x, y in zip(before, (coo.data, coo.row, coo.col), strict=True):
        np.testing.assert_array_equal(x, y)
    csr = _random(7, n=40, q=15, density=0.5)
    snapshot = csr.copy()
    q_alpha(csr, 2, random_state=0)
    assert (csr != snapshot).nnz == 0 and csr.has_sorted_indices == snapshot.has_sorted_indices


def test_no_densification_on_wide_matrix(monkeypatch):
    rng = np.random.default_rng(0)
    n, q = 20000, 200
    # term–document-like: 0.5% density, every row with at least one entry (no constant row)
    S = (sp.random(n, q, density=0.004, random_state=rng, format="csr")
         + sp.csr_matrix((rng.uniform(0.5, 1.0, n), (np.arange(n), rng.integers(0, q, n))),
                         shape=(n, q)))
    dense_bytes = n * q * 8  # 32 MB

    def guarded(original):
        def toarray(self, *args, **kwargs):
            # q × q products (A_α) are fine; an n × q array is M densified
            assert self.shape[0] < n, f"densified a {self.shape} sparse matrix"
            return original(self, *args, **kwargs)
        return toarray

    for cls in (sp.csr_matrix, sp.csc_matrix, sp.coo_matrix, sp.csr_array, sp.csc_array):
        monkeypatch.setattr(cls, "toarray", guarded(cls.toarray))
    tracemalloc.start()
    try:
        result = q_alpha(S, 2, max_iter=5, random_state=0)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert result.alpha.shape == (20000,)
    assert peak < dense_bytes / 4, f"peak {peak / 1e6:.1f} MB vs dense {dense_bytes / 1e6:.0f} MB"


def test_constant_rows_same_error_as_dense():
    S = _random(8, n=30, q=12, density=0.6).tolil()
    S[4, :] = 0.0
    S[7, :] = 2.5
    S = S.tocsr()
    with pytest.raises(ValueError, match="constant feature") as dense_err:
        q_alpha(S.toarray(), 2)
    with pytest.raises(ValueError, match="constant feature") as sparse_err:
        q_alpha(S, 2)
    assert str(sparse_err.value) == str(dense_err.value)
    assert "row index 4, 7" in str(sparse_err.value)


def test_bad_sparse_input_same_errors_as_dense():
    S = _random(9, n=30, q=12)
    nan = S.copy()
    nan.data[0] = np.nan
    for bad in (nan, S.astype(np.complex128)):
        with pytest.raises((TypeError, ValueError)) as dense_err:
            q_alpha(bad.toarray(), 2)
        with pytest.raises(dense_err.type) as sparse_err:
            q_alpha(bad, 2)
        assert str(sparse_err.value) == str(dense_err.value)
    with pytest.raises(ValueError, match="at least 2 samples"):
        q_alpha(sp.csr_matrix((5, 1)), 1)


@pytest.mark.parametrize("kw", [{"spectrum": "laplacian"}, {"criterion": "gap"}])
def test_unsupported_options_name_the_way_out(kw):
    with pytest.raises(TypeError, match=r"toarray\(\)"):
        q_alpha(_random(10, n=30, q=12), 2, **kw)
