"""Sparse LDA / sparse PCA with generalized spectral bounds (Moghaddam, Weiss & Avidan 2006).

References used here are independent of the code under test: SciPy's ``eigh(A_S, B_S)`` on
every subset (brute force), NumPy's ``eigvalsh`` for B = I, ``np.corrcoef``, scikit-learn's
LDA covariance.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given
from hypothesis import strategies as st

from spectral_kit import sparse_lda as sl
from spectral_kit.bench._eslda_reference import _ReferenceESLDASearch
from spectral_kit.sparse_lda.greedy import gslda_pair
from spectral_kit.sparse_lda.pair import MatrixPair

RTOL = 1e-9


# --------------------------------------------------------------------------- helpers


def spd(rng: np.random.Generator, n: int, ridge: float = 0.1) -> np.ndarray:
    G = rng.standard_normal((n, n + 2))
    return G @ G.T / (n + 2) + ridge * np.eye(n)


def make_pair(seed: int, n: int, kind: str) -> tuple[np.ndarray, np.ndarray]:
    """A random symmetric A (PSD, rank one, or indefinite) and an SPD B."""
    rng = np.random.default_rng(seed)
    B = spd(rng, n)
    if kind == "rank_one":
        d = rng.standard_normal(n)
        A = np.outer(d, d)
    elif kind == "psd":
        A = spd(rng, n, ridge=0.0)
    else:  # indefinite symmetric: Thm. 1 needs only symmetry
        S = rng.standard_normal((n, n))
        A = S + S.T
    return A, B


def brute_lambda_max(A: np.ndarray, B: np.ndarray, support) -> float:
    S = list(support)
    return float(scipy.linalg.eigh(A[np.ix_(S, S)], B[np.ix_(S, S)], eigvals_only=True)[-1])


def brute_best(A: np.ndarray, B: np.ndarray, k: int) -> float:
    return max(brute_lambda_max(A, B, S) for S in itertools.combinations(range(A.shape[0]), k))


pairs = st.tuples(
    st.integers(0, 2**32 - 1), st.integers(1, 10), st.sampled_from(["rank_one", "psd", "sym"])
)


# --------------------------------------------------------------------------- Thm. 1, Eq. 8


@given(pairs, st.data())
def test_every_principal_subproblem_interlaces(case, data):
    """Thm. 1 (Eq. 7): λ_i(A, B) ≤ λ_i(A_S, B_S) ≤ λ_{i+n−k}(A, B), relative tolerance 1e-9."""
    seed, n, kind = case
    A, B = make_pair(seed, n, kind)
    k = data.draw(st.integers(1, n))
    support = sorted(data.draw(st.sets(st.integers(0, n - 1), min_size=k, max_size=k)))
    full = scipy.linalg.eigh(A, B, eigvals_only=True)
    sub = scipy.linalg.eigh(A[np.ix_(support, support)], B[np.ix_(support, support)],
                            eigvals_only=True)
    tol = RTOL * max(np.abs(full).max(), 1e-300)
    i = np.arange(k)
    assert np.all(full[i] <= sub + tol)
    assert np.all(sub <= full[i + n - k] + tol)
    result = sl.interlacing(A, B, support)
    np.testing.assert_allclose(result.sub, sub, rtol=1e-10, atol=tol)
    np.testing.assert_allclose(result.lower, full[:k], rtol=1e-10, atol=tol)
    np.testing.assert_allclose(result.upper, full[n - k:], rtol=1e-10, atol=tol)
    assert result.violation() <= RTOL


@given(pairs, st.data())
def test_inclusion_bounds_bracket_every_k_subset(case, data):
    """Eq. 8: λ_k(A, B) ≤ λ_max(A_S, B_S) ≤ λ_n(A, B) for |S| = k."""
    seed, n, kind = case
    A, B = make_pair(seed, n, kind)
    k = data.draw(st.integers(1, n))
    lower, upper = sl.inclusion_bounds(A, B, k)
    full = scipy.linalg.eigh(A, B, eigvals_only=True)
    assert (lower, upper) == pytest.approx((full[k - 1], full[-1]), rel=1e-10, abs=1e-12)
    tol = RTOL * max(np.abs(full).max(), 1e-300)
    for S in itertools.islice(itertools.combinations(range(n), k), 50):
        assert lower - tol <= brute_lambda_max(A, B, S) <= upper + tol


@given(pairs, st.data())
def test_renormalization_never_lowers_the_quotient(case, data):
    """Prop. 2: on a support S, the eigenvector of (A_S, B_S) beats any vector on S."""
    seed, n, kind = case
    A, B = make_pair(seed, n, kind)
    rng = np.random.default_rng(seed + 1)
    k = data.draw(st.integers(1, n))
    support = np.sort(rng.choice(n, size=k, replace=False))
    x_tilde = np.zeros(n)
    x_tilde[support] = rng.standard_normal(k)
    before = (x_tilde @ A @ x_tilde) / (x_tilde @ B @ x_tilde)
    fixed = sl.renormalize(A, B, np.flatnonzero(x_tilde))
    scale = max(abs(before), abs(fixed.value), 1e-300)
    assert fixed.value >= before - RTOL * scale
    assert fixed.value == pytest.approx(brute_lambda_max(A, B, support), rel=1e-9, abs=1e-12)
    assert np.array_equal(fixed.support, support)
    assert np.all(fixed.x[np.setdiff1d(np.arange(n), support)] == 0)
    assert fixed.x @ B @ fixed.x == pytest.approx(1.0, rel=1e-9)
    assert sl.rayleigh_quotient(fixed.x, A, B) == pytest.approx(fixed.value, rel=1e-8, abs=1e-10)


@given(st.integers(0, 2**32 - 1), st.integers(1, 9), st.data())
def test_sparse_pca_is_b_equal_identity(seed, n, data):
    """B = I: generalized eigenvalues are ordinary ones and sparse LDA is sparse PCA."""
    rng = np.random.default_rng(seed)
    C = spd(rng, n, ridge=0.0)  # a covariance
    eye = np.eye(n)
    np.testing.assert_allclose(sl.generalized_spectrum(C, eye), np.linalg.eigvalsh(C),
                               rtol=1e-10, atol=1e-12)
    k = data.draw(st.integers(1, n))
    path = sl.gslda(C, eye)
    for kk in range(1, n + 1):
        S = path.support_at(kk)
        assert path.value_at(kk) == pytest.approx(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1],
                                                  rel=1e-9, abs=1e-12)
    best = max(np.linalg.eigvalsh(C[np.ix_(S, S)])[-1]
               for S in map(list, itertools.combinations(range(n), k)))
    assert sl.exhaustive(C, eye, k).value == pytest.approx(best, rel=1e-9, abs=1e-12)
    assert sl.eslda(C, eye, k).value == pytest.approx(best, rel=1e-9, abs=1e-12)


# --------------------------------------------------------------------------- exact search


@pytest.mark.parametrize("n", [4, 8, 12])
@pytest.mark.parametrize("kind", ["rank_one", "psd"])
def test_exhaustive_matches_brute_force_eigh(n, kind):
    A, B = make_pair(100 + n, n, kind)
    path = sl.exhaustive_path(A, B)
    ks = range(1, n + 1) if n <= 8 else (1, 3, 6, 9, 12)
    for k in ks:
        best = brute_best(A, B, k)
        single = sl.exhaustive(A, B, k)
        assert single.value == pytest.approx(best, rel=RTOL)
        assert path.values[k - 1] == pytest.approx(best, rel=RTOL)
        assert brute_lambda_max(A, B, single.support) == pytest.approx(best, rel=RTOL)


@pytest.mark.parametrize("seed", range(3))
@pytest.mark.parametrize("kind", ["rank_one", "general"])
def test_eslda_equals_exhaustive_for_every_k_n16(seed, kind):
    """ESLDA is exact at every k on random Brownian-process pairs (n = 16).

    Six pairs here; the Fig. 1 reproduction audits 204 more (34 per setting).
    """
    rp = sl.random_pair(16, smoothness=(0.25, 0.5, 0.75)[seed], kind=kind, random_state=seed)
    ex = sl.exhaustive_path(rp.A, rp.B)
    path = sl.gslda(rp.A, rp.B)
    for k in range(1, 17):
        res = sl.eslda(rp.A, rp.B, k, init=path)
        assert res.optimal
        assert res.value == pytest.approx(ex.values[k - 1], rel=RTOL)
        assert res.value >= path.value_at(k) * (1 - 1e-12)
        assert res.upper_bound >= res.value


def test_eslda_time_limit_returns_incumbent_and_certified_bound():
    rp = sl.random_pair(24, kind="rank_one", n_samples=25, random_state=3)
    full = sl.eslda(rp.d, rp.B, 12)
    partial = sl.eslda(rp.d, rp.B, 12, max_nodes=1)
    assert full.optimal
    assert not partial.optimal
    assert partial.stopped_by == "max_nodes"
    assert partial.value <= full.value * (1 + 1e-12)
    assert partial.upper_bound >= full.value * (1 - 1e-12)  # certified: the optimum is below
    assert partial.relative_gap >= 0
    timed = sl.eslda(rp.d, rp.B, 12, max_seconds=0.0)
    assert timed.stopped_by == "max_seconds"
    assert timed.upper_bound >= full.value * (1 - 1e-12)


def test_eslda_accepts_a_support_as_initial_incumbent():
    A, B = make_pair(7, 9, "psd")
    best = brute_best(A, B, 4)
    res = sl.eslda(A, B, 4, init=[0, 1, 2, 3])
    assert res.value == pytest.approx(best, rel=RTOL)
    assert res.initial_value == pytest.approx(brute_lambda_max(A, B, [0, 1, 2, 3]), rel=1e-9)


# --------------------------------------------------------------------------- greedy


@pytest.mark.parametrize("kind", ["rank_one", "psd", "sym"])
def test_greedy_paths_report_the_values_of_their_supports(kind):
    A, B = make_pair(11, 10, kind)
    fwd, bwd, g = sl.greedy_forward(A, B), sl.greedy_backward(A, B), sl.gslda(A, B)
    for k in range(1, 11):
        for path in (fwd, bwd, g):
            S = path.support_at(k)
            assert S.size == k
            assert path.value_at(k) == pytest.approx(brute_lambda_max(A, B, S), rel=1e-9,
                                                     abs=1e-10)
        assert set(fwd.support_at(k)) <= set(fwd.order[: k + 1])
        assert g.value_at(k) == max(fwd.value_at(k), bwd.value_at(k))
    np.testing.assert_array_equal(np.sort(fwd.order), np.arange(10))
    np.testing.assert_array_equal(np.sort(bwd.order), np.arange(10))


def test_forward_step_is_the_best_single_addition():
    """Greedy forward adds the variable that maximizes λ_max(A_{S+j}, B_{S+j}) (Sec. 2.3)."""
    A, B = make_pair(5, 8, "psd")
    path = sl.greedy_forward(A, B)
    for k in range(1, 8):
        S = list(path.order[:k])
        gains = {j: brute_lambda_max(A, B, [*S, j]) for j in range(8) if j not in S}
        assert path.order[k] == max(gains, key=gains.get)
    back = sl.greedy_backward(A, B)
    for k in range(8, 1, -1):
        S = list(back.order[:k])
        drops = {j: brute_lambda_max(A, B, [i for i in S if i != j]) for j in S}
        assert back.order[k - 1] == max(drops, key=drops.get)


def test_rank_one_updates_agree_with_the_general_eigen_solves():
    """The Cholesky up/down-date paths (A = d dᵀ) equal the general code on the same pair."""
    A, B = make_pair(21, 12, "rank_one")
    rank_one = sl.check_pair(A, B)
    assert rank_one.rank_one
    general = MatrixPair(rank_one.A, rank_one.B, None, 0.0)
    fast, slow = gslda_pair(rank_one), gslda_pair(general)
    np.testing.assert_array_equal(fast.forward.order, slow.forward.order)
    np.testing.assert_array_equal(fast.backward.order, slow.backward.order)
    np.testing.assert_allclose(fast.values, slow.values, rtol=1e-9)
    # A given as the vector d is the same problem.
    d = rank_one.d
    np.testing.assert_allclose(sl.gslda(d, B).values, fast.values, rtol=1e-12)


def test_nested_path_values():
    A, B = make_pair(2, 7, "psd")
    order = np.array([3, 0, 6])
    path = sl.nested_path(A, B, order, method="custom")
    for k in range(1, 4):
        assert path.value_at(k) == pytest.approx(brute_lambda_max(A, B, order[:k]), rel=1e-9)
    with pytest.raises(ValueError, match="repeated"):
        sl.nested_path(A, B, [1, 1])


# --------------------------------------------------------------------------- baselines


def test_simple_thresholding_keeps_the_largest_loadings():
    A, B = make_pair(9, 9, "psd")
    k = 4
    w, U = np.linalg.eigh(B)
    B_isqrt = (U / np.sqrt(w)) @ U.T
    v = np.linalg.eigh(B_isqrt @ A @ B_isqrt)[1][:, -1]
    res = sl.simple_threshold(A, B, k)
    np.testing.assert_array_equal(res.support, np.sort(np.argsort(-np.abs(v))[:k]))
    assert res.value == pytest.approx(brute_lambda_max(A, B, res.support), rel=1e-9)
    x = scipy.linalg.eigh(A, B)[1][:, -1]
    disc = sl.simple_threshold(A, B, k, loadings="discriminant")
    np.testing.assert_array_equal(disc.support, np.sort(np.argsort(-np.abs(x))[:k]))
    path = sl.simple_threshold_path(A, B)
    assert path.value_at(k) == pytest.approx(res.value, rel=1e-9)
    # B = I: both loadings are the leading eigenvector of A (sparse PCA thresholding).
    eye = np.eye(9)
    a = sl.simple_threshold(A, eye, k)
    b = sl.simple_threshold(A, eye, k, loadings="discriminant")
    np.testing.assert_array_equal(a.support, b.support)


def test_pearson_ranking_matches_corrcoef():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 6))
    y = rng.integers(0, 2, 40)
    X[:, 2] += 2.0 * y
    X[:, 4] = 3.0  # constant: no class information
    ranking = sl.pearson_ranking(X, y)
    t = np.where(y == 1, 1.0, -1.0)
    expected = [abs(np.corrcoef(X[:, j], t)[0, 1]) if j != 4 else 0.0 for j in range(6)]
    np.testing.assert_allclose(ranking.scores, expected, rtol=1e-12, atol=1e-15)
    assert ranking.order[0] == 2
    assert ranking.order[-1] == 4
    with pytest.raises(ValueError, match="two classes"):
        sl.pearson_ranking(X, np.arange(40) % 3)


# --------------------------------------------------------------------------- data helpers


def test_scatter_matrices_against_references():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    rng = np.random.default_rng(1)
    X = rng.standard_normal((60, 5))
    y = np.repeat([0, 1, 2], 20)
    X[y == 1] += 1.0
    sc = sl.scatter_matrices(X, y)
    total = np.cov(X.T, bias=True)
    np.testing.assert_allclose(sc.A + sc.B, total, atol=1e-12)
    lda = LinearDiscriminantAnalysis(solver="lsqr", store_covariance=True).fit(X, y)
    np.testing.assert_allclose(sc.B, lda.covariance_, atol=1e-12)
    assert np.linalg.matrix_rank(sc.A) == 2
    assert sc.d is None
    two = sl.scatter_matrices(X[y < 2], y[y < 2])
    np.testing.assert_allclose(two.A, np.outer(two.d, two.d), atol=1e-12)


def test_random_pair_is_deterministic_and_valid():
    a = sl.random_pair(12, smoothness=0.7, random_state=4)
    b = sl.random_pair(12, smoothness=0.7, random_state=4)
    np.testing.assert_array_equal(a.A, b.A)
    np.testing.assert_array_equal(a.B, b.B)
    assert np.linalg.eigvalsh(a.B)[0] > 0
    np.testing.assert_allclose(a.A, np.outer(a.d, a.d))
    g = sl.random_pair(12, kind="general", shape=1.0, random_state=4)
    assert np.linalg.matrix_rank(g.A) == 12
    assert g.d is None
    K = sl.fbm_covariance(5, 0.5)
    t = np.arange(1, 6) / 5
    np.testing.assert_allclose(K, np.minimum.outer(t, t))  # H = 1/2 is Brownian motion
    with pytest.raises(ValueError, match="smoothness"):
        sl.random_pair(5, smoothness=1.0)


def test_within_class_regularization_is_explicit_and_reported():
    rng = np.random.default_rng(3)
    Z = rng.standard_normal((6, 3))
    B = Z @ Z.T  # rank 3 of 6
    d = rng.standard_normal(6)
    with pytest.raises(ValueError, match="regularization"):
        sl.gslda(d, B)
    w = np.linalg.eigvalsh(B)
    eps = sl.auto_epsilon(B)
    assert eps == pytest.approx(1e-3 * w[w > 1e-10 * w[-1]].min(), rel=1e-8)
    path = sl.gslda(d, B, regularization="auto")
    assert path.epsilon == eps
    Breg = B + eps * np.eye(6)
    for k in (1, 3, 6):
        assert path.value_at(k) == pytest.approx(
            brute_lambda_max(np.outer(d, d), Breg, path.support_at(k)), rel=1e-7)
    res = sl.eslda(d, B, 3, regularization=0.5)
    assert res.epsilon == 0.5
    assert res.value == pytest.approx(brute_best(np.outer(d, d), B + 0.5 * np.eye(6), 3),
                                      rel=1e-9)
    assert sl.auto_epsilon(spd(rng, 4)) == 0.0  # positive definite: nothing added
    Breg2, eps2 = sl.regularize(B, 0.25)
    np.testing.assert_allclose(Breg2, B + 0.25 * np.eye(6))
    assert eps2 == 0.25


def test_linear_discriminant_is_the_renormalized_sparse_factor():
    from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

    rng = np.random.default_rng(8)
    X = rng.standard_normal((80, 6))
    y = rng.integers(0, 2, 80)
    X[y == 1, :2] += 1.5
    support = np.array([0, 1, 4])
    model = sl.fit_discriminant(X, y, support, regularization=None)
    sc = sl.scatter_matrices(X, y)
    x = sl.renormalize(sc.d, sc.B, support).x
    coef = model.coef[0]
    assert np.all(coef[[2, 3, 5]] == 0)
    cos = coef @ x / (np.linalg.norm(coef) * np.linalg.norm(x))
    assert abs(cos) == pytest.approx(1.0, abs=1e-10)
    full = sl.fit_discriminant(X, y, regularization=None)
    ref = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(full.coef, ref.coef_, rtol=1e-8)
    np.testing.assert_allclose(full.intercept, ref.intercept_, rtol=1e-8)
    np.testing.assert_array_equal(full.predict(X), ref.predict(X))
    err = sl.discriminant_errors(X, y, X, y, [np.arange(6), support])
    assert err[0] == pytest.approx(np.mean(ref.predict(X) != y))


def test_monte_carlo_batch_ratios():
    batch = sl.monte_carlo_batch(7, 3, smoothness=0.5, audit=2, random_state=0)
    for method in ("ST", "GSLDA"):
        r = batch.ratio(method)
        assert np.all(r <= 1 + 1e-9)
        assert np.all(r > 0)
        assert batch.mean_ratio(method)[-1] == pytest.approx(1.0)  # k = n: the whole set
    assert batch.exhaustive_agrees.all()
    both = batch.concat(sl.monte_carlo_batch(7, 2, smoothness=0.5, random_state=1))
    assert both.n_pairs == 5
    again = sl.monte_carlo_batch(7, 3, smoothness=0.5, audit=2, random_state=0)
    np.testing.assert_array_equal(again.values["ESLDA"], batch.values["ESLDA"])


def test_sparsity_curves_lie_inside_the_inclusion_band():
    rp = sl.random_pair(10, kind="general", random_state=5)
    curves = sl.sparsity_curves(rp.A, rp.B, regularization=0.01)
    ex = sl.exhaustive_path(rp.A, rp.B, regularization=0.01)
    np.testing.assert_allclose(curves.values["ESLDA"], ex.values, rtol=RTOL)
    assert curves.optimal.all()
    assert curves.epsilon == 0.01
    tol = 1e-9 * curves.upper
    for method in ("ST", "GSLDA"):
        assert np.all(curves.values[method] <= curves.values["ESLDA"] + tol)
    assert np.all(curves.lower <= curves.values["ESLDA"] + tol)
    assert np.all(curves.values["ESLDA"] <= curves.upper + tol)
    quick = sl.sparsity_curves(rp.A, rp.B, exact=False)
    assert "ESLDA" not in quick.values


def test_real_data_pair_sonar(real_data):
    data = real_data("sonar")
    sc = sl.scatter_matrices(data.X, data.y)
    path = sl.gslda(sc.d, sc.B)
    lam = sl.generalized_spectrum(sc.A, sc.B)
    assert path.value_at(60) == pytest.approx(lam[-1], rel=1e-9)
    assert np.all(np.diff(path.values) >= -1e-12 * lam[-1])  # monotone in k (Sec. 2.2)


def test_sparse_pca_on_sonar_is_certified_and_exact(real_data):
    """Sparse PCA of Sonar's correlation matrix (B = I): certified at k = 5 and 10 on all
    60 bands, above GSLDA, with upper bound = value; on 22 bands, equal to exhaustive search
    at k = 5 and to the first search (inclusion bounds alone), which certifies there too."""
    from spectral_kit.sparse_lda.branch_bound import eslda_pair
    from spectral_kit.sparse_lda.pair import check_pair

    C = np.corrcoef(real_data("sonar").X, rowvar=False)
    eye = np.eye(C.shape[0])
    path = sl.gslda(C, eye)
    for k in (5, 10):
        res = sl.eslda(C, eye, k, init=path, max_seconds=60.0)
        assert res.optimal
        assert res.value >= path.values[k - 1] - 1e-12
        assert res.upper_bound == pytest.approx(res.value, rel=1e-9)
        assert res.value == pytest.approx(np.linalg.eigvalsh(C[np.ix_(res.support,
                                                                      res.support)])[-1])
    sub = C[:22, :22]
    pair = check_pair(sub, np.eye(22))
    ours = eslda_pair(pair, 5)
    first = eslda_pair(pair, 5, _search_class=_ReferenceESLDASearch)
    ex = sl.exhaustive(sub, np.eye(22), 5)
    assert ours.optimal and first.optimal
    assert ours.value == pytest.approx(ex.value, rel=1e-12)
    assert first.value == pytest.approx(ex.value, rel=1e-12)
    np.testing.assert_array_equal(ours.support, ex.support)


def test_eslda_agrees_with_the_first_search_on_ionosphere(real_data):
    """Sparse LDA on Ionosphere (two classes: rank-one A, regularized B): where the first
    search certifies, the current one returns the same support and value."""
    from spectral_kit.sparse_lda.branch_bound import eslda_pair
    from spectral_kit.sparse_lda.pair import check_pair

    data = real_data("ionosphere")
    sc = sl.scatter_matrices(data.X, data.y)
    pair = check_pair(sc.d, sc.B, "auto")
    path = gslda_pair(pair)
    for k in (4, 8):
        first = eslda_pair(pair, k, init=path, _search_class=_ReferenceESLDASearch,
                           max_seconds=30.0)
        ours = eslda_pair(pair, k, init=path)
        assert ours.optimal
        if first.optimal:
            assert ours.value == pytest.approx(first.value, rel=1e-9)
            np.testing.assert_array_equal(ours.support, first.support)
        else:
            assert first.value <= ours.value * (1 + 1e-12)


# --------------------------------------------------------------------------- bad input


def test_bad_input_gives_clear_errors():
    A, B = make_pair(0, 5, "psd")
    asym = A.copy()
    asym[0, 1] += 1.0
    with pytest.raises(ValueError, match="A must be symmetric"):
        sl.gslda(asym, B)
    with pytest.raises(ValueError, match="B must be symmetric"):
        sl.eslda(A, asym + 10 * np.eye(5), 2)
    not_pd = B - 2 * np.linalg.eigvalsh(B)[-1] * np.eye(5)
    with pytest.raises(ValueError, match="not positive definite"):
        sl.inclusion_bounds(A, not_pd, 2)
    with pytest.raises(ValueError, match="negative eigenvalue"):
        sl.exhaustive(A, not_pd, 2, regularization="auto")
    for bad_k in (0, 6):
        with pytest.raises(ValueError, match=r"k must be an integer in \[1, 5\]"):
            sl.eslda(A, B, bad_k)
    with pytest.raises(TypeError, match="k must be an integer"):
        sl.simple_threshold(A, B, 2.5)
    with pytest.raises(ValueError, match="same n features"):
        sl.gslda(A, np.eye(4))
    with pytest.raises(ValueError, match="same n features"):
        sl.gslda(np.ones(4), B)
    with pytest.raises(ValueError, match="NaN"):
        sl.gslda(np.where(np.eye(5) > 0, np.nan, A), B)
    with pytest.raises(ValueError, match="square"):
        sl.gslda(np.ones((5, 4)), B)
    with pytest.raises(ValueError, match="support must contain indices"):
        sl.renormalize(A, B, [0, 7])
    with pytest.raises(ValueError, match="empty"):
        sl.renormalize(A, B, [])
    with pytest.raises(ValueError, match="regularization"):
        sl.gslda(A, B, regularization=-1.0)
    with pytest.raises(ValueError, match="regularization"):
        sl.gslda(A, B, regularization="lots")
    with pytest.raises(ValueError, match="init must be a support of size k=3"):
        sl.eslda(A, B, 3, init=[0, 1])
    with pytest.raises(ValueError, match="max_subsets"):
        sl.exhaustive(A, B, 2, max_subsets=3)
    with pytest.raises(ValueError, match="loadings"):
        sl.simple_threshold(A, B, 2, loadings="raw")


def test_inputs_are_never_modified():
    A, B = make_pair(4, 6, "psd")
    d = np.random.default_rng(0).standard_normal(6)
    Bs = B - 0.09 * np.eye(6)  # still PD
    for arr in (A, B, d, Bs):
        arr.setflags(write=False)  # any in-place write raises
    copies = [a.copy() for a in (A, B, d, Bs)]
    X = np.random.default_rng(1).standard_normal((30, 6))
    y = np.repeat([0, 1], 15)
    X.setflags(write=False)
    Xc = X.copy()
    for AA in (A, d):
        sl.gslda(AA, Bs, regularization=0.01)
        sl.greedy_forward(AA, B, 3)
        sl.greedy_backward(AA, B)
        sl.eslda(AA, B, 3)
        sl.exhaustive(AA, B, 3)
        sl.exhaustive_path(AA, B)
        sl.simple_threshold(AA, B, 2)
        sl.renormalize(AA, B, [1, 2])
        sl.inclusion_bounds(AA, B, 2)
        sl.interlacing(AA, B, [0, 5])
    sl.regularize(B, 0.1)
    sl.scatter_matrices(X, y)
    sl.pearson_ranking(X, y)
    sl.fit_discriminant(X, y, [0, 1])
    for a, c in zip((A, B, d, Bs), copies):
        np.testing.assert_array_equal(a, c)
    np.testing.assert_array_equal(X, Xc)


# --- regularization="auto" at the extremes -------------------------------------------------


def _with_condition(n, condition, seed):
    Q, _ = np.linalg.qr(np.random.default_rng(seed).standard_normal((n, n)))
    B = (Q * np.logspace(0, -np.log10(condition), n)) @ Q.T
    return 0.5 * (B + B.T)


@pytest.mark.parametrize("condition", [1e8, 1e13, 1e15, 1e16, 1e18, 1e40, 1e300])
@pytest.mark.parametrize("scale", [1e-150, 1.0, 1e150])
def test_auto_regularization_passes_the_kits_own_check_at_any_condition(condition, scale):
    from spectral_kit.sparse_lda.pair import _is_numerically_pd

    n = 7
    B = _with_condition(n, condition, int(np.log10(condition))) * scale
    pair = sl.check_pair(np.eye(n) * scale, B, "auto")
    assert _is_numerically_pd(pair.B)[0]
    # generalized_spectrum accepts the regularized B without regularizing again
    assert np.all(np.isfinite(sl.generalized_spectrum(np.eye(n), pair.B)))
    # ε is proportionate to B: never above the paper's 10⁻³ × its largest eigenvalue, and it
    # scales with B
    assert pair.epsilon <= 1e-3 * float(np.linalg.eigvalsh(B).max()) * (1 + 1e-9)
    unit = sl.check_pair(np.eye(n), B / scale, "auto").epsilon
    assert pair.epsilon == pytest.approx(unit * scale, rel=1e-2)


@pytest.mark.parametrize("tiny_std", [0.0, 1e-7, 1e-9, 1e-12])
def test_auto_regularization_with_zero_variance_features(tiny_std):
    from spectral_kit.sparse_lda.pair import _is_numerically_pd

    rng = np.random.default_rng(4)
    X = rng.standard_normal((40, 6))
    X[:, 2] = 3.0 + tiny_std * rng.standard_normal(40)  # (nearly) constant feature
    X[:, 4] = 0.0  # a feature that is zero everywhere
    y = np.repeat([0, 1], 20)
    sc = sl.scatter_matrices(X, y)
    pair = sl.check_pair(sc.A, sc.B, "auto")
    assert pair.epsilon > 0 and _is_numerically_pd(pair.B)[0]
    path = sl.greedy_forward(sc.A, sc.B, regularization="auto")
    assert np.all(np.isfinite(path.values))


def test_the_error_never_tells_a_user_of_auto_to_pass_auto():
    B = np.diag([1.0, 1e-20, 0.0])
    with pytest.raises(ValueError, match="pass regularization='auto'"):
        sl.check_pair(np.eye(3), B)
    with pytest.raises(ValueError, match="ε=1e-30 is too small"):
        sl.check_pair(np.eye(3), B, 1e-30)
    sl.check_pair(np.eye(3), B, "auto")  # and "auto" itself succeeds


# --------------------------------------------------------------------------- the start


@pytest.mark.parametrize("kind", ["rank_one", "general"])
@pytest.mark.parametrize("seed", range(3))
def test_greedy_start_is_at_least_gslda_and_feasible(kind, seed):
    """The default start polishes GSLDA's support among others (rank one: its backward
    pass; general A below GSLDA_START_MAX_N), so it is never below GSLDA's value at k."""
    from spectral_kit.sparse_lda.start import greedy_start

    p = sl.random_pair(14, kind=kind, random_state=seed)
    pair = sl.check_pair(p.d if kind == "rank_one" else p.A, p.B)
    for k in (2, 5, 9):
        support = greedy_start(pair, k)
        assert support.size == k and np.unique(support).size == k
        value = sl.subproblem_value(pair.A, pair.B, support)
        assert value >= gslda_pair(pair).values[k - 1] * (1 - 1e-12)
        assert value <= sl.exhaustive(pair.A, pair.B, k).value * (1 + 1e-12)


