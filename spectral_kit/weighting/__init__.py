"""Variable weighting for dimensionality reduction (Wolf & Bileschi 2005).

Select, then reduce -- with the same criterion in both stages. Every algorithm returns a
:class:`WeightingResult` whose ``alpha`` (non-negative, unit norm) scales feature i by
``√α_i``; PCA or FDA then runs on ``M̃ = diag(√α) M``.

* :func:`pca_weights` -- Algo. 1: Q-α with the full eigen-step on centred, unit-norm rows;
* :func:`parameter_free_weights` -- Algo. 2: leading eigenvector of ``H = (MMᵀ)^∘2``,
  matrix-free (O(nq) memory, 10⁶ features);
* :func:`supervised_weights` -- Algo. 3: leading eigenvector of ``H − λG`` from the
  multi-class kernel FDA of Appendix A;
* :func:`weighted_pca`, :func:`weighted_fda`, :func:`reweight` -- the reduction steps;
* :func:`detectability` -- the Sec. 2 random-matrix condition under which PCA can still see
  the relevant structure.

All functions take ``M`` with features as rows (the papers' n × q).
"""

from .detectability import (
    Detectability,
    critical_irrelevant,
    detectability,
    detectability_threshold,
    relevant_signal,
)
from .reduction import Projection, reweight, weighted_fda, weighted_pca
from .result import WeightingResult, nonnegative_weights
from .supervised import supervised_operators, supervised_weights
from .unsupervised import parameter_free_operator, parameter_free_weights, pca_weights

__all__ = [
    "Detectability",
    "Projection",
    "WeightingResult",
    "critical_irrelevant",
    "detectability",
    "detectability_threshold",
    "nonnegative_weights",
    "parameter_free_operator",
    "parameter_free_weights",
    "pca_weights",
    "relevant_signal",
    "reweight",
    "supervised_operators",
    "supervised_weights",
    "weighted_fda",
    "weighted_pca",
]
