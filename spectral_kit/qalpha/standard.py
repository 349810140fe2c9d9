"""Unsupervised Q-α: ``q_alpha`` (Wolf & Shashua 2005, Secs. 2–3)."""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from ..backends import array_kind
from ..backends.inputs import namespace_name, prepare_rows
from ..backends.model import SOLVER as SCALED_SOLVER
from ..backends.model import ScaledModel
from ..preprocess import preprocess_rows
from ..validation import as_generator, check_choice, check_finite_scalar, check_int
from .engine import QAlphaResult, alternate, choose_solver, scale_back, scaled_down
from .models import LaplacianModel, StandardModel
from .sparse import is_sparse, sparse_rows

__all__ = ["INIT_CHOICES", "METHODS", "model_of", "q_alpha", "run_model"]

METHODS = ("power", "ritz", "basic")
SPECTRA = ("standard", "laplacian")
CRITERIA = ("top", "gap")
SOLVERS = ("auto", "dense", "matrix-free")
INIT_CHOICES = ("pca", "random")
METHOD_CHOICES = ("auto", *METHODS)
#: Largest number of samples for which ``method="auto"`` uses the full eigen-step.
BASIC_MAX_SAMPLES = 2000

#: Largest number of starts (each holds a q × k subspace and costs a few iterations).
MAX_N_INIT = 1000

#: Iterations given to each candidate start before the best one is continued.
SCREEN_ITER = 5


def check_run_options(
    *, method: object, init: object, n_init: object, max_iter: object, tol: object,
    solver: object,
) -> tuple[str, str, int, int, float, str]:
    """Validate the engine options every Q-α entry point shares; returns them in order
    ``(method, init, n_init, max_iter, tol, solver)``."""
    return (
        check_choice(method, "method", METHOD_CHOICES),
        check_choice(init, "init", INIT_CHOICES),
        check_int(n_init, "n_init", low=1, high=MAX_N_INIT,
                  hint="Each start is screened for a few iterations; a few dozen suffice."),
        check_int(max_iter, "max_iter", low=1),
        check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False),
        check_choice(solver, "solver", SOLVERS),
    )


def resolve_method(method: str, n_samples: int) -> str:
    """``method="auto"``: the basic scheme (an eigendecomposition of the q × q A_α per
    iteration) while q ≤ :data:`BASIC_MAX_SAMPLES`, the power-embedded iteration (Def. 2)
    beyond; any other method is returned as is."""
    if method != "auto":
        return method
    return "basic" if n_samples <= BASIC_MAX_SAMPLES else "power"


def check_k(k: object, n_samples: int, name: str = "k") -> int:
    """k must leave at least one eigen-direction out: 1 ≤ k ≤ q − 1."""
    return check_int(
        k, name, low=1, high=n_samples - 1,
        hint=f"k is the number of clusters/eigenvectors and must be smaller than the number "
        f"of samples q={n_samples}.",
    )


def _starts(
    model: StandardModel, k: int, init: str, n_init: int, rng: np.random.Generator
) -> list[tuple[str, object]]:
    kinds = [init] + ["random"] * (n_init - 1)
    return [(kind, model.initial_subspace(kind, k, rng)) for kind in kinds]


def run_model(
    model: StandardModel,
    k: int,
    *,
    method: str,
    init: str,
    n_init: int,
    max_iter: int,
    tol: float,
    solver: str,
    rng: np.random.Generator,
    spectrum: str,
    criterion: str,
) -> QAlphaResult:
    """Run the engine on ``model`` from one or several starts and keep the best objective.

    ``init`` is passed to ``model.initial_subspace`` as is, so models may accept kinds of
    start beyond "pca" and "random" (the side-information wrapper's "warm").

    With several starts, each is screened for :data:`SCREEN_ITER` iterations and only the
    best (by objective) is run to convergence -- the same economy as k-means' ``n_init``
    but without paying full runs for starts that are already behind.
    """
    solver = choose_solver(model.n_features, solver)
    starts = _starts(model, k, init, n_init, rng)
    best_name, best_Q = starts[0]
    if len(starts) > 1:
        # The screening counts against max_iter: no run does more iterations than asked.
        screen = min(SCREEN_ITER, max_iter)
        scores = []
        for _name, Q0 in starts:
            raw = alternate(model, Q0, method=method, max_iter=screen, tol=tol, solver=solver)
            scores.append((raw["objective"][-1], raw))
        best = int(np.argmax([s for s, _ in scores]))
        best_name = starts[best][0]
        screened = scores[best][1]
        if max_iter > screened["n_iter"] and not screened["converged"]:
            raw = alternate(
                model, screened["Q"], method=method, max_iter=max_iter - screened["n_iter"],
                tol=tol, solver=solver, alpha0=screened["alpha"],
            )
            raw["objective"] = np.concatenate([screened["objective"], raw["objective"]])
            raw["alpha_change"] = np.concatenate(
                [screened["alpha_change"], raw["alpha_change"]])
            raw["n_iter"] += screened["n_iter"]
            raw["n_matvec"] += sum(r["n_matvec"] for _, r in scores)
        else:
            raw = {**screened, "n_matvec": sum(r["n_matvec"] for _, r in scores)}
    else:
        raw = alternate(model, best_Q, method=method, max_iter=max_iter, tol=tol, solver=solver)
    return QAlphaResult(
        method=method, spectrum=spectrum, criterion=criterion, solver=solver,
        init=best_name, **raw,
    )


