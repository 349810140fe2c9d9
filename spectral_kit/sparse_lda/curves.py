"""λ_max against k for ST, GSLDA and ESLDA inside the inclusion band, in one call.

What an interactive view of the bounds needs after every change of (A, B): the band of Eq. 8
(λ_k(A, B) below, λ_n(A, B) above), the renormalized ST path, the GSLDA path and the optimum
at every k -- with a per-k time limit so the exact curve never blocks a slider.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import check_choice, check_finite_scalar
from .branch_bound import eslda_pair, single_threaded_blas
from .greedy import gslda_pair, nested_values
from .pair import check_pair
from .thresholding import LOADINGS, threshold_loadings

__all__ = ["SparsityCurves", "sparsity_curves"]


@dataclass(frozen=True)
class SparsityCurves:
    """Values of the sparse solutions of every cardinality, with the bounds of Eq. 8.

    Attributes
    ----------
    ks : ndarray of int, shape (n,)
        1, …, n.
    lower : ndarray of shape (n,)
        λ_k(A, B), the lower inclusion bound at each k.
    upper : float
        λ_n(A, B), the upper bound for every k.
    spectrum : ndarray of shape (n,)
        λ_1(A, B) ≤ … ≤ λ_n(A, B).
    values : dict of str to ndarray of shape (n,)
        ``"ST"``, ``"GSLDA"`` and (when ``exact``) ``"ESLDA"``: λ_max at each k.
    supports : dict of str to tuple of ndarray
        The supports behind ``values``.
    optimal : ndarray of bool, shape (n,)
        Whether ESLDA certified optimality at each k (False where it hit ``max_seconds``).
    epsilon : float
        Regularization added to B.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> curves = sl.sparsity_curves(A, np.eye(4))
    >>> curves.values["ESLDA"].round(9).tolist(), bool(curves.optimal.all())
    ([2.0, 3.0, 3.0, 3.0], True)
    """

    ks: np.ndarray
    lower: np.ndarray
    upper: float
    spectrum: np.ndarray
    values: dict[str, np.ndarray]
    supports: dict[str, tuple[np.ndarray, ...]] = field(repr=False)
    optimal: np.ndarray
    epsilon: float


def sparsity_curves(
    A: Any,
    B: Any,
    *,
    exact: bool = True,
    max_seconds: float | None = None,
    loadings: str = "whitened",
    regularization: Any = None,
) -> SparsityCurves:
    """ST, GSLDA and ESLDA values for k = 1, …, n with the inclusion band (Eq. 8).

    Parameters
    ----------
    A, B : array-like
        The pair (A may be the vector d of a rank-one A = d dᵀ).
    exact : bool
        Also run ESLDA (initialised from GSLDA) at every k.
    max_seconds : float, optional
        Time limit of each ESLDA run; the incumbent is reported where it is reached.
    loadings : {"whitened", "discriminant"}
        Which factor ST thresholds.
    regularization : None, float or "auto"
        B ← B + εI.

    Returns
    -------
    SparsityCurves

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> p = sl.random_pair(6, random_state=0)
    >>> curves = sl.sparsity_curves(p.d, p.B)
    >>> bool((curves.values["GSLDA"] <= curves.values["ESLDA"] * (1 + 1e-9)).all())
    True
    """
    loadings = check_choice(loadings, "loadings", LOADINGS)
    if max_seconds is not None:
        max_seconds = check_finite_scalar(max_seconds, "max_seconds", low=0.0)
    pair = check_pair(A, B, regularization)
    n = pair.n
    with single_threaded_blas():
        spectrum = scipy.linalg.eigh(pair.A, pair.B, eigvals_only=True, check_finite=False)
        path = gslda_pair(pair)
        order = np.argsort(-np.abs(threshold_loadings(pair, loadings)), kind="stable")
        values = {"ST": nested_values(pair, order), "GSLDA": path.values.copy()}
        supports = {"ST": tuple(np.sort(order[:k]) for k in range(1, n + 1)),
                    "GSLDA": path.supports}
        optimal = np.zeros(n, dtype=bool)
        if exact:
            results = [eslda_pair(pair, k, init=path, max_seconds=max_seconds)
                       for k in range(1, n + 1)]
            values["ESLDA"] = np.array([r.value for r in results])
            supports["ESLDA"] = tuple(r.support for r in results)
            optimal = np.array([r.optimal for r in results])
    return SparsityCurves(
        np.arange(1, n + 1), spectrum.copy(), float(spectrum[-1]), spectrum, values,
        supports, optimal, pair.epsilon,
    )
