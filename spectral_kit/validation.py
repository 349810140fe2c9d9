"""Input validation shared by every algorithm of the kit.

Every check raises a :class:`ValueError` (wrong value) or :class:`TypeError` (wrong kind of
object) whose message names the argument, shows the value received and says what is allowed,
so that a student reading the traceback knows what to change.  Checks never modify the
caller's array: arrays are converted with :func:`numpy.asarray` and copied only when the
caller asks for a copy or a conversion is unavoidable.
"""

from __future__ import annotations

import numbers
import re
import warnings
from collections.abc import Iterable, Sequence, Sized
from typing import Any

import numpy as np

from .backends import reject_foreign
from .memory import MEMORY_LIMIT, check_memory

__all__ = [
    "MEMORY_LIMIT",
    "as_generator",
    "check_array",
    "check_choice",
    "check_data_size",
    "check_finite_scalar",
    "check_indices",
    "check_int",
    "check_labels",
    "check_mask",
    "check_memory",
    "check_nonconstant_rows",
    "check_probability",
    "check_same_length",
    "check_square",
    "check_symmetric",
    "max_abs",
    "reject_missing",
    "scale_exponent",
    "unique_labels",
    "unscale",
    "validate_data_named",
]

_ComplexWarning = getattr(np, "exceptions", np).ComplexWarning  # numpy < 1.25: np.ComplexWarning


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

    Every paper-level function of the kit passes its data through this check first: the
    algorithms (Wolf & Shashua 2005, Sec. 2; Moghaddam et al. 2006, Sec. 2) are defined for
    real, finite matrices, so anything else is refused here with a message naming the argument.

    Parameters
    ----------
    value : array-like
        Array-like input.
    name : str
        Argument name used in error messages (``"M"``, ``"X"``, ...).
    ndim : int, default 2
        Required number of dimensions (1 or 2).
    min_rows, min_cols : int, default 1
        Smallest allowed extent of axis 0 and axis 1.
    rows_label, cols_label : str
        What the axes mean, for the message (e.g. ``"features"``, ``"samples"``).
    copy : bool, default False
        Always return a new array, so that the caller may modify it.

    Returns
    -------
    numpy.ndarray
        A float64 array of ``ndim`` dimensions with only finite entries; ``value`` itself when
        it already is one and ``copy`` is False.

    Raises
    ------
    TypeError
        If ``value`` is not numeric (None, a string, complex numbers, a sparse matrix).
    ValueError
        On a wrong number of dimensions, too few rows/columns, NaN or inf.

    Examples
    --------
    >>> from spectral_kit.validation import check_array
    >>> check_array([[1, 2], [3, 4]], "M")
    array([[1., 2.],
           [3., 4.]])
    >>> check_array([1.0, float("nan")], "M", ndim=1)
    Traceback (most recent call last):
    ...
    ValueError: M contains 1 NaN or infinite value(s); ...
    """
    if value is None:
        raise TypeError(f"{name} must be a numeric array; got None.")
    # A Dask or GPU array reaching a NumPy-only function: say so instead of converting.
    reject_foreign(value, name)
    reject_missing(value, name)
    if hasattr(value, "toarray") and not isinstance(value, np.ndarray):
        raise TypeError(
            f"{name} is a sparse matrix; pass a dense array (for example {name}.toarray())."
        )
    if np.iscomplexobj(value) or (
        isinstance(value, np.ndarray) and value.dtype.kind == "O"
        and any(isinstance(v, complex) for v in value.flat)
    ):
        raise TypeError(
            f"{name} is complex; the kit works with real data. Pass {name}.real (or "
            f"np.abs({name})) if that is what you mean."
        )
    if isinstance(value, (str, bytes)):
        raise TypeError(f"{name} must be a numeric array; got a string {_describe(value)}.")
    try:
        with warnings.catch_warnings():
            # a complex number inside a list or object array: refuse rather than drop .imag
            warnings.simplefilter("error", _ComplexWarning)
            arr = np.array(value, dtype=np.float64, copy=True) if copy else np.asarray(
                value, dtype=np.float64
            )
    except _ComplexWarning:
        raise TypeError(
            f"{name} holds complex numbers; the kit works with real data. Pass the real part "
            "if that is what you mean."
        ) from None
    except (TypeError, ValueError, OverflowError) as exc:
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


def _count_missing_objects(arr: np.ndarray) -> int:
    # pandas.NA and NumPy's masked constant inside an object array: NumPy would turn the
    # first into an error about "NAType" and the second into 0.0, silently.
    return sum(1 for v in arr.flat
               if type(v).__name__ == "NAType" or v is np.ma.masked)


def reject_missing(value: Any, name: str) -> None:
    """Refuse masked arrays and pandas' missing values, naming ``name``.

    NumPy reads a masked array as its data, so the entries a mask hides would be used as if
    they were observed -- a masked 10⁶ included; pandas' ``NA`` reaches NumPy as an object
    or a conversion error that names neither the argument nor the cause. None of the kit's
    methods defines what a missing entry means, so they are refused, with the ways out.

    Parameters
    ----------
    value : object
        What the caller passed (an array, a masked array, a pandas object, ...).
    name : str
        The argument's name, used in the message (``"X"``, ``"M"``, ``"y"``).

    Raises
    ------
    ValueError
        If ``value`` is a ``numpy.ma.MaskedArray`` with masked entries, a pandas object with
        missing values (``NA`` or NaN), or an object array holding ``pandas.NA`` or
        ``numpy.ma.masked``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import reject_missing
    >>> reject_missing(np.ones((2, 2)), "X")  # nothing missing: nothing happens
    >>> reject_missing(np.ma.masked_array(np.ones((2, 2)), mask=[[1, 0], [0, 0]]), "X")
    Traceback (most recent call last):
    ...
    ValueError: X is a masked array with 1 masked entry; ...
    """
    if isinstance(value, np.ma.MaskedArray):
        n_masked = int(np.ma.count_masked(value))
        if n_masked:
            raise ValueError(
                f"{name} is a masked array with {n_masked} masked entr"
                f"{'y' if n_masked == 1 else 'ies'}; the kit does not read masks and would use "
                f"the hidden values. Remove the masked samples or features, fill them "
                f"({name}.filled(value), e.g. after imputation), or pass {name}.data if the "
                "mask means nothing."
            )
        return
    module = type(value).__module__.split(".")[0]
    if module == "pandas" and hasattr(value, "isna"):
        n_missing = int(np.asarray(value.isna()).sum())
        if n_missing:
            raise ValueError(
                f"{name} has {n_missing} missing value(s) (pandas NA or NaN); the kit does not "
                f"impute. Drop them ({name}.dropna()) or impute them first (for example with "
                "sklearn.impute.SimpleImputer)."
            )
        return
    if isinstance(value, np.ndarray) and value.dtype.kind == "O":
        n_missing = _count_missing_objects(value)
        if n_missing:
            raise ValueError(
                f"{name} holds {n_missing} missing value(s) (pandas.NA or numpy.ma.masked); "
                "the kit does not impute. Remove or impute them first (for example with "
                "sklearn.impute.SimpleImputer)."
            )


def check_nonconstant_rows(
    M: np.ndarray, name: str = "M", *, what: str = "feature", centered: bool = True
) -> None:
    """Raise if a row of ``M`` is constant (zero norm after centring) or all zero.

    Rows are features in the papers' convention; a constant feature cannot be normalised to
    unit norm (Wolf & Shashua 2005, Sec. 2.1), so it must be removed by the caller.

    Parameters
    ----------
    M : numpy.ndarray
        Matrix whose rows are checked (features as rows).
    name : str, default "M"
        Argument name used in the message.
    what : str, default "feature"
        What a row is, for the message.
    centered : bool, default True
        If True a row is refused when it is constant (it vanishes after centring); if False
        only when it is all zero.

    Raises
    ------
    ValueError
        If some row is constant (or all zero when ``centered`` is False); the message lists
        the first ten offending indices.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import check_nonconstant_rows
    >>> check_nonconstant_rows(np.array([[1.0, 2.0], [3.0, 5.0]]))  # fine: returns None
    >>> check_nonconstant_rows(np.array([[1.0, 2.0], [3.0, 3.0]]))
    Traceback (most recent call last):
    ...
    ValueError: M has 1 constant feature(s) (index 1); ...
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
    """Return ``value`` as an ``int`` in ``[low, high]`` (either bound optional).

    Parameters
    ----------
    value : int
        The value to check; booleans and floats are refused.
    name : str
        Argument name used in error messages.
    low, high : int, optional
        Inclusive bounds; None leaves that side open.
    hint : str, optional
        A sentence appended to the message of a ValueError (what to do instead).

    Returns
    -------
    int
        ``value`` as a Python ``int``.

    Raises
    ------
    TypeError
        If ``value`` is not an integer (a bool, a float, a string).
    ValueError
        If ``value`` lies outside ``[low, high]``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import check_int
    >>> check_int(np.int64(3), "k", low=1)
    3
    >>> check_int(0, "k", low=1)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer in [1, inf]; got k=0.
    """
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
    """Return ``value`` as a finite ``float`` inside the given (half-)open interval.

    Parameters
    ----------
    value : float
        The value to check; booleans and non-numbers are refused.
    name : str
        Argument name used in error messages.
    low, high : float, optional
        Bounds of the interval; None leaves that side open.
    low_inclusive, high_inclusive : bool, default True
        Whether each bound belongs to the interval.
    hint : str, optional
        A sentence appended to the message of a ValueError.

    Returns
    -------
    float
        ``value`` as a Python ``float``.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is NaN, infinite or outside the interval.

    Examples
    --------
    >>> from spectral_kit.validation import check_finite_scalar
    >>> check_finite_scalar(0.5, "mu", low=0.0)
    0.5
    >>> check_finite_scalar(0.0, "sigma", low=0.0, low_inclusive=False)
    Traceback (most recent call last):
    ...
    ValueError: sigma must lie in (0, inf]; got sigma=0.
    """
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
    """Return a level strictly inside (0, 1), such as a confidence level.

    Parameters
    ----------
    value : float
        The level to check.
    name : str
        Argument name used in error messages.

    Returns
    -------
    float
        ``value`` as a Python ``float``.

    Raises
    ------
    TypeError
        If ``value`` is not a real number.
    ValueError
        If ``value`` is not strictly between 0 and 1.

    Examples
    --------
    >>> from spectral_kit.validation import check_probability
    >>> check_probability(0.95, "confidence")
    0.95
    >>> check_probability(1.0, "confidence")
    Traceback (most recent call last):
    ...
    ValueError: confidence must lie in (0, 1); got confidence=1.
    """
    return check_finite_scalar(
        value, name, low=0.0, high=1.0, low_inclusive=False, high_inclusive=False
    )


