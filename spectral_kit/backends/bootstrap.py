"""Bootstrap confidence intervals (Mavroeidis & Vazirgiannis, Sec. 4.1) on a Dask X.

X (samples × features) is chunked along samples; every quantity of
:func:`spectral_kit.stability.bootstrap_intervals` is a sum over samples, so each is a
map–reduce over those chunks and only p- and (B × pairs)-sized results come back:

1. column sums, minima and maxima (the full-sample mean and the constant-feature check);
2. the moments every block of pairs needs: ``s``, ``W s`` (or the squared norms) and XᵀX;
3. per block of pairs, the resampled sums ``W Z`` and the jackknife deviation sums
   ``Σ dₜ²``, ``Σ dₜ³`` of BCa's acceleration (for the cosine a further pass first takes the
   mean of the leave-one-out values, which are nearly constant and need exact centring).

The resample counts W (B × n) are drawn in this process exactly as the NumPy path draws them,
so both give the same intervals; X's rows are never gathered.
"""

from __future__ import annotations

from functools import reduce as _fold
from typing import Any

import numpy as np

from . import require_extra, type_name

__all__ = ["bootstrap_intervals"]


def _add(a: Any, b: Any) -> Any:
    if isinstance(a, tuple):
        return tuple(x + y for x, y in zip(a, b))
    return a + b


def _sum_parts(*parts: Any) -> Any:
    return _fold(_add, parts)


def _mapreduce(func: Any, X: Any, counts: Any = None, **kwargs: Any) -> Any:
    import dask
    from dask import delayed

    xb = X.to_delayed().ravel()
    cb = counts.to_delayed().ravel() if counts is not None else [None] * len(xb)
    parts = [delayed(func, pure=True)(x, c, **kwargs) for x, c in zip(xb, cb)]
    while len(parts) > 1:
        parts = [delayed(_sum_parts, pure=True)(*parts[i : i + 8])
                 for i in range(0, len(parts), 8)]
    return dask.compute(parts[0])[0]


def _scan(Xc: np.ndarray, _: Any) -> tuple:
    Xc = np.asarray(Xc, dtype=np.float64)
    finite = np.isfinite(Xc)
    return (Xc.sum(axis=0), np.array([float(np.size(Xc) - np.count_nonzero(finite))]),
            Xc.shape[0])


def _extremes(Xc: np.ndarray, _: Any) -> tuple:
    Xc = np.asarray(Xc, dtype=np.float64)
    return Xc.max(axis=0), -Xc.min(axis=0)


def _prepared(Xc: Any, mean: np.ndarray | None) -> np.ndarray:
    Xc = np.asarray(Xc, dtype=np.float64)
    return Xc - mean if mean is not None else Xc


def _moments(Xc: Any, Cc: np.ndarray, *, mean: np.ndarray | None, cosine: bool) -> tuple:
    Xs = _prepared(Xc, mean)
    base = Xs * Xs if cosine else Xs
    return base.sum(axis=0), Cc @ base, Xs.T @ Xs


