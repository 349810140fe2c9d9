"""Self-checking exercises of the notebooks.

Every exercise is registered here with its parameters and a function that computes the
expected answer from them, so a notebook holds only the question and ``check("01.3", answer)``.
:func:`check` never raises, whatever the answer: it says "not answered yet", "correct",
"close — check your rounding", or what is wrong with the answer ("expected one number, got a
list of 2"). :func:`hint` reveals hints one step at a time. A teacher shows the solutions on
purpose: ``solutions("01")`` in a cell, or ``SPECTRAL_KIT_SOLUTIONS=1`` in the environment of
the kernel (every check then prints its solution too).
"""

from __future__ import annotations

from . import q_alpha, side_information, sparse_lda, stability, weighting  # noqa: F401 (register)
from ._core import (
    KINDS,
    REGISTRY,
    SOLUTIONS_ENV,
    Exercise,
    Solutions,
    Verdict,
    check,
    exercise,
    exercise_key,
    hint,
    solutions,
    verdict,
)

# Registration follows the import order; list the exercises in notebook order instead.
_IN_ORDER = dict(sorted(REGISTRY.items()))
REGISTRY.clear()
REGISTRY.update(_IN_ORDER)

__all__ = [
    "KINDS",
    "REGISTRY",
    "SOLUTIONS_ENV",
    "Exercise",
    "Solutions",
    "Verdict",
    "check",
    "exercise",
    "exercise_key",
    "hint",
    "solutions",
    "verdict",
]
