"""The ℓ₁ relaxation's bound never cuts off the optimum (brute force, n ≤ 14).

:func:`spectral_kit.sparse_lda.relaxation.l1_relaxation_bound` claims that every dual point
(Y symmetric, zero diagonal, |Y_ij| ≤ c) bounds max λ_max(A_S, B_S) over |S| ≤ k, for B = I
and B ≠ I, and so does its restriction to any variable set T for the subsets of T. Checked
here against every subset, enumerated with the brute-force helpers of the bounds' tests
(independent of the search), for solved and for random dual points; then the search with
the relaxation switched on at once is compared with brute force.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_sparse_lda_bounds import KINDS, all_values, random_case

from spectral_kit import sparse_lda as sl
from spectral_kit.sparse_lda.branch_bound import eslda_pair
from spectral_kit.sparse_lda.pair import check_pair
from spectral_kit.sparse_lda.relaxation import l1_relaxation_bound, relaxation_value
from spectral_kit.sparse_lda.search import _Search

TOL = 1e-9


def _best_up_to(A, B, k) -> float:
    """max λ_max(A_S, B_S) over every S with 1 ≤ |S| ≤ k."""
    return max(float(all_values(A, B, j)[1].max()) for j in range(1, k + 1))


def _random_dual(rng, n) -> tuple[np.ndarray, float]:
    c = float(rng.uniform(0.0, 2.0))
    Y = rng.uniform(-c, c, (n, n))
    Y = np.clip(0.5 * (Y + Y.T), -c, c)
    np.fill_diagonal(Y, 0.0)
    return Y, c


@pytest.mark.parametrize("seed", range(4))
def test_relaxation_never_cuts_off_the_optimum(seed):
    """Solved and random dual points, B = I and B ≠ I, every kind of A, n ≤ 14: the bound is
    at least the best subset of every size up to k, and never above λ_max(A, B)."""
    rng = np.random.default_rng(9100 + seed)
    for case in range(12):
        n = int(rng.integers(5, 15))
        A, B = random_case(rng, n, KINDS[case % len(KINDS)], identity_B=bool(case % 2))
        k = int(rng.integers(2, min(n, 7)))
        best = _best_up_to(A, B, k)
        scale = max(1.0, abs(best))
        B_arg = None if case % 2 else B
        solved = l1_relaxation_bound(A, k, B_arg, max_steps=60)
        assert solved.value >= best - TOL * scale
        top = float(sl.generalized_spectrum(A, B)[-1])
        assert solved.value <= top + 1e-8 * max(1.0, abs(top))
        assert np.all(np.abs(solved.Y) <= solved.c + 1e-15)
        assert np.all(solved.Y.diagonal() == 0) and np.allclose(solved.Y, solved.Y.T)
        for _ in range(3):
            Y, c = _random_dual(rng, n)
            assert relaxation_value(A, Y, c, k, B_arg) >= best - TOL * scale


@pytest.mark.parametrize("seed", range(3))
def test_restricted_dual_point_bounds_the_subsets_of_every_node(seed):
    """The root's dual point restricted to T (what the search evaluates at a node) bounds
    every k-subset of T, and is no larger than the root's bound (interlacing)."""
    rng = np.random.default_rng(9200 + seed)
    for case in range(8):
        n = int(rng.integers(7, 14))
        A, _ = random_case(rng, n, KINDS[case % len(KINDS)], identity_B=True)
        k = int(rng.integers(2, 6))
        root = l1_relaxation_bound(A, k, max_steps=40)
        masks, values = all_values(A, np.eye(n), k)
        for _ in range(4):
            T = np.sort(rng.choice(n, int(rng.integers(k + 1, n + 1)), replace=False))
            inside = ~np.any(masks[:, np.setdiff1d(np.arange(n), T)], axis=1)
            node = relaxation_value(A[np.ix_(T, T)], root.Y[np.ix_(T, T)], root.c, k)
            scale = max(1.0, float(np.abs(values).max()))
            assert node >= values[inside].max() - TOL * scale
            assert node <= root.value + 1e-9 * scale


def test_relaxation_beats_the_soft_threshold_on_a_spiked_covariance():
    """Where it is meant to help (a weak spike in noise, B = I) the solved dual point is
    below both the inclusion bound and the best soft-threshold level it starts from, and
    at a fixed level more steps never give a larger bound from the same start (the level
    search itself may settle elsewhere with another budget)."""
    rng = np.random.default_rng(0)
    p, support = 80, 8
    v = np.zeros(p)
    v[rng.choice(p, support, replace=False)] = 1 / np.sqrt(support)
    Z = rng.standard_normal((120, p)) + rng.standard_normal((120, 1)) * v
    A = np.cov(Z, rowvar=False)
    off = np.abs(A[~np.eye(p, dtype=bool)])
    soft = min(relaxation_value(A, np.clip(A, -c, c) * ~np.eye(p, dtype=bool), c, support)
               for c in np.quantile(off, np.linspace(0.3, 0.995, 12)))
    long = l1_relaxation_bound(A, support, max_steps=300)
    for level in (long.c, 0.8 * long.c):
        short = l1_relaxation_bound(A, support, max_steps=40, c=level)
        longer = l1_relaxation_bound(A, support, max_steps=300, c=level)
        assert longer.value <= short.value + 1e-12
    assert long.value < 0.97 * soft
    assert long.value < 0.9 * float(np.linalg.eigvalsh(A)[-1])


