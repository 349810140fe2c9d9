"""Progress bars and time budgets for long computations.

A long call (the bootstrap intervals of thousands of features, SbS on wide data) reports its
progress through :class:`Progress`: a ``tqdm.auto`` bar -- text in a terminal, a widget in a
notebook -- and an optional budget ``max_seconds``.

By default (``progress=None``) a bar is shown only for *large* work -- a size the caller
decides from its arguments (e.g. a million pairs of features), never from the clock -- and
only once it has run for :data:`SHOW_AFTER` seconds. The calls of a lesson and of the
stored notebooks are small, so their output never changes with the load of the machine;
wide data, where a call runs for minutes, tell the user what they are doing.
``progress=True`` shows the bar at once, ``progress=False`` never (scikit-learn's
``verbose`` has the same two extremes).

The budget is checked between units of work. A call that has used its ``max_seconds``, or
whose measured rate projects it far beyond them, stops with :class:`BudgetExceeded`, which
says how long the whole would take -- so a call that cannot finish in time is refused after
a small part of the work, not after the budget.
"""

from __future__ import annotations

import time
from typing import Any

from .validation import check_finite_scalar

__all__ = ["SHOW_AFTER", "BudgetExceeded", "Progress", "check_max_seconds", "check_progress"]

#: Seconds after which a bar appears when ``progress=None``.
SHOW_AFTER = 2.0
#: The projection refuses once this fraction of the work (or of the budget) is spent...
_PROJECT_AFTER = 0.05
#: ...and the projected total exceeds the budget by this factor.
_PROJECT_MARGIN = 1.25


class BudgetExceeded(TimeoutError):
    """A computation stopped because it would not finish within ``max_seconds``.

    Parameters
    ----------
    what : str
        The computation.
    elapsed : float
        Seconds spent before stopping.
    estimated : float
        Projected seconds for the whole computation, from the rate measured so far.
    max_seconds : float
        The budget that was given.
    done : float
        Fraction of the work done.
    hint : str, optional
        What to try instead, appended to the message.

    Attributes
    ----------
    what, elapsed, estimated, max_seconds, done
        The parameters, for a caller that handles the exception.

    Examples
    --------
    >>> from spectral_kit.progress import BudgetExceeded
    >>> err = BudgetExceeded("SbS", elapsed=1.0, estimated=40.0, max_seconds=10.0, done=0.025)
    >>> print(err)
    SbS would take about 40 s (projected from 2.5 % of the work in 1 s), more than
    max_seconds=10; stopped. Or raise max_seconds (None: no limit).
    >>> isinstance(err, TimeoutError)
    True
    """

    def __init__(self, what: str, elapsed: float, estimated: float, max_seconds: float,
                 done: float, hint: str = ""):
        self.what, self.elapsed, self.estimated = what, elapsed, estimated
        self.max_seconds, self.done = max_seconds, done
        super().__init__(
            f"{what} would take about {estimated:.3g} s (projected from {100 * done:.3g} % of "
            f"the work in {elapsed:.3g} s), more than max_seconds={max_seconds:g}; stopped."
            + (f" {hint}" if hint else "") + " Or raise max_seconds (None: no limit)."
        )


def check_max_seconds(max_seconds: Any) -> float | None:
    """Check a time budget: ``None`` (no budget) or a positive number of seconds.

    Parameters
    ----------
    max_seconds : float or None
        The budget given by the caller.

    Returns
    -------
    float or None
        The budget in seconds, or None.

    Raises
    ------
    TypeError
        If ``max_seconds`` is not a number.
    ValueError
        If ``max_seconds`` is not positive and finite.

    Examples
    --------
    >>> from spectral_kit.progress import check_max_seconds
    >>> check_max_seconds(60)
    60.0
    >>> check_max_seconds(0)
    Traceback (most recent call last):
    ...
    ValueError: max_seconds must lie in (0, inf]; got max_seconds=0. ...
    """
    if max_seconds is None:
        return None
    return check_finite_scalar(max_seconds, "max_seconds", low=0.0, low_inclusive=False,
                               hint="Give seconds, e.g. max_seconds=60, or None for no limit.")


