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
from spectral_kit.datasets.supervised_suite import (
    HELD_OUT,
    MEAN_SHIFT,
    make_class_shift,
    make_variance_shift,
)
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.qalpha.supervised import (
    DEFAULT_READING,
    READINGS,
    SupervisedModel,
    _rows,
    balanced_rows,
    within_class_test,
)
from spectral_kit.reproduce import REGISTRY
from spectral_kit.reproduce.supervised import FILTERS, cv_accuracy, reading_label, suite_table


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


def _balanced_split(M: np.ndarray, y: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """W and B of the balanced reading, by loops: sample weights q/(c·qˡ), centre at the
    average of the class means, unit rows, then the split of ``_split``."""
    classes = np.unique(y)
    q, c = y.size, classes.size
    W = np.zeros(M.shape)
    B = np.zeros((M.shape[0], c))
    for i, row in enumerate(M):
        centre = np.mean([row[y == cl].mean() for cl in classes])
        weights = np.array([q / (c * np.sum(y == y[a])) for a in range(q)])
        r = (row - centre) * np.sqrt(weights)
        r /= np.sqrt(np.sum(r**2))
        for col, cl in enumerate(classes):
            cols = np.flatnonzero(y == cl)
            B[i, col] = np.sqrt(cols.size) * r[cols].mean()
            W[i, cols] = r[cols] - r[cols].mean()
    return W, B


def _dense_calG(W, B, y, Q, gamma, *, within=True):
    """𝒢 of the class-means reading written out from its definition, entry by entry."""
    classes = np.unique(y)
    blocks = [W[:, y == c] for c in classes]
    n = W.shape[0]
    G = np.zeros((n, n))
    for g in range(classes.size if within else 0):
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
@pytest.mark.parametrize(("reading", "sizes"), [("class-means", [8, 10, 12]),
                                              ("balanced", [20, 7, 3])])
def test_rows_split_each_unit_row_exactly(reading, sizes):
    rng = np.random.default_rng(0)
    M = rng.standard_normal((7, 30)) * rng.uniform(0.5, 3, size=(7, 1)) + 7.0
    y = np.repeat([2, 5, 9], sizes)
    W, _labels, B = _rows(M, y, reading)
    W_ref, B_ref = (_split if reading == "class-means" else _balanced_split)(M, y)
    np.testing.assert_allclose(W, W_ref, atol=1e-12)
    np.testing.assert_allclose(B, B_ref, atol=1e-12)
    # ‖bᵢ‖² + ‖wᵢ‖² = 1: the class-mean part of row i has squared norm ‖Bᵢ‖².
    np.testing.assert_allclose((W**2).sum(axis=1) + (B**2).sum(axis=1), 1.0, atol=1e-12)


@pytest.mark.parametrize("method", ["power", "basic"])
def test_alpha_is_leading_eigenvector_of_dense_calG(method):
    data = make_mean_shift(3, n_per_class=8, n_features=9, n_relevant=3, random_state=4)
    gamma = 0.5
    res = q_alpha_supervised(data.M, data.y, reading="class-means", gamma=gamma,
                             method=method, max_iter=50)
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


# -- the balanced reading (default) against its definition --------------------------------
def test_balanced_rows_weight_every_class_equally():
    rng = np.random.default_rng(5)
    M = rng.standard_normal((6, 40)) * rng.uniform(0.5, 3, size=(6, 1)) + 7.0
    y = np.repeat([3, 8, 9], [30, 7, 3])
    W, B = balanced_rows(preprocess_rows(M), y)
    # Centred at the average of the class means: every column of B is √(q/c) × a class
    # mean, so the rows of B sum to zero whatever the class sizes.
    np.testing.assert_allclose(B.sum(axis=1), 0.0, atol=1e-12)
    # Only the labels' partition matters, not their values.
    W2, B2 = balanced_rows(preprocess_rows(M), np.repeat([0, 1, 2], [30, 7, 3]))
    np.testing.assert_allclose(W2, W, atol=1e-12)
    np.testing.assert_allclose(B2, B, atol=1e-12)


def test_balanced_reading_is_dense_calG_with_neutral_gamma():
    """With the within-class terms kept, α is the leading eigenvector of 𝒢 on the balanced
    rows with γ = 1/(c − 1) and k^{gh} = k_within for every block."""
    data = make_class_shift((12, 9, 5), n_features=8, n_relevant=3, random_state=2)
    res = q_alpha_supervised(data.M, data.y, n_permutations=0, max_iter=60)
    assert "within_class_test" not in res.extra
    W, B = _balanced_split(data.M, data.y)
    assert all(Q.shape[1] == min(2, np.sum(data.y == h)) for (_g, h), Q in res.Q.items())
    G = _dense_calG(W, B, data.y, res.Q, 0.5)
    v = np.linalg.eigh(G)[1][:, -1]
    np.testing.assert_allclose(res.alpha, v * np.sign(v.sum()), atol=1e-8)
    assert res.objective[-1] == pytest.approx(
        _criterion(W, B, data.y, res.Q, res.alpha, 0.5), rel=1e-9)


def test_without_within_terms_two_classes_rank_by_between_class_share():
    """The class-mean terms alone are rank one for two classes: α ∝ each feature's share of
    (class-balanced) variance between the classes, ``(Δ/2)² / ((Δ/2)² + (v₀ + v₁)/2)``."""
    rng = np.random.default_rng(8)
    y = np.repeat([0, 1], [40, 9])
    X = rng.standard_normal((49, 12)) * rng.uniform(0.5, 2, size=12)
    X[y == 1, :4] += [0.5, 1.0, 2.0, 3.0]
    W, B = balanced_rows(preprocess_rows(X.T), y)
    model = SupervisedModel(W, y, 2, 2, 1.0, means=B, within=False)
    assert model.pairs == [] and model.eigen_step(np.ones(12), {}) == {}
    delta = X[y == 1].mean(axis=0) - X[y == 0].mean(axis=0)
    v = (X[y == 0].var(axis=0) + X[y == 1].var(axis=0)) / 2
    share = (delta / 2) ** 2 / ((delta / 2) ** 2 + v)
    np.testing.assert_allclose((B**2).sum(axis=1), share, rtol=1e-10)
    G = model.alpha_operator({}, np.ones(12)).dense()
    np.testing.assert_allclose(G, 1.5 * np.outer(share, share), atol=1e-12)


@pytest.mark.parametrize("sizes", [(50, 50), (50, 50, 50, 50, 15)])
def test_between_class_share_when_the_test_rejects(sizes):
    """No within-class terms: α ∝ η (each feature's between-class share), the class-mean
    terms' leading eigenvector for two classes; with five classes that eigenvector favours
    the features of one class, η does not."""
    data = make_class_shift(sizes, n_features=40, n_relevant=10, shift=1.25, random_state=1)
    res = q_alpha_supervised(data.M, data.y, random_state=0)
    test = res.extra["within_class_test"]
    assert not test.kept and res.Q == {} and res.n_iter == 1 and res.converged
    W, B = _balanced_split(data.M, data.y)
    share = (B**2).sum(axis=1)
    np.testing.assert_allclose(res.alpha, share / np.linalg.norm(share), atol=1e-12)
    G = _dense_calG(W, B, data.y, {}, 1.0, within=False)
    assert res.eigenvalue == pytest.approx(res.alpha @ G @ res.alpha, rel=1e-12)
    np.testing.assert_allclose(res.objective, [res.eigenvalue], rtol=1e-12)
    uniform = np.full(share.size, 1 / np.sqrt(share.size))
    np.testing.assert_allclose(res.alpha_change, [1 - abs(res.alpha @ uniform)], atol=1e-12)
    lead = np.linalg.eigh(G)[1][:, -1]
    lead *= np.sign(lead.sum())
    if len(sizes) == 2:
        np.testing.assert_allclose(res.alpha, lead, atol=1e-10)
    else:
        by_class = [np.abs(lead[c:10:len(sizes)]).sum() for c in range(len(sizes))]
        assert max(by_class) > 2 * np.median(by_class)
        assert set(res.top_features(10)) == set(range(10))


def test_shared_structure_cancels_and_one_feature_scores_its_variance_spread():
    """γ = 1/(c − 1): a within-class structure that every class shares adds nothing; for one
    feature the within-class terms are c²/(c − 1) × the variance over classes of its
    within-class energies ‖wˡ‖²."""
    rng = np.random.default_rng(4)
    base = rng.standard_normal((5, 10))
    base -= base.mean(axis=1, keepdims=True)
    shifts = rng.standard_normal((5, 3))
    M = np.hstack([base + shifts[:, [c]] for c in range(3)])   # classes differ in means only
    y = np.repeat([0, 1, 2], 10)
    W, B = balanced_rows(preprocess_rows(M), y)
    model = SupervisedModel(W, y, 2, 2, 0.5, means=B)
    alpha = rng.standard_normal(5)
    Q = model.eigen_step(alpha, {})
    C = B.T @ (alpha[:, None] * B)
    assert model.objective(alpha, Q) == pytest.approx(np.sum(C**2) + np.sum(np.diag(C)**2),
                                                      rel=1e-10)
    for c in (2, 3, 4):
        row = rng.standard_normal((1, 30)) * np.repeat(rng.uniform(0.5, 2, size=6), 5)
        labels = np.repeat(np.arange(c), 30 // c) if 30 % c == 0 else np.arange(30) % c
        Wr, _Br = balanced_rows(preprocess_rows(row), labels)
        single = SupervisedModel(Wr, labels, 1, 1, 1.0 / (c - 1))
        energy = np.array([np.sum(Wr[0, labels == cl] ** 2) for cl in range(c)])
        Qr = single.eigen_step(np.ones(1), {})
        assert single.objective(np.ones(1), Qr) == pytest.approx(
            c**2 / (c - 1) * energy.var(), rel=1e-9, abs=1e-14)


def test_right_singular_vectors_from_the_small_problem_match_svd():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((7, 50))
    y = np.repeat([0, 1], [35, 15])
    model = SupervisedModel(M, y, 3, 2, 0.5)
    alpha = rng.standard_normal(7)
    for g, h in model.pairs:
        A = M[:, y == g].T @ np.diag(alpha) @ M[:, y == h]
        V = np.linalg.svd(A)[2][: model._k(g, h)].T
        Q = model._right_singular(alpha, g, h)
        np.testing.assert_allclose(Q.T @ Q, np.eye(Q.shape[1]), atol=1e-12)
        np.testing.assert_allclose(Q @ Q.T, V @ V.T, atol=1e-9)


def test_within_class_test_is_a_permutation_test():
    data = make_xor(60, n_features=20, random_state=3)
    Mg = preprocess_rows(data.M)
    common = {"k_within": 2, "k_between": 2, "gamma": 1.0}
    test = within_class_test(Mg, data.y, n_permutations=9, rng=np.random.default_rng(1),
                             **common)
    # The null values are the statistic of the relabelled data, drawn in order.
    rng = np.random.default_rng(1)
    for value in test.null[:3]:
        y_perm = rng.permutation(data.y)
        again = within_class_test(Mg, y_perm, n_permutations=1, rng=np.random.default_rng(0),
                                  **common)
        assert again.statistic == pytest.approx(value, rel=1e-6)
    assert test.kept and test.p_value == pytest.approx(0.1)
    assert test.statistic > 2 * np.median(test.null)     # XOR: class-dependent structure
    shift = make_mean_shift(2, random_state=3)
    plain = within_class_test(preprocess_rows(shift.M), shift.y, n_permutations=9,
                              rng=np.random.default_rng(1), **common)
    assert plain.p_value == pytest.approx((1 + np.sum(plain.null >= plain.statistic)) / 10)


def test_balanced_default_finds_rare_classes_and_ignores_shared_clusters():
    """The two failures of the former default: a 90/10 mean shift and correlated label-free
    clusters; the default stays within reach of f_classif on both."""
    for make in (lambda s: make_class_shift((180, 20), random_state=s),
                 lambda s: make_label_and_clusters(n_distractors=20, cluster_shift=1.5,
                                                   random_state=s)):
        ours, former, f = [], [], []
        for seed in range(6):
            data = make(seed)
            n_rel = int(data.relevant.sum())

            def share(a, data=data, n_rel=n_rel):
                return data.relevant[np.argsort(-a, kind="stable")[:n_rel]].mean()

            ours.append(share(q_alpha_supervised(data.M, data.y, random_state=seed).alpha))
            former.append(share(q_alpha_supervised(data.M, data.y, reading="class-means",
                                                   random_state=seed).alpha))
            f.append(share(FILTERS["SelectKBest(f_classif)"](data.X, data.y, 0)))
        assert np.mean(ours) >= np.mean(f) - 0.1
        assert np.mean(former) <= 0.3 < np.mean(ours)


def test_readings_other_than_balanced_keep_the_papers_gamma_and_k_between():
    data = make_mean_shift(3, n_per_class=10, n_features=10, random_state=0)
    a = q_alpha_supervised(data.M, data.y, reading="class-means", random_state=0)
    b = q_alpha_supervised(data.M, data.y, reading="class-means", gamma=0.5, k_between=1,
                           random_state=0)
    np.testing.assert_array_equal(a.alpha, b.alpha)
    assert a.Q[0, 1].shape[1] == 1 and "within_class_test" not in a.extra


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
    with pytest.raises(ValueError, match=r"n_permutations must be.*0 keeps the within-class"):
        q_alpha_supervised(M, [0, 1, 0, 1, 0, 1], n_permutations=-1)
    with pytest.raises(ValueError, match="k_between"):
        q_alpha_supervised(M, [0, 1, 0, 1, 0, 1], k_between=0)


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


def test_class_shift_raises_one_class_per_relevant_feature():
    data = make_class_shift((3000, 3000, 600), n_features=8, n_relevant=6, shift=1.5,
                            random_state=0)
    assert np.bincount(data.y).tolist() == [3000, 3000, 600]
    means = np.stack([data.X[data.y == c].mean(axis=0) for c in range(3)])
    expected = np.zeros((3, 8))
    for j in range(6):
        expected[j % 3, j] = 1.5
    np.testing.assert_allclose(means, expected, atol=0.13)
    assert data.relevant.tolist() == [True] * 6 + [False] * 2
    with pytest.raises(ValueError, match=r"n_relevant = 2 gives some of the 3 classes"):
        make_class_shift((5, 5, 5), n_relevant=2)
    with pytest.raises(ValueError, match="at least two classes"):
        make_class_shift((5,))
    with pytest.raises(TypeError, match="class_sizes must be a sequence"):
        make_class_shift(100)


def test_variance_shift_changes_spread_not_means():
    data = make_variance_shift(20000, n_features=8, n_relevant=3, scale=2.5, random_state=0)
    for c, sd in ((0, 1.0), (1, 2.5)):
        Xc = data.X[data.y == c]
        np.testing.assert_allclose(Xc[:, :3].std(axis=0), sd, rtol=0.03)
        np.testing.assert_allclose(Xc[:, 3:].std(axis=0), 1.0, rtol=0.03)
        assert np.abs(Xc.mean(axis=0)).max() < 0.06
    with pytest.raises(ValueError, match="scale must"):
        make_variance_shift(scale=0.0)


def test_held_out_variants_differ_from_the_suite_and_are_labelled_by_kind():
    suite, held = supervised_suite(0), {n: f(0) for n, f in HELD_OUT.items()}
    assert not {d.X.shape for d in suite.values()} & {d.X.shape for d in held.values()}
    assert set(SUPERVISED_SUITE) | set(HELD_OUT) > MEAN_SHIFT
    for name, make in (SUPERVISED_SUITE | HELD_OUT).items():
        # Welch's |t| between the class means of each relevant feature (the largest over
        # pairs of classes), averaged over 10 draws: large for a mean shift, of order one
        # (chance) for the other kinds.
        t = np.mean([_largest_welch_t(d.X[:, d.relevant], d.y)
                     for d in (make(np.random.default_rng(s)) for s in range(10))], axis=0)
        if name in MEAN_SHIFT:
            assert t.max() > 3, name
        else:
            assert t.max() < 2, name


def _largest_welch_t(X: np.ndarray, y: np.ndarray) -> np.ndarray:
    classes = np.unique(y)
    best = np.zeros(X.shape[1])
    for i, a in enumerate(classes):
        for b in classes[i + 1:]:
            t = stats.ttest_ind(X[y == a], X[y == b], equal_var=False).statistic
            best = np.maximum(best, np.abs(t))
    return best


def test_suite_table_has_a_row_per_problem_and_the_means():
    data = {"problems": ["a", "b", "c (held out)"], "n_suite": 2, "methods": ["m"],
            "mean": {"m": np.array([0.5, 1.0, 0.25])}, "se": {"m": np.array([0.1, 0, 0.05])}}
    lines = suite_table(data).splitlines()
    assert lines[2] == "| a | 0.50 ± 0.10 |" and lines[4] == "| c (held out) | 0.25 ± 0.05 |"
    assert lines[-2:] == ["| mean over the suite | 0.75 |",
                          "| mean over the held-out variants | 0.25 |"]


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


def test_cv_accuracy_ranks_a_feature_constant_on_a_training_fold_last():
    data = make_mean_shift(2, n_per_class=15, n_features=8, n_relevant=2, random_state=0)
    X = data.X.copy()
    X[:, 7] = 0.0
    X[0, 7] = 50.0            # constant on every training fold that leaves sample 0 out
    acc = cv_accuracy(X, data.y, [reading_label(DEFAULT_READING), "SelectKBest(f_classif)"],
                      [2, 7], n_repeats=1)
    for a in acc.values():
        assert a.shape == (2, 1) and np.all((a > 0.5) & (a <= 1.0))


def test_reproductions_are_registered():
    assert "wolf-shashua-2005/supervised-suite" in REGISTRY
    assert "wolf-shashua-2005/supervised-real-data" in REGISTRY


@pytest.mark.slow
def test_suite_reproduction_quick_prefers_the_default():
    rep = REGISTRY["wolf-shashua-2005/supervised-suite"].func(quick=True)
    mean = rep.data["mean"]
    assert rep.data["problems"] == list(SUPERVISED_SUITE) and rep.settings["held_out"] == 0
    readings = [m for m in rep.data["methods"] if m.startswith("Q-α reading=")]
    best = max(readings, key=lambda m: mean[m].mean())
    assert repr(DEFAULT_READING) in best
    assert rep.comparisons[-1].ours == best
    checks = {c.quantity.split(",")[0]: c.note for c in rep.comparisons[-4:-2]}
    assert all(note.endswith("yes") for note in checks.values()), checks


@pytest.mark.slow
def test_real_data_reproduction_quick(real_data):
    real_data("sonar")
    real_data("ionosphere")
    rep = REGISTRY["wolf-shashua-2005/supervised-real-data"].func(quick=True)
    acc = rep.data["accuracy"]
    assert set(acc) == {"sonar", "ionosphere"}
    assert rep.data["methods"][:2] == ["Q-α reading='balanced' (default)",
                                       "Q-α reading='class-means' (former default)"]
    for per_method in acc.values():
        for a in per_method.values():
            assert a.shape == (3, 2) and np.all((a > 0.4) & (a <= 1.0))
