"""Supervised Q-α (Def. 6) and its readings, checked against independent computations."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.feature_selection import SelectKBest, f_classif
from sklearn.model_selection import StratifiedKFold, cross_val_score
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from sklearn.svm import LinearSVC

from spectral_kit import q_alpha_supervised
from spectral_kit.datasets import (
    SUPERVISED_SUITE,
    make_label_and_clusters,
    make_mean_shift,
    make_weston_linear,
    make_xor,
    supervised_suite,
)
from spectral_kit.qalpha.supervised import DEFAULT_READING, READINGS, SupervisedModel, _rows
from spectral_kit.reproduce import REGISTRY
from spectral_kit.reproduce.supervised import FILTERS, cv_accuracy


# -- independent references -------------------------------------------------------------------
def _unit_centred_rows(M: np.ndarray) -> np.ndarray:
    Mc = M - M.mean(axis=1, keepdims=True)
    return Mc / np.sqrt((Mc**2).sum(axis=1, keepdims=True))


def _split(M: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Within-class parts W and class-mean matrix B (column l = √qˡ·class mean), by loops."""
    Mg = _unit_centred_rows(M)
    classes = np.unique(y)
    W = Mg.copy()
    B = np.zeros((M.shape[0], classes.size))
    for col, c in enumerate(classes):
        cols = np.flatnonzero(y == c)
        mean = Mg[:, cols].mean(axis=1)
        W[:, cols] -= mean[:, None]
        B[:, col] = np.sqrt(cols.size) * mean
    return W, B


def _dense_calG(W, B, y, Q, gamma):
    """𝒢 of the class-means reading written out from its definition, entry by entry."""
    classes = np.unique(y)
    blocks = [W[:, y == c] for c in classes]
    n = W.shape[0]
    G = np.zeros((n, n))
    for g in range(classes.size):
        for h in range(classes.size):
            w = 1.0 if g == h else -gamma
            P = blocks[h] @ Q[g, h]
            for i in range(n):
                for j in range(n):
                    G[i, j] += w * (blocks[g][i] @ blocks[g][j]) * (P[i] @ P[j])
    for i in range(n):
        for j in range(n):
            G[i, j] += (B[i] @ B[j]) ** 2 + np.sum(B[i] ** 2 * B[j] ** 2)
    return G


def _criterion(W, B, y, Q, alpha, gamma):
    """Eq. 5 on the within-class parts plus the class-mean energies, from the A^{gh}."""
    classes = np.unique(y)
    blocks = [W[:, y == c] for c in classes]
    total = 0.0
    for g in range(classes.size):
        for h in range(classes.size):
            A = blocks[g].T @ np.diag(alpha) @ blocks[h]
            w = 1.0 if g == h else -gamma
            total += w * np.trace(Q[g, h].T @ A.T @ A @ Q[g, h])
    C = B.T @ np.diag(alpha) @ B
    return total + np.sum(C**2) + np.sum(np.diag(C) ** 2)


