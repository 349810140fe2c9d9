"""Reading a student's answer: what it is, and what is wrong with it when it is not a value.

Nothing here raises: every function returns either a usable value or a sentence that says, in
the student's terms, what was given and what was expected.
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Iterator
from typing import Any

import numpy as np

__all__ = ["describe", "read_indices", "read_number"]


def describe(answer: Any) -> str:
    """A short description of a value: "a list of 2", "the text '0.07'", "a dict with 1 key"."""
    try:
        if isinstance(answer, (bool, np.bool_)):
            return f"{bool(answer)} (a truth value)"
        if isinstance(answer, str):
            shown = answer if len(answer) <= 20 else answer[:17] + "..."
            return f"the text {shown!r}"
        if isinstance(answer, dict):
            n = len(answer)
            return f"a dict with {n} key{'s' if n != 1 else ''}"
        if isinstance(answer, np.ndarray):
            return f"an array of shape {answer.shape}"
        if isinstance(answer, (list, tuple, set, frozenset, range)):
            n = len(answer)
            return f"a {type(answer).__name__} of {n}"
        if isinstance(answer, Iterator):
            return f"a {type(answer).__name__} (an iterator: it has no value until it is consumed)"
        if isinstance(answer, complex):
            return f"the complex number {answer}"
        return f"a {type(answer).__name__} object"
    except Exception:  # a broken __len__ or __repr__ must not break the verdict
        return "an object that cannot be inspected"


def _scalar(answer: Any) -> tuple[float | None, str | None]:
    """A real number from a scalar-like answer, or why not."""
    if isinstance(answer, (bool, np.bool_)):
        return None, f"expected a number, got {describe(answer)}"
    if isinstance(answer, str):
        try:
            float(answer.strip())
        except ValueError:
            return None, f"expected a number, got {describe(answer)}"
        return None, f"expected a number, got {describe(answer)}: remove the quotes"
    if isinstance(answer, (complex, np.complexfloating)):
        return None, f"expected a real number, got {describe(answer)}"
    if isinstance(answer, np.ndarray) and answer.ndim == 0:
        return _scalar(answer.item())
    if isinstance(answer, np.ndarray):
        return None, None
    if isinstance(answer, numbers.Real) or hasattr(answer, "__float__"):
        try:
            value = float(answer)
        except Exception:
            return None, f"expected a number, got {describe(answer)}"
        if math.isnan(value):
            return None, "NaN is not an answer: something in your computation is undefined " \
                         "(a 0/0, a mean of nothing, a missing value)"
        if math.isinf(value):
            return None, "infinity is not an answer: check for a division by zero"
        return value, None
    return None, None


def read_number(answer: Any) -> tuple[float | None, str | None]:
    """``(value, None)`` for one real number, ``(None, why)`` for anything else."""
    value, problem = _scalar(answer)
    if value is not None or problem is not None:
        return value, problem
    if isinstance(answer, np.ndarray) and answer.size == 1:
        return None, (f"expected one number, got {describe(answer)}: take its value with "
                      "answer.item()")
    if isinstance(answer, (list, tuple, np.ndarray)) and len(answer) == 1:
        return None, (f"expected one number, got {describe(answer)}: take its element with "
                      "answer[0]")
    if isinstance(answer, Iterator):
        return None, (f"expected one number, got {describe(answer)}; "
                      "next(...) takes its first item, list(...) all of them")
    return None, f"expected one number, got {describe(answer)}"


def read_indices(answer: Any) -> tuple[list[int] | None, str | None]:
    """``(sorted indices, None)`` for a collection of integer indices, ``(None, why)`` else."""
    if isinstance(answer, np.ndarray) and answer.dtype == bool:
        return None, ("expected indices, got a boolean mask: np.flatnonzero(mask) turns it "
                      "into indices")
    if isinstance(answer, (set, frozenset, range)):
        answer = list(answer)
    if isinstance(answer, np.ndarray):
        if answer.ndim != 1:
            return None, f"expected a flat list of indices, got {describe(answer)}"
        answer = answer.tolist()
    if isinstance(answer, Iterator):
        return None, (f"expected a list of indices, got {describe(answer)}; "
                      "list(...) collects its items")
    if not isinstance(answer, (list, tuple)):
        value, problem = _scalar(answer)
        if value is not None:
            return None, ("expected a list of indices, got one number: put them in a list "
                          "[i, j, ...]")
        if problem and problem.startswith("NaN"):
            return None, f"expected a list of indices; {problem}"
        return None, f"expected a list of indices, got {describe(answer)}"
    indices = []
    for item in answer:
        value, problem = _scalar(item)
        if value is None:
            return None, f"expected integer indices, got {describe(item)} among them"
        if not float(value).is_integer():
            return None, f"expected integer indices, got {value:g} among them"
        indices.append(int(value))
    if len(set(indices)) != len(indices):
        twice = sorted({i for i in indices if indices.count(i) > 1})
        return None, f"index {twice[0]} appears more than once"
    return sorted(indices), None
