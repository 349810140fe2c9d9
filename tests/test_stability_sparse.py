"""SbS-LSI/PCA on sparse and wide data: sparse X never densified, equal to the dense results;
the screened removal path equal to Algorithm 1's; the diagnosis when nothing is found."""

from __future__ import annotations

import tracemalloc

import numpy as np
import pytest
import scipy.sparse as sp

import spectral_kit.stability.bootstrap as bootstrap_module
from spectral_kit import StableSparsePCA
from spectral_kit.stability import (
    bootstrap_distribution,
    bootstrap_intervals,
    sbs,
    similarity_matrix,
    stable_principal_submatrix,
)


def _term_matrix(n=150, p=40, density=0.08, seed=0, signed=False):
    """Zipf-like counts: a few frequent terms, many rare ones; one term occurs only once."""
    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, p + 1) ** 1.1
    cells = rng.choice(n * p, size=int(density * n * p), replace=False)
    X = np.zeros((n, p))
    rows, cols = cells // p, cells % p
    keep = rng.random(cells.size) < weights[cols] / weights.max() + 0.2
    X[rows[keep], cols[keep]] = rng.poisson(2.0, keep.sum()) + 1.0
    X[:, -1] = 0.0
    X[3, -1] = 2.0  # a feature with a single non-zero
    X[:, 0] = np.where(X[:, 0] == 0, 0.0, X[:, 0])
    if signed:
        X *= rng.choice([-1.0, 1.0], size=X.shape)
    X = X[:, np.abs(X).max(axis=0) > 0]
    return X


def _close(a, b, tol=1e-10):
    scale = max(float(np.abs(b).max()), 1e-300)
    return float(np.abs(a - b).max()) <= tol * scale


@pytest.mark.parametrize("statistic", ["cosine", "covariance"])
@pytest.mark.parametrize("method", ["bca", "percentile"])
@pytest.mark.parametrize("signed", [False, True])
def test_sparse_intervals_equal_dense(statistic, method, signed):
    X = _term_matrix(signed=signed)
    dense = bootstrap_intervals(X, statistic, method, 300, 0.9, 3, progress=False)
    for fmt in ("csr", "csc"):
        Xs = sp.csr_matrix(X) if fmt == "csr" else sp.csc_matrix(X)
        res = bootstrap_intervals(Xs, statistic, method, 300, 0.9, 3, memory_limit=60_000,
                                  progress=False)
        for a, b in ((res.lower, dense.lower), (res.upper, dense.upper),
                     (res.estimate, dense.estimate)):
            assert _close(a, b)
        assert res.n_fallback == dense.n_fallback


def test_dense_data_with_many_zeros_take_the_sparse_sums_with_the_same_result(monkeypatch):
    X = _term_matrix(n=120, p=25, density=0.03)
    # z-scoring makes X dense, but one value per feature: shifted by it, it is sparse again
    Z = (X - X.mean(axis=0)) / X.std(axis=0)
    for statistic, data in (("cosine", X), ("covariance", Z)):
        results = []
        for threshold in (0.0, 1.0):  # never / always summed as sparse
            monkeypatch.setattr(bootstrap_module, "SPARSE_BELOW", threshold)
            results.append(bootstrap_intervals(data, statistic, "bca", 200, 0.9, 1,
                                               progress=False))
        dense, via_sparse = results
        assert _close(via_sparse.lower, dense.lower) and _close(via_sparse.upper, dense.upper)


def test_stored_explicit_zeros_integers_and_duplicates_are_read_as_the_matrix():
    X = _term_matrix(n=60, p=12)
    coo = sp.coo_matrix(X.astype(np.int64))
    extra = (np.r_[coo.row, 0, 0], np.r_[coo.col, 1, 1])  # a stored 0 and a duplicate 0
    odd = sp.coo_matrix((np.r_[coo.data, 0, 0], extra), shape=X.shape).tocsr()
    ref = bootstrap_intervals(X, "cosine", "bca", 100, 0.9, 0, progress=False)
    res = bootstrap_intervals(odd, "cosine", "bca", 100, 0.9, 0, progress=False)
    assert _close(res.upper, ref.upper) and _close(res.lower, ref.lower)


