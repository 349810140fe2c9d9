"""The Sec. 2 detectability condition, the report's data generators, Haar features, plots and
the reproductions of Wolf & Bileschi (2005)."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pytest
import scipy.integrate
import scipy.optimize

from spectral_kit.datasets.wolf_bileschi import (
    haar_features,
    haar_filters,
    make_permuted_gaussians,
    make_wolf_bileschi_fig1,
    make_wolf_bileschi_fig2,
    make_wolf_bileschi_ideal,
)
from spectral_kit.plots.weighting import (
    plot_cluster_projection,
    plot_detectability,
    plot_spectrum_vs_bulk,
    plot_variable_weights,
    update_cluster_projection,
    update_detectability,
    update_spectrum_vs_bulk,
    update_variable_weights,
)
from spectral_kit.theory import wishart_top_eigenvalue
from spectral_kit.weighting import (
    critical_irrelevant,
    detectability,
    detectability_threshold,
    relevant_signal,
    weighted_pca,
)

# ------------------------------------------------------------------------- detectability


def _mp_stieltjes(z: float, n2: int, q: int) -> float:
    """∫ p(x)/(z − x) dx for the spectrum of A₂ = M₂ᵀM₂ (entries of variance 1/q), n₂ ≥ q,
    by quadrature of the Marchenko–Pastur density -- independent of the closed forms."""
    c = n2 / q
    a, b = (np.sqrt(c) - 1) ** 2, (np.sqrt(c) + 1) ** 2

    def density(x: float) -> float:
        return np.sqrt(max((b - x) * (x - a), 0.0)) / (2 * np.pi * x)

    value, _ = scipy.integrate.quad(lambda x: density(x) / (z - x), a, b, limit=200)
    return value


@pytest.mark.parametrize(("theta", "n2", "q"), [(4.0, 400, 100), (6.0, 400, 100), (3.0, 300, 100)])
def test_predicted_top_eigenvalue_solves_the_stieltjes_equation(theta, n2, q):
    det = detectability(theta, n2, q)
    assert det.detectable
    z = scipy.optimize.brentq(
        lambda x: _mp_stieltjes(x, n2, q) - 1 / theta, det.bulk_edge * (1 + 1e-9), 50 * theta
    )
    assert np.isclose(det.top_eigenvalue, z, rtol=1e-6)
    # cos² = −1/(θ² G'(ρ)) with G' by a central difference.
    h = 1e-5 * z
    g_prime = (_mp_stieltjes(z + h, n2, q) - _mp_stieltjes(z - h, n2, q)) / (2 * h)
    assert np.isclose(det.overlap, -1 / (theta**2 * g_prime), rtol=1e-4)


def test_detectability_threshold_and_continuity():
    det = detectability(2.0, 200, 100)
    assert det.threshold == pytest.approx(1 + np.sqrt(2))
    assert det.bulk_edge == pytest.approx(wishart_top_eigenvalue(200, 100))
    assert det.signal_energy == pytest.approx(4.0)
    assert not det.detectable and det.overlap == 0.0
    assert det.paper_threshold == pytest.approx(1 + 2 * np.sqrt(2))
    assert det.paper_ratio == pytest.approx(4.0 / wishart_top_eigenvalue(200, 100))
    just_above = detectability(det.threshold + 1e-9, 200, 100)
    assert just_above.detectable
    assert just_above.top_eigenvalue == pytest.approx(det.bulk_edge, rel=1e-6)
    assert just_above.overlap == pytest.approx(0.0, abs=1e-6)
    assert detectability_threshold(200, 100) == pytest.approx(det.threshold)
    crit = critical_irrelevant(3.0, 100)
    assert crit == pytest.approx(400.0)
    assert detectability(3.0, 399, 100).detectable
    assert not detectability(3.0, 401, 100).detectable
    with pytest.raises(ValueError, match="n_irrelevant must be an integer"):
        detectability(3.0, -1, 100)


def test_detectability_against_simulation_of_the_ideal_case():
    rng = np.random.default_rng(0)
    tops, overlaps = [], []
    for _ in range(20):
        data = make_wolf_bileschi_ideal(6, 400, 100, random_state=rng)
        w, V = np.linalg.eigh(data.M.T @ data.M)
        v1 = np.where(data.y == 0, 1.0, -1.0) / 10.0
        tops.append(w[-1])
        overlaps.append((V[:, -1] @ v1) ** 2)
    det = detectability(6.0, 400, 100)
    assert np.mean(tops) == pytest.approx(det.top_eigenvalue, rel=0.03)
    assert np.mean(overlaps) == pytest.approx(det.overlap, abs=0.05)


def test_relevant_signal_of_the_ideal_case_is_n1():
    data = make_wolf_bileschi_ideal(5, 10, 40, random_state=1)
    assert relevant_signal(data.M[data.relevant]) == pytest.approx(5.0, rel=1e-12)
    with pytest.raises(ValueError, match="constant feature"):
        relevant_signal(np.ones((2, 10)))


# ------------------------------------------------------------------------------ data


def test_fig1_and_fig2_generators():
    d1 = make_wolf_bileschi_fig1(random_state=0)
    assert d1.X.shape == (100, 203) and d1.M.shape == (203, 100)
    assert np.bincount(d1.y).tolist() == [50, 50]
    assert d1.relevant.tolist() == [True] * 3 + [False] * 200
    assert np.array_equal(d1.X, make_wolf_bileschi_fig1(random_state=0).X)
    d2 = make_wolf_bileschi_fig2(n_irrelevant=50, random_state=0)
    assert d2.X.shape == (100, 53) and np.bincount(d2.y).tolist() == [25] * 4


def test_permuted_gaussians_structure():
    # σ = 0: every point sits on its cluster mean, so a relevant column takes one value per
    # cluster, and a permuted column has the same values in a different order.
    data = make_permuted_gaussians(2, 30, n_relevant=2, n_irrelevant=40, sigma=0.0,
                                   random_state=3)
    for j in range(2):
        for c in range(2):
            assert np.ptp(data.X[data.y == c, j]) == 0.0
    unpermuted = make_permuted_gaussians(2, 30, n_relevant=42, n_irrelevant=0, sigma=0.0,
                                         random_state=3)
    for j in range(2, 42):
        assert np.array_equal(np.sort(data.X[:, j]), np.sort(unpermuted.X[:, j]))
    assert any(not np.array_equal(data.X[:, j], unpermuted.X[:, j]) for j in range(2, 42))
    with pytest.raises(ValueError, match="sigma must lie in"):
        make_permuted_gaussians(sigma=-1.0)


def test_ideal_data_rows_have_unit_norm_in_expectation():
    data = make_wolf_bileschi_ideal(3, 2000, 50, random_state=2)
    norms = np.linalg.norm(data.M, axis=1)
    assert np.allclose(norms[:3], 1.0)
    assert np.mean(norms[3:] ** 2) == pytest.approx(1.0, rel=0.02)


def test_haar_filters_form_an_orthonormal_basis_without_overlap():
    bank = haar_filters((8, 8), overcomplete=False, include_average=True)
    assert bank.matrix.shape == (64, 64)
    assert np.allclose(bank.matrix.T @ bank.matrix, np.eye(64), atol=1e-12)
    # A rotation of pixel space: PCA sees exactly the same data (Sec. 1).
    rng = np.random.default_rng(4)
    images = rng.random((30, 8, 8))
    pix = weighted_pca(images.reshape(30, -1).T, None, 5, preprocess=False)
    haar = weighted_pca(haar_features(images, bank).T, None, 5, preprocess=False)
    assert np.allclose(np.abs(pix.embedding), np.abs(haar.embedding), atol=1e-10)


def test_overcomplete_haar_features():
    bank = haar_filters((8, 8))
    assert bank.n_filters == (49 + 9 + 1) * 3
    assert np.allclose(np.linalg.norm(bank.matrix, axis=0), 1.0)
    assert np.allclose(bank.matrix.sum(axis=0), 0.0)
    j = int(np.flatnonzero((bank.size == 4) & (bank.orientation == "vertical"))[0])
    patch = bank.image(j)[bank.top[j] : bank.top[j] + 4, bank.left[j] : bank.left[j] + 4]
    assert np.allclose(patch[:, :2], 0.25) and np.allclose(patch[:, 2:], -0.25)
    images = np.random.default_rng(5).random((3, 8, 8))
    assert np.allclose(haar_features(images), images.reshape(3, -1) @ bank.matrix)
    with pytest.raises(ValueError, match="built for images of shape"):
        haar_features(np.zeros((2, 6, 6)), bank)
    with pytest.raises(ValueError, match="even integers"):
        haar_filters((8, 8), sizes=(3,))


# ------------------------------------------------------------------------------ plots


def test_plots_draw_and_update_in_place():
    fig, axes = plt.subplots(1, 4)
    data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    proj = weighted_pca(data.M, None, 2)
    art = plot_cluster_projection(axes[0], proj.embedding, data.y)
    update_cluster_projection(art, 2 * proj.embedding)
    assert np.allclose(art["points"].get_offsets(), 2 * proj.embedding)

    alpha = np.linspace(1, 0, 203)
    art = plot_variable_weights(axes[1], alpha, data.relevant, max_features=50)
    assert len(art["bars"].patches) == 50
    assert art["bars"].patches[0].get_facecolor() != art["bars"].patches[10].get_facecolor()
    update_variable_weights(art, alpha[::-1])
    assert art["bars"].patches[0].get_height() == pytest.approx(alpha[-1])

    det = detectability(3.0, 200, 100)
    eig = np.linalg.eigvalsh(data.M.T @ data.M)
    art = plot_spectrum_vs_bulk(axes[2], eig, det)
    det2 = detectability(5.0, 200, 100)
    update_spectrum_vs_bulk(art, eig, det2)
    assert art["top"].get_xdata()[0] == pytest.approx(det2.top_eigenvalue)

    art = plot_detectability(axes[3], 2.5, 100, 200)
    update_detectability(art, 3.5, 100, 300)
    assert art["signal"].get_ydata()[0] == pytest.approx(3.5)
    assert art["current"].get_xdata()[0] == 300
    plt.close(fig)


# ------------------------------------------------------------------------- reproductions


def test_quick_reproductions():
    from spectral_kit.reproduce import REGISTRY

    keys = [k for k in REGISTRY if k.startswith("wolf-bileschi-2005/")]
    assert sorted(keys) == [
        "wolf-bileschi-2005/fig1", "wolf-bileschi-2005/fig2", "wolf-bileschi-2005/table1",
        "wolf-bileschi-2005/wishart",
    ]
    wishart = REGISTRY["wolf-bileschi-2005/wishart"].func(quick=True)
    # Quick verdicts are provisional; their leaning shows what the quick draws say.
    printed = [c.leaning for c in wishart.comparisons
               if c.quantity.startswith(("mean top eigenvalue of A₂", "mean of v₁ᵀA₂v₁"))]
    assert printed == ["differs"] * 4  # the printed formulas are off by n₂/q and 1/q
    fig2 = REGISTRY["wolf-bileschi-2005/fig2"].func(quick=True)
    sharper = [c for c in fig2.comparisons if c.quantity.startswith("Algo. 1 sharper")]
    assert sharper[0].leaning == "reproduced"
    for key in ("wolf-bileschi-2005/fig1", "wolf-bileschi-2005/table1"):
        rep = REGISTRY[key].func(quick=True)
        assert rep.comparisons and rep.settings["quick"]
        assert "|" in rep.to_markdown()


def test_nearest_neighbour_rate_shares_ties_and_ignores_rounding():
    from sklearn.neighbors import KNeighborsClassifier

    from spectral_kit.reproduce.weighting import _nn_rate

    rng = np.random.default_rng(0)
    Z_train, Z_test = rng.normal(size=(30, 5)), rng.normal(size=(200, 5))
    y_train, y_test = rng.integers(0, 3, 30), rng.integers(0, 3, 200)
    knn = KNeighborsClassifier(n_neighbors=1).fit(Z_train, y_train)
    # Without ties it is the ordinary 1-NN rate.
    assert _nn_rate(Z_train, y_train, Z_test, y_test) == pytest.approx(
        100 * knn.score(Z_test, y_test))
    # Two training points exactly as far from the test point, one with its label: half a hit,
    # whichever of them rounding in a rotated copy of the space puts nearer.
    Z_tr, y_tr = np.array([[1.0, 0.0], [0.0, 1.0], [5.0, 5.0]]), np.array([0, 1, 0])
    Z_te, y_te = np.zeros((1, 2)), np.array([1])
    assert _nn_rate(Z_tr, y_tr, Z_te, y_te) == 50.0
    for angle in (0.1, 0.7, 2.0):
        R = np.array([[np.cos(angle), -np.sin(angle)], [np.sin(angle), np.cos(angle)]])
        shifted = np.array([0.3, -1.7])
        assert _nn_rate(Z_tr @ R + shifted, y_tr, Z_te @ R + shifted, y_te) == 50.0
