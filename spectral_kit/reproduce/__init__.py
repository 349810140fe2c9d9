"""Reproductions of the papers' figures and tables, our numbers beside the published ones.

Modules in this package register functions with :func:`reproduction`; importing the package
imports them all, so :data:`REGISTRY` lists every reproduction the kit has.
"""

from __future__ import annotations

import importlib
import pkgutil

from ._core import PAPERS, REGISTRY, Comparison, Reproduction, compare, reproduction

__all__ = ["PAPERS", "REGISTRY", "Comparison", "Reproduction", "compare", "reproduction"]

for _info in pkgutil.iter_modules(__path__):
    if not _info.name.startswith("_"):
        importlib.import_module(f"{__name__}.{_info.name}")
