"""Where the rows of M live: one in-memory array (any array-API namespace and device) or the
chunks of a Dask array.

Both executors offer the same few operations, which is all the algorithms of this package use:

* :meth:`reduce` -- apply a kernel to every block of rows and add the q-sized results; for
  Dask this is a map–reduce computed by Dask's scheduler (the threaded one, or the
  ``distributed.Client`` the user has opened), and only the sum comes back;
* :meth:`rowmap` -- one value per feature row (an n-vector such as α), kept where M is:
  an array on M's device, or a Dask array persisted on the workers;
* dot products of n-vectors, returned as Python floats.

q-sized results live in :attr:`small` (NumPy for Dask, M's namespace and device otherwise).
"""

from __future__ import annotations

from functools import reduce as _fold
from typing import Any

import numpy as np

from . import kernels

__all__ = ["ArrayRows", "DaskRows"]


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(x + y for x, y in zip(a, b))
    return a + b


def _call(kernel: Any, Mb: Any, *vectors: Any, **small: Any) -> Any:
    return kernel(Mb, *vectors, **small)


def _block_dots(index: list[tuple[int, int]], *blocks: Any) -> np.ndarray:
    vs = [np.asarray(b, dtype=np.float64) for b in blocks]
    return np.array([vs[a] @ vs[b] for a, b in index])


def _sum_parts(*parts: Any) -> Any:
    return _fold(_add, parts)


class ArrayRows:
    """Rows of an in-memory array of any array-API namespace (PyTorch, CuPy, ...)."""

    kind = "array-api"

    def __init__(self, M: Any):
        self.M = M
        self.xp = kernels.namespace(M)
        self.small = self.xp
        self.device = kernels._device(M)
        self.shape = tuple(M.shape)
        self.dtype = M.dtype

    def reduce(self, kernel: Any, vectors: tuple = (), **small: Any) -> Any:
        return kernel(self.M, *vectors, **small)

    def rowmap(self, kernel: Any, vectors: tuple = (), **small: Any) -> Any:
        return kernel(self.M, *vectors, **small)

    def keep(self, v: Any) -> Any:
        return v

    def dots(self, pairs: list[tuple[Any, Any]]) -> list[float]:
        xp = self.xp
        return [float(xp.sum(xp.astype(a, xp.float64) * xp.astype(b, xp.float64)))
                for a, b in pairs]

    def full(self, value: float) -> Any:
        return self.xp.full((self.shape[0],), value, dtype=self.dtype, device=self.device)

    def abs_argmax(self, v: Any) -> tuple[int, float]:
        i = int(self.xp.argmax(self.xp.abs(v)))
        return i, float(v[i])

    def as_small(self, a: np.ndarray) -> Any:
        return self.xp.asarray(a, dtype=self.xp.float64, device=self.device)


class DaskRows:
    """Rows of a Dask array chunked by feature rows only (one chunk spans every sample)."""

    kind = "dask"

    def __init__(self, M: Any):
        import array_api_compat.numpy as npx

        self.M = M
        self.small = npx
        self.device = "cpu"
        self.shape = tuple(M.shape)
        self.dtype = M.dtype
        self._blocks = M.to_delayed().ravel()

    def _vector_blocks(self, v: Any) -> Any:
        return v.to_delayed().ravel()

    def reduce(self, kernel: Any, vectors: tuple = (), **small: Any) -> Any:
        import dask
        from dask import delayed

        columns = [self._vector_blocks(v) for v in vectors]
        parts = [
            delayed(_call, pure=True)(kernel, b, *(c[i] for c in columns), **small)
            for i, b in enumerate(self._blocks)
        ]
        # A tree of additions: no task ever holds more than a handful of partial sums.
        while len(parts) > 1:
            parts = [delayed(_sum_parts, pure=True)(*parts[i : i + 8])
                     for i in range(0, len(parts), 8)]
        (total,) = dask.compute(parts[0])
        return total

    def rowmap(self, kernel: Any, vectors: tuple = (), **small: Any) -> Any:
        import dask.array as da

        args = [self.M, "ij"]
        for v in vectors:
            args += [v, "i"]
        out = da.blockwise(
            _call, "i", kernel, None, *args, concatenate=True, dtype=self.dtype,
            meta=np.empty((0,), dtype=self.dtype), **small,
        )
        return out.persist()

    def keep(self, v: Any) -> Any:
        return v.persist()

    def dots(self, pairs: list[tuple[Any, Any]]) -> list[float]:
        import dask
        from dask import delayed

        # One task per chunk computes every product of the call: the 18 inner products of
        # a LOBPCG step cost one pass and one small graph, not 18 Dask reductions.
        vectors: list[Any] = []
        slots: dict[int, int] = {}
        for v in (v for pair in pairs for v in pair):
            slots.setdefault(id(v), len(vectors))
            if len(vectors) < len(slots):
                vectors.append(v)
        index = [(slots[id(a)], slots[id(b)]) for a, b in pairs]
        columns = [self._vector_blocks(v) for v in vectors]
        parts = [delayed(_block_dots, pure=True)(index, *(c[i] for c in columns))
                 for i in range(len(self._blocks))]
        while len(parts) > 1:
            parts = [delayed(_sum_parts, pure=True)(*parts[i : i + 8])
                     for i in range(0, len(parts), 8)]
        (total,) = dask.compute(parts[0])
        return [float(t) for t in total]

    def full(self, value: float) -> Any:
        import dask.array as da

        return da.full(self.shape[0], value, dtype=self.dtype, chunks=(self.M.chunks[0],))

    def abs_argmax(self, v: Any) -> tuple[int, float]:
        import dask
        import dask.array as da

        i = int(dask.compute(da.argmax(abs(v)))[0])
        return i, float(v[i].compute())

    def as_small(self, a: np.ndarray) -> np.ndarray:
        return np.asarray(a, dtype=np.float64)
