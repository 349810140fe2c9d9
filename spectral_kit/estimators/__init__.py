"""scikit-learn estimators over the library (X is samples × features here)."""

from __future__ import annotations

from .._lazy import lazy_getattr
from .qalpha import QAlphaSelector

# Estimators of the other papers live in sibling modules and are imported on first use.
_LAZY = {
    "QAlphaSideSelector": ".side_information",
    "SparseLDA": ".sparse_lda",
    "StableSparsePCA": ".stability",
    "WeightedPCA": ".weighting",
    "WeightedFDA": ".weighting",
}

__all__ = ["QAlphaSelector", *_LAZY]

__getattr__ = lazy_getattr(__name__, _LAZY)