def q_alpha(
    M: object,
    k: int,
    *,
    method: str = "auto",
    spectrum: str = "standard",
    criterion: str = "top",
    init: str = "pca",
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    preprocess: bool = True,
    random_state: object = None,
) -> QAlphaResult:
    """Unsupervised feature weighting by Q-α (Wolf & Shashua 2005, Def. 1–5).

    Maximises ``trace(QᵀA_αᵀA_αQ)`` over unit-norm weights α and orthonormal Q (Eq. 1), with
    ``A_α = Σ_i α_i m_i m_iᵀ``. Features with large α_i are the ones whose joint spectrum
    shows k coherent clusters. With the standard spectrum, ``criterion="top"`` and
    preprocessed rows, the weights tend to come out positive and sparse (Sec. 4): positivity
    is a high-probability property (Theorem 10; see
    :func:`~spectral_kit.theory.positivity_probability`), not a guarantee -- check
    ``result.all_positive``. With
    ``criterion="gap"`` (an indefinite G) or the Laplacian spectrum on uncentred rows, α often
    has negative entries and the objective need not increase from one iteration to the next.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows** (the papers' M; scikit-learn's X is ``M.T``). A Dask
        array chunked by rows, or a PyTorch/CuPy array, is computed chunk-wise or on its
        device (:mod:`spectral_kit.backends`, extra ``scale``). A SciPy sparse M (csr, csc,
        coo) is never densified: its rows are centred and scaled algebraically
        (:mod:`spectral_kit.qalpha.sparse`; standard spectrum, criterion "top").
    k : int
        Number of leading eigenvectors (clusters), ``1 ≤ k < n_samples``.
    method : {"auto", "basic", "power", "ritz"}
        Q-step: the basic scheme with a full eigendecomposition of the q × q matrix A_α
        (Sec. 3), power-embedded orthogonal iteration (Def. 2), or power-embedded with Ritz
        acceleration (Def. 4). ``"auto"`` (default) takes "basic" when q ≤ 2000 and "power"
        otherwise: on the Fig. 3b data the basic scheme needs 2–3× fewer iterations and
        reaches the higher objective, while its O(n·q²) Q-step only pays off for moderate q.
        Because G depends on Q only through QQᵀ, "ritz" yields the same α sequence as
        "power"; it differs in returning Q's columns as ordered Ritz vectors of A_α.
    spectrum : {"standard", "laplacian"}
        Affinity A_α (Sec. 2.1) or its Laplacian L_α (Sec. 2.2, Def. 5). On uncentred rows
        (``preprocess=False``) the Laplacian run's objective can decrease and α can have
        negative entries.
    criterion : {"top", "gap"}
        ``Σ_{i≤k} λ_i²`` (Eq. 1) or the spectral gap ``Σ_{i≤k} λ_i² − Σ_{j>k} λ_j²``
        (end of Sec. 2.1). The gap's G is indefinite: its α may have negative entries, and
        Prop. 3's monotone objective is not guaranteed for it.
    init : {"pca", "random"}
        Starting subspace Q⁽⁰⁾. ``"pca"`` (default) uses the k leading right singular vectors
        of M, i.e. the eigenvectors of A_α for uniform α; ``"random"`` is the paper's random
        orthonormal Q⁽⁰⁾, which on the Fig. 3b data ends in a poor local maximum in a
        sizeable fraction of runs (see
        :func:`spectral_kit.reproduce.q_alpha.initialization_study`).
    n_init : int
        Number of starts. With ``n_init > 1`` the extra starts are random; every start is
        run for a few iterations and only the one with the highest objective is continued.
    max_iter : int
        Maximum number of iterations.
    tol : float
        Stopping tolerance on ``1 − |cos(α_r, α_{r−1})|`` (see
        :func:`spectral_kit.qalpha.engine.alternate`).
    solver : {"auto", "dense", "matrix-free"}
        How the α-step is solved: by forming G, or matrix-free with warm-started Lanczos
        (``G v = Σ_l p_l ∘ (M (Mᵀ (p_l ∘ v)))``, O(nqk) per product). ``"auto"`` forms G only
        for small n.
    preprocess : bool
        Centre rows and scale them to unit norm first (Sec. 2.1), for both spectra. With
        centred rows every degree of A_α is zero (``m_iᵀ1 = 0``), so the Laplacian L_α
        equals A_α and the two spectra give the same α; they differ on uncentred rows
        (``preprocess=False``), where on the Fig. 3b data made non-negative the Laplacian
        run stays close to uniform weights (sparsity gap ≈ 1) while the standard one finds
        the clusters.
    random_state : None, int or numpy Generator
        Seeds the random starts.

    Returns
    -------
    QAlphaResult
        ``alpha``, ``Q``, the ``objective`` per iteration, ``n_iter``, ``converged`` and
        diagnostics.

    Examples
    --------
    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> res = q_alpha(data.M, k=3, random_state=0)
    >>> bool(res.alpha[data.relevant].mean() > 3 * res.alpha[~data.relevant].mean())
    True
    """
    method, init, n_init, max_iter, tol, solver = check_run_options(
        method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol, solver=solver
    )
    spectrum = check_choice(spectrum, "spectrum", SPECTRA)
    criterion = check_choice(criterion, "criterion", CRITERIA)
    if spectrum == "laplacian" and criterion == "gap":
        raise ValueError(
            "criterion='gap' is defined for the standard spectrum only; use "
            "spectrum='standard' or criterion='top'."
        )
    rng = as_generator(random_state)
    model, e = model_of(M, spectrum=spectrum, criterion=criterion, preprocess=preprocess)
    k = check_k(k, model.n_samples)
    method = resolve_method(method, model.n_samples)
    result = run_model(
        model, k, method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver, rng=rng, spectrum=spectrum, criterion=criterion,
    )
    if array_kind(M) is not None:
        result = replace(result, solver=SCALED_SOLVER, array_type=namespace_name(M))
    return scale_back(result, e)


