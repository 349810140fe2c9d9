"""The ℓ₁ relaxation's floor: a feasible point of the relaxation, never above a bound.

:func:`spectral_kit.sparse_lda.relaxation_floor.l1_relaxation_floor` claims a matrix X ⪰ 0
with Tr(BX) = 1 and Σ_{i≠j}|X_ij| ≤ (k − 1) Tr X, whose Tr(AX) no dual point of the
relaxation goes below. Checked here: feasibility itself (eigenvalues, trace, constraint),
weak duality against solved and random dual points, the floor at least the subset it is
given (the brute-force optimum), and, on weak spiked covariances where the relaxation is
loose, a floor strictly above every subset's value (so the primal points are more than the
subset's) and close to the solved bound.
"""

from __future__ import annotations

import numpy as np
import pytest
from test_sparse_lda_bounds import KINDS, all_values, random_case
from test_sparse_lda_relaxation import _random_dual

from spectral_kit import sparse_lda as sl
from spectral_kit.sparse_lda.relaxation import l1_relaxation_bound, relaxation_value
from spectral_kit.sparse_lda.relaxation_floor import excess, l1_relaxation_floor


def _check_feasible(X, B, k):
    scale = max(1.0, float(np.abs(X).max()))
    assert np.allclose(X, X.T)
    assert np.linalg.eigvalsh(X)[0] >= -1e-10 * scale
    assert np.trace(B @ X) == pytest.approx(1.0, abs=1e-9)
    assert excess(X, k) <= 1e-9 * scale


@pytest.mark.parametrize("seed", range(3))
def test_floor_is_feasible_and_below_every_dual_point(seed):
    """Every kind of A, B = I and B ≠ I, n ≤ 12: the floor's X is feasible, its value is at
    least the brute-force optimum it was handed, and at most the solved bound and the
    bound of random dual points (weak duality)."""
    rng = np.random.default_rng(9400 + seed)
    for case in range(8):
        n = int(rng.integers(5, 13))
        A, B = random_case(rng, n, KINDS[case % len(KINDS)], identity_B=bool(case % 2))
        k = int(rng.integers(2, min(n, 6)))
        masks, values = all_values(A, B, k)
        optimum = np.flatnonzero(masks[int(np.argmax(values))])
        B_arg = None if case % 2 else B
        floor = l1_relaxation_floor(A, k, B_arg, support=optimum, steps=40)
        _check_feasible(floor.X, B, k)
        scale = max(1.0, float(np.abs(values).max()))
        assert float(np.sum(A * floor.X)) == pytest.approx(floor.value, abs=1e-9 * scale)
        assert floor.value >= values.max() - 1e-9 * scale
        solved = l1_relaxation_bound(A, k, B_arg, max_steps=60)
        assert floor.value <= solved.value + 1e-9 * scale
        for _ in range(4):
            Y, c = _random_dual(rng, n)
            assert floor.value <= relaxation_value(A, Y, c, k, B_arg) + 1e-9 * scale


@pytest.mark.parametrize("seed", range(3))
def test_floor_exceeds_every_subset_where_the_relaxation_is_loose(seed):
    """A weak spike (β = 1, 60 samples) in n = 14 at k = 3: the relaxation's optimum is
    above the best subset, and the floor finds it -- strictly above the brute-force optimum
    -- while staying within 3 % of the solved bound (the two meet at the optimum)."""
    rng = np.random.default_rng(9500 + seed)
    n, k = 14, 3
    v = np.zeros(n)
    v[rng.choice(n, k, replace=False)] = 1 / np.sqrt(k)
    Z = rng.standard_normal((60, n)) + rng.standard_normal((60, 1)) * v
    A = np.cov(Z, rowvar=False)
    best = float(all_values(A, np.eye(n), k)[1].max())
    solved = l1_relaxation_bound(A, k, max_steps=2000)
    floor = l1_relaxation_floor(A, k, bound=solved, steps=400)
    _check_feasible(floor.X, np.eye(n), k)
    assert best < floor.value <= solved.value
    assert solved.value - floor.value <= 0.03 * solved.value


def test_relaxation_floor_checks_its_arguments():
    A = np.eye(4) + 0.5
    with pytest.raises(ValueError, match="support"):
        sl.relaxation_floor(A, np.eye(4), 2, support=[0, 1, 2])
    with pytest.raises(ValueError, match="support"):
        sl.relaxation_floor(A, np.eye(4), 2, support=[4])
    with pytest.raises(ValueError, match="steps"):
        sl.relaxation_floor(A, np.eye(4), 2, steps=1)
    with pytest.raises(ValueError, match="k"):
        sl.relaxation_floor(A, np.eye(4), 5)


def test_relaxation_floor_on_a_rank_one_pair_leaves_its_input_alone():
    """A = d dᵀ given as d, B ≠ I: the public function's floor is below the public bound,
    and neither input array changes."""
    rng = np.random.default_rng(9600)
    d = rng.standard_normal(9)
    G = rng.standard_normal((9, 20))
    B = G @ G.T / 20 + 0.1 * np.eye(9)
    d0, B0 = d.copy(), B.copy()
    floor = sl.relaxation_floor(d, B, 3, steps=60)
    bound = sl.relaxation_bound(d, B, 3, max_steps=200)
    assert floor.value <= bound.value + 1e-9
    assert floor.value >= sl.exhaustive(np.outer(d, d), B, 3).value - 1e-9
    assert np.array_equal(d, d0) and np.array_equal(B, B0)