def check_choice(value: Any, name: str, choices: Sequence[str]) -> str:
    """Return ``value`` if it is one of ``choices`` (strings).

    Parameters
    ----------
    value : str
        The option given by the caller.
    name : str
        Argument name used in error messages.
    choices : sequence of str
        The allowed options.

    Returns
    -------
    str
        ``value`` unchanged.

    Raises
    ------
    ValueError
        If ``value`` is not one of ``choices``; the message lists them.

    Examples
    --------
    >>> from spectral_kit.validation import check_choice
    >>> check_choice("pca", "method", ["pca", "fda"])
    'pca'
    >>> check_choice("svd", "method", ["pca", "fda"])
    Traceback (most recent call last):
    ...
    ValueError: method must be one of 'pca', 'fda'; got 'svd'.
    """
    if not isinstance(value, str) or value not in choices:
        allowed = ", ".join(repr(c) for c in choices)
        raise ValueError(f"{name} must be one of {allowed}; got {_describe(value)}.")
    return value


def check_labels(y: Any, n_samples: int, name: str = "y", *, min_classes: int = 2) -> np.ndarray:
    """Return ``y`` as a 1-D array of length ``n_samples`` with at least ``min_classes``.

    Parameters
    ----------
    y : array-like
        Class labels (integers or strings), one per sample.
    n_samples : int
        Number of samples of the data the labels go with.
    name : str, default "y"
        Argument name used in error messages.
    min_classes : int, default 2
        Fewest distinct classes allowed.

    Returns
    -------
    numpy.ndarray
        ``y`` as a 1-D array (not copied when it already is one).

    Raises
    ------
    TypeError
        If ``y`` is None, complex, or mixes label types without a common order.
    ValueError
        If ``y`` is not 1-D, has the wrong length, holds NaN, looks continuous (non-integer
        floats), or has fewer than ``min_classes`` classes.

    Examples
    --------
    >>> from spectral_kit.validation import check_labels
    >>> check_labels([0, 1, 1, 0], 4)
    array([0, 1, 1, 0])
    >>> check_labels([0, 0, 0], 3)
    Traceback (most recent call last):
    ...
    ValueError: y must contain at least 2 classes; got 1.
    """
    if y is None:
        raise TypeError(f"{name} must be an array of class labels; got None.")
    reject_missing(y, name)
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
    if arr.dtype.kind == "c":
        raise TypeError(f"{name} must hold class labels; got complex values.")
    if arr.dtype.kind == "f" and not np.isfinite(arr).all():
        raise ValueError(f"{name} contains NaN or infinite labels.")
    if arr.dtype.kind == "f" and np.any(arr != np.round(arr)):
        # A measurement, not a class: every distinct value would become its own class.
        raise ValueError(
            f"{name} looks continuous ({np.unique(arr).size} distinct values, not all whole "
            f"numbers); {name} must hold class labels (integers or strings). To use a "
            f"continuous target, bin it first (for example np.digitize({name}, bins))."
        )
    n_classes = unique_labels(arr, name).size
    if n_classes < min_classes:
        raise ValueError(
            f"{name} must contain at least {min_classes} classes; got {n_classes}."
        )
    return arr


