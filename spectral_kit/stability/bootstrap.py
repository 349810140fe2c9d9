"""Bootstrap confidence intervals for every entry of a covariance or cosine matrix.

Mavroeidis & Vazirgiannis (Sec. 2.2 and 4.1) measure the statistical accuracy of each
feature–feature similarity (LSI: cosine) or covariance (PCA) by a bootstrap confidence
interval, percentile or BCa (Efron & Tibshirani 1993, Ch. 13–14), from 1000 resamples.

How it is computed
------------------
* A resample is a vector of counts ``w`` (how often each sample is drawn), so every entry of
  every resampled matrix is a weighted sum ``Σₜ wₜ xₜᵢ xₜⱼ``. With the products of a block of
  feature pairs as the columns of ``Z`` (samples × pairs), all resamples of the whole block are
  one matrix product ``W Z`` (resamples × samples times samples × pairs).
* BCa's acceleration needs the n leave-one-out (jackknife) statistics. Removing sample t from
  ``XᵀX`` is the rank-one downdate ``XᵀX − xₜxₜᵀ``, so all n leave-one-out values of a pair are
  read off ``Z`` in O(n) instead of n refits of O(n) each.
* Feature pairs are processed in blocks sized by ``memory_limit``, so p features never need
  the p²·B bootstrap values at once.

The interval formulas (the percentile rank of the estimate, ``z₀``, the acceleration, the
adjusted levels and the Hyndman–Fan quantiles) are those of :func:`scipy.stats.bootstrap`,
so that, given the same resamples, the intervals agree with it entry by entry.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from scipy.special import ndtr, ndtri

from ..backends import array_kind
from ..validation import (
    as_generator,
    check_array,
    check_choice,
    check_int,
    check_memory,
    check_nonconstant_rows,
    check_probability,
    max_abs,
    scale_exponent,
    unscale,
)

__all__ = [
    "METHODS",
    "QUANTILE_METHODS",
    "STATISTICS",
    "BootstrapDistribution",
    "BootstrapIntervals",
    "bootstrap_distribution",
    "bootstrap_intervals",
    "percentile_interval",
    "resample_indices",
    "similarity_matrix",
]

STATISTICS = ("covariance", "cosine")
METHODS = ("percentile", "bca")
#: ``"linear"`` is SciPy's default; ``"inverted_cdf"`` takes the ⌈Bα⌉-th ordered value, the
#: percentile interval as Efron & Tibshirani (1993, Sec. 13.3) and the paper's Example 1 use it.
QUANTILE_METHODS = ("linear", "inverted_cdf")

#: Default bound on the working memory of one block of feature pairs (bytes).
DEFAULT_MEMORY_LIMIT = 256 * 2**20


@dataclass(frozen=True)
class BootstrapIntervals:
    """Confidence intervals for every entry of the p × p matrix A.

    Unpacks as ``lower, upper = bootstrap_intervals(...)``.

    Attributes
    ----------
    lower, upper : ndarray of shape (p, p)
        Interval endpoints, symmetric like A.
    estimate : ndarray of shape (p, p)
        A itself: the covariance or cosine matrix of the full sample.
    statistic : str
        ``"covariance"`` or ``"cosine"``.
    method : str
        ``"percentile"`` or ``"bca"``.
    confidence : float
        Coverage of each interval.
    n_resamples : int
    n_fallback : int
        Entries (i ≤ j) whose BCa interval is undefined -- the estimate lies outside the
        range of its bootstrap values, so ``z₀`` is infinite -- and that received the
        percentile interval instead. SciPy returns NaN for these.
    """

    lower: np.ndarray
    upper: np.ndarray
    estimate: np.ndarray
    statistic: str
    method: str
    confidence: float
    n_resamples: int
    n_fallback: int = 0

    def __iter__(self) -> Iterator[np.ndarray]:
        return iter((self.lower, self.upper))

    def __len__(self) -> int:
        return 2

    def __getitem__(self, index: int) -> np.ndarray:
        return (self.lower, self.upper)[index]

    @property
    def width(self) -> np.ndarray:
        """``upper − lower`` for every entry."""
        return self.upper - self.lower


@dataclass(frozen=True)
class BootstrapDistribution:
    """All bootstrap values of all entries, kept so that intervals can be recomputed cheaply.

    Changing the confidence level or the method only needs new quantiles of the stored
    values, not new resamples; this is what an interactive explorer caches. Holds
    ``B · p(p+1)/2`` numbers: use :func:`bootstrap_intervals` for many features.

    Attributes
    ----------
    estimate : ndarray of shape (p, p)
        The statistic on the full sample (the paper's A).
    values : ndarray of shape (B, p(p+1)/2)
        Bootstrap values of the entries ``(rows[m], cols[m])``, in resample order.
    sorted_values : ndarray of shape (B, p(p+1)/2)
        The same, sorted within each column.
    acceleration : ndarray of shape (p(p+1)/2,)
        BCa acceleration of each entry, from the leave-one-out values.
    rows, cols : ndarray of int
        The upper-triangle entry of each column (``numpy.triu_indices(p)`` order).
    statistic : str
    """

    estimate: np.ndarray
    values: np.ndarray
    sorted_values: np.ndarray
    acceleration: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    statistic: str

    @property
    def n_resamples(self) -> int:
        return int(self.values.shape[0])

    @property
    def n_features(self) -> int:
        return int(self.estimate.shape[0])

    def intervals(
        self,
        confidence: float = 0.9,
        method: str = "bca",
        *,
        quantile_method: str = "linear",
    ) -> BootstrapIntervals:
        """Percentile or BCa intervals at ``confidence`` from the stored values."""
        confidence = check_probability(confidence, "confidence")
        method = check_choice(method, "method", METHODS)
        quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
        est = self.estimate[self.rows, self.cols]
        low, high, n_fallback = _interval_columns(
            self.sorted_values, est, self.acceleration, confidence, method, quantile_method
        )
        p = self.n_features
        lower, upper = np.empty((p, p)), np.empty((p, p))
        _fill_symmetric(lower, self.rows, self.cols, low)
        _fill_symmetric(upper, self.rows, self.cols, high)
        return BootstrapIntervals(
            lower, upper, self.estimate.copy(), self.statistic, method, confidence,
            self.n_resamples, n_fallback,
        )

    def matrices(self, which: Any = None) -> np.ndarray:
        """The resampled matrices ``A*_b`` (b in ``which``, default all) as (b, p, p)."""
        vals = self.values if which is None else self.values[np.asarray(which)]
        p = self.n_features
        out = np.empty((vals.shape[0], p, p))
        out[:, self.rows, self.cols] = vals
        out[:, self.cols, self.rows] = vals
        return out


def similarity_matrix(X: object, statistic: str = "covariance") -> np.ndarray:
    """The paper's A for data X (samples × features): covariance (PCA) or cosine (LSI).

    The covariance uses the ``n − 1`` denominator; the cosine similarity of features i and j
    is ``xᵢᵀxⱼ / (‖xᵢ‖ ‖xⱼ‖)`` on the raw (uncentred) columns, as in LSI (Sec. 2.1).
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    Xs, e = _prepared(X, statistic)
    n = Xs.shape[0]
    check_memory(8.0 * Xs.shape[1] ** 2, f"the {Xs.shape[1]} × {Xs.shape[1]} {statistic} "
                 "matrix of X's features", hint="Select fewer features of X first.")
    if statistic == "covariance":
        s = Xs.sum(axis=0)
        A = (Xs.T @ Xs - np.outer(s, s) / n) / (n - 1)
    else:
        norms = np.sqrt(np.einsum("ij,ij->j", Xs, Xs))
        A = (Xs.T @ Xs) / np.outer(norms, norms)
        np.fill_diagonal(A, 1.0)
    return unscale(0.5 * (A + A.T), e, "the covariance of X")


def resample_indices(n_samples: int, n_resamples: int, random_state: object = None) -> np.ndarray:
    """Bootstrap resamples as a (n_resamples, n_samples) array of sample indices.

    Drawn as ``rng.integers(0, n_samples, (n_resamples, n_samples))`` in one call -- the same
    draw :func:`scipy.stats.bootstrap` makes from the same Generator with ``batch=None``.
    """
    n_samples = check_int(n_samples, "n_samples", low=3)
    n_resamples = check_int(n_resamples, "n_resamples", low=2)
    # the indices, and the counts and products that the intervals build from them
    check_memory(3 * 8.0 * n_samples * n_resamples,
                 f"n_resamples={n_resamples} resamples of n_samples={n_samples} samples",
                 hint="Use fewer resamples (the paper: 1000).")
    return as_generator(random_state).integers(0, n_samples, (n_resamples, n_samples))


def bootstrap_intervals(
    X: object,
    statistic: str = "covariance",
    method: str = "bca",
    n_resamples: int = 1000,
    confidence: float = 0.9,
    random_state: object = None,
    *,
    resamples: object = None,
    quantile_method: str = "linear",
    memory_limit: int = DEFAULT_MEMORY_LIMIT,
) -> BootstrapIntervals:
    """Bootstrap confidence intervals for all entries of the covariance or cosine matrix.

    Sec. 4.1 of Mavroeidis & Vazirgiannis: the accuracy of each feature–feature
    covariance (PCA) or cosine similarity (LSI) is its percentile or BCa interval over
    bootstrap resamples of the samples (rows of X).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Samples as rows (the paper's "objects"). Not modified. At least 3 samples; no
        all-zero feature for ``"cosine"`` and no constant feature for ``"covariance"``.
    statistic : {"covariance", "cosine"}
        ``"cosine"`` for SbS-LSI, ``"covariance"`` for SbS-PCA.
    method : {"percentile", "bca"}
        The paper uses BCa (Sec. 2.2).
    n_resamples : int
        Number of bootstrap resamples B ≥ 2 (the paper: 1000). Not used when ``resamples``
        is given.
    confidence : float
        Coverage in (0, 1) (the paper: 0.9).
    random_state : None, int or numpy Generator
        Draws the resamples with :func:`resample_indices`.
    resamples : array-like of int, shape (B, n_samples), optional
        Explicit resamples (row b lists the samples drawn in resample b), e.g. to reproduce
        another program's intervals.
    quantile_method : {"linear", "inverted_cdf"}
        How a quantile of the B values is read (Hyndman & Fan 1996 types 7 and 1).
    memory_limit : int
        Approximate bytes of working memory per block of feature pairs.

    Returns
    -------
    BootstrapIntervals
        ``lower``, ``upper`` (p × p), the estimate A, and bookkeeping; unpacks as a pair.

    Notes
    -----
    Cost: one (B × n)·(n × m) matrix product per block of m pairs, O(B·n·p²/2) in all; the
    jackknife for BCa costs O(n·p²/2) through rank-one downdates. The count matrix of the
    resamples (B × n) is kept in memory besides the blocks.

    A resampled feature that happens to be all zero has no cosine with anything; its cosine
    is taken as 0 (a zero vector is orthogonal to every vector). The diagonal of the cosine
    matrix is identically 1 and gets the interval [1, 1].
    """
    if array_kind(X) is not None:  # Dask X: spectral_kit.backends
        from ..backends.bootstrap import bootstrap_intervals as scaled

        return scaled(
            X, statistic, method, n_resamples, confidence, random_state, resamples=resamples,
            quantile_method=quantile_method, memory_limit=memory_limit,
        )
    statistic = check_choice(statistic, "statistic", STATISTICS)
    method = check_choice(method, "method", METHODS)
    confidence = check_probability(confidence, "confidence")
    quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
    memory_limit = check_int(memory_limit, "memory_limit", low=1)
    Xs, e = _prepared(X, statistic)
    counts = _resample_counts(Xs.shape[0], n_resamples, random_state, resamples)
    n, p = Xs.shape
    B = counts.shape[0]
    check_memory(3 * 8.0 * p * p,
                 f"the three {p} × {p} matrices of intervals for X's {p} features",
                 hint="Select fewer features first.")
    rows, cols = np.triu_indices(p)
    moments = _resample_moments(Xs, counts, statistic)
    lower, upper, estimate = np.empty((p, p)), np.empty((p, p)), np.empty((p, p))
    # Per pair: Z, the leave-one-out values and their temporaries (about 6 columns of n)
    # and the bootstrap values with their sort and comparison temporaries (about 4 of B).
    block = max(1, memory_limit // (8 * (6 * n + 4 * B)))
    n_fallback = 0
    for start in range(0, rows.size, block):
        r, c = rows[start : start + block], cols[start : start + block]
        values, est, accel = _block_statistics(Xs, counts, moments, r, c, statistic)
        values.sort(axis=0)
        low, high, nf = _interval_columns(values, est, accel, confidence, method, quantile_method)
        n_fallback += nf
        _fill_symmetric(lower, r, c, low)
        _fill_symmetric(upper, r, c, high)
        _fill_symmetric(estimate, r, c, est)
    lower, upper, estimate = _unscaled(e, lower, upper, estimate)
    return BootstrapIntervals(
        lower, upper, estimate, statistic, method, confidence, B, n_fallback
    )


def bootstrap_distribution(
    X: object,
    statistic: str = "covariance",
    n_resamples: int = 1000,
    random_state: object = None,
    *,
    resamples: object = None,
) -> BootstrapDistribution:
    """Bootstrap values of every entry, stored for repeated interval computations.

    Same resampling and the same numbers as :func:`bootstrap_intervals`; call
    ``.intervals(confidence, method)`` on the result. Memory ``8·B·p(p+1)`` bytes.
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    Xs, e = _prepared(X, statistic)
    counts = _resample_counts(Xs.shape[0], n_resamples, random_state, resamples)
    p = Xs.shape[1]
    check_memory(2 * 8.0 * counts.shape[0] * p * (p + 1) / 2,
                 f"the bootstrap values of X's {p} features (n_resamples={counts.shape[0]})",
                 hint="Use bootstrap_intervals, which works in blocks, or fewer features.")
    rows, cols = np.triu_indices(p)
    moments = _resample_moments(Xs, counts, statistic)
    values, est, accel = _block_statistics(Xs, counts, moments, rows, cols, statistic)
    values, est = _unscaled(e, values, est)
    estimate = np.empty((p, p))
    _fill_symmetric(estimate, rows, cols, est)
    return BootstrapDistribution(
        estimate, values, np.sort(values, axis=0), accel, rows, cols, statistic
    )


def percentile_interval(
    values: object, confidence: float = 0.9, *, quantile_method: str = "linear"
) -> tuple[float, float]:
    """Percentile interval of one statistic from its bootstrap values.

    The (1 − confidence)/2 and (1 + confidence)/2 quantiles of ``values`` -- the rule that
    :func:`bootstrap_intervals` applies to every entry. With ``quantile_method="inverted_cdf"``
    the endpoints are the ⌈Bα⌉-th and ⌈B(1−α)⌉-th ordered values (Efron & Tibshirani 1993,
    Sec. 13.3), the reading of the paper's Example 1.
    """
    vals = check_array(values, "values", ndim=1, min_rows=2)
    confidence = check_probability(confidence, "confidence")
    quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
    alpha = (1 - confidence) / 2
    column = np.sort(vals)[:, None]
    low = _quantile_sorted(column, np.array([alpha]), quantile_method)[0]
    high = _quantile_sorted(column, np.array([1 - alpha]), quantile_method)[0]
    return float(low), float(high)


# --- input ---------------------------------------------------------------------------------


def _prepared(X: object, statistic: str) -> tuple[np.ndarray, int]:
    """Validated float copy of X divided by ``2^e``; centred by the full-sample mean for the
    covariance. Returns the copy and the exponent by which a covariance is scaled back.

    Dividing by a power of two near max |x| is exact and keeps the products, the cubes of
    BCa's jackknife deviations and their sums inside float64's range whatever the scale of
    X (the intervals, the BCa levels and the fallbacks do not depend on it). Centring once
    is exact in exact arithmetic (covariance is shift invariant) and keeps the resampled
    sums ``Σ w x`` small, avoiding cancellation in ``S − s sᵀ/n``.
    """
    arr = check_array(
        X, "X", min_rows=3, rows_label="samples (rows)", cols_label="features (columns)"
    )
    check_nonconstant_rows(arr.T, "X", what="feature", centered=statistic == "covariance")
    if statistic == "cosine":  # invariant to the scale of each feature: rescale each
        peak = max_abs(arr, axis=0)
        return np.ldexp(arr, -np.frexp(np.where(peak > 0, peak, 1.0))[1]), 0
    e = scale_exponent(arr)
    arr = np.ldexp(arr, -e)
    arr -= arr.mean(axis=0)
    return arr, 2 * e  # the covariance has the square of X's scale


def _unscaled(e: int, *arrays: np.ndarray) -> list[np.ndarray]:
    return [unscale(a, e, "the covariance of X") for a in arrays]


def _resample_counts(
    n: int, n_resamples: object, random_state: object, resamples: object
) -> np.ndarray:
    """(B, n) float matrix: how often each sample appears in each resample."""
    if resamples is None:
        idx = resample_indices(n, n_resamples, random_state)  # validates n_resamples
    else:
        idx = np.asarray(resamples)
        if idx.ndim != 2 or idx.shape[1] != n:
            raise ValueError(
                f"resamples must have shape (n_resamples, {n}) -- one row of {n} sample "
                f"indices per resample; got shape {idx.shape}."
            )
        if idx.dtype.kind not in "iu":
            raise TypeError(f"resamples must contain integer indices; got dtype {idx.dtype}.")
        if idx.shape[0] < 2:
            raise ValueError(
                f"resamples must hold at least 2 resamples; got {idx.shape[0]}."
            )
        if idx.min() < 0 or idx.max() >= n:
            raise ValueError(
                f"resamples must contain sample indices in [0, {n - 1}]; got values from "
                f"{idx.min()} to {idx.max()}."
            )
    B = idx.shape[0]
    flat = (idx + (np.arange(B) * n)[:, None]).ravel()
    return np.bincount(flat, minlength=B * n).reshape(B, n).astype(np.float64)


# --- the statistics of one block of pairs ----------------------------------------------------


def _resample_moments(Xs: np.ndarray, counts: np.ndarray, statistic: str) -> dict:
    """Per-feature quantities every block needs: full-sample, per resample, leave-one-out."""
    if statistic == "covariance":
        return {"s": Xs.sum(axis=0), "s_b": counts @ Xs}
    sq = Xs * Xs
    N = sq.sum(axis=0)
    # Reciprocal norms (0 for a zero norm, so that the cosine becomes 0): of the full sample,
    # of each resample, and with each sample left out (the rank-one downdate N − x²).
    return {
        "inv": _inverse_sqrt(N),
        "inv_b": _inverse_sqrt(counts @ sq),
        "inv_loo": _inverse_sqrt(N - sq),
    }


def _inverse_sqrt(values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    positive = values > 0
    out[positive] = 1.0 / np.sqrt(values[positive])
    return out


def _block_statistics(
    Xs: np.ndarray,
    counts: np.ndarray,
    moments: dict,
    r: np.ndarray,
    c: np.ndarray,
    statistic: str,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Bootstrap values (B × m), estimates (m,) and BCa accelerations (m,) of pairs (r, c).

    Works in place on the n × m product matrix Z once its sums are taken, so that a block
    costs about two n × m arrays.
    """
    n = Xs.shape[0]
    Z = Xs[:, r] * Xs[:, c]  # n × m: the products whose weighted sums are the statistics
    S = Z.sum(axis=0)
    S_b = counts @ Z
    if statistic == "covariance":
        s, s_b = moments["s"], moments["s_b"]
        values = (S_b - s_b[:, r] * s_b[:, c] / n) / (n - 1)
        estimate = (S - s[r] * s[c] / n) / (n - 1)
        # Leaving sample t out: (n−2)·θ₍ₜ₎ = S − s_r s_c/(n−1) − g_t with
        # g_t = n/(n−1)·Z_t − (s_r x_tc + s_c x_tr)/(n−1). The constant drops out of the
        # deviations, and the positive factor 1/(n−2) out of the acceleration, so
        # θ̄ − θ₍ₜ₎ ∝ g_t − ḡ.
        g = Z
        g *= n / (n - 1)
        g -= Xs[:, c] * (s[r] / (n - 1))
        g -= Xs[:, r] * (s[c] / (n - 1))
        g -= g.mean(axis=0)
        deviations = g
    else:
        inv, inv_b, inv_loo = moments["inv"], moments["inv_b"], moments["inv_loo"]
        diagonal = r == c
        values = S_b * inv_b[:, r] * inv_b[:, c]
        estimate = S * inv[r] * inv[c]
        # Rank-one downdates of the inner products and of the squared norms.
        loo = Z
        np.subtract(S, Z, out=loo)
        loo *= inv_loo[:, r]
        loo *= inv_loo[:, c]
        for arr in (values, estimate, loo):
            arr[..., diagonal] = 1.0
        loo -= loo.mean(axis=0)
        deviations = loo
        deviations *= -1.0  # θ̄ − θ₍ₜ₎
    return values, estimate, _acceleration(deviations)


def _acceleration(deviations: np.ndarray) -> np.ndarray:
    """BCa acceleration ``â = Σ dₜ³ / (6 (Σ dₜ²)^{3/2})`` with ``dₜ = θ̄ − θ₍ₜ₎`` (E&T 14.15).

    An entry whose leave-one-out values are all equal (a cosine that is 1 or 0 in every
    subsample) has no skewness to correct: its acceleration is 0.
    """
    num = np.einsum("ij,ij,ij->j", deviations, deviations, deviations)
    den = np.einsum("ij,ij->j", deviations, deviations)
    with np.errstate(divide="ignore", invalid="ignore"):
        a = num / (6.0 * den**1.5)
    return np.where(den > 0, a, 0.0)


# --- quantiles -------------------------------------------------------------------------------


def _interval_columns(
    sorted_values: np.ndarray,
    estimate: np.ndarray,
    acceleration: np.ndarray,
    confidence: float,
    method: str,
    quantile_method: str,
) -> tuple[np.ndarray, np.ndarray, int]:
    """Lower and upper endpoints of each column's interval, and the number of BCa fallbacks."""
    alpha = (1 - confidence) / 2
    m = sorted_values.shape[1]
    if method == "percentile":
        a1, a2 = np.full(m, alpha), np.full(m, 1 - alpha)
        n_fallback = 0
    else:
        a1, a2 = _bca_levels(sorted_values, estimate, acceleration, alpha)
        bad = ~(np.isfinite(a1) & np.isfinite(a2))
        n_fallback = int(bad.sum())
        a1[bad], a2[bad] = alpha, 1 - alpha
    return (
        _quantile_sorted(sorted_values, a1, quantile_method),
        _quantile_sorted(sorted_values, a2, quantile_method),
        n_fallback,
    )


def _bca_levels(
    sorted_values: np.ndarray, estimate: np.ndarray, acceleration: np.ndarray, alpha: float
) -> tuple[np.ndarray, np.ndarray]:
    """BCa's adjusted levels α₁, α₂ (Efron & Tibshirani 1993, eq. 14.10)."""
    B = sorted_values.shape[0]
    below = (sorted_values < estimate).sum(axis=0) + (sorted_values <= estimate).sum(axis=0)
    z0 = ndtri(below / (2 * B))
    z_alpha = float(ndtri(alpha))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        num1 = z0 + z_alpha
        num2 = z0 - z_alpha
        a1 = ndtr(z0 + num1 / (1 - acceleration * num1))
        a2 = ndtr(z0 + num2 / (1 - acceleration * num2))
    return a1, a2


def _quantile_sorted(sorted_values: np.ndarray, prob: np.ndarray, method: str) -> np.ndarray:
    """Quantile ``prob[j]`` of column j of an already sorted (B × m) array.

    Hyndman & Fan (1996): position ``jg = B·p + m`` with ``m = 1 − p`` (type 7, "linear") or
    ``m = 0`` (type 1, "inverted_cdf"), interpolating between neighbouring order statistics.
    """
    B = sorted_values.shape[0]
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
    cols = np.arange(sorted_values.shape[1])
    return (1 - g) * sorted_values[j, cols] + g * sorted_values[jp1, cols]


def _fill_symmetric(out: np.ndarray, r: np.ndarray, c: np.ndarray, values: np.ndarray) -> None:
    out[r, c] = values
    out[c, r] = values