def test_relaxation_stops_at_its_target_and_its_deadline():
    rng = np.random.default_rng(1)
    A = np.cov(rng.standard_normal((60, 40)), rowvar=False)
    loose = float(np.linalg.eigvalsh(A)[-1]) * 2
    assert l1_relaxation_bound(A, 5, max_steps=500, target=loose).steps == 0
    timed = l1_relaxation_bound(A, 5, max_steps=10**6, max_seconds=0.2)
    assert timed.seconds < 2.0 and np.isfinite(timed.value)


def test_relaxation_gives_up_above_a_better_bound():
    """Asked to give up above a bound it cannot beat, it stops once the levels are ranked
    (four short runs), still with a valid bound."""
    rng = np.random.default_rng(2)
    A = np.cov(rng.standard_normal((60, 30)), rowvar=False)
    best = _best_up_to(A, np.eye(30), 2)
    short = l1_relaxation_bound(A, 2, max_steps=2000, give_up=best)
    assert short.steps <= 4 * 50 and short.value >= best - TOL


@pytest.mark.parametrize("seed", range(3))
def test_search_with_the_relaxation_at_once_equals_brute_force(seed, monkeypatch):
    """The search solving the root relaxation before its first node, and bounding every
    node by it (with seed 2, resuming it warm-started at every third node): the same
    certified optimum as brute force at every k."""
    monkeypatch.setattr(_Search, "RELAX_AFTER_NODES", 0)
    monkeypatch.setattr(_Search, "RELAX_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(_Search, "RELAX_MIN_N", 2)
    monkeypatch.setattr(_Search, "RELAX_MAX_STEPS", 40)
    if seed == 2:
        monkeypatch.setattr(_Search, "relax_more",
                            lambda self: self.relaxed is not None and self.nodes % 3 == 0)
    rng = np.random.default_rng(9300 + seed)
    relaxed = 0
    for case in range(10):
        n = int(rng.integers(8, 14))
        A, B = random_case(rng, n, KINDS[case % len(KINDS)], identity_B=case % 3 != 0)
        pair = check_pair(A, B)
        for k in range(2, n):
            search = sl.ESLDASearch(pair, k, np.arange(k))
            search.advance(None, at_least_one=False)
            relaxed += search._search.relaxed is not None
            best = float(all_values(pair.A, pair.B, k)[1].max())
            assert search.optimal
            assert search.value == pytest.approx(best, rel=1e-9, abs=1e-12)
            res = eslda_pair(pair, k)
            assert res.value == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert relaxed > 50  # the relaxation was solved in most of these searches


def _noise(seed: int, n: int = 18, samples: int = 12) -> np.ndarray:
    """Sample covariance of pure noise, few samples: many near-equal subsets, so that
    searches branch."""
    return np.cov(np.random.default_rng(9700 + seed).standard_normal((samples, n)),
                  rowvar=False)


@pytest.mark.parametrize("seed", range(3))
def test_node_solve_bounds_every_subset_of_the_node(seed, monkeypatch):
    """The relaxation solved again on a node's variables (a few ADMM steps warm-started
    from the root's solution restricted to them) bounds every k-subset of the node."""
    monkeypatch.setattr(_Search, "RELAX_MIN_N", 2)
    A = _noise(seed)
    n, k = A.shape[0], 5
    search = _Search(check_pair(A, np.eye(n)), k, np.arange(k),
                     sl.exhaustive(A, np.eye(n), 1).value, 1e-9)
    search.relax_root()
    assert search.relaxed is not None and search.relaxed.state is not None
    masks, values = all_values(A, np.eye(n), k)
    rng = np.random.default_rng(seed)
    for _ in range(6):
        T = np.sort(rng.choice(n, int(rng.integers(k + 1, n)), replace=False))
        inside = ~np.any(masks[:, np.setdiff1d(np.arange(n), T)], axis=1)
        assert search.solved_bound(T) >= values[inside].max() - TOL * max(1.0, values.max())


def test_search_solving_the_relaxation_at_nodes_equals_brute_force(monkeypatch):
    """Noise covariances at n = 18, the relaxation solved at the root before the first
    node and again at every node: the search branches, solves at nodes, and certifies the
    brute-force optimum."""
    monkeypatch.setattr(_Search, "RELAX_AFTER_NODES", 0)
    monkeypatch.setattr(_Search, "RELAX_AFTER_SECONDS", 0.0)
    monkeypatch.setattr(_Search, "RELAX_MIN_N", 2)
    monkeypatch.setattr(_Search, "RELAX_MAX_STEPS", 40)
    monkeypatch.setattr(_Search, "NODE_RELAX_SHARE", 1.0)
    solves = 0
    for seed in range(6):
        A = _noise(seed)
        pair = check_pair(A, np.eye(A.shape[0]))
        for k in (5, 7):
            search = sl.ESLDASearch(pair, k, np.arange(k))
            search.advance(None, at_least_one=False)
            solves += search._search.stats.get("node relaxation", (0, 0))[0]
            best = float(all_values(pair.A, pair.B, k)[1].max())
            assert search.optimal
            assert search.value == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert solves >= 5


def test_relaxation_bound_checks_its_input():
    A = np.eye(4)
    with pytest.raises(ValueError, match="k"):
        sl.relaxation_bound(A, np.eye(4), 5)
    with pytest.raises(ValueError, match="max_steps"):
        sl.relaxation_bound(A, np.eye(4), 2, max_steps=0)
    bad = A.copy()
    bad[0, 1] = np.nan
    with pytest.raises(ValueError, match="A"):
        sl.relaxation_bound(bad, np.eye(4), 2)
    kept = A.copy()
    sl.relaxation_bound(kept, np.eye(4), 2)
    np.testing.assert_array_equal(kept, np.eye(4))
