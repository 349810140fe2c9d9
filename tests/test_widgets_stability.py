"""StabilityExplorer headless: every slider swept, the artists checked against independent
computations (NumPy covariances, SciPy principal angles, closed forms), the caches, the
progressive path, errors surfaced; and its data generator and perturbation plot."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import scipy.linalg
from matplotlib.colors import to_rgba

from spectral_kit.plots import plot_perturbation_distances
from spectral_kit.plots.stability import STABLE_COLOR
from spectral_kit.stability import (
    bootstrap_intervals,
    perturbation_matrix,
    resample_indices,
)
from spectral_kit.widgets import StabilityExplorer
from spectral_kit.widgets.stability import make_grouped_factors

B = 100  # resamples of the explorers under test (the default is 200)


@pytest.fixture
def explorer():
    # One per test: conftest closes every pyplot figure after each test, which leaves a
    # shared explorer with a canvas that cannot blit.
    exp = StabilityExplorer(n_resamples=B)
    yield exp
    exp.close()


def _sweep_values(control, count: int = 5):
    values = np.linspace(control.min, control.max, count)
    return [type(control.value)(v) for v in values]


def _closed_form_bound(gap: float, eps: float) -> float:
    """Stewart's theorem with ‖F₁₁‖, ‖F₂₂‖, ‖F₁₂‖, ‖F₂₁‖ ≤ ε: dist ≤ 2ε/(gap − 2ε), gap > 4ε."""
    return 2 * eps / (gap - 2 * eps) if gap > 4 * eps else np.nan


def _top_space_distance(A: np.ndarray, A2: np.ndarray, k: int) -> float:
    """sin of the largest principal angle between the top-k eigenvector spaces (SciPy)."""
    p = A.shape[0]
    V = np.linalg.eigh(A)[1][:, p - k:]
    W = np.linalg.eigh(A2)[1][:, p - k:]
    return float(np.sin(scipy.linalg.subspace_angles(V, W).max()))


# --- the data ---------------------------------------------------------------------------------


def test_grouped_factors_structure_and_population_covariance():
    d = make_grouped_factors(20000, 8, 3, 0.5, random_state=1)
    assert d.X.shape == (20000, 8) and d.M.shape == (8, 20000)
    np.testing.assert_array_equal(d.groups, [0, 0, 0, 1, 1, 1, 2, 2])
    np.testing.assert_array_equal(d.group_sizes, [3, 3, 2])
    same = d.groups[:, None] == d.groups[None, :]
    np.testing.assert_array_equal(d.covariance, same + 0.25 * np.eye(8))
    np.testing.assert_allclose(d.population_eigenvalues,
                               np.sort(np.linalg.eigvalsh(d.covariance))[::-1], atol=1e-12)
    # the sample covariance converges to Σ (entries have sd ≈ √(2/n) ≈ 0.01)
    np.testing.assert_allclose(np.cov(d.X, rowvar=False), d.covariance, atol=0.06)
    # the top-3 eigenvector space of Σ is spanned by the group indicators
    indicators = np.stack([d.groups == g for g in range(3)], axis=1).astype(float)
    top = np.linalg.eigh(d.covariance)[1][:, -3:]
    assert np.sin(scipy.linalg.subspace_angles(top, indicators).max()) < 1e-10


def test_grouped_factors_are_nested_in_n_and_continuous_in_sigma():
    small = make_grouped_factors(50, 8, 2, 0.3, random_state=4)
    large = make_grouped_factors(400, 8, 2, 0.3, random_state=4)
    np.testing.assert_array_equal(small.X, large.X[:50])
    noiseless = make_grouped_factors(50, 8, 2, 0.0, random_state=4)
    # σ only scales the same noise draws
    np.testing.assert_allclose((small.X - noiseless.X) / 0.3,
                               (make_grouped_factors(50, 8, 2, 1.0, random_state=4).X
                                - noiseless.X), atol=1e-12)
    # without noise the features of a group are identical
    np.testing.assert_array_equal(noiseless.X[:, 0], noiseless.X[:, 3])


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"n_samples": 2}, "n_samples"),
        ({"n_features": 1}, "n_features"),
        ({"n_clusters": 9}, "n_clusters"),
        ({"n_clusters": 0}, "n_clusters"),
        ({"sigma": -0.1}, "sigma"),
        ({"sigma": float("nan")}, "sigma"),
    ],
)
def test_grouped_factors_bad_arguments(kwargs, match):
    with pytest.raises(ValueError, match=match):
        make_grouped_factors(**kwargs)


