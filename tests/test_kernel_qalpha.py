"""Kernel Q-α (Wolf & Shashua 2005, Def. 14; Shashua & Wolf 2004, Def. 2)."""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.metrics.pairwise import polynomial_kernel as sk_polynomial
from sklearn.metrics.pairwise import rbf_kernel as sk_rbf

from spectral_kit import kernel_q_alpha, q_alpha
from spectral_kit.datasets import make_multiclass_clusters
from spectral_kit.datasets.side_information import make_hidden_sessions
from spectral_kit.linalg import kernel_gram_schmidt, orthonormalize
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.qalpha.kernel import (
    KernelModel,
    kernel_matrix,
    polynomial_kernel,
    sectioned_polynomial_kernel,
)


def cos(a: np.ndarray, b: np.ndarray) -> float:
    return abs(float(a @ b)) / (np.linalg.norm(a) * np.linalg.norm(b))


def poly2_feature_map(M: np.ndarray, c: float) -> np.ndarray:
    """Explicit φ with φ(x)ᵀφ(y) = (xᵀy + c)²: [x⊗x, √(2c)·x, c]."""
    n = M.shape[0]
    outer = (M[:, :, None] * M[:, None, :]).reshape(n, -1)
    return np.hstack([outer, np.sqrt(2 * c) * M, np.full((n, 1), c)])


@pytest.fixture(scope="module")
def clusters():
    return make_multiclass_clusters(3, n_points=45, n_irrelevant=40, random_state=1)


@pytest.mark.parametrize("method", ["power", "basic"])
def test_linear_kernel_reproduces_standard_q_alpha(clusters, method):
    kern = kernel_q_alpha(clusters.M, 3, "linear", method=method)
    std = q_alpha(clusters.M, 3, method=method)
    assert cos(kern.alpha, std.alpha) > 0.9999
    assert kern.objective[-1] == pytest.approx(std.objective[-1], rel=1e-8)
    assert kern.kernel == "linear"


@pytest.mark.parametrize("method", ["power", "basic", "ritz"])
def test_polynomial_kernel_equals_q_alpha_on_explicitly_mapped_rows(method):
    data = make_multiclass_clusters(3, n_points=21, n_irrelevant=12, random_state=0)
    M = preprocess_rows(data.M)
    c = 0.5
    Phi = poly2_feature_map(M, c)
    assert np.allclose(Phi @ Phi.T, polynomial_kernel(M, degree=2, coef0=c), atol=1e-12)
    kern = kernel_q_alpha(M, 3, "polynomial", degree=2, coef0=c, preprocess=False,
                          method=method, tol=1e-10)
    ref = q_alpha(Phi, 3, preprocess=False, method=method, tol=1e-10)
    assert cos(kern.alpha, ref.alpha) > 0.9999
    assert kern.objective[-1] == pytest.approx(ref.objective[-1], rel=1e-6)


def test_kernel_gram_schmidt_R_equals_explicit_qr_along_the_iteration():
    data = make_multiclass_clusters(3, n_points=30, n_irrelevant=12, random_state=2)
    M = preprocess_rows(data.M)
    Phi = poly2_feature_map(M, 1.0)
    V = Phi @ Phi.T
    model = KernelModel(V)
    E = model.initial_subspace("pca", 3, np.random.default_rng(0))
    assert np.allclose(E.T @ V @ E, np.eye(3), atol=1e-10)  # ΦᵀE⁽⁰⁾ orthonormal
    for _ in range(4):
        alpha = np.linalg.eigh(model.alpha_operator(E, None).dense())[1][:, -1]
        alpha *= np.sign(alpha.sum())
        Z = Phi.T @ (alpha[:, None] * (V @ E))  # the "uncomputable" Z, formed explicitly
        _Q, R = np.linalg.qr(Z)
        R *= np.sign(np.diag(R))[:, None]
        R_kgs, R_inv = kernel_gram_schmidt(model.z_gram(alpha, E))
        assert np.abs(R_kgs - R).max() < 1e-8
        assert np.allclose(R_inv @ R_kgs, np.eye(3), atol=1e-10)
        E_next = model.power_step(alpha, E)
        # Φᵀ E_next is the Q of the explicit QR: the E-update E ← D_α V E R⁻¹.
        assert np.abs(Phi.T @ E_next - orthonormalize(Z)).max() < 1e-8
        # The update printed in the papers, E ← E R⁻¹, leaves span(ΦᵀE) where it was.
        old, printed = Phi.T @ E, Phi.T @ (E @ R_inv)
        assert np.allclose(old @ np.linalg.pinv(old) @ printed, printed, atol=1e-8)
        E = E_next


def test_g_of_the_result_matches_its_definition(clusters):
    res = kernel_q_alpha(clusters.M, 3, "rbf", sigma=0.8)
    V, E = res.V, res.E
    G = np.array([[V[i, j] * V[:, i] @ E @ E.T @ V[:, j] for j in range(V.shape[0])]
                  for i in range(V.shape[0])])
    assert np.allclose(res.G(), G, atol=1e-10)
    # α is the leading eigenvector of the final G (Def. 14, step 2).
    _w, U = np.linalg.eigh(G)
    assert cos(U[:, -1], res.alpha) > 1 - 1e-9


