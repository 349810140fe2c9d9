"""Benchmarks: our implementation against a baseline run in the same process.

A benchmark module registers ``run(quick: bool) -> list[BenchResult]`` with :func:`benchmark`.
Benchmarks are not tests: they print times and ratios (``spectral-kit bench``); tests check
correctness.

Every benchmark has at most one **headline**: its main comparison, against a baseline timed
in the same process -- for an algorithm, the peer a user would really pick (a SciPy or
scikit-learn call computing the same quantity). A benchmark marks its headline row with
``headline=True``; when it marks none, the first row whose baseline was measured is the
headline. A baseline time that was estimated rather than
measured (``extrapolated=True``, e.g. a per-call cost scaled up to calls never made) is
printed with "(extrapolated)" after its ratio and is never a headline.
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "BENCHMARKS",
    "BenchResult",
    "benchmark",
    "format_table",
    "mark_headline",
    "peak_memory",
    "timed",
    "timed_alternating",
]


@dataclass(frozen=True)
class BenchResult:
    """One timed comparison.

    Attributes
    ----------
    name : str
        What was timed, with its size (e.g. "α-step, n=10⁴, q=100, k=3").
    seconds : float
        Our best wall time.
    baseline : str or None
        What we compare with (e.g. "scipy.sparse.linalg.eigsh on the same operator").
    baseline_seconds : float or None
    goal : str
        The target stated in the issue/papers, e.g. "ratio ≥ 100" or "< 60 s".
    extra : dict
        Other measured numbers (peak memory, iterations, nodes expanded, ...).
    extrapolated : bool
        ``baseline_seconds`` is an estimate (a measured cost scaled to work that was not
        run), not a measurement. Such a row is labelled "(extrapolated)" and is never the
        headline.
    headline : bool
        This row is its benchmark's headline: the ratio against the peer a user would pick.

    Examples
    --------
    >>> from spectral_kit.bench import BenchResult
    >>> row = BenchResult("α-step, n=10⁴", 0.02, baseline="eigsh", baseline_seconds=0.5,
    ...                   headline=True)
    >>> row.ratio, row.measured
    (25.0, True)
    >>> BenchResult("x", 1.0, baseline="peer", baseline_seconds=9.0, extrapolated=True,
    ...             headline=True)
    Traceback (most recent call last):
    ...
    ValueError: 'x': a headline needs a measured baseline; got an extrapolated one. ...
    """

    name: str
    seconds: float
    baseline: str | None = None
    baseline_seconds: float | None = None
    goal: str = ""
    extra: dict = field(default_factory=dict)
    extrapolated: bool = False
    headline: bool = False

    def __post_init__(self) -> None:
        if self.headline and (self.extrapolated or self.baseline_seconds is None):
            raise ValueError(
                f"{self.name!r}: a headline needs a measured baseline; got "
                f"{'an extrapolated one' if self.extrapolated else 'none'}. Mark another row."
            )

    @property
    def measured(self) -> bool:
        """Whether the row has a baseline time that was measured in this process."""
        return self.baseline_seconds is not None and not self.extrapolated

    @property
    def ratio(self) -> float | None:
        """Baseline time ÷ our time (> 1 means we are faster)."""
        if self.baseline_seconds is None or self.seconds <= 0:
            return None
        return self.baseline_seconds / self.seconds


def mark_headline(results: list[BenchResult]) -> list[BenchResult]:
    """The rows of one benchmark with exactly one headline, when any row can be one.

    Rows marked ``headline=True`` by the benchmark are kept as they are (one at most);
    otherwise the first row with a measured baseline becomes the headline. Extrapolated
    rows never do.
    """
    marked = [r for r in results if r.headline]
    if len(marked) > 1:
        raise ValueError(
            f"one headline per benchmark; got {len(marked)}: {[r.name for r in marked]}."
        )
    if marked:
        return list(results)
    out = list(results)
    for i, r in enumerate(out):
        if r.measured:
            out[i] = dataclasses.replace(r, headline=True)
            break
    return out


def timed(func: Callable[[], Any], *, repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls, and the last result.

    Parameters
    ----------
    func : callable
        Called without arguments.
    repeat : int, default 1
        Number of calls; the fastest is reported (the least disturbed by other load).

    Returns
    -------
    seconds : float
        The best wall time.
    result : object
        What the last call returned.

    Examples
    --------
    >>> from spectral_kit.bench import timed
    >>> seconds, value = timed(lambda: sum(range(1000)), repeat=3)
    >>> value, seconds >= 0
    (499500, True)
    """
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def timed_alternating(*funcs: Callable[[], Any], repeat: int = 5) -> list[float]:
    """Best wall time of each function over ``repeat`` rounds, the functions taking turns
    within a round: on a shared machine whose load drifts, a ratio of two best times is
    then not biased toward whichever ran while the machine was quieter."""
    best = [float("inf")] * len(funcs)
    for _ in range(repeat):
        for i, func in enumerate(funcs):
            gc.collect()
            start = time.perf_counter()
            func()
            best[i] = min(best[i], time.perf_counter() - start)
    return best


