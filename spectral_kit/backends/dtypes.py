"""The scale paths' input checks: the same named errors as NumPy for what NumPy refuses.

A NumPy argument goes through :func:`spectral_kit.validation.check_array`, which refuses
complex numbers and non-numbers. A Dask or array-API argument would otherwise reach the
kernels as it is, where ``astype(float64)`` silently drops an imaginary part and a Dask array
of unknown chunk sizes fails deep inside with "cannot convert float NaN to integer". This
check runs first on every scale path (the row paths of Q-α and Algorithms 1–2, the public
operators, and the bootstrap), from the dtype and the chunks alone: nothing is computed.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..validation import check_array
from . import array_kind

__all__ = ["check_numeric"]


def _numeric_block(block: Any, *, label: str) -> np.ndarray:
    # Each chunk of a Dask object array is read exactly as NumPy reads a whole object array:
    # numbers become float64, complex numbers and strings raise check_array's TypeError.
    return check_array(block, label, ndim=block.ndim)


def _is_complex(X: Any) -> bool:
    dtype = X.dtype
    if array_kind(X) == "dask" or isinstance(dtype, np.dtype):
        return np.dtype(dtype).kind == "c"
    return bool(getattr(dtype, "is_complex", False)) or "complex" in str(dtype)


def check_numeric(X: Any, name: str = "M") -> Any:
    """X itself, or (a Dask array of dtype object) X read chunk by chunk as float64.

    Raises
    ------
    TypeError
        On a complex dtype -- the message NumPy input gets from ``check_array``.
    ValueError
        On a Dask array whose chunk sizes are unknown (after boolean indexing, or read from
        a source that does not record them), naming ``compute_chunk_sizes()``.
    """
    if _is_complex(X):
        raise TypeError(
            f"{name} is complex; the kit works with real data. Pass {name}.real (or "
            f"np.abs({name})) if that is what you mean."
        )
    if array_kind(X) != "dask":
        return X
    if any(math.isnan(c) for dim in X.chunks for c in dim):
        raise ValueError(
            f"{name} is a Dask array with unknown chunk sizes (shape {X.shape}), as boolean "
            f"indexing or a filter leaves it; the kit needs them to place its blocks. Call "
            f"{name} = {name}.compute_chunk_sizes() first."
        )
    if X.dtype.kind in "OUS":  # objects, or numbers written as text: NumPy reads both
        return X.map_blocks(_numeric_block, label=name, dtype=np.float64,
                            meta=np.empty((0,) * X.ndim, dtype=np.float64))
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} must be a numeric array; got a Dask array of dtype {X.dtype}. Convert it "
            f"with {name}.astype(float) if its entries are numbers."
        )
    return X
