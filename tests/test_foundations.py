"""Validation, preprocessing and the shared linear algebra."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from scipy.sparse.linalg import aslinearoperator

from spectral_kit.linalg import (
    fix_sign,
    kernel_gram_schmidt,
    leading_eigenvector,
    orthonormalize,
    principal_generalized_eigvalsh,
    weighted_gram,
)
from spectral_kit.metrics import clustering_accuracy, sparsity_gap
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.validation import (
    as_generator,
    check_array,
    check_choice,
    check_finite_scalar,
    check_indices,
    check_int,
    check_labels,
    check_probability,
    check_symmetric,
)


def test_preprocess_rows_centres_and_normalises_without_touching_input():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((7, 11)) * 5 + 3
    before = M.copy()
    out = preprocess_rows(M)
    np.testing.assert_allclose(out.mean(axis=1), 0, atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(out, axis=1), 1, rtol=1e-12)
    np.testing.assert_array_equal(M, before)
    assert out is not M


def test_preprocess_rejects_constant_rows():
    M = np.vstack([np.arange(5.0), np.full(5, 3.0)])
    with pytest.raises(ValueError, match=r"1 constant feature row\(s\) \(row index 1\)"):
        preprocess_rows(M)
    with pytest.raises(ValueError, match="all-zero"):
        preprocess_rows(np.vstack([np.arange(5.0), np.zeros(5)]), center=False)


@pytest.mark.parametrize(
    ("func", "args", "error", "match"),
    [
        (check_array, ([[1.0, np.nan]], "X"), ValueError, "X contains 1 NaN"),
        (check_array, ([1.0, 2.0], "X"), ValueError, "X must be a 2-D array"),
        (check_array, ([["a", "b"]], "X"), TypeError, "X must be a numeric array"),
        (check_array, (None, "X"), TypeError, "got None"),
        (check_int, (0, "k"), None, None),
        (check_int, (5, "k", ), None, None),
        (check_int, (2.0, "k"), TypeError, "k must be an integer"),
        (check_int, (True, "k"), TypeError, "k must be an integer"),
        (check_finite_scalar, (-1.0, "lam"), None, None),
        (check_finite_scalar, (np.nan, "lam"), ValueError, "lam must be finite"),
        (check_probability, (1.0, "confidence"), ValueError, r"confidence must lie in \(0, 1\)"),
        (check_choice, ("x", "method", ("a", "b")), ValueError, "method must be one of 'a', 'b'"),
        (check_labels, ([0, 1], 3), ValueError, "y has 2 labels but the data have 3 samples"),
        (check_labels, ([[0, 1]], 2), ValueError, "1-D array"),
        (as_generator, ("seed",), TypeError, "random_state must be None"),
        (as_generator, (-1,), ValueError, "non-negative"),
        (check_indices, ([0, 0], "support"), None, None),
    ],
)
def test_validation_messages_name_the_argument(func, args, error, match):
    if error is None:
        return
    with pytest.raises(error, match=match):
        func(*args)


def test_validation_ranges():
    with pytest.raises(ValueError, match=r"k must be an integer in \[1, 4\]; got k=5"):
        check_int(5, "k", low=1, high=4)
    with pytest.raises(ValueError, match=r"lam must lie in \[0, inf\]; got lam=-1"):
        check_finite_scalar(-1.0, "lam", low=0.0)
    with pytest.raises(ValueError, match="repeated"):
        check_indices([1, 1], "support", size=3)
    with pytest.raises(ValueError, match=r"indices in \[0, 2\]"):
        check_indices([3], "support", size=3)
    np.testing.assert_array_equal(check_indices([2, 0], "support", size=3), [0, 2])
    with pytest.raises(ValueError, match="must be symmetric"):
        check_symmetric(np.array([[1.0, 2.0], [0.0, 1.0]]), "A")
    g = np.random.default_rng(3)
    assert as_generator(g) is g
    assert as_generator(np.random.RandomState(0)).random() == as_generator(
        np.random.RandomState(0)).random()


@pytest.mark.parametrize("n", [2, 5, 150, 400])
def test_leading_eigenvector_dense_operator_and_warm_agree(n):
    rng = np.random.default_rng(n)
    B = rng.standard_normal((n, n))
    A = B + B.T
    w, V = scipy.linalg.eigh(A)
    ref = fix_sign(V[:, -1])
    dense = leading_eigenvector(A)
    op = leading_eigenvector(aslinearoperator(A), random_state=0)
    warm = leading_eigenvector(aslinearoperator(A), v0=ref + 1e-3 * rng.standard_normal(n))
    for pair in (dense, op, warm):
        assert pair.value == pytest.approx(w[-1], rel=1e-9)
        assert float(pair.vector @ ref) > 1 - 1e-9
        assert pair.vector.sum() > 0


def test_fix_sign_is_deterministic():
    v = np.array([1.0, -1.0])
    assert fix_sign(v)[0] == 1.0 and fix_sign(-v)[0] == 1.0
    assert fix_sign(np.array([-3.0, 1.0])).sum() > 0


def test_orthonormalize_and_kernel_gram_schmidt_match_qr():
    Z = np.random.default_rng(1).standard_normal((20, 4))
    Q = orthonormalize(Z)
    np.testing.assert_allclose(Q.T @ Q, np.eye(4), atol=1e-12)
    R, R_inv = kernel_gram_schmidt(Z.T @ Z)
    _, R_qr = np.linalg.qr(Z)
    R_qr = np.sign(np.diag(R_qr))[:, None] * R_qr
    np.testing.assert_allclose(R, R_qr, rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(Z @ R_inv, Q, atol=1e-10)
    with pytest.raises(ValueError, match="linearly dependent"):
        kernel_gram_schmidt(np.ones((2, 2)))


def test_weighted_gram_and_principal_pairs():
    rng = np.random.default_rng(2)
    M, w = rng.standard_normal((70, 5)), rng.standard_normal(70)
    np.testing.assert_allclose(weighted_gram(M, w), M.T @ np.diag(w) @ M, atol=1e-12)
    A = rng.standard_normal((6, 6))
    A = A @ A.T
    B = np.eye(6) + 0.1 * (A / np.abs(A).max())
    S = [0, 2, 5]
    ref = scipy.linalg.eigvalsh(A[np.ix_(S, S)], B[np.ix_(S, S)])
    np.testing.assert_allclose(principal_generalized_eigvalsh(A, B, np.array(S)), ref)


def test_metrics():
    assert clustering_accuracy([0, 0, 1, 1], [1, 1, 0, 0]) == 1.0
    assert clustering_accuracy([0, 0, 1, 1, 2, 2], [0, 0, 0, 0, 1, 1]) == pytest.approx(4 / 6)
    assert sparsity_gap([2.0, 2.0, 1.0], [True, True, False]) == 2.0
    with pytest.raises(ValueError, match="at least one relevant and one irrelevant"):
        sparsity_gap([1.0, 2.0], [True, True])
