"""Stability based sparse LSI/PCA (Mavroeidis & Vazirgiannis, ECML 2007).

* :func:`bootstrap_intervals` -- percentile/BCa intervals of every covariance or cosine
  entry (Sec. 4.1); :func:`bootstrap_distribution` keeps the resampled values so that other
  confidence levels cost only new quantiles.
* :func:`perturbation_matrix` -- E from the intervals (Example 2).
* :func:`stewart_bound` -- Stewart's theorem for the top-k eigenvector space (Theorem 1).
* :func:`cauchy_interlacing`, :func:`interlacing_bounds` -- Theorem 2 and Corollary 1.
* :func:`lemma1_stable_ks`, :func:`proposition1_rules_out` -- Lemma 1 and Proposition 1.
* :func:`sbs`, :func:`stable_principal_submatrix` -- Algorithm 1 (SbS-LSI / SbS-PCA).
* :func:`stability_report`, :func:`resample_subspace_distances` -- what an interactive view
  recomputes when the confidence level changes, and the distances it compares with.

X is samples × features (the paper's objects × terms); A and E are feature × feature.
"""

from .bootstrap import (
    BootstrapDistribution,
    BootstrapIntervals,
    bootstrap_distribution,
    bootstrap_intervals,
    percentile_interval,
    resample_indices,
    similarity_matrix,
)
from .interlacing import (
    cauchy_interlacing,
    descending_eigenvalues,
    eigengaps,
    interlacing_bounds,
    lemma1_distance_bound,
    lemma1_stable_ks,
    proposition1_rules_out,
)
from .perturbation import (
    StewartBound,
    perturbation_matrix,
    resample_subspace_distances,
    stewart_bound,
    stewart_bounds,
    subspace_distance,
    top_eigenspace,
)
from .report import StabilityReport, stability_report
from .sbs import (
    SbSResult,
    SbSStep,
    retained_fraction,
    sbs,
    sparse_loadings,
    stable_principal_submatrix,
)

__all__ = [
    "BootstrapDistribution",
    "BootstrapIntervals",
    "SbSResult",
    "SbSStep",
    "StabilityReport",
    "StewartBound",
    "bootstrap_distribution",
    "bootstrap_intervals",
    "cauchy_interlacing",
    "descending_eigenvalues",
    "eigengaps",
    "interlacing_bounds",
    "lemma1_distance_bound",
    "lemma1_stable_ks",
    "percentile_interval",
    "perturbation_matrix",
    "proposition1_rules_out",
    "resample_indices",
    "resample_subspace_distances",
    "retained_fraction",
    "sbs",
    "similarity_matrix",
    "sparse_loadings",
    "stability_report",
    "stable_principal_submatrix",
    "stewart_bound",
    "stewart_bounds",
    "subspace_distance",
    "top_eigenspace",
]