def test_greedy_start_reaches_the_block_that_the_largest_row_sums_miss(real_data):
    """On the correlation of the 100 highest-variance colon genes at k = 10, forward passes
    from the four largest row sums all end in the block of value 8.167 (one-swap polished);
    the start's sixteen seeds reach GSLDA's (polished) 8.254."""
    from spectral_kit.sparse_lda.start import greedy_start, local_swap_search

    X = np.log10(real_data("colon").X)
    top = np.sort(np.argsort(-X.var(axis=0), kind="stable")[:100])
    pair = sl.check_pair(np.corrcoef(X[:, top], rowvar=False), np.eye(100))
    four = sl.subproblem_value(pair.A, pair.B, greedy_start(pair, 10, seeds=4))
    sixteen = sl.subproblem_value(pair.A, pair.B, greedy_start(pair, 10))
    _, gslda_value = local_swap_search(pair, gslda_pair(pair).support_at(10))
    assert four < gslda_value * (1 - 1e-3)
    assert sixteen >= gslda_value * (1 - 1e-12)


def test_a_zero_budget_covers_the_start_and_still_bounds_the_optimum():
    """max_seconds counts from before the start: with 0 s the start stops after its first
    forward pass, no node is expanded, and the bound still brackets the optimum."""
    p = sl.random_pair(14, kind="general", random_state=4)
    res = sl.eslda(p.A, p.B, 5, max_seconds=0.0)
    best = sl.exhaustive(p.A, p.B, 5).value
    assert res.stopped_by == "max_seconds" and res.nodes_expanded == 0
    assert res.value <= best * (1 + 1e-12) <= res.upper_bound * (1 + 1e-12)