# -- the default reading against its definition ----------------------------------------------
def test_class_means_rows_split_each_unit_row_exactly():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((7, 30)) + rng.uniform(-3, 3, size=(7, 1))
    y = np.repeat([2, 5, 9], [8, 10, 12])
    W, _labels, B = _rows(M, y, "class-means")
    W_ref, B_ref = _split(M, y)
    np.testing.assert_allclose(W, W_ref, atol=1e-12)
    np.testing.assert_allclose(B, B_ref, atol=1e-12)
    # ‖bᵢ‖² + ‖wᵢ‖² = 1: the class-mean part of row i has squared norm ‖Bᵢ‖².
    np.testing.assert_allclose((W**2).sum(axis=1) + (B**2).sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("method", ["power", "basic"])
def test_alpha_is_leading_eigenvector_of_dense_calG(method):
    data = make_mean_shift(3, n_per_class=8, n_features=9, n_relevant=3, random_state=4)
    gamma = 0.5
    res = q_alpha_supervised(data.M, data.y, gamma=gamma, method=method, max_iter=50)
    W, B = _split(data.M, data.y)
    G = _dense_calG(W, B, data.y, res.Q, gamma)
    _w, V = np.linalg.eigh(G)
    lead = V[:, -1] * np.sign(V[:, -1].sum())
    np.testing.assert_allclose(res.alpha, lead, atol=1e-8)
    assert res.objective[-1] == pytest.approx(res.alpha @ G @ res.alpha, rel=1e-9)
    assert res.objective[-1] == pytest.approx(
        _criterion(W, B, data.y, res.Q, res.alpha, gamma), rel=1e-9
    )


def test_model_operator_matches_dense_calG_for_any_alpha_and_Q():
    rng = np.random.default_rng(11)
    M = rng.standard_normal((6, 14))
    y = np.repeat([0, 1], 7)
    W, B = _split(M, y)
    model = SupervisedModel(W, y, 2, 1, 0.3, means=B)
    Q = model.initial_subspace("random", 2, rng)
    alpha = rng.standard_normal(6)
    alpha /= np.linalg.norm(alpha)
    G = _dense_calG(W, B, y, Q, 0.3)
    np.testing.assert_allclose(model.alpha_operator(Q, alpha).dense(), G, atol=1e-12)
    v = rng.standard_normal(6)
    np.testing.assert_allclose(model.alpha_operator(Q, alpha).matvec(v), G @ v, atol=1e-12)
    assert model.objective(alpha, Q) == pytest.approx(
        _criterion(W, B, y, Q, alpha, 0.3), rel=1e-10
    )


def test_label_subspace_is_def1_with_class_indicators():
    data = make_mean_shift(2, n_per_class=10, n_features=12, random_state=1)
    res = q_alpha_supervised(data.M, data.y, reading="label-subspace")
    Mg = _unit_centred_rows(data.M)
    Y = np.stack([(data.y == c) / np.sqrt(np.sum(data.y == c)) for c in (0, 1)], axis=1)
    G = (Mg @ Mg.T) * (Mg @ Y @ Y.T @ Mg.T)
    v = np.linalg.eigh(G)[1][:, -1]
    np.testing.assert_allclose(res.alpha, v * np.sign(v.sum()), atol=1e-9)
    # G_ii is each feature's between-class share of variance (SSB / SST).
    X = data.X
    ssb = sum(np.sum(data.y == c) * (X[data.y == c].mean(axis=0) - X.mean(axis=0)) ** 2
              for c in (0, 1))
    np.testing.assert_allclose(np.diag(G), ssb / ((X - X.mean(axis=0)) ** 2).sum(axis=0),
                               rtol=1e-10)


def test_global_reading_is_def6_on_globally_centred_rows():
    data = make_mean_shift(2, n_per_class=9, n_features=8, n_relevant=2, random_state=2)
    res = q_alpha_supervised(data.M, data.y, reading="global", max_iter=50)
    Mg = _unit_centred_rows(data.M)
    blocks = [Mg[:, data.y == c] for c in (0, 1)]
    G = np.zeros((8, 8))
    for g in range(2):
        for h in range(2):
            P = blocks[h] @ res.Q[g, h]
            G += (1.0 if g == h else -0.5) * (blocks[g] @ blocks[g].T) * (P @ P.T)
    v = np.linalg.eigh(G)[1][:, -1]
    np.testing.assert_allclose(res.alpha, v * np.sign(v.sum()), atol=1e-8)


# -- what it selects ------------------------------------------------------------------------
def test_mean_shift_case_regression():
    """Two classes, features 0–4 shifted by ±1.5: the default puts them on top for every
    seed (class centring, which removes class means, does not)."""
    class_hits = []
    for seed in range(5):
        rng = np.random.default_rng(seed)
        y = np.repeat([0, 1], 50)
        X = rng.standard_normal((100, 60))
        X[:, :5] += 1.5 * (2 * y[:, None] - 1)
        a = q_alpha_supervised(X.T, y, random_state=0).alpha
        assert set(np.argsort(-a)[:5]) == set(range(5)), seed
        # The generator draws the same data.
        np.testing.assert_array_equal(make_mean_shift(2, random_state=seed).X, X)
        c = q_alpha_supervised(X.T, y, reading="class", random_state=0).alpha
        class_hits.append(len(set(np.argsort(-c)[:5]) & set(range(5))))
    assert max(class_hits) <= 2


@pytest.mark.parametrize(
    ("make", "n_seeds", "at_least"),
    [
        (lambda s: make_mean_shift(4, n_per_class=25, random_state=s), 4, 0.95),
        (lambda s: make_label_and_clusters(random_state=s), 4, 0.95),
        (lambda s: make_xor(random_state=s), 3, 0.95),
        (lambda s: make_weston_linear(100, random_state=s), 4, 0.8),
    ],
)
def test_default_finds_relevant_features(make, n_seeds, at_least):
    shares = []
    for seed in range(n_seeds):
        data = make(seed)
        n_rel = int(data.relevant.sum())
        a = q_alpha_supervised(data.M, data.y, random_state=0).alpha
        shares.append(data.relevant[np.argsort(-a)[:n_rel]].mean())
    assert np.mean(shares) >= at_least


def test_label_free_clusters_fool_class_centring_not_the_default():
    data = make_label_and_clusters(random_state=3)

    def top(reading):
        return set(np.argsort(-q_alpha_supervised(data.M, data.y, reading=reading).alpha)[:5])

    assert top("class") == set(range(5, 10))           # the stronger, label-free clusters
    assert top(DEFAULT_READING) == set(range(5))


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize("reading", READINGS)
def test_constant_feature_is_reported_as_constant(reading):
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 10))
    M[2] = 3.0
    with pytest.raises(ValueError, match=r"1 constant feature row\(s\) \(row index 2\)"):
        q_alpha_supervised(M, np.repeat([0, 1], 5), reading=reading)


