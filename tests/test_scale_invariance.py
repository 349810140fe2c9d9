"""Scale invariance: the methods do not depend on the units of the data, nor does the code.

Every scale-invariant public function is run on data multiplied by a factor between 1e-150
and 1e150 and must give the unscaled result (α, supports, selected features, scores) -- or,
for quantities that carry the data's scale (covariances, intervals), the unscaled result times
the factor's power -- or else refuse with a ValueError that says the data over- or underflow.
Never an inf, a NaN, a zero row or a different selection.
"""

from __future__ import annotations

import functools
import warnings

import numpy as np
import pytest
import scipy.sparse
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import spectral_kit as sk
from spectral_kit import baselines, sparse_lda, stability, weighting
from spectral_kit.datasets import make_multiclass_clusters
from spectral_kit.estimators import SparseLDA, StableSparsePCA, WeightedPCA
from spectral_kit.preprocess import preprocess_rows, row_norms

OVERFLOW = r"overflows|underflows"

#: 10^e · m with e in [-150, 150] and m in [1, 10): the factors the kit must take.
factors = st.builds(lambda e, m: m * 10.0**e, st.integers(-150, 149), st.floats(1.0, 9.99))

SETTINGS = settings(max_examples=6, deadline=None, derandomize=True, database=None,
                    suppress_health_check=[HealthCheck.too_slow])


