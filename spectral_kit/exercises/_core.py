"""The exercise registry and the verdicts of :func:`check`.

An exercise is registered once, with its parameters and a function that computes the expected
value from them; the notebook only names it (``check("01.3", answer)``), so the answer is never
in the notebook's source. Hints come one step at a time; solutions appear only on purpose.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ._answers import describe, read_indices, read_number

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

#: What an answer is: one real number, one integer, a set of indices (order ignored), or one
#: value of a grid given in the exercise's parameters (``params["grid"]``).
KINDS = ("number", "integer", "indices", "grid")

#: Set to 1 and every :func:`check` also prints the solution (a teacher's run on a projector).
SOLUTIONS_ENV = "SPECTRAL_KIT_SOLUTIONS"

#: How far from the expected value an answer counts as "close": a rounding, not a mistake.
CLOSE_RTOL = 0.05


@dataclass(frozen=True)
class Exercise:
    """One self-checking exercise.

    Attributes
    ----------
    id : str
        ``"NN.i"``: notebook NN, exercise i.
    title : str
        What it asks, in a few words.
    params : mapping
        The exercise's parameters (the numbers its text quotes); ``compute(**params)`` gives
        the expected answer.
    compute : callable
        Computes the expected answer from ``params`` with the kit's own functions or a closed
        form.
    kind : str
        One of :data:`KINDS`.
    hints : tuple of str
        Revealed one at a time by :func:`hint`, from a nudge to nearly the solution.
    solution : str
        Markdown: the code or the reasoning that gives the answer.
    rtol, atol : float
        Tolerance of a correct answer.

    Examples
    --------
    >>> from spectral_kit.exercises import REGISTRY
    >>> ex = REGISTRY["01.1"]
    >>> ex.title, ex.kind, ex.params
    ('the mean triple product (Prop. 9)', 'number', {'q': 20, 'inner_ab': 0.6, 'k': 4})
    >>> round(ex.expected(), 6)  # k/q · ⟨a, b⟩², Wolf & Shashua 2005, Prop. 9
    0.072
    """

    id: str
    title: str
    params: Mapping[str, Any]
    compute: Callable[..., Any]
    kind: str = "number"
    hints: tuple[str, ...] = ()
    solution: str = ""
    rtol: float = 1e-6
    atol: float = 0.0
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}.")
        if self.kind == "grid" and "grid" not in self.params:
            raise ValueError(f"exercise {self.id}: kind 'grid' needs params['grid'].")
        if not self.hints:
            raise ValueError(f"exercise {self.id}: give at least one hint.")

    @property
    def notebook(self) -> str:
        return self.id.split(".")[0]

    def expected(self) -> Any:
        """The expected answer, computed once from the parameters."""
        if "value" not in self._cache:
            value = self.compute(**self.params)
            if self.kind == "indices":
                value = sorted(int(i) for i in np.asarray(value).ravel())
            elif self.kind == "integer":
                value = int(value)
            else:
                value = float(value)
            self._cache["value"] = value
        return self._cache["value"]


#: Every exercise, by id, in registration order.
REGISTRY: dict[str, Exercise] = {}


def exercise(id: str, title: str, params: Mapping[str, Any], *, kind: str = "number",
             hints: tuple[str, ...] | list[str] = (), solution: str = "", rtol: float = 1e-6,
             atol: float = 0.0) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register the decorated function as the expected-value computation of exercise ``id``.

    The notebook then holds only the question and ``check(id, answer)``; the expected value is
    computed from ``params`` by the decorated function (with the kit's own functions or a
    closed form from the paper), so it cannot drift from the library.

    Parameters
    ----------
    id : str
        ``"NN.i"``: notebook NN, exercise i. Unique.
    title : str
        What it asks, in a few words.
    params : mapping
        The numbers the exercise's text quotes; passed to the function as keyword arguments.
    kind : str, default "number"
        One of :data:`KINDS`: how an answer is compared.
    hints : sequence of str
        Revealed one at a time by :func:`hint`.
    solution : str
        Markdown: the code or reasoning that gives the answer (shown by :func:`solutions`).
    rtol, atol : float
        Tolerance of a correct answer.

    Returns
    -------
    callable
        The decorator; it returns the function unchanged.

    Raises
    ------
    ValueError
        When the function is decorated, if ``id`` is registered already.

    Examples
    --------
    >>> from spectral_kit.exercises import REGISTRY, exercise, verdict
    >>> @exercise("00.9", "the area of a unit disc", {"r": 1.0},
    ...           hints=["A = π r²."], solution="`math.pi * r**2`")
    ... def _area(r):
    ...     import math
    ...     return math.pi * r**2
    >>> verdict("00.9", 3.14159265).status
    'correct'
    >>> del REGISTRY["00.9"]  # keep the example out of the kit's exercises
    """
    def decorate(compute: Callable[..., Any]) -> Callable[..., Any]:
        if id in REGISTRY:
            raise ValueError(f"exercise {id!r} is registered twice.")
        REGISTRY[id] = Exercise(id, title, dict(params), compute, kind, tuple(hints),
                                solution.strip(), rtol, atol)
        return compute
    return decorate


