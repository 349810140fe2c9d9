"""Input validation shared by every algorithm of the kit.

Every check raises a :class:`ValueError` (wrong value) or :class:`TypeError` (wrong kind of
object) whose message names the argument, shows the value received and says what is allowed,
so that a student reading the traceback knows what to change.  Checks never modify the
caller's array: arrays are converted with :func:`numpy.asarray` and copied only when the
caller asks for a copy or a conversion is unavoidable.
"""

from __future__ import annotations

import numbers
from collections.abc import Iterable, Sequence, Sized
from typing import Any

import numpy as np

from .backends import reject_foreign

__all__ = [
    "as_generator",
    "check_array",
    "check_choice",
    "check_finite_scalar",
    "check_indices",
    "check_int",
    "check_labels",
    "check_nonconstant_rows",
    "check_probability",
    "check_same_length",
    "check_square",
    "check_symmetric",
]


def _describe(value: Any) -> str:
    if isinstance(value, np.ndarray):
        return f"an array of shape {value.shape} and dtype {value.dtype}"
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def check_array(
    value: Any,
    name: str,
    *,
    ndim: int = 2,
    min_rows: int = 1,
    min_cols: int = 1,
    rows_label: str = "rows",
    cols_label: str = "columns",
    copy: bool = False,
) -> np.ndarray:
    """Return ``value`` as a finite float64 array of the requested dimension.

    Parameters
    ----------
    value
        Array-like input.
    name
        Argument name used in error messages (``"M"``, ``"X"``, ...).
    ndim
        Required number of dimensions (1 or 2).
    min_rows, min_cols
        Smallest allowed extent of axis 0 and axis 1.
    rows_label, cols_label
        What the axes mean, for the message (e.g. ``"features"``, ``"samples"``).
    copy
        Always return a new array, so that the caller may modify it.

    Raises
    ------
    TypeError
        If ``value`` is not numeric.
    ValueError
        On a wrong number of dimensions, too few rows/columns, NaN or inf.
    """
    if value is None:
        raise TypeError(f"{name} must be a numeric array; got None.")
    # A Dask or GPU array reaching a NumPy-only function: say so instead of converting.
    reject_foreign(value, name)
    if hasattr(value, "toarray") and not isinstance(value, np.ndarray):
        raise TypeError(
            f"{name} is a sparse matrix; pass a dense array (for example {name}.toarray())."
        )
    try:
        arr = np.array(value, dtype=np.float64, copy=True) if copy else np.asarray(
            value, dtype=np.float64
        )
    except (TypeError, ValueError) as exc:
        raise TypeError(
            f"{name} must be a numeric array; got {_describe(value)} ({exc})."
        ) from None
    if arr.ndim != ndim:
        shape_word = "a 2-D array" if ndim == 2 else f"a {ndim}-D array"
        raise ValueError(
            f"{name} must be {shape_word}; got an array with {arr.ndim} dimension(s) "
            f"and shape {arr.shape}."
            + (" Reshape it, e.g. with np.atleast_2d or x.reshape(-1, 1)." if ndim == 2 else "")
        )
    if arr.shape[0] < min_rows:
        raise ValueError(
            f"{name} must have at least {min_rows} {rows_label}; got shape {arr.shape}."
        )
    if ndim == 2 and arr.shape[1] < min_cols:
        raise ValueError(
            f"{name} must have at least {min_cols} {cols_label}; got shape {arr.shape}."
        )
    if not np.isfinite(arr).all():
        bad = int(np.size(arr) - np.count_nonzero(np.isfinite(arr)))
        raise ValueError(
            f"{name} contains {bad} NaN or infinite value(s); remove or impute them first "
            "(for example with sklearn.impute.SimpleImputer)."
        )
    return arr


def check_nonconstant_rows(
    M: np.ndarray, name: str = "M", *, what: str = "feature", centered: bool = True
) -> None:
    """Raise if a row of ``M`` is constant (zero norm after centring) or all zero.

    Rows are features in the papers' convention; a constant feature cannot be normalised to
    unit norm (Wolf & Shashua 2005, Sec. 2.1), so it must be removed by the caller.
    """
    scale = np.abs(M).max(axis=1) if M.size else np.zeros(M.shape[0])
    spread = np.ptp(M, axis=1) if centered else scale
    # A row is degenerate when its spread is negligible next to its own magnitude.
    bad = np.flatnonzero(spread <= 1e-12 * np.maximum(scale, 1e-300))
    if bad.size:
        listed = ", ".join(str(i) for i in bad[:10]) + (" ..." if bad.size > 10 else "")
        kind = "constant" if centered else "all-zero"
        raise ValueError(
            f"{name} has {bad.size} {kind} {what}(s) (index {listed}); a {kind} {what} has "
            f"zero norm{' after centring' if centered else ''} and cannot be normalised. "
            f"Drop it first (for example with sklearn.feature_selection.VarianceThreshold)."
        )