def unique_labels(arr: np.ndarray, name: str) -> np.ndarray:
    """Sorted distinct labels of ``arr``, refusing labels with no common order.

    Parameters
    ----------
    arr : numpy.ndarray
        Labels.
    name : str
        Argument name used in the message.

    Returns
    -------
    numpy.ndarray
        ``np.unique(arr)``.

    Raises
    ------
    TypeError
        When the labels have no common order (an object array mixing, e.g., numbers and
        strings).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import unique_labels
    >>> unique_labels(np.array(["b", "a", "b"]), "y")
    array(['a', 'b'], dtype='<U1')
    >>> unique_labels(np.array([1, "a"], dtype=object), "y")
    Traceback (most recent call last):
    ...
    TypeError: y mixes label types (int, str); ...
    """
    try:
        return np.unique(arr)
    except TypeError:
        kinds = sorted({type(v).__name__ for v in arr.ravel()})
        raise TypeError(
            f"{name} mixes label types ({', '.join(kinds)}); give every label the same type, "
            f"for example {name}.astype(str)."
        ) from None


def check_mask(value: Any, name: str, size: int | None = None) -> np.ndarray:
    """Return a 1-D boolean mask (True/False or 0/1 entries), of length ``size`` if given.

    Parameters
    ----------
    value : array-like
        The mask.
    name : str
        Argument name used in error messages.
    size : int, optional
        Required length (for example the number of features).

    Returns
    -------
    numpy.ndarray
        A new boolean array.

    Raises
    ------
    TypeError
        If ``value`` is not numeric or boolean.
    ValueError
        If ``value`` is not 1-D, has the wrong length, or holds values other than 0 and 1.

    Examples
    --------
    >>> from spectral_kit.validation import check_mask
    >>> check_mask([1, 0, 1], "relevant", size=3)
    array([ True, False,  True])
    >>> check_mask([1, 2], "relevant")
    Traceback (most recent call last):
    ...
    ValueError: relevant must be a boolean mask (True/False or 0/1 entries).
    """
    if value is None or isinstance(value, (str, bytes, dict)):
        raise TypeError(f"{name} must be a boolean mask; got {_describe(value)}.")
    arr = np.asarray(value)
    if arr.dtype.kind not in "biuf":
        raise TypeError(f"{name} must be a boolean mask; got dtype {arr.dtype}.")
    if arr.ndim != 1:
        raise ValueError(f"{name} must be a 1-D boolean mask; got shape {arr.shape}.")
    if size is not None and arr.shape[0] != size:
        raise ValueError(f"{name} must be a boolean mask of length {size}; got {arr.shape[0]}.")
    if arr.dtype.kind != "b" and not np.isin(arr, (0, 1)).all():
        raise ValueError(f"{name} must be a boolean mask (True/False or 0/1 entries).")
    return arr.astype(bool)


