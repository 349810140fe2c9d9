"""Q-α core: α-steps against explicitly formed matrices, Prop. 3, variants and bad input."""

from __future__ import annotations

import numpy as np
import pytest
import scipy.linalg
from hypothesis import given, settings
from hypothesis import strategies as st

from spectral_kit import q_alpha, q_alpha_supervised
from spectral_kit.datasets import make_multiclass_clusters, make_weston_linear
from spectral_kit.linalg import orthonormalize
from spectral_kit.preprocess import preprocess_rows
from spectral_kit.qalpha import engine
from spectral_kit.qalpha.engine import alternate
from spectral_kit.qalpha.models import LaplacianModel, StandardModel
from spectral_kit.qalpha.operators import HadamardGramOperator, HadamardTerm, LaplacianOperator
from spectral_kit.qalpha.supervised import SupervisedModel, _preprocess


def _explicit_G(M: np.ndarray, Q: np.ndarray) -> np.ndarray:
    """G_ij = (m_iᵀ m_j)(m_iᵀ Q Qᵀ m_j), Sec. 3, formed entry by entry through matrices."""
    return (M @ M.T) * (M @ Q @ Q.T @ M.T)


def _structured(n: int, seed: int = 0) -> np.ndarray:
    data = make_multiclass_clusters(3, n_points=60, n_relevant=10, n_irrelevant=n - 10,
                                    random_state=seed)
    return data.M


@pytest.mark.parametrize("n", [40, 600, 2000])
@pytest.mark.parametrize("solver", ["dense", "matrix-free"])
def test_alpha_is_leading_eigenvector_of_explicit_G(n, solver):
    M = _structured(n)
    res = q_alpha(M, 3, solver=solver, random_state=0)
    Mp = preprocess_rows(M)
    G = _explicit_G(Mp, res.Q)
    w, V = scipy.linalg.eigh(G, subset_by_index=[n - 1, n - 1])
    assert abs(float(V[:, 0] @ res.alpha)) > 1 - 1e-10
    assert res.eigenvalue == pytest.approx(w[0], rel=1e-9)
    assert res.alpha.sum() > 0 and np.linalg.norm(res.alpha) == pytest.approx(1.0)


def test_matrix_free_path_equals_dense_path():
    M = _structured(700, seed=3)
    dense = q_alpha(M, 3, solver="dense", tol=1e-10)
    free = q_alpha(M, 3, solver="matrix-free", tol=1e-10)
    assert dense.solver == "dense" and free.solver == "matrix-free"
    assert float(dense.alpha @ free.alpha) > 0.9999


def test_auto_solver_switches_with_size():
    assert q_alpha(_structured(60), 2).solver == "dense"
    assert q_alpha(_structured(engine.DENSE_MAX_FEATURES + 50), 2).solver == "matrix-free"


