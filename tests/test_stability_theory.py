"""Stewart's theorem, Lemma 1, Cauchy interlacing and Proposition 1 (Mavroeidis & Vazirgiannis)."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest

from spectral_kit.stability import (
    cauchy_interlacing,
    descending_eigenvalues,
    eigengaps,
    interlacing_bounds,
    lemma1_distance_bound,
    lemma1_stable_ks,
    perturbation_matrix,
    proposition1_rules_out,
    stewart_bound,
    subspace_distance,
    top_eigenspace,
)


def _random_symmetric(rng, n, scale=1.0):
    M = rng.normal(size=(n, n)) * scale
    return (M + M.T) / 2


def _spread_spectrum(rng, n):
    """Symmetric matrix with eigenvalues spread over [0, 10] and random eigenvectors."""
    Q, _ = np.linalg.qr(rng.normal(size=(n, n)))
    return (Q * np.sort(rng.uniform(0, 10, n))) @ Q.T


def test_stewart_bound_holds_on_1000_random_pairs():
    rng = np.random.default_rng(2007)
    checked = rejected = 0
    worst = 0.0
    while checked < 1000:
        n = int(rng.integers(3, 9))
        A = _spread_spectrum(rng, n)
        E = _random_symmetric(rng, n, scale=float(rng.choice([0.05, 0.2, 0.6])))
        k = int(rng.integers(1, n))
        result = stewart_bound(A, E, k)
        if not result:
            rejected += 1
            assert result.bound is None
            continue
        observed = subspace_distance(top_eigenspace(A, k), top_eigenspace(A + E, k))
        assert observed <= result.bound + 1e-12, (n, k, observed, result)
        worst = max(worst, observed / result.bound)
        checked += 1
    # Non-vacuous: some pairs fail the conditions and the bound is sometimes nearly tight.
    assert rejected > 50
    assert worst > 0.3


def test_stewart_bound_quantities_by_hand():
    A = np.diag([5.0, 2.0, 1.0])
    E = np.array([[0.1, 0.2, 0.0], [0.2, -0.1, 0.0], [0.0, 0.0, 0.05]])
    r = stewart_bound(A, E, 1)
    assert r.lambda_min == 5.0
    assert r.mu_max == 2.0
    assert r.norm_E11 == pytest.approx(0.1)
    assert r.norm_E22 == pytest.approx(0.1)
    assert r.norm_E12 == pytest.approx(0.2)
    assert r.delta == pytest.approx(5 - 2 - 0.2)
    assert r.bound == pytest.approx(2 * 0.2 / 2.8)
    assert bool(r)
    # Equal eigenvalues on both sides of the split: no gap, no bound.
    assert not stewart_bound(np.diag([1.0, 1.0, 0.0]), 0.01 * np.eye(3), 1)


def test_lemma1_implies_stewart_conditions():
    """Lemma 1's proof: gap > 4λ₁(E) with E ≥ 0 entrywise gives δ > 0 and ‖E₁₂‖ ≤ δ/2."""
    rng = np.random.default_rng(1)
    accepted = 0
    for _ in range(400):
        n = int(rng.integers(2, 8))
        A = _spread_spectrum(rng, n)
        E = np.abs(_random_symmetric(rng, n, scale=float(rng.choice([0.05, 0.2, 0.5]))))
        lam_E = descending_eigenvalues(E)
        for k in lemma1_stable_ks(descending_eigenvalues(A), lam_E[0]):
            accepted += 1
            assert stewart_bound(A, E, k).holds
    assert accepted > 100


def test_lemma1_by_hand():
    assert lemma1_stable_ks([10.0, 9.0, 2.0, 1.9], 0.5) == (2,)
    assert lemma1_stable_ks([10.0, 9.0, 2.0, 1.9], 0.1) == (1, 2)
    assert lemma1_stable_ks([10.0, 1.0], 0.0) == ()  # the lemma asks λ₁(E) > 0
    np.testing.assert_allclose(eigengaps([1.0, 3.0, 2.5]), [0.5, 1.5])


def test_cauchy_interlacing_for_every_principal_submatrix():
    rng = np.random.default_rng(4)
    for _ in range(20):
        n = int(rng.integers(2, 7))
        A = _random_symmetric(rng, n)
        lam = descending_eigenvalues(A)
        for size in range(1, n + 1):
            for subset in combinations(range(n), size):
                sub = A[np.ix_(subset, subset)]
                assert cauchy_interlacing(lam, descending_eigenvalues(sub))
    # Not a principal submatrix: eigenvalues pushed out of the bounds fail.
    upper, lower = interlacing_bounds([4.0, 3.0, 1.0], 1)
    np.testing.assert_array_equal(upper, [4.0, 3.0])
    np.testing.assert_array_equal(lower, [3.0, 1.0])
    assert not cauchy_interlacing([4.0, 3.0, 1.0], [4.5, 2.0])
    assert not cauchy_interlacing([4.0, 3.0, 1.0], [3.5, 0.5])


