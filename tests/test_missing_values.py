"""Masked arrays and pandas' missing values are refused by name, never read silently.

NumPy reads a masked array as its data: without the check, ``q_alpha`` on a masked array
equals the result on the raw data, a masked 10⁶ included. Every public function and
estimator that takes data goes through :func:`spectral_kit.validation.reject_missing`.
"""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit import baselines, preprocess, sparse_lda, stability, weighting
from spectral_kit.estimators import (
    QAlphaSelector,
    QAlphaSideSelector,
    SparseLDA,
    StableSparsePCA,
    WeightedFDA,
    WeightedPCA,
)
from spectral_kit.qalpha import kernel_q_alpha, q_alpha, q_alpha_supervised
from spectral_kit.validation import reject_missing

RNG = np.random.default_rng(0)
X = RNG.standard_normal((16, 8))  # samples × features
Y = np.repeat([0, 1], 8)


def _entry_points():
    """(name, call taking the data X as samples × features) for 11+ public entry points."""
    return {
        "q_alpha": lambda X: q_alpha(X.T, 2, random_state=0),
        "q_alpha_supervised": lambda X: q_alpha_supervised(X.T, Y),
        "kernel_q_alpha": lambda X: kernel_q_alpha(X.T, 2, random_state=0),
        "parameter_free_weights": lambda X: weighting.parameter_free_weights(X.T),
        "pca_weights": lambda X: weighting.pca_weights(X.T, 2, random_state=0),
        "preprocess_rows": lambda X: preprocess.preprocess_rows(X.T),
        "bootstrap_intervals": lambda X: stability.bootstrap_intervals(
            X, n_resamples=20, random_state=0),
        "sbs": lambda X: stability.sbs(X, retain=0.5, n_resamples=20, random_state=0),
        "similarity_matrix": lambda X: stability.similarity_matrix(X),
        "scatter_matrices": lambda X: sparse_lda.scatter_matrices(X, Y),
        "fisher_score": lambda X: baselines.fisher_score(X, Y),
        "laplacian_score": lambda X: baselines.laplacian_score(X),
        "fit_discriminant": lambda X: sparse_lda.fit_discriminant(X, Y),
        "QAlphaSelector": lambda X: QAlphaSelector(n_features_to_select=2).fit(X),
        "QAlphaSelector(y)": lambda X: QAlphaSelector(n_features_to_select=2).fit(X, Y),
        "QAlphaSideSelector": lambda X: QAlphaSideSelector(n_features_to_select=2).fit(
            X, X_side=RNG.standard_normal((16, 3))),
        "SparseLDA": lambda X: SparseLDA(2).fit(X, Y),
        "StableSparsePCA": lambda X: StableSparsePCA(n_resamples=20, random_state=0).fit(X),
        "WeightedPCA": lambda X: WeightedPCA(n_components=2).fit(X),
        "WeightedFDA": lambda X: WeightedFDA().fit(X, Y),
    }


ENTRY_POINTS = _entry_points()


def _masked_million() -> np.ma.MaskedArray:
    data = X.copy()
    data[3, 2] = 1e6  # the value a mask hides
    mask = np.zeros_like(data, dtype=bool)
    mask[3, 2] = True
    return np.ma.masked_array(data, mask)


def test_there_are_enough_entry_points():
    assert len(ENTRY_POINTS) >= 11


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_a_masked_entry_is_refused_by_name(name):
    with pytest.raises(ValueError, match=r"(X|M) is a masked array with 1 masked entry"):
        ENTRY_POINTS[name](_masked_million())


@pytest.mark.parametrize("name", ["q_alpha", "bootstrap_intervals", "SparseLDA",
                                  "WeightedPCA"])
def test_a_mask_that_hides_nothing_changes_nothing(name):
    unmasked = np.ma.masked_array(X, np.zeros_like(X, dtype=bool))
    a, b = ENTRY_POINTS[name](X), ENTRY_POINTS[name](unmasked)
    for attr in ("alpha", "lower", "coef_", "alpha_"):
        if hasattr(a, attr):
            np.testing.assert_array_equal(getattr(a, attr), getattr(b, attr))
            return
    pytest.fail(f"{name}: nothing to compare")


def test_an_unmasked_call_gives_the_result_the_masked_one_used_to_copy():
    # The defect: the masked call equalled the call on the raw data (1e6 included).
    raw = _masked_million().data
    assert not np.allclose(q_alpha(raw.T, 2, random_state=0).alpha,
                           q_alpha(X.T, 2, random_state=0).alpha)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_pandas_na_in_an_object_array_is_refused_by_name(name):
    pd = pytest.importorskip("pandas")
    data = X.astype(object)
    data[1, 1] = pd.NA
    with pytest.raises(ValueError, match=r"(X|M) holds 1 missing value"):
        ENTRY_POINTS[name](data)


@pytest.mark.parametrize("name", sorted(ENTRY_POINTS))
def test_a_masked_constant_in_an_object_array_is_refused(name):
    data = X.astype(object)
    data[1, 1] = np.ma.masked  # NumPy would read it as 0.0
    with pytest.raises(ValueError, match=r"(X|M) holds 1 missing value"):
        ENTRY_POINTS[name](data)


@pytest.mark.parametrize("name", ["QAlphaSelector", "SparseLDA", "StableSparsePCA",
                                  "WeightedPCA", "WeightedFDA"])
def test_a_dataframe_with_na_is_refused_by_estimators(name):
    pd = pytest.importorskip("pandas")
    frame = pd.DataFrame(X).astype("Float64")
    frame.iloc[2, 3] = pd.NA
    with pytest.raises(ValueError, match=r"X has 1 missing value\(s\) \(pandas NA or NaN\)"):
        ENTRY_POINTS[name](frame)


def test_labels_with_na_or_a_mask_are_refused():
    labels = np.ma.masked_array(Y, np.eye(1, Y.size, 0, dtype=bool)[0])
    with pytest.raises(ValueError, match=r"y is a masked array with 1 masked entry"):
        q_alpha_supervised(X.T, labels)
    with pytest.raises(ValueError, match=r"y is a masked array"):
        SparseLDA(2).fit(X, labels)
    with pytest.raises(ValueError, match=r"y is a masked array"):
        QAlphaSelector(n_features_to_select=2).fit(X, labels)


def test_reject_missing_passes_clean_data_through():
    for value in (X, X.astype(object), np.ma.masked_array(X), [[1.0, 2.0]], None, "text"):
        reject_missing(value, "X")
