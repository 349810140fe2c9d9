"""Percentile and BCa endpoints from sorted bootstrap values, column by column.

The formulas are those of :func:`scipy.stats.bootstrap` -- the percentile rank of the estimate
(``z₀``), the acceleration, the adjusted levels (Efron & Tibshirani 1993, eq. 14.10) and the
Hyndman–Fan quantiles -- so that, given the same resamples, the intervals agree with it entry
by entry. The sorted values may live in any array namespace (a GPU's included); only
m-sized vectors (ranks, levels, the two endpoints) come back to the host.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..backends.samples import namespace_of, to_host

__all__ = ["bca_levels", "interval_columns", "quantile_sorted"]


def interval_columns(
    sorted_values: Any,
    estimate: np.ndarray,
    acceleration: np.ndarray,
    confidence: float,
    method: str,
    quantile_method: str,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Lower and upper endpoints of each column's interval, and the number of BCa fallbacks.

    ``sorted_values`` is (B × m), sorted within each column; ``estimate`` and
    ``acceleration`` are NumPy m-vectors.
    """
    alpha = (1 - confidence) / 2
    m = sorted_values.shape[1]
    if method == "percentile":
        a1, a2 = np.full(m, alpha), np.full(m, 1 - alpha)
        n_fallback = 0
    else:
        a1, a2 = bca_levels(sorted_values, estimate, acceleration, alpha)
        bad = ~(np.isfinite(a1) & np.isfinite(a2))
        n_fallback = int(bad.sum())
        a1[bad], a2[bad] = alpha, 1 - alpha
    return (
        quantile_sorted(sorted_values, a1, quantile_method),
        quantile_sorted(sorted_values, a2, quantile_method),
        n_fallback,
    )


def bca_levels(
    sorted_values: Any, estimate: np.ndarray, acceleration: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa's adjusted levels α₁, α₂ (Efron & Tibshirani 1993, eq. 14.10).

    ``z₀`` counts the bootstrap values below the estimate, ties as one half. A value within
    rounding (10⁻¹² of the column's scale) of the estimate counts as a tie: on sparse data
    many resamples reproduce the estimate exactly in exact arithmetic (every resample that
    draws each sample where a rare feature occurs once), and which side of it rounding puts
    them must not move the interval.
    """
    xp = namespace_of(sorted_values)
    B = sorted_values.shape[0]
    ends = np.abs(to_host(sorted_values[0, ...])), np.abs(to_host(sorted_values[B - 1, ...]))
    tol = 1e-12 * np.maximum(np.abs(estimate), np.maximum(*ends))
    low, high = estimate - tol, estimate + tol
    if xp is np:
        below = (sorted_values < low).sum(axis=0) + (sorted_values <= high).sum(axis=0)
    else:
        dev = _device(sorted_values)
        low, high = (xp.asarray(v, dtype=sorted_values.dtype, device=dev) for v in (low, high))
        below = to_host(xp.sum(xp.astype(sorted_values < low, xp.int64), axis=0)
                        + xp.sum(xp.astype(sorted_values <= high, xp.int64), axis=0))
    z0 = ndtri(below / (2 * B))
    z_alpha = float(ndtri(alpha))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        num1 = z0 + z_alpha
        num2 = z0 - z_alpha
        a1 = ndtr(z0 + num1 / (1 - acceleration * num1))
        a2 = ndtr(z0 + num2 / (1 - acceleration * num2))
    return a1, a2


def quantile_sorted(sorted_values: Any, prob: np.ndarray, method: str) -> np.ndarray:
    """Quantile ``prob[j]`` of column j of an already sorted (B × m) array, as NumPy.

    Hyndman & Fan (1996): position ``jg = B·p + m`` with ``m = 1 − p`` (type 7, "linear") or
    ``m = 0`` (type 1, "inverted_cdf"), interpolating between neighbouring order statistics.
    """
    B, m = sorted_values.shape
    jg = prob * B + ((1 - prob) if method == "linear" else 0.0)
    jp1 = np.floor(jg)
    j = jp1 - 1
    g = jg % 1
    if method == "inverted_cdf":
        g = (g > 0).astype(np.float64)
        g[jg < 0] = 0.0
    g[j < 0] = 0.0
    j = np.clip(j, 0, B - 1).astype(np.intp)
    jp1 = np.clip(jp1, 0, B - 1).astype(np.intp)
    cols = np.arange(m)
    xp = namespace_of(sorted_values)
    if xp is np:
        low, high = sorted_values[j, cols], sorted_values[jp1, cols]
    else:
        flat = xp.reshape(sorted_values, (-1,))
        dev = _device(sorted_values)
        low = to_host(xp.take(flat, xp.asarray(j * m + cols, device=dev)))
        high = to_host(xp.take(flat, xp.asarray(jp1 * m + cols, device=dev)))
    return (1 - g) * low + g * high


def _device(x: Any) -> Any:
    from array_api_compat import device

    return device(x)
