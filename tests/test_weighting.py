"""Variable weighting for PCA/FDA (Wolf & Bileschi 2005): Algos. 1–3 and the reduction steps.

Every algorithm is checked against an independent dense reference built from the paper's
formulas (H = (MMᵀ)^∘2; H and G of Algo. 3 from the eigen-decomposition of A = MᵀM) or
against Q-α / scikit-learn.
"""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from sklearn.decomposition import PCA
from sklearn.discriminant_analysis import LinearDiscriminantAnalysis

from spectral_kit import q_alpha
from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.weighting import (
    parameter_free_operator,
    parameter_free_weights,
    pca_weights,
    reweight,
    supervised_operators,
    supervised_weights,
    weighted_fda,
    weighted_pca,
)


def _random_M(n: int, q: int, seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    # Features with different scales and offsets, so that preprocessing matters.
    return rng.standard_normal((n, q)) * rng.uniform(0.5, 3.0, (n, 1)) + rng.normal(0, 2, (n, 1))


def _labelled(n: int, q: int, n_classes: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    y = np.arange(q) % n_classes
    means = rng.normal(0, 1.0, (n, n_classes))
    M = means[:, y] + rng.standard_normal((n, q))
    return M, y


def _top_eigvec(S: np.ndarray) -> tuple[float, np.ndarray]:
    w, V = scipy.linalg.eigh(S)
    v = V[:, -1]
    return float(w[-1]), v if v.sum() > 0 else -v


# --------------------------------------------------------------------------- Algo. 2


def test_parameter_free_matvec_equals_dense_product():
    Mp = preprocess_rows(_random_M(300, 40, 0))
    H_ref = (Mp @ Mp.T) ** 2
    op = parameter_free_operator(Mp)
    rng = np.random.default_rng(1)
    for _ in range(3):
        v = rng.standard_normal(300)
        ref = H_ref @ v
        assert np.linalg.norm(op.matvec(v) - ref) <= 1e-10 * np.linalg.norm(ref)
    V = rng.standard_normal((300, 4))
    ref = H_ref @ V
    assert np.linalg.norm(op.matmat(V) - ref) <= 1e-10 * np.linalg.norm(ref)
    assert np.allclose(op.dense(), H_ref, rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("solver", ["matrix-free", "dense", "auto"])
def test_parameter_free_alpha_is_dense_leading_eigenvector(solver):
    M = _random_M(600, 30, 2)  # n > 500: "auto" takes the matrix-free path
    Mp = preprocess_rows(M)
    value, v = _top_eigvec((Mp @ Mp.T) ** 2)
    res = parameter_free_weights(M, solver=solver)
    assert np.max(np.abs(res.alpha - v)) < 1e-9
    assert abs(res.eigenvalue - value) <= 1e-10 * value
    assert res.solver == ("dense" if solver == "dense" else "matrix-free")
    assert res.negative_mass == 0.0


def test_parameter_free_maximises_trace_of_squared_kernel():
    # Sec. 3.1: αᵀHα = trace(A_α²) = ‖Mᵀ diag(α) M‖_F² for every α.
    Mp = preprocess_rows(_random_M(50, 20, 3))
    H = parameter_free_operator(Mp)
    rng = np.random.default_rng(4)
    for _ in range(3):
        a = rng.random(50)
        A = Mp.T @ (a[:, None] * Mp)
        assert np.isclose(a @ H.matvec(a), np.sum(A**2), rtol=1e-12)
    res = parameter_free_weights(Mp, preprocess=False)
    A = Mp.T @ (res.alpha[:, None] * Mp)
    assert np.isclose(np.sum(A**2), res.eigenvalue, rtol=1e-10)


def test_parameter_free_weights_properties():
    M = _random_M(120, 25, 5)
    res = parameter_free_weights(M)
    assert np.all(res.alpha >= 0)
    assert np.isclose(np.linalg.norm(res.alpha), 1.0)
    assert np.array_equal(res.alpha, parameter_free_weights(M).alpha)  # deterministic
    assert np.allclose(res.weights**2, res.alpha)
    # Each feature is normalised first: rescaling or shifting a row changes nothing.
    M2 = M.copy()
    M2[3] = 7.0 * M2[3] - 4.0
    assert np.allclose(parameter_free_weights(M2).alpha, res.alpha, atol=1e-12)


def test_parameter_free_preprocess_false_requires_normalised_rows():
    M = _random_M(40, 12, 6)
    with pytest.raises(ValueError, match="preprocess=True"):
        parameter_free_weights(M, preprocess=False)
    Mp = preprocess_rows(M)
    assert np.allclose(
        parameter_free_weights(Mp, preprocess=False).alpha, parameter_free_weights(M).alpha
    )


def test_parameter_free_finds_relevant_features_of_fig1():
    data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    alpha = parameter_free_weights(data.M).alpha
    assert alpha[data.relevant].mean() > 2 * alpha[~data.relevant].mean()


# --------------------------------------------------------------------------- Algo. 1


@pytest.mark.parametrize("init", ["pca", "random"])
def test_pca_weights_equal_q_alpha_basic(init):
    data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    res = pca_weights(data.M, 2, init=init, random_state=3)
    ref = q_alpha(data.M, 2, method="basic", init=init, random_state=3)
    assert np.array_equal(res.eigenvector, ref.alpha)
    assert np.allclose(res.alpha, np.maximum(ref.alpha, 0) / np.linalg.norm(np.maximum(ref.alpha, 0)))
    assert res.details.method == "basic"
    assert res.details.n_iter == ref.n_iter


def test_pca_weights_parameter_free_start_is_a_q_alpha_fixed_point():
    data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    res = pca_weights(data.M, 2)
    assert res.details.init == "parameter-free" and res.details.converged
    Mp = preprocess_rows(data.M)
    # α is the leading eigenvector of G = (MMᵀ)∘(MQQᵀMᵀ) for the returned Q (step 2b) ...
    P = Mp @ res.details.Q
    _, g = _top_eigvec((Mp @ Mp.T) * (P @ P.T))
    assert np.max(np.abs(res.details.alpha - g)) < 1e-8
    # ... and Q spans the k leading eigenvectors of A_α for the previous α (step 2d).
    A = Mp.T @ (res.alpha[:, None] * Mp)
    top = scipy.linalg.eigh(A)[1][:, -2:]
    angles = scipy.linalg.subspace_angles(top, res.details.Q)
    assert np.max(angles) < 1e-2
    assert res.alpha[data.relevant].mean() > 10 * res.alpha[~data.relevant].mean()


def test_pca_weights_k_is_validated():
    M = _random_M(30, 10, 7)
    with pytest.raises(ValueError, match="k must be an integer in \\[1, 9\\]"):
        pca_weights(M, 10)


# --------------------------------------------------------------------------- Algo. 3


def _algo3_reference(M: np.ndarray, y: np.ndarray, lam: float) -> tuple[np.ndarray, np.ndarray]:
    """H and G exactly as Algo. 3 writes them, from A = E D Eᵀ (non-zero eigenvalues)."""
    A = M.T @ M
    d, E = scipy.linalg.eigh(A)
    keep = d > d.max() * 1e-10
    P = M @ E[:, keep] @ np.diag(1.0 / d[keep]) @ E[:, keep].T @ M.T
    mu = M.mean(axis=1)
    n = M.shape[0]
    H = np.zeros((n, n))
    G = np.zeros((n, n))
    for c in np.unique(y):
        Mc = M[:, y == c]
        qc = Mc.shape[1]
        mc = Mc.mean(axis=1)
        H += qc * P * np.outer(mc - mu, mc - mu)
        G += P * (Mc @ Mc.T - qc * np.outer(mc, mc))
    return H, G


@pytest.mark.parametrize("lam", [0.0, 0.5, 2.0])
def test_supervised_weights_match_dense_reference(lam):
    M, y = _labelled(80, 30, 3, seed=8)
    Mp = preprocess_rows(M)
    H, G = _algo3_reference(Mp, y, lam)
    _, v = _top_eigvec(H - lam * G)
    res = supervised_weights(M, y, lam)
    assert np.max(np.abs(res.eigenvector - v)) < 1e-8
    H_op, G_op = supervised_operators(Mp, y)
    assert np.allclose(H_op.dense(), H, atol=1e-10)
    assert np.allclose(G_op.dense(), G, atol=1e-10)
    assert np.all(res.alpha >= 0) and np.isclose(np.linalg.norm(res.alpha), 1.0)


def test_supervised_weights_matrix_free_equals_dense():
    M, y = _labelled(600, 24, 3, seed=9)
    free = supervised_weights(M, y, 1.0, solver="matrix-free")
    dense = supervised_weights(M, y, 1.0, solver="dense")
    assert free.solver == "matrix-free" and dense.solver == "dense"
    assert np.max(np.abs(free.eigenvector - dense.eigenvector)) < 1e-8
    assert np.isclose(free.eigenvalue, dense.eigenvalue, rtol=1e-10)


def test_supervised_quadratic_form_is_the_kernel_fda_trace():
    # Appendix A: with A_α = Mᵀdiag(α)M and A_α⁽ᵏ⁾ = Mᵀdiag(α)M⁽ᵏ⁾ in R and S,
    # trace((R_α − λS_α) A⁺) = αᵀ(H − λG)α.
    M, y = _labelled(40, 18, 3, seed=10)
    Mp = preprocess_rows(M)
    H_op, G_op = supervised_operators(Mp, y)
    A_pinv = np.linalg.pinv(Mp.T @ Mp)
    lam = 0.7
    rng = np.random.default_rng(11)
    q = Mp.shape[1]
    for _ in range(3):
        a = rng.random(40)
        A_a = Mp.T @ (a[:, None] * Mp)
        R = np.zeros((q, q))
        S = np.zeros((q, q))
        for c in np.unique(y):
            Ak = Mp.T @ (a[:, None] * Mp[:, y == c])
            qk = Ak.shape[1]
            r = Ak @ np.ones(qk) / qk - A_a @ np.ones(q) / q
            R += qk * np.outer(r, r)
            S += Ak @ (np.eye(qk) - np.ones((qk, qk)) / qk) @ Ak.T
        lhs = np.trace((R - lam * S) @ A_pinv)
        rhs = a @ H_op.matvec(a) - lam * (a @ G_op.matvec(a))
        assert np.isclose(lhs, rhs, rtol=1e-8)


def test_supervised_weights_with_fewer_features_than_samples_pick_one_feature():
    # n < q: M A⁺ Mᵀ = I, H − λG is diagonal (between − λ·within scatter per feature).
    M, y = _labelled(6, 40, 2, seed=12)
    Mp = preprocess_rows(M)
    res = supervised_weights(M, y, 1.0)
    mu = [Mp[:, y == c].mean(axis=1) for c in (0, 1)]
    between = sum(20 * m**2 for m in mu)
    within = 1.0 - between
    assert np.count_nonzero(res.alpha > 1e-12) == 1
    assert int(np.argmax(res.alpha)) == int(np.argmax(between - within))


@pytest.mark.parametrize("lam", [-0.1, -1.0])
def test_supervised_weights_rejects_negative_lambda(lam):
    M, y = _labelled(20, 12, 2, seed=13)
    with pytest.raises(ValueError, match="lam must lie in \\[0, inf\\]"):
        supervised_weights(M, y, lam)


def test_supervised_weights_rejects_single_sample_class():
    M, y = _labelled(20, 12, 2, seed=14)
    y = y.copy()
    y[0] = 7
    with pytest.raises(ValueError, match=r"single sample.*class 7"):
        supervised_weights(M, y, 1.0)


def test_supervised_weights_rejects_bad_labels():
    M, y = _labelled(20, 12, 2, seed=15)
    with pytest.raises(ValueError, match="at least 2 classes"):
        supervised_weights(M, np.zeros(12), 1.0)
    with pytest.raises(ValueError, match="11 labels but the data have 12 samples"):
        supervised_weights(M, y[:11], 1.0)
    with pytest.raises(TypeError, match="lam must be a real number"):
        supervised_weights(M, y, "1")


# ------------------------------------------------------------ shared bad input, immutability


def _call(name: str, M: np.ndarray):
    y = np.arange(M.shape[-1]) % 2
    return {
        "algo1": lambda: pca_weights(M, 2),
        "algo2": lambda: parameter_free_weights(M),
        "algo3": lambda: supervised_weights(M, y, 1.0),
    }[name]()


@pytest.mark.parametrize("name", ["algo1", "algo2", "algo3"])
def test_bad_input_is_rejected_clearly(name):
    M = _random_M(15, 10, 16)
    nan = M.copy()
    nan[2, 3] = np.nan
    with pytest.raises(ValueError, match="1 NaN or infinite value"):
        _call(name, nan)
    const = M.copy()
    const[4] = 3.0
    with pytest.raises(ValueError, match=r"constant feature row.*row index 4"):
        _call(name, const)
    with pytest.raises(ValueError, match="2-D array"):
        _call(name, M[0])


@pytest.mark.parametrize("name", ["algo1", "algo2", "algo3"])
def test_inputs_are_not_mutated(name):
    M = _random_M(15, 10, 17)
    before = M.copy()
    _call(name, M)
    assert np.array_equal(M, before)


# --------------------------------------------------------------------------- reduction


def test_weighted_pca_without_weights_is_sklearn_pca():
    M = _random_M(12, 40, 18)
    proj = weighted_pca(M, None, 3, preprocess=False)
    ref = PCA(3).fit(M.T)
    Z = ref.transform(M.T)
    assert np.allclose(np.abs(proj.embedding), np.abs(Z), atol=1e-10)
    assert np.allclose(proj.values / 39, ref.explained_variance_, rtol=1e-10)
    assert np.allclose(proj.W.T @ proj.W, np.eye(3), atol=1e-12)


def test_weighted_pca_reweights_by_square_root_of_alpha():
    M = _random_M(12, 40, 19)
    alpha = np.random.default_rng(20).random(12)
    proj = weighted_pca(M, alpha, 2)
    Mt = np.sqrt(alpha)[:, None] * preprocess_rows(M)
    ref = PCA(2).fit(Mt.T)
    assert np.allclose(np.abs(proj.embedding), np.abs(ref.transform(Mt.T)), atol=1e-10)


def test_weighted_fda_without_weights_spans_sklearn_lda():
    M, y = _labelled(5, 60, 3, seed=21)
    proj = weighted_fda(M, y, None, preprocess=False)
    lda = LinearDiscriminantAnalysis(solver="eigen").fit(M.T, y)
    Z = lda.transform(M.T)
    assert proj.embedding.shape == Z.shape == (60, 2)
    angles = scipy.linalg.subspace_angles(proj.embedding - proj.embedding.mean(0), Z - Z.mean(0))
    assert np.max(angles) < 1e-8
    assert np.allclose(proj.values / proj.values.sum(), lda.explained_variance_ratio_, atol=1e-8)


def test_reweight_rejects_bad_weights():
    M = _random_M(4, 6, 22)
    with pytest.raises(ValueError, match="non-negative"):
        reweight(M, np.array([0.5, -0.1, 0.2, 0.3]))
    with pytest.raises(ValueError, match="3 weights but M has 4 feature rows"):
        reweight(M, np.ones(3))
    before = M.copy()
    assert np.allclose(reweight(M, np.full(4, 4.0)), 2 * M)
    assert np.array_equal(M, before)


def test_reduction_dimensions_are_validated():
    M, y = _labelled(5, 20, 3, seed=23)
    with pytest.raises(ValueError, match="n_components must be an integer in \\[1, 5\\]"):
        weighted_pca(M, None, 6)
    with pytest.raises(ValueError, match="at most 2 directions"):
        weighted_fda(M, y, None, 3)
