"""Wolf & Bileschi's Algos. 2 and 1 on Dask and array-API arrays.

* Algo. 2: α is the Perron vector of ``H = (MMᵀ)^∘2``; ``H v = rowwise m_iᵀ(Mᵀdiag(v)M)m_i``
  is one q × q reduction and one row map (:func:`~.kernels.h_rows_block`), and the
  eigenvector comes from :func:`~.eigen.leading_eigenpair`, started from uniform weights.
* Algo. 1: Q-α with the basic eigen-step, started from Algo. 2's weights, on the shared
  engine with :class:`~.qalpha.ScaledModel`.
"""

from __future__ import annotations

import math
from typing import Any

from . import kernels, small
from .eigen import leading_eigenpair
from .inputs import namespace_name, prepare_rows
from .qalpha import SOLVER, ScaledModel
from .qalpha import q_alpha as scaled_q_alpha

__all__ = ["nonnegative", "parameter_free_weights", "pca_weights"]

#: How far from zero mean / unit norm a row may be when the caller says it is preprocessed.
_PREPROCESSED_ATOL = 1e-6


def _unprepared_block(Mb: Any) -> Any:
    xp = kernels.namespace(Mb)
    norms = xp.sqrt(xp.sum(Mb * Mb, axis=1))
    means = xp.mean(Mb, axis=1)
    bad = (xp.abs(norms - 1.0) > _PREPROCESSED_ATOL) | (xp.abs(means) > _PREPROCESSED_ATOL)
    return xp.sum(xp.astype(bad, xp.float64))


def prepared(M: Any, preprocess: bool, name: str = "M") -> Any:
    """Rows as the algorithms need them: centred and unit norm (checked when not preprocessed)."""
    rows = prepare_rows(M, center=preprocess, normalize=preprocess, name=name)
    if not preprocess:
        n_bad = int(float(rows.reduce(_unprepared_block)))
        if n_bad:
            raise ValueError(
                f"{name} was passed with preprocess=False but {n_bad} row(s) are not centred "
                "with unit norm. Pass preprocess=True."
            )
    return rows


def nonnegative(rows: Any, u: Any) -> tuple[Any, Any, float]:
    """:func:`spectral_kit.weighting.result.nonnegative_weights` for row-resident vectors."""
    (u2, total) = rows.dots([(u, u), (u, rows.full(1.0))])
    u = u * (1.0 / math.sqrt(u2))
    if total < 0:
        u = -u
    u = rows.keep(u)
    # (u + |u|)/2 is max(u, 0) exactly, in every namespace and for Dask.
    positive = (u + abs(u)) * 0.5
    negative = (u - abs(u)) * 0.5
    pos2, neg2 = rows.dots([(positive, positive), (negative, negative)])
    return rows.keep(positive * (1.0 / math.sqrt(pos2))), u, float(neg2)


def _parameter_free(rows: Any, tol: float) -> tuple[Any, Any, float, float, int]:
    def matvec(v: Any) -> Any:
        W = small.symmetric(rows.reduce(kernels.weighted_gram_block, (v,)))
        return rows.rowmap(kernels.h_rows_block, W=W)

    n = rows.shape[0]
    pair = leading_eigenpair(rows, matvec, rows.full(1.0 / math.sqrt(n)), tol=tol)
    alpha, u, negative = nonnegative(rows, pair.vector)
    return alpha, u, pair.value, negative, pair.n_matvec


def parameter_free_weights(
    M: Any, *, solver: str = "auto", preprocess: bool = True, tol: float = 1e-12
) -> Any:
    """:func:`spectral_kit.weighting.parameter_free_weights` for a Dask or array-API M.

    Always matrix-free (``solver`` is validated only); α is returned where M is.
    """
    from ..qalpha.standard import SOLVERS
    from ..validation import check_choice, check_finite_scalar
    from ..weighting.result import WeightingResult

    check_choice(solver, "solver", SOLVERS)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    rows = prepared(M, preprocess)
    alpha, u, value, negative, n_matvec = _parameter_free(rows, tol)
    return WeightingResult(
        alpha=alpha, eigenvector=u, eigenvalue=value, negative_mass=negative,
        algorithm="parameter-free", solver="matrix-free", n_matvec=n_matvec,
    )


def pca_weights(
    M: Any,
    k: int,
    *,
    init: str = "parameter-free",
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    preprocess: bool = True,
    random_state: object = None,
) -> Any:
    """:func:`spectral_kit.weighting.pca_weights` (Algo. 1) for a Dask or array-API M."""
    from ..qalpha.engine import QAlphaResult, alternate
    from ..qalpha.standard import SOLVERS, check_k
    from ..validation import check_choice, check_finite_scalar, check_int
    from ..weighting.result import WeightingResult
    from ..weighting.unsupervised import ALGO1_INITS

    init = check_choice(init, "init", ALGO1_INITS)
    check_choice(solver, "solver", SOLVERS)
    max_iter = check_int(max_iter, "max_iter", low=1)
    tol = check_finite_scalar(tol, "tol", low=0.0, low_inclusive=False)
    if init != "parameter-free":
        rows = prepared(M, preprocess)
        k = check_k(k, rows.shape[1])
        run = scaled_q_alpha(
            M, k, method="basic", init=init, max_iter=max_iter, tol=tol,
            preprocess=preprocess, random_state=random_state,
        )
    else:
        rows = prepared(M, preprocess)
        k = check_k(k, rows.shape[1])
        start, _, _, _, n_matvec = _parameter_free(rows, 1e-12)
        model = ScaledModel(rows)
        Q0 = small.top_eigenvectors(rows.small, model.affinity(start), k)[1]
        raw = alternate(
            model, Q0, method="basic", max_iter=max_iter, tol=tol, solver=SOLVER, alpha0=start
        )
        raw["n_matvec"] += n_matvec
        run = QAlphaResult(
            method="basic", spectrum="standard", criterion="top", solver=SOLVER,
            init="parameter-free", array_type=namespace_name(M), **raw,
        )
    alpha, u, negative = nonnegative(rows, run.alpha)
    return WeightingResult(
        alpha=alpha, eigenvector=u, eigenvalue=run.eigenvalue, negative_mass=negative,
        algorithm="q-alpha", solver=run.solver, n_matvec=run.n_matvec, details=run,
    )