def test_feature_constant_within_classes_is_explained_for_class_reading():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((4, 10))
    y = np.repeat([0, 1], 5)
    M[1] = y * 2.0
    with pytest.raises(ValueError, match=r"constant within every class.*class-means"):
        q_alpha_supervised(M, y, reading="class")
    assert q_alpha_supervised(M, y).top_features(1)[0] == 1


def test_continuous_y_is_rejected():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((5, 40))
    with pytest.raises(ValueError, match=r"looks continuous.*class labels"):
        q_alpha_supervised(M, rng.standard_normal(40))
    # Float labels that are whole numbers are classes.
    q_alpha_supervised(M, np.repeat([0.0, 1.0], 20))


def test_unknown_reading_is_rejected():
    M = np.random.default_rng(0).standard_normal((5, 6))
    with pytest.raises(ValueError, match="reading must be one of"):
        q_alpha_supervised(M, [0, 1, 0, 1, 0, 1], reading="within")


# -- suite generators -------------------------------------------------------------------------
def test_suite_generators_are_seeded_and_shaped():
    a, b = supervised_suite(3), supervised_suite(3)
    assert list(a) == list(SUPERVISED_SUITE)
    for name in a:
        np.testing.assert_array_equal(a[name].X, b[name].X)
        np.testing.assert_array_equal(a[name].y, b[name].y)
        assert a[name].X.shape == (a[name].y.size, a[name].relevant.size)
        assert 2 <= np.unique(a[name].y).size <= 4


def test_xor_has_no_mean_shift_and_mean_shift_has_balanced_splits():
    data = make_xor(20000, random_state=0)
    for c in (0, 1):
        assert np.abs(data.X[data.y == c, :4].mean(axis=0)).max() < 0.1
    # The relevant features' within-class correlation patterns differ between the classes.
    r0 = np.corrcoef(data.X[data.y == 0, :2].T)[0, 1]
    r1 = np.corrcoef(data.X[data.y == 1, :2].T)[0, 1]
    assert r0 > 0.7 and r1 < -0.7
    four = make_mean_shift(4, n_per_class=5000, random_state=1)
    means = np.stack([four.X[four.y == c, :5].mean(axis=0) for c in range(4)])
    np.testing.assert_allclose(np.sort(means, axis=0), [[-1.5] * 5] * 2 + [[1.5] * 5] * 2,
                               atol=0.06)


