"""Benchmarks of the kit, each against a baseline run in the same process.

Run them with ``spectral-kit bench [NAME ...] [--quick]``. Modules in this package register
themselves with :func:`benchmark`; importing the package imports them all.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._core import BENCHMARKS, BenchResult, benchmark, format_table, peak_memory, timed

__all__ = ["BENCHMARKS", "BenchResult", "benchmark", "format_table", "peak_memory", "timed"]

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
