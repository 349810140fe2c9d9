"""DetectabilityExplorer headless: sliders swept, artists against the library, moves blitted,
Algo. 1 refined."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics import silhouette_score

from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.theory import wishart_top_eigenvalue
from spectral_kit.weighting import (
    parameter_free_weights,
    pca_weights,
    relevant_signal,
    weighted_pca,
)
from spectral_kit.widgets.detectability import DetectabilityExplorer


@pytest.fixture
def explorer():
    exp = DetectabilityExplorer()
    yield exp
    exp.close()


def _sweep_values(control, count: int):
    values = np.linspace(control.min, control.max, count)
    return [type(control.value)(round(float(v), 2)) for v in values]


def _boxed(embedding):
    """Principal coordinates as drawn: the first two columns ÷ their largest magnitude."""
    Z = np.asarray(embedding)[:, :2]
    return Z / np.abs(Z).max()


def _reference(n_irrelevant: int, sigma: float, seed: int = 0):
    """The slider state's data rebuilt independently: the first 3 + n₂ coordinates of one
    Fig. 1 draw with 300 irrelevant features, rows centred and normalised."""
    full = make_wolf_bileschi_fig1(n_irrelevant=300, sigma=sigma, random_state=seed)
    M = full.M[: 3 + n_irrelevant]
    return M, preprocess_rows(M), full.y


def test_every_slider_is_swept_without_errors(explorer):
    for name, control in explorer.controls.items():
        start = control.value
        for value in _sweep_values(control, 5):
            before = len(explorer.latencies)
            explorer.update(**{name: value})
            assert len(explorer.latencies) == before + 1
            assert not explorer.errors, explorer.errors[-1]
            state = explorer.state
            assert state.data.X.shape == (100, 3 + explorer.values["n_irrelevant"])
            assert f"n₂ = {explorer.values['n_irrelevant']}" in explorer.status.value
        explorer.update(**{name: start})


def test_artists_show_the_library_results(explorer):
    n2, sigma = 150, 0.15
    explorer.update(n_irrelevant=n2, sigma=sigma)
    M, Mp, y = _reference(n2, sigma)
    q = M.shape[1]

    pca = weighted_pca(Mp, None, 2, preprocess=False).embedding
    alpha = parameter_free_weights(Mp, preprocess=False).alpha
    algo2 = weighted_pca(Mp, alpha, 2, preprocess=False).embedding
    np.testing.assert_allclose(explorer.projections["PCA"]["points"].get_offsets(),
                               _boxed(pca), atol=1e-10)
    np.testing.assert_allclose(explorer.projections["weighted"]["points"].get_offsets(),
                               _boxed(algo2), atol=1e-8)
    np.testing.assert_array_equal(explorer.state.data.y, y)
    assert "silhouette" in explorer.projection_texts["PCA"].get_text()

    # Spectrum panel: all q eigenvalues of A = MᵀM ÷ the top one, binned on [0, 1] (the top
    # one in the last bar), and the Marchenko–Pastur edge of n₂ irrelevant rows.
    eigenvalues, vectors = np.linalg.eigh(Mp.T @ Mp)
    top = eigenvalues[-1]
    np.testing.assert_allclose(explorer.state.eigenvalues, eigenvalues, atol=1e-10)
    relevant_direction = np.linalg.svd(Mp[:3], full_matrices=False)[2][0]
    assert explorer.state.overlap == pytest.approx(
        float(vectors[:, -1] @ relevant_direction) ** 2, abs=1e-10)
    heights, bin_edges, _ = explorer.spectrum["hist"].get_data()
    expected, edges = np.histogram(np.clip(eigenvalues / top, 0, 1), bins=len(heights),
                                   range=(0, 1))
    np.testing.assert_array_equal(heights, expected)
    np.testing.assert_allclose(bin_edges, edges)
    assert heights.sum() == q and heights[-1] >= 1
    assert explorer.spectrum["edge"].get_xdata()[0] == pytest.approx(
        wishart_top_eigenvalue(n2, q) / top)
    theta = relevant_signal(M[:3])
    assert explorer.spectrum["energy"].get_xdata()[0] == pytest.approx((theta + n2 / q) / top)
    # The absolute scale of the panel is in the status line.
    assert f"Top eigenvalue of A {top:.2f}" in explorer.status.value

    # Detectability panel: θ of the 3 relevant coordinates, the marker on 1 + √(n₂/q) and
    # the drowning point q(θ − 1)², dropped from the crossing with θ.
    assert explorer.detect_artists["signal"].get_ydata()[0] == pytest.approx(theta)
    x, yy = explorer.detect_artists["current"].get_data()
    assert (x[0], yy[0]) == (n2, pytest.approx(1 + np.sqrt(n2 / q)))
    np.testing.assert_allclose(explorer.critical_line.get_xydata(),
                               [[q * (theta - 1) ** 2, 0.0], [q * (theta - 1) ** 2, theta]])

    # Measured cos² between the top eigenvectors of A and of A₁.
    u = np.linalg.eigh(Mp.T @ Mp)[1][:, -1]
    v = np.linalg.eigh(Mp[:3].T @ Mp[:3])[1][:, -1]
    assert explorer.state.overlap == pytest.approx(float(u @ v) ** 2, abs=1e-10)


def test_verdict_follows_the_threshold_and_pca_loses_the_clusters(explorer):
    explorer.update(sigma=0.1)
    theta = explorer.state.theta
    critical = 100 * (theta - 1) ** 2
    assert 50 < critical < 250  # the default seed crosses the threshold within the slider
    seen = {}
    for n2 in range(0, 301, 30):
        explorer.update(n_irrelevant=n2)
        state = explorer.state
        verdict = explorer.verdict_text.get_text()
        assert state.theta == pytest.approx(theta)  # n₂ adds features, the relevant stay
        assert state.detect.detectable == (theta > 1 + np.sqrt(n2 / 100))
        if n2 == 0:
            assert "no irrelevant features" in explorer.status.value
            assert "every feature is relevant" in explorer.status.value
        if state.detect.detectable:
            assert "detectable" in verdict and rf"$\theta = {theta:.2f} >" in verdict
            assert n2 == 0 or "stands out" in explorer.status.value
        else:
            assert "drowned" in verdict and "drowned" in explorer.status.value
        seen[n2] = state
    # Sec. 2 made visible: below the threshold the top eigenvector of A follows the
    # relevant direction and PCA separates the clusters; well above it, neither holds,
    # while Algo. 2's weights keep the relevant features ahead.
    assert seen[30].overlap > 0.6 and seen[270].overlap < 0.2
    assert seen[30].pca_silhouette > 0.25 > 0.1 > seen[270].pca_silhouette
    assert seen[210].algo2.silhouette > seen[210].pca_silhouette + 0.1
    assert seen[210].algo2.ratio > 1


def test_moving_n_irrelevant_adds_features_and_keeps_the_others(explorer):
    small = explorer.data(40, 0.3)
    large = explorer.data(300, 0.3)
    np.testing.assert_array_equal(small.X, large.X[:, :43])
    np.testing.assert_array_equal(small.relevant, large.relevant[:43])
    # σ only rescales the same draw: the relevant coordinates scale about the cluster means.
    a, b = explorer.data(0, 0.2), explorer.data(0, 0.4)
    y = a.y
    means_a = np.array([a.X[y == c].mean(0) for c in (0, 1)])
    means_b = np.array([b.X[y == c].mean(0) for c in (0, 1)])
    np.testing.assert_allclose(b.X - means_b[y], 2 * (a.X - means_a[y]), atol=1e-12)


@pytest.mark.parametrize("weighting", ["parameter-free", "q-alpha"])
def test_slider_moves_redraw_only_the_data(weighting):
    """Every move of either slider is drawn over the cached background (blitted): no axes
    limit, scale or label changes, so matplotlib never redraws the whole figure."""
    exp = DetectabilityExplorer(weighting=weighting)
    try:
        full_draws = []
        exp.figure.canvas.mpl_connect("draw_event", full_draws.append)
        frame = exp._frame()
        for name, control in exp.controls.items():
            for value in [*_sweep_values(control, 5), control.value]:
                exp.update(**{name: value})  # Algo. 1's refinement step included
                assert not full_draws, f"moving {name} to {value} redrew the whole figure"
        assert exp._frame() == frame
    finally:
        exp.close()


def test_blitted_picture_matches_a_full_redraw(explorer):
    """What the cached background and the moving artists compose is what a full redraw of
    the same state shows (nothing stale left behind by earlier states)."""
    canvas = explorer.figure.canvas
    for values in ({"n_irrelevant": 0, "sigma": 0.02}, {"n_irrelevant": 300, "sigma": 1.0},
                   {"n_irrelevant": 120, "sigma": 0.1}):
        explorer.update(**values)
        blitted = np.asarray(canvas.buffer_rgba()).copy()
        with explorer._static_render():
            canvas.draw()
        full = np.asarray(canvas.buffer_rgba()).copy()
        canvas.draw()  # back to the background without the moving artists, then blitted
        differs = np.any(np.abs(blitted.astype(int) - full.astype(int)) > 40, axis=-1)
        # Only where a moving artist meets a static one drawn above it in a full redraw
        # (e.g. the bars at the bottom spine) may the order differ.
        assert differs.mean() < 5e-4, differs.mean()


def test_silhouettes_are_scikit_learns(explorer):
    for n2, sigma in ((0, 0.02), (150, 0.15), (300, 1.0)):
        state = explorer.compute({"n_irrelevant": n2, "sigma": sigma})
        y = state.data.y
        assert state.pca_silhouette == pytest.approx(
            silhouette_score(state.pca.embedding, y), abs=1e-12)
        assert state.algo2.silhouette == pytest.approx(
            silhouette_score(state.algo2.projection.embedding, y), abs=1e-12)


def test_normalised_plots_keep_their_axes():
    """The plot options the explorer uses, on their own: fixed units and limits."""
    import matplotlib.pyplot as plt

    from spectral_kit.plots.weighting import (
        RELATIVE_SPECTRUM_LIMITS,
        plot_cluster_projection,
        plot_spectrum_vs_bulk,
        update_cluster_projection,
        update_spectrum_vs_bulk,
    )
    from spectral_kit.weighting import detectability

    fig, (ax_points, ax_bars, ax_stairs) = plt.subplots(1, 3)
    try:
        _, Mp, y = _reference(200, 0.1)
        Z = weighted_pca(Mp, None, 2, preprocess=False).embedding
        art = plot_cluster_projection(ax_points, Z, y, normalize=True)
        limits = ax_points.get_xlim(), ax_points.get_ylim()
        update_cluster_projection(art, 5 * Z[:, ::-1], normalize=True, rescale=False)
        np.testing.assert_allclose(art["points"].get_offsets(), _boxed(Z[:, ::-1]))
        assert (ax_points.get_xlim(), ax_points.get_ylim()) == limits
        assert np.abs(art["points"].get_offsets()).max() == pytest.approx(1.0)

        eig = np.linalg.eigvalsh(Mp.T @ Mp)
        # Centred rows put the constant vector in A's null space: its eigenvalue, ±round-off,
        # counts in the first bin.
        expected = np.histogram(np.clip(eig / eig[-1], 0, 1), 30, (0, 1))[0]
        assert expected[0] >= 1
        for ax_spec, stairs in ((ax_bars, False), (ax_stairs, True)):
            art = plot_spectrum_vs_bulk(ax_spec, eig, detectability(2.0, 200, 100),
                                        normalize=True, log=True, stairs=stairs)
            assert ax_spec.get_yscale() == "log"
            assert ax_spec.get_xlim() == pytest.approx(RELATIVE_SPECTRUM_LIMITS)
            det = detectability(3.0, 200, 100)
            update_spectrum_vs_bulk(art, 2 * eig, det, normalize=True)  # a unit-free picture
            if stairs:
                heights = art["hist"].get_data().values
            else:
                heights = np.array([p.get_height() for p in art["hist"].patches])
            np.testing.assert_array_equal(heights, expected)
            assert art["top"].get_xdata()[0] == pytest.approx(
                det.top_eigenvalue / (2 * eig[-1]))
            assert ax_spec.get_xlim() == pytest.approx(RELATIVE_SPECTRUM_LIMITS)
            assert ax_spec.get_ylim() == pytest.approx((0.7, 1.5 * max(heights)))
    finally:
        plt.close(fig)


def test_states_are_cached(explorer):
    first = explorer.state
    explorer.update(n_irrelevant=50)
    explorer.update(n_irrelevant=200)
    assert explorer.state is first


def test_algo1_is_refined_after_the_first_picture():
    exp = DetectabilityExplorer(weighting="q-alpha", n_irrelevant=120)
    try:
        exp.update(n_irrelevant=90, finish=False)
        state = exp.state
        # First picture: Algo. 1's starting point, Algo. 2's weights.
        assert exp._pending is not None and exp.weighted is None
        assert "running" in exp.status.value
        assert "iterating" in exp.projection_texts["weighted"].get_text()
        np.testing.assert_allclose(exp.projections["weighted"]["points"].get_offsets(),
                                   _boxed(state.algo2.projection.embedding))
        exp.finish()
        _, Mp, _ = _reference(90, 0.1)
        result = pca_weights(Mp, 2, preprocess=False)
        np.testing.assert_allclose(exp.weighted.result.alpha, result.alpha, atol=1e-12)
        np.testing.assert_allclose(
            exp.projections["weighted"]["points"].get_offsets(),
            _boxed(weighted_pca(Mp, result.alpha, 2, preprocess=False).embedding), atol=1e-8,
        )
        assert "running" not in exp.status.value
        assert "silhouette" in exp.projection_texts["weighted"].get_text()
        assert "Algo. 1 weights + PCA" in exp.projections["weighted"]["points"].axes.get_title()
        # Algo. 1 (k = 2) is sharper than Algo. 2 on these data (Sec. 3.1, Fig. 2).
        assert exp.weighted.ratio > state.algo2.ratio
        # A state already computed needs no refinement.
        exp.update(n_irrelevant=120, finish=False)
        exp.update(n_irrelevant=90, finish=False)
        assert exp._pending is None
        # A slider move abandons a refinement in progress.
        exp.update(n_irrelevant=60, finish=False)
        assert exp._pending is not None
        exp.update(sigma=0.2, finish=False)
        assert exp._algo1.get((60, 0.1)) is None
        for name, control in exp.controls.items():
            for value in (control.min, control.max):
                exp.update(**{name: value})
                assert not exp.errors
    finally:
        exp.close()


def test_bad_arguments_are_named():
    with pytest.raises(ValueError, match="weighting"):
        DetectabilityExplorer(weighting="uniform")
    with pytest.raises(ValueError, match="random_state"):
        DetectabilityExplorer(random_state=-1)
    exp = DetectabilityExplorer(sigma=0.5)
    try:
        assert exp.values["sigma"] == 0.5
        with pytest.raises(ValueError, match="must lie in"):
            exp.update(sigma=0.0)
        with pytest.raises(ValueError, match="must lie in"):
            exp.update(n_irrelevant=400)
        with pytest.raises(ValueError, match="unknown control"):
            exp.update(k=2)
    finally:
        exp.close()
    with pytest.raises(RuntimeError, match="closed"):
        exp.refresh()


def test_failures_are_shown_under_the_figure(explorer, monkeypatch):
    def broken(values):
        raise RuntimeError("deliberate failure")

    monkeypatch.setattr(explorer, "compute", broken)
    explorer.controls["sigma"].value = 0.3  # as a browser would: through the observer
    assert explorer.errors and "deliberate failure" in explorer.errors[-1]
    assert explorer.error_area.layout.display == "block"
    monkeypatch.undo()
    explorer.update(sigma=0.31)
    assert explorer.error_area.layout.display == "none"
    assert explorer.snapshot().startswith(b"\x89PNG")


def test_the_explorers_silhouette_is_scikit_learns():
    from sklearn.metrics import silhouette_score

    from spectral_kit.widgets.detectability import _silhouette

    rng = np.random.default_rng(5)
    for n, k, d in [(50, 2, 2), (200, 3, 2), (31, 4, 5), (10, 2, 1)]:
        X = rng.normal(size=(n, d))
        y = rng.integers(0, k, n)
        y[0] = k  # a cluster of one sample scores 0
        X[y == 1] += 2.0
        assert _silhouette(X, y) == pytest.approx(silhouette_score(X, y), abs=1e-8)
    with pytest.raises(ValueError, match="2 to n - 1 clusters"):
        _silhouette(X, np.zeros(len(X)))
