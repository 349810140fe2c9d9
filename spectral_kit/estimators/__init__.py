"""scikit-learn estimators over the library (X is samples × features here)."""

from __future__ import annotations

import importlib
from typing import Any

from .qalpha import QAlphaSelector

__all__ = ["QAlphaSelector"]

# Estimators of the other papers live in sibling modules and are imported on first use.
_LAZY = {
    "QAlphaSideSelector": ".side_information",
    "SparseLDA": ".sparse_lda",
    "StableSparsePCA": ".stability",
    "WeightedPCA": ".weighting",
    "WeightedFDA": ".weighting",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