# --- the explorer -----------------------------------------------------------------------------


def test_every_slider_swept_without_error(explorer):
    for name, control in explorer.controls.items():
        start = control.value
        for value in _sweep_values(control):
            before = len(explorer.latencies)
            explorer.update(**{name: value})
            assert len(explorer.latencies) == before + 1
            assert not explorer.errors, explorer.errors[-1]
            assert explorer._pending is None
        explorer.update(**{name: start})
    assert "stable k" in explorer.status.value


def test_spectrum_threshold_and_stable_ks_match_the_library(explorer):
    explorer.update(n_samples=600, sigma=0.3, n_clusters=2, k=2, confidence=0.9)
    d = make_grouped_factors(600, 8, 2, 0.3, random_state=0)
    A = np.cov(d.X, rowvar=False)
    lam = np.sort(np.linalg.eigvalsh(A))[::-1]
    gaps = lam[:-1] - lam[1:]
    # the left panel is in units of λ₁
    heights = np.array([r.get_height() for r in explorer.eigengaps.bars])
    np.testing.assert_allclose(heights * lam[0], gaps, rtol=1e-9, atol=1e-12)
    # E from the one-shot interval routine with the same seed: the cached distribution path
    # of the explorer must give the same threshold 4·λ₁(E).
    iv = bootstrap_intervals(d.X, "covariance", "bca", B, 0.9, 0)
    E = perturbation_matrix(iv.estimate, iv.lower, iv.upper)
    threshold = 4 * np.linalg.eigvalsh(E).max()
    drawn = explorer.eigengaps.threshold.get_ydata()[0] * lam[0]
    assert drawn == pytest.approx(threshold, rel=1e-9)
    assert explorer.threshold_text.get_text() == ""  # the line shows it
    stable = gaps > threshold
    green = np.array([r.get_facecolor() == to_rgba(STABLE_COLOR)
                      for r in explorer.eigengaps.bars])
    np.testing.assert_array_equal(green, stable)
    assert stable[1] and not stable[0]  # two equal-size groups: the 2-space, not k = 1
    assert explorer.state["report"].stable_ks == tuple(np.flatnonzero(stable) + 1)
    # the chosen k is outlined
    widths = [r.get_linewidth() for r in explorer.eigengaps.bars]
    assert widths[1] > 0 and all(w == 0 for i, w in enumerate(widths) if i != 1)


def test_stewart_panel_matches_independent_resamples_and_closed_form(explorer):
    explorer.update(n_samples=400, sigma=0.3, n_clusters=2, k=2, confidence=0.9)
    state = explorer.state
    d, rep = state["data"], state["report"]
    A = np.cov(d.X, rowvar=False)
    lam = np.sort(np.linalg.eigvalsh(A))[::-1]
    eps = float(np.linalg.eigvalsh(rep.E).max())
    expected = [_closed_form_bound(lam[k - 1] - lam[k], eps) for k in range(1, 8)]
    drawn = explorer.stewart.bound.get_ydata()
    np.testing.assert_allclose(drawn, np.minimum(expected, 1.0), rtol=1e-9, equal_nan=True)
    # observed distances: recompute a few resamples from their indices with NumPy + SciPy
    idx = resample_indices(400, B, 0)
    ys = explorer.stewart.observed.get_offsets()[:, 1].reshape(B, 7)
    for b in range(0, B, 17):
        A_b = np.cov(d.X[idx[b]], rowvar=False)
        for k in (1, 2, 3):
            assert ys[b, k - 1] == pytest.approx(_top_space_distance(A, A_b, k), abs=1e-7)
    np.testing.assert_allclose(explorer.stewart.worst.get_ydata(), ys.max(axis=0))
    assert explorer.k_marker.get_x() == pytest.approx(1.5)


