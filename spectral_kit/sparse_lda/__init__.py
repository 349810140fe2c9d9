"""Sparse LDA and sparse PCA with generalized spectral bounds (Moghaddam, Weiss & Avidan 2006).

Sparse LDA maximizes the generalized Rayleigh quotient xᵀAx / xᵀBx over vectors with k
non-zero entries (Eq. 3); sparse PCA is the case B = I. The optimum is λ_max(A_S, B_S) of the
best k-subset S (Prop. 1), which makes the problem a discrete search over supports, bounded by
the generalized inclusion principle (Thm. 1, Eq. 8).

* Spectrum and bounds: :func:`rayleigh_quotient`, :func:`generalized_spectrum`,
  :func:`inclusion_bounds`, :func:`interlacing`, :func:`subproblem_value`, :func:`renormalize`.
* Algorithms: :func:`simple_threshold` (ST + renormalization fix), :func:`pearson_ranking`,
  :func:`greedy_forward`, :func:`greedy_backward`, :func:`gslda`, :func:`eslda`,
  :func:`exhaustive`.
* Bounds of the exact search, each with its proof: :mod:`spectral_kit.sparse_lda.bounds`
  and :mod:`spectral_kit.sparse_lda.perspective`; the ℓ₁ (DSPCA) relaxation's bound, which
  the search solves at the root of searches that do not end quickly:
  :func:`relaxation_bound`, and how low that bound can ever go (a feasible point of its
  relaxation): :func:`relaxation_floor`; the search on several worker processes
  (``eslda(..., n_jobs=-1)``): :mod:`spectral_kit.sparse_lda.parallel`; how many nodes
  a certificate would take (Knuth's estimate): :func:`estimate_tree_size`.
* Curves for k = 1, …, n inside the bounds: :func:`sparsity_curves`; the Monte Carlo of
  Fig. 1 in batches: :func:`monte_carlo_batch`.
* Data: :func:`scatter_matrices`, :func:`random_pair`; within-class regularization
  :func:`regularize` (B ← B + εI, ε reported by every result).

Paper-level functions take the pair (A, B) (n × n over the n features) or, for data, X with
samples as rows, as the paper writes them.
"""

from .branch_bound import DEFAULT_GAP, ESLDASearch, eslda
from .curves import SparsityCurves, sparsity_curves
from .data import (
    RandomPair,
    ScatterMatrices,
    fbm_covariance,
    random_pair,
    scatter_matrices,
)
from .exhaustive import exhaustive, exhaustive_path
from .greedy import greedy_backward, greedy_forward, gslda, nested_path
from .lda import LinearDiscriminant, discriminant_errors, fit_discriminant
from .montecarlo import MonteCarloBatch, monte_carlo_batch
from .pair import AUTO_FACTOR, MatrixPair, auto_epsilon, check_pair, rank_one_factor, regularize
from .relaxation import RelaxationBound, relaxation_bound
from .relaxation_floor import RelaxationFloor, relaxation_floor
from .results import (
    ESLDAResult,
    GSLDAPath,
    InclusionBounds,
    Interlacing,
    NestedPath,
    SparseDiscriminant,
    SparsePath,
    TreeSizeEstimate,
)
from .spectrum import (
    generalized_spectrum,
    inclusion_bounds,
    interlacing,
    interlacing_bounds,
    rayleigh_quotient,
    renormalize,
    subproblem_value,
)
from .thresholding import (
    Ranking,
    pearson_ranking,
    simple_threshold,
    simple_threshold_path,
    threshold_loadings,
)
from .tree_size import estimate_tree_size

__all__ = [
    "AUTO_FACTOR",
    "DEFAULT_GAP",
    "ESLDAResult",
    "ESLDASearch",
    "GSLDAPath",
    "InclusionBounds",
    "Interlacing",
    "LinearDiscriminant",
    "MatrixPair",
    "MonteCarloBatch",
    "NestedPath",
    "RandomPair",
    "Ranking",
    "RelaxationBound",
    "RelaxationFloor",
    "ScatterMatrices",
    "SparseDiscriminant",
    "SparsePath",
    "SparsityCurves",
    "TreeSizeEstimate",
    "auto_epsilon",
    "check_pair",
    "discriminant_errors",
    "eslda",
    "estimate_tree_size",
    "exhaustive",
    "exhaustive_path",
    "fbm_covariance",
    "fit_discriminant",
    "generalized_spectrum",
    "greedy_backward",
    "greedy_forward",
    "gslda",
    "inclusion_bounds",
    "interlacing",
    "interlacing_bounds",
    "monte_carlo_batch",
    "nested_path",
    "pearson_ranking",
    "random_pair",
    "rank_one_factor",
    "rayleigh_quotient",
    "regularize",
    "relaxation_bound",
    "relaxation_floor",
    "renormalize",
    "scatter_matrices",
    "simple_threshold",
    "simple_threshold_path",
    "sparsity_curves",
    "subproblem_value",
    "threshold_loadings",
]
