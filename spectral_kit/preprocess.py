"""Row preprocessing of the data matrix M (features as rows).

Wolf & Shashua (2005), Sec. 2.1: "the row vectors of M ... pre-processed such that each row
is centered around zero and is of unit L2 norm".  Every algorithm of the kit that expects
preprocessed rows calls :func:`preprocess_rows`; those that do not say so in their docstring.
"""

from __future__ import annotations

import numpy as np

from .backends.samples import is_sparse
from .validation import check_array, max_abs, unscale

__all__ = ["preprocess_rows", "row_norms", "row_variances", "scaled_row_variances"]


def row_norms(M: np.ndarray) -> np.ndarray:
    """Euclidean norm of every row of ``M``, safe from over- and underflow.

    Each row is divided by its largest ``|entry|`` before squaring (as LAPACK's ``dnrm2``
    does), so rows of entries near 1e±300 get their true norm rather than inf or 0. A norm
    that is itself beyond the float range comes back as inf.

    Parameters
    ----------
    M : array-like or SciPy sparse matrix of shape (n_rows, n_columns)
        Finite values; zero columns are allowed (every norm is then 0). A sparse M is
        never densified.

    Returns
    -------
    ndarray of shape (n_rows,)
        The L2 norm of every row.

    Examples
    --------
    The 3-4-5 triangle at three scales; squaring 3e200 or 3e-200 would over- or underflow:

    >>> import numpy as np
    >>> from spectral_kit.preprocess import row_norms
    >>> row_norms(np.array([[3.0, 4.0], [3e200, 4e200], [3e-200, 4e-200]]))
    array([5.e+000, 5.e+200, 5.e-200])
    """
    if is_sparse(M):
        return _sparse_row_norms(M)
    M = check_array(M, "M", min_cols=0)
    scale = max_abs(M, axis=1) if M.shape[1] else np.zeros(M.shape[0])
    safe = np.where(scale > 0, scale, 1.0)
    with np.errstate(over="ignore"):
        if np.all((safe > 1e-140) & (safe < 1e140)):  # squares cannot over- or underflow
            return np.sqrt(np.einsum("ij,ij->i", M, M))
        R = M / safe[:, None]
        return safe * np.sqrt(np.einsum("ij,ij->i", R, R))


def _sparse_row_norms(M: object) -> np.ndarray:
    """:func:`row_norms` of a SciPy sparse M, from its stored entries."""
    M = M.tocsr(copy=True)
    M.sum_duplicates()
    rows = np.repeat(np.arange(M.shape[0]), np.diff(M.indptr))
    scale = np.zeros(M.shape[0])
    np.maximum.at(scale, rows, np.abs(M.data))
    safe = np.where(scale > 0, scale, 1.0)
    R = M.data / safe[rows]
    return safe * np.sqrt(np.bincount(rows, R * R, minlength=M.shape[0]))


