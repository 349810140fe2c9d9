"""The memory guard: refuse, with the size it would need, a call that would not fit.

Every function whose working memory grows with its arguments (a p × p matrix, B resamples of
n samples, …) estimates the peak memory it adds -- every array alive at once, its result
included -- and calls :func:`check_memory` before allocating. Beyond the limit it raises a
``ValueError`` that says how much the call would need and what to change, instead of a
``MemoryError`` or a kernel that dies on a 1–2 GB Binder session.

The limit is :data:`MEMORY_LIMIT` (1 GiB), or the environment variable
``SPECTRAL_KIT_MEMORY_LIMIT``: bytes (``"1073741824"``) or a size with a unit, ``"512M"``,
``"4G"``, ``"1.5GiB"`` (K, M, G, T and KiB … TiB are powers of 1024; KB, MB, GB, TB powers of
1000). Why 1 GiB: a Binder session gets 1–2 GB and a kernel with the kit and Jupyter loaded
already holds about 300 MB, so one call may take about 1 GiB without killing a 2 GB session
(and the user who has more memory says so once, in the environment).
"""

from __future__ import annotations

import math
import os
import re

__all__ = ["MEMORY_LIMIT", "check_memory", "format_bytes", "memory_limit", "parse_bytes"]

#: Default peak working memory (bytes) a guarded call may add.
MEMORY_LIMIT = 2**30
#: Called as ``observer(n_bytes, what)`` by every :func:`check_memory` when set: how the
#: memory tests read a call's estimate.
observer = None

_UNITS = {
    "": 1, "b": 1,
    "k": 2**10, "m": 2**20, "g": 2**30, "t": 2**40,
    "kib": 2**10, "mib": 2**20, "gib": 2**30, "tib": 2**40,
    "kb": 10**3, "mb": 10**6, "gb": 10**9, "tb": 10**12,
}
_SIZE = re.compile(r"^\s*([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*([A-Za-z]*)\s*$")


def parse_bytes(text: str, name: str = "SPECTRAL_KIT_MEMORY_LIMIT") -> float:
    """Bytes from ``"1073741824"``, ``"512M"``, ``"4G"``, ``"1.5GiB"``, ``"800 MB"``.

    K, M, G, T and KiB … TiB are powers of 1024; KB, MB, GB, TB powers of 1000.

    Parameters
    ----------
    text : str
        The size, as written in ``SPECTRAL_KIT_MEMORY_LIMIT``.
    name : str, default "SPECTRAL_KIT_MEMORY_LIMIT"
        What the text came from, for the message.

    Returns
    -------
    float
        The size in bytes.

    Raises
    ------
    ValueError
        For anything else, naming ``name``: an empty string, a number that is not finite or
        not positive, an unknown unit.

    Examples
    --------
    >>> from spectral_kit.memory import parse_bytes
    >>> parse_bytes("512M")
    536870912.0
    >>> parse_bytes("1.5 GB")
    1500000000.0
    >>> parse_bytes("lots")
    Traceback (most recent call last):
    ...
    ValueError: SPECTRAL_KIT_MEMORY_LIMIT='lots' is not a size; ...
    """
    match = _SIZE.match(str(text))
    unit = match.group(2).lower() if match else None
    if match is None or unit not in _UNITS:
        raise ValueError(
            f"{name}={text!r} is not a size; give bytes or a number with a unit, e.g. "
            f"{name}=4G, 512M, 1.5GiB or 1073741824."
        )
    value = float(match.group(1)) * _UNITS[unit]
    if not math.isfinite(value) or value < 1:
        raise ValueError(
            f"{name}={text!r} must be a positive, finite size (at least 1 byte), e.g. "
            f"{name}=4G."
        )
    return value


def memory_limit() -> float:
    """The limit in force: ``SPECTRAL_KIT_MEMORY_LIMIT`` when set, else :data:`MEMORY_LIMIT`.

    Returns
    -------
    float
        The largest peak working memory, in bytes, that a guarded call may add.

    Raises
    ------
    ValueError
        If ``SPECTRAL_KIT_MEMORY_LIMIT`` is set to something that is not a size.

    Examples
    --------
    >>> from spectral_kit.memory import MEMORY_LIMIT, memory_limit
    >>> MEMORY_LIMIT  # the default: 1 GiB
    1073741824
    >>> memory_limit() > 0
    True
    """
    text = os.environ.get("SPECTRAL_KIT_MEMORY_LIMIT")
    return float(MEMORY_LIMIT) if text is None else parse_bytes(text)


def check_memory(n_bytes: float, what: str, *, hint: str = "") -> None:
    """Refuse a call whose estimated peak memory ``n_bytes`` exceeds :func:`memory_limit`.

    The message says how much would be needed, so that a student meets a clear ValueError
    instead of a ``MemoryError`` (or a machine that swaps for minutes).

    Parameters
    ----------
    n_bytes : float
        Estimated peak memory the call adds, every array alive at once included.
    what : str
        What would be allocated, for the message (``"a 50000 × 50000 similarity matrix"``).
    hint : str, optional
        What to change instead, appended to the message.

    Raises
    ------
    ValueError
        If ``n_bytes`` exceeds the limit.

    Examples
    --------
    >>> from spectral_kit.memory import check_memory
    >>> check_memory(8 * 1000**2, "a 1000 × 1000 matrix")  # 7.6 MiB: fine
    >>> check_memory(8 * 10**6 * 10**6, "a 10⁶ × 10⁶ matrix", hint="Use fewer features.")
    Traceback (most recent call last):
    ...
    ValueError: a 10⁶ × 10⁶ matrix would need 7.3 TiB, more than the kit's limit of ...
    """
    if observer is not None:
        observer(n_bytes, what)
    limit = memory_limit()
    if n_bytes > limit:
        raise ValueError(
            f"{what} would need {format_bytes(n_bytes)}, more than the kit's limit of "
            f"{format_bytes(limit)} (set SPECTRAL_KIT_MEMORY_LIMIT, e.g. to 4G, to allow more)."
            + (f" {hint}" if hint else "")
        )


def format_bytes(n: float) -> str:
    """A size for a message: ``"512 B"``, ``"1.5 KiB"``, ``"2.2 GiB"``.

    Parameters
    ----------
    n : float
        Size in bytes.

    Returns
    -------
    str
        The size in the largest binary unit (B … TiB) that keeps the number at least 1.

    Examples
    --------
    >>> from spectral_kit.memory import format_bytes
    >>> format_bytes(512)
    '512 B'
    >>> format_bytes(1536)
    '1.5 KiB'
    """
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024:
            return f"{int(n)} B" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TiB"
