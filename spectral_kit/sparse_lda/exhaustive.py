"""Exhaustive search over all k-subsets: the ground truth for small n (Sec. 2.1).

"exhaustive search is a viable method for small n that guarantees optimality for toy problems
... thus calibrating the quality of approximations (via the optimality gap)". Every subset's
λ_max(A_S, B_S) is computed directly -- stacked Cholesky factorizations and eigen-solves, no
bounds and no pruning -- so it checks the branch-and-bound independently.
"""

from __future__ import annotations

import itertools
from math import comb
from typing import Any

import numpy as np

from ..validation import check_int
from ._numerics import batched_values, subset_vector
from .pair import MatrixPair, check_k, check_pair
from .results import SparseDiscriminant, SparsePath

__all__ = ["MAX_SUBSETS", "exhaustive", "exhaustive_path"]

#: Default limit on the number of subsets an exhaustive search may enumerate.
MAX_SUBSETS = 5_000_000

_CHUNK = 20_000


def _best_of_size(pair: MatrixPair, k: int) -> tuple[np.ndarray, float]:
    best_value, best_support = -np.inf, None
    combos = itertools.combinations(range(pair.n), k)
    while True:
        chunk = np.array(list(itertools.islice(combos, _CHUNK)), dtype=np.intp)
        if chunk.size == 0:
            break
        values = batched_values(pair, chunk.reshape(-1, k))
        i = int(np.argmax(values))
        if values[i] > best_value:
            best_value, best_support = float(values[i]), chunk.reshape(-1, k)[i].copy()
    return best_support, best_value


def _check_budget(count: int, max_subsets: int, what: str) -> None:
    if count > max_subsets:
        raise ValueError(
            f"exhaustive search would enumerate {count} subsets ({what}), more than "
            f"max_subsets={max_subsets}. Use eslda (branch-and-bound) for larger problems, or "
            "raise max_subsets."
        )


