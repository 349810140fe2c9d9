"""Odd inputs that once gave a wrong answer or a low-level error, one test per case.

The fuzzing of ``test_fuzz.py`` varies one argument at a time from a valid call; these are
the cases it cannot reach: NumPy scalars where Python numbers are expected, arguments whose
meaning depends on another (intervals of other data, bases that are not orthonormal),
results returned by one call and passed to another, and extreme but valid scales; and the
drawing functions and explorers, which ``test_fuzz.py`` leaves to their own tests.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg

import spectral_kit as sk
from spectral_kit.qalpha import q_alpha_pairwise, q_alpha_side
from spectral_kit.sparse_lda import (
    auto_epsilon,
    eslda,
    fit_discriminant,
    random_pair,
    scatter_matrices,
)
from spectral_kit.stability import bootstrap_intervals, sbs, subspace_distance
from spectral_kit.theory import (
    positivity_prediction,
    triple_product,
    triple_product_expectation,
    wishart_top_eigenvalue,
)
from spectral_kit.weighting import weighted_pca


@pytest.fixture
def two_classes():
    rng = np.random.default_rng(0)
    return rng.standard_normal((40, 3)), np.arange(40) % 2


@pytest.mark.parametrize("reg", [np.float32(0.5), np.float64(0.5), np.int64(1)])
def test_numpy_scalar_regularization_means_what_a_python_number_means(two_classes, reg):
    X, y = two_classes
    X = 1000.0 * X  # a scale at which ε is rescaled internally
    ours = fit_discriminant(X, y, regularization=reg)
    ref = fit_discriminant(X, y, regularization=float(reg))
    assert ours.epsilon == pytest.approx(float(reg))
    np.testing.assert_allclose(ours.coef, ref.coef, rtol=1e-12)


def test_constant_feature_without_regularization_is_a_clear_error(two_classes):
    X, y = two_classes
    X = X.copy()
    X[:, 2] = 1.0
    for reg in (None, 0.0):
        with pytest.raises(ValueError, match="regularization"):
            fit_discriminant(X, y, regularization=reg)


def test_discriminant_checks_the_samples_it_classifies(two_classes):
    X, y = two_classes
    model = fit_discriminant(X, y)
    with pytest.raises(ValueError, match="X contains 1 NaN"):
        model.predict([[np.nan, 0.0, 0.0]])
    with pytest.raises(ValueError, match="X has 2 features but the discriminant was fitted on 3"):
        model.decision_function(X[:, :2])
    with pytest.raises(ValueError, match="X must be a 2-D array"):
        model.predict(X[0])
    np.testing.assert_array_equal(model.predict(X.tolist()), model.predict(X))


def test_triple_product_depends_on_directions_only():
    a, b, c = np.array([1.0, 2, 3]), np.array([1.0, 1, 1]), np.array([2.0, 1, 2])
    ref = triple_product(a, b, c)
    # (aᵀb)(aᵀc)(bᵀc) of the unit vectors, by hand
    u = [v / np.linalg.norm(v) for v in (a, b, c)]
    assert ref == pytest.approx((u[0] @ u[1]) * (u[0] @ u[2]) * (u[1] @ u[2]), rel=1e-14)
    for scale in (1e200, 1e-170, 2.0**-1070):
        assert triple_product(scale * a, b, c) == pytest.approx(ref, rel=1e-14)
        assert triple_product_expectation(scale * a, b) == pytest.approx(
            triple_product_expectation(a, b), rel=1e-14)
    with pytest.raises(ValueError, match="a, b and c must have the same length"):
        triple_product(a, b[:2], c)


def test_wishart_edge_that_overflows_is_refused():
    assert wishart_top_eigenvalue(5, 10, variance=2.0) == pytest.approx(
        2.0 * (5**0.5 + 10**0.5) ** 2)
    with pytest.raises(ValueError, match="overflows"):
        wishart_top_eigenvalue(5, 10, variance=1e308)


@pytest.mark.parametrize(("n", "error"), [(-3, ValueError), (0, ValueError), (2.5, TypeError),
                                      ([5, -1], ValueError)])
def test_positivity_prediction_takes_matrix_sizes(n, error):
    with pytest.raises(error, match="n must"):
        positivity_prediction(n, 1.0, 1.0)


def test_sbs_refuses_intervals_of_other_data():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    iv = bootstrap_intervals(X, n_resamples=20, random_state=0)
    same = sbs(X, intervals=iv)
    np.testing.assert_array_equal(
        same.kept, sbs(X, n_resamples=20, random_state=0).kept)
    with pytest.raises(ValueError, match="intervals were computed for other data than X"):
        sbs(rng.standard_normal((30, 2)), intervals=iv)
    with pytest.raises(ValueError, match="intervals were computed for other data than X"):
        sbs(rng.standard_normal((30, 5)), intervals=iv)


def test_subspace_distance_needs_orthonormal_bases():
    rng = np.random.default_rng(0)
    V = np.linalg.qr(rng.standard_normal((6, 2)))[0]
    R = np.linalg.qr(rng.standard_normal((2, 2)))[0]
    assert subspace_distance(V, V @ R) == pytest.approx(0.0, abs=1e-14)  # same span
    with pytest.raises(ValueError, match="V must have orthonormal columns"):
        subspace_distance(3.0 * V, V)
    with pytest.raises(ValueError, match="W must have orthonormal columns"):
        subspace_distance(V, V + 0.1)


def test_weighted_pca_with_every_weight_zero_is_refused():
    M = np.random.default_rng(0).standard_normal((6, 20))
    with pytest.raises(ValueError, match="no variance after reweighting"):
        weighted_pca(M, np.zeros(6))


@pytest.mark.parametrize("k", [None, "2", 2.0])
def test_selectors_check_k_before_using_it(k):
    X = np.random.default_rng(0).standard_normal((30, 5))
    for selector in (sk.QAlphaSelector(k=k), sk.QAlphaSideSelector(k=k)):
        with pytest.raises(TypeError, match="k must be an integer"):
            selector.fit(X)


def test_warm_start_must_be_an_earlier_result():
    rng = np.random.default_rng(0)
    M, W = rng.standard_normal((6, 20)), rng.standard_normal((6, 8))
    with pytest.raises(TypeError, match="warm_start must be the result of an earlier call"):
        q_alpha_side(M, W, 2, warm_start="x")
    with pytest.raises(TypeError, match="warm_start must be the result of an earlier call"):
        q_alpha_pairwise(M, [(0, 1)], 2, 0.1, warm_start=np.ones(3))
    # an earlier result is still taken
    first = q_alpha_side(M, W, 2, random_state=0)
    again = q_alpha_side(M, W, 2, warm_start=first, random_state=0)
    assert np.isfinite(again.alpha).all()


def test_labels_of_mixed_types_are_named(two_classes):
    X, _ = two_classes
    y = np.array([1 if v else "a" for v in np.arange(40) % 2], dtype=object)
    with pytest.raises(TypeError, match=r"y mixes label types \(int, str\)"):
        scatter_matrices(X, y)
    for estimator in (sk.SparseLDA(), sk.WeightedFDA(), sk.QAlphaSelector()):
        with pytest.raises(TypeError, match=r"y mixes label types \(int, str\)"):
            estimator.fit(X, y)
    # one type, as the message suggests, is accepted
    scatter_matrices(X, y.astype(str))


def test_auto_epsilon_checks_A():
    B = np.zeros((2, 2))
    with pytest.raises(TypeError, match="A must be a numeric array"):
        auto_epsilon(B, A=[["a", "b"], ["c", "d"]])
    with pytest.raises(ValueError, match="A must be the vector d"):
        auto_epsilon(B, A=np.eye(3))
    # B = 0 takes its scale from A: the d of A = d dᵀ and the matrix give the same ε
    d = np.array([1.0, 2.0])
    assert auto_epsilon(B, A=d) == auto_epsilon(B, A=np.outer(d, d)) > 0


@pytest.mark.parametrize("rank_one", [False, True])
def test_zero_budget_reports_the_inclusion_bound(rank_one):
    p = random_pair(8, random_state=0, kind="rank_one" if rank_one else "general")
    A = p.d if rank_one else p.A
    stopped = eslda(A, p.B, 3, max_nodes=0)
    top = float(scipy.linalg.eigh(p.A, p.B, eigvals_only=True)[-1])  # λ_max(A, B), Thm. 1
    assert not stopped.optimal
    assert stopped.upper_bound == pytest.approx(top, rel=1e-9)
    assert stopped.upper_bound >= top
    assert stopped.upper_bound >= eslda(A, p.B, 3).value


# -- drawing functions and explorers ---------------------------------------------------------


@pytest.fixture
def ax():
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots()
    yield axes
    plt.close(fig)


def test_curves_of_the_wrong_length_are_refused_when_drawn(ax):
    from spectral_kit.plots.sparse_lda import plot_lambda_vs_k, plot_optimality_ratio

    with pytest.raises(ValueError, match=r"curves\['ST'\] must hold one value per k \(3\)"):
        plot_lambda_vs_k(ax, [1, 2, 3], {"ST": [1.0, 2.0]}, [0.5, 1, 2], 4.0)
    with pytest.raises(ValueError, match="lower must hold one value per k"):
        plot_lambda_vs_k(ax, [1, 2, 3], {"ST": [1.0, 2.0, 3.0]}, [0.5, 1], 4.0)
    with pytest.raises(ValueError, match=r"ratios\['ST'\] must hold one value per k"):
        plot_optimality_ratio(ax, [1, 2], {"ST": np.ones((2, 2))})
    with pytest.raises(TypeError, match="ratios must map a method's name"):
        plot_optimality_ratio(ax, [1, 2], [0.9, 0.8])
    artists = plot_lambda_vs_k(ax, [1, 2, 3], {"ST": [1.0, 2.0, 3.0]}, [0.5, 1, 2], 4.0)
    np.testing.assert_array_equal(artists["curves"]["ST"].get_ydata(), [1.0, 2.0, 3.0])


def test_detectability_plot_checks_its_sizes(ax):
    from spectral_kit.plots.weighting import plot_detectability, update_detectability

    artists = plot_detectability(ax, 2.0, 50, 10)
    # the threshold 1 + √(n₂/q) of the weighting module, drawn
    n2 = artists["threshold"].get_xdata()
    np.testing.assert_allclose(artists["threshold"].get_ydata(), 1 + np.sqrt(n2 / 50))
    for args, match in [((2.0, 0, 10), "n_samples"), ((np.nan, 50, 10), "signal"),
                        ((1e200, 50, 10), "overflows"), ((2.0, 50, -1), "n_irrelevant")]:
        with pytest.raises(ValueError, match=match):
            plot_detectability(ax, *args)
    with pytest.raises(ValueError, match="n_samples"):
        update_detectability(artists, 2.0, -5, 10)


def test_eigenvector_and_positivity_plots_refuse_what_they_cannot_show(ax):
    from spectral_kit.plots.q_alpha import plot_eigenvector_entries, plot_positivity_curve
    from spectral_kit.theory import positivity_probability

    with pytest.raises(ValueError, match="v contains 1 NaN"):
        plot_eigenvector_entries(ax, np.array([0.5, np.nan, 0.5, 0.5]))
    with pytest.raises(ValueError, match="v must be a non-zero vector"):
        plot_eigenvector_entries(ax, np.zeros(4))
    artists = plot_eigenvector_entries(ax, np.array([0.5, -0.5, 0.5, 0.5]))
    assert artists.label.get_text() == "1 of 4 entries negative"
    result = positivity_probability([5, 10], 1 / 6, 2**0.5 / 6, 20, random_state=0)
    with pytest.raises(ValueError, match=r"current_n=4 is not one of result\.n"):
        plot_positivity_curve(ax, result, current_n=4)
    plot_positivity_curve(ax, result, current_n=10)


def test_explorers_check_their_settings():
    from spectral_kit.widgets import PositivityExplorer, SparsityGapExplorer

    for kwargs, error, match in [
        ({"n_max": None}, TypeError, "n_max must be an integer"),
        ({"n_max": 12.9}, TypeError, "n_max must be an integer"),
        ({"n_max": 5}, ValueError, r"n_max must be an integer in \[10, 2000\]"),
        ({"random_state": -1}, ValueError, "random_state must be an integer in"),
        ({"random_state": 2.7}, TypeError, "random_state must be an integer"),
    ]:
        with pytest.raises(error, match=match):
            PositivityExplorer(**kwargs)
    with pytest.raises(TypeError, match="random_state must be an integer"):
        SparsityGapExplorer(random_state="x")
    explorer = PositivityExplorer(n_max=20)
    try:
        for scale in (0.0, -1.0, np.nan, 1e-6):
            with pytest.raises(ValueError, match="scale"):
                explorer.snapshot(scale=scale)
        assert explorer.snapshot(scale=0.5).startswith(b"\x89PNG")
    finally:
        explorer.close()


def test_alpha_bars_and_interval_widths_refuse_mismatched_data(ax):
    from spectral_kit.plots.q_alpha import plot_alpha_bars
    from spectral_kit.plots.stability import plot_interval_widths

    with pytest.raises(ValueError, match="relevant must mark each of the 3 weights"):
        plot_alpha_bars(ax, np.array([0.8, 0.6, 0.1]), np.array([False, False, True, True]))
    with pytest.raises(ValueError, match="alpha contains 1 NaN"):
        plot_alpha_bars(ax, np.array([0.8, np.nan, 0.1]), np.array([True, False, False]))
    with pytest.raises(ValueError, match="gap must be finite"):
        plot_alpha_bars(ax, np.array([0.8, 0.6, 0.1]), np.array([True, False, False]),
                        gap=np.nan)
    with pytest.raises(ValueError, match="lower must not exceed upper"):
        plot_interval_widths(ax, np.ones((3, 3)), np.zeros((3, 3)))
    lower = np.zeros((3, 3))
    lower[0, 0] = np.nan
    with pytest.raises(ValueError, match="lower contains 1 NaN"):
        plot_interval_widths(ax, lower, np.ones((3, 3)))
    with pytest.raises(ValueError, match="square matrices of one shape"):
        plot_interval_widths(ax, np.zeros((3, 3)), np.ones((4, 4)))
    image = plot_interval_widths(ax, np.zeros((2, 2)), np.array([[1.0, 2.0], [2.0, 3.0]]))
    np.testing.assert_array_equal(image.image.get_array(), [[1.0, 2.0], [2.0, 3.0]])


def test_cluster_projection_update_checks_like_the_first_draw(ax):
    from spectral_kit.plots.weighting import plot_cluster_projection, update_cluster_projection

    Z = np.random.default_rng(0).standard_normal((6, 3))
    artists = plot_cluster_projection(ax, Z, [0, 0, 1, 1, 2, 2])
    with pytest.raises(ValueError, match=r"embedding must have shape \(n_samples, ≥ 2\)"):
        update_cluster_projection(artists, Z[:, :1])
    with pytest.raises(ValueError, match="labels has 5 labels but the data have 6 samples"):
        update_cluster_projection(artists, Z, [0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="labels has 5 labels"):
        plot_cluster_projection(ax, Z, [0, 1, 0, 1, 0])
    update_cluster_projection(artists, 2 * Z, ["a", "b", "a", "b", "a", "b"])
    np.testing.assert_array_equal(artists["points"].get_offsets(), 2 * Z[:, :2])


def test_dashboard_takes_a_mapping_of_explorers():
    from spectral_kit.widgets import Dashboard

    with pytest.raises(TypeError, match=r"explorers\['x'\] must be an explorer"):
        Dashboard({"x": 3})
    with pytest.raises(TypeError, match="explorers must map a card title"):
        Dashboard([1, 2])


def test_eigengaps_and_stewart_plots_check_what_they_draw(ax):
    from spectral_kit.plots.stability import plot_eigengaps, plot_stewart_bound

    with pytest.raises(ValueError, match=r"stable_ks must hold k in \[1, 2\]"):
        plot_eigengaps(ax, [3.0, 2.0, 1.0], 0.1, stable_ks=[5])
    with pytest.raises(ValueError, match="threshold must be finite"):
        plot_eigengaps(ax, [3.0, 2.0, 1.0], np.nan)
    with pytest.raises(ValueError, match="eigenvalues contains 1 NaN"):
        plot_eigengaps(ax, [3.0, np.nan, 1.0], 0.1)
    artists = plot_eigengaps(ax, [3.0, 2.5, 1.0], 0.2, stable_ks=[2])
    with pytest.raises(ValueError, match="stable_ks"):
        artists.update([3.0, 2.5, 1.0], 0.2, stable_ks=[0])
    # the gaps are 0.5 and 1.5; only the given k = 2 is coloured stable
    heights = [bar.get_height() for bar in artists.bars]
    np.testing.assert_allclose(heights, [0.5, 1.5])
    assert artists.bars[0].get_facecolor() != artists.bars[1].get_facecolor()
    with pytest.raises(ValueError, match="ks must have at least 1 value"):
        plot_stewart_bound(ax, [], [], [])
    with pytest.raises(ValueError, match="observed must hold distances"):
        plot_stewart_bound(ax, [1, 2], [0.1, 0.2], [[np.inf, 0.1]])
    # NaN stays a gap: a resample still being drawn
    stewart = plot_stewart_bound(ax, [1, 2], [0.1, None], [[np.nan, 0.1], [0.05, 0.2]])
    np.testing.assert_allclose(stewart.worst.get_ydata(), [np.nan, 0.2])


def test_bootstrap_histogram_checks_its_values_and_interval(ax):
    from spectral_kit.plots.stability import plot_bootstrap_histogram

    with pytest.raises(ValueError, match="values contains 1 NaN"):
        plot_bootstrap_histogram(ax, [1.0, np.nan, 2.0], 1.5, 1.0, 2.0)
    with pytest.raises(ValueError, match="values must have at least 1 value"):
        plot_bootstrap_histogram(ax, [], 1.5, 1.0, 2.0)
    with pytest.raises(ValueError, match="were the two swapped"):
        plot_bootstrap_histogram(ax, [1.0, 2.0], 1.5, 2.0, 1.0)
    hist = plot_bootstrap_histogram(ax, [1.0, 2.0, 2.0], 1.5, 1.0, 2.0, bins=2)
    with pytest.raises(ValueError, match="estimate must be finite"):
        hist.update([1.0, 2.0], np.nan, 1.0, 2.0)
    assert [bar.get_height() for bar in hist.bars] == [1, 2]


def test_side_information_plots_check_their_arguments(ax):
    from types import SimpleNamespace

    from spectral_kit.plots.side_information import (
        plot_alpha_structures,
        plot_success_rates,
        plot_topographic_map,
    )

    with pytest.raises(ValueError, match="lam_values must be positive on the logarithmic"):
        plot_success_rates(ax, [0.0, 1.0, 10.0], {"a": [0.0, 0.5, 1.0]})
    lines = plot_success_rates(ax, [0.0, 1.0, 10.0], {"a": [0.0, 0.5, 1.0]}, log_x=False)
    np.testing.assert_array_equal(lines[0].get_xdata(), [0.0, 1.0, 10.0])
    with pytest.raises(TypeError, match="rates must map a method's name"):
        plot_success_rates(ax, [1.0, 10.0], [[0.0, 1.0]])
    with pytest.raises(TypeError, match="groups must map a group's name"):
        plot_alpha_structures(ax, [1.0, 2.0, 3.0], [[True, False, True]])
    with pytest.raises(TypeError, match=r"topo must be the result of spectral_kit\.topographic"):
        plot_topographic_map(ax, None)
    topo = SimpleNamespace(relevance=np.ones((2, 3)), alpha=np.ones((2, 3)),
                           coordinates=np.zeros((3, 2)))
    with pytest.raises(ValueError, match="max_axis must lie in"):
        plot_topographic_map(ax, topo, max_axis=-1.0)
    with pytest.raises(TypeError, match=r"rounds\[1\] must be an integer"):
        plot_topographic_map(ax, topo, rounds=(0, 1.5))


def test_weighting_plots_check_their_arguments(ax):
    from types import SimpleNamespace

    from spectral_kit.plots.weighting import (
        plot_spectrum_vs_bulk,
        plot_variable_weights,
        update_spectrum_vs_bulk,
        update_variable_weights,
    )

    with pytest.raises(ValueError, match="alpha contains 1 NaN"):
        plot_variable_weights(ax, [1.0, np.nan, 2.0])
    with pytest.raises(ValueError, match="relevant must be a boolean mask of length 3"):
        plot_variable_weights(ax, [1.0, 2.0, 3.0], [True])
    with pytest.raises(ValueError, match="max_features must be an integer in"):
        plot_variable_weights(ax, [1.0, 2.0, 3.0], max_features=0)
    weights = plot_variable_weights(ax, [1.0, 2.0, 3.0], max_features=2)
    with pytest.raises(ValueError, match="alpha has 1 weights but the plot shows 2"):
        update_variable_weights(weights, [1.0])
    update_variable_weights(weights, [4.0, 5.0, 6.0])
    assert [bar.get_height() for bar in weights["bars"]] == [4.0, 5.0]
    detect = SimpleNamespace(bulk_edge=1.0, signal_energy=2.0, top_eigenvalue=3.0)
    for normalize in (False, True):
        with pytest.raises(ValueError, match="eigenvalues contains 1 NaN"):
            plot_spectrum_vs_bulk(ax, [1.0, np.nan, 3.0], detect, normalize=normalize)
    with pytest.raises(TypeError, match=r"detect must be the result of spectral_kit\.weighting"):
        plot_spectrum_vs_bulk(ax, [1.0, 2.0], None)
    spectrum = plot_spectrum_vs_bulk(ax, [1.0, 2.0], detect)
    with pytest.raises(ValueError, match="eigenvalues must have at least 1 value"):
        update_spectrum_vs_bulk(spectrum, [], detect)


def test_interlacing_plot_and_sliders_check_their_arguments(ax):
    from types import SimpleNamespace

    from spectral_kit.plots.sparse_lda import plot_interlacing
    from spectral_kit.widgets.controls import make_slider

    with pytest.raises(TypeError, match="interlacing must be the result of"):
        plot_interlacing(ax, None)
    with pytest.raises(ValueError, match=r"interlacing\.spectrum contains 1 NaN"):
        plot_interlacing(ax, SimpleNamespace(spectrum=[1.0, np.nan, 3.0], sub=[2.0],
                                             lower=[1.0], upper=[3.0]))
    with pytest.raises(ValueError, match="one bracket per sub-eigenvalue"):
        plot_interlacing(ax, SimpleNamespace(spectrum=[1.0, 2.0, 3.0], sub=[2.0, 2.5],
                                             lower=[1.0], upper=[3.0]))
    with pytest.raises(ValueError, match="value of lam must be positive"):
        make_slider("lam", value=0)
    with pytest.raises(ValueError, match=r"min \(100\) of n_samples must not exceed max"):
        make_slider("n_samples", min=100, max=10, value=50)
    assert make_slider("lam", value=1.0).value == 1.0


def test_drawings_of_results_name_the_result_they_need(ax):
    from spectral_kit.plots.q_alpha import plot_objective_trace, plot_positivity_curve
    from spectral_kit.plots.sparse_lda import plot_lambda_vs_k
    from spectral_kit.plots.stability import plot_sbs_trajectory

    with pytest.raises(TypeError, match=r"result must be a Q-α result"):
        plot_objective_trace(ax, None)
    with pytest.raises(TypeError, match=r"positivity_probability; got None"):
        plot_positivity_curve(ax, None)
    with pytest.raises(TypeError, match=r"spectral_kit\.stability\.sbs; got dict without 'A'"):
        plot_sbs_trajectory(ax, {"A": 1})
    with pytest.raises(TypeError, match="ks must be a numeric array; got None"):
        plot_lambda_vs_k(ax, None, {"ST": [1.0]}, [1.0], 2.0)
    rng = np.random.default_rng(0)
    res = sk.q_alpha(rng.standard_normal((20, 6)), 2, random_state=0)
    (line,) = plot_objective_trace(ax, res)
    np.testing.assert_array_equal(line.get_ydata(), res.objective)