def peak_memory(func: Callable[[], Any]) -> tuple[int, float, Any]:
    """Peak bytes allocated through Python/NumPy while ``func`` runs, its time, its result.

    Uses :mod:`tracemalloc`, which sees NumPy's array buffers; memory held before the call
    (the input data) is not counted.

    Parameters
    ----------
    func : callable
        Called once, without arguments.

    Returns
    -------
    peak_bytes : int
        Peak traced allocation during the call.
    seconds : float
        Wall time of the call (slower than untraced).
    result : object
        What ``func`` returned.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.bench import peak_memory
    >>> peak, seconds, result = peak_memory(lambda: np.ones(10**6).sum())
    >>> bool(peak >= 8 * 10**6), float(result)  # the 8 MB temporary is seen
    (True, 1000000.0)
    """
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    start = time.perf_counter()
    try:
        result = func()
        seconds = time.perf_counter() - start
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return peak, seconds, result


#: Registered benchmarks by name.
BENCHMARKS: dict[str, Callable[[bool], list[BenchResult]]] = {}


def benchmark(name: str) -> Callable:
    """Register ``run(quick: bool) -> list[BenchResult]`` under ``name``.

    The registered function (and the name it is bound to) returns its rows through
    :func:`mark_headline`, so every benchmark reports one headline at most.

    Parameters
    ----------
    name : str
        The key in :data:`BENCHMARKS`, as typed in ``spectral-kit bench NAME``.

    Returns
    -------
    callable
        The decorator; it returns the wrapped ``run``.

    Examples
    --------
    >>> from spectral_kit.bench import BENCHMARKS, BenchResult, benchmark, timed
    >>> @benchmark("toy-sum")
    ... def run(quick):
    ...     n = 10**3 if quick else 10**5
    ...     ours, _ = timed(lambda: n * (n - 1) // 2)
    ...     base, _ = timed(lambda: sum(range(n)))
    ...     return [BenchResult(f"sum of range({n})", ours, "sum()", base)]
    >>> rows = BENCHMARKS["toy-sum"](quick=True)
    >>> rows[0].name, rows[0].headline  # the only measured row becomes the headline
    ('sum of range(1000)', True)
    >>> del BENCHMARKS["toy-sum"]  # keep the example out of the kit's benchmarks
    """

    def decorate(func: Callable[[bool], list[BenchResult]]) -> Callable:
        @functools.wraps(func)
        def run(quick: bool = False) -> list[BenchResult]:
            return mark_headline(func(quick))

        BENCHMARKS[name] = run
        return run

    return decorate


#: Printed under every table.
LEGEND = (
    "★ headline: the benchmark's main comparison, against a baseline measured in the same "
    "process (for the algorithms, the peer a user would pick). (extrapolated): the baseline "
    "time is an estimate, not a measurement, and never a headline."
)


def format_table(results: list[BenchResult]) -> str:
    """A plain-text table of results, one line each, with the legend under it.

    Parameters
    ----------
    results : list of BenchResult
        The rows.

    Returns
    -------
    str
        Aligned columns (★, benchmark, ours, baseline, ratio, goal, extra), then the legend.

    Examples
    --------
    >>> from spectral_kit.bench import BenchResult, format_table
    >>> print(format_table([BenchResult("toy", 0.5, "peer", 2.0, headline=True)]))
    ... # doctest: +ELLIPSIS
       benchmark  ours [s]  baseline  baseline [s]  ratio  goal  extra
    ★  toy        0.5       peer      2             4...
    ★ headline: ...
    """
    header = ("", "benchmark", "ours [s]", "baseline", "baseline [s]", "ratio", "goal", "extra")
    rows = [header]
    for r in results:
        extra = ", ".join(f"{k}={_fmt(v)}" for k, v in r.extra.items())
        ratio = "—" if r.ratio is None else _fmt_ratio(r.ratio)
        base_s = "—" if r.baseline_seconds is None else f"{r.baseline_seconds:.4g}"
        if r.extrapolated and r.baseline_seconds is not None:
            ratio += " (extrapolated)"
            base_s += " (extrapolated)"
        rows.append((
            "★" if r.headline else "",
            r.name,
            f"{r.seconds:.4g}",
            r.baseline or "—",
            base_s,
            ratio,
            r.goal,
            extra,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines = ["  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows]
    return "\n".join([*lines, LEGEND])


def _fmt_ratio(ratio: float) -> str:
    return f"{ratio:.0f}×" if ratio >= 100 else f"{ratio:.3g}×"


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