def model_of(
    M: object, *, spectrum: str = "standard", criterion: str = "top", preprocess: bool = True
) -> tuple[StandardModel, int]:
    """The Q-α model of M's rows (centred and unit norm when ``preprocess``) and the binary
    exponent e its data were scaled down by (see :func:`~.engine.scaled_down`).

    A NumPy M gives :class:`~.models.StandardModel` (or the Laplacian model) on the rows in
    memory; a Dask or array-API M gives :class:`spectral_kit.backends.model.ScaledModel`,
    whose α- and Q-steps are row-chunk reductions where M lives; a SciPy sparse M gives
    :class:`~.sparse.SparseModel`, which preprocesses algebraically and never densifies M
    (standard spectrum, criterion "top" only). Either way the one engine
    (:func:`run_model`) runs on it.
    """
    if is_sparse(M):
        if spectrum != "standard" or criterion != "top":
            raise TypeError(
                f"spectrum={spectrum!r}, criterion={criterion!r} has no path for a sparse M: "
                "only spectrum='standard' with criterion='top' runs on it without densifying. "
                "Use those, or pass M.toarray() if the dense matrix fits in memory."
            )
        return sparse_rows(M, preprocess=preprocess)
    if array_kind(M) is not None:
        if criterion == "gap":
            raise ValueError(
                f"criterion='gap' has no path for M of type {namespace_name(M)}: its α-step "
                "needs (MMᵀ)∘(MMᵀ), which has no low-rank factor. Use criterion='top', or "
                "pass a NumPy M (M.compute() / numpy.asarray(M)) if it fits in memory."
            )
        rows = prepare_rows(M, center=preprocess, normalize=preprocess)
        return ScaledModel(rows, spectrum), 0
    Mp = preprocess_rows(M) if preprocess else preprocess_rows(M, center=False, normalize=False)
    Mp, e = scaled_down(Mp)  # raw rows of any scale: α does not depend on it
    if spectrum == "laplacian":
        return LaplacianModel(Mp), e
    return StandardModel(Mp, criterion=criterion), e