@pytest.mark.parametrize("statistic", ["cosine", "covariance"])
def test_sparse_distribution_and_similarity_equal_dense(statistic):
    X = _term_matrix(n=80, p=15)
    dense = bootstrap_distribution(X, statistic, 150, 2)
    res = bootstrap_distribution(sp.csc_matrix(X), statistic, 150, 2)
    assert _close(res.values, dense.values)
    assert np.abs(res.acceleration - dense.acceleration).max() < 1e-10
    assert _close(similarity_matrix(sp.csr_matrix(X), statistic),
                  similarity_matrix(X, statistic), 1e-12)


def test_sparse_input_is_not_modified_nor_densified():
    rng = np.random.default_rng(0)
    n, p = 50_000, 200
    X = sp.random(n, p, density=0.002, random_state=0, format="csr", dtype=np.float64)
    X = X + sp.csr_matrix((np.ones(p), (rng.integers(0, n, p), np.arange(p))), shape=(n, p))
    data, indices = X.data.copy(), X.indices.copy()
    tracemalloc.start()
    bootstrap_intervals(X, "cosine", "bca", 20, 0.9, 0, progress=False)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 0.5 * 8 * n * p  # the dense X alone would be 80 MB
    np.testing.assert_array_equal(X.data, data)
    np.testing.assert_array_equal(X.indices, indices)


def test_stable_sparse_pca_on_sparse_terms_equals_dense():
    X = _term_matrix(n=200, p=30, seed=4)
    kw = {"retain": 0.2, "variant": "lsi", "n_resamples": 200, "random_state": 0,
          "progress": False}
    with _no_warning_check():
        dense = StableSparsePCA(**kw).fit(X)
        sparse = StableSparsePCA(**kw).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    assert sparse.n_components_ == dense.n_components_
    np.testing.assert_allclose(sparse.components_, dense.components_, atol=1e-10)
    np.testing.assert_allclose(sparse.transform(sp.csr_matrix(X)), dense.transform(X),
                               atol=1e-10)
    pca = StableSparsePCA(retain=0.2, n_resamples=200, random_state=0, progress=False)
    with _no_warning_check():
        a, b = pca.fit(X).transform(X), pca.fit(sp.csc_matrix(X)).transform(sp.csc_matrix(X))
    np.testing.assert_allclose(a, b, atol=1e-10)


class _no_warning_check:
    """Warnings of the fallback are fine here: only the equality is under test."""

    def __enter__(self):
        import warnings

        self._cm = warnings.catch_warnings()
        self._cm.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        return self._cm.__exit__(*exc)


def _cases():
    rng = np.random.default_rng(0)
    for seed in range(3):
        r = np.random.default_rng(seed)
        latent = r.normal(size=(40, 2))
        yield f"tall{seed}", np.hstack([latent @ r.normal(size=(2, 12))
                                        + 0.3 * r.normal(size=(40, 12)),
                                        r.normal(size=(40, 10))])
    yield "wide", rng.standard_normal((5, 120))
    yield "wide-latent", np.hstack([rng.normal(size=(8, 1)) @ np.ones((1, 30))
                                    + 0.2 * rng.normal(size=(8, 30)),
                                    rng.normal(size=(8, 60))])


