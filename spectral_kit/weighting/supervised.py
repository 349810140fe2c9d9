"""Supervised variable weighting for Fisher's discriminant (Wolf & Bileschi 2005, Sec. 4,
Algo. 3 and Appendix A).

Multi-class kernel FDA with the linear kernel ``A = MᵀM``: a direction ``w = Mγ`` has
``wᵀS_Bw / wᵀS_Ww = γᵀRγ / γᵀSγ`` with

    R = Σ_k q_k (A⁽ᵏ⁾1/q_k − A1/q)(A⁽ᵏ⁾1/q_k − A1/q)ᵀ,   S = Σ_k A⁽ᵏ⁾ (I − 11ᵀ/q_k) A⁽ᵏ⁾ᵀ,

``A⁽ᵏ⁾ = MᵀM⁽ᵏ⁾``. In the coordinates ``φ = D^{1/2}Eᵀγ`` (``A = EDEᵀ`` over its non-zero
eigenvalues) the directions are orthonormal, and summing ``φᵀD^{-1/2}Eᵀ(R − λS)ED^{-1/2}φ``
over a full orthonormal set of φ gives ``trace((R − λS) A⁺)``. Replacing A by
``A_α = Mᵀdiag(α)M`` inside R and S (E and D stay those of A, Algo. 3 step 1) makes this the
quadratic form ``αᵀ(H − λG)α`` with

    H = Σ_k q_k (M A⁺ Mᵀ) ∘ (μ_k − μ)(μ_k − μ)ᵀ,
    G = Σ_k (M A⁺ Mᵀ) ∘ (M⁽ᵏ⁾M⁽ᵏ⁾ᵀ − q_k μ_k μ_kᵀ),

and α is the leading eigenvector of H − λG (Algo. 3). ``M A⁺ Mᵀ = M E D⁻¹ Eᵀ Mᵀ = UUᵀ``
is the orthogonal projector onto the column space of M (U: its left singular vectors), and
``M⁽ᵏ⁾M⁽ᵏ⁾ᵀ − q_k μ_kμ_kᵀ = Z_k Z_kᵀ`` with Z_k the class-centred samples of class k. Both
are therefore Hadamard–Gram operators (:mod:`spectral_kit.qalpha.operators`) with L = U:
P = [√q_k (μ_k − μ)]_k for H and P = [Z_1, …, Z_l] for G, applied in O(n·r·q) per product.

Reading of the printed formulas. Algo. 3 step 3 prints the second factor of H as
``μμᵀ − μ⁽ⁱ⁾μ⁽ⁱ⁾ᵀ − μμ⁽ⁱ⁾ᵀ + μμᵀ``, which is not symmetric; the trace of R gives
``(μ⁽ⁱ⁾ − μ)(μ⁽ⁱ⁾ − μ)ᵀ``, used here. Step 4 (and the printed S) carry an extra factor q_i
on each class's scatter; the within-class scatter ``S_W`` the appendix defines has none, and
neither does G here. With equal class sizes q_c the two differ by a rescaling of λ: the
printed λ′ is this module's ``λ = q_c λ′``.

When every feature is normalised (the default), each feature's total scatter is 1 and splits
into its between-class part (diagonal of Σ q_k d_k d_kᵀ) and its within-class part, so H and
G are on the same scale and λ = 1 weighs them equally. When M has full row rank (n < q),
``M A⁺ Mᵀ = I``, H and G are diagonal and α puts all its weight on the single feature with
the largest between − λ·within scatter: the weighting is informative when n ≫ q, the
setting of the paper (wavelet features of a few images).
"""

from __future__ import annotations

import numpy as np
import scipy.linalg

from ..linalg import leading_eigenvector
from ..qalpha.engine import choose_solver
from ..qalpha.operators import HadamardGramOperator, HadamardTerm
from ..qalpha.standard import SOLVERS
from ..validation import check_array, check_choice, check_finite_scalar, check_labels
from .result import WeightingResult, nonnegative_weights
from .unsupervised import prepared_rows

__all__ = ["column_space_basis", "supervised_operators", "supervised_weights"]


def column_space_basis(M: np.ndarray) -> np.ndarray:
    """Orthonormal basis U of the column space of M, so that ``M A⁺ Mᵀ = UUᵀ`` (A = MᵀM).

    ``U = M E D^{-1/2}`` over the non-zero eigenvalues of A (Algo. 3, step 1); it is computed
    as the left singular vectors of M, which avoids squaring M's condition number. Singular
    values below ``σ_max · max(n, q) · ε`` count as zero (NumPy's ``matrix_rank`` rule).
    """
    U, s, _ = scipy.linalg.svd(M, full_matrices=False, check_finite=False)
    rank = int(np.count_nonzero(s > s[0] * max(M.shape) * np.finfo(float).eps)) if s[0] else 0
    return np.ascontiguousarray(U[:, :rank])