def check_same_length(name_a: str, a: Sized, name_b: str, b: Sized) -> None:
    """Raise if two sequences that should be aligned have different lengths.

    Parameters
    ----------
    name_a : str
        Name of the first sequence, for the message.
    a : sized
        The first sequence.
    name_b : str
        Name of the second sequence, for the message.
    b : sized
        The second sequence.

    Raises
    ------
    ValueError
        If ``len(a) != len(b)``.

    Examples
    --------
    >>> from spectral_kit.validation import check_same_length
    >>> check_same_length("names", ["a", "b"], "weights", [0.5, 0.5])
    >>> check_same_length("names", ["a"], "weights", [0.5, 0.5])
    Traceback (most recent call last):
    ...
    ValueError: names has length 1 but weights has length 2; they must match.
    """
    if len(a) != len(b):
        raise ValueError(
            f"{name_a} has length {len(a)} but {name_b} has length {len(b)}; they must match."
        )


def check_square(A: np.ndarray, name: str) -> None:
    """Raise unless ``A`` is a square 2-D array.

    Parameters
    ----------
    A : numpy.ndarray
        The matrix to check.
    name : str
        Argument name used in the message.

    Raises
    ------
    ValueError
        If ``A`` is not 2-D or not square.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import check_square
    >>> check_square(np.eye(2), "A")
    >>> check_square(np.ones((2, 3)), "A")
    Traceback (most recent call last):
    ...
    ValueError: A must be a square matrix; got shape (2, 3).
    """
    if A.ndim != 2 or A.shape[0] != A.shape[1]:
        raise ValueError(f"{name} must be a square matrix; got shape {A.shape}.")


