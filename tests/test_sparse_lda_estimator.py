"""SparseLDA: the scikit-learn estimator over sparse LDA (Moghaddam, Weiss & Avidan 2006)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis
from sklearn.feature_selection import SequentialFeatureSelector
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit import SparseLDA
from spectral_kit import sparse_lda as sl
from spectral_kit.bench.sparse_lda import RayleighScore, rayleigh_scorer


@parametrize_with_checks([SparseLDA(), SparseLDA(method="eslda", n_features_to_select=2)])
def test_sklearn_compatible(estimator, check):
    check(estimator)


def _data(seed: int = 0, n: int = 120, p: int = 10):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = rng.integers(0, 2, n)
    X[y == 1, :3] += [1.5, 1.0, 0.8]
    return X, y


@pytest.mark.parametrize("method", ["gslda", "eslda", "forward", "backward", "threshold"])
def test_selection_and_sparse_coefficients(method):
    X, y = _data()
    model = SparseLDA(n_features_to_select=3, method=method).fit(X, y)
    support = model.get_support(indices=True)
    assert support.size == 3
    assert np.all(model.coef_[0][~model.support_] == 0)
    assert model.transform(X).shape == (120, 3)
    sc = sl.scatter_matrices(X, y)
    expected = sl.renormalize(sc.d, sc.B, support)
    assert model.value_ == pytest.approx(expected.value, rel=1e-10)
    cos = model.coef_[0] @ model.discriminant_ / (
        np.linalg.norm(model.coef_[0]) * np.linalg.norm(model.discriminant_))
    assert abs(cos) == pytest.approx(1.0, abs=1e-10)  # coef_ is the Eq. 6 factor
    if method == "gslda":
        np.testing.assert_array_equal(support, sl.gslda(sc.d, sc.B).support_at(3))
    if method == "eslda":
        assert model.optimal_
        assert model.value_ == pytest.approx(sl.exhaustive(sc.d, sc.B, 3).value, rel=1e-9)
    assert model.score(X, y) > 0.7


def test_all_features_is_plain_lda():
    X, y = _data(1)
    model = SparseLDA(n_features_to_select=10, regularization=None).fit(X, y)
    ref = LinearDiscriminantAnalysis(solver="lsqr").fit(X, y)
    np.testing.assert_allclose(model.coef_, ref.coef_, rtol=1e-8)
    np.testing.assert_allclose(model.decision_function(X), ref.decision_function(X), rtol=1e-8)
    assert model.epsilon_ == 0.0


def test_multiclass_and_fraction_floor():
    rng = np.random.default_rng(2)
    X = rng.standard_normal((90, 2))
    y = np.repeat([0, 1, 2], 30)
    X[y == 1, 0] += 3
    X[y == 2, 1] += 3
    model = SparseLDA().fit(X, y)  # 0.5 of 2 features, raised to n_classes − 1 = 2
    assert model.support_.sum() == 2
    assert model.decision_function(X).shape == (90, 3)
    assert SparseLDA(n_features_to_select=1).fit(X, y).support_.sum() == 1


def test_rank_deficient_data_is_regularized_and_reported():
    rng = np.random.default_rng(3)
    X = rng.standard_normal((12, 30))  # more features than samples: B is singular
    y = np.repeat([0, 1], 6)
    model = SparseLDA(n_features_to_select=5).fit(X, y)
    assert model.epsilon_ > 0
    with pytest.raises(ValueError, match="regularization"):
        SparseLDA(n_features_to_select=5, regularization=None).fit(X, y)
    with pytest.raises(ValueError, match="method"):
        SparseLDA(method="lasso").fit(X, y)


def test_sfs_baseline_selects_what_greedy_forward_selects():
    """The benchmark's baseline (SFS + Rayleigh score) performs the same forward selection."""
    X, y = _data(4, p=12)
    sc = sl.scatter_matrices(X, y)
    sfs = SequentialFeatureSelector(
        RayleighScore(0.0), n_features_to_select=4, scoring=rayleigh_scorer,
        cv=[(np.arange(120), np.arange(120))],
    ).fit(X, y)
    forward = sl.greedy_forward(sc.d, sc.B, 4)
    assert set(np.flatnonzero(sfs.get_support())) == set(forward.order.tolist())
