"""Live explorers: canonical sliders → a library call → plots updated in place.

Every explorer can be displayed in a notebook (it renders as a widget, with a PNG fallback for
static viewers) and driven without a browser: ``PositivityExplorer().update(n=50, mu=0.2)``.
"""

from __future__ import annotations

from .._lazy import lazy_getattr
from .base import Explorer
from .controls import SLIDERS, SliderSpec, make_slider

__all__ = [
    "SLIDERS",
    "Dashboard",
    "DataExplorer",
    "DetectabilityExplorer",
    "Explorer",
    "InterlacingExplorer",
    "PositivityExplorer",
    "SideInformationExplorer",
    "SliderSpec",
    "SparsityGapExplorer",
    "StabilityExplorer",
    "explore",
    "make_slider",
]

_LAZY = {
    "Dashboard": ".dashboard",
    "DataExplorer": ".data_explorer",
    "explore": ".data_explorer",
    "DetectabilityExplorer": ".detectability",
    "PositivityExplorer": ".positivity",
    "SideInformationExplorer": ".sparsity_gap",
    "SparsityGapExplorer": ".sparsity_gap",
    "InterlacingExplorer": ".interlacing",
    "StabilityExplorer": ".stability",
}

__getattr__ = lazy_getattr(__name__, _LAZY)