def test_perturbation_panel_obeys_stewarts_theorem(explorer):
    explorer.update(n_samples=800, sigma=0.3, n_clusters=2, k=2, confidence=0.9)
    state = explorer.state
    d, rep = state["data"], state["report"]
    A = np.cov(d.X, rowvar=False)
    idx = resample_indices(800, B, 0)
    norms = np.array([np.linalg.norm(np.cov(d.X[i], rowvar=False) - A, 2) for i in idx])
    lam = np.sort(np.linalg.eigvalsh(A))[::-1]
    gap = lam[1] - lam[2]
    # ε is drawn in units of the eigengap at k: u = ε / gap
    xy = explorer.perturbation.points.get_offsets()
    np.testing.assert_allclose(xy[:, 0] * gap, norms, rtol=1e-8)
    np.testing.assert_allclose(xy[:, 1], state["distances"][:, 1])
    u_curve, bound_curve = explorer.perturbation.curve.get_data()
    inner = u_curve < 1 / 4
    assert inner.sum() > 40 and u_curve[inner].max() == pytest.approx(1 / 4, rel=0.05)
    # Stewart's bound 2ε/(gap − 2ε) at ε = u·gap
    eps = u_curve[inner] * gap
    np.testing.assert_allclose(bound_curve[inner], 2 * eps / (gap - 2 * eps), rtol=1e-9)
    assert explorer.perturbation.limit.get_xdata()[0] == pytest.approx(1 / 4)
    norm_E = float(np.linalg.eigvalsh(rep.E).max())
    assert explorer.perturbation.norm_E.get_xdata()[0] * gap == pytest.approx(norm_E)
    # every resample the theorem covers (ε < gap/4) moved less than its bound
    covered = norms < gap / 4
    assert covered.sum() > B // 2
    allowed = 2 * norms[covered] / (gap - 2 * norms[covered])
    assert np.all(xy[covered, 1] <= allowed + 1e-12)
    # the star is Theorem 1 for A + E itself
    star = explorer.perturbation.stewart_E.get_ydata()
    assert star[0] == pytest.approx(min(rep.stewart[1].bound, 1.0))
    assert explorer.k_text.get_text() == "$k = 2$: stable"
    explorer.update(k=1)  # two tied eigenvalues: k = 1 has no guarantee
    assert explorer.k_text.get_text().startswith("$k = 1$: not stable")
    assert np.isnan(explorer.stewart.bound.get_ydata()[0])


def test_every_slider_move_is_blitted(explorer):
    full_draws = []
    cid = explorer.figure.canvas.mpl_connect("draw_event", full_draws.append)
    try:
        explorer.update(n_samples=600, sigma=0.3, n_clusters=2, k=2, confidence=0.9)
        full_draws.clear()  # the first move after construction may lay the figure out
        for name, control in explorer.controls.items():
            start = control.value
            for value in _sweep_values(control, 3):
                explorer.update(**{name: value})
            explorer.update(**{name: start})
        # the extremes too: a threshold above the left panel, resamples beyond the right one
        explorer.update(n_samples=20, sigma=2.0, k=1)
        explorer.update(n_samples=600, sigma=0.3, k=2)
        assert full_draws == []
    finally:
        explorer.figure.canvas.mpl_disconnect(cid)


def test_what_lies_beyond_the_fixed_limits_is_said(explorer):
    explorer.update(n_samples=20, sigma=2.0, n_clusters=2, k=1, confidence=0.9)
    state = explorer.state
    rep = state["report"]
    A = np.cov(state["data"].X, rowvar=False)
    lam = np.sort(np.linalg.eigvalsh(A))[::-1]
    threshold = 4 * np.linalg.eigvalsh(rep.E).max()
    top = explorer.eigengaps.ax.get_ylim()[1]
    assert threshold / lam[0] > top
    # the line sits just inside the top edge; its value is written out
    assert 0.98 * top < explorer.eigengaps.threshold.get_ydata()[0] < top
    assert explorer.threshold_text.get_text() == (
        rf"$4\Vert E\Vert_2 = {threshold / lam[0]:.2g}\,\lambda_1$ (above)")
    assert "drawn at the top of the left panel" in explorer.status.value
    gap = lam[0] - lam[1]
    norm_E = threshold / 4
    assert norm_E / gap > explorer.perturbation_range  # the dashed line is off the panel too
    # the title stays short; where ‖E‖₂ lies is written inside the panel, above the count
    assert explorer.k_text.get_text() == "$k = 1$: not stable"
    ratio = norm_E / gap
    shown = f"{ratio:.0f}" if ratio >= 100 else f"{ratio:.2g}"
    beyond = int(np.sum(state["perturbation_norms"] > explorer.perturbation_range * gap))
    assert beyond > 0
    assert explorer.beyond_text.get_text() == (
        rf"$\Vert E\Vert_2 = {shown}\,$gap →" + f"\n{beyond} of {B} resamples beyond →")
    assert f"{beyond} lie right of the right panel" in explorer.status.value
    explorer.update(n_samples=2000, sigma=0.3, k=2)
    assert explorer.eigengaps.threshold.get_ydata()[0] < 0.5
    assert explorer.threshold_text.get_text() == ""
    assert explorer.beyond_text.get_text() == ""