@pytest.mark.parametrize(("name", "X"), list(_cases()), ids=[c[0] for c in _cases()])
def test_screened_path_equals_algorithm1_with_proposition1(name, X):
    for variant in ("pca", "lsi"):
        data = np.abs(X) if variant == "lsi" else X
        for retain in (0.2, 0.5):
            kw = {"n_resamples": 200, "random_state": 1, "progress": False}
            ref = sbs(data, variant, retain, full_trajectory=False, **kw)
            res = sbs(data, variant, retain, intervals=ref.intervals, prune="rayleigh",
                      full_trajectory=False, **kw)
            assert (res.found, res.k, res.stable_ks, res.stopped) == (
                ref.found, ref.k, ref.stable_ks, ref.stopped)
            np.testing.assert_array_equal(res.kept, ref.kept)
            np.testing.assert_array_equal(res.removed, ref.removed)
            assert res.n_eigendecompositions <= ref.n_eigendecompositions
            assert res.failed == ref.failed
            assert (res.best is None) == (ref.best is None)
            if ref.best is not None:
                np.testing.assert_array_equal(res.best[0], ref.best[0])
                assert (res.best[1], res.best[3]) == (ref.best[1], ref.best[3])
                assert res.best[2] == pytest.approx(ref.best[2], rel=1e-12)


def test_diagnosis_names_the_failed_criterion_and_what_to_try():
    rng = np.random.default_rng(0)
    latent = rng.normal(size=(500, 1))
    X = np.hstack([latent + 0.3 * rng.normal(size=(500, 5)), 0.5 * rng.normal(size=(500, 4))])
    found = sbs(X, "pca", 0.3, n_resamples=200, random_state=0, progress=False)
    assert found.found and found.failed is None and found.diagnosis.startswith("Found: k = 1")
    best = found.best[2]
    too_much = sbs(X, "pca", 0.99, intervals=found.intervals, progress=False)
    assert not too_much.found and too_much.failed == "retain"
    assert too_much.best[2] >= best  # the best stable subspace on the path
    assert f"retain ≤ {np.floor(too_much.best[2] * 1000) / 1000:g}" in too_much.diagnosis
    retry = sbs(X, "pca", np.floor(too_much.best[2] * 1000) / 1000,
                intervals=found.intervals, progress=False)
    assert retry.found
    noise = rng.normal(size=(8, 30))
    hopeless = sbs(noise, "pca", 0.5, n_resamples=100, random_state=0, progress=False)
    assert hopeless.failed == "stability" and hopeless.best is None
    assert "Lemma 1 held at no submatrix" in hopeless.diagnosis
    assert "more samples" in hopeless.diagnosis
    assert 0 < hopeless.closest_gap < 1


def test_prune_is_checked():
    A = np.eye(3)
    with pytest.raises(ValueError, match="prune must be True, False or 'rayleigh'"):
        stable_principal_submatrix(A, 0.1 * A, 0.5, prune="fast")


def _hopeless_for_half():
    """A clean factor behind 3 features of small variance beside 6 heavy-tailed noise
    features that hold most of the variance: nothing is stable while the kept features hold
    half of it; the factor's three are, further down the removal path."""
    rng = np.random.default_rng(0)
    z = rng.normal(size=(100, 1))
    return np.hstack([0.4 * (z + 0.2 * rng.normal(size=(100, 3))),
                      rng.standard_t(3, size=(100, 6))])


@pytest.mark.parametrize("prune", [True, False, "rayleigh"])
def test_onward_is_the_first_stable_submatrix_further_down_the_path(prune):
    X = _hopeless_for_half()
    res = sbs(X, "pca", 0.5, n_resamples=200, random_state=0, prune=prune, progress=False)
    assert not res.found and res.failed == "stability" and res.stopped == "retain unreachable"
    kept, k, value, stable = res.onward
    # Reference: the naive loop of Algorithm 1 (every submatrix eigendecomposed) run down
    # the whole path with a retain every stable subspace meets.
    ref = stable_principal_submatrix(res.A, res.E, 1e-300, prune=False)
    assert ref.found
    np.testing.assert_array_equal(kept, ref.kept)
    assert (k, stable) == (ref.k, ref.stable_ks)
    assert value == pytest.approx(ref.retained, rel=1e-12)
    # Up to the stop the path is Algorithm 1's: the continuation only adds ``onward``.
    np.testing.assert_array_equal(res.removed, ref.removed[:res.removed.size])
    suggest = np.floor(value * 1000) / 1000
    assert f"retain ≤ {suggest:g} finds them" in res.diagnosis
    assert "stability failed at retain = 0.5" in res.diagnosis
    held = np.trace(res.A[np.ix_(res.kept, res.kept)]) / np.trace(res.A)
    assert f"hold a = {held:.3g} < 0.5" in res.diagnosis
    # What the diagnosis says to try works, and finds exactly that subspace.
    retry = sbs(X, "pca", suggest, intervals=res.intervals, prune=prune, progress=False)
    assert retry.found and retry.k == k
    np.testing.assert_array_equal(retry.kept, kept)