def test_local_swap_search_past_its_deadline_returns_its_start():
    from spectral_kit.sparse_lda.start import local_swap_search

    p = sl.random_pair(14, kind="general", random_state=2)
    pair = sl.check_pair(p.A, p.B)
    start = np.array([0, 1, 2])
    support, value = local_swap_search(pair, start, deadline=0.0)
    assert support.tolist() == [0, 1, 2]
    assert value == sl.subproblem_value(p.A, p.B, start)
    _, better = local_swap_search(pair, start)
    assert better >= value


def test_exact_search_modules_stay_small_and_say_their_job():
    """Each module of the exact search has a docstring and at most ~500 lines; the reference
    search lives with the benchmark, not in the library."""
    import pathlib

    import spectral_kit.sparse_lda as package

    root = pathlib.Path(package.__file__).parent
    for path in root.glob("*.py"):
        text = path.read_text(encoding="utf-8")
        assert text.count("\n") <= 550, path.name
        assert text.lstrip().startswith('"""'), path.name
        assert "_ReferenceSearch" not in text and "_eslda_reference" not in text.replace(
            "spectral_kit.bench._eslda_reference", ""), path.name


def test_greedy_start_past_its_deadline_takes_the_largest_row_sums():
    """With the deadline already passed the start still returns k distinct variables: the
    first seed and the rest by the absolute row sums of A (÷ B_jj), nothing polished."""
    from spectral_kit.sparse_lda.start import greedy_start

    p = sl.random_pair(14, kind="general", random_state=5)
    pair = sl.check_pair(p.A, p.B)
    score = np.abs(pair.A).sum(axis=1) / np.diag(pair.B)
    for k in (1, 4, 14):
        expected = np.sort(np.argsort(-score, kind="stable")[:k])
        np.testing.assert_array_equal(greedy_start(pair, k, deadline=0.0), expected)


