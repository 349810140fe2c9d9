"""Reproductions of the papers' figures and tables, our numbers beside the published ones.

Modules in this package register functions with :func:`reproduction`; importing the package
imports them all, so :data:`REGISTRY` lists every reproduction the kit has.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._core import (
    KINDS,
    PAPERS,
    QUOTES,
    REGISTRY,
    VERDICT_RULES,
    VERDICTS,
    Comparison,
    Quote,
    Reproduction,
    compare,
    compare_claim,
    compare_claim_band,
    mean_ci,
    median_ci,
    proportion_ci,
    quote,
    reproduction,
    verdict_counts,
)

__all__ = [
    "KINDS", "PAPERS", "QUOTES", "REGISTRY", "VERDICTS", "VERDICT_RULES", "Comparison", "Quote",
    "Reproduction", "compare", "compare_claim", "compare_claim_band", "load_reference",
    "mean_ci", "median_ci", "proportion_ci", "quote", "reproduction", "show", "verdict_counts",
]

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")

from .reference import load_reference, show  # noqa: E402 - after the modules register
