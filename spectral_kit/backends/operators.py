"""The two map–reduce kernels of Q-α as public functions on Dask and array-API arrays.

* :func:`g_matvec` -- the α-step product ``(𝒢a)_i = m_iᵀ (Mᵀ diag(a) M Q) (MQ)_iᵀ`` (Wolf &
  Shashua 2005, Sec. 3): a q × k reduction over row chunks, then one value per row;
* :func:`weighted_gram` -- the Q-step's q × q matrix ``A_α = Mᵀ diag(α) M`` (Sec. 2.1).

M is used as given (no preprocessing). All arrays of one call must be of one type: Dask with
Dask (q-sized results come back as NumPy), or one array-API namespace on one device.
"""

from __future__ import annotations

from typing import Any

from . import array_kind, check_same_kind, kernels, require_extra, small, type_name
from .dtypes import check_numeric
from .inputs import check_rows_chunking
from .rows import ArrayRows, DaskRows

__all__ = ["g_matvec", "hadamard_square_matvec", "weighted_gram"]


def _rows(M: Any, **others: Any) -> ArrayRows | DaskRows:
    kind = array_kind(M)
    if kind is None:
        raise TypeError(
            f"M is a {type_name(M)}; these kernels are for Dask and array-API arrays. For "
            "NumPy use spectral_kit.qalpha.operators.HadamardGramOperator and "
            "spectral_kit.linalg.weighted_gram."
        )
    require_extra(kind)
    check_same_kind(("M", M), **others)
    M = check_numeric(M, "M")
    for name, value in others.items():
        if value is not None:
            check_numeric(value, name)
    if kind == "dask":
        check_rows_chunking(M)
        return DaskRows(M)
    from array_api_compat import device

    for name, value in others.items():
        if value is not None and device(value) != device(M):
            raise TypeError(
                f"{name} is on device {device(value)} but M is on {device(M)}: move it with "
                f"xp.asarray({name}, device=...) (torch: {name}.to(M.device))."
            )
    return ArrayRows(M)


def _vector(rows: ArrayRows | DaskRows, v: Any) -> Any:
    if rows.kind == "dask" and v.chunks[0] != rows.M.chunks[0]:
        return v.rechunk((rows.M.chunks[0],))
    return v


def _local(rows: ArrayRows | DaskRows, Q: Any) -> Any:
    return Q.compute() if rows.kind == "dask" else Q


def weighted_gram(M: Any, alpha: Any) -> Any:
    """``Mᵀ diag(α) M`` (q × q): NumPy for a Dask M, M's namespace otherwise."""
    rows = _rows(M, alpha=alpha)
    return small.symmetric(rows.reduce(kernels.weighted_gram_block, (_vector(rows, alpha),)))


def g_matvec(M: Any, a: Any, Q: Any) -> Any:
    """``𝒢 a`` with ``𝒢 = (MMᵀ) ∘ (MQQᵀMᵀ)``, one value per row of M, where M is.

    Two passes over M: ``W = Mᵀ diag(a) M Q`` (q × k), then ``(𝒢a)_i = m_iᵀ W (MQ)_iᵀ``.
    """
    rows = _rows(M, a=a, Q=Q)
    Q = _local(rows, Q)
    W = rows.reduce(kernels.affinity_times_block, (_vector(rows, a),), Q=Q)
    return rows.rowmap(kernels.g_rows_block, W=W, Q=Q)


def hadamard_square_matvec(rows: ArrayRows | DaskRows) -> Any:
    """``v ↦ H v`` with ``H = (MMᵀ)^∘2`` (Wolf & Bileschi 2005, Sec. 3.1) on prepared rows:
    ``(H v)_i = m_iᵀ (Mᵀ diag(v) M) m_i``, one q × q reduction and one row map per product."""

    def matvec(v: Any) -> Any:
        W = small.symmetric(rows.reduce(kernels.weighted_gram_block, (v,)))
        return rows.rowmap(kernels.h_rows_block, W=W)

    return matvec
