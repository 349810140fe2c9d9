"""QAlphaSelector: scikit-learn's own checks, pipelines and supervision."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit import QAlphaSelector, q_alpha_supervised
from spectral_kit.datasets import make_multiclass_clusters, make_weston_linear


@parametrize_with_checks([QAlphaSelector(random_state=0)])
def test_sklearn_checks(estimator, check):
    check(estimator)


def test_unsupervised_selection_finds_clusters():
    data = make_multiclass_clusters(3, random_state=0)
    sel = QAlphaSelector(n_features_to_select=5, k=3).fit(data.X)
    assert sel.get_support().sum() == 5
    assert data.relevant[sel.get_support()].sum() >= 4
    assert sel.transform(data.X).shape == (data.X.shape[0], 5)
    assert sel.alpha_.shape == (125,) and sel.result_.n_iter == sel.n_iter_


def test_uses_labels_when_given():
    data = make_weston_linear(100, random_state=1)
    supervised = QAlphaSelector(6).fit(data.X, data.y)
    unsupervised = QAlphaSelector(6, use_labels=False).fit(data.X, data.y)
    assert "classes" in supervised.result_.extra
    assert "classes" not in unsupervised.result_.extra


def test_pipeline_and_grid_search():
    data = make_weston_linear(80, random_state=2)
    pipe = Pipeline([("select", QAlphaSelector(random_state=0)), ("svm", LinearSVC())])
    grid = GridSearchCV(pipe, {"select__n_features_to_select": [2, 6, 0.5]}, cv=3)
    grid.fit(data.X, data.y)
    assert grid.best_params_["select__n_features_to_select"] in (2, 6, 0.5)
    assert grid.score(data.X, data.y) > 0.8


def test_bad_parameters():
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match=r"fraction must lie in \(0, 1\]"):
        QAlphaSelector(1.5).fit(X)
    with pytest.raises(ValueError, match="≥ 1"):
        QAlphaSelector(0).fit(X)
    with pytest.raises(TypeError, match="n_features_to_select must be"):
        QAlphaSelector("all").fit(X)


def test_single_class_y_is_an_error_not_unsupervised():
    X = np.random.default_rng(0).standard_normal((10, 4))
    with pytest.raises(ValueError, match=r"at least two classes in y; got 1 class \(3\)"):
        QAlphaSelector(2).fit(X, np.full(10, 3))
    # Without labels, or told to ignore them, it runs unsupervised.
    assert "classes" not in QAlphaSelector(2).fit(X).result_.extra
    assert "classes" not in QAlphaSelector(2, use_labels=False).fit(X, np.full(10, 3)).result_.extra


def test_continuous_y_is_an_error_not_many_classes():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((30, 5))
    with pytest.raises(ValueError, match="looks continuous"):
        QAlphaSelector(2).fit(X, X[:, 0] * 3.7)
    # Integer-valued floats are class labels.
    QAlphaSelector(2).fit(X, np.repeat([0.0, 1.0, 2.0], 10))


def test_constant_feature_is_named_as_constant():
    X = np.random.default_rng(0).standard_normal((12, 5))
    X[:, 3] = 7.0
    for y in (None, np.repeat([0, 1], 6)):
        with pytest.raises(ValueError, match=r"1 constant feature\(s\) \(column index 3\)"):
            QAlphaSelector(2).fit(X, y)


def test_mean_shift_features_selected_with_labels():
    """Features 0–4 move with the class: the selector with y keeps exactly them."""
    for seed in range(5):
        rng = np.random.default_rng(seed)
        y = np.repeat([0, 1], 50)
        X = rng.standard_normal((100, 60))
        X[:, :5] += 1.5 * (2 * y[:, None] - 1)
        sel = QAlphaSelector(n_features_to_select=5, random_state=0).fit(X, y)
        np.testing.assert_array_equal(np.flatnonzero(sel.get_support()), np.arange(5))
        assert sel.result_.extra["reading"] == "balanced"


def test_reading_is_passed_through():
    data = make_weston_linear(60, random_state=0)
    for reading in ("class", "label-subspace"):
        sel = QAlphaSelector(6, reading=reading, random_state=0).fit(data.X, data.y)
        ref = q_alpha_supervised(data.X.T, data.y, reading=reading, random_state=0)
        np.testing.assert_allclose(sel.alpha_, ref.alpha)
    with pytest.raises(ValueError, match="reading must be one of"):
        QAlphaSelector(6, reading="within").fit(data.X, data.y)