def test_hadamard_operator_matches_dense_in_blocks(monkeypatch):
    from spectral_kit.qalpha import operators

    rng = np.random.default_rng(1)
    L, P, V = rng.standard_normal((57, 9)), rng.standard_normal((57, 3)), rng.standard_normal(
        (57, 4))
    monkeypatch.setattr(operators, "ROW_BLOCK", 10)  # several row blocks on a small problem
    op = HadamardGramOperator([HadamardTerm(P, 2.0, L=L), HadamardTerm(L, -0.5, L=L)])
    dense = 2.0 * (L @ L.T) * (P @ P.T) - 0.5 * (L @ L.T) ** 2
    np.testing.assert_allclose(op.dense(), dense, rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(op.matmat(V), dense @ V, rtol=1e-10, atol=1e-10)
    C = op_explicit = HadamardGramOperator([HadamardTerm(P, 1.0, C=L @ L.T)])
    np.testing.assert_allclose(C.matvec(V[:, 0]), ((L @ L.T) * (P @ P.T)) @ V[:, 0], rtol=1e-10)
    assert op_explicit.dense().shape == (57, 57)


@settings(max_examples=40)
@given(
    n=st.integers(4, 30), q=st.integers(5, 25), k=st.integers(1, 3),
    seed=st.integers(0, 10_000), method=st.sampled_from(["power", "basic", "ritz"]),
)
def test_objective_never_decreases(n, q, k, seed, method):
    """Prop. 3: the power-embedded iterations (and the basic scheme) are an ascent."""
    k = min(k, q - 1)
    rng = np.random.default_rng(seed)
    M = rng.standard_normal((n, q)) + rng.integers(0, 3) * rng.standard_normal((n, 1))
    model = StandardModel(preprocess_rows(M))
    Q0 = orthonormalize(rng.standard_normal((q, k)))
    raw = alternate(model, Q0, method=method, max_iter=25, tol=1e-300, solver="dense")
    obj = raw["objective"]
    assert np.all(np.diff(obj) >= -1e-10 * np.abs(obj[1:]))


def test_ritz_gives_the_power_alpha_sequence():
    """G depends on Q only through QQᵀ, so Def. 4 and Def. 2 visit the same α's."""
    M = preprocess_rows(_structured(80, seed=2))
    model = StandardModel(M)
    Q0 = model.initial_subspace("random", 3, np.random.default_rng(0))
    a = alternate(model, Q0, method="power", max_iter=6, tol=1e-300, solver="dense")
    b = alternate(model, Q0, method="ritz", max_iter=6, tol=1e-300, solver="dense")
    assert float(a["alpha"] @ b["alpha"]) > 1 - 1e-10
    np.testing.assert_allclose(a["objective"], b["objective"], rtol=1e-9)
    # Ritz returns Q's columns as ordered Ritz vectors: QᵀA_αQ is diagonal.
    S = b["Q"].T @ model.affinity_times(b["alpha"], b["Q"])
    assert np.abs(S - np.diag(np.diag(S))).max() < 1e-8 * np.abs(S).max()


def test_gap_criterion_operator_is_eigenvalue_gap():
    """αᵀ(2G − Ĝ)α = Σ_{i≤k} λ_i² − Σ_{j>k} λ_j² of A_α when Q spans its top-k eigenvectors."""
    rng = np.random.default_rng(5)
    M = preprocess_rows(rng.standard_normal((30, 12)))
    model = StandardModel(M, criterion="gap")
    alpha = np.abs(rng.standard_normal(30))
    alpha /= np.linalg.norm(alpha)
    w, V = np.linalg.eigh(model.affinity(alpha))
    order = np.argsort(-np.abs(w))
    k = 3
    Q = V[:, order[:k]]
    gap = np.sum(w[order[:k]] ** 2) - np.sum(w[order[k:]] ** 2)
    op = model.alpha_operator(Q, alpha)
    assert float(alpha @ op.matvec(alpha)) == pytest.approx(gap, rel=1e-10)
    assert model.objective(alpha, Q) == pytest.approx(gap, rel=1e-10)
    res = q_alpha(M, 2, criterion="gap", preprocess=False)
    assert res.criterion == "gap" and np.all(np.diff(res.objective) >= -1e-8)


def test_laplacian_operator_matches_definition():
    """F_ij = trace(Qᵀ L_iᵀ L_j Q) with L_i = m_i m_iᵀ − diag(m_i m_iᵀ 1) + d I (Def. 5)."""
    rng = np.random.default_rng(2)
    M = np.abs(rng.standard_normal((12, 8)))
    M /= np.linalg.norm(M, axis=1, keepdims=True)
    Q = orthonormalize(rng.standard_normal((8, 2)))
    d = 0.7
    Ls = [np.outer(m, m) - np.diag(np.outer(m, m) @ np.ones(8)) + d * np.eye(8) for m in M]
    F = np.array([[np.trace(Q.T @ Li.T @ Lj @ Q) for Lj in Ls] for Li in Ls])
    op = LaplacianOperator(M, Q, d, M.sum(axis=1))
    np.testing.assert_allclose(op.dense(), F, rtol=1e-10, atol=1e-12)
    v = rng.standard_normal(12)
    np.testing.assert_allclose(op.matvec(v), F @ v, rtol=1e-10, atol=1e-12)
    # L_α of the model is Σ α_i L_i with the model's shift.
    model = LaplacianModel(M)
    alpha = np.abs(rng.standard_normal(12))
    d_alpha = model._shift(alpha)
    L_alpha = sum(
        a * (np.outer(m, m) - np.diag(np.outer(m, m) @ np.ones(8)) + d_alpha * np.eye(8))
        for a, m in zip(alpha, M)
    )
    np.testing.assert_allclose(model.affinity(alpha), L_alpha, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(model.affinity_times(alpha, Q), L_alpha @ Q, atol=1e-12)


def test_laplacian_equals_standard_on_centred_rows():
    """Centred rows have zero degrees, so L_α = A_α and both spectra give the same α."""
    data = make_multiclass_clusters(2, n_relevant=5, n_irrelevant=60, random_state=4)
    lap = q_alpha(data.M, 2, spectrum="laplacian")
    std = q_alpha(data.M, 2)
    assert lap.spectrum == "laplacian"
    assert float(lap.alpha @ std.alpha) > 1 - 1e-8
    uncentred = q_alpha(data.M - data.M.min(axis=1, keepdims=True), 2, spectrum="laplacian",
                        preprocess=False)
    assert uncentred.alpha.shape == (65,) and np.isfinite(uncentred.objective).all()


def test_supervised_operator_and_objective_match_blocks():
    rng = np.random.default_rng(3)
    M = rng.standard_normal((15, 20))
    y = np.repeat([0, 1, 2], [6, 7, 7])
    Mp, labels = _preprocess(M, y, "class")
    model = SupervisedModel(Mp, labels, 2, 1, 0.5)
    Q = model.initial_subspace("random", 2, rng)
    alpha = np.abs(rng.standard_normal(15))
    alpha /= np.linalg.norm(alpha)
    blocks = [Mp[:, labels == c] for c in range(3)]
    G = np.zeros((15, 15))
    expected = 0.0
    for g in range(3):
        for h in range(3):
            w = 1.0 if g == h else -0.5
            Qgh = Q[g, h]
            G += w * (blocks[g] @ blocks[g].T) * (blocks[h] @ Qgh @ Qgh.T @ blocks[h].T)
            A = blocks[g].T @ np.diag(alpha) @ blocks[h]
            expected += w * np.trace(Qgh.T @ A.T @ A @ Qgh)
    op = model.alpha_operator(Q, alpha)
    np.testing.assert_allclose(op.dense(), G, rtol=1e-10, atol=1e-12)
    assert model.objective(alpha, Q) == pytest.approx(expected, rel=1e-10)
    # The eigen-step holds the k^{gh} leading right singular vectors of every A^{gh}.
    Qe = model.eigen_step(alpha, Q)
    A01 = blocks[0].T @ np.diag(alpha) @ blocks[1]
    s = np.linalg.svd(A01, compute_uv=False)
    assert np.sum((A01 @ Qe[0, 1]) ** 2) == pytest.approx(s[0] ** 2, rel=1e-10)


def test_supervised_finds_weston_features():
    hits = []
    for seed in range(4):
        data = make_weston_linear(100, random_state=seed)
        res = q_alpha_supervised(data.M, data.y, random_state=0)
        hits.append(int(data.relevant[res.top_features(6)].sum()))
    assert np.mean(hits) >= 3.5


def test_default_start_avoids_poor_local_maxima():
    """The PCA start reaches a sparse solution where the paper's random start may not."""
    gaps = []
    for seed in range(5):
        data = make_multiclass_clusters(2, random_state=seed)
        res = q_alpha(data.M, 2)
        gaps.append(res.alpha[data.relevant].mean() / res.alpha[~data.relevant].mean())
    assert min(gaps) > 10


def test_converged_is_reported_honestly():
    data = make_multiclass_clusters(6, random_state=8)
    short = q_alpha(data.M, 6, method="power", max_iter=3, tol=1e-12)
    assert short.n_iter == 3 and not short.converged
    full = q_alpha(data.M, 6, max_iter=300)
    assert full.converged and full.n_iter < 300
    assert full.alpha_change[-1] < 1e-6


# -- bad input --------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("M", "k", "match"),
    [
        (np.array([[1.0, np.nan, 2.0], [0.0, 1.0, 2.0]]), 1, "NaN or infinite"),
        (np.array([[1.0, np.inf, 2.0], [0.0, 1.0, 2.0]]), 1, "NaN or infinite"),
        (np.array([[1.0, 1.0, 1.0], [0.0, 1.0, 2.0]]), 1, "constant"),
        (np.ones((3, 1)), 1, "at least 2 samples"),
        (np.arange(6.0), 1, "2-D"),
        (np.arange(12.0).reshape(3, 4) ** 2, 0, r"k must be an integer in \[1, 3\]"),
        (np.arange(12.0).reshape(3, 4) ** 2, 4, r"k must be an integer in \[1, 3\]"),
    ],
)
def test_bad_input_is_rejected_clearly(M, k, match):
    with pytest.raises(ValueError, match=match):
        q_alpha(M, k)


def test_bad_options_are_rejected():
    M = np.random.default_rng(0).standard_normal((5, 6))
    with pytest.raises(ValueError, match="method must be one of"):
        q_alpha(M, 2, method="fast")
    with pytest.raises(ValueError, match="criterion='gap'"):
        q_alpha(M, 2, spectrum="laplacian", criterion="gap")
    with pytest.raises(TypeError, match="k must be an integer"):
        q_alpha(M, 2.5)
    with pytest.raises(ValueError, match="labels but the data have 6 samples"):
        q_alpha_supervised(M, [0, 1, 0, 1, 0])
    with pytest.raises(ValueError, match="at least 2 classes"):
        q_alpha_supervised(M, np.zeros(6))
    with pytest.raises(ValueError, match="gamma must lie in"):
        q_alpha_supervised(M, [0, 1, 0, 1, 0, 1], gamma=-1.0)


def test_inputs_are_never_modified():
    rng = np.random.default_rng(7)
    M = rng.standard_normal((30, 12))
    y = np.repeat([0, 1], 6)
    before, y_before = M.copy(), y.copy()
    q_alpha(M, 2)
    q_alpha(M, 2, spectrum="laplacian")
    q_alpha_supervised(M, y)
    preprocess_rows(M)
    np.testing.assert_array_equal(M, before)
    np.testing.assert_array_equal(y, y_before)


def test_results_are_deterministic():
    M = _structured(120, seed=9)
    a = q_alpha(M, 3, init="random", n_init=3, random_state=11)
    b = q_alpha(M, 3, init="random", n_init=3, random_state=11)
    np.testing.assert_array_equal(a.alpha, b.alpha)
