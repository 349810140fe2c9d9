"""Synthetic generators of the papers and loaders of the real data sets they use."""

from .real import (
    DATA_FILES,
    RealData,
    data_home,
    fetch_file,
    load_colon,
    load_dataset,
    load_dermatology,
    load_ecoli,
    load_ionosphere,
    load_segmentation,
    load_sonar,
    load_spambase,
)
from .synthetic import (
    SyntheticData,
    make_ben_dor,
    make_multiclass_clusters,
    make_weston_linear,
    make_weston_nonlinear,
    permute_columns,
)

__all__ = [
    "DATA_FILES",
    "RealData",
    "SyntheticData",
    "data_home",
    "fetch_file",
    "load_colon",
    "load_dataset",
    "load_dermatology",
    "load_ecoli",
    "load_ionosphere",
    "load_segmentation",
    "load_sonar",
    "load_spambase",
    "make_ben_dor",
    "make_multiclass_clusters",
    "make_weston_linear",
    "make_weston_nonlinear",
    "permute_columns",
]
