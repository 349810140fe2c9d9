"""Benchmarks: our implementation against a baseline run in the same process.

A benchmark module registers ``run(quick: bool) -> list[BenchResult]`` with :func:`benchmark`.
Benchmarks are not tests: they print times and ratios (``spectral-kit bench``); tests check
correctness.
"""

from __future__ import annotations

import gc
import time
import tracemalloc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BENCHMARKS", "BenchResult", "benchmark", "format_table", "peak_memory", "timed"]


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
        What we compare with (e.g. "dense G + scipy.linalg.eigh").
    baseline_seconds : float or None
    goal : str
        The target stated in the issue/papers, e.g. "ratio ≥ 100" or "< 60 s".
    extra : dict
        Other measured numbers (peak memory, iterations, nodes expanded, ...).
    extrapolated : bool
        Whether ``baseline_seconds`` is an estimate scaled up from a partial run rather than
        a measured time (never a headline row).
    """

    name: str
    seconds: float
    baseline: str | None = None
    baseline_seconds: float | None = None
    goal: str = ""
    extra: dict = field(default_factory=dict)
    extrapolated: bool = False

    @property
    def ratio(self) -> float | None:
        """Baseline time ÷ our time (> 1 means we are faster)."""
        if self.baseline_seconds is None or self.seconds <= 0:
            return None
        return self.baseline_seconds / self.seconds


def timed(func: Callable[[], Any], *, repeat: int = 1) -> tuple[float, Any]:
    """Best wall time of ``repeat`` calls, and the last result."""
    best, result = float("inf"), None
    for _ in range(repeat):
        gc.collect()
        start = time.perf_counter()
        result = func()
        best = min(best, time.perf_counter() - start)
    return best, result


def peak_memory(func: Callable[[], Any]) -> tuple[int, float, Any]:
    """Peak bytes allocated through Python/NumPy while ``func`` runs, its time, its result.

    Uses :mod:`tracemalloc`, which sees NumPy's array buffers; memory held before the call
    (the input data) is not counted.
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
    """Register ``run(quick: bool) -> list[BenchResult]`` under ``name``."""

    def decorate(func: Callable[[bool], list[BenchResult]]) -> Callable:
        BENCHMARKS[name] = func
        return func

    return decorate


def format_table(results: list[BenchResult]) -> str:
    """A plain-text table of results, one line each."""
    header = ("benchmark", "ours [s]", "baseline", "baseline [s]", "ratio", "goal", "extra")
    rows = [header]
    for r in results:
        extra = ", ".join(f"{k}={_fmt(v)}" for k, v in r.extra.items())
        rows.append((
            r.name,
            f"{r.seconds:.4g}",
            r.baseline or "—",
            "—" if r.baseline_seconds is None else f"{r.baseline_seconds:.4g}",
            "—" if r.ratio is None else f"{r.ratio:.1f}×",
            r.goal,
            extra,
        ))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    return "\n".join("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip() for row in rows)


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)