def test_caches_recompute_only_what_a_slider_changed(explorer):
    explorer.update(n_samples=300, sigma=0.45, n_clusters=3, k=3, confidence=0.9)
    before = dict(explorer.computations)
    explorer.update(confidence=0.7)
    after = explorer.computations
    assert after["resamples"] == before["resamples"]
    assert after["distances"] == before["distances"]
    assert after["reports"] == before["reports"] + 1
    explorer.update(k=1)
    explorer.update(k=3, confidence=0.9)  # back to a cached state: nothing new
    assert explorer.computations == {**before, "reports": before["reports"] + 1}
    narrow = explorer.state["report"].threshold
    explorer.update(confidence=0.7)
    assert explorer.state["report"].threshold < narrow  # narrower intervals, smaller E


def test_cached_picture_equals_a_fresh_one(explorer):
    explorer.update(n_samples=200, sigma=0.45, n_clusters=2, k=2, confidence=0.8)
    explorer.update(confidence=0.6)
    explorer.update(confidence=0.8)
    fresh = StabilityExplorer(n_resamples=B, n_samples=200, sigma=0.45, n_clusters=2, k=2,
                              confidence=0.8)
    try:
        for a, b in ((explorer.stewart.observed, fresh.stewart.observed),
                     (explorer.perturbation.points, fresh.perturbation.points)):
            np.testing.assert_array_equal(a.get_offsets(), b.get_offsets())
        np.testing.assert_array_equal([r.get_height() for r in explorer.eigengaps.bars],
                                      [r.get_height() for r in fresh.eigengaps.bars])
        assert explorer.status.value == fresh.status.value
    finally:
        fresh.close()


def test_cosine_variant_uses_the_cosine_matrix():
    exp = StabilityExplorer(statistic="cosine", method="percentile", n_features=6,
                            n_resamples=60, n_samples=300, n_clusters=3, k=3)
    try:
        d = exp.state["data"]
        Xn = d.X / np.linalg.norm(d.X, axis=0)
        lam = np.sort(np.linalg.eigvalsh(Xn.T @ Xn))[::-1]
        heights = [r.get_height() for r in exp.eigengaps.bars]
        np.testing.assert_allclose(np.multiply(heights, lam[0]), lam[:-1] - lam[1:],
                                   atol=1e-10)
        rep = exp.state["report"]
        np.testing.assert_array_equal(np.diag(rep.E), 0.0)  # cosine diagonal is exactly 1
        assert rep.intervals.method == "percentile"
        assert exp.controls["k"].max == 5 and exp.controls["n_clusters"].max == 3
    finally:
        exp.close()


def test_heavy_resampling_is_drawn_progressively():
    exp = StabilityExplorer(n_resamples=300, n_samples=100)
    try:
        exp.step_budget = 0.0  # as if every bootstrap were slow
        exp.update(n_samples=800, finish=False)
        assert exp._pending is not None
        assert "Computing the distances" in exp.status.value
        assert len(exp.perturbation.points.get_offsets()) == 0
        assert np.isnan(exp.stewart.worst.get_ydata()).all()
        # the spectrum is already the new one
        lam = np.sort(np.linalg.eigvalsh(exp.state["report"].intervals.estimate))[::-1]
        heights = np.array([r.get_height() for r in exp.eigengaps.bars])
        np.testing.assert_allclose(heights * lam[0], lam[:-1] - lam[1:])
        exp.finish()
        assert exp._pending is None
        assert len(exp.perturbation.points.get_offsets()) == 300
        assert "largest distance over the 300 resamples" in exp.status.value
        exp.update(n_samples=900, finish=False)
        exp.update(k=3, finish=False)  # a move abandons the refinement in progress...
        assert exp.computations["distances"] == 2  # 100 and 800 only
        assert exp._pending is not None  # ...and restarts it for the state now shown
        exp.finish()
        assert exp.computations["distances"] == 3
    finally:
        exp.close()


