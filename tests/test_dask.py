"""The kit on Dask arrays: the same numbers as the NumPy path, computed chunk by chunk."""

from __future__ import annotations

import numpy as np
import pytest

da = pytest.importorskip("dask.array", reason='needs the extra: pip install "spectral-kit[scale]"')

from spectral_kit import q_alpha  # noqa: E402
from spectral_kit.backends.operators import g_matvec, weighted_gram  # noqa: E402
from spectral_kit.datasets import make_multiclass_clusters  # noqa: E402
from spectral_kit.linalg import weighted_gram as np_weighted_gram  # noqa: E402
from spectral_kit.preprocess import preprocess_rows  # noqa: E402
from spectral_kit.qalpha import q_alpha_supervised  # noqa: E402
from spectral_kit.qalpha.operators import HadamardGramOperator, HadamardTerm  # noqa: E402
from spectral_kit.stability import bootstrap_intervals  # noqa: E402
from spectral_kit.weighting import parameter_free_weights, pca_weights  # noqa: E402

TOL = 1e-10


@pytest.fixture(scope="module")
def M():
    # n = 125 ≤ 500: the NumPy path solves every α-step exactly too, so whole runs compare.
    return make_multiclass_clusters(n_clusters=3, random_state=0).M


def chunked(M, rows=50):
    return da.from_array(M, chunks=(rows, -1))


def _subspace_gap(Q1, Q2):
    return np.abs(Q1 @ Q1.T - Q2 @ Q2.T).max()


@pytest.mark.parametrize("method", ["basic", "power", "ritz"])
@pytest.mark.parametrize("spectrum", ["standard", "laplacian"])
def test_q_alpha_equals_numpy(M, method, spectrum):
    # Uncentred rows for the Laplacian, where it differs from the standard spectrum.
    data = M - M.min() if spectrum == "laplacian" else M
    kw = {"method": method, "spectrum": spectrum, "preprocess": spectrum == "standard"}
    ref = q_alpha(data, 3, **kw)
    res = q_alpha(chunked(data), 3, **kw)
    assert res.array_type == "dask" and ref.array_type == "numpy"
    assert isinstance(res.alpha, da.Array) and isinstance(res.Q, np.ndarray)
    assert res.alpha.chunks[0] == (50, 50, 25)
    assert np.abs(res.alpha.compute() - ref.alpha).max() < TOL
    assert _subspace_gap(res.Q, ref.Q) < TOL
    assert res.n_iter == ref.n_iter and res.converged == ref.converged
    np.testing.assert_allclose(res.objective, ref.objective, rtol=TOL)
    assert res.eigenvalue == pytest.approx(ref.eigenvalue, rel=TOL)
    if method == "basic":  # rankings come back as NumPy indices, as for NumPy α
        np.testing.assert_array_equal(res.top_features(10), ref.top_features(10))
        assert res.all_positive == ref.all_positive


def test_q_alpha_random_starts_equal_numpy(M):
    kw = {"init": "random", "n_init": 3, "random_state": 4}
    ref = q_alpha(M, 3, **kw)
    res = q_alpha(chunked(M), 3, **kw)
    assert np.abs(res.alpha.compute() - ref.alpha).max() < TOL
    assert res.init == ref.init


def test_one_iteration_equals_numpy_at_larger_n():
    # n > 500 makes the NumPy path matrix-free (Lanczos); one iteration solves every α-step
    # to full precision on both paths.
    rng = np.random.default_rng(3)
    M = rng.standard_normal((900, 30))
    M[:40] += 2.0 * np.where(np.arange(30) < 15, 1.0, -1.0)
    ref = q_alpha(M, 2, method="power", max_iter=1)
    res = q_alpha(chunked(M, 200), 2, method="power", max_iter=1)
    assert np.abs(res.alpha.compute() - ref.alpha).max() < TOL


def test_float32_chunks_stay_float32(M):
    res = q_alpha(chunked(M.astype(np.float32)), 3)
    ref = q_alpha(M, 3)
    assert res.alpha.dtype == np.float32
    assert abs(float(res.alpha.compute() @ ref.alpha)) > 1 - 1e-6


def test_algo2_and_algo1_equal_numpy(M):
    ref = parameter_free_weights(M)
    res = parameter_free_weights(chunked(M))
    assert isinstance(res.alpha, da.Array)
    assert np.abs(res.alpha.compute() - ref.alpha).max() < TOL
    assert res.eigenvalue == pytest.approx(ref.eigenvalue, rel=TOL)
    for init in ("parameter-free", "pca"):
        ref = pca_weights(M, 3, init=init)
        res = pca_weights(chunked(M), 3, init=init)
        assert np.abs(res.alpha.compute() - ref.alpha).max() < TOL
        assert res.details.n_iter == ref.details.n_iter
        assert res.negative_mass == pytest.approx(ref.negative_mass, abs=TOL)


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_intervals_equal_numpy(statistic, method):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 5)) @ rng.standard_normal((5, 5))
    kw = {"n_resamples": 200, "random_state": 1}
    ref = bootstrap_intervals(X, statistic, method, **kw)
    # A small memory_limit splits the pairs into several blocks.
    res = bootstrap_intervals(da.from_array(X, chunks=(50, -1)), statistic, method,
                              memory_limit=20_000, **kw)
    for a, b in ((res.lower, ref.lower), (res.upper, ref.upper),
                 (res.estimate, ref.estimate)):
        assert np.abs(a - b).max() < TOL
    assert res.n_fallback == ref.n_fallback


