"""Unsupervised variable weighting for PCA (Wolf & Bileschi 2005, Sec. 3, Algos. 1 and 2).

Both algorithms weight each variable (row of M) by ``√α_i`` so that the k most informative
directions of the reweighted data ``M̃ = diag(√α) M`` carry as much variance as possible:
they maximise ``Σ_{i≤k} σ_i²`` over unit-norm α, the σ_i being the eigenvalues of
``B_α = M̃M̃ᵀ``, equivalently of ``A_α = Mᵀ diag(α) M`` (the Q-α criterion of Wolf & Shashua).

* Algo. 1 alternates between α (leading eigenvector of G) and Q (the k leading eigenvectors
  of A_α): it *is* Q-α with the full eigen-step on centred, unit-norm rows, so it runs on the
  shared engine (:mod:`spectral_kit.qalpha`).
* Algo. 2 takes k = min(n, q): the criterion becomes ``trace(A_α²) = αᵀHα`` with
  ``H = (MMᵀ)^∘2`` and α is H's leading eigenvector -- no iterations, no parameter. H is the
  Hadamard–Gram operator with L = P = M (:mod:`spectral_kit.qalpha.operators`), so
  ``H v = rowwise m_iᵀ (Mᵀ diag(v) M) m_i`` needs only a q × q matrix: O(nq²) time per
  product and O(nq) memory, which runs at 10⁶ variables.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends import array_kind
from ..backends.eigen import leading_eigenpair, nonnegative_part
from ..backends.inputs import check_prepared, namespace_name, prepare_rows
from ..backends.model import SOLVER as SCALED_SOLVER
from ..backends.model import ScaledModel
from ..backends.operators import hadamard_square_matvec
from ..linalg import leading_eigenvector
from ..preprocess import preprocess_rows, row_norms
from ..qalpha.engine import QAlphaResult, alternate, choose_solver
from ..qalpha.models import StandardModel
from ..qalpha.operators import HadamardGramOperator, HadamardTerm
from ..qalpha.standard import SOLVERS, check_k, q_alpha
from ..validation import check_array, check_choice, check_finite_scalar, check_int
from .result import WeightingResult, nonnegative_weights

__all__ = [
    "ALGO1_INITS",
    "parameter_free_operator",
    "parameter_free_weights",
    "pca_weights",
    "prepared_rows",
]

#: Starting points of Algo. 1: Algo. 2's weights, the leading right singular vectors of M
#: (uniform weights), or a random orthonormal Q⁽⁰⁾ (the paper's "some orthonormal matrix").
ALGO1_INITS = ("parameter-free", "pca", "random")

#: How far from zero mean / unit norm a row may be when the caller says it is preprocessed.
_PREPROCESSED_ATOL = 1e-6


def prepared_rows(M: object, preprocess: bool, name: str = "M") -> np.ndarray:
    """The centred, unit-norm rows the algorithms work on.

    With ``preprocess=True`` the rows of M are centred and scaled (a new array,
    :func:`~spectral_kit.preprocess.preprocess_rows`). With ``preprocess=False`` M is used as
    is -- no copy, which matters at 10⁶ rows -- after checking that every row already has
    mean 0 and norm 1, since both algorithms assume it (Algo. 1, step 1; Algo. 2's input).
    """
    if preprocess:
        return preprocess_rows(M, name=name)
    Mp = check_array(
        M, name, min_cols=2, rows_label="features (rows)", cols_label="samples (columns)"
    )
    norms = row_norms(Mp)
    means = Mp.mean(axis=1)
    bad = np.flatnonzero(
        (np.abs(norms - 1.0) > _PREPROCESSED_ATOL) | (np.abs(means) > _PREPROCESSED_ATOL)
    )
    if bad.size:
        i = int(bad[0])
        raise ValueError(
            f"{name} was passed with preprocess=False but {bad.size} row(s) are not centred "
            f"with unit norm (row {i}: mean {means[i]:.3g}, norm {norms[i]:.3g}). Pass "
            "preprocess=True, or centre and normalise the rows first with "
            "spectral_kit.preprocess.preprocess_rows."
        )
    return Mp


def parameter_free_operator(M: np.ndarray) -> HadamardGramOperator:
    """``H = (MMᵀ)^∘2`` of Algo. 2 as a matrix-free symmetric operator.

    ``H_ij = (m_iᵀm_j)² = trace(m_i m_iᵀ m_j m_jᵀ)`` (Sec. 3.1), so
    ``(H v)_i = m_iᵀ (Mᵀ diag(v) M) m_i``: one q × q matrix per product, accumulated over row
    blocks. ``.dense()`` forms the n × n matrix (the reference, and faster for small n).

    Parameters
    ----------
    M : ndarray of shape (n, q)
        Rows already centred and of unit norm.

    Returns
    -------
    HadamardGramOperator
        ``H = (MMᵀ)^∘2``, applied to a vector in O(nq) memory without forming the n × n
        matrix; ``.dense()`` forms it.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.weighting import parameter_free_operator
    >>> M = np.random.default_rng(0).standard_normal((6, 4))
    >>> H = parameter_free_operator(M)
    >>> bool(np.allclose(H.dense(), (M @ M.T) ** 2))
    True
    """
    M = check_array(M, "M", rows_label="features (rows)", cols_label="samples (columns)")
    return HadamardGramOperator([HadamardTerm(M, 1.0, L=M)])


def parameter_free_weights(
    M: object,
    *,
    solver: str = "auto",
    preprocess: bool = True,
    tol: float = 1e-12,
) -> WeightingResult:
    """Parameter-free weighting for PCA (Wolf & Bileschi 2005, Algo. 2).

    α is the leading eigenvector of ``H = (MMᵀ)^∘2``, which maximises
    ``trace(A_α²) = Σ_i σ_i²`` -- the information content of *all* directions of the
    reweighted data (Sec. 3.1). H is entry-wise non-negative, so α ≥ 0 (Perron–Frobenius).
    The result is deterministic: the eigen-solver starts from uniform weights.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows** (the paper's M; scikit-learn's X is ``M.T``).
    solver : {"auto", "dense", "matrix-free"}
        Form H (n × n) or apply it matrix-free in O(nq²) time and O(nq) memory; ``"auto"``
        forms H only for small n (as the Q-α engine does).
    preprocess : bool
        Centre the rows and scale them to unit norm first (Algo. 2 expects a "normalized and
        centered" M). With False, M must already be so (checked) and is not copied.
    tol : float
        Relative residual of the eigen-solver.

    Returns
    -------
    WeightingResult
        ``alpha`` (non-negative, unit norm), ``eigenvalue = αᵀHα``, solver diagnostics.

    Examples
    --------
    >>> from spectral_kit.weighting import parameter_free_weights
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> res = parameter_free_weights(data.M)
    >>> bool(res.alpha[data.relevant].mean() > res.alpha[~data.relevant].mean())
    True
    """
    solver = check_choice(solver, "solver", SOLVERS)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    rows = _prepared(M, preprocess)
    pair, solver = _perron(rows, solver, tol)
    alpha, u, negative = _nonnegative(rows, pair.vector)
    return WeightingResult(
        alpha=alpha, eigenvector=u, eigenvalue=pair.value, negative_mass=negative,
        algorithm="parameter-free", solver=solver, n_matvec=pair.n_matvec,
    )


def pca_weights(
    M: object,
    k: int,
    *,
    init: str = "parameter-free",
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    preprocess: bool = True,
    random_state: object = None,
) -> WeightingResult:
    """Weighting for PCA (Wolf & Bileschi 2005, Algo. 1).

    Step 1 centres the rows and scales them to unit norm; step 2 is Q-α with the full
    eigen-step (``method="basic"`` of :func:`spectral_kit.q_alpha`): G⁽ʳ⁾ from Q⁽ʳ⁻¹⁾, α⁽ʳ⁾ its
    leading eigenvector, Q⁽ʳ⁾ the k leading eigenvectors of ``A_α``. Steps 3–4 (reweight by
    √α, PCA) are :func:`spectral_kit.weighting.weighted_pca`.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows**.
    k : int
        Number of informative directions, ``1 ≤ k < n_samples``.
    init : {"parameter-free", "pca", "random"}
        Q⁽⁰⁾ -- the paper allows "some orthonormal q × k matrix". ``"parameter-free"``
        (default) starts from Algo. 2's α and the k leading eigenvectors of its ``A_α``:
        Algo. 2 approximates Algo. 1, and since Algo. 1 converges to a local maximum the
        start matters -- over 20 draws of the Fig. 2 data (σ = 0.1, k = 3) the median ratio
        of relevant to irrelevant weight is 40 from this start against 1.7 from the PCA
        start (Fig. 1 data, k = 2: 70 against 67). ``"pca"`` and
        ``"random"`` are :func:`spectral_kit.q_alpha`'s starts, and then the result is
        exactly ``q_alpha(M, k, method="basic", init=init)``.
    max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha` (``random_state`` seeds the random start).
    preprocess : bool
        Centre and normalise the rows first (step 1). With False, M must already be so.

    Returns
    -------
    WeightingResult
        ``alpha`` (Q-α's α with any negative entries set to zero, renormalised; the paper
        expects them positive) and ``details``, the full
        :class:`~spectral_kit.qalpha.QAlphaResult` (Q, objective, n_iter, converged).

    Examples
    --------
    >>> from spectral_kit.weighting import pca_weights
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)  # 3 relevant of 203
    >>> result = pca_weights(data.M, k=2, random_state=0)
    >>> result.details.converged
    True
    >>> bool(result.alpha[data.relevant].min() > result.alpha[~data.relevant].max())
    True
    """
    init = check_choice(init, "init", ALGO1_INITS)
    solver = check_choice(solver, "solver", SOLVERS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    rows = _prepared(M, preprocess)
    scaled = not isinstance(rows, np.ndarray)
    model = ScaledModel(rows) if scaled else StandardModel(rows)
    k = check_k(k, model.n_samples)
    if init == "parameter-free":
        run = _q_alpha_from_parameter_free(
            rows, model, k, max_iter=max_iter, tol=tol, solver=solver,
            array_type=namespace_name(M) if scaled else "numpy",
        )
    else:
        run = q_alpha(
            M if scaled else rows, k, method="basic", init=init, max_iter=max_iter, tol=tol,
            solver=solver, preprocess=preprocess and scaled, random_state=random_state,
        )
    alpha, u, negative = _nonnegative(rows, run.alpha)
    return WeightingResult(
        alpha=alpha, eigenvector=u, eigenvalue=run.eigenvalue, negative_mass=negative,
        algorithm="q-alpha", solver=run.solver, n_matvec=run.n_matvec, details=run,
    )


def _prepared(M: object, preprocess: bool) -> Any:
    """Prepared rows: an ndarray for NumPy input (:func:`prepared_rows`), else the rows of a
    Dask or array-API M, preprocessed lazily where they live."""
    if array_kind(M) is None:
        return prepared_rows(M, preprocess)
    rows = prepare_rows(M, center=preprocess, normalize=preprocess)
    if not preprocess:
        check_prepared(rows)
    return rows


def _perron(rows: Any, solver: str, tol: float) -> tuple[Any, str]:
    """The leading eigenpair of ``H = (MMᵀ)^∘2`` (Algo. 2), started from uniform weights,
    and the solver that found it."""
    n = rows.shape[0]
    if not isinstance(rows, np.ndarray):  # always matrix-free: H's products are q-sized
        start = rows.full(1.0 / np.sqrt(n))
        return leading_eigenpair(rows, hadamard_square_matvec(rows), start, tol=tol), \
            "matrix-free"
    solver = choose_solver(n, solver)
    H = parameter_free_operator(rows)
    # The Perron vector of H is positive and usually close to uniform, and H's second
    # eigenvalue is small next to its first (about 2/q of it for isotropic rows): a warm
    # start from uniform weights converges in a handful of products.
    pair = leading_eigenvector(H.dense() if solver == "dense" else H,
                               v0=np.full(n, 1.0 / np.sqrt(n)), tol=tol)
    return pair, solver


def _nonnegative(rows: Any, u: Any) -> tuple[Any, Any, float]:
    if isinstance(rows, np.ndarray):
        return nonnegative_weights(u)
    return nonnegative_part(rows, u)


def _q_alpha_from_parameter_free(
    rows: Any, model: Any, k: int, *, max_iter: int, tol: float, solver: str, array_type: str
) -> QAlphaResult:
    """Algo. 1's alternation on the shared engine, started from Algo. 2's weights."""
    pair, _ = _perron(rows, solver, 1e-12)
    start = _nonnegative(rows, pair.vector)[0]
    # A_α is positive semi-definite for α ≥ 0, so its largest eigenvalues are its largest in
    # magnitude and this Q⁽⁰⁾ is what the basic eigen-step itself would return.
    Q0 = model.leading_subspace(start, k)
    resolved = choose_solver(rows.shape[0], solver) if array_type == "numpy" else SCALED_SOLVER
    raw = alternate(
        model, Q0, method="basic", max_iter=max_iter, tol=tol, solver=resolved, alpha0=start
    )
    raw["n_matvec"] += pair.n_matvec
    return QAlphaResult(
        method="basic", spectrum="standard", criterion="top", solver=resolved,
        init="parameter-free", array_type=array_type, **raw,
    )