def check_symmetric(A: np.ndarray, name: str, *, rtol: float = 1e-8) -> None:
    """Raise unless ``A`` is square and symmetric up to ``rtol`` relative to its norm.

    The eigenvalue results the kit uses (Cauchy interlacing, Weyl, Stewart's bound) hold for
    symmetric matrices only.

    Parameters
    ----------
    A : numpy.ndarray
        The matrix to check.
    name : str
        Argument name used in the message.
    rtol : float, default 1e-8
        Largest allowed ``max |A - A.T|`` relative to ``max |A|``.

    Raises
    ------
    ValueError
        If ``A`` is not square, or not symmetric within ``rtol``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import check_symmetric
    >>> check_symmetric(np.array([[2.0, 1.0], [1.0, 2.0]]), "A")
    >>> check_symmetric(np.array([[2.0, 1.0], [0.0, 2.0]]), "A")
    Traceback (most recent call last):
    ...
    ValueError: A must be symmetric; max |A - A.T| = 1 ...
    """
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

    Parameters
    ----------
    random_state : None, int, numpy.random.Generator or numpy.random.RandomState
        The seed or source of randomness given by the caller.
    name : str, default "random_state"
        Argument name used in error messages.

    Returns
    -------
    numpy.random.Generator
        The generator to draw from.

    Raises
    ------
    TypeError
        If ``random_state`` is of another kind (a bool, a float, a string).
    ValueError
        If ``random_state`` is a negative int.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import as_generator
    >>> rng = as_generator(0)
    >>> bool(rng.random() == np.random.default_rng(0).random())
    True
    >>> as_generator(rng) is rng
    True
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
    """Return a sorted 1-D array of distinct integer indices into an axis of length ``size``.

    Parameters
    ----------
    values : iterable of int
        The indices.
    name : str
        Argument name used in error messages.
    size : int
        Length of the axis the indices point into.

    Returns
    -------
    numpy.ndarray
        The distinct indices, sorted, as ``intp``.

    Raises
    ------
    TypeError
        If the indices are not integers.
    ValueError
        If an index is outside ``[0, size - 1]`` or appears twice.

    Examples
    --------
    >>> from spectral_kit.validation import check_indices
    >>> check_indices([3, 0, 2], "support", size=4)
    array([0, 2, 3])
    >>> check_indices([4], "support", size=4)
    Traceback (most recent call last):
    ...
    ValueError: support must contain indices in [0, 3]; got values from 4 to 4.
    """
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