def check_progress(progress: Any) -> bool | None:
    """Check the ``progress`` argument: ``None`` (a bar for large work), ``True`` or ``False``.

    Parameters
    ----------
    progress : None or bool
        The value given by the caller.

    Returns
    -------
    bool or None
        ``progress`` unchanged.

    Raises
    ------
    TypeError
        For any other value (``1``, ``"yes"``).

    Examples
    --------
    >>> from spectral_kit.progress import check_progress
    >>> check_progress(True)
    True
    >>> check_progress(1)
    Traceback (most recent call last):
    ...
    TypeError: progress must be None (a bar for large work ...), True or False; got 1.
    """
    if progress is None or isinstance(progress, bool):
        return progress
    raise TypeError(
        f"progress must be None (a bar for large work that runs longer than {SHOW_AFTER:g} "
        f"s), True or False; got {progress!r}."
    )


class Progress:
    """Progress and budget of ``total`` units of work (pairs of features, steps, ...).

    Parameters
    ----------
    total : int
        Units of work.
    what : str
        Shown on the bar and in :class:`BudgetExceeded`.
    progress : None, bool
        See the module notes.
    max_seconds : float or None
        Budget for the whole computation.
    hint : str
        What to try when the budget is exceeded.
    unit : str
        The name of a unit, for the bar.
    large : bool
        The work is large enough for a bar when ``progress`` is None.
    clock : callable
        Seconds since an arbitrary origin (``time.perf_counter``).

    Raises
    ------
    BudgetExceeded
        From :meth:`update`, once the budget is used or the projected total exceeds it.

    Examples
    --------
    A fake clock that advances one second per reading shows the budget at work: after one of
    100 steps, the projection (about 100 s) exceeds ``max_seconds=10``.

    >>> import itertools
    >>> from spectral_kit.progress import BudgetExceeded, Progress
    >>> ticks = itertools.count()
    >>> with Progress(100, "toy loop", progress=False, max_seconds=10,
    ...               clock=lambda: float(next(ticks))) as bar:
    ...     try:
    ...         for _ in range(100):
    ...             bar.update()
    ...     except BudgetExceeded as err:
    ...         print(f"stopped after {bar.done} steps")
    stopped after 1 steps
    """

    def __init__(self, total: int, what: str, *, progress: bool | None = None,
                 max_seconds: float | None = None, hint: str = "", unit: str = "it",
                 large: bool = True, clock: Any = time.perf_counter):
        self.total, self.what, self.unit = max(int(total), 1), what, unit
        self.progress = check_progress(progress)
        self.large = large
        self.max_seconds = check_max_seconds(max_seconds)
        self.hint, self.clock = hint, clock
        self.start = clock()
        self.done = 0
        self.bar: Any = None
        if self.progress:
            self._open()

    @property
    def elapsed(self) -> float:
        return self.clock() - self.start

    def remaining(self) -> float | None:
        """Seconds left of the budget (None without one)."""
        return None if self.max_seconds is None else self.max_seconds - self.elapsed

    def first_share(self) -> float:
        """The fraction of the work after which the budget projection first applies: a
        caller that can choose the size of its first unit makes it about this large."""
        return _PROJECT_AFTER if self.max_seconds is not None else 1.0

    def update(self, n: int = 1) -> None:
        """``n`` more units done: advance the bar, then check the budget."""
        self.done += int(n)
        elapsed = self.elapsed
        if (self.bar is None and self.progress is None and self.large
                and elapsed >= SHOW_AFTER):
            self._open()
        if self.bar is not None:
            self.bar.update(self.done - self.bar.n)
        if self.max_seconds is None or self.done >= self.total:
            return
        fraction = self.done / self.total
        estimated = elapsed / max(fraction, 1e-12)
        over = elapsed > self.max_seconds
        projected = (fraction >= _PROJECT_AFTER or elapsed >= _PROJECT_AFTER * self.max_seconds
                     ) and estimated > _PROJECT_MARGIN * self.max_seconds
        if over or projected:
            self.close()
            raise BudgetExceeded(self.what, elapsed, estimated, self.max_seconds, fraction,
                                 self.hint)

    def _open(self) -> None:
        from tqdm.auto import tqdm

        self.bar = tqdm(total=self.total, desc=self.what, unit=self.unit, leave=False,
                        initial=self.done)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()
