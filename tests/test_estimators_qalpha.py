"""QAlphaSelector: scikit-learn's own checks, pipelines and supervision."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.svm import LinearSVC
from sklearn.utils.estimator_checks import parametrize_with_checks

from spectral_kit import QAlphaSelector
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