def check_data_size(n_rows: float, n_cols: float, names: str, *, copies: float = 3.0) -> None:
    """Refuse a generated data set whose matrix would exceed the memory limit.

    Parameters
    ----------
    n_rows, n_cols : float
        Shape of the matrix the generator would build.
    names : str
        Which arguments set its size, for the message.
    copies : float, default 3.0
        How many float64 copies of the matrix the generator holds at its peak (measured for
        each generator: ``tests/memory_probe.py``).

    Raises
    ------
    ValueError
        If ``copies · 8 · n_rows · n_cols`` bytes exceed the limit of
        :func:`spectral_kit.memory.memory_limit`; the message says how much it would need.

    Examples
    --------
    >>> from spectral_kit.validation import check_data_size
    >>> check_data_size(100, 50, "n_samples, n_features")  # 120 kB: fine
    """
    check_memory(copies * 8.0 * float(n_rows) * float(n_cols),
                 f"a {n_rows} × {n_cols} data matrix ({names})",
                 hint="Ask for a smaller data set.")


def max_abs(A: np.ndarray, axis: int | None = None) -> np.ndarray | float:
    """Largest ``|entry|`` of ``A`` (along ``axis``), without a temporary of A's size.

    Parameters
    ----------
    A : numpy.ndarray
        The array.
    axis : int, optional
        Axis to reduce; None reduces over every entry.

    Returns
    -------
    float or numpy.ndarray
        ``np.abs(A).max(axis=axis)``; 0 (or zeros) for an empty array.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import max_abs
    >>> float(max_abs(np.array([[1.0, -3.0], [2.0, 0.5]])))
    3.0
    >>> max_abs(np.array([[1.0, -3.0], [2.0, 0.5]]), axis=0)
    array([2., 3.])
    """
    if A.size == 0:
        return 0.0 if axis is None else np.zeros(A.shape[1 - axis] if A.ndim == 2 else 0)
    return np.maximum(A.max(axis=axis), -A.min(axis=axis))


def scale_exponent(A: np.ndarray) -> int:
    """The power-of-two exponent ``e`` with ``max |A| · 2^−e`` in [0.5, 1) (0 for A = 0).

    Dividing by ``2^e`` is exact in floating point, so a scale-invariant algorithm run on
    ``A · 2^−e`` gives the same result as on A, without A's squares over- or underflowing.

    Parameters
    ----------
    A : numpy.ndarray
        The array.

    Returns
    -------
    int
        The exponent ``e``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.validation import scale_exponent
    >>> scale_exponent(np.array([3.0, -5.0]))
    3
    >>> scale_exponent(np.zeros(2))
    0
    """
    peak = float(max_abs(A))
    return int(np.frexp(peak)[1]) if peak > 0 else 0


