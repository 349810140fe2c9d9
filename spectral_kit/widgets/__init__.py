"""Live explorers: canonical sliders → a library call → plots updated in place.

Every explorer can be displayed in a notebook (it renders as a widget, with a PNG fallback for
static viewers) and driven without a browser: ``PositivityExplorer().update(n=50, mu=0.2)``.
"""

from __future__ import annotations

import importlib
from typing import Any

from .base import Explorer
from .controls import SLIDERS, SliderSpec, make_slider

__all__ = [
    "SLIDERS",
    "Dashboard",
    "DetectabilityExplorer",
    "Explorer",
    "InterlacingExplorer",
    "PositivityExplorer",
    "SideInformationExplorer",
    "SliderSpec",
    "SparsityGapExplorer",
    "StabilityExplorer",
    "make_slider",
]

_LAZY = {
    "Dashboard": ".dashboard",
    "DetectabilityExplorer": ".detectability",
    "PositivityExplorer": ".positivity",
    "SideInformationExplorer": ".sparsity_gap",
    "SparsityGapExplorer": ".sparsity_gap",
    "InterlacingExplorer": ".interlacing",
    "StabilityExplorer": ".stability",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
