"""spectral_kit: spectral feature selection to teach, explore and use.

The library layer implements the algorithms of five papers (see ``spectral_kit.reproduce.PAPERS``):
Q-α and its variants, sparse LDA/PCA with generalized spectral bounds, variable weighting for
PCA/FDA, and stability-based sparse LSI/PCA. Paper-level functions take ``M`` with features
as rows; the scikit-learn estimators take ``X`` with samples as rows.
"""

from __future__ import annotations

import importlib
from typing import Any

from ._lazy import lazy_getattr

__version__ = "0.1.0"

# Public names and the module that defines each; imported on first access so that
# ``import spectral_kit`` stays fast and never pulls in matplotlib or ipywidgets.
_EXPORTS = {
    "q_alpha": ".qalpha",
    "q_alpha_supervised": ".qalpha",
    "QAlphaResult": ".qalpha",
    "kernel_q_alpha": ".qalpha",
    "q_alpha_side": ".qalpha",
    "q_alpha_pairwise": ".qalpha",
    "topographic_map": ".topography",
    "preprocess_rows": ".preprocess",
    "QAlphaSelector": ".estimators",
    "QAlphaSideSelector": ".estimators",
    "SparseLDA": ".estimators",
    "StableSparsePCA": ".estimators",
    "WeightedPCA": ".estimators",
    "WeightedFDA": ".estimators",
    "explore": ".widgets.data_explorer",
}
_SUBMODULES = {
    "baselines", "bench", "datasets", "estimators", "linalg", "metrics", "plots", "preprocess",
    "qalpha", "reproduce", "sparse_lda", "stability", "theory", "topography", "validation",
    "weighting", "widgets",
}

__all__ = sorted(_EXPORTS)


_exported = lazy_getattr(__name__, _EXPORTS)


def __getattr__(name: str) -> Any:
    if name in _SUBMODULES:
        return importlib.import_module(f".{name}", __name__)
    return _exported(name)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS) | _SUBMODULES)