@dataclass(frozen=True)
class Verdict:
    """What :func:`check` says about an answer.

    Attributes
    ----------
    status : str
        "unanswered", "correct", "close", "wrong" or "invalid" (not a value of the expected
        kind).
    message : str
        The sentence shown to the student.

    Examples
    --------
    >>> from spectral_kit.exercises import verdict
    >>> v = verdict("01.1", 0.5)
    >>> v.status, v.correct
    ('wrong', False)
    >>> print(verdict("01.1", ...))
    Not answered yet: replace ... with your answer and run the cell again.
    """

    status: str
    message: str

    @property
    def correct(self) -> bool:
        return self.status == "correct"

    def __str__(self) -> str:
        return self.message


_NOT_ANSWERED = Verdict("unanswered",
                        "Not answered yet: replace ... with your answer and run the cell again.")


def _decimals_shown(value: float) -> int | None:
    """Digits after the decimal point in the shortest repr of ``value`` (None: exponent form)."""
    text = repr(float(value))
    if "e" in text or "E" in text:
        return None
    return len(text.split(".")[1].rstrip("0")) if "." in text else 0


def _compare_numbers(value: float, expected: float, rtol: float, atol: float,
                     integer: bool) -> Verdict:
    tolerance = atol + rtol * abs(expected)
    if abs(value - expected) <= tolerance:
        return Verdict("correct", "Correct.")
    if integer and abs(value - expected) <= CLOSE_RTOL * abs(expected):
        return Verdict("close", "Close, but this one needs the exact integer, not a rounded "
                                "or approximate value.")
    decimals = _decimals_shown(value)
    if decimals is not None and abs(round(expected, decimals) - value) < 0.5 * 10.0 ** -decimals:
        return Verdict("close", f"Close — correct to the {decimals} decimal"
                                f"{'s' if decimals != 1 else ''} you gave; check your rounding "
                                "and give more digits.")
    if abs(value - expected) <= CLOSE_RTOL * abs(expected):
        off = abs(value - expected) / abs(expected)
        return Verdict("close", f"Close — within {100 * off:.2g} % of the expected value: check "
                                "your rounding, or a small slip in the computation.")
    if expected != 0 and abs(value + expected) <= max(tolerance, CLOSE_RTOL * abs(expected)):
        return Verdict("wrong", "Not quite: right size, wrong sign.")
    if expected != 0 and value != 0 and value / expected > 0:
        power = math.log10(value / expected)
        if abs(power - round(power)) < 0.01 and round(power) != 0:
            return Verdict("wrong", f"Not quite: off by a factor of 10^{round(power)} — check "
                                    "the units or a normalisation.")
    return Verdict("wrong", "Not quite.")


def _judge(ex: Exercise, answer: Any, expected: Any) -> Verdict:
    if ex.kind == "indices":
        given, problem = read_indices(answer)
        if problem:
            return Verdict("invalid", f"Not an answer yet: {problem}.")
        if given == expected:
            return Verdict("correct", "Correct.")
        if len(given) != len(expected):
            return Verdict("invalid", f"Not an answer yet: expected {len(expected)} indices, got "
                                      f"{len(given)}.")
        right = len(set(given) & set(expected))
        return Verdict("wrong", f"Not quite: {right} of your {len(given)} indices are right.")
    value, problem = read_number(answer)
    if problem:
        if ex.kind == "integer" and problem.startswith("expected one number"):
            problem = problem.replace("expected one number", "expected one integer", 1)
        return Verdict("invalid", f"Not an answer yet: {problem}.")
    if ex.kind == "integer" and not float(value).is_integer():
        return Verdict("invalid", f"Not an answer yet: expected an integer, got {value:g}.")
    result = _compare_numbers(value, float(expected), ex.rtol, ex.atol, ex.kind == "integer")
    if ex.kind == "grid" and result.status == "wrong":
        grid = np.asarray(ex.params["grid"], dtype=float)
        if not np.any(np.isclose(grid, value, rtol=1e-6, atol=0.0)):
            return Verdict("invalid", "Not an answer yet: give one of the values of the grid "
                                      "the exercise names.")
    return result