def test_errors_are_shown_and_bad_settings_named(monkeypatch):
    with pytest.raises(ValueError, match="n_features"):
        StabilityExplorer(n_features=2)
    with pytest.raises(ValueError, match="statistic"):
        StabilityExplorer(statistic="correlation")
    with pytest.raises(ValueError, match="n_resamples"):
        StabilityExplorer(n_resamples=5)
    exp = StabilityExplorer(n_resamples=40, n_samples=100)
    try:
        with pytest.raises(ValueError, match="must lie in"):
            exp.update(k=8)

        def broken(*args, **kwargs):
            raise RuntimeError("deliberate failure")

        monkeypatch.setattr(exp, "report", broken)
        exp.controls["confidence"].value = 0.8  # as a browser would: through the observer
        assert exp.errors and "deliberate failure" in exp.errors[-1]
        assert exp.error_area.layout.display == "block"
        monkeypatch.undo()
        exp.update(confidence=0.9)
        assert exp.error_area.layout.display == "none"
        assert exp.snapshot().startswith(b"\x89PNG")
    finally:
        exp.close()
    with pytest.raises(RuntimeError, match="closed"):
        exp.refresh()


# --- the plot ---------------------------------------------------------------------------------


def test_perturbation_plot_updates_in_place_and_checks_shapes():
    fig, ax = plt.subplots()
    lam = np.array([5.0, 3.0, 1.0, 0.5])
    art = plot_perturbation_distances(ax, [0.1, 0.2, 0.3], [0.05, 0.1, 0.2], lam, 1, 0.4,
                                      stewart_E=0.3)
    eps, bound = art.curve.get_data()
    assert eps[-1] == pytest.approx(0.5) and bound[-1] == 1.0  # gap/4, where the bound is 1
    np.testing.assert_allclose(bound[:-1], 2 * eps[:-1] / (2.0 - 2 * eps[:-1]))
    assert art.stewart_E.get_data()[1][0] == 0.3
    points = art.points
    art.update([0.7], [0.9], lam, 2, 0.1)  # gap 2 at k = 2 as well; no star
    assert art.points is points and art.points.get_offsets().tolist() == [[0.7, 0.9]]
    assert len(art.stewart_E.get_xdata()) == 0
    assert ax.get_xlim()[1] >= 0.7
    art.update([0.1], [0.2], np.array([1.0, 1.0, 0.5]), 1, 0.1)  # tie: no curve at all
    assert len(art.curve.get_xdata()) == 0
    with pytest.raises(ValueError, match="one value per resample"):
        art.update([0.1, 0.2], [0.3], lam, 1, 0.1)
    with pytest.raises(ValueError, match="k must be"):
        art.update([0.1], [0.3], lam, 4, 0.1)
    plt.close(fig)


def test_updaters_keep_the_limits_when_asked():
    from spectral_kit.plots import plot_eigengaps, plot_stewart_bound

    fig, (ax1, ax2, ax3) = plt.subplots(1, 3)
    lam = np.array([5.0, 3.0, 1.0, 0.5])
    gaps = plot_eigengaps(ax1, lam, 1.0)
    stewart = plot_stewart_bound(ax2, [1, 2], [0.2, None], [[0.1, 0.3], [0.2, 0.4]])
    art = plot_perturbation_distances(ax3, [0.1], [0.05], lam, 1, 0.4)
    limits = [(ax.get_xlim(), ax.get_ylim()) for ax in (ax1, ax2, ax3)]
    gaps.update(lam * 10, 0.5, rescale=False)
    np.testing.assert_allclose([r.get_height() for r in gaps.bars], [20.0, 20.0, 5.0])
    assert gaps.threshold.get_ydata()[0] == 0.5
    stewart.update([1, 2, 3], [0.1, 0.2, 0.3], np.zeros((2, 3)), rescale=False)
    art.update([9.0], [0.5], lam, 2, 7.0, rescale=False)
    assert art.norm_E.get_xdata()[0] == 7.0
    assert [(ax.get_xlim(), ax.get_ylim()) for ax in (ax1, ax2, ax3)] == limits
    # a threshold above the panel is drawn just inside its top edge
    top = ax1.get_ylim()[1]
    gaps.update(lam, 10 * top, rescale=False)
    assert 0.98 * top < gaps.threshold.get_ydata()[0] < top
    # the default still follows the data
    gaps.update(lam * 10, 0.5)
    assert ax1.get_ylim()[1] == pytest.approx(22.0)
    plt.close(fig)
