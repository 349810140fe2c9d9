"""Row preprocessing of the data matrix M (features as rows).

Wolf & Shashua (2005), Sec. 2.1: "the row vectors of M ... pre-processed such that each row
is centered around zero and is of unit L2 norm".  Every algorithm of the kit that expects
preprocessed rows calls :func:`preprocess_rows`; those that do not say so in their docstring.
"""

from __future__ import annotations

import numpy as np

from .validation import check_array

__all__ = ["preprocess_rows", "row_norms"]


def row_norms(M: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row of ``M`` (computed without forming ``M**2``)."""
    return np.sqrt(np.einsum("ij,ij->i", M, M))


def preprocess_rows(
    M: object,
    *,
    center: bool = True,
    normalize: bool = True,
    name: str = "M",
    min_samples: int = 2,
) -> np.ndarray:
    """Centre each feature row at zero and scale it to unit L2 norm.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        The data matrix in the papers' convention (features as rows). Not modified.
    center : bool
        Subtract each row's mean (Sec. 2.1 of Wolf & Shashua 2005).
    normalize : bool
        Divide each row by its L2 norm after centring.
    name : str
        Argument name used in error messages.
    min_samples : int
        Smallest allowed number of columns (samples).

    Returns
    -------
    ndarray of shape (n_features, n_samples)
        A new float64 array; the input is never modified.

    Raises
    ------
    ValueError
        On NaN/inf, fewer than ``min_samples`` samples, or a row that has zero norm after
        centring (a constant feature), which cannot be normalised.
    """
    M = check_array(
        M, name, min_rows=1, min_cols=min_samples, rows_label="features (rows)",
        cols_label="samples (columns)",
    )
    # One copy of M is the whole memory cost of preprocessing; the rest happens in place.
    out = M - M.mean(axis=1, keepdims=True) if center else M.copy()
    if normalize:
        norms = row_norms(out)
        # max |m_ij| per row without an |M| temporary of the size of M
        scale = np.maximum(M.max(axis=1), -M.min(axis=1))
        bad = np.flatnonzero(norms <= 1e-12 * np.maximum(scale, np.finfo(float).tiny))
        if bad.size:
            listed = ", ".join(str(i) for i in bad[:10]) + (" ..." if bad.size > 10 else "")
            what = "constant" if center else "all-zero"
            raise ValueError(
                f"{name} has {bad.size} {what} feature row(s) (row index {listed}): their norm "
                f"is zero{' after centring' if center else ''}, so they cannot be scaled to unit "
                "norm. Remove them first (for example with "
                "sklearn.feature_selection.VarianceThreshold on X = M.T)."
            )
        out /= norms[:, None]
    return out
