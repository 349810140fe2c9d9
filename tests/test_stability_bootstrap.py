"""Bootstrap intervals of all covariance/cosine entries against scipy.stats.bootstrap."""

from __future__ import annotations

import zlib

import numpy as np
import pytest
import scipy.stats

from spectral_kit.stability import (
    bootstrap_distribution,
    bootstrap_intervals,
    percentile_interval,
    perturbation_matrix,
    resample_indices,
    similarity_matrix,
)


def _scipy_statistic(statistic):
    """All-entries statistic for SciPy: (p, ..., n) → (p, p, ...), resamples on the last axis."""

    def covariance(x, axis=-1):
        xc = x - x.mean(axis=-1, keepdims=True)
        return np.einsum("i...m,j...m->ij...", xc, xc) / (x.shape[-1] - 1)

    def cosine(x, axis=-1):
        inner = np.einsum("i...m,j...m->ij...", x, x)
        norms = np.sqrt(np.einsum("i...m,i...m->i...", x, x))
        return inner / (norms[:, None] * norms[None, :])

    return covariance if statistic == "covariance" else cosine


def _scipy_intervals(X, statistic, method, confidence, n_resamples, seed):
    res = scipy.stats.bootstrap(
        (X.T,), _scipy_statistic(statistic), axis=-1, n_resamples=n_resamples,
        confidence_level=confidence, method=method, rng=np.random.default_rng(seed),
    )
    return res


def _data(kind, rng, n=30, p=5):
    if kind == "gaussian":
        return rng.normal(size=(n, p)) @ rng.normal(size=(p, p))
    if kind == "skewed":  # non-negative, heavy right tail, like term frequencies
        return rng.lognormal(sigma=1.0, size=(n, p)) * rng.uniform(0.5, 3, size=p)
    return rng.exponential(size=(n, p)) - 0.5


def _off_diagonal_if_cosine(statistic, p):
    # SciPy's BCa is NaN on the cosine diagonal (identically 1, no jackknife spread).
    return ~np.eye(p, dtype=bool) if statistic == "cosine" else np.ones((p, p), dtype=bool)


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
@pytest.mark.parametrize("method", ["percentile", "bca"])
@pytest.mark.parametrize("kind", ["gaussian", "skewed", "shifted"])
def test_same_resamples_agree_with_scipy(statistic, method, kind):
    rng = np.random.default_rng(zlib.crc32(f"{statistic}/{method}/{kind}".encode()))
    X = _data(kind, rng)
    n, p = X.shape
    B, seed, confidence = 400, 7, 0.9
    idx = np.random.default_rng(seed).integers(0, n, (B, n))  # SciPy's draw for rng=seed
    ours = bootstrap_intervals(X, statistic, method, confidence=confidence, resamples=idx)
    res = _scipy_intervals(X, statistic, method, confidence, B, seed)
    # The resamples really are the same: identical bootstrap distributions.
    dist = bootstrap_distribution(X, statistic, resamples=idx)
    np.testing.assert_allclose(
        dist.values, res.bootstrap_distribution[dist.rows, dist.cols].T, rtol=1e-10,
        atol=1e-12 * np.abs(dist.values).max(),
    )
    mask = _off_diagonal_if_cosine(statistic, p)
    scale = np.abs(ours.upper).max()
    low, high = res.confidence_interval
    np.testing.assert_allclose(ours.lower[mask], low[mask], rtol=1e-10, atol=1e-10 * scale)
    np.testing.assert_allclose(ours.upper[mask], high[mask], rtol=1e-10, atol=1e-10 * scale)
    assert ours.n_fallback == 0


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
def test_default_resampling_is_scipys_draw(statistic):
    rng = np.random.default_rng(3)
    X = _data("skewed", rng, n=40, p=4)
    ours = bootstrap_intervals(X, statistic, "bca", 300, 0.95, random_state=11)
    res = _scipy_intervals(X, statistic, "bca", 0.95, 300, 11)
    mask = _off_diagonal_if_cosine(statistic, 4)
    np.testing.assert_allclose(ours.lower[mask], res.confidence_interval.low[mask], rtol=1e-10)
    np.testing.assert_allclose(ours.upper[mask], res.confidence_interval.high[mask], rtol=1e-10)
    np.testing.assert_array_equal(resample_indices(40, 300, 11),
                                  np.random.default_rng(11).integers(0, 40, (300, 40)))


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
def test_blocks_of_pairs_change_nothing(statistic):
    X = _data("skewed", np.random.default_rng(0), n=50, p=9)
    whole = bootstrap_intervals(X, statistic, "bca", 200, 0.9, 1)
    # A limit this small forces one pair per block (45 blocks).
    tiny = bootstrap_intervals(X, statistic, "bca", 200, 0.9, 1, memory_limit=1)
    for a, b in ((whole.lower, tiny.lower), (whole.upper, tiny.upper),
                 (whole.estimate, tiny.estimate)):
        np.testing.assert_allclose(a, b, rtol=1e-13, atol=1e-15)