def check_int(
    value: Any,
    name: str,
    *,
    low: int | None = None,
    high: int | None = None,
    hint: str = "",
) -> int:
    """Return ``value`` as an ``int`` in ``[low, high]`` (either bound optional)."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {_describe(value)}.")
    value = int(value)
    if (low is not None and value < low) or (high is not None and value > high):
        lo = "-inf" if low is None else str(low)
        hi = "inf" if high is None else str(high)
        raise ValueError(
            f"{name} must be an integer in [{lo}, {hi}]; got {name}={value}."
            + (f" {hint}" if hint else "")
        )
    return value


def check_finite_scalar(
    value: Any,
    name: str,
    *,
    low: float | None = None,
    high: float | None = None,
    low_inclusive: bool = True,
    high_inclusive: bool = True,
    hint: str = "",
) -> float:
    """Return ``value`` as a finite ``float`` inside the given (half-)open interval."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Real):
        raise TypeError(f"{name} must be a real number; got {_describe(value)}.")
    value = float(value)
    if not np.isfinite(value):
        raise ValueError(f"{name} must be finite; got {name}={value}.")
    too_low = low is not None and (value < low if low_inclusive else value <= low)
    too_high = high is not None and (value > high if high_inclusive else value >= high)
    if too_low or too_high:
        left = "[" if low_inclusive else "("
        right = "]" if high_inclusive else ")"
        lo = "-inf" if low is None else f"{low:g}"
        hi = "inf" if high is None else f"{high:g}"
        raise ValueError(
            f"{name} must lie in {left}{lo}, {hi}{right}; got {name}={value:g}."
            + (f" {hint}" if hint else "")
        )
    return value


def check_probability(value: Any, name: str) -> float:
    """Return a level strictly inside (0, 1), such as a confidence level."""
    return check_finite_scalar(
        value, name, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False
    )


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (strings)."""
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}; got {_describe(value)}.")
    return value


def check_labels(y: Any, n_samples: int, name: str = "y", *, min_classes: int = 2) -> np.ndarray:
    """Return ``y`` as a 1-D array of length ``n_samples`` with at least ``min_classes``."""
    if y is None:
        raise TypeError(f"{name} must be an array of class labels; got None.")
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(
            f"{name} must be a 1-D array of labels; got an array of shape {arr.shape}."
        )
    if arr.shape[0] != n_samples:
        raise ValueError(
            f"{name} has {arr.shape[0]} labels but the data have {n_samples} samples; "
            "give exactly one label per sample."
        )
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite labels.")
    n_classes = np.unique(arr).size
    if n_classes < min_classes:
        raise ValueError(
            f"{name} must contain at least {min_classes} classes; got {n_classes}."
        )
    return arr


def check_same_length(name_a: str, a: Sized, name_b: str, b: Sized) -> None:
    """Raise if two sequences that should be aligned have different lengths."""
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} has length {len(a)} but {name_b} has length {len(b)}; they must match."
        )


def check_square(A: np.ndarray, name: str) -> None:
    """Raise unless ``A`` is a square 2-D array."""
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {A.shape}.")


def check_symmetric(A: np.ndarray, name: str, *, rtol: float = 1e-8) -> None:
    """Raise unless ``A`` is square and symmetric up to ``rtol`` relative to its norm."""
    check_square(A, name)
    scale = max(float(np.abs(A).max(initial=0.0)), 1e-300)
    asym = float(np.abs(A - A.T).max(initial=0.0))
    if asym > rtol * scale:
        raise ValueError(
            f"{name} must be symmetric; max |{name} - {name}.T| = {asym:.3g} "
            f"(relative {asym / scale:.3g} > {rtol:g}). Use ({name} + {name}.T) / 2 if the "
            "asymmetry is rounding error."
        )


def as_generator(random_state: Any, name: str = "random_state") -> np.random.Generator:
    """Turn ``None``, an int, a ``Generator`` or a ``RandomState`` into a ``Generator``.

    A ``Generator`` is returned as is (so that successive calls advance it); a
    ``RandomState`` seeds a new generator from its stream.
    """
    if random_state is None or isinstance(random_state, (numbers.Integral, np.integer)):
        if isinstance(random_state, (bool, np.bool_)):
            raise TypeError(f"{name} must be None, an int or a numpy Generator; got a bool.")
        if random_state is not None and int(random_state) < 0:
            raise ValueError(f"{name} must be a non-negative int; got {random_state}.")
        return np.random.default_rng(random_state)
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(0, 2**31 - 1))
    raise TypeError(
        f"{name} must be None, an int or a numpy Generator; got {_describe(random_state)}."
    )


def check_indices(values: Iterable[Any], name: str, *, size: int) -> np.ndarray:
    """Return a sorted 1-D array of distinct integer indices into an axis of length ``size``."""
    arr = np.asarray(list(values) if not isinstance(values, np.ndarray) else values)
    if arr.size and arr.dtype.kind not in "iu":
        raise TypeError(f"{name} must contain integer indices; got dtype {arr.dtype}.")
    arr = arr.astype(np.intp, copy=False).ravel()
    if arr.size and (arr.min() < 0 or arr.max() >= size):
        raise ValueError(
            f"{name} must contain indices in [0, {size - 1}]; got values from {arr.min()} "
            f"to {arr.max()}."
        )
    uniq = np.unique(arr)
    if uniq.size != arr.size:
        raise ValueError(f"{name} contains repeated indices; each index may appear once.")
    return uniq