def test_sectioned_kernel_is_a_sum_over_sections():
    rng = np.random.default_rng(0)
    M = rng.standard_normal((6, 21))  # 21 = 8 + 8 + 5: a shorter last section
    V = sectioned_polynomial_kernel(M, section=8, degree=2)
    brute = np.zeros((6, 6))
    for i in range(6):
        for j in range(6):
            brute[i, j] = sum(float(M[i, s:s + 8] @ M[j, s:s + 8]) ** 2 for s in (0, 8, 16))
    assert np.allclose(V, brute)
    # Blind to a sign flip of a whole section of one feature (the hidden sessions).
    flipped = M.copy()
    flipped[2, 8:16] *= -1
    assert np.allclose(sectioned_polynomial_kernel(flipped), V)


def test_named_kernels_match_scikit_learn():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((7, 11))
    assert np.allclose(kernel_matrix(M, "rbf", sigma=1.3), sk_rbf(M, gamma=1 / (2 * 1.3**2)))
    assert np.allclose(kernel_matrix(M, "polynomial", degree=3, coef0=0.5),
                       sk_polynomial(M, degree=3, gamma=1.0, coef0=0.5))
    assert np.allclose(kernel_matrix(M, "linear"), M @ M.T)


def test_callable_kernel_gives_the_same_answer_as_the_named_one(clusters):
    def kernel(A, B):
        return sk_polynomial(A, B, degree=2, gamma=1.0, coef0=1.0)

    named = kernel_q_alpha(clusters.M, 3, "polynomial", degree=2, coef0=1.0)
    custom = kernel_q_alpha(clusters.M, 3, kernel)
    assert np.allclose(named.alpha, custom.alpha, atol=1e-10)
    assert custom.kernel == "callable"


def test_objective_never_decreases_for_the_basic_scheme(clusters):
    res = kernel_q_alpha(clusters.M, 3, "polynomial", method="basic", tol=1e-10)
    assert np.all(np.diff(res.objective) >= -1e-10 * res.objective[-1])


def test_alpha_is_positive_and_random_starts_are_deterministic(clusters):
    a = kernel_q_alpha(clusters.M, 3, "rbf", init="random", n_init=3, random_state=5)
    b = kernel_q_alpha(clusters.M, 3, "rbf", init="random", n_init=3, random_state=5)
    assert np.array_equal(a.alpha, b.alpha)
    assert a.all_positive


def test_sectioned_kernel_sees_through_hidden_sessions():
    """Fig. 6b in miniature: plain Q-α is blind to signed sessions, the kernel is not."""
    kernel_hits, plain_hits = [], []
    for seed in range(4):
        data = make_hidden_sessions(0.005, random_state=seed)
        for alpha, hits in ((kernel_q_alpha(data.M, 3, "sections").alpha, kernel_hits),
                            (q_alpha(data.M, 3).alpha, plain_hits)):
            hits.append(int(data.relevant[np.argsort(-alpha)[:12]].sum()))
    assert np.mean(kernel_hits) > np.mean(plain_hits) + 3
    assert max(plain_hits) < 10  # plain Q-α never succeeds (the paper: "constantly zero")


def test_inputs_are_not_modified(clusters):
    M = clusters.M.copy()
    before = M.copy()
    kernel_q_alpha(M, 3, "sections")
    assert np.array_equal(M, before)


@pytest.mark.parametrize(
    ("kwargs", "match"),
    [
        ({"kernel": "cosine"}, "kernel must be one of"),
        ({"kernel": lambda A, B: np.ones((2, 2))}, r"shape \(40, 40\)"),
        ({"kernel": lambda A, B: np.triu(A @ B.T)}, "must be symmetric"),
        ({"kernel": lambda A, B: -(A @ B.T)}, "not positive semi-definite"),
        ({"kernel": lambda A, B: np.full((40, 40), np.nan)}, "NaN"),
        ({"k": 0}, "k must be"),
        ({"sigma": 0.0}, "sigma"),
        ({"degree": 0}, "degree"),
    ],
)
def test_bad_input_gives_clear_errors(kwargs, match):
    M = np.random.default_rng(0).standard_normal((40, 30))
    args = {"kernel": "linear", "k": 2, **kwargs}
    with pytest.raises(ValueError, match=match):
        kernel_q_alpha(M, args.pop("k"), args.pop("kernel"), **args)


def test_k_beyond_the_rank_of_the_kernel_matrix_is_an_error():
    M = np.random.default_rng(0).standard_normal((20, 4))  # centred rows: rank ≤ 3
    with pytest.raises(ValueError, match="exceeds the rank"):
        kernel_q_alpha(M, 5, "linear")