def test_stored_distribution_gives_the_same_intervals():
    X = _data("gaussian", np.random.default_rng(1), n=35, p=6)
    dist = bootstrap_distribution(X, "covariance", 300, 5)
    for confidence in (0.5, 0.9):
        for method in ("percentile", "bca"):
            direct = bootstrap_intervals(X, "covariance", method, 300, confidence, 5)
            cached = dist.intervals(confidence, method)
            np.testing.assert_allclose(cached.lower, direct.lower, rtol=1e-13)
            np.testing.assert_allclose(cached.upper, direct.upper, rtol=1e-13)
    mats = dist.matrices([0, 3])
    assert mats.shape == (2, 6, 6)
    X0 = X[resample_indices(35, 300, 5)[3]]
    np.testing.assert_allclose(mats[1], np.cov(X0, rowvar=False), rtol=1e-10, atol=1e-12)


def test_estimate_is_the_covariance_or_cosine_matrix():
    X = _data("skewed", np.random.default_rng(2), n=20, p=4)
    np.testing.assert_allclose(similarity_matrix(X, "covariance"), np.cov(X, rowvar=False),
                               rtol=1e-12)
    norms = np.linalg.norm(X, axis=0)
    np.testing.assert_allclose(similarity_matrix(X, "cosine"), X.T @ X / np.outer(norms, norms),
                               rtol=1e-12)
    iv = bootstrap_intervals(X, "cosine", "bca", 100, 0.9, 0)
    np.testing.assert_allclose(iv.estimate, similarity_matrix(X, "cosine"), rtol=1e-12)
    np.testing.assert_array_equal(np.diag(iv.lower), 1.0)
    np.testing.assert_array_equal(np.diag(iv.upper), 1.0)


def test_result_unpacks_as_lower_upper():
    X = _data("gaussian", np.random.default_rng(4), n=15, p=3)
    result = bootstrap_intervals(X, "covariance", "percentile", 50, 0.8, 0)
    lower, upper = result
    assert lower is result.lower
    assert upper is result.upper
    assert result[0] is result.lower
    assert len(result) == 2
    np.testing.assert_array_equal(result.width, upper - lower)
    assert np.all(lower <= upper)
    np.testing.assert_allclose(lower, lower.T)


# --- the paper's Example 1 and Example 2 ----------------------------------------------------

DOCUMENTS = np.array([(0, 1), (2, 3), (4, 3), (3, 0), (1, 0)], dtype=float)
RESAMPLES = np.array([(0, 0, 2, 3, 4), (0, 1, 3, 3, 4), (0, 1, 2, 1, 4), (0, 3, 4, 3, 4),
                      (1, 1, 2, 1, 2)])


def test_example1_cosine_and_resampled_cosines():
    dist = bootstrap_distribution(DOCUMENTS, "cosine", resamples=RESAMPLES)
    assert round(dist.estimate[0, 1], 2) == 0.75
    np.testing.assert_allclose(dist.estimate[0, 1], 18 / np.sqrt(30 * 19), rtol=1e-14)
    cosines = dist.values[:, 1]  # column (0, 1) of the upper triangle
    # By hand: 12/√286, 6/√230, 24/√700, 0, 42/√1980.
    expected = [12 / np.sqrt(286), 6 / np.sqrt(230), 24 / np.sqrt(700), 0.0, 42 / np.sqrt(1980)]
    np.testing.assert_allclose(cosines, expected, rtol=1e-14)
    # The paper prints 0.70, 0.40, 0.96, 0.0, 1.0: the 2nd and 4th match to two decimals, the
    # 1st truncated; the 3rd and 5th cannot come from the cosine formula.
    assert np.floor(cosines[0] * 100) / 100 == 0.70
    assert round(cosines[1], 2) == 0.40
    assert cosines[3] == 0.0