def _inverse_sqrt(values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    positive = values > 0
    out[positive] = 1.0 / np.sqrt(values[positive])
    return out


def _loo(Xs: np.ndarray, r: np.ndarray, c: np.ndarray, S: np.ndarray, N: np.ndarray) -> Any:
    sq = Xs * Xs
    inv_loo = _inverse_sqrt(N - sq)
    loo = (S - Xs[:, r] * Xs[:, c]) * inv_loo[:, r] * inv_loo[:, c]
    loo[:, r == c] = 1.0
    return loo


def _pairs_first(Xc: Any, Cc: np.ndarray, *, mean: Any, r: Any, c: Any, cosine: bool,
                 S: Any, N: Any, s: Any, n: int) -> tuple:
    """``W Z`` and, for the covariance, the deviation sums; for the cosine, Σ of the
    leave-one-out values."""
    Xs = _prepared(Xc, mean)
    Z = Xs[:, r] * Xs[:, c]
    Sb = Cc @ Z
    if cosine:
        return Sb, _loo(Xs, r, c, S, N).sum(axis=0)
    g = Z * (n / (n - 1)) - Xs[:, c] * (s[r] / (n - 1)) - Xs[:, r] * (s[c] / (n - 1))
    g_mean = (S * (n / (n - 1)) - 2.0 * s[r] * s[c] / (n - 1)) / n
    d = g - g_mean
    return Sb, np.einsum("ij,ij->j", d, d), np.einsum("ij,ij,ij->j", d, d, d)


def _pairs_second(Xc: Any, _: Any, *, r: Any, c: Any, S: Any, N: Any, loo_mean: Any) -> tuple:
    """Deviation sums of the cosine's leave-one-out values, θ̄ − θ₍ₜ₎."""
    d = loo_mean - _loo(_prepared(Xc, None), r, c, S, N)
    return np.einsum("ij,ij->j", d, d), np.einsum("ij,ij,ij->j", d, d, d)


def bootstrap_intervals(
    X: Any,
    statistic: str = "covariance",
    method: str = "bca",
    n_resamples: int = 1000,
    confidence: float = 0.9,
    random_state: object = None,
    *,
    resamples: object = None,
    quantile_method: str = "linear",
    memory_limit: int = 256 * 2**20,
) -> Any:
    """:func:`spectral_kit.stability.bootstrap_intervals` for a Dask X chunked along samples.

    Same parameters, same resamples for the same ``random_state``, same result type.
    """
    import dask.array as da

    from ..stability.bootstrap import (
        METHODS,
        QUANTILE_METHODS,
        STATISTICS,
        BootstrapIntervals,
        _fill_symmetric,
        _interval_columns,
        _resample_counts,
    )
    from ..validation import (
        check_choice,
        check_int,
        check_nonconstant_rows,
        check_probability,
    )

    if type(X).__module__.split(".")[0] != "dask":
        raise TypeError(
            f"X is a {type_name(X)}; bootstrap_intervals accepts NumPy and Dask arrays only: "
            "pass numpy.asarray(X) (X.cpu().numpy() for PyTorch, X.get() for CuPy)."
        )
    require_extra("dask")
    statistic = check_choice(statistic, "statistic", STATISTICS)
    method = check_choice(method, "method", METHODS)
    confidence = check_probability(confidence, "confidence")
    quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
    memory_limit = check_int(memory_limit, "memory_limit", low=1)
    if X.ndim != 2:
        raise ValueError(f"X must be a 2-D array; got a Dask array of shape {X.shape}.")
    if len(X.chunks[1]) != 1:
        raise ValueError(
            f"X is chunked along features (columns): chunks {X.chunksize} give "
            f"{len(X.chunks[1])} column chunks. Every chunk must hold whole samples; rechunk "
            "with X = X.rechunk({0: 'auto', 1: -1})."
        )
    n, p = (int(v) for v in X.shape)
    if n < 3:
        raise ValueError(f"X must have at least 3 samples (rows); got shape {(n, p)}.")
    cosine = statistic == "cosine"
    sums, n_bad, _ = _mapreduce(_scan, X)
    if n_bad[0]:
        raise ValueError(
            f"X contains {int(n_bad[0])} NaN or infinite value(s); remove or impute them first."
        )
    high, neg_low = _mapreduce(_extremes, X)
    check_nonconstant_rows(np.stack([-neg_low, high], axis=1), "X", what="feature",
                           centered=not cosine)
    mean = None if cosine else sums / n
    counts = _resample_counts(n, n_resamples, random_state, resamples)
    B = counts.shape[0]
    W = da.from_array(counts, chunks=(B, X.chunks[0]))
    base, base_b, XtX = _mapreduce(_moments, X, W, mean=mean, cosine=cosine)
    if cosine:
        inv, inv_b = _inverse_sqrt(base), _inverse_sqrt(base_b)
    rows, cols = np.triu_indices(p)
    lower, upper, estimate = np.empty((p, p)), np.empty((p, p)), np.empty((p, p))
    chunk = max(X.chunks[0])
    block = max(1, memory_limit // (8 * (6 * chunk + 4 * B)))
    n_fallback = 0
    for start in range(0, rows.size, block):
        r, c = rows[start : start + block], cols[start : start + block]
        S = XtX[r, c]
        common = {"r": r, "c": c, "S": S, "N": base if cosine else None}
        if cosine:
            Sb, loo_sum = _mapreduce(_pairs_first, X, W, mean=None, cosine=True, s=None, n=n,
                                     **common)
            d2, d3 = _mapreduce(_pairs_second, X, loo_mean=loo_sum / n, **common)
            values = Sb * inv_b[:, r] * inv_b[:, c]
            est = S * inv[r] * inv[c]
            diagonal = r == c
            values[:, diagonal] = 1.0
            est[diagonal] = 1.0
        else:
            Sb, d2, d3 = _mapreduce(_pairs_first, X, W, mean=mean, cosine=False, s=base, n=n,
                                    **common)
            values = (Sb - base_b[:, r] * base_b[:, c] / n) / (n - 1)
            est = (S - base[r] * base[c] / n) / (n - 1)
        with np.errstate(divide="ignore", invalid="ignore"):
            accel = np.where(d2 > 0, d3 / (6.0 * d2**1.5), 0.0)
        values.sort(axis=0)
        low, high_, nf = _interval_columns(values, est, accel, confidence, method,
                                           quantile_method)
        n_fallback += nf
        _fill_symmetric(lower, r, c, low)
        _fill_symmetric(upper, r, c, high_)
        _fill_symmetric(estimate, r, c, est)
    return BootstrapIntervals(lower, upper, estimate, statistic, method, confidence, B,
                              n_fallback)