def exercise_key(exercise_id: Any) -> str | None:
    """The registered id that ``exercise_id`` names, or None.

    A student types ``1.1`` (a float) or ``"1.1"`` as often as ``"01.1"``: a notebook number
    of one digit is padded, and a float is read as the id it prints as.

    Parameters
    ----------
    exercise_id : object
        What the student typed: ``"01.1"``, ``"1.1"``, ``1.1``, or a notebook (``1``, ``"01"``).

    Returns
    -------
    str or None
        ``"NN.i"`` or ``"NN"``; None for anything that cannot name an exercise.

    Examples
    --------
    >>> from spectral_kit.exercises import exercise_key
    >>> exercise_key(1.1), exercise_key("1.1"), exercise_key(5), exercise_key("x")
    ('01.1', '01.1', '05', None)
    """
    try:
        if isinstance(exercise_id, bool) or exercise_id is None:
            return None
        if isinstance(exercise_id, (int, np.integer)):
            text = str(int(exercise_id))
        elif isinstance(exercise_id, (float, np.floating)):
            value = float(exercise_id)
            if not math.isfinite(value):
                return None
            text = str(int(value)) if value.is_integer() else repr(value)
        elif isinstance(exercise_id, str):
            text = exercise_id.strip()
        else:
            return None
        match = re.fullmatch(r"(\d{1,2})(?:\.(\d{1,2}))?", text)
        if match is None:
            return None
        notebook = f"{int(match.group(1)):02d}"
        return notebook if match.group(2) is None else f"{notebook}.{int(match.group(2))}"
    except Exception:  # the promise of check, hint and solutions is "never raises"
        return None


def _registered(exercise_id: Any) -> Exercise | None:
    key = exercise_key(exercise_id)
    return REGISTRY.get(key) if key is not None else None


def _known() -> str:
    return ", ".join(sorted(REGISTRY)) or "none"


def verdict(exercise_id: Any, answer: Any) -> Verdict:
    """The verdict on ``answer`` to exercise ``exercise_id``; never raises.

    Parameters
    ----------
    exercise_id : str or float
        A registered exercise, read by :func:`exercise_key` (``1.1``, ``"1.1"`` and ``"01.1"``
        name the same exercise).
    answer : object
        The student's answer; ``...`` (Ellipsis) means "not answered yet".

    Returns
    -------
    Verdict
        ``status`` and the message for the student; an unknown exercise or an answer of the
        wrong kind is a verdict too, never an exception.

    Examples
    --------
    >>> from spectral_kit.exercises import REGISTRY, verdict
    >>> verdict("01.1", REGISTRY["01.1"].expected()).status
    'correct'
    >>> verdict(1.1, 0.072).status
    'correct'
    """
    try:
        ex = _registered(exercise_id)
        if ex is None:
            return Verdict("invalid", f"There is no exercise {exercise_id!r}; the exercises are: "
                                      f"{_known()}.")
        if answer is Ellipsis or answer is None:
            return _NOT_ANSWERED
        try:
            expected = ex.expected()
        except Exception as exc:  # e.g. a data set that is not available here
            return Verdict("invalid", f"The expected value cannot be computed here "
                                      f"({type(exc).__name__}: {exc}).")
        result = _judge(ex, answer, expected)
        if result.status in ("wrong", "close"):
            result = Verdict(result.status, result.message
                             + f" hint({ex.id!r}) gives a hint.")
        return result
    except Exception as exc:  # the promise is "never raises": report instead
        return Verdict("invalid", f"Could not read this answer ({describe(answer)}): "
                                  f"{type(exc).__name__}: {exc}.")


