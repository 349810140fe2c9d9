"""Sums over samples: where the data of a statistic that adds up sample by sample live.

Every quantity of the bootstrap intervals (Mavroeidis & Vazirgiannis, Sec. 4.1) -- column
sums, resampled sums ``W Z``, the jackknife's power sums -- is a sum over the samples (rows) of
X. The algorithm writes each as a *kernel* on a block of whole samples and asks this layer to
add the kernel over X's blocks:

* :class:`InMemorySamples` -- X in memory: a NumPy array, a SciPy sparse matrix or an
  array-API array (PyTorch, CuPy, ...) on its device. One block, one call, results stay in
  X's namespace and on its device.
* :class:`DaskSamples` -- a Dask X chunked along samples: the kernel runs on every chunk and
  the partial results are combined by a tree of additions (or maxima, minima) on Dask's
  scheduler, the threaded one or the ``distributed.Client`` the user has opened. Only the
  combined, feature-sized results come back, as NumPy.

Arrays that run along the samples beside X (the bootstrap count matrix W, B × n) are
registered once with :meth:`align` and then split like X's blocks. This module knows nothing
about the statistics it sums and imports nothing from the algorithms above it.
"""

from __future__ import annotations

from functools import reduce as _fold
from typing import Any

import numpy as np

from . import array_kind, require_extra, type_name

__all__ = [
    "DaskSamples",
    "InMemorySamples",
    "is_sparse",
    "namespace_of",
    "sample_blocks",
    "to_host",
]

#: How partial results combine: ``"sum"`` (the default), ``"max"`` or ``"min"``.
_COMBINE = {"sum": lambda a, b: a + b, "max": np.maximum, "min": np.minimum}


def is_sparse(X: Any) -> bool:
    """A SciPy sparse matrix or array (decided without importing ``scipy.sparse``)."""
    return type(X).__module__.startswith("scipy.sparse") and hasattr(X, "tocsc")


def namespace_of(X: Any) -> Any:
    """The array namespace of X: NumPy for NumPy, SciPy sparse and Dask (whose chunks are
    NumPy); ``array_api_compat.array_namespace(X)`` otherwise, so that the optional package
    is imported only for arrays that need it."""
    if isinstance(X, np.ndarray) or is_sparse(X) or array_kind(X) in (None, "dask"):
        return np
    require_extra("array-api")
    from array_api_compat import array_namespace

    return array_namespace(X)


def to_host(x: Any) -> Any:
    """A NumPy copy of a small result (NumPy arrays, Python scalars and tuples pass through)."""
    if isinstance(x, tuple):
        return tuple(to_host(v) for v in x)
    if x is None or isinstance(x, (np.ndarray, float, int, np.generic)):
        return x
    from .results import to_numpy

    return to_numpy(x)


def _combine(a: Any, b: Any, how: Any) -> Any:
    """``a ⊕ b`` elementwise; ``how`` names the operation of each element of a tuple result
    (nested tuples inherit their element's operation; ``None`` means a sum)."""
    if isinstance(a, tuple):
        ops = how if isinstance(how, tuple) else (how,) * len(a)
        return tuple(_combine(x, y, op) for x, y, op in zip(a, b, ops))
    return _COMBINE[how or "sum"](a, b)


def _fold_parts(how: Any, *parts: Any) -> Any:
    return _fold(lambda a, b: _combine(a, b, how), parts)


class InMemorySamples:
    """All samples of X in one block: NumPy, SciPy sparse or an array-API array."""

    kind = "in-memory"

    def __init__(self, X: Any):
        self.X = X
        self.xp = namespace_of(X)
        self.shape = (int(X.shape[0]), int(X.shape[1]))
        self.blocks = 1

    def align(self, A: np.ndarray) -> Any:
        """A (…, n) array beside X, moved to X's namespace and device."""
        if self.xp is np:
            return A
        from array_api_compat import device

        return self.xp.asarray(A, device=device(self.X))

    def reduce(self, kernel: Any, *aligned: Any, how: tuple[str, ...] | None = None,
               **small: Any) -> Any:
        return kernel(self.X, *aligned, **small)


def _call(kernel: Any, Xb: Any, *args: Any, **small: Any) -> Any:
    return kernel(Xb, *args, **small)


class DaskSamples:
    """A Dask X chunked along samples only (every chunk holds whole samples)."""

    kind = "dask"
    xp = np

    def __init__(self, X: Any, name: str = "X"):
        require_extra("dask")
        problem = (f"must be a 2-D array; got a Dask array of shape {X.shape}" if X.ndim != 2
                   else f"is chunked along features (columns): chunks {X.chunksize} give "
                        f"{len(X.chunks[1])} column chunks" if len(X.chunks[1]) != 1 else "")
        if problem:
            raise ValueError(
                f"{name} {problem}. Every chunk must hold whole samples; rechunk with "
                f"{name} = {name}.rechunk({{0: 'auto', 1: -1}})."
            )
        self.X = X
        self.shape = tuple(int(v) for v in X.shape)
        self.blocks = len(X.chunks[0])
        self._blocks = X.to_delayed().ravel()
        self._bounds = np.cumsum((0, *X.chunks[0]))

    def align(self, A: np.ndarray) -> list:
        """The blocks of a (…, n) NumPy array that go with X's chunks of samples."""
        from dask import delayed

        return [delayed(A[..., a:b]) for a, b in zip(self._bounds[:-1], self._bounds[1:])]

    def reduce(self, kernel: Any, *aligned: Any, how: tuple[str, ...] | None = None,
               **small: Any) -> Any:
        import dask
        from dask import delayed

        parts = [
            delayed(_call, pure=False)(kernel, b, *(a[i] for a in aligned), **small)
            for i, b in enumerate(self._blocks)
        ]
        # A tree of combinations: no task ever holds more than a handful of partial results.
        while len(parts) > 1:
            parts = [delayed(_fold_parts, pure=False)(how, *parts[i : i + 8])
                     for i in range(0, len(parts), 8)]
        (total,) = dask.compute(parts[0])
        return total


def sample_blocks(X: Any, name: str = "X") -> InMemorySamples | DaskSamples:
    """The executor for X (samples × features): Dask, or in memory (anything else)."""
    if array_kind(X) == "dask":
        return DaskSamples(X, name)
    if array_kind(X) is None and not isinstance(X, np.ndarray) and not is_sparse(X):
        raise TypeError(f"{name} is a {type_name(X)}; convert it to an array first.")
    return InMemorySamples(X)
