"""Argument checks shared by the drawing functions.

A drawing helper called directly with odd data fails at the call, naming the argument,
instead of inside NumPy or matplotlib, or later when the figure is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..validation import check_array

__all__ = ["check_mapping", "check_result", "check_values"]


def check_mapping(value: Any, name: str, what: str) -> Mapping:
    """``value`` itself if it is a mapping, else a TypeError saying what it must map."""
    if not isinstance(value, Mapping):
        raise TypeError(f"{name} must map {what}; got {type(value).__name__}.")
    return value


def check_result(value: Any, name: str, attributes: Sequence[str], made_by: str) -> Any:
    """``value`` itself if it has every attribute a drawing reads, else a TypeError naming
    the result the argument must be (``made_by``, e.g. "the result of detectability")."""
    missing = [a for a in attributes if not hasattr(value, a)]
    if value is None or missing:
        got = "None" if value is None else f"{type(value).__name__} without {missing[0]!r}"
        raise TypeError(f"{name} must be {made_by}; got {got}.")
    return value


def check_values(values: Any, name: str, *, min_size: int = 1) -> np.ndarray:
    """``values`` flattened to a finite 1-D float array of at least ``min_size`` entries."""
    if values is None:
        raise TypeError(f"{name} must be a numeric array; got None.")
    return check_array(np.ravel(values), name, ndim=1, min_rows=min_size,
                       rows_label="value" if min_size == 1 else "values")