def _legacy_verdict(answer: Any, expected: Any, rtol: float, atol: float, hint_text: str
                    ) -> Verdict:
    """``check(answer, expected)``, the form without a registered exercise."""
    try:
        if answer is Ellipsis or answer is None:
            return _NOT_ANSWERED
        target = np.asarray(expected)
        if target.ndim == 0:
            ex = Exercise("?", "", {}, lambda: expected, "number", ("",), "", rtol, atol)
        else:
            ex = Exercise("?", "", {}, lambda: expected, "indices", ("",), "", rtol, atol)
            expected = sorted(int(i) for i in target.ravel())
        result = _judge(ex, answer, float(target) if target.ndim == 0 else expected)
        if result.status in ("wrong", "close") and hint_text:
            result = Verdict(result.status, f"{result.message} Hint: {hint_text}")
        return result
    except Exception as exc:
        return Verdict("invalid", f"Could not read this answer ({describe(answer)}): "
                                  f"{type(exc).__name__}: {exc}.")


_MISSING = object()


def _show(obj: Any) -> None:
    """Display ``obj`` richly in a notebook (Markdown with typeset maths), else print it."""
    try:
        from IPython import get_ipython
        from IPython.display import display

        if get_ipython() is not None:
            display(obj)
            return
    except ImportError:
        pass
    print(obj)


def check(exercise_id: Any = _MISSING, answer: Any = _MISSING, expected: Any = _MISSING, *,
          rtol: float = 1e-6, atol: float = 1e-9, hint: str = "") -> None:
    """Print the verdict on an answer; never raises, whatever the arguments are.

    ``check("01.3", answer)`` checks the answer to registered exercise 01.3 (the expected
    value is computed from the exercise's parameters, see :data:`REGISTRY`); ``check(1.3,
    answer)`` means the same. With ``SPECTRAL_KIT_SOLUTIONS=1`` in the environment the
    solution is shown as well (Markdown with maths in a notebook).

    ``check(answer, expected)`` compares with an explicit expected value (tolerances
    ``rtol``/``atol``, optional ``hint``).

    Parameters
    ----------
    exercise_id : str, float or object
        A registered exercise id, or (second form) the answer itself.
    answer : object, optional
        The student's answer (first form), or the expected value (second form).
    expected : object, optional
        Not used in the first form.
    rtol, atol : float
        Tolerances of the second form.
    hint : str, optional
        Printed with a wrong answer in the second form.

    Examples
    --------
    >>> from spectral_kit.exercises import check
    >>> check("01.1", 0.072)
    Correct.
    >>> check(1.1, ...)
    Not answered yet: replace ... with your answer and run the cell again.
    """
    try:
        _check(exercise_id, answer, expected, rtol, atol, hint)
    except Exception as exc:  # a last guard: a verdict, never a traceback
        print(f"Could not check this answer: {type(exc).__name__}: {exc}.")


def _check(exercise_id: Any, answer: Any, expected: Any, rtol: float, atol: float,
           hint_text: str) -> None:
    if exercise_id is _MISSING or (answer is _MISSING and expected is _MISSING):
        print("check needs the exercise and your answer: check('01.1', answer).")
        return
    ex = _registered(exercise_id) if expected is _MISSING else None
    if ex is None:
        key = exercise_key(exercise_id) if expected is _MISSING else None
        if key is not None and "." in key and isinstance(exercise_id, str):
            print(verdict(exercise_id, answer))            # an exercise id that does not exist
            return
        if expected is _MISSING:                            # check(answer, expected)
            expected, answer = answer, exercise_id
        else:
            answer = exercise_id if answer is _MISSING else answer
        print(_legacy_verdict(answer, expected, rtol, atol, hint_text))
        return
    print(verdict(ex.id, answer))
    if os.environ.get(SOLUTIONS_ENV, "").strip() not in ("", "0"):
        print()
        _show(Solutions([ex]))


_HINTS_SHOWN: dict[str, int] = {}