def scaled_row_variances(M: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Variance of every row as ``(v, e)`` with ``var(m_i) = v_i · 4^e_i``, free of over- and
    underflow: each row is divided by a power of two near its max ``|entry|`` first.

    Ratios of variances (``ldexp(v_a / v_b, 2 (e_a − e_b))``) stay exact where the variances
    themselves would leave float64's range.

    Parameters
    ----------
    M : array-like of shape (n_rows, n_columns)
        Finite values.

    Returns
    -------
    v : ndarray of shape (n_rows,)
        The variance of every row after its scaling (population variance, ``ddof=0``).
    e : ndarray of int, shape (n_rows,)
        The binary exponent each row was divided by: ``var(m_i) = v_i · 4^e_i``.

    Examples
    --------
    Two rows whose variances (about 1e600) overflow float64; their ratio does not:

    >>> import numpy as np
    >>> from spectral_kit.preprocess import scaled_row_variances
    >>> v, e = scaled_row_variances(np.array([[1e300, -1e300], [2e300, -2e300]]))
    >>> float(np.ldexp(v[0] / v[1], 2 * (e[0] - e[1])))
    0.25

    At ordinary scales ``v · 4^e`` is NumPy's variance:

    >>> v, e = scaled_row_variances(np.array([[1.0, 3.0, 8.0]]))
    >>> round(float(np.ldexp(v[0], 2 * e[0])), 4), round(float(np.var([1.0, 3.0, 8.0])), 4)
    (8.6667, 8.6667)
    """
    M = check_array(M, "M")
    scale = max_abs(M, axis=1)
    e = np.frexp(np.where(scale > 0, scale, 1.0))[1]
    return np.ldexp(M, -e[:, None]).var(axis=1), e


def row_variances(M: np.ndarray, what: str = "the variances of M's rows") -> np.ndarray:
    """Variance of every row, computed scale-safely; ValueError when one leaves float64.

    Parameters
    ----------
    M : array-like of shape (n_rows, n_columns)
        Finite values.
    what : str
        What the variances are, for the error message.

    Returns
    -------
    ndarray of shape (n_rows,)
        The population variance (``ddof=0``) of every row, as ``M.var(axis=1)``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.preprocess import row_variances
    >>> M = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 10.0]])
    >>> np.round(row_variances(M), 4)
    array([0.6667, 8.    ])
    >>> np.round(M.var(axis=1), 4)
    array([0.6667, 8.    ])

    Entries near 1e-200 have variances near 1e-400, below float64's range, and are refused
    rather than returned as 0:

    >>> row_variances(1e-200 * M)
    Traceback (most recent call last):
    ...
    ValueError: the variances of M's rows underflows float64 ...
    """
    v, e = scaled_row_variances(M)
    return unscale(v, 2 * e, what)


def preprocess_rows(
    M: object,
    *,
    center: bool = True,
    normalize: bool = True,
    name: str = "M",
    min_samples: int = 2,
) -> np.ndarray:
    """Centre each feature row at zero and scale it to unit L2 norm.

    Both steps are invariant to the scale of a row, and they are computed so: each row is
    first divided by its largest ``|entry|`` (a power of two near it, which is exact), so rows
    with entries anywhere in float64's range (1e−300 … 1e308) give the same result as the
    same rows at scale 1.

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

    Examples
    --------
    Two features (rows) seen on three samples (columns): each comes back with mean 0 and
    norm 1, whatever its scale.

    >>> import numpy as np
    >>> from spectral_kit.preprocess import preprocess_rows
    >>> M = np.array([[1.0, 2.0, 3.0], [4.0, 4.0, 10.0]])
    >>> P = preprocess_rows(M)
    >>> np.round(P, 4)
    array([[-0.7071,  0.    ,  0.7071],
           [-0.4082, -0.4082,  0.8165]])
    >>> bool(np.allclose(P.mean(axis=1), 0)), np.round(np.linalg.norm(P, axis=1), 12)
    (True, array([1., 1.]))
    >>> bool(np.allclose(preprocess_rows(1e-250 * M), P))
    True
    """
    M = check_array(
        M, name, min_rows=1, min_cols=min_samples, rows_label="features (rows)",
        cols_label="samples (columns)",
    )
    # Always C order (rows contiguous): the algorithms work row-wise, and the same data then
    # give the same bits whether they arrive as M or as a transposed X.
    if not normalize:
        return np.subtract(M, M.mean(axis=1, keepdims=True), order="C") if center else \
            M.copy(order="C")
    # Rescale each row by a power of two near its max |entry| (exact), so that neither the
    # mean nor the squares of the norm over- or underflow; the result does not depend on it.
    scale = max_abs(M, axis=1)
    exponents = np.frexp(np.where(scale > 0, scale, 1.0))[1]
    # One copy of M is the whole memory cost of preprocessing; the rest happens in place.
    out = np.ldexp(M, -exponents[:, None], order="C")
    if center:
        out -= out.mean(axis=1, keepdims=True)
    norms = np.sqrt(np.einsum("ij,ij->i", out, out))
    refuse_zero_norm_rows(np.flatnonzero((scale == 0) | (norms <= 1e-12)), name, center)
    out /= norms[:, None]
    return out


def refuse_zero_norm_rows(bad: np.ndarray, name: str = "M", center: bool = True) -> None:
    """Raise the ``ValueError`` naming feature rows (indices ``bad``) whose norm is zero after
    centring (or all-zero rows without it): they cannot be scaled to unit norm."""
    if bad.size == 0:
        return
    listed = ", ".join(str(i) for i in bad[:10]) + (" ..." if bad.size > 10 else "")
    what = "constant" if center else "all-zero"
    raise ValueError(
        f"{name} has {bad.size} {what} feature row(s) (row index {listed}): their norm "
        f"is zero{' after centring' if center else ''}, so they cannot be scaled to unit "
        "norm. Remove them first (for example with "
        "sklearn.feature_selection.VarianceThreshold on X = M.T)."
    )