def test_example1_percentile_interval_and_example2_E():
    printed = [0.70, 0.40, 0.96, 0.0, 1.0]
    assert percentile_interval(printed, 0.6, quantile_method="inverted_cdf") == (0.0, 0.96)
    dist = bootstrap_distribution(DOCUMENTS, "cosine", resamples=RESAMPLES)
    ours = dist.intervals(0.6, "percentile", quantile_method="inverted_cdf")
    assert ours.lower[0, 1] == 0.0
    np.testing.assert_allclose(ours.upper[0, 1], 24 / np.sqrt(700))  # the 4th ordered value
    E = perturbation_matrix(ours.estimate, ours.lower, ours.upper)
    assert round(E[0, 1], 2) == 0.75
    A = np.array([[1.0, 0.75], [0.75, 1.0]])
    E_printed = perturbation_matrix(A, [[1.0, 0.0], [0.0, 1.0]], [[1.0, 0.96], [0.96, 1.0]])
    assert E_printed[0, 1] == pytest.approx(0.75)
    assert E_printed[0, 0] == 0.0


def test_example1_reproduction_verdicts():
    from spectral_kit.reproduce.stability import example1

    rep = example1()
    verdicts = {c.quantity: c.verdict for c in rep.comparisons}
    assert verdicts["cosine of the two terms"] == "reproduced"
    assert verdicts["0.6 percentile interval, upper (the table's cosines)"] == "reproduced"
    assert verdicts["E(i, j) (Example 2, our interval)"] == "reproduced"
    assert verdicts["cosine in resample 3"] == "differs"  # 0.907, printed 0.96


# --- degenerate entries -----------------------------------------------------------------------


def test_cosine_of_features_never_together_is_exactly_zero():
    rng = np.random.default_rng(0)
    X = np.zeros((40, 3))
    X[:20, 0] = rng.uniform(1, 2, 20)  # features 0 and 1 are never non-zero together
    X[20:, 1] = rng.uniform(1, 2, 20)
    X[:, 2] = rng.uniform(1, 2, 40)
    iv = bootstrap_intervals(X, "cosine", "bca", 500, 0.9, 0)
    assert iv.lower[0, 1] == 0.0
    assert iv.upper[0, 1] == 0.0
    assert np.isfinite(iv.lower).all()
    assert np.isfinite(iv.upper).all()


def test_resample_missing_a_feature_gets_cosine_zero():
    X = np.array([[1.0, 2.0], [0.0, 1.0], [0.0, 3.0], [2.0, 1.0]])
    # Resample 0 draws only samples 1 and 2, where feature 0 is zero.
    dist = bootstrap_distribution(X, "cosine", resamples=[[1, 2, 1, 2], [0, 1, 2, 3]])
    assert dist.values[0, 1] == 0.0
    assert dist.values[1, 1] == pytest.approx(dist.estimate[0, 1])


def test_bca_falls_back_to_percentile_when_z0_is_infinite():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.5], [3.0, 2.0], [10.0, -5.0]])
    # No resample draws the last sample, so every resampled covariance exceeds the estimate.
    resamples = np.array([[0, 1, 2, 3, 3], [0, 0, 2, 3, 1], [1, 1, 2, 3, 0], [0, 2, 2, 3, 1]])
    dist = bootstrap_distribution(X, "covariance", resamples=resamples)
    assert np.all(dist.values[:, 1] > dist.estimate[0, 1])
    bca = bootstrap_intervals(X, "covariance", "bca", resamples=resamples)
    pct = bootstrap_intervals(X, "covariance", "percentile", resamples=resamples)
    assert bca.n_fallback >= 1
    assert bca.lower[0, 1] == pct.lower[0, 1]
    assert bca.upper[0, 1] == pct.upper[0, 1]
    assert np.isfinite(bca.lower).all()


# --- bad input and no mutation ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"confidence": 0.0}, "confidence"),
        ({"confidence": 1.0}, "confidence"),
        ({"confidence": 1.5}, "confidence"),
        ({"confidence": -0.1}, "confidence"),
        ({"n_resamples": 1}, "n_resamples"),
        ({"n_resamples": 0}, "n_resamples"),
        ({"statistic": "correlation"}, "statistic"),
        ({"method": "basic"}, "method"),
        ({"resamples": [[0, 1, 2, 3, 9]] * 3}, "resamples"),
        ({"resamples": [[0, 1, 2]] * 3}, "resamples"),
        ({"resamples": [[0, 1, 2, 3, 4]]}, "resamples"),
    ],
)
def test_bad_arguments_are_named(kwargs, match):
    X = np.random.default_rng(0).normal(size=(5, 3))
    with pytest.raises(ValueError, match=match):
        bootstrap_intervals(X, **kwargs)


def test_constant_or_zero_feature_is_rejected():
    X = np.random.default_rng(0).normal(size=(10, 3))
    X[:, 1] = 4.0
    with pytest.raises(ValueError, match=r"constant feature.*index 1"):
        bootstrap_intervals(X, "covariance")
    bootstrap_intervals(X, "cosine", n_resamples=20)  # a constant non-zero feature has a cosine
    X[:, 1] = 0.0
    with pytest.raises(ValueError, match=r"all-zero feature.*index 1"):
        bootstrap_intervals(X, "cosine")