@pytest.mark.parametrize("n", [5, 6, 7])
def test_proposition1_never_rules_out_what_lemma1_accepts(n):
    """Exhaustive: every principal submatrix of every order, for random A and E ≥ 0."""
    rng = np.random.default_rng(n)
    ruled_out = accepted = 0
    for trial in range(40):
        A = _spread_spectrum(rng, n)
        E = np.abs(_random_symmetric(rng, n, scale=[0.05, 0.15, 0.4, 1.0][trial % 4]))
        lam_A, lam_E = descending_eigenvalues(A), descending_eigenvalues(E)
        for k in range(n):
            rules_out = proposition1_rules_out(lam_A, lam_E, k)
            for subset in combinations(range(n), n - k):
                sub = np.ix_(subset, subset)
                mu_A = descending_eigenvalues(A[sub])
                mu_E = descending_eigenvalues(E[sub])
                stable = lemma1_stable_ks(mu_A, mu_E[0])
                accepted += bool(stable)
                if rules_out:
                    ruled_out += 1
                    assert stable == (), (trial, k, subset)
    # Both outcomes occur, so the check is not vacuous.
    assert ruled_out > 100
    assert accepted > 100


def test_proposition1_at_k_zero_is_lemma1_failing():
    rng = np.random.default_rng(9)
    for _ in range(200):
        A = _spread_spectrum(rng, 5)
        E = np.abs(_random_symmetric(rng, 5, scale=0.3))
        lam_A, lam_E = descending_eigenvalues(A), descending_eigenvalues(E)
        assert proposition1_rules_out(lam_A, lam_E, 0) == (not lemma1_stable_ks(lam_A, lam_E[0]))
    # An order-1 submatrix has no eigengap: always ruled out.
    assert proposition1_rules_out([3.0, 1.0, 0.0], [0.1, 0.0, -0.1], 2)


def test_perturbation_matrix_is_the_farther_endpoint():
    A = np.array([[2.0, 0.5], [0.5, 1.0]])
    lower = np.array([[1.5, 0.4], [0.4, 0.2]])
    upper = np.array([[3.0, 0.9], [0.9, 1.1]])
    E = perturbation_matrix(A, lower, upper)
    np.testing.assert_allclose(E, [[1.0, 0.4], [0.4, 0.8]])
    with pytest.raises(ValueError, match="lower must not exceed upper"):
        perturbation_matrix(A, upper, lower)
    with pytest.raises(ValueError, match="upper must have the shape of A"):
        perturbation_matrix(A, lower, np.ones((3, 3)))


def test_bad_arguments_and_no_mutation():
    rng = np.random.default_rng(0)
    A, E = _spread_spectrum(rng, 4), _random_symmetric(rng, 4, 0.1)
    A0, E0 = A.copy(), E.copy()
    stewart_bound(A, E, 2)
    perturbation_matrix(A, A - np.abs(E), A + np.abs(E))
    np.testing.assert_array_equal(A, A0)
    np.testing.assert_array_equal(E, E0)
    with pytest.raises(ValueError, match="k must be an integer in"):
        stewart_bound(A, E, 4)
    with pytest.raises(ValueError, match="E must be symmetric"):
        stewart_bound(A, E + np.triu(np.ones((4, 4)), 1), 1)
    with pytest.raises(ValueError, match="k must be an integer in"):
        proposition1_rules_out([1.0, 0.0], [0.1, 0.0], 2)
    with pytest.raises(ValueError, match="eigenvalues_E"):
        proposition1_rules_out([1.0, 0.0], [0.1], 0)


def test_lemma1_distance_bound_covers_every_small_perturbation():
    rng = np.random.default_rng(12)
    checked = 0
    for _ in range(600):
        n = int(rng.integers(3, 8))
        A = _spread_spectrum(rng, n)
        F = _random_symmetric(rng, n)
        eps = float(rng.uniform(0.01, 1.0))
        F *= eps / np.linalg.norm(F, 2) * rng.uniform(0.2, 1.0)  # ‖F‖₂ ≤ ε
        k = int(rng.integers(1, n))
        lam = descending_eigenvalues(A)
        bound = lemma1_distance_bound(lam, eps, k)
        gap = lam[k - 1] - lam[k]
        if bound is None:
            assert gap <= 4 * eps
            continue
        checked += 1
        assert bound < 1
        observed = subspace_distance(top_eigenspace(A, k), top_eigenspace(A + F, k))
        assert observed <= bound + 1e-12
        # E with |F| ≤ E entrywise: ‖F‖₂ ≤ λ₁(E), so the same bound applies through E.
        E = np.abs(F)
        assert np.linalg.norm(F, 2) <= descending_eigenvalues(E)[0] + 1e-12
    assert checked > 150
