"""The kit on arrays other than NumPy: Dask (out of core, distributed) and the array API.

A researcher with 10⁷–10⁸ features keeps M in a Zarr or HDF5 store and hands the kit a
``dask.array.Array`` chunked by feature rows; one with a GPU hands it a CuPy or PyTorch array.
The functions that accept such arrays -- :func:`~spectral_kit.q_alpha`,
:func:`~spectral_kit.weighting.parameter_free_weights`,
:func:`~spectral_kit.weighting.pca_weights` and
:func:`~spectral_kit.stability.bootstrap_intervals` -- detect them here and hand over to this
package; everything else raises a :class:`TypeError` saying how to get a NumPy array.

Why the heavy work maps onto row chunks (Wolf & Shashua 2005, Sec. 3): the α-step operator
``G = (MMᵀ)∘(PPᵀ)`` with ``P = MQ`` is ``Z Zᵀ`` for the n × qk matrix with rows
``z_i = m_i ⊗ p_i``, so its leading eigenvector is ``α = Z u / ‖Z u‖`` where u is the leading
eigenvector of the qk × qk matrix ``ZᵀZ = Σ_i (m_i m_iᵀ) ⊗ (p_i p_iᵀ)`` -- a sum over rows. The
Q-step needs only ``A_α = Mᵀ diag(α) M``, another sum over rows. Both are map–reduce passes over
row chunks whose results are q-sized; only those are solved locally.

This module imports neither Dask nor any array library: it looks at the type of the argument
only, so ``import spectral_kit`` stays as light as before. The optional extra
``pip install "spectral-kit[scale]"`` brings Dask, distributed, Zarr, array-api-compat and
array-api-strict.
"""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = [
    "ACCEPTING",
    "array_kind",
    "check_same_kind",
    "reject_foreign",
    "require_extra",
]

#: The public functions that accept Dask or array-API arrays (the rest need NumPy).
ACCEPTING = (
    "q_alpha (Dask, array API)",
    "parameter_free_weights (Dask, array API)",
    "pca_weights (Dask, array API)",
    "bootstrap_intervals (Dask, array API)",
)

#: Top-level modules whose arrays follow the array API (through array-api-compat).
_ARRAY_API_MODULES = ("torch", "cupy", "jax", "jaxlib", "array_api_strict", "sparse", "ndonnx")


def array_kind(value: Any) -> str | None:
    """``"dask"``, ``"array-api"`` or ``None`` (NumPy or anything NumPy converts).

    Decided from the type alone, without importing Dask or the array library.
    """
    if isinstance(value, np.ndarray) or value is None:
        return None
    module = type(value).__module__.split(".")[0]
    if module == "dask":
        return "dask" if hasattr(value, "chunks") and hasattr(value, "dask") else None
    if module in _ARRAY_API_MODULES:
        return "array-api"
    if module != "numpy" and hasattr(value, "__array_namespace__"):
        return "array-api"
    return None


def type_name(value: Any) -> str:
    """``"torch.Tensor"``, ``"dask.array.Array"``, ``"numpy.ndarray"``, ..."""
    cls = type(value)
    module = cls.__module__
    if module.startswith("dask.array"):
        module = "dask.array"
    return f"{module}.{cls.__qualname__}"


def require_extra(kind: str) -> None:
    """Raise an ImportError naming the extra when Dask or array-api-compat is missing."""
    import importlib.util

    needed = ["dask", "array_api_compat"] if kind == "dask" else ["array_api_compat"]
    missing = [m for m in needed if importlib.util.find_spec(m) is None]
    if missing:
        raise ImportError(
            f"{kind} arrays need the optional packages {', '.join(missing)}: install them with "
            'pip install "spectral-kit[scale]".'
        )


def reject_foreign(value: Any, name: str, function: str = "this function") -> None:
    """TypeError for a Dask or array-API argument where only NumPy is supported.

    Called by :func:`spectral_kit.validation.check_array`: converting silently would pull a
    whole Dask array into memory, or fail obscurely (or copy) for a GPU array.
    """
    kind = array_kind(value)
    if kind is None:
        return
    if kind == "dask":
        fix = f"{name}.compute() if it fits in memory"
    elif type(value).__module__.split(".")[0] == "torch":
        fix = f"{name}.cpu().numpy()"
    elif type(value).__module__.split(".")[0] == "cupy":
        fix = f"{name}.get()"
    else:
        fix = f"numpy.asarray({name})"
    raise TypeError(
        f"{name} is a {type_name(value)}, and {function} has no path for it; pass a NumPy "
        f"array ({fix}). The functions that accept such arrays are: "
        + "; ".join(ACCEPTING) + "."
    )


def check_same_kind(reference: tuple[str, Any], **others: Any) -> None:
    """TypeError when arrays of one call mix array types (e.g. a Dask M with a NumPy Q).

    ``reference`` is ``(name, array)``; every other non-None array must be of the same type
    (and, for the array API, the same namespace).
    """
    ref_name, ref = reference
    ref_type = type_name(ref)
    for name, value in others.items():
        if value is None:
            continue
        if type_name(value) != ref_type:
            if array_kind(ref) == "dask":
                fix = f"dask.array.from_array({name})"
            elif array_kind(ref) == "array-api":
                fix = f"the namespace of {ref_name} (for example xp.asarray({name}, device=...))"
            else:
                fix = f"NumPy (numpy.asarray({name}))"
            raise TypeError(
                f"{name} is a {type_name(value)} but {ref_name} is a {ref_type}: arrays of one "
                f"call must be of one type. Convert {name} to {fix}, or convert both to NumPy."
            )