@functools.cache
def data():
    d = make_multiclass_clusters(n_clusters=2, n_points=24, n_relevant=3, n_irrelevant=9,
                                 random_state=0)
    y = np.repeat([0, 1], d.M.shape[1] // 2)
    W = np.random.default_rng(1).standard_normal((d.M.shape[0], 16))
    return d.M, y, W


def _pair():
    M, y, _ = data()
    sc = sparse_lda.scatter_matrices(M.T, y)
    return sc.A, sc.B


# name -> (function of the scale factor s, power of s the result carries, tolerance)
def _alpha(result):
    return result.alpha


CASES = {
    "preprocess_rows": (lambda s: preprocess_rows(data()[0] * s), 0, 1e-12),
    "row_norms": (lambda s: row_norms(data()[0] * s), 1, 1e-12),
    "row_norms of a sparse M": (
        lambda s: row_norms(scipy.sparse.csr_matrix(data()[0] * s)), 1, 1e-12),
    "q_alpha": (lambda s: _alpha(sk.q_alpha(data()[0] * s, 2, random_state=0)), 0, 1e-6),
    "q_alpha preprocess=False": (
        lambda s: _alpha(sk.q_alpha(data()[0] * s, 2, preprocess=False, random_state=0)),
        0, 1e-6),
    "q_alpha gap": (
        lambda s: _alpha(sk.q_alpha(data()[0] * s, 2, criterion="gap", random_state=0)),
        0, 1e-6),
    "q_alpha_supervised": (
        lambda s: _alpha(sk.q_alpha_supervised(data()[0] * s, data()[1], random_state=0)),
        0, 1e-6),
    "q_alpha_pairwise": (
        lambda s: _alpha(sk.q_alpha_pairwise(data()[0] * s, [(0, 1), (2, 3), (20, 21)], 2,
                                             0.1, random_state=0)), 0, 1e-6),
    "q_alpha_side": (
        lambda s: _alpha(sk.q_alpha_side(data()[0] * s, data()[2] * s, 2, 0.1,
                                         random_state=0)), 0, 1e-6),
    "kernel_q_alpha": (
        lambda s: _alpha(sk.kernel_q_alpha(data()[0] * s, 2, random_state=0)), 0, 1e-6),
    "topographic_map": (
        lambda s: _alpha(sk.topographic_map(data()[0] * s, 2, random_state=0)), 0, 1e-6),
    "parameter_free_weights": (
        lambda s: _alpha(weighting.parameter_free_weights(data()[0] * s)), 0, 1e-8),
    "pca_weights (Algorithm 2)": (
        lambda s: _alpha(weighting.pca_weights(data()[0] * s, 2)), 0, 1e-6),
    "supervised_weights": (
        lambda s: _alpha(weighting.supervised_weights(data()[0] * s, data()[1], 0.5)),
        0, 1e-8),
    "weighted_pca": (lambda s: np.abs(weighting.weighted_pca(data()[0] * s).W), 0, 1e-8),
    "fisher_score": (lambda s: baselines.fisher_score(data()[0].T * s, data()[1]), 0, 1e-9),
    "pearson_score": (lambda s: baselines.pearson_score(data()[0].T * s, data()[1]), 0, 1e-9),
    "ks_score": (lambda s: baselines.ks_score(data()[0].T * s, data()[1]), 0, 0),
    "scatter_matrices B": (
        lambda s: sparse_lda.scatter_matrices(data()[0].T * s, data()[1]).B, 2, 1e-9),
    "similarity_matrix covariance": (
        lambda s: stability.similarity_matrix(data()[0].T * s), 2, 1e-9),
    "similarity_matrix cosine": (
        lambda s: stability.similarity_matrix(data()[0].T * s, "cosine"), 0, 1e-9),
    "bootstrap_intervals bca": (
        lambda s: np.stack(list(stability.bootstrap_intervals(
            data()[0][:6].T * s, n_resamples=300, random_state=0))), 2, 1e-8),
    "bootstrap_intervals bca fallbacks": (
        lambda s: stability.bootstrap_intervals(
            data()[0][:6].T * s, n_resamples=300, random_state=0).n_fallback, 0, 0),
    "sbs kept": (
        lambda s: stability.sbs(data()[0].T * s, retain=0.5, n_resamples=200,
                                random_state=0).kept, 0, 0),
    "fit_discriminant predictions": (
        lambda s: sparse_lda.fit_discriminant(data()[0].T * s, data()[1]).predict(
            data()[0].T * s), 0, 0),
    "greedy_forward supports": (
        lambda s: np.concatenate(sparse_lda.greedy_forward(*(m * s for m in _pair())).supports),
        0, 0),
    "exhaustive support": (
        lambda s: sparse_lda.exhaustive(*(m * s for m in _pair()), 3).support, 0, 0),
    "generalized_spectrum": (
        lambda s: sparse_lda.generalized_spectrum(*(m * s for m in _pair())), 0, 1e-8),
    "rayleigh_quotient": (
        lambda s: sparse_lda.rayleigh_quotient(np.arange(1.0, 13.0) * s, *_pair()), 0, 1e-12),
    "SparseLDA support_": (
        lambda s: SparseLDA(3).fit(data()[0].T * s, data()[1]).support_, 0, 0),
    "StableSparsePCA support_": (
        lambda s: StableSparsePCA(retain=0.3, n_resamples=200, random_state=0).fit(
            data()[0].T * s).support_, 0, 0),
    "WeightedPCA alpha_": (lambda s: WeightedPCA().fit(data()[0].T * s).alpha_, 0, 1e-8),
}


@functools.cache
def _baseline(name):
    return np.asarray(CASES[name][0](1.0), dtype=np.float64)


@pytest.mark.parametrize("name", sorted(CASES))
@SETTINGS
@given(s=factors)
def test_result_does_not_depend_on_the_scale(name, s):
    run, power, tol = CASES[name]
    base = _baseline(name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # an overflow warning is a failure, not a detail
        try:
            scaled = np.asarray(run(s), dtype=np.float64)
        except ValueError as exc:  # the only acceptable failure, and it must say why
            refusal = str(exc)
        else:
            refusal = ""
    if refusal:
        # only quantities carrying the data's scale (or the raw-row objective) may overflow
        assert power > 0 or name == "q_alpha preprocess=False", (name, s, refusal)
        assert "overflows" in refusal or "underflows" in refusal, refusal
        return
    assert np.all(np.isfinite(scaled)), (name, s)
    expected = base * float(s) ** power if power else base
    if tol == 0:
        np.testing.assert_array_equal(scaled, expected)
    else:
        np.testing.assert_allclose(scaled, expected, rtol=tol,
                                   atol=tol * float(np.abs(expected).max()))


def test_the_examples_of_the_report_hold():
    """The failures this suite was written against, at their exact scales."""
    M = data()[0]
    base = sk.q_alpha(M, 2, random_state=0)
    big = sk.q_alpha(M * 1e160, 2, random_state=0)
    np.testing.assert_allclose(big.alpha, base.alpha, atol=1e-8)
    assert big.objective[-1] == pytest.approx(base.objective[-1])  # preprocessed rows
    near_max = np.random.default_rng(0).uniform(-1, 1, (4, 10)) * 1.7e308
    P = preprocess_rows(near_max)
    np.testing.assert_allclose(row_norms(P), 1.0)
    np.testing.assert_allclose(P, preprocess_rows(near_max / 1e300), atol=1e-14)
    X = M[:6].T
    ref = stability.bootstrap_intervals(X, n_resamples=400, random_state=3)
    for s in (1e-100, 1e60):
        got = stability.bootstrap_intervals(X * s, n_resamples=400, random_state=3)
        assert got.n_fallback == ref.n_fallback
        np.testing.assert_allclose(got.lower / s**2, ref.lower, rtol=1e-9,
                                   atol=1e-12 * np.abs(ref.lower).max())
    with pytest.raises(ValueError, match=OVERFLOW):
        stability.similarity_matrix(X * 1e160)
    with pytest.raises(ValueError, match=OVERFLOW):
        sk.q_alpha(M * 1e160, 2, preprocess=False)


def test_complex_input_is_a_type_error_not_a_warning():
    M = data()[0] * (1 + 1j)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        for call in (lambda: sk.q_alpha(M, 2), lambda: preprocess_rows(M),
                     lambda: stability.similarity_matrix(M.T),
                     lambda: baselines.fisher_score(M.T, data()[1]),
                     lambda: sk.q_alpha(M.tolist(), 2)):
            with pytest.raises(TypeError, match="complex"):
                call()
