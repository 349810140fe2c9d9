"""The Monte Carlo of Sec. 3.1 (Fig. 1): how close ST and GSLDA come to the optimum.

For every random pair (A, B), the renormalized ST path, the GSLDA path and the optimal value
at every k (ESLDA, the paper's "ground truth") are computed; Fig. 1a plots the mean
λ_max(A_k, B_k) normalized by λ_max(A, B), Fig. 1b the mean optimality ratio
(captured-to-optimal). Pairs are processed in batches, so that a caller (a widget, a report)
can refine the curves progressively and combine batches with :meth:`MonteCarloBatch.concat`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..validation import as_generator, check_int, check_memory
from .branch_bound import eslda_pair, single_threaded_blas
from .data import random_pair
from .exhaustive import exhaustive_path
from .greedy import gslda_pair, nested_values
from .pair import check_pair
from .thresholding import LOADINGS, threshold_loadings

__all__ = ["MonteCarloBatch", "monte_carlo_batch"]


@dataclass(frozen=True)
class MonteCarloBatch:
    """Values of ST, GSLDA and the optimum for a batch of random pairs.

    Attributes
    ----------
    values : dict of str to ndarray of shape (n_pairs, n)
        ``"ST"``, ``"GSLDA"`` and ``"ESLDA"`` (optimal): λ_max at k = 1, …, n for each pair.
    lambda_max : ndarray of shape (n_pairs,)
        λ_max(A, B) = λ_n of each pair (the value at k = n), used to normalize Fig. 1a.
    nodes : ndarray of shape (n_pairs, n)
        Branch-and-bound nodes ESLDA expanded for each pair and k.
    exhaustive_agrees : ndarray of bool, shape (n_audited,)
        For the audited pairs: whether ESLDA matched exhaustive search at every k.
    settings : dict
        n, smoothness, shape, kind, loadings.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> mc = sl.monte_carlo_batch(6, 2, random_state=0)
    >>> mc.values["ESLDA"].shape, bool((mc.values["GSLDA"] <= mc.values["ESLDA"] + 1e-9).all())
    ((2, 6), True)
    """

    values: dict[str, np.ndarray]
    lambda_max: np.ndarray
    nodes: np.ndarray
    exhaustive_agrees: np.ndarray
    settings: dict = field(default_factory=dict)

    @property
    def n_pairs(self) -> int:
        """Number of pairs in the batch."""
        return int(self.lambda_max.size)

    def ratio(self, method: str) -> np.ndarray:
        """Optimality ratio value / optimum per pair and k (1 where the optimum is 0)."""
        opt = self.values["ESLDA"]
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(opt > 0, self.values[method] / opt, 1.0)
        return out

    def mean_ratio(self, method: str) -> np.ndarray:
        """Mean optimality ratio per k (Fig. 1b)."""
        return self.ratio(method).mean(axis=0)

    def mean_normalized(self, method: str) -> np.ndarray:
        """Mean λ_max(A_k, B_k) / λ_max(A, B) per k (Fig. 1a)."""
        return (self.values[method] / self.lambda_max[:, None]).mean(axis=0)

    def concat(self, other: MonteCarloBatch) -> MonteCarloBatch:
        """Both batches as one (same settings)."""
        if other.settings != self.settings:
            raise ValueError("batches with different settings cannot be combined.")
        return MonteCarloBatch(
            {m: np.vstack([v, other.values[m]]) for m, v in self.values.items()},
            np.concatenate([self.lambda_max, other.lambda_max]),
            np.vstack([self.nodes, other.nodes]),
            np.concatenate([self.exhaustive_agrees, other.exhaustive_agrees]),
            dict(self.settings),
        )


def monte_carlo_batch(
    n: int = 16,
    n_pairs: int = 10,
    *,
    smoothness: float = 0.5,
    shape: float = 2.0,
    kind: str = "rank_one",
    loadings: str = "whitened",
    audit: int = 0,
    rtol: float = 1e-9,
    random_state: Any = None,
) -> MonteCarloBatch:
    """Run the Monte Carlo of Sec. 3.1 on ``n_pairs`` random pairs.

    Parameters
    ----------
    n : int
        Size of the pairs (the paper's Fig. 1 uses n = 16).
    n_pairs : int
        Number of random pairs in this batch.
    smoothness, shape, kind
        See :func:`spectral_kit.sparse_lda.random_pair`.
    loadings : {"whitened", "discriminant"}
        Which dense factor ST thresholds (see :func:`simple_threshold_path`).
    audit : int
        For the first ``audit`` pairs also run exhaustive search and record whether ESLDA
        matched it (relative tolerance ``rtol``) at every k.
    rtol : float
        Relative tolerance of the exhaustive audit.
    random_state : None, int or Generator

    Returns
    -------
    MonteCarloBatch

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> mc = sl.monte_carlo_batch(6, 2, audit=1, random_state=0)
    >>> mc.values["ESLDA"].shape, mc.exhaustive_agrees.tolist()
    ((2, 6), [True])
    """
    n = check_int(n, "n", low=1)
    check_memory(8.0 * 8 * n * n, f"the n × n matrices of a pair for n = {n}")
    n_pairs = check_int(n_pairs, "n_pairs", low=1, high=10**6,
                        hint="A million pairs already estimate every curve to ±0.001.")
    audit = check_int(audit, "audit", low=0, high=n_pairs)
    if loadings not in LOADINGS:
        raise ValueError(f"loadings must be one of {LOADINGS}; got {loadings!r}.")
    rng = as_generator(random_state)
    values = {m: np.empty((n_pairs, n)) for m in ("ST", "GSLDA", "ESLDA")}
    lambda_max = np.empty(n_pairs)
    nodes = np.zeros((n_pairs, n), dtype=np.int64)
    agrees = np.zeros(audit, dtype=bool)
    with single_threaded_blas():
        for i in range(n_pairs):
            rp = random_pair(n, smoothness=smoothness, shape=shape, kind=kind,
                             random_state=rng)
            pair = check_pair(rp.d if rp.d is not None else rp.A, rp.B)
            path = gslda_pair(pair)
            order = np.argsort(-np.abs(threshold_loadings(pair, loadings)), kind="stable")
            values["ST"][i] = nested_values(pair, order)
            values["GSLDA"][i] = path.values
            for k in range(1, n + 1):
                result = eslda_pair(pair, k, init=path)
                values["ESLDA"][i, k - 1] = result.value
                nodes[i, k - 1] = result.nodes_expanded
            lambda_max[i] = values["ESLDA"][i, -1]
            if i < audit:
                ex = exhaustive_path(pair.A if pair.d is None else pair.d, pair.B)
                agrees[i] = bool(np.all(
                    np.abs(values["ESLDA"][i] - ex.values) <= rtol * np.abs(ex.values)
                ))
    settings = {"n": n, "smoothness": smoothness, "shape": shape, "kind": kind,
                "loadings": loadings}
    return MonteCarloBatch(values, lambda_max, nodes, agrees, settings)