def _class_sizes(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    classes, codes, counts = np.unique(labels, return_inverse=True, return_counts=True)
    single = classes[counts < 2]
    if single.size:
        listed = ", ".join(repr(c.item() if hasattr(c, "item") else c) for c in single[:10])
        raise ValueError(
            f"y has {single.size} class(es) with a single sample (class {listed}); Algo. 3 "
            "needs at least two samples per class to measure a within-class scatter. Drop "
            "those samples or merge their classes."
        )
    return classes, codes, counts


def supervised_operators(
    M: np.ndarray, y: np.ndarray
) -> tuple[HadamardGramOperator, HadamardGramOperator]:
    """H (between-class) and G (within-class) of Algo. 3 as matrix-free operators.

    Parameters
    ----------
    M : ndarray of shape (n, q)
        Features as rows, used as given (no centring or scaling here).
    y : ndarray of shape (q,)
        Class of every column; every class needs at least two samples.

    Returns
    -------
    H, G : HadamardGramOperator
        ``H = Σ_k q_k (UUᵀ) ∘ (μ_k − μ)(μ_k − μ)ᵀ`` and ``G = Σ_k (UUᵀ) ∘ Z_kZ_kᵀ``; both
        have ``.dense()``.

    Raises
    ------
    ValueError
        If a class has fewer than two samples.

    Examples
    --------
    The matrix-free operators agree with their dense forms:

    >>> import numpy as np
    >>> from spectral_kit.weighting import supervised_operators
    >>> rng = np.random.default_rng(0)
    >>> M, y = rng.standard_normal((5, 12)), np.repeat([0, 1, 2], 4)
    >>> H, G = supervised_operators(M, y)
    >>> v = rng.standard_normal(5)
    >>> [bool(np.allclose(op.matvec(v), op.dense() @ v)) for op in (H, G)]
    [True, True]
    """
    M = check_array(M, "M", min_cols=2, rows_label="features (rows)",
                    cols_label="samples (columns)")
    _classes, codes, counts = _class_sizes(check_labels(y, M.shape[1], "y"))
    U = column_space_basis(M)
    mu = M.mean(axis=1)
    class_means = np.stack(
        [M[:, codes == c].mean(axis=1) for c in range(counts.size)], axis=1
    )
    between = (class_means - mu[:, None]) * np.sqrt(counts)[None, :]
    within = M - class_means[:, codes]
    H = HadamardGramOperator([HadamardTerm(between, 1.0, L=U)])
    G = HadamardGramOperator([HadamardTerm(within, 1.0, L=U)])
    return H, G


def supervised_weights(
    M: object,
    y: object,
    lam: float,
    *,
    solver: str = "auto",
    preprocess: bool = True,
    tol: float = 1e-12,
) -> WeightingResult:
    """Supervised variable weighting for FDA (Wolf & Bileschi 2005, Algo. 3, Appendix A).

    α is the leading eigenvector of ``H − λG``: it maximises the between-class scatter minus
    λ times the within-class scatter, summed over all kernel-FDA directions of the
    reweighted data (the derivation is in this module's docstring).

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows**.
    y : array-like of shape (n_samples,)
        Class label of every sample (column); at least two classes, each with at least two
        samples.
    lam : float
        λ ≥ 0, the weight of the within-class scatter G. With normalised features λ = 1
        weighs between- and within-class scatter equally.
    solver : {"auto", "dense", "matrix-free"}
        Form H − λG (n × n) or apply it matrix-free; ``"auto"`` forms it only for small n.
    preprocess : bool
        Centre the rows and scale them to unit norm first, so that the weights do not depend
        on the units of the features. With False, M must already be so (checked).
    tol : float
        Relative residual of the eigen-solver.

    Returns
    -------
    WeightingResult
        ``alpha`` is the non-negative part of the eigenvector, renormalised (H − λG is
        indefinite, so the eigenvector can have negative entries; ``negative_mass`` says how
        much was removed), ``eigenvalue`` its largest algebraic eigenvalue.

    Raises
    ------
    ValueError
        If ``y`` does not match M or a class has fewer than two samples, ``lam`` is negative,
        or an option is unknown.

    Examples
    --------
    >>> from spectral_kit.weighting import supervised_weights
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)  # 3 relevant of 203
    >>> result = supervised_weights(data.M, data.y, lam=1.0)
    >>> result.algorithm
    'supervised'
    >>> bool(result.alpha[data.relevant].mean() > 5 * result.alpha[~data.relevant].mean())
    True
    """
    lam = check_finite_scalar(
        lam, "lam", low=0.0,
        hint="λ weighs the within-class scatter G against the between-class scatter H; use "
        "λ ≥ 0 (λ = 1 weighs them equally for normalised features).",
    )
    solver = check_choice(solver, "solver", SOLVERS)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    Mp = prepared_rows(M, preprocess)
    labels = check_labels(y, Mp.shape[1], "y")
    H, G = supervised_operators(Mp, labels)
    # H − λG as one Hadamard–Gram operator (its terms share L = U), so the eigen-solver
    # may apply it to blocks of vectors.
    operator = HadamardGramOperator(
        [*H.terms, *(HadamardTerm(t.P, -lam * t.weight, L=t.L) for t in G.terms)]
    )
    n = Mp.shape[0]
    solver = choose_solver(n, solver)
    start = np.full(n, 1.0 / np.sqrt(n))
    target = operator.dense() if solver == "dense" else operator
    pair = leading_eigenvector(target, v0=start, tol=tol)
    alpha, u, negative = nonnegative_weights(pair.vector)
    return WeightingResult(
        alpha=alpha, eigenvector=u, eigenvalue=pair.value, negative_mass=negative,
        algorithm="supervised", solver=solver, n_matvec=pair.n_matvec,
    )
