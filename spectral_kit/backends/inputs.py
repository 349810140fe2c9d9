"""Checks and row preprocessing of a Dask or array-API M, producing the row executor."""

from __future__ import annotations

from typing import Any

import numpy as np

from . import array_kind, require_extra, type_name
from .dtypes import check_numeric
from .kernels import preprocess_block, unprepared_block
from .rows import ArrayRows, DaskRows

__all__ = ["check_prepared", "namespace_name", "prepare_rows"]


def namespace_name(M: Any) -> str:
    """What :attr:`QAlphaResult.array_type` reports: ``"dask"``, ``"torch"``, ``"cupy"``, ..."""
    if array_kind(M) == "dask":
        return "dask"
    return type(M).__module__.split(".")[0]


def _preprocess_chunk(
    Mb: Any, *, center: bool, normalize: bool, label: str, block_info: Any = None
) -> Any:
    offset = block_info[0]["array-location"][0][0] if block_info else 0
    return preprocess_block(Mb, center=center, normalize=normalize, offset=offset, name=label)


def check_rows_chunking(M: Any, name: str = "M") -> None:
    """A Dask M must be chunked by feature rows only: every chunk holds all samples."""
    if M.ndim != 2:
        raise ValueError(f"{name} must be a 2-D array; got a Dask array of shape {M.shape}.")
    if len(M.chunks[1]) != 1:
        raise ValueError(
            f"{name} is chunked along samples (columns): chunks {M.chunksize} give "
            f"{len(M.chunks[1])} column chunks. The kit works on blocks of whole feature rows; "
            f"rechunk with {name} = {name}.rechunk({{0: 'auto', 1: -1}}) (for a Zarr store, "
            "write it with chunks=(rows, n_samples))."
        )


def prepare_rows(
    M: Any, *, center: bool, normalize: bool, name: str = "M", min_samples: int = 2
) -> ArrayRows | DaskRows:
    """Validate M and return its (lazily, for Dask) preprocessed rows.

    Mirrors :func:`spectral_kit.preprocess.preprocess_rows`: centre each feature row and scale
    it to unit norm (Wolf & Shashua 2005, Sec. 2.1), in M's own namespace and on its device;
    never modifies M. For Dask, preprocessing is a per-chunk map run inside every pass, so
    no preprocessed copy of M is ever stored.
    """
    kind = array_kind(M)
    require_extra(kind)
    M = check_numeric(M, name)
    if kind == "dask":
        check_rows_chunking(M, name)
    elif len(M.shape) != 2:
        raise ValueError(f"{name} must be a 2-D array; got shape {tuple(M.shape)}.")
    n, q = (int(s) for s in M.shape)
    if n < 1 or q < min_samples:
        raise ValueError(
            f"{name} must have at least 1 feature (row) and {min_samples} samples (columns); "
            f"got shape {(n, q)}."
        )
    if kind == "dask":
        dtype = M.dtype if np.issubdtype(M.dtype, np.floating) else np.dtype(np.float64)
        Mp = M.map_blocks(
            _preprocess_chunk, center=center, normalize=normalize, label=name, dtype=dtype,
            meta=np.empty((0, 0), dtype=dtype),
        )
        return DaskRows(Mp)
    from array_api_compat import array_namespace

    try:
        array_namespace(M)
    except TypeError as exc:
        raise TypeError(
            f"{name} is a {type_name(M)}, which array-api-compat does not support; pass a "
            "NumPy array."
        ) from exc
    return ArrayRows(preprocess_block(M, center=center, normalize=normalize, name=name))


def check_prepared(rows: ArrayRows | DaskRows, name: str = "M", atol: float = 1e-6) -> None:
    """ValueError unless every row is centred with unit norm (one pass over M): what
    ``preprocess=False`` promises to the weighting algorithms (Wolf & Bileschi 2005, Algo. 1
    step 1; Algo. 2's input)."""
    n_bad = int(float(rows.reduce(unprepared_block, atol=atol)))
    if n_bad:
        raise ValueError(
            f"{name} was passed with preprocess=False but {n_bad} row(s) are not centred "
            "with unit norm. Pass preprocess=True."
        )