@pytest.mark.parametrize("kind", ["general", "rank_one"])
@pytest.mark.parametrize("seed", range(3))
def test_swap_values_equal_the_neighbours_values_solved_directly(kind, seed):
    """Every one-swap neighbour's λ_max, by bordering S − S[a] (a secular equation per
    variable left out), equals the generalized eigen-solve of that neighbour (SciPy), for
    a well-conditioned B and for a ridge plus low rank one (the within-class scatter of
    fewer samples than variables)."""
    import scipy.linalg

    from spectral_kit.sparse_lda.start import swap_values

    rng = np.random.default_rng(seed)
    p = sl.random_pair(16, kind=kind, random_state=seed)
    X = rng.standard_normal((6, 16))
    for B in (p.B, X.T @ X + 1e-3 * np.eye(16)):
        pair = sl.check_pair(p.d if kind == "rank_one" else p.A, B)
        support = np.sort(rng.choice(16, size=5, replace=False))
        values, out = swap_values(pair, support)
        for a in range(support.size):
            for b, j in enumerate(out):
                S = np.sort(np.append(np.delete(support, a), j))
                direct = scipy.linalg.eigh(pair.A[np.ix_(S, S)], pair.B[np.ix_(S, S)],
                                           eigvals_only=True)[-1]
                assert values[a, b] == pytest.approx(direct, rel=1e-9, abs=1e-12)


