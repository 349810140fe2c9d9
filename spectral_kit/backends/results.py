"""Reading results whose α is a Dask or device array: rankings come back as NumPy indices."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import array_kind

__all__ = ["all_positive", "to_numpy", "top_indices"]


def to_numpy(x: Any) -> np.ndarray:
    """A host NumPy copy of a Dask, PyTorch, CuPy or other array-API array."""
    if array_kind(x) == "dask":
        return np.asarray(x.compute())
    if hasattr(x, "get") and type(x).__module__.split(".")[0] == "cupy":
        return x.get()
    if hasattr(x, "detach"):  # torch
        return x.detach().cpu().numpy()
    return np.asarray(x)


def top_indices(alpha: Any, n_select: int | None = None) -> np.ndarray:
    """Indices of the ``n_select`` largest entries of α (all when None), largest first.

    For Dask only the selected entries leave the workers (``argtopk``); for a device array the
    sort runs on the device and only the indices are copied back.
    """
    n = int(alpha.shape[0])
    n_select = n if n_select is None else max(0, min(int(n_select), n))
    if n_select == 0:
        return np.empty(0, dtype=np.intp)
    if array_kind(alpha) == "dask":
        import dask.array as da

        return np.asarray(da.argtopk(alpha, n_select).compute(), dtype=np.intp)
    from array_api_compat import array_namespace

    xp = array_namespace(alpha)
    order = xp.argsort(-alpha, stable=True)[:n_select]
    return to_numpy(order).astype(np.intp)


def all_positive(alpha: Any) -> bool:
    if array_kind(alpha) == "dask":
        return bool((alpha > 0).all().compute())
    from array_api_compat import array_namespace

    return bool(array_namespace(alpha).all(alpha > 0))
