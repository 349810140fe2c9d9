"""The random-matrix facts: positivity (Thm. 10), Props. 7–9, Lemma 13, Wishart moments."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

from spectral_kit import q_alpha
from spectral_kit.datasets import make_multiclass_clusters
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.theory import (
    PositivitySampler,
    lemma13_bound,
    narayana_moment,
    positivity_prediction,
    positivity_probability,
    triple_product,
    triple_product_expectation,
    triple_product_minimizer,
    triple_product_monte_carlo,
    wilson_interval,
    wishart_second_moment,
    wishart_top_eigenvalue,
    wishart_top_eigenvalue_as_printed,
)


def _direct_probability(n, mu, sigma, trials, seed):
    """Brute force: sample G = μJ + σS and look at its top eigenvector."""
    rng = np.random.default_rng(seed)
    hits = 0
    for _ in range(trials):
        A = rng.standard_normal((n, n))
        G = mu + sigma * (np.triu(A) + np.triu(A, 1).T)
        v = scipy.linalg.eigh(G)[1][:, -1]
        hits += bool(np.all(v > 0) or np.all(v < 0))
    return hits / trials


@pytest.mark.parametrize(("n", "mu", "sigma"), [(6, 1 / 6, 2**0.5 / 6), (12, 0.3, 1.0),
                                                (8, -0.2, 0.5), (200, 0.5, 1.0)])
def test_positivity_matches_brute_force(n, mu, sigma):
    res = positivity_probability(n, mu, sigma, trials=400, random_state=3)
    direct = _direct_probability(n, mu, sigma, 400, seed=99)
    # Two independent estimates of one probability: within 4 combined standard errors.
    p = 0.5 * (res.probability[0] + direct)
    se = np.sqrt(max(p * (1 - p), 1e-4) * 2 / 400)
    assert abs(res.probability[0] - direct) < 4 * se + 1e-9


def test_positivity_depends_on_ratio_only_and_is_reproducible():
    a = positivity_probability([5, 10, 20], 0.1, 0.4, trials=300, random_state=1)
    b = positivity_probability([5, 10, 20], 0.25, 1.0, trials=300, random_state=1)
    np.testing.assert_array_equal(a.successes, b.successes)
    c = PositivitySampler(1).count(10, 0.25, 300)
    assert c == (b.successes[1], 300)
    assert np.all(a.lower <= a.probability) and np.all(a.probability <= a.upper)


def test_positivity_grows_with_n_and_matches_prediction():
    res = positivity_probability([5, 10, 20, 30, 50], 1 / 6, 2**0.5 / 6, trials=2000)
    assert np.all(np.diff(res.probability) > -0.02)
    assert res.probability[-1] > 0.99 and res.probability[0] < 0.8
    pred = positivity_prediction(res.n, 1 / 6, 2**0.5 / 6)
    np.testing.assert_allclose(res.probability[1:], pred[1:], atol=0.05)


def test_wilson_interval_matches_formula():
    lo, hi = wilson_interval(np.array([0, 50, 100]), np.array([100, 100, 100]))
    assert lo[0] == pytest.approx(0, abs=1e-15) and hi[2] == pytest.approx(1)
    assert lo[1] == pytest.approx(0.4038, abs=1e-3) and hi[1] == pytest.approx(0.5962, abs=1e-3)


def test_positivity_bad_input():
    with pytest.raises(ValueError, match="sigma must lie in"):
        positivity_probability(5, 0.1, 0.0)
    with pytest.raises(ValueError, match="sizes ≥ 1"):
        positivity_probability([0, 3], 0.1, 1.0)
    with pytest.raises(TypeError, match="integer"):
        positivity_probability(2.5, 0.1, 1.0)
    with pytest.raises(ValueError, match="trials must be"):
        positivity_probability(5, 0.1, 1.0, trials=0)


def test_prop7_minimum_is_minus_one_eighth():
    a, b, c = triple_product_minimizer(5)
    assert triple_product(a, b, c) == pytest.approx(-1 / 8, abs=1e-12)
    rng = np.random.default_rng(0)
    values = [triple_product(*rng.standard_normal((3, 3))) for _ in range(20000)]
    assert min(values) >= -1 / 8 - 1e-12
    assert min(values) < -0.12  # random triples get close to the bound in R³


@pytest.mark.parametrize("k", [1, 2, 4])
def test_props_8_9_expectation_matches_monte_carlo(k):
    rng = np.random.default_rng(k)
    a, b = rng.standard_normal(7), rng.standard_normal(7)
    est = triple_product_monte_carlo(a, b, k, samples=40000, random_state=k)
    assert abs(est.z_score) < 4
    cos = a @ b / np.linalg.norm(a) / np.linalg.norm(b)
    assert est.exact == pytest.approx(k / 7 * cos**2)
    assert triple_product_expectation(a, b, k) == pytest.approx(est.exact, rel=1e-12)


def test_lemma13_bound_holds_and_matches_explicit_computation():
    for seed in range(4):
        data = make_multiclass_clusters(3, random_state=seed)
        res = q_alpha(data.M, 3)
        bound = lemma13_bound(data.M, data.relevant, res)
        assert bound.holds
        Mp = preprocess_rows(data.M)
        M2 = Mp[~data.relevant]
        gamma = np.linalg.eigvalsh(M2 @ M2.T)
        G = (Mp @ Mp.T) * (Mp @ res.Q @ res.Q.T @ Mp.T)
        lam = np.linalg.eigvalsh(G)[-1]
        assert bound.lam == pytest.approx(lam, rel=1e-8)
        assert bound.bound == pytest.approx(np.sqrt(np.sum(gamma**2) / lam), rel=1e-8)
        assert bound.observed == pytest.approx(res.alpha[~data.relevant].sum())


def test_wishart_moments_and_top_eigenvalue():
    assert narayana_moment(1, 0.5) == 1.0
    assert wishart_second_moment(50, 100) == pytest.approx(1.5)
    assert narayana_moment(3, 0.5) == pytest.approx(1 + 3 * 0.5 + 0.25)
    rng = np.random.default_rng(0)
    n, q = 400, 100
    Ms = rng.standard_normal((30, n, q))
    W = Ms @ Ms.transpose(0, 2, 1) / q
    m2 = np.mean([np.trace(w @ w) / n for w in W])
    assert m2 == pytest.approx(wishart_second_moment(n, q), rel=0.02)
    tops = [np.linalg.eigvalsh(m.T @ m / q)[-1] for m in Ms]
    assert np.mean(tops) == pytest.approx(wishart_top_eigenvalue(n, q), rel=0.05)
    assert wishart_top_eigenvalue_as_printed(n, q) == pytest.approx(
        wishart_top_eigenvalue(n, q) * n / q)


def test_large_n_trials_are_drawn_one_by_one_from_the_block_stream():
    # Above the cache size each trial is drawn on its own (so a refinement step can stop
    # after any trial); it must be the same matrix as in the block drawn at once.
    from spectral_kit.theory import BLOCK, PositivitySampler, _symmetric_block

    sampler = PositivitySampler(3)
    n = 40
    block = _symmetric_block(n, 3, 2)
    for t in (0, 5, 5, 17, 1, BLOCK - 1):  # forwards, repeated and backwards
        np.testing.assert_array_equal(sampler._matrix(n, 2 * BLOCK + t), block[t])
