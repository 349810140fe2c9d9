"""Q-α with side information, pairwise side data and the topographical map
(Shashua & Wolf 2004, Secs. 3–6)."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit import q_alpha, q_alpha_pairwise, q_alpha_side, topographic_map
from spectral_kit.datasets.side_information import (
    make_hidden_sessions,
    make_topographic,
    make_two_structures,
)
from spectral_kit.estimators.side_information import QAlphaSideSelector
from spectral_kit.metrics import balanced_pair_accuracy
from spectral_kit.plots.side_information import (
    plot_alpha_structures,
    plot_success_rates,
    plot_topographic_map,
)
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.qalpha.side import SideInformationProblem, side_variances
from spectral_kit.reproduce.side_information import uci_side_information


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return abs(float(a @ b)) / (np.linalg.norm(a) * np.linalg.norm(b))


def share(alpha: np.ndarray, mask: np.ndarray) -> float:
    return float(np.clip(alpha[mask], 0, None).sum() / np.abs(alpha).sum())


@pytest.fixture(scope="module")
def two():
    return make_two_structures(random_state=0)


def G_of(result, M):
    """G of the returned Q, formed explicitly from its definition."""
    Mp = preprocess_rows(M)
    P = Mp @ result.Q
    return (Mp @ Mp.T) * (P @ P.T)


# -- Q-α with side information (Def. 3) ---------------------------------------------------
def test_side_variances_are_side_over_main_variances(two):
    expected = two.W.var(axis=1) / two.M.var(axis=1)
    assert np.allclose(side_variances(two.M, two.W), expected)
    assert np.allclose(side_variances(two.M, two.W, "raw"), two.W.var(axis=1))
    D = side_variances(two.M, two.W)
    # The target features barely vary in the side data (one identity), the others do.
    assert D[two.target].mean() < 0.2 * D[~two.target].mean()


def test_alpha_is_the_leading_eigenvector_of_the_reweighted_G(two):
    res = q_alpha_side(two.M, two.W, 3, lam=0.1)
    G = G_of(res, two.M)
    w, V = scipy.linalg.eig(np.diag(1.0 / (res.D + 0.1)) @ G)
    lead = np.real(V[:, np.argmax(np.real(w))])
    assert cos(lead, res.alpha) > 1 - 1e-9
    assert res.all_positive
    assert res.lam == 0.1
    assert res.side_scale == "main"


def test_large_lambda_reduces_to_plain_q_alpha(two):
    plain = q_alpha(two.M, 3)
    side = q_alpha_side(two.M, two.W, 3, lam=1e9)
    assert cos(plain.alpha, side.alpha) > 0.9999


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_informative_side_data_moves_alpha_away_from_the_side_structure(seed):
    data = make_two_structures(random_state=seed)
    plain = q_alpha(data.M, 3).alpha
    side = q_alpha_side(data.M, data.W, 3, lam=0.1).alpha
    assert share(plain, data.nuisance) > 0.8  # plain Q-α follows the dominant nuisance
    assert share(side, data.target) > 0.8  # the side data suppress it
    assert share(side, data.nuisance) < 0.1


def test_side_scaling_keeps_the_side_information_and_is_unit_free(two):
    """The choice of scale decides whether the side data count at all."""
    plain = q_alpha(two.M, 3).alpha
    ours = q_alpha_side(two.M, two.W, 3, lam=0.1).alpha
    # Side rows normalised like the main rows: every variance is 1/p, D ∝ I, and the side
    # information vanishes -- the answer is plain Q-α.
    W_normalised = preprocess_rows(two.W)
    D = side_variances(two.M, W_normalised, "raw")
    assert np.allclose(D, D[0])
    vanished = q_alpha_side(two.M, W_normalised, 3, lam=0.1, side_scale="raw").alpha
    assert cos(vanished, plain) > 0.9999
    assert cos(ours, plain) < 0.3
    # Our scale is unit-free: measuring the target features in units 100× larger (in both
    # data sets) changes nothing; with raw variances it suppresses them.
    units = np.where(two.target, 100.0, 1.0)[:, None]
    rescaled = q_alpha_side(two.M * units, two.W * units, 3, lam=0.1).alpha
    assert cos(rescaled, ours) > 0.9999
    raw = q_alpha_side(two.M * units, two.W * units, 3, lam=0.1, side_scale="raw").alpha
    assert share(raw, two.target) < 0.05


def test_lambda_zero_is_allowed_when_no_side_variance_vanishes(two):
    res = q_alpha_side(two.M, two.W, 3, lam=0.0)
    assert share(res.alpha, two.target) > 0.8


def test_warm_start_matches_cold_and_follow_shows_hysteresis():
    data = make_two_structures(random_state=3)
    problem = SideInformationProblem(data.M, data.W)
    followed = best = None
    for lam in np.logspace(-2, 3, 11):  # a slider moved step by step
        followed = problem.solve(3, lam, warm_start=followed, follow=True)
        best = problem.solve(3, lam, warm_start=best)
    cold = problem.solve(3, 1000.0)
    assert share(cold.alpha, data.nuisance) > 0.8
    # Only following the warm start stays on the target's local maximum at λ = 1000...
    assert share(followed.alpha, data.target) > 0.8
    assert followed.objective[-1] < cold.objective[-1]
    # ...while the default keeps the better of the warm and the cold run.
    assert cos(best.alpha, cold.alpha) > 0.9999
    # A warm start at the same λ converges at once to the same answer.
    again = problem.solve(3, 1000.0, warm_start=cold, follow=True)
    assert cos(again.alpha, cold.alpha) > 1 - 1e-9
    assert again.n_iter <= 3


@pytest.mark.parametrize(
    ("W_change", "lam", "error", "match"),
    [
        (lambda W: W[:-1], 0.1, ValueError, "W must have one row per feature"),
        (lambda W: W.T, 0.1, ValueError, "W must have one row per feature"),
        (lambda W: W, -0.1, ValueError, "lam must lie in"),
        (lambda W: np.vstack([W[:-1], np.ones((1, W.shape[1]))]), 0.0, ValueError,
         "constant feature row"),
        (lambda W: W[:, :1], 0.1, ValueError, "at least 2 side samples"),
        (lambda W: np.where(np.eye(*W.shape, dtype=bool), np.nan, W), 0.1, ValueError, "NaN"),
        (lambda W: None, 0.1, TypeError, "W must be a numeric array"),
        (lambda W: W, "0.1", TypeError, "lam must be a real number"),
    ],
)
def test_bad_side_input_gives_clear_errors(two, W_change, lam, error, match):
    with pytest.raises(error, match=match):
        q_alpha_side(two.M, W_change(two.W), 3, lam=lam)


def test_side_inputs_are_not_modified(two):
    M, W = two.M.copy(), two.W.copy()
    q_alpha_side(M, W, 3, lam=0.1)
    assert np.array_equal(M, two.M)
    assert np.array_equal(W, two.W)


# -- pairwise side information (Sec. 5) ---------------------------------------------------
@pytest.fixture(scope="module")
def pairs(two):
    yt, yn = two.y_target, two.y_nuisance
    i, j = np.triu_indices(yt.size, 1)
    ok = np.flatnonzero((yt[i] != yt[j]) & (yn[i] == yn[j]))
    pick = np.random.default_rng(0).choice(ok, size=20, replace=False)
    return np.column_stack([i[pick], j[pick]])


def test_pairwise_B_is_the_sum_of_the_pair_matrices(two, pairs):
    res = q_alpha_pairwise(two.M, pairs, 3, lam=1.0)
    Mp = preprocess_rows(two.M)
    B = np.zeros((Mp.shape[0],) * 2)
    for i, j in pairs:
        x, y = Mp[:, i], Mp[:, j]
        B += np.outer(x * y, x * y)  # F_rs = x_r y_r x_s y_s
    assert res.side_energy == pytest.approx(float(res.alpha @ B @ res.alpha), rel=1e-10)
    assert res.side_energy == pytest.approx(
        sum(float(np.sum(res.alpha * Mp[:, i] * Mp[:, j])) ** 2 for i, j in pairs), rel=1e-10
    )
    # α is the eigenvector of the largest eigenvalue of G − λB at the returned Q.
    _w, V = np.linalg.eigh(G_of(res, two.M) - 1.0 * B)
    assert cos(V[:, -1], res.alpha) > 1 - 1e-9
    assert res.n_pairs == 20
    assert res.all_positive == bool(np.all(res.alpha > 0))


def test_pairwise_with_lambda_zero_is_plain_q_alpha(two, pairs):
    assert cos(q_alpha_pairwise(two.M, pairs, 3, lam=0.0).alpha, q_alpha(two.M, 3).alpha) > (
        1 - 1e-9
    )


def test_pairwise_penalty_lowers_the_pair_energy_and_reports_positivity(two, pairs):
    energies, positive = [], []
    for lam in (0.0, 1.0, 10.0, 1000.0):
        res = q_alpha_pairwise(two.M, pairs, 3, lam=lam)
        energies.append(res.side_energy)
        positive.append(res.all_positive)
    assert energies[-1] < 0.2 * energies[0]
    assert positive[0]  # λ = 0 is plain Q-α, positive
    # On these data a strong penalty gives α of both signs: B is not diagonal (Sec. 5).
    assert not positive[-1]


@pytest.mark.parametrize(
    ("bad", "error", "match"),
    [
        ([], ValueError, "pairs is empty"),
        (np.empty((0, 2), dtype=int), ValueError, "pairs is empty"),
        ([(0, 0)], ValueError, "with itself"),
        ([(0, 500)], ValueError, r"pairs must index samples"),
        ([(0, 1, 2)], ValueError, r"shape \(n_pairs, 2\)"),
        ([(0.5, 1.0)], TypeError, "integer sample indices"),
        (None, TypeError, "pairs must be"),
    ],
)
def test_bad_pairs_give_clear_errors(two, bad, error, match):
    with pytest.raises(error, match=match):
        q_alpha_pairwise(two.M, bad, 3, lam=1.0)


def test_pairwise_rejects_negative_lambda_and_keeps_inputs(two, pairs):
    with pytest.raises(ValueError, match="lam must lie in"):
        q_alpha_pairwise(two.M, pairs, 3, lam=-1.0)
    M, P = two.M.copy(), pairs.copy()
    q_alpha_pairwise(M, P, 3, lam=1.0)
    assert np.array_equal(M, two.M)
    assert np.array_equal(P, pairs)


# -- topographical map (Sec. 4) -----------------------------------------------------------
@pytest.mark.parametrize("seed", [0, 1])
def test_topographic_map_hybrids_and_the_two_solution_sets(seed):
    data = make_topographic(random_state=seed)
    topo = topographic_map(data.M, 2, rounds=2)
    r = topo.relevance
    # Round 1 finds {1, 2, 3}, round 2 {A, B, C}: the map separates the two solution sets.
    assert r[0][data.first].min() > 2 * r[0][data.second].max()
    assert r[1][data.second].min() > 2 * r[1][data.first].max()
    # The hybrids are relevant to both solutions: high in both rounds.
    for rnd in range(2):
        assert set(np.flatnonzero(data.hybrid)) <= set(topo.top_features(rnd, 6))
        assert r[rnd][data.hybrid].min() > 5 * r[rnd][data.irrelevant].max()
    # Round 1 is plain Q-α; round 2 used D = α⁽¹⁾².
    assert cos(topo.alpha[0], q_alpha(data.M, 2).alpha) > 0.9999
    assert np.allclose(topo.D[1], topo.alpha[0] ** 2)
    assert topo.coordinates.shape == (20, 2)
    assert np.all(np.abs(topo.coordinates) <= np.pi)


def test_topographic_map_bad_input():
    data = make_topographic(random_state=0)
    with pytest.raises(ValueError, match="lam must lie in"):
        topographic_map(data.M, 2, lam=0.0)
    with pytest.raises(ValueError, match="rounds must be"):
        topographic_map(data.M, 2, rounds=0)


# -- estimator -----------------------------------------------------------------------------
@parametrize_with_checks([QAlphaSideSelector(), QAlphaSideSelector(n_features_to_select=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def test_selector_uses_side_data_in_fit_and_in_a_pipeline(two):
    sel = QAlphaSideSelector(n_features_to_select=4, k=3).fit(two.X, X_side=two.X_side)
    assert np.array_equal(sel.get_support(), two.target)
    assert np.allclose(sel.side_variance_, side_variances(two.M, two.W))
    without = QAlphaSideSelector(n_features_to_select=4, k=3).fit(two.X)
    assert without.side_variance_ is None
    assert not without.get_support()[two.target].any()
    pipe = make_pipeline(FunctionTransformer(), QAlphaSideSelector(n_features_to_select=4, k=3))
    pipe.fit(two.X, qalphasideselector__X_side=two.X_side)
    assert pipe.transform(two.X).shape == (two.X.shape[0], 4)
    with pytest.raises(ValueError, match="X_side has 5 features but X has 32"):
        QAlphaSideSelector(k=3).fit(two.X, X_side=two.X_side[:, :5])


# -- data, plots, scores ---------------------------------------------------------------------
def test_generators_are_deterministic_and_shaped_as_the_papers_say():
    a = make_hidden_sessions(0.1, random_state=3)
    assert np.array_equal(a.X, make_hidden_sessions(0.1, random_state=3).X)
    assert a.X.shape == (120, 60)
    assert a.relevant.sum() == 12
    assert np.bincount(a.y).tolist() == [40, 40, 40]
    t = make_topographic(random_state=0)
    assert t.X.shape == (150, 20)
    assert t.feature_names[:9] == (
        "1", "2", "3", "A", "B", "C", "1A", "2B", "3C")
    assert np.allclose(t.X[:, 6:9], t.X[:, :3] + t.X[:, 3:6])
    assert all(np.array_equal(np.sort(t.X[:, 9 + i]), np.sort(t.X[:, 0])) for i in range(11))
    two = make_two_structures(random_state=0)
    assert two.X.shape[1] == two.X_side.shape[1] == two.target.size
    assert not (two.target & two.nuisance).any()


def test_session_signs_are_constant_within_sessions():
    """With tiny noise the clean values keep their sign, so X's sign pattern is the hidden
    state: constant over each block of 8 samples, per feature."""
    data = make_hidden_sessions(1e-6, random_state=0)
    signs = np.sign(data.X).reshape(15, 8, 60)
    assert np.all(signs == signs[:, :1, :])
    assert 0.3 < (signs[:, 0, :] > 0).mean() < 0.7  # the hidden states are random ±1


def test_plots_return_updatable_artists(two):
    import matplotlib.pyplot as plt

    _fig, axes = plt.subplots(1, 3)
    data = make_topographic(random_state=0)
    topo = topographic_map(data.M, 2)
    art = plot_topographic_map(axes[0], topo, feature_names=data.feature_names,
                               groups={"1,2,3": data.first, "A,B,C": data.second})
    assert len(art.ellipses) == 20
    assert len(art.labels) == 20
    widths = np.array([e.width for e in art.ellipses])
    heights = np.array([e.height for e in art.ellipses])
    assert np.allclose(widths / widths.max(), np.clip(topo.relevance[0], 0, None)
                       / np.clip(topo.relevance[0], 0, None).max())
    assert np.allclose(heights / widths.max(), np.clip(topo.relevance[1], 0, None)
                       / np.clip(topo.relevance[0], 0, None).max())
    lines = plot_success_rates(axes[1], [0.01, 0.1], {"kernel": [1.0, 0.5], "squared": [1, 0]})
    assert np.allclose(lines[0].get_ydata(), [1.0, 0.5])
    alpha = q_alpha_side(two.M, two.W, 3).alpha
    bars = plot_alpha_structures(axes[2], alpha, {"target": two.target})
    assert np.allclose([b.get_height() for b in bars], alpha)
    with pytest.raises(ValueError, match="round index"):
        plot_topographic_map(axes[0], topo, rounds=(0, 2))


def test_balanced_pair_accuracy_against_brute_force():
    rng = np.random.default_rng(0)
    y, c = rng.integers(0, 3, 40), rng.integers(0, 4, 40)
    i, j = np.triu_indices(40, 1)
    same, together = y[i] == y[j], c[i] == c[j]
    expected = 0.5 * together[same].mean() + 0.5 * (~together[~same]).mean()
    assert balanced_pair_accuracy(y, c) == pytest.approx(expected)
    assert balanced_pair_accuracy(y, y) == 1.0
    assert balanced_pair_accuracy(y, rng.permutation(3)[y]) == 1.0


def test_uci_score_is_identified_on_the_raw_wine_column():
    """The published raw-data entry for wine (0.7280) is the balanced pair accuracy of
    k-means, each class in turn held out; the matched-label accuracy is far from it."""
    from sklearn.datasets import load_wine

    wine = load_wine()
    res = uci_side_information(wine.data, wine.target, runs=1, pca_dims=(1,))
    assert res["raw"] == pytest.approx(0.7280, abs=0.005)
    assert abs(res["raw_matched"] - 0.7280) > 0.05
    assert res["qalpha_si"] > res["raw"] + 0.15