def hint(exercise_id: Any = _MISSING, step: Any = None) -> None:
    """Print the hints of an exercise up to the next step (or up to ``step``); never raises.

    Each call reveals one more hint, from a nudge to nearly the solution; the earlier ones are
    repeated so that the cell's output reads on its own.

    Parameters
    ----------
    exercise_id : str or float
        A registered exercise; an unknown one prints the list of exercises.
    step : int, optional
        Show the hints up to this one (1-based) instead of one more than last time.

    Examples
    --------
    >>> from spectral_kit.exercises import hint
    >>> hint("01.1", step=1)  # doctest: +ELLIPSIS
    Hint 1 of ...
    """
    if exercise_id is _MISSING:
        print("hint needs the exercise: hint('01.1').")
        return
    ex = _registered(exercise_id)
    if ex is None:
        print(f"There is no exercise {exercise_id!r}; the exercises are: {_known()}.")
        return
    n = len(ex.hints)
    try:
        shown = _HINTS_SHOWN.get(ex.id, 0) + 1 if step is None else int(step)
    except (TypeError, ValueError, OverflowError):
        print(f"step must be a whole number from 1 to {n}; got {step!r}.")
        return
    shown = max(1, min(shown, n))
    _HINTS_SHOWN[ex.id] = shown
    for i in range(shown):
        print(f"Hint {i + 1} of {n}: {ex.hints[i]}")
    if shown == n:
        print("That was the last hint. The solution is your teacher's to reveal.")
    else:
        print(f"Run hint({ex.id!r}) again for the next one.")


class Solutions:
    """Solutions of some exercises, rendered as Markdown in a notebook and as text elsewhere.

    Parameters
    ----------
    exercises : list of Exercise
        The exercises to show, in order.

    Examples
    --------
    >>> from spectral_kit.exercises import REGISTRY, Solutions
    >>> print(Solutions([REGISTRY["01.1"]]))  # doctest: +ELLIPSIS
    Exercise 01.1: the mean triple product (Prop. 9). Answer: 0.072
    ...
    """

    def __init__(self, exercises: list[Exercise]):
        self.exercises = list(exercises)

    def _entries(self) -> list[tuple[Exercise, str]]:
        entries = []
        for ex in self.exercises:
            try:
                value = ex.expected()
                shown = f"{value:.6g}" if isinstance(value, float) else str(value)
            except Exception as exc:
                shown = f"(not computable here: {type(exc).__name__})"
            entries.append((ex, shown))
        return entries

    def _repr_markdown_(self) -> str:
        parts = []
        for ex, shown in self._entries():
            parts.append(f"**Exercise {ex.id}: {ex.title}.** Answer: `{shown}`\n\n{ex.solution}")
        return "\n\n".join(parts)

    def __str__(self) -> str:
        parts = []
        for ex, shown in self._entries():
            parts.append(f"Exercise {ex.id}: {ex.title}. Answer: {shown}\n{ex.solution}")
        return "\n\n".join(parts)

    __repr__ = __str__


def solutions(notebook: Any = _MISSING) -> Solutions | None:
    """The solutions of every exercise of a notebook ("01") or of one exercise ("01.3");
    never raises.

    For a teacher: call it on purpose, e.g. in a cell added at the end of the notebook. A
    number (``1``, ``1.3``) is read as the notebook or exercise it names. What names no
    exercise prints what does and returns None.

    Parameters
    ----------
    notebook : str or number
        A notebook (``"01"``, ``1``) or an exercise (``"01.3"``, ``1.3``).

    Returns
    -------
    Solutions or None
        Shown as Markdown with typeset maths in a notebook, as text elsewhere; None (after
        printing what is allowed) when ``notebook`` names no exercise.

    Examples
    --------
    >>> from spectral_kit.exercises import solutions
    >>> [ex.id for ex in solutions("01").exercises][:3]
    ['01.1', '01.2', '01.3']
    >>> solutions("99")  # doctest: +ELLIPSIS
    solutions needs a notebook (...
    """
    notebooks = sorted({ex.notebook for ex in REGISTRY.values()})
    key = None if notebook is _MISSING else exercise_key(notebook)
    chosen = [] if key is None else [REGISTRY[i] for i in sorted(REGISTRY)
                                     if key in (i, REGISTRY[i].notebook)]
    if not chosen:
        given = "nothing" if notebook is _MISSING else repr(notebook)
        print(f"solutions needs a notebook ({', '.join(notebooks)}) or an exercise "
              f"({_known()}), e.g. solutions('01'); got {given}.")
        return None
    return Solutions(chosen)