def test_features_in_far_apart_units_are_refused_with_the_scaling_that_works():
    """A positive definite B whose features' scales span ~10²⁴ fails the kit's numerical
    check; the message says so (not "not positive definite") and names the diagonal
    scaling, under which the search returns the brute-force optimum of the original pair."""
    rng = np.random.default_rng(3)
    n, k = 8, 3
    s = 10.0 ** rng.uniform(-6, 6, n)
    X, W = rng.standard_normal((n + 3, n)), rng.standard_normal((2 * n, n))
    A, B = X.T @ X * np.outer(s, s), W.T @ W * np.outer(s, s)
    with pytest.raises(ValueError, match=r"B is positive definite, but its features' scales "
                                         r"are too far apart.*D A D and D B D"):
        sl.eslda(A, B, k)
    D = 1.0 / np.sqrt(np.diag(B))
    scaled = sl.eslda(A * np.outer(D, D), B * np.outer(D, D), k)
    # the reference: each subset's generalized eigenvalue of the original pair, computed on
    # that subset scaled by its own diagonal (the same number in exact arithmetic)
    best = max(
        scipy.linalg.eigh(A[np.ix_(S, S)] * np.outer(D[S], D[S]),
                          B[np.ix_(S, S)] * np.outer(D[S], D[S]), eigvals_only=True)[-1]
        for S in map(list, itertools.combinations(range(n), k))
    )
    assert scaled.optimal and scaled.value == pytest.approx(best, rel=1e-9)
