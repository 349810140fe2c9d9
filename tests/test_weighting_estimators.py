"""WeightedPCA and WeightedFDA: the scikit-learn contract and agreement with the library."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
from spectral_kit.estimators.weighting import WeightedFDA, WeightedPCA
from spectral_kit.weighting import (
    parameter_free_weights,
    pca_weights,
    supervised_weights,
    weighted_fda,
    weighted_pca,
)


@parametrize_with_checks(
    [
        WeightedPCA(),
        WeightedPCA(weighting="q-alpha", max_iter=50),
        WeightedFDA(),
        WeightedFDA(weighting="parameter-free"),
    ]
)
def test_sklearn_compatible(estimator, check):
    check(estimator)


@pytest.fixture(scope="module")
def fig1():
    return make_wolf_bileschi_fig1(sigma=0.1, random_state=0)


def test_weighted_pca_matches_the_library(fig1):
    est = WeightedPCA(n_components=2)
    Z = est.fit_transform(fig1.X)
    alpha = parameter_free_weights(fig1.M).alpha
    assert np.allclose(est.alpha_, alpha, atol=1e-12)
    ref = weighted_pca(fig1.M, alpha, 2)
    assert np.allclose(Z, ref.embedding, atol=1e-10)
    assert np.allclose(est.transform(fig1.X), Z, atol=1e-10)
    assert est.get_feature_names_out().tolist() == ["weightedpca0", "weightedpca1"]


def test_weighted_pca_with_q_alpha_uses_algo1(fig1):
    est = WeightedPCA(n_components=2, weighting="q-alpha").fit(fig1.X)
    assert np.allclose(est.alpha_, pca_weights(fig1.M, 2).alpha, atol=1e-12)
    assert est.n_iter_ == est.result_.details.n_iter
    uniform = WeightedPCA(n_components=2, weighting="uniform").fit(fig1.X)
    assert np.allclose(uniform.alpha_, 1 / np.sqrt(fig1.X.shape[1]))


def test_weighted_fda_matches_the_library(fig1):
    est = WeightedFDA(lam=0.5)
    Z = est.fit_transform(fig1.X, fig1.y)
    alpha = supervised_weights(fig1.M, fig1.y, 0.5).alpha
    assert np.allclose(est.alpha_, alpha, atol=1e-12)
    ref = weighted_fda(fig1.M, fig1.y, alpha)
    assert Z.shape == (100, 1)
    assert np.allclose(Z, ref.embedding, atol=1e-8)
    assert np.allclose(est.transform(fig1.X), Z, atol=1e-8)
    assert est.fisher_ratios_[0] > 0


def test_estimators_do_not_mutate_input(fig1):
    X = fig1.X.copy()
    y = fig1.y.copy()
    WeightedPCA().fit(X).transform(X)
    WeightedFDA().fit(X, y).transform(X)
    assert np.array_equal(X, fig1.X) and np.array_equal(y, fig1.y)


def test_estimators_report_bad_input(fig1):
    X = fig1.X.copy()
    X[:, 5] = 1.0
    with pytest.raises(ValueError, match=r"constant feature row.*row index 5"):
        WeightedPCA().fit(X)
    y = fig1.y.copy()
    y[0] = 9
    with pytest.raises(ValueError, match="single sample"):
        WeightedFDA().fit(fig1.X, y)
    with pytest.raises(ValueError, match="lam must lie in"):
        WeightedFDA(lam=-1.0).fit(fig1.X, fig1.y)
    with pytest.raises(ValueError, match="weighting must be one of"):
        WeightedPCA(weighting="pca").fit(fig1.X)
