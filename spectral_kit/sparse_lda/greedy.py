"""Greedy sparse LDA: forward selection, backward elimination and GSLDA (Sec. 2.3).

* Forward: start from S = {} and add the variable j that maximizes λ_max(A_{S+j}, B_{S+j}).
* Backward: start from S = {1, …, n} and delete the j that maximizes λ_max(A_{S∖j}, B_{S∖j}).
* GSLDA: both passes over the whole range of k, keeping the better support at every k.

Rank-one A = d dᵀ (two-class LDA) makes every step a Cholesky up/down-date:

* forward: with B_S = L Lᵀ and w = L⁻¹d_S, adding j appends ``(d_j − l_jᵀw)/δ_j`` to w, where
  l_j = L⁻¹B_{S,j} and δ_j² = B_jj − ‖l_j‖² (the Schur complement). Keeping the rows of
  L⁻¹B_{S,:} up to date costs O(|S|·n) per step, so the whole forward path is O(n³) instead of
  O(n⁵) eigen-solves;
* backward: with P = B_S⁻¹ and w = P d_S, deleting j lowers the value by w_j² / P_jj, and
  P loses the rank-one term p_j p_jᵀ / P_jj (a down-date of the inverse). The down-dates are
  accumulated as P = B⁻¹ − V Vᵀ, so each step reads one column, O(n·steps), not O(n²).

General A uses stacked LAPACK solves of all candidate subproblems at once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

import numpy as np
import scipy.linalg

from ..progress import check_max_seconds, check_progress
from ..validation import check_int
from ._meter import Meter
from ._numerics import (
    add_one_values,
    drop_one_values,
    subset_value,
)
from .pair import MatrixPair, check_pair
from .results import GSLDAPath, NestedPath

__all__ = ["greedy_backward", "greedy_forward", "gslda", "nested_path"]



def greedy_forward(
    A: Any, B: Any, k_max: int | None = None, *, regularization: Any = None
) -> NestedPath:
    """Greedy forward selection for sparse LDA/PCA (Sec. 2.3).

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Between-class matrix (or the vector d of a rank-one A = d dᵀ). Use ``A`` = a
        covariance and ``B = I`` for sparse PCA.
    B : array-like of shape (n, n)
        Within-class matrix, positive definite unless ``regularization`` is given.
    k_max : int, optional
        Stop after k_max variables (default n: the whole path).
    regularization : None, float or "auto"
        B ← B + εI; see :func:`spectral_kit.sparse_lda.regularize`.

    Returns
    -------
    NestedPath
        ``order`` (the variables in the order they were added) and ``values[k−1]`` =
        λ_max(A_{S_k}, B_{S_k}) for k = 1, …, k_max.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.greedy_forward(A, np.eye(4), 2)
    >>> path.order.tolist(), path.values.round(9).tolist()
    ([0, 1], [2.0, 3.0])
    """
    pair = check_pair(A, B, regularization)
    k_max = pair.n if k_max is None else check_int(k_max, "k_max", low=1, high=pair.n)
    if pair.rank_one:
        order, values = _forward_rank_one(pair, k_max)
    else:
        order, values = _forward_general(pair, k_max)
    return NestedPath(order, values, pair.epsilon, "forward")


def greedy_backward(A: Any, B: Any, *, regularization: Any = None) -> NestedPath:
    """Greedy backward elimination for sparse LDA/PCA (Sec. 2.3), from n down to 1.

    Parameters
    ----------
    A, B, regularization
        As in :func:`greedy_forward`.

    Returns
    -------
    NestedPath
        ``order`` is the reverse of the order of elimination, so the support at cardinality k
        is ``order[:k]`` (the k survivors); ``values[k−1]`` its λ_max.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.greedy_backward(A, np.eye(4))
    >>> sorted(path.order[:2].tolist()), path.values.round(9).tolist()
    ([0, 1], [2.0, 3.0, 3.0, 3.0])
    """
    pair = check_pair(A, B, regularization)
    if pair.rank_one:
        order = _backward_rank_one(pair)
        values = _nested_rank_one(pair, order)
    else:
        order, values = _backward_general(pair)
    return NestedPath(order, values, pair.epsilon, "backward")


def gslda(
    A: Any, B: Any, *, regularization: Any = None, progress: bool | None = None,
    max_seconds: float | None = None,
) -> GSLDAPath:
    """Greedy sparse LDA: the better of a forward and a backward pass at every k (Sec. 2.3).

    "run a forward pass (from 1 to n) plus a second (independent) backward pass (from n to 1)
    and pick the better solution at each k" -- near-optimal solutions for all cardinalities
    at once.

    Parameters
    ----------
    A, B, regularization
        As in :func:`greedy_forward`.
    progress : None or bool
        A progress bar (text in a terminal, a widget in a notebook) over the greedy steps of
        both passes: None shows one for :data:`~._meter.LARGE_FEATURES` or more features once the
        path has run two seconds (:mod:`spectral_kit.progress`); True always, False never.
    max_seconds : float, optional
        Time budget. The path stops with :class:`~spectral_kit.progress.BudgetExceeded`
        (saying how long it would take) as soon as the rate of its first steps projects it
        beyond the budget -- after at most a twentieth of the budget or of the work.

    Returns
    -------
    GSLDAPath
        ``supports[k−1]``, ``values[k−1]`` for k = 1, …, n, both passes and which one won.

    Raises
    ------
    spectral_kit.progress.BudgetExceeded
        When the path would not finish within ``max_seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.gslda(A, np.eye(4))
    >>> path.support_at(2).tolist(), path.values.round(9).tolist()
    ([0, 1], [2.0, 3.0, 3.0, 3.0])
    """
    start = time.perf_counter()
    progress = check_progress(progress)
    max_seconds = check_max_seconds(max_seconds)
    pair = check_pair(A, B, regularization)
    if max_seconds is not None:  # the budget covers the checks of A and B too
        max_seconds = max(max_seconds - (time.perf_counter() - start), 1e-9)
    return gslda_pair(pair, progress=progress, max_seconds=max_seconds)


def gslda_pair(pair: MatrixPair, *, progress: bool | None = False,
               max_seconds: float | None = None) -> GSLDAPath:
    """GSLDA on an already validated pair (``progress`` and ``max_seconds`` validated)."""
    with Meter(pair, progress, max_seconds) as tick:
        if pair.rank_one:
            f_order, f_values = _forward_rank_one(pair, pair.n, tick=tick)
            b_order = _backward_rank_one(pair, tick=tick)
            b_values = _forward_rank_one(pair, pair.n, order=b_order, tick=tick)[1]
        else:
            f_order, f_values = _forward_general(pair, pair.n, tick=tick)
            b_order, b_values = _backward_general(pair, tick=tick)
    forward = NestedPath(f_order, f_values, pair.epsilon, "forward")
    backward = NestedPath(b_order, b_values, pair.epsilon, "backward")
    use_backward = b_values > f_values
    values = np.where(use_backward, b_values, f_values)
    source = np.where(use_backward, "backward", "forward")
    return GSLDAPath(values, forward, backward, source, pair.epsilon)


def nested_path(
    A: Any, B: Any, order: Any, *, regularization: Any = None, method: str = "nested"
) -> NestedPath:
    """Renormalized values (Prop. 2) of the nested supports ``order[:k]``, k = 1, …, len(order).

    Any ranking of the variables -- thresholded loadings, correlations, an SVM's weights --
    defines nested supports; this gives λ_max(A_S, B_S) for each of them.

    Parameters
    ----------
    A, B, regularization
        As in :func:`greedy_forward`.
    order : array-like of int
        Distinct feature indices, best first (a prefix of a ranking is allowed).
    method : str
        Label stored in the result.

    Returns
    -------
    NestedPath
        ``order`` and ``values[k−1]`` = λ_max of ``order[:k]``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> sl.nested_path(A, np.eye(4), [2, 0, 1]).values.round(9).tolist()
    [1.0, 2.0, 3.0]
    """
    pair = check_pair(A, B, regularization)
    order = _check_order(order, pair.n)
    return NestedPath(order, nested_values(pair, order), pair.epsilon, method)


def _check_order(order: Any, n: int) -> np.ndarray:
    arr = np.asarray(order)
    if arr.ndim != 1 or arr.size == 0:
        raise ValueError(
            f"order must be a non-empty 1-D array of feature indices; got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iu":
        raise TypeError(f"order must contain integer indices; got dtype {arr.dtype}.")
    if arr.min() < 0 or arr.max() >= n:
        raise ValueError(
            f"order must contain indices in [0, {n - 1}]; got {arr.min()}..{arr.max()}."
        )
    if np.unique(arr).size != arr.size:
        raise ValueError("order contains repeated indices; each feature may appear once.")
    return arr.astype(np.intp)


def nested_values(pair: MatrixPair, order: np.ndarray) -> np.ndarray:
    """λ_max of ``order[:k]`` for every k (validated pair)."""
    if pair.rank_one:
        return _nested_rank_one(pair, order)
    return np.array([subset_value(pair, order[:k]) for k in range(1, order.size + 1)])


# --------------------------------------------------------------------------- rank one


def _nested_rank_one(pair: MatrixPair, order: np.ndarray) -> np.ndarray:
    """``d_Sᵀ B_S⁻¹ d_S`` for S = order[:k], k = 1, …, len(order) (forward up-dates)."""
    return _forward_rank_one(pair, order.size, order=order)[1]


def _forward_rank_one(
    pair: MatrixPair, k_max: int, order: np.ndarray | None = None,
    tick: Callable[[], None] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """Greedy forward selection (or, with ``order``, the values along that order)."""
    d, B = pair.d, pair.B
    n = pair.n
    cols = np.arange(n)  # candidate columns still held in the work arrays
    where = np.arange(n)  # position of each feature in ``cols`` (−1 once compacted away)
    rows = np.empty((k_max, n))  # rows of L⁻¹ B_{S,cols}
    r = np.zeros(n)  # ‖L⁻¹ B_{S,j}‖²
    t = np.zeros(n)  # (L⁻¹ B_{S,j})ᵀ w
    diag_B = np.diag(B).copy()
    d_c = d.copy()
    alive = np.ones(n, dtype=bool)
    floor = np.finfo(float).eps * diag_B
    chosen = np.empty(k_max, dtype=np.intp)
    values = np.empty(k_max)
    total = 0.0
    for step in range(k_max):
        if order is None:
            schur = np.maximum(diag_B - r, floor)
            gain = (d_c - t) ** 2 / schur
            gain[~alive] = -np.inf
            j = int(np.argmax(gain))
            schur_j = schur[j]
        else:
            j = int(where[order[step]])
            schur_j = max(diag_B[j] - r[j], floor[j])
        p = int(cols[j])
        delta = np.sqrt(schur_j)
        omega = (d_c[j] - t[j]) / delta
        new_row = B[p, cols] - rows[:step, j] @ rows[:step] if step else B[p, cols].copy()
        new_row /= delta
        rows[step] = new_row
        r += new_row**2
        t += new_row * omega
        total += omega**2
        chosen[step], values[step] = p, total
        alive[j] = False
        if tick is not None:
            tick()
        # Drop finished columns once a third of the work arrays is dead weight.
        if 3 * int(alive.sum()) < 2 * cols.size:
            keep = alive
            cols, r, t, diag_B, d_c, floor = (
                cols[keep], r[keep], t[keep], diag_B[keep], d_c[keep], floor[keep]
            )
            rows = np.ascontiguousarray(rows[:, keep])
            alive = np.ones(cols.size, dtype=bool)
            where = np.full(n, -1)
            where[cols] = np.arange(cols.size)
    return chosen, values


def _spd_inverse(B: np.ndarray) -> np.ndarray:
    """B⁻¹ from the Cholesky factor (LAPACK potrf + potri: n³ flops instead of 4n³/3 + n³)."""
    L = scipy.linalg.cholesky(B, lower=True, check_finite=False)
    inv, info = scipy.linalg.lapack.dpotri(L, lower=1)
    if info != 0:  # pragma: no cover - B was validated positive definite
        raise np.linalg.LinAlgError(f"potri failed with info={info}")
    # scipy's Cholesky factor has zeros above the diagonal, and potri leaves them there.
    full = inv + inv.T
    full[np.diag_indices_from(full)] *= 0.5
    return full


def _backward_rank_one(pair: MatrixPair,
                       tick: Callable[[], None] | None = None) -> np.ndarray:
    """Order of elimination (reversed: survivors first) using down-dates of P = B_S⁻¹."""
    d, B = pair.d, pair.B
    n = pair.n
    P0 = _spd_inverse(B)
    cols = np.arange(n)
    w = P0 @ d
    diag_P = np.diag(P0).copy()
    V = np.zeros((n, max(n - 1, 1)))  # P_S = P0_SS − V Vᵀ (rows follow ``cols``)
    alive = np.ones(n, dtype=bool)
    removed = np.empty(n, dtype=np.intp)
    tiny = np.finfo(float).tiny
    for step in range(n - 1):
        score = w**2 / np.maximum(diag_P, tiny)  # the value lost by deleting j
        score[~alive] = np.inf
        j = int(np.argmin(score))
        p = int(cols[j])
        col = P0[p, cols] - (V[:, :step] @ V[j, :step] if step else 0.0)
        scale = np.sqrt(max(diag_P[j], tiny))
        v = col / scale
        w -= v * (w[j] / scale)
        diag_P -= v**2
        V[:, step] = v
        removed[step] = p
        alive[j] = False
        if tick is not None:
            tick()
        if 3 * int(alive.sum()) < 2 * cols.size:
            keep = alive
            cols, w, diag_P = cols[keep], w[keep], diag_P[keep]
            V = np.ascontiguousarray(V[keep])
            alive = np.ones(cols.size, dtype=bool)
    removed[n - 1] = int(cols[np.flatnonzero(alive)[0]])
    return removed[::-1].copy()


# --------------------------------------------------------------------------- general A


def _forward_general(pair: MatrixPair, k_max: int,
                     tick: Callable[[], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    n = pair.n
    alive = np.ones(n, dtype=bool)
    order = np.empty(k_max, dtype=np.intp)
    values = np.empty(k_max)
    for step in range(k_max):
        candidates = np.flatnonzero(alive)
        vals = add_one_values(pair, order[:step], candidates)
        j = int(np.argmax(vals))
        order[step], values[step] = candidates[j], vals[j]
        alive[candidates[j]] = False
        if tick is not None:
            tick()
    return order, values


def _backward_general(pair: MatrixPair,
                      tick: Callable[[], None] | None = None) -> tuple[np.ndarray, np.ndarray]:
    n = pair.n
    current = np.arange(n)
    removed = np.empty(n, dtype=np.intp)
    values = np.empty(n)
    values[n - 1] = subset_value(pair, current)
    for step in range(n - 1):
        vals = drop_one_values(pair, current)
        j = int(np.argmax(vals))
        removed[step] = current[j]
        values[n - 2 - step] = vals[j]
        current = np.delete(current, j)
        if tick is not None:
            tick()
    removed[n - 1] = current[0]
    return removed[::-1].copy(), values


# --------------------------------------------------------------------------- local search