def test_too_few_samples_and_non_finite_values():
    with pytest.raises(ValueError, match="at least 3 samples"):
        bootstrap_intervals(np.array([[1.0, 2.0], [2.0, 1.0]]))
    X = np.random.default_rng(0).normal(size=(6, 2))
    X[2, 1] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        bootstrap_intervals(X)
    with pytest.raises(TypeError, match="resamples"):
        bootstrap_intervals(np.ones((4, 2)) + np.eye(4, 2), "cosine", resamples=np.zeros((3, 4)))


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
def test_input_is_not_modified(statistic):
    X = _data("skewed", np.random.default_rng(5), n=12, p=3)
    idx = resample_indices(12, 30, 0)
    X0, idx0 = X.copy(), idx.copy()
    bootstrap_intervals(X, statistic, "bca", resamples=idx)
    bootstrap_distribution(X, statistic, resamples=idx)
    similarity_matrix(X, statistic)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(idx, idx0)


@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
def test_resampled_values_equal_each_resample_recomputed(statistic):
    """Every resampled value against the statistic recomputed on the resampled rows, with
    more features than a batch of products (runs of pairs cut, several matrix products)."""
    from spectral_kit.stability.pair_sums import BATCH_ROWS

    rng = np.random.default_rng(5)
    n, p, B = 12, BATCH_ROWS + 90, 4
    X = rng.lognormal(size=(n, p))
    idx = resample_indices(n, B, 3)
    dist = bootstrap_distribution(X, statistic, resamples=idx)
    for b in range(B):
        Xb = X[idx[b]]
        if statistic == "covariance":
            A = np.cov(Xb, rowvar=False)
        else:
            U = Xb / np.linalg.norm(Xb, axis=0)
            A = U.T @ U
        np.testing.assert_allclose(dist.values[b], A[dist.rows, dist.cols], rtol=1e-10,
                                   atol=1e-12 * np.abs(A).max())


def test_pair_runs_cut_long_runs_and_keep_every_pair():
    from spectral_kit.stability.pair_sums import pair_runs

    r, c = np.triu_indices(7)
    runs = pair_runs(r, c, longest=3)
    assert max(b - a for a, b, _, _ in runs) == 3
    rebuilt = [(i, j) for a, b, i, cols in runs for j in np.arange(7)[cols]]
    assert rebuilt == list(zip(r.tolist(), c.tolist()))
    # not consecutive: an index array instead of a slice
    (_, _, _, cols), = pair_runs(np.zeros(3, dtype=int), np.array([0, 2, 5]))
    assert cols.tolist() == [0, 2, 5]


@pytest.mark.parametrize("kind", ["numpy", "dask", "sparse"])
def test_near_duplicate_features_agree_with_scipy_in_every_layout(kind):
    """Cosines close to 1: each leave-one-out deviation S·uₜ − vₜ is a difference of two
    nearly equal terms, which must be formed before its powers are summed (in blocks of
    samples and on sparse X too)."""
    rng = np.random.default_rng(1)
    n = 300
    x = rng.lognormal(size=n)
    sparse_x = x * (rng.random(n) < 0.4)
    sparse_x[0] = 1.0
    X = np.column_stack([x, x * (1 + 1e-7 * rng.standard_normal(n)),
                         x + 1e-3 * rng.standard_normal(n), sparse_x,
                         sparse_x * (1 + 1e-4 * rng.standard_normal(n)),
                         rng.lognormal(size=n)])
    if kind == "dask":
        data = pytest.importorskip("dask.array").from_array(X, chunks=(70, X.shape[1]))
    elif kind == "sparse":
        data = scipy.sparse.csr_matrix(X)
    else:
        data = X
    ours = bootstrap_intervals(data, "cosine", "bca", 400, 0.9, 0, progress=False)

    def cosine(a, b, axis=-1):
        return (a * b).sum(axis) / np.sqrt((a * a).sum(axis) * (b * b).sum(axis))

    for i, j in [(0, 2), (1, 2), (3, 4), (0, 3), (2, 5)]:
        ref = scipy.stats.bootstrap(
            (X[:, i], X[:, j]), cosine, paired=True, vectorized=True, n_resamples=400,
            confidence_level=0.9, method="BCa", rng=np.random.default_rng(0),
        ).confidence_interval
        width = ref.high - ref.low
        assert width > 1e-9
        assert abs(ours.lower[i, j] - ref.low) <= 1e-6 * width, (i, j)
        assert abs(ours.upper[i, j] - ref.high) <= 1e-6 * width, (i, j)