def unscale(values: Any, exponent: Any, what: str, *, hint: str = "") -> Any:
    """``values · 2^exponent`` (exact), refusing a result beyond float64's range.

    The companion of :func:`scale_exponent`: an algorithm computes on data divided by a power
    of two, then returns quantities of the data's own scale (a covariance: twice the
    exponent). ``exponent`` may be one per entry. Where the result leaves the range of
    float64 -- an entry becomes inf, or the largest entries become subnormal (0 included) --
    a clear ValueError says so rather than an inf, a 0 or a silently imprecise number.

    Parameters
    ----------
    values : float or array-like
        Quantities computed on the scaled data.
    exponent : int or array-like of int
        The power of two to multiply by (one per entry, or one for all).
    what : str
        What the values are, for the message.
    hint : str, optional
        A sentence appended to the message.

    Returns
    -------
    float or numpy.ndarray
        ``values · 2^exponent``; ``values`` itself when every exponent is 0.

    Raises
    ------
    ValueError
        If the result overflows or underflows float64.

    Examples
    --------
    >>> from spectral_kit.validation import unscale
    >>> unscale(0.75, 4, "the variance")
    12.0
    >>> unscale(1.0, 2000, "the variance")
    Traceback (most recent call last):
    ...
    ValueError: the variance overflows float64 at the scale of the data ...
    """
    if not np.any(exponent):
        return values
    arr = np.asarray(values, dtype=np.float64)
    with np.errstate(over="ignore", under="ignore", divide="ignore"):
        out = np.ldexp(arr, exponent)
        log_size = np.log10(np.abs(arr)) + np.asarray(exponent) * np.log10(2.0)
    tiny = np.finfo(float).tiny
    overflow = not np.isfinite(out).all()
    if np.ndim(exponent):
        underflow = bool(np.any((arr != 0) & (np.abs(out) < tiny)))
    else:
        underflow = bool(max_abs(arr) > 0 and max_abs(out) < tiny)
    if overflow or underflow:
        finite = log_size[np.isfinite(log_size)]
        magnitude = (finite.max() if overflow else finite.min()) if finite.size else 0.0
        raise ValueError(
            f"{what} {'overflows' if overflow else 'underflows'} float64 at the scale of the "
            f"data (a value of about 1e{magnitude:.0f}); multiply the data by a constant "
            "first (for example divide by its largest |entry|)." + (f" {hint}" if hint else "")
        )
    return out if np.ndim(out) else float(out)


def validate_data_named(estimator: Any, X: Any, y: Any = "no_validation", **kwargs: Any) -> Any:
    """scikit-learn's ``validate_data``, with every error naming the data it refused.

    Its messages (e.g. "could not convert string to float") keep their text, so scikit-learn's
    own estimator checks still recognise them; a prefix says it was X (or y) that failed.

    Parameters
    ----------
    estimator : sklearn.base.BaseEstimator
        The estimator whose ``fit``/``transform`` receives the data.
    X : array-like
        Samples as rows.
    y : array-like or "no_validation", default "no_validation"
        Targets, or the default to validate ``X`` only.
    **kwargs
        Passed on to :func:`sklearn.utils.validation.validate_data` (``reset``, ``dtype``, ...).

    Returns
    -------
    numpy.ndarray or tuple of numpy.ndarray
        What ``validate_data`` returns: ``X``, or ``(X, y)`` when ``y`` is given.

    Raises
    ------
    ValueError, TypeError
        scikit-learn's errors, prefixed with the data that failed when their message does not
        name it.

    Examples
    --------
    >>> from sklearn.decomposition import PCA
    >>> from spectral_kit.validation import validate_data_named
    >>> validate_data_named(PCA(), [[1, 2], [3, 4]]).shape
    (2, 2)
    """
    from sklearn.utils.validation import validate_data

    reject_missing(X, "X")
    if y is not None and not (isinstance(y, str) and y == "no_validation"):
        reject_missing(y, "y")
        labels = np.asarray(y)
        if labels.dtype.kind == "O" and labels.ndim == 1:
            unique_labels(labels, "y")
    try:
        return validate_data(estimator, X, y, **kwargs)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        if re.search(r"(?<![\w])(X|y)(?![\w])", message):
            raise
        which = "X" if isinstance(y, str) and y == "no_validation" else "X or y"
        raise type(exc)(f"{which} cannot be used: {message}") from exc
