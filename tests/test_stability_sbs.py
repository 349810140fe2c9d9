"""Algorithm 1 (SbS-LSI / SbS-PCA), the StableSparsePCA transformer and the stability plots."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit.estimators.stability import StableSparsePCA
from spectral_kit.stability import (
    bootstrap_distribution,
    bootstrap_intervals,
    perturbation_matrix,
    resample_subspace_distances,
    retained_fraction,
    sbs,
    sparse_loadings,
    stability_report,
    stable_principal_submatrix,
    stewart_bound,
)


def _planted(n=2000, seed=0):
    """Six features driven by two latent factors, then three heavy-tailed noise features."""
    rng = np.random.default_rng(seed)
    Z = rng.normal(size=(n, 2))
    L = np.array([[3, 0], [3, 0.3], [2.5, 0], [0, 2], [0.2, 2], [0, 2.2]])
    informative = Z @ L.T + 0.3 * rng.normal(size=(n, 6))
    noise = rng.standard_t(2.2, size=(n, 3)) * 1.5
    return np.hstack([informative, noise])


def _naive_algorithm1(A, E, retain):
    """Algorithm 1 without Proposition 1: eigendecompose every submatrix on the path."""
    total = np.trace(A)
    kept = list(range(A.shape[0]))
    removed = []
    while kept:
        sub = np.ix_(kept, kept)
        lam = np.sort(np.linalg.eigvalsh(A[sub]))[::-1]
        lam1_E = np.linalg.eigvalsh(E[sub]).max()
        gaps = lam[:-1] - lam[1:]
        stable = [i + 1 for i in range(gaps.size) if lam1_E > 0 and gaps[i] > 4 * lam1_E]
        frac = np.cumsum(lam) / total
        meeting = [k for k in stable if frac[k - 1] >= retain]
        if meeting:
            return sorted(kept), removed, meeting[0], tuple(stable)
        if len(kept) == 1:
            return None
        worst = int(np.argmax(np.linalg.norm(E[sub], axis=1)))
        removed.append(kept.pop(worst))
    return None


def test_planted_noise_features_are_removed_first():
    X = _planted()
    result = sbs(X, "pca", 0.3, n_resamples=300, random_state=0)
    assert result.found
    assert set(result.removed) == {6, 7, 8}
    np.testing.assert_array_equal(result.kept, np.arange(6))
    assert result.k == 2
    assert result.stable_ks == (1, 2)
    assert result.n_ruled_out >= 1  # Proposition 1 saved eigendecompositions
    assert result.retained == pytest.approx(
        retained_fraction(np.linalg.eigvalsh(result.A[:6, :6]), np.trace(result.A))[1]
    )
    # The stable space is the planted one: loadings vanish on the noise features.
    W = sparse_loadings(result)
    assert W.shape == (9, 2)
    np.testing.assert_array_equal(W[6:], 0.0)
    np.testing.assert_allclose(W.T @ W, np.eye(2), atol=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_algorithm1_matches_the_naive_loop_and_pruning_changes_nothing(seed):
    rng = np.random.default_rng(seed)
    n_features = int(rng.integers(4, 10))
    latent = rng.normal(size=(300, 2))
    X = latent @ rng.normal(size=(2, n_features)) * rng.uniform(0.5, 3, n_features)
    X += rng.standard_t(3, size=(300, n_features)) * rng.uniform(0.2, 2, n_features)
    iv = bootstrap_intervals(X, "covariance", "bca", 200, 0.9, seed)
    E = perturbation_matrix(iv.estimate, iv.lower, iv.upper)
    for retain in (0.1, 0.4, 0.7):
        pruned = stable_principal_submatrix(iv.estimate, E, retain)
        plain = stable_principal_submatrix(iv.estimate, E, retain, prune=False)
        naive = _naive_algorithm1(iv.estimate, E, retain)
        assert pruned.found == plain.found == (naive is not None)
        np.testing.assert_array_equal(pruned.kept, plain.kept)
        assert pruned.stable_ks == plain.stable_ks
        assert plain.n_ruled_out == 0
        assert pruned.n_eigendecompositions + pruned.n_ruled_out == plain.n_eigendecompositions
        if naive is not None:
            kept, removed, k, stable = naive
            np.testing.assert_array_equal(pruned.kept, kept)
            np.testing.assert_array_equal(pruned.removed, removed)
            assert (pruned.k, pruned.stable_ks) == (k, stable)


def test_trajectory_records_gaps_and_threshold_at_every_step():
    X = _planted(n=800, seed=1)
    result = sbs(X, "pca", 0.3, n_resamples=200, random_state=0)
    steps = result.trajectory
    assert steps[0].removed_feature is None
    assert [s.removed_feature for s in steps[1:]] == list(result.removed)
    assert [s.n_features for s in steps] == list(range(9, 9 - len(steps), -1))
    for s in steps:
        idx = np.setdiff1d(np.arange(9), result.removed[: 9 - s.n_features])
        lam_E = np.linalg.eigvalsh(result.E[np.ix_(idx, idx)]).max()
        assert s.threshold == pytest.approx(4 * lam_E)
        lam = np.sort(np.linalg.eigvalsh(result.A[np.ix_(idx, idx)]))[::-1]
        np.testing.assert_allclose(s.eigengaps, lam[:-1] - lam[1:], atol=1e-10)
        assert s.ruled_out != s.eigendecomposed
    lean = sbs(X, "pca", 0.3, intervals=result.intervals, full_trajectory=False)
    assert all((s.eigenvalues is None) == s.ruled_out for s in lean.trajectory)
    np.testing.assert_array_equal(lean.kept, result.kept)


def test_stops_when_retain_is_out_of_reach():
    X = _planted(n=500, seed=2)
    result = sbs(X, "pca", 0.99, n_resamples=100, random_state=0)
    assert not result.found
    assert result.k is None
    assert result.stopped == "retain unreachable"
    with pytest.raises(ValueError, match=r"result\.k is None"):
        sparse_loadings(result)


def test_lsi_variant_uses_cosine_and_frobenius_reading():
    X = np.abs(_planted(n=500, seed=3))
    result = sbs(X, "lsi", 0.3, n_resamples=100, random_state=0)
    assert result.intervals.statistic == "cosine"
    assert result.total == pytest.approx(9.0)  # trace of a cosine matrix = number of features
    root = sbs(X, "lsi", 0.3, criterion="frobenius", intervals=result.intervals)
    step = root.trajectory[0]
    np.testing.assert_allclose(step.retained ** 2, result.trajectory[0].retained)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"variant": "svd"}, "variant"),
        ({"retain": 0.0}, "retain"),
        ({"retain": 33}, "retain"),
        ({"criterion": "energy"}, "criterion"),
        ({"confidence": 1.0}, "confidence"),
        ({"n_resamples": 1}, "n_resamples"),
    ],
)
def test_sbs_bad_arguments(kwargs, match):
    X = _planted(n=50)
    with pytest.raises(ValueError, match=match):
        sbs(X, **{"n_resamples": 20, **kwargs})


def test_sbs_rejects_mismatched_or_negative_inputs():
    X = _planted(n=60)
    iv = bootstrap_intervals(X, "covariance", "percentile", 20, 0.9, 0)
    with pytest.raises(ValueError, match="variant='lsi' needs the cosine"):
        sbs(X, "lsi", intervals=iv)
    with pytest.raises(ValueError, match="non-negative"):
        stable_principal_submatrix(iv.estimate, -np.eye(9), 0.5)
    X[:, 4] = 1.0
    with pytest.raises(ValueError, match="constant feature"):
        sbs(X, "pca", n_resamples=20)


def test_sbs_does_not_modify_its_inputs():
    X = _planted(n=200)
    X0 = X.copy()
    result = sbs(X, "pca", 0.3, n_resamples=50, random_state=0)
    np.testing.assert_array_equal(X, X0)
    A, E = result.A.copy(), result.E.copy()
    stable_principal_submatrix(result.A, result.E, 0.3)
    np.testing.assert_array_equal(result.A, A)
    np.testing.assert_array_equal(result.E, E)


def test_stability_report_matches_its_parts():
    X = _planted(n=1500, seed=5)[:, :6]
    dist = bootstrap_distribution(X, "covariance", 200, 0)
    for confidence in (0.5, 0.9):
        report = stability_report(dist, confidence)
        iv = bootstrap_intervals(X, "covariance", "bca", 200, confidence, 0)
        E = perturbation_matrix(iv.estimate, iv.lower, iv.upper)
        np.testing.assert_allclose(report.E, E, rtol=1e-12, atol=1e-14)
        assert report.threshold == pytest.approx(4 * np.linalg.eigvalsh(E).max())
        for k in range(1, 6):
            direct = stewart_bound(iv.estimate, E, k)
            assert bool(report.stewart[k - 1]) == bool(direct)
            assert report.stewart[k - 1].delta == pytest.approx(direct.delta)
        assert report.stable_ks == tuple(
            int(k) for k in report.ks[report.eigengaps > report.threshold]
        )
        assert np.isnan(report.uniform_bounds).sum() == 5 - len(report.stable_ks)
    # Resamples whose perturbation is no larger than ‖E‖₂ obey the uniform bound.
    report = stability_report(dist, 0.5)
    mats = dist.matrices()
    ks = list(report.ks)
    observed = resample_subspace_distances(dist.estimate, mats, ks)
    np.testing.assert_allclose(observed[:, 1], resample_subspace_distances(dist.estimate, mats, 2))
    small = np.linalg.norm(mats - dist.estimate, 2, axis=(1, 2)) <= report.eigenvalues_E[0]
    assert small.sum() > 20
    for j, bound in enumerate(report.uniform_bounds):
        if np.isfinite(bound):
            assert np.all(observed[small, j] <= bound + 1e-12)


def test_resampled_distances_respect_stewart_when_it_applies():
    """Each resample's own perturbation E_b = A*_b − A: Stewart's bound covers its distance."""
    X = _planted(n=1500, seed=4)[:, :6]
    dist = bootstrap_distribution(X, "covariance", 100, 0)
    mats = dist.matrices()
    observed = resample_subspace_distances(dist.estimate, mats, 2)
    covered = 0
    for b in range(mats.shape[0]):
        bound = stewart_bound(dist.estimate, mats[b] - dist.estimate, 2)
        if bound:
            covered += 1
            assert observed[b] <= bound.bound + 1e-12
    assert covered > 50


# --- the scikit-learn transformer -------------------------------------------------------------


@parametrize_with_checks([StableSparsePCA(n_resamples=200),
                          StableSparsePCA(variant="lsi", n_resamples=200)])
def test_sklearn_compatible(estimator, check):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # tiny check data: no stable subspace
        check(estimator)


def test_transformer_projects_on_sparse_loadings():
    X = _planted()
    model = StableSparsePCA(retain=0.3, n_resamples=300, random_state=0).fit(X)
    assert model.found_
    assert model.n_components_ == 2
    np.testing.assert_array_equal(model.support_, np.arange(9) < 6)
    np.testing.assert_array_equal(model.components_[:, 6:], 0.0)
    Y = model.transform(X)
    np.testing.assert_allclose(Y, (X - X.mean(axis=0)) @ model.components_.T)
    # On the kept features the loadings are ordinary PCA's leading directions.
    cov = np.cov(X[:, :6], rowvar=False)
    _w, V = np.linalg.eigh(cov)
    np.testing.assert_allclose(np.abs(model.components_[:, :6] @ V[:, ::-1][:, :2]),
                               np.eye(2), atol=1e-10)
    assert list(model.get_feature_names_out()) == ["stablesparsepca0", "stablesparsepca1"]


def test_transformer_falls_back_with_a_warning():
    X = np.random.default_rng(0).normal(size=(30, 4))
    X0 = X.copy()
    with pytest.warns(UserWarning, match=r"Nothing found: stability failed.*Falling back"):
        model = StableSparsePCA(retain=0.99, n_resamples=100, random_state=0).fit(X)
    assert not model.found_
    assert model.transform(X).shape == (30, model.n_components_)
    np.testing.assert_array_equal(X, X0)


# --- plots ------------------------------------------------------------------------------------


def test_plots_draw_and_update_in_place():
    import matplotlib.pyplot as plt

    from spectral_kit.plots import (
        plot_bootstrap_histogram,
        plot_eigengaps,
        plot_interval_widths,
        plot_sbs_trajectory,
        plot_stewart_bound,
    )

    X = _planted(n=600)
    dist = bootstrap_distribution(X, "covariance", 100, 0)
    iv = dist.intervals(0.9)
    E = perturbation_matrix(iv.estimate, iv.lower, iv.upper)
    lam = np.sort(np.linalg.eigvalsh(iv.estimate))[::-1]
    thr = 4 * np.linalg.eigvalsh(E).max()
    fig, axes = plt.subplots(2, 3)

    gaps = plot_eigengaps(axes[0, 0], lam, thr)
    heights = [r.get_height() for r in gaps.bars]
    np.testing.assert_allclose(heights, lam[:-1] - lam[1:])
    gaps.update(lam[:5] * 2, thr, stable_ks=[1])
    assert len(gaps.bars) == 4
    np.testing.assert_allclose([r.get_height() for r in gaps.bars], 2 * (lam[:4] - lam[1:5]))
    assert gaps.threshold.get_ydata()[0] == thr

    ks = np.arange(1, 4)
    bounds = [stewart_bound(iv.estimate, E, k).bound for k in ks]
    observed = np.column_stack(
        [resample_subspace_distances(iv.estimate, dist.matrices(), k) for k in ks]
    )
    stewart = plot_stewart_bound(axes[0, 1], ks, bounds, observed)
    np.testing.assert_allclose(stewart.worst.get_ydata(), observed.max(axis=0))
    assert stewart.observed.get_offsets().shape == (observed.size, 2)

    widths = plot_interval_widths(axes[0, 2], iv.lower, iv.upper)
    narrow = dist.intervals(0.5)
    widths.update(narrow.lower, narrow.upper)
    np.testing.assert_allclose(widths.image.get_array(), narrow.width)

    result = sbs(X, "pca", 0.3, intervals=iv)
    trajectory = plot_sbs_trajectory(axes[1, 0], result)
    assert len(trajectory.gap.get_xdata()) == len(result.trajectory)

    hist = plot_bootstrap_histogram(axes[1, 1], dist.values[:, 1], iv.estimate[0, 1],
                                    iv.lower[0, 1], iv.upper[0, 1])
    assert sum(r.get_height() for r in hist.bars) == 100
    hist.update(dist.values[:50, 1], 0.0, -1.0, 1.0)
    assert sum(r.get_height() for r in hist.bars) <= 50
    assert hist.lower.get_xdata()[0] == -1.0
    plt.close(fig)


# --- the published experiments (real data) ----------------------------------------------------


@pytest.mark.slow
def test_uci_reproduction_quick(real_data):
    real_data("segmentation")
    real_data("ionosphere")
    real_data("spambase")
    from spectral_kit.reproduce.stability import sbs_uci

    rep = sbs_uci(quick=True)
    verdicts = {c.quantity: c.leaning or c.verdict for c in rep.comparisons}  # quick: leaning
    assert verdicts["segmentation SbS-LSI a ≥ 45%: features removed"] == "reproduced"
    assert verdicts["segmentation SbS-LSI a ≥ 45%: stable k (chosen k)"] == "reproduced"
    assert verdicts["ionosphere SbS-LSI a ≥ 33%: stable k (chosen k)"] == "reproduced"
    assert all(c.note for c in rep.comparisons if c.verdict == "differs"
               and "features removed" in c.quantity)