def exhaustive(
    A: Any, B: Any, k: int, *, regularization: Any = None, max_subsets: int = MAX_SUBSETS
) -> SparseDiscriminant:
    """The optimal k-sparse discriminant by enumerating all C(n, k) supports.

    Parameters
    ----------
    A, B : array-like
        The pair (A may be the vector d of a rank-one A = d dᵀ).
    k : int
        Cardinality, 1 ≤ k ≤ n.
    regularization : None, float or "auto"
    max_subsets : int
        Refuse (ValueError) when C(n, k) exceeds this.

    Returns
    -------
    SparseDiscriminant
        The best support (the first in lexicographic order on exact ties) and its factor.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> res = sl.exhaustive(A, np.eye(4), 2)
    >>> res.support.tolist(), round(res.value, 9)
    ([0, 1], 3.0)
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    max_subsets = check_int(max_subsets, "max_subsets", low=1)
    _check_budget(comb(pair.n, k), max_subsets, f"C({pair.n}, {k})")
    support, _ = _best_of_size(pair, k)
    value, x = subset_vector(pair, support)
    return SparseDiscriminant(support, value, x, pair.epsilon, "exhaustive")


def exhaustive_path(
    A: Any, B: Any, *, regularization: Any = None, max_subsets: int = MAX_SUBSETS
) -> SparsePath:
    """The optimal support for every k = 1, …, n (all 2ⁿ − 1 subsets).

    Parameters
    ----------
    A, B : array-like of shape (n, n)
        As in :func:`exhaustive`.
    regularization : None, float or "auto"
        See :func:`spectral_kit.sparse_lda.regularize`.
    max_subsets : int
        Refuse (``ValueError``) when 2ⁿ − 1 exceeds it.

    Returns
    -------
    SparsePath
        ``supports[k−1]`` and ``values[k−1]`` (the optimal λ_max at cardinality k).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.exhaustive_path(A, np.eye(4))
    >>> [s.tolist() for s in path.supports[:2]], path.values.round(9).tolist()
    ([[0], [0, 1]], [2.0, 3.0, 3.0, 3.0])
    """
    pair = check_pair(A, B, regularization)
    max_subsets = check_int(max_subsets, "max_subsets", low=1)
    _check_budget(2**pair.n - 1, max_subsets, f"2^{pair.n} − 1")
    n = pair.n
    supports, values = [], np.empty(n)
    if max(comb(n, k) * (k + 1) ** 2 for k in range(1, n + 1)) * 16 <= _LEVEL_BYTES:
        for k, (S, vals) in enumerate(_levels(pair), start=1):
            i = int(np.argmax(vals))
            supports.append(S[i].copy())
            values[k - 1] = vals[i]
    else:
        for k in range(1, n + 1):
            support, value = _best_of_size(pair, k)
            supports.append(support)
            values[k - 1] = value
    return SparsePath(tuple(supports), values, pair.epsilon, "exhaustive")


#: Memory allowed for one level of the level-wise enumeration.
_LEVEL_BYTES = 400_000_000


def _levels(pair: MatrixPair):
    """All k-subsets in lexicographic order with their λ_max, level by level (k = 1, …, n).

    Each (k+1)-subset S ∪ {j} (j > max S) extends its parent's inverse Cholesky factor by one
    row -- ``[−lᵀL⁻¹/δ, 1/δ]`` with l = L⁻¹B_{S,j}, δ² = B_jj − ‖l‖² -- for all subsets of a
    level at once; rank one adds ``((d_j − lᵀw)/δ)²`` to the parent's value, general A
    borders the parent's whitened matrix C = L⁻¹A_S L⁻ᵀ and takes its top eigenvalue.
    """
    A, B, d, n = pair.A, pair.B, pair.d, pair.n
    S = np.arange(n)[:, None]
    diag_B = np.diag(B)
    L_inv = (1.0 / np.sqrt(diag_B))[:, None, None]
    if pair.rank_one:
        w = (d / np.sqrt(diag_B))[:, None]
        vals = w[:, 0] ** 2
    else:
        C = (np.diag(A) / diag_B)[:, None, None]
        vals = C[:, 0, 0].copy()
    yield S, vals
    for k in range(1, n):
        last = S[:, -1]
        counts = n - 1 - last
        parent = np.repeat(np.arange(S.shape[0]), counts)
        offsets = np.cumsum(counts) - counts
        j = last[parent] + 1 + (np.arange(parent.size) - offsets[parent])
        S_p, Li_p = S[parent], L_inv[parent]
        row = np.einsum("cij,cj->ci", Li_p, B[S_p, j[:, None]])
        delta = np.sqrt(np.maximum(diag_B[j] - np.einsum("ci,ci->c", row, row),
                                   np.finfo(float).eps * diag_B[j]))
        L_new = np.zeros((parent.size, k + 1, k + 1))
        L_new[:, :k, :k] = Li_p
        L_new[:, k, :k] = -np.einsum("ci,cij->cj", row, Li_p) / delta[:, None]
        L_new[:, k, k] = 1.0 / delta
        if pair.rank_one:
            w_p = w[parent]
            omega = (d[j] - np.einsum("ci,ci->c", row, w_p)) / delta
            w = np.concatenate([w_p, omega[:, None]], axis=1)
            vals = vals[parent] + omega**2
        else:
            C_p = C[parent]
            u = np.einsum("cij,cj->ci", Li_p, A[S_p, j[:, None]])
            Cl = np.einsum("cij,cj->ci", C_p, row)
            b = (u - Cl) / delta[:, None]
            corner = (np.einsum("ci,ci->c", row, Cl) - 2 * np.einsum("ci,ci->c", row, u)
                      + A[j, j]) / delta**2
            C = np.empty((parent.size, k + 1, k + 1))
            C[:, :k, :k] = C_p
            C[:, :k, k] = b
            C[:, k, :k] = b
            C[:, k, k] = corner
            vals = np.linalg.eigvalsh(C)[:, -1]
        S = np.concatenate([S_p, j[:, None]], axis=1)
        L_inv = L_new
        yield S, vals