def test_estimator_names_the_failed_criterion_and_falls_back_to_onward():
    X = _hopeless_for_half()
    with pytest.warns(UserWarning, match=r"stability failed at retain = 0\.5.*retain ≤"):
        model = StableSparsePCA(0.5, n_resamples=200, random_state=0).fit(X)
    res = model.result_
    assert not model.found_ and model.failed_ == "stability"
    assert model.diagnosis_ == res.diagnosis
    kept, k, value, stable = res.onward
    np.testing.assert_array_equal(np.flatnonzero(model.support_), kept)
    assert (model.n_components_, model.stable_ks_) == (k, stable)
    assert model.retained_ == pytest.approx(value)


def test_onward_down_to_one_feature_and_the_samples_to_try():
    noise = np.random.default_rng(0).normal(size=(8, 30))
    res = sbs(noise, "pca", 0.5, n_resamples=100, random_state=0, progress=False)
    assert res.failed == "stability"
    kept, k, value, stable = res.onward
    ref = stable_principal_submatrix(res.A, res.E, 1e-300, prune=False)
    assert not ref.found and ref.stopped == "one feature left"
    np.testing.assert_array_equal(kept, ref.kept)
    assert k is None and stable == ()
    assert value == pytest.approx(res.A[kept[0], kept[0]] / np.trace(res.A), rel=1e-12)
    assert "Lemma 1 holds nowhere, down to a single feature" in res.diagnosis
    assert f"about {1 / res.closest_gap**2:.2g}× as many" in res.diagnosis


def _old_fallback(result, X):
    """StableSparsePCA's fallback as it was: the best stable subspace on the path, else the
    whole removal path followed again from the full matrix with retain ignored."""
    from spectral_kit.stability.sbs import first_stable

    if result.best is not None:
        return result.best[0], result.best[1]
    again = first_stable(result, X)
    return (again.kept, again.k) if again.found else (again.kept[:1], 1)


@pytest.mark.parametrize(("name", "X"), list(_cases()), ids=[c[0] for c in _cases()])
def test_fallback_supports_equal_the_path_followed_again(name, X):
    import warnings

    for variant in ("pca", "lsi"):
        data = np.abs(X) if variant == "lsi" else X
        for retain in (0.2, 0.5, 0.9):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                model = StableSparsePCA(retain, variant=variant, n_resamples=100,
                                        random_state=1, progress=False).fit(data)
            if model.found_:
                continue
            kept, k = _old_fallback(model.result_, data)
            np.testing.assert_array_equal(np.flatnonzero(model.support_), kept)
            assert model.n_components_ == k


@pytest.mark.parametrize("c", [1e-200, 1e200])
@pytest.mark.parametrize("as_sparse", [False, True])
def test_lsi_transform_does_not_depend_on_the_data_scale(c, as_sparse):
    """The cosine is scale-free, and so are LSI's loadings on the unit-norm columns: data
    near 1e±200, whose squares leave float64, transform as the data at scale 1."""
    X = _term_matrix(n=200, p=30, seed=4)
    kw = {"retain": 0.2, "variant": "lsi", "n_resamples": 100, "random_state": 0,
          "progress": False}
    with _no_warning_check():
        base = StableSparsePCA(**kw).fit(X).transform(X)
        Xc = sp.csr_matrix(X * c) if as_sparse else X * c
        scaled = StableSparsePCA(**kw).fit(Xc).transform(Xc)
    np.testing.assert_allclose(scaled, base, rtol=1e-12, atol=1e-12 * np.abs(base).max())