def test_kernels_equal_numpy_operators(M):
    rng = np.random.default_rng(1)
    Mp = preprocess_rows(M)
    Q = np.linalg.qr(rng.standard_normal((M.shape[1], 3)))[0]
    a = rng.standard_normal(M.shape[0])
    op = HadamardGramOperator([HadamardTerm(Mp @ Q, 1.0, L=Mp)])
    got = g_matvec(chunked(Mp), da.from_array(a, chunks=70), da.from_array(Q))
    assert np.abs(got.compute() - op.matvec(a)).max() < TOL * np.abs(op.matvec(a)).max()
    A = weighted_gram(chunked(Mp), da.from_array(a, chunks=50))
    assert np.abs(A - np_weighted_gram(Mp, a)).max() < TOL


class _ReadLog:
    """An array-like that records every slice Dask reads from it."""

    def __init__(self, M):
        self.M, self.shape, self.dtype, self.ndim = M, M.shape, M.dtype, M.ndim
        self.reads = []

    def __getitem__(self, key):
        out = self.M[key]
        self.reads.append(out.shape)
        return out


def test_m_is_only_ever_read_chunk_by_chunk(M):
    store = _ReadLog(M)
    res = q_alpha(da.from_array(store, chunks=(40, -1), asarray=False), 3)
    assert res.n_iter > 1
    assert store.reads and max(rows for rows, _ in store.reads) <= 40


def test_runs_on_a_distributed_client(M):
    distributed = pytest.importorskip("distributed")
    with distributed.Client(processes=False, n_workers=1, threads_per_worker=2,
                            dashboard_address=":0") as client, \
            distributed.get_task_stream(client) as stream:
        res = q_alpha(chunked(M), 3)
        alpha = res.alpha.compute()
    assert len(stream.data) > 0  # tasks ran on the cluster's worker
    assert np.abs(alpha - q_alpha(M, 3).alpha).max() < TOL


def test_chunked_along_samples_is_rejected(M):
    with pytest.raises(ValueError, match=r"M is chunked along samples.*rechunk"):
        q_alpha(da.from_array(M, chunks=(50, 20)), 3)
    with pytest.raises(ValueError, match=r"X is chunked along features.*rechunk"):
        bootstrap_intervals(da.from_array(M.T[:, :6], chunks=(30, 3)))


def test_mixed_array_types_are_rejected(M):
    Q = np.linalg.qr(np.ones((M.shape[1], 2)) + np.eye(M.shape[1], 2))[0]
    a = np.ones(M.shape[0])
    with pytest.raises(TypeError, match=r"Q is a numpy.ndarray but M is a dask.array.Array"):
        g_matvec(chunked(M), da.from_array(a), Q)
    with pytest.raises(TypeError, match=r"alpha is a numpy.ndarray.*dask.array.from_array"):
        weighted_gram(chunked(M), a)


def test_numpy_only_functions_name_the_argument(M):
    y = np.arange(M.shape[1]) % 3
    with pytest.raises(TypeError, match=r"M is a dask.array.Array.*M.compute\(\)"):
        q_alpha_supervised(chunked(M), y)
    with pytest.raises(ValueError, match="criterion='gap' has no path"):
        q_alpha(chunked(M), 3, criterion="gap")


def test_constant_row_is_reported_with_its_global_index(M):
    bad = M.copy()
    bad[77] = 3.0
    with pytest.raises(ValueError, match=r"constant feature row\(s\) \(row index 77\)"):
        q_alpha(chunked(bad), 3)


@pytest.mark.parametrize("call", [
    lambda A: q_alpha(A, 2), lambda A: parameter_free_weights(A), lambda A: pca_weights(A, 2),
    lambda A: bootstrap_intervals(A.T.rechunk({0: 10, 1: -1}), n_resamples=10),
    lambda A: weighted_gram(A, da.ones(A.shape[0], chunks=(A.chunks[0],))),
])
def test_complex_and_unknown_chunks_get_numpys_errors(call):
    rng = np.random.default_rng(0)
    Mc = rng.standard_normal((30, 12)) + 1j * rng.standard_normal((30, 12))
    with pytest.raises(TypeError, match=r"(M|X) is complex; the kit works with real data"):
        call(da.from_array(Mc, chunks=(10, 12)))
    with pytest.raises(TypeError, match=r"(M|X) is complex"):
        q_alpha(Mc, 2)  # the NumPy path: the same words


def test_unknown_chunk_sizes_are_named():
    M = np.random.default_rng(0).standard_normal((30, 12))
    filtered = da.from_array(M, chunks=(10, 12))
    filtered = filtered[filtered[:, 0] > -10]  # boolean indexing: chunk sizes unknown
    for call in (q_alpha, pca_weights):
        with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes\(\)"):
            call(filtered, 2)
    with pytest.raises(ValueError, match=r"unknown chunk sizes.*compute_chunk_sizes\(\)"):
        parameter_free_weights(filtered)
    X = da.from_array(M.T, chunks=(4, 30))
    with pytest.raises(ValueError, match=r"X is a Dask array with unknown chunk sizes"):
        bootstrap_intervals(X[X[:, 0] > -10], n_resamples=10)


def test_an_object_dask_array_is_read_as_numpy_reads_it():
    rng = np.random.default_rng(1)
    M = rng.standard_normal((30, 12))
    expected = q_alpha(M, 2, random_state=0).alpha
    as_objects = da.from_array(M.astype(object), chunks=(10, 12))
    np.testing.assert_allclose(q_alpha(as_objects, 2, random_state=0).alpha.compute(),
                               expected, atol=1e-12)
    words = M.astype(object)
    words[4, 5] = "ten"
    with pytest.raises(TypeError, match=r"M must be a numeric array"):
        q_alpha(da.from_array(words, chunks=(10, 12)), 2)
    with pytest.raises(TypeError, match=r"M must be a numeric array"):
        q_alpha(words, 2)
