"""Unsupervised graph-spectral baselines: Laplacian score (He et al. 2005) and SPEC (Zhao &
Liu 2007), against a hand-worked graph and an independent dense computation."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit.baselines import (
    heat_kernel_affinity,
    laplacian_score,
    rank_features,
    spec_score,
)

#: The path graph 0 – 1 – 2 with unit weights.
PATH = np.array([[0.0, 1.0, 0.0], [1.0, 0.0, 1.0], [0.0, 1.0, 0.0]])


def test_hand_worked_path_graph():
    # f = (1, 0, −1): f̃ = f (its D-weighted mean 1·1 + 2·0 − 1·1 is 0), f̃ᵀLf̃ = 1 + 1 = 2,
    # f̃ᵀDf̃ = 1 + 0 + 1 = 2, so L = 1. f = (1, 1, 0): D-mean 3/4, f̃ = (1/4, 1/4, −3/4),
    # f̃ᵀLf̃ = (1 − 1)² + (1 − 0)² = 1, f̃ᵀDf̃ = 1/16 + 2/16 + 9/16 = 3/4, so L = 4/3.
    X = np.array([[1.0, 1.0], [0.0, 1.0], [-1.0, 0.0]])
    np.testing.assert_allclose(laplacian_score(X, affinity=PATH), [1.0, 4.0 / 3.0])
    # φ₁ = fᵀLf / fᵀDf: 2 / 2 and 1 / 3; φ₂ is the Laplacian score.
    np.testing.assert_allclose(spec_score(X, ranking=1, affinity=PATH), [1.0, 1.0 / 3.0])
    np.testing.assert_allclose(spec_score(X, ranking=2, affinity=PATH), [1.0, 4.0 / 3.0])
    # 𝓛 of the path has eigenvalues 0, 1, 2; ξ₂ = (1, 0, −1)/√2 for λ₂ = 1. For f = (1, 1, 0),
    # f̂ = D^{1/2}f/‖·‖ = (1, √2, 0)/√3, α₂ = 1/√6 and φ₃ (k = 2) = (2 − 1)/6. For
    # f = (1, 0, −1), f̂ = (1, 0, −1)/√2 = ξ₂, so φ₃ = 2 − 1 = 1.
    np.testing.assert_allclose(spec_score(X, ranking=3, n_clusters=2, affinity=PATH),
                               [1.0, 1.0 / 6.0])


def _brute_affinity(X, k, t):
    n = X.shape[0]
    S = np.zeros((n, n))
    for i in range(n):
        dist = [float(np.sum((X[i] - X[j]) ** 2)) if j != i else np.inf for j in range(n)]
        for j in np.argsort(dist)[:k]:
            S[i, j] = S[j, i] = np.exp(-dist[j] / t)
    return S


def test_knn_heat_kernel_graph_matches_brute_force():
    X = np.random.default_rng(0).normal(size=(25, 4))
    S = heat_kernel_affinity(X, n_neighbors=4, t=3.0)
    np.testing.assert_allclose(S, _brute_affinity(X, 4, 3.0), rtol=1e-12, atol=0)
    # Default width: the mean squared distance over the edges.
    edges = S > 0
    sq = ((X[:, None, :] - X[None, :, :]) ** 2).sum(-1)
    default = heat_kernel_affinity(X, n_neighbors=4)
    np.testing.assert_allclose(default[edges], np.exp(-sq[edges] / sq[edges].mean()))
    full = heat_kernel_affinity(X, n_neighbors=None, t=2.0)
    off = ~np.eye(25, dtype=bool)
    np.testing.assert_allclose(full[off], np.exp(-sq[off] / 2.0))
    assert np.all(np.diag(full) == 0)


def test_scores_match_an_independent_dense_computation():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(30, 6)) * rng.uniform(0.1, 10.0, size=6) + rng.normal(size=6)
    S = heat_kernel_affinity(X, n_neighbors=5)
    D = np.diag(S.sum(axis=1))
    L = D - S
    one = np.ones(30)
    expected_ls, phi1, phi2, phi3 = [], [], [], []
    Dh, Dmh = np.diag(np.sqrt(np.diag(D))), np.diag(1.0 / np.sqrt(np.diag(D)))
    lam, xi = np.linalg.eigh(Dmh @ L @ Dmh)
    for f in X.T:
        ft = f - (f @ D @ one) / (one @ D @ one) * one
        expected_ls.append((ft @ L @ ft) / (ft @ D @ ft))
        fh = Dh @ f / np.linalg.norm(Dh @ f)
        alpha = xi.T @ fh
        phi1.append(np.sum(lam * alpha**2))
        phi2.append(np.sum(lam[1:] * alpha[1:] ** 2) / np.sum(alpha[1:] ** 2))
        phi3.append(np.sum((2.0 - lam[1:4]) * alpha[1:4] ** 2))
    np.testing.assert_allclose(laplacian_score(X, n_neighbors=5), expected_ls, rtol=1e-10)
    np.testing.assert_allclose(spec_score(X, ranking=1, affinity=S), phi1, rtol=1e-10)
    np.testing.assert_allclose(spec_score(X, ranking=2, affinity=S), phi2, rtol=1e-10)
    np.testing.assert_allclose(spec_score(X, ranking=3, n_clusters=4, affinity=S), phi3,
                               rtol=1e-8)


def test_laplacian_score_is_spec_phi2_and_scale_free():
    """Zhao & Liu: the Laplacian score is φ₂ on the same graph; both are per-feature ratios,
    so rescaling or shifting a feature (the graph fixed) leaves its score unchanged."""
    X = np.random.default_rng(2).normal(size=(40, 5))
    S = heat_kernel_affinity(X, n_neighbors=6)
    ls = laplacian_score(X, affinity=S)
    np.testing.assert_allclose(ls, spec_score(X, ranking=2, affinity=S), rtol=1e-10)
    assert np.all((ls >= 0) & (ls <= 2))
    Y = X * np.array([1.0, 100.0, 0.01, 3.0, 1.0]) + np.array([0.0, 5.0, -2.0, 0.0, 1e3])
    np.testing.assert_allclose(laplacian_score(Y, affinity=S), ls, rtol=1e-8)
    np.testing.assert_allclose(spec_score(Y, ranking=2, affinity=S), ls, rtol=1e-8)


def test_cluster_features_rank_first():
    """Two separated clusters along two features, among noise features: every score puts
    the two cluster features on top (smaller for LS, φ₁, φ₂; larger for φ₃)."""
    rng = np.random.default_rng(3)
    y = np.repeat([0, 1], 40)
    signal = np.where(y[:, None] == 0, -2.0, 2.0) + 0.3 * rng.normal(size=(80, 2))
    X = np.hstack([rng.normal(size=(80, 3)), signal, rng.normal(size=(80, 3))])
    relevant = {3, 4}
    assert set(rank_features(-laplacian_score(X, n_neighbors=5))[:2]) == relevant
    for ranking in (1, 2):
        assert set(rank_features(-spec_score(X, ranking=ranking))[:2]) == relevant
    assert set(rank_features(spec_score(X, ranking=3, n_clusters=2))[:2]) == relevant


def test_inputs_are_not_modified():
    X = np.random.default_rng(4).normal(size=(20, 3))
    S = heat_kernel_affinity(X)
    X0, S0 = X.copy(), S.copy()
    laplacian_score(X, affinity=S)
    spec_score(X, ranking=3, n_clusters=2, affinity=S)
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(S, S0)


def test_bad_input_names_the_argument():
    X = np.random.default_rng(5).normal(size=(10, 3))
    with pytest.raises(ValueError, match="constant"):
        laplacian_score(np.hstack([X, np.ones((10, 1))]))
    with pytest.raises(ValueError, match="ranking"):
        spec_score(X, ranking=4)
    with pytest.raises(ValueError, match="n_clusters"):
        spec_score(X, ranking=3)
    with pytest.raises(ValueError, match="n_neighbors"):
        laplacian_score(X, n_neighbors=10)
    with pytest.raises(TypeError, match="n_neighbors"):
        heat_kernel_affinity(X, n_neighbors=2.5)
    with pytest.raises(ValueError, match="t"):
        heat_kernel_affinity(X, t=-1.0)
    S = heat_kernel_affinity(X)
    with pytest.raises(ValueError, match="symmetric"):
        laplacian_score(X, affinity=S + np.triu(np.ones((10, 10)), 1))
    with pytest.raises(ValueError, match="non-negative"):
        laplacian_score(X, affinity=S - 1.0)
    with pytest.raises(ValueError, match="n_samples"):
        laplacian_score(X, affinity=S[:5, :5])
    isolated = S.copy()
    isolated[0, :] = isolated[:, 0] = 0.0
    with pytest.raises(ValueError, match="degree 0"):
        spec_score(X, affinity=isolated)
    with pytest.raises(ValueError, match="NaN"):
        laplacian_score(np.where(X > 1, np.nan, X))
