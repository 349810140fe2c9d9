"""Self-checks for the notebooks' exercises.

An exercise cell leaves ``answer = ...`` for the student; the next cell calls
:func:`check`, which never raises: it says "not answered yet", "correct" or gives the hint.
That way a notebook runs top to bottom (and under nbval) before anyone has answered.
"""

from __future__ import annotations

import numpy as np

__all__ = ["check"]


def check(answer: object, expected: object, *, rtol: float = 1e-6, atol: float = 1e-9,
          hint: str = "") -> None:
    """Compare a student's answer with the expected value and print the verdict.

    Numbers and arrays are compared with ``numpy.allclose(rtol, atol)``; anything else with
    ``==``.
    """
    if answer is Ellipsis or answer is None:
        print("Not answered yet: replace ... with your answer and run the cell again.")
        return
    try:
        ok = bool(np.allclose(np.asarray(answer, dtype=float), np.asarray(expected, dtype=float),
                              rtol=rtol, atol=atol))
    except (TypeError, ValueError):
        ok = answer == expected
    if ok:
        print("Correct.")
    else:
        print("Not quite." + (f" Hint: {hint}" if hint else ""))