def test_label_and_clusters_distractors_ignore_y():
    data = make_label_and_clusters(20000, random_state=0)
    shift = data.X[data.y == 1].mean(axis=0) - data.X[data.y == 0].mean(axis=0)
    np.testing.assert_allclose(shift[:5], 2.0, atol=0.06)
    assert np.abs(shift[5:]).max() < 0.1
    assert np.all(data.X[:, 5:10].std(axis=0) > 2.5)     # the distractors' two clusters


# -- the comparison filters and the CV protocol ----------------------------------------------
def test_filters_match_independent_statistics():
    data = make_mean_shift(2, n_per_class=20, n_features=8, random_state=0)
    X, y = data.X, data.y
    f_ref = np.array([stats.f_oneway(X[y == 0, j], X[y == 1, j]).statistic for j in range(8)])
    np.testing.assert_allclose(FILTERS["SelectKBest(f_classif)"](X, y, 0), f_ref, rtol=1e-10)
    r_ref = np.array([abs(np.corrcoef(X[:, j], y)[0, 1]) for j in range(8)])
    np.testing.assert_allclose(FILTERS["Pearson"](X, y, 0), r_ref, rtol=1e-10)
    ks_ref = np.array([stats.ks_2samp(X[y == 0, j], X[y == 1, j]).statistic for j in range(8)])
    np.testing.assert_allclose(FILTERS["KS"](X, y, 0), ks_ref, rtol=1e-12)
    # Fisher's criterion orders the features as the one-way ANOVA F does (F ∝ it).
    fisher = FILTERS["Fisher"](X, y, 0)
    np.testing.assert_allclose(fisher / f_ref, fisher[0] / f_ref[0], rtol=1e-10)


def test_cv_accuracy_is_selection_inside_a_pipeline():
    data = make_weston_linear(60, random_state=5)
    X, y = data.X[:, :30], data.y
    ours = cv_accuracy(X, y, ["SelectKBest(f_classif)"], [5, 10], n_repeats=2, random_state=3)
    for i, k in enumerate([5, 10]):
        for r in range(2):
            pipe = make_pipeline(
                SelectKBest(f_classif, k=k), StandardScaler(),
                LinearSVC(C=1.0, dual="auto", max_iter=20000),
            )
            folds = StratifiedKFold(5, shuffle=True, random_state=3 + r)
            ref = cross_val_score(pipe, X, y, cv=folds).mean()
            assert ours["SelectKBest(f_classif)"][i, r] == pytest.approx(ref, abs=1e-12)


def test_reproductions_are_registered():
    assert "wolf-shashua-2005/supervised-suite" in REGISTRY
    assert "wolf-shashua-2005/supervised-real-data" in REGISTRY


@pytest.mark.slow
def test_suite_reproduction_quick_prefers_the_default():
    rep = REGISTRY["wolf-shashua-2005/supervised-suite"].func(quick=True)
    mean = rep.data["mean"]
    readings = [m for m in rep.data["methods"] if m.startswith("Q-α reading=")]
    best = max(readings, key=lambda m: mean[m].mean())
    assert repr(DEFAULT_READING) in best
    assert rep.comparisons[-1].ours == best


@pytest.mark.slow
def test_real_data_reproduction_quick(real_data):
    real_data("sonar")
    real_data("ionosphere")
    rep = REGISTRY["wolf-shashua-2005/supervised-real-data"].func(quick=True)
    acc = rep.data["accuracy"]
    assert set(acc) == {"sonar", "ionosphere"}
    for per_method in acc.values():
        for a in per_method.values():
            assert a.shape == (3, 2) and np.all((a > 0.4) & (a <= 1.0))
