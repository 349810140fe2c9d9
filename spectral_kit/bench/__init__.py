"""Benchmarks of the kit, each against a baseline run in the same process.

Run them with ``spectral-kit bench [NAME ...] [--quick] [--save DIR]``. Modules in this
package register themselves with :func:`benchmark`; importing the package imports them all.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._core import BENCHMARKS, BenchResult, benchmark, format_table, peak_memory, timed
from ._store import StoredRun, load_run, save_run

__all__ = [
    "BENCHMARKS",
    "BenchResult",
    "StoredRun",
    "benchmark",
    "format_table",
    "load_run",
    "peak_memory",
    "save_run",
    "timed",
]

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
