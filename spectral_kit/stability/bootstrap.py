"""Bootstrap confidence intervals for every entry of a covariance or cosine matrix.

Mavroeidis & Vazirgiannis (Sec. 2.2 and 4.1) measure the statistical accuracy of each
feature–feature similarity (LSI: cosine) or covariance (PCA) by a bootstrap confidence
interval, percentile or BCa (Efron & Tibshirani 1993, Ch. 13–14), from 1000 resamples.

How it is computed
------------------
* A resample is a vector of counts ``w`` (how often each sample is drawn), so every entry of
  every resampled matrix is a weighted sum ``Σₜ wₜ xₜᵢ xₜⱼ``. With the products of feature
  pairs as the rows of ``Z`` (pairs × samples), all resamples are matrix products ``Z Wᵀ``.
  The products are written run by run of pairs sharing their first feature (one feature's
  row times a slice of the others: no gathered copies) into a batch of
  :data:`~spectral_kit.stability.pair_sums.BATCH_ROWS` rows that goes to the product once
  full, so the products of a block are never held at once.
* BCa's acceleration needs the n leave-one-out (jackknife) statistics. Removing sample t from
  ``XᵀX`` is the rank-one downdate ``XᵀX − xₜxₜᵀ``, so all n leave-one-out values of a pair are
  read off ``Z`` in O(n) instead of n refits of O(n) each.
* Feature pairs are processed in blocks sized by ``memory_limit``, so p features never need
  the p²·B bootstrap values at once.
* One body for every kind of X: each of these quantities is a sum over samples, computed by
  the kernels of :mod:`~spectral_kit.stability.pair_sums` in X's own array namespace (NumPy,
  PyTorch, CuPy, ...) and added over X's blocks of samples by
  :mod:`spectral_kit.backends.samples` (one block in memory; the chunks of a Dask array).
  A SciPy sparse X (a term–document matrix) is never densified.

The interval formulas (the percentile rank of the estimate, ``z₀``, the acceleration, the
adjusted levels and the Hyndman–Fan quantiles) are those of :func:`scipy.stats.bootstrap`,
so that, given the same resamples, the intervals agree with it entry by entry.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import array_kind
from ..backends.dtypes import check_numeric
from ..backends.samples import is_sparse, namespace_of, sample_blocks, to_host
from ..memory import check_memory
from ..memory import memory_limit as kit_limit
from ..progress import Progress, check_max_seconds, check_progress
from ..validation import (
    as_generator,
    check_array,
    check_choice,
    check_int,
    check_nonconstant_rows,
    check_probability,
    max_abs,
    unscale,
)
from .pair_sums import (
    BATCH_ROWS,
    column_scan,
    cosine_jackknife_sums,
    pair_runs,
    pair_sums,
    resample_moments,
    sparse_column_sums,
)
from .quantiles import interval_columns, quantile_sorted

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

#: A dense X is summed as a sparse one when its pairs' products hold at most this fraction of
#: non-zeros (after each feature is shifted by its median, for the covariance): a sparse
#: product runs about 30 times fewer operations per second than a dense matrix product.
SPARSE_BELOW = 0.03
#: ``progress=None`` shows a bar (after 2 s) from this many pairs of features (p ≈ 1,000)...
LARGE_PAIRS = 500_000
#: ...or this many resampled products (B · n · pairs), about a minute of work.
LARGE_PRODUCTS = 5e11
#: Default bound on the working memory of one block of feature pairs (bytes); never more
#: than a quarter of the kit's memory limit.
DEFAULT_MEMORY_LIMIT = 64 * 2**20


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

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_intervals
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> lower, upper = intervals = bootstrap_intervals(X, n_resamples=200, random_state=0)
    >>> lower.shape, intervals.method, intervals.confidence
    ((4, 4), 'bca', 0.9)
    >>> bool(np.all((lower <= intervals.estimate) & (intervals.estimate <= upper)))
    True
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

    Examples
    --------
    The stored values give the same intervals as :func:`bootstrap_intervals` with the same
    seed, and other levels without resampling again:

    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_distribution, bootstrap_intervals
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> dist = bootstrap_distribution(X, n_resamples=200, random_state=0)
    >>> dist.values.shape  # B × p(p+1)/2
    (200, 10)
    >>> direct = bootstrap_intervals(X, n_resamples=200, random_state=0)
    >>> bool(np.allclose(dist.intervals(0.9, "bca").lower, direct.lower))
    True
    >>> wide, narrow = dist.intervals(0.99), dist.intervals(0.5)
    >>> bool(np.all(wide.width >= narrow.width))
    True
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
        low, high, n_fallback = interval_columns(
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

    Mavroeidis & Vazirgiannis (2007), Sec. 2.1: SbS-PCA works on the covariance matrix, SbS-LSI
    on the cosine similarities of the terms. The covariance uses the ``n − 1`` denominator; the
    cosine similarity of features i and j is ``xᵢᵀxⱼ / (‖xᵢ‖ ‖xⱼ‖)`` on the raw (uncentred)
    columns, as in LSI. X may be a SciPy sparse matrix: A is then built from the sparse Gram
    matrix ``XᵀX``, centred algebraically.

    Parameters
    ----------
    X : array-like or SciPy sparse matrix, shape (n_samples, n_features)
        Samples as rows, at least 3. Not modified.
    statistic : {"covariance", "cosine"}
        Which similarity.

    Returns
    -------
    ndarray of shape (n_features, n_features)
        The symmetric matrix A.

    Raises
    ------
    ValueError
        If X has fewer than 3 samples, non-finite entries, a constant feature (covariance) or
        an all-zero feature (cosine), or ``statistic`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import similarity_matrix
    >>> X = np.random.default_rng(0).standard_normal((30, 4))
    >>> bool(np.allclose(similarity_matrix(X), np.cov(X, rowvar=False)))
    True
    >>> X = np.array([[1.0, 0.0], [1.0, 1.0], [0.0, 1.0]])
    >>> similarity_matrix(X, "cosine")
    array([[1. , 0.5],
           [0.5, 1. ]])
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    data = _prepare(X, statistic, in_memory=True)
    n, p = data.n, data.p
    check_memory(_similarity_bytes(data),
                 f"the {p} × {p} {statistic} matrix of X's {p} features",
                 hint="Select fewer features of X first.")
    Xs = data.samples.X
    if data.sparse:
        A = (Xs.T @ Xs).toarray()
    else:
        Xs = Xs * data.scale
        if not data.cosine:
            Xs -= data.mean
        A = Xs.T @ Xs
    if data.cosine:
        inv = _inverse_sqrt(np.diagonal(A).copy())
        A *= inv[:, None]
        A *= inv[None, :]
        np.fill_diagonal(A, 1.0)
        return A
    s = data.mean * math.sqrt(n) if data.sparse else Xs.sum(axis=0) / math.sqrt(n)
    A -= np.outer(s, s)  # the same product on both sides of the diagonal: A stays symmetric
    A /= n - 1
    return _unscale_in_place(A, data.exponent)


def resample_indices(n_samples: int, n_resamples: int, random_state: object = None) -> np.ndarray:
    """Bootstrap resamples as a (n_resamples, n_samples) array of sample indices.

    Drawn as ``rng.integers(0, n_samples, (n_resamples, n_samples))`` in one call -- the same
    draw :func:`scipy.stats.bootstrap` makes from the same Generator with ``batch=None``, so
    that the intervals of Sec. 4.1 (Mavroeidis & Vazirgiannis 2007) can be checked against
    SciPy's.

    Parameters
    ----------
    n_samples : int
        Number of samples (rows of X), at least 3.
    n_resamples : int
        Number of resamples B, at least 2.
    random_state : None, int or numpy Generator
        Source of the draw.

    Returns
    -------
    ndarray of shape (n_resamples, n_samples)
        Row b lists the samples drawn in resample b (with repetition).

    Raises
    ------
    TypeError
        If a size is not an integer or ``random_state`` is of the wrong kind.
    ValueError
        If a size is too small, or the indices would exceed the kit's memory limit.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import resample_indices
    >>> idx = resample_indices(4, 2, random_state=0)
    >>> idx.shape
    (2, 4)
    >>> bool(np.array_equal(idx, np.random.default_rng(0).integers(0, 4, (2, 4))))
    True
    """
    n_samples = check_int(n_samples, "n_samples", low=3)
    n_resamples = check_int(n_resamples, "n_resamples", low=2)
    check_memory(8.0 * n_samples * n_resamples,
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
    memory_limit: int | None = None,
    progress: bool | None = None,
    max_seconds: float | None = None,
    _then: tuple[float, str] | None = None,
) -> BootstrapIntervals:
    """Bootstrap confidence intervals for all entries of the covariance or cosine matrix.

    Sec. 4.1 of Mavroeidis & Vazirgiannis: the accuracy of each feature–feature
    covariance (PCA) or cosine similarity (LSI) is its percentile or BCa interval over
    bootstrap resamples of the samples (rows of X).

    Parameters
    ----------
    X : array-like, SciPy sparse matrix, Dask or array-API array, shape (n_samples, n_features)
        Samples as rows (the paper's "objects"). Not modified. At least 3 samples; no
        all-zero feature for ``"cosine"`` and no constant feature for ``"covariance"``. A
        sparse X (a term–document matrix) is never densified; a Dask X must be chunked along
        samples; a PyTorch/CuPy X is computed on its device.
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
    memory_limit : int, optional
        Approximate bytes of working memory per block of feature pairs; by default
        :data:`DEFAULT_MEMORY_LIMIT`, at most a quarter of the kit's memory limit.
    progress : None or bool
        A progress bar (text in a terminal, a widget in a notebook): None shows one for large
        work (:data:`LARGE_PAIRS` pairs of features or :data:`LARGE_PRODUCTS` resampled
        products) once it has run 2 s, True at once, False never.
    max_seconds : float, optional
        Time budget. The work stops with :class:`~spectral_kit.progress.BudgetExceeded`
        (saying how long it would take) once it has run that long, or earlier, after a few
        per cent of the pairs, when the measured rate projects it well beyond the budget.
    _then : (float, str), optional
        Internal: the bytes a caller (:func:`sbs`) allocates next to the results and what
        they are, added to the memory check; not part of the public interface.

    Returns
    -------
    BootstrapIntervals
        ``lower``, ``upper`` (p × p), the estimate A, and bookkeeping; unpacks as a pair.

    Raises
    ------
    ValueError
        If X has fewer than 3 samples, non-finite entries, a constant feature (covariance)
        or an all-zero feature (cosine); an option is unknown or out of range; or the work
        would exceed the kit's memory limit.
    TypeError
        If X is not numeric.
    spectral_kit.progress.BudgetExceeded
        When the work would not finish within ``max_seconds``.

    Notes
    -----
    Cost: (m × n)·(n × B) matrix products for the m pairs of a block, in batches of
    :data:`~spectral_kit.stability.pair_sums.BATCH_ROWS` pairs, O(B·n·p²/2) in all (for
    sparse X, O(B) per co-occurrence of two features, and for the cosine only the pairs of
    features that occur together are bootstrapped: the others have cosine 0 in every
    resample); the jackknife for BCa costs O(n·p²/2) through rank-one downdates. Memory: the
    count matrix of the resamples (B × n), the B × p per-feature sums, three p × p results
    and one block with a batch of products; the whole is checked against the kit's memory
    limit before any work.

    A resampled feature that happens to be all zero has no cosine with anything; its cosine
    is taken as 0 (a zero vector is orthogonal to every vector). The diagonal of the cosine
    matrix is identically 1 and gets the interval [1, 1].

    Examples
    --------
    The intervals of the paper's SbS-PCA (BCa, 90 %), and SciPy's BCa interval of one entry
    from the same resamples:

    >>> import numpy as np
    >>> from scipy.stats import bootstrap
    >>> from spectral_kit.stability import bootstrap_intervals
    >>> X = np.random.default_rng(0).standard_normal((40, 3))
    >>> lower, upper = bootstrap_intervals(X, n_resamples=500, random_state=1)
    >>> ref = bootstrap((X[:, 0], X[:, 1]), lambda a, b: np.cov(a, b)[0, 1], paired=True,
    ...                 vectorized=False, n_resamples=500, confidence_level=0.9,
    ...                 method="BCa", random_state=np.random.default_rng(1))
    >>> bool(np.allclose([lower[0, 1], upper[0, 1]], ref.confidence_interval, atol=1e-8))
    True
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    method = check_choice(method, "method", METHODS)
    confidence = check_probability(confidence, "confidence")
    quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
    block_bytes = _block_budget(memory_limit)
    progress = check_progress(progress)
    max_seconds = check_max_seconds(max_seconds)
    data = _prepare(X, statistic)
    n, p = data.n, data.p
    B = _n_resamples(n_resamples, resamples)
    per_pair = _pair_bytes(data.rows, B, data)
    n_pairs = data.n_pairs
    block = max(1, min(n_pairs, int(block_bytes // per_pair)))
    # A caller that goes on with the results (SbS) adds what it allocates next to them.
    then_bytes, then_what = _then or (0.0, "")
    check_memory(
        max(_working_bytes(n, p, B, block * per_pair, data, 3 * 8.0 * p * p),
            3 * 8.0 * p * p + then_bytes),
        f"bootstrap_intervals of X's {p} features with n_resamples={B} (the {B} × {n} "
        f"resample counts, {B} × {p} resampled sums, three {p} × {p} results and blocks of "
        f"{block} pairs{then_what})",
        hint="Use fewer resamples or select fewer features first.",
    )
    counts = _resample_counts(n, n_resamples, random_state, resamples, data.sparse)
    W = data.samples.align(counts)
    moments = _moments(data, W)
    lower, upper, estimate = np.zeros((p, p)), np.zeros((p, p)), np.zeros((p, p))
    n_fallback = 0
    with Progress(n_pairs, "bootstrap intervals", progress=progress, max_seconds=max_seconds,
                  unit="pairs", hint="Use fewer resamples, fewer features or a sparse X.",
                  large=n_pairs >= LARGE_PAIRS or n_pairs * B * data.rows >= LARGE_PRODUCTS
                  ) as bar:
        first = max(1, min(block, int(bar.first_share() * n_pairs)))
        for r, c in _pair_blocks(data, block, first):
            values, est, accel = _block_statistics(data, W, moments, r, c)
            values = _sorted(values)
            low, high, nf = interval_columns(values, est, accel, confidence, method,
                                             quantile_method)
            del values
            n_fallback += nf
            for out, vals in ((lower, low), (upper, high), (estimate, est)):
                _fill_symmetric(out, r, c, _unscaled(vals, data.exponent))
            bar.update(r.size)
    if data.cosine:
        np.fill_diagonal(lower, 1.0)
        np.fill_diagonal(upper, 1.0)
        np.fill_diagonal(estimate, 1.0)
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

    Same resampling and the same numbers as :func:`bootstrap_intervals` (Mavroeidis &
    Vazirgiannis 2007, Sec. 4.1); call ``.intervals(confidence, method)`` on the result.
    Memory about ``8·B·p(p+1)`` bytes for the values and their sorted copy.

    Parameters
    ----------
    X : array-like or SciPy sparse matrix, shape (n_samples, n_features)
        Samples as rows, at least 3. Not modified.
    statistic : {"covariance", "cosine"}
        ``"cosine"`` for SbS-LSI, ``"covariance"`` for SbS-PCA.
    n_resamples : int
        Number of bootstrap resamples B ≥ 2. Not used when ``resamples`` is given.
    random_state : None, int or numpy Generator
        Draws the resamples with :func:`resample_indices`.
    resamples : array-like of int, shape (B, n_samples), optional
        Explicit resamples (row b lists the samples drawn in resample b).

    Returns
    -------
    BootstrapDistribution
        The estimate, the bootstrap values of each upper-triangle entry, sorted copies and
        the BCa accelerations.

    Raises
    ------
    ValueError
        On invalid data (see :func:`bootstrap_intervals`), or when the stored values would
        exceed the kit's memory limit.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_distribution
    >>> X = np.random.default_rng(0).standard_normal((30, 3))
    >>> dist = bootstrap_distribution(X, n_resamples=100, random_state=0)
    >>> dist.n_resamples, dist.n_features, dist.values.shape
    (100, 3, (100, 6))
    >>> dist.intervals(0.8, "percentile").lower.shape
    (3, 3)
    """
    statistic = check_choice(statistic, "statistic", STATISTICS)
    data = _prepare(X, statistic, all_pairs=True)
    n, p = data.n, data.p
    B = _n_resamples(n_resamples, resamples)
    m = p * (p + 1) // 2
    # every pair at once, its values kept beside their sorted copy
    check_memory(_working_bytes(n, p, B, m * (_pair_bytes(n, B, data) + 8.0 * B), data,
                                8.0 * p * p),
                 f"the bootstrap values of X's {p} features (n_resamples={B})",
                 hint="Use bootstrap_intervals, which works in blocks, or fewer features.")
    counts = _resample_counts(n, n_resamples, random_state, resamples, data.sparse)
    W = data.samples.align(counts)
    moments = _moments(data, W)
    rows, cols = np.triu_indices(p)
    values, est, accel = _block_statistics(data, W, moments, rows, cols)
    values = _unscaled(to_host(values), data.exponent)
    est = _unscaled(est, data.exponent)
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
    :func:`bootstrap_intervals` applies to every entry (Mavroeidis & Vazirgiannis 2007,
    Sec. 2.2). With ``quantile_method="inverted_cdf"`` the endpoints are the ⌈Bα⌉-th and
    ⌈B(1−α)⌉-th ordered values (Efron & Tibshirani 1993, Sec. 13.3), the reading of the paper's
    Example 1.

    Parameters
    ----------
    values : array-like of shape (B,)
        Bootstrap values of the statistic.
    confidence : float, default 0.9
        Coverage in (0, 1).
    quantile_method : {"linear", "inverted_cdf"}
        How a quantile of the B values is read (Hyndman & Fan 1996 types 7 and 1).

    Returns
    -------
    lower, upper : float
        The interval's endpoints.

    Raises
    ------
    ValueError
        If ``values`` is empty or not finite, ``confidence`` is not in (0, 1), or
        ``quantile_method`` is unknown.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import percentile_interval
    >>> percentile_interval(np.arange(1.0, 101.0), 0.9, quantile_method="inverted_cdf")
    (5.0, 95.0)
    >>> tuple(round(v, 2) for v in percentile_interval(np.arange(1.0, 101.0), 0.9))
    (5.95, 95.05)
    """
    vals = check_array(values, "values", ndim=1, min_rows=2)
    confidence = check_probability(confidence, "confidence")
    quantile_method = check_choice(quantile_method, "quantile_method", QUANTILE_METHODS)
    alpha = (1 - confidence) / 2
    column = np.sort(vals)[:, None]
    low = quantile_sorted(column, np.array([alpha]), quantile_method)[0]
    high = quantile_sorted(column, np.array([1 - alpha]), quantile_method)[0]
    return float(low), float(high)


# --- input ---------------------------------------------------------------------------------


@dataclass
class _Data:
    """X ready for the sums: its executor, sizes, scaling and, for sparse X, extra sums.

    Every sum is taken on X divided by a power of two (per feature for the cosine, which is
    invariant to each feature's scale; one for the covariance, scaled back by ``exponent``):
    exact, and it keeps products, the cubes of BCa's jackknife terms and their sums inside
    float64's range whatever the scale of X. The covariance is taken about the full-sample
    ``mean`` (of the scaled data): exact in exact arithmetic, and it keeps the resampled sums
    ``Σ w x`` small, avoiding cancellation in ``S − s sᵀ/n``.
    """

    samples: Any
    n: int
    p: int
    cosine: bool
    sparse: bool
    scale: np.ndarray
    mean: np.ndarray | None
    exponent: int
    rows: int
    column_sums: np.ndarray | None = None
    pairs: tuple[np.ndarray, np.ndarray] | None = None

    @property
    def n_pairs(self) -> int:
        return self.p * (self.p + 1) // 2 if self.pairs is None else int(self.pairs[0].size)


def _prepare(X: object, statistic: str, *, in_memory: bool = False,
             all_pairs: bool = False) -> _Data:
    """Validate X and take its column scan: sizes, constant features, scaling, mean."""
    cosine = statistic == "cosine"
    sparse = is_sparse(X)
    kind = array_kind(X)
    if sparse:
        arr = _sparse_copy(X, "X")
    elif kind is None or in_memory:
        arr = check_array(X, "X", min_rows=3, rows_label="samples (rows)",
                          cols_label="features (columns)")
    elif kind == "array-api":
        check_numeric(X, "X")
        xp = namespace_of(X)
        if len(X.shape) != 2:
            raise ValueError(f"X must be a 2-D array; got shape {tuple(X.shape)}.")
        arr = xp.asarray(X, dtype=xp.float64)
    else:
        arr = check_numeric(X, "X")
    if kind is None and not sparse and not in_memory:
        shifted = _sparse_if_cheaper(arr, cosine)
        if shifted is not None:
            arr, sparse = shifted, True
    samples = sample_blocks(arr)
    n, p = samples.shape
    if n < 3 or p < 1:
        raise ValueError(
            f"X must have at least 3 samples (rows) and 1 feature (column); got shape {(n, p)}."
        )
    total, high, low, bad = to_host(samples.reduce(column_scan, how=("sum", "max", "min",
                                                                        "sum")))
    if bad[0]:
        raise ValueError(
            f"X contains {int(bad[0])} NaN or infinite value(s); remove or impute them first."
        )
    check_nonconstant_rows(np.stack([low, high], axis=1), "X", what="feature",
                           centered=not cosine)
    peak = np.maximum(high, -low)
    if cosine:
        scale = np.ldexp(1.0, -np.frexp(np.where(peak > 0, peak, 1.0))[1])
        mean, exponent = None, 0
    else:
        e = int(np.frexp(peak.max())[1]) if peak.max() > 0 else 0
        scale = np.full(p, np.ldexp(1.0, -e))
        mean, exponent = total * scale / n, 2 * e
    rows = max(X.chunks[0]) if kind == "dask" and not in_memory else n
    data = _Data(samples, n, p, cosine, sparse, scale, mean, exponent, rows)
    if sparse:
        arr.data *= np.repeat(scale, np.diff(arr.indptr))
        data.column_sums = sparse_column_sums(arr, cosine=cosine)
        if cosine and not all_pairs:
            data.pairs = _co_occurring_pairs(arr)
    return data


def _sparse_if_cheaper(X: np.ndarray, cosine: bool) -> Any:
    """X as a sparse CSC matrix when its pairs' products are mostly zero, else None.

    Many data sets are sparse without being stored so (word counts, indicators), and stay
    sparse up to one value per feature once z-scored. Co-occurrences can then be far fewer
    than the n·p²/2 products, and the sparse sums cost a fraction of the dense ones. The
    covariance is invariant to shifting a feature, so each feature is shifted by its median
    first (the value that takes more than half of a feature, where one does); the cosine is
    not, and uses X's own zeros.
    """
    n, p = X.shape
    if n < 8 or p < 2:
        return None
    center = np.zeros(p) if cosine else np.median(X, axis=0)
    occurs = np.not_equal(X, center)
    k = occurs.sum(axis=1, dtype=np.float64)
    del occurs
    if float(np.sum(k * (k + 1) / 2)) > SPARSE_BELOW * n * p * (p + 1) / 2:
        return None
    import scipy.sparse

    return scipy.sparse.csc_matrix(X if cosine else X - center)


def _sparse_copy(X: Any, name: str) -> Any:
    """A validated float64 CSC copy of a SciPy sparse X, without stored zeros."""
    if X.ndim != 2:
        raise ValueError(f"{name} must be a 2-D sparse matrix; got shape {X.shape}.")
    if X.dtype.kind not in "biuf":
        raise TypeError(
            f"{name} is a sparse matrix of dtype {X.dtype}; the kit works with real numbers."
        )
    arr = X.tocsc().astype(np.float64, copy=True)
    arr.sum_duplicates()
    arr.eliminate_zeros()
    arr.sort_indices()
    return arr


def _co_occurring_pairs(X: Any) -> tuple[np.ndarray, np.ndarray]:
    """The pairs (i ≤ j) of features that are non-zero together in some sample, in the
    row-major order of the upper triangle: the only cosines that are not 0 in every
    resample."""
    pattern = X.copy()
    pattern.data = np.ones_like(pattern.data)
    G = (pattern.T @ pattern).tocoo()
    upper = G.row <= G.col
    rows, cols = G.row[upper].astype(np.intp), G.col[upper].astype(np.intp)
    order = np.lexsort((cols, rows))
    return rows[order], cols[order]


def _n_resamples(n_resamples: object, resamples: object) -> int:
    if resamples is None:
        return check_int(n_resamples, "n_resamples", low=2)
    shape = np.shape(resamples)
    return int(shape[0]) if len(shape) == 2 else 0


def _resample_counts(
    n: int, n_resamples: object, random_state: object, resamples: object, sparse: bool = False
) -> np.ndarray:
    """(B, n) float matrix: how often each sample appears in each resample (in Fortran
    order for sparse X, whose products take it as n × B)."""
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
    counts = np.empty(idx.shape, order="F" if sparse else "C")
    for b in range(idx.shape[0]):
        counts[b] = np.bincount(idx[b], minlength=n)
    return counts


# --- the sums and the statistics of one block of pairs --------------------------------------


@dataclass
class _Moments:
    """Per-feature sums: ``s`` = Σ x̃ and ``sb`` = W x̃ (covariance); ``i`` = 1/‖x‖,
    ``ib`` its resampled values and ``N`` = ‖x‖² (cosine)."""

    s: np.ndarray | None = None
    sb: Any = None
    N: np.ndarray | None = None
    i: np.ndarray | None = None
    ib: Any = None


def _moments(data: _Data, W: Any) -> _Moments:
    first, resampled = data.samples.reduce(resample_moments, W, cosine=data.cosine,
                                           scale=data.scale, mean=data.mean)
    first = to_host(first)
    if not data.cosine:
        return _Moments(s=first, sb=resampled)
    xp = namespace_of(resampled)
    positive = resampled > 0
    root = xp.sqrt(xp.where(positive, resampled, xp.ones_like(resampled)))
    ib = xp.where(positive, 1.0 / root, xp.zeros_like(resampled))
    return _Moments(N=first, i=_inverse_sqrt(first), ib=ib)


def _block_statistics(
    data: _Data, W: Any, mom: _Moments, r: np.ndarray, c: np.ndarray
) -> tuple[Any, np.ndarray, np.ndarray]:
    """Bootstrap values (B × m, in X's namespace), estimates (m,) and BCa accelerations (m,)
    of the pairs (r, c)."""
    n = data.n
    pairs = _pair_terms(data, mom, r, c)
    S, values, sums = data.samples.reduce(pair_sums, W, pairs=pairs, cosine=data.cosine, n=n,
                                          whole=data.samples.blocks == 1)
    S, sums = to_host(S), to_host(sums)
    xp = namespace_of(values)
    if data.cosine:
        estimate = S * mom.i[r] * mom.i[c]
        if not sums:
            # X in several blocks: the leave-one-out deviations need the full-sample S
            sums = to_host(data.samples.reduce(cosine_jackknife_sums, pairs=pairs, n=n, S=S))
        e1, e2, e3 = sums
        # BCa's deviations are θ̄ − θ₍ₜ₎: the third moment changes sign.
        sign = -1.0
    else:
        estimate = (S - mom.s[r] * mom.s[c] / n) / (n - 1)
        e1, e2, e3 = sums
        sign = 1.0
    if data.cosine:
        values = _scaled_columns(xp, values, mom.ib, r, c)
    else:
        # (S_b − s_b,r s_b,c / n)/(n − 1), centred sums (or uncentred ones for sparse X)
        values = _minus_product(xp, values, mom.sb, r, c, n)
    acceleration = _acceleration(e1, e2, e3, n, sign)
    if data.cosine:
        diagonal = r == c
        if diagonal.any():
            if xp is np:
                values[:, diagonal] = 1.0
            else:
                mask = xp.asarray(diagonal[None, :], device=_device(values))
                values = xp.where(mask, xp.ones_like(values), values)
            estimate[diagonal] = 1.0
            acceleration[diagonal] = 0.0
    return values, estimate, acceleration


def _pair_terms(data: _Data, mom: _Moments, r: np.ndarray, c: np.ndarray) -> dict[str, Any]:
    """What :func:`~spectral_kit.stability.pair_sums.pair_sums` needs of the pairs (r, c)."""
    pairs: dict[str, Any] = {"r": r, "c": c}
    if data.sparse:
        pairs.update(C_r=data.column_sums[:, r], C_c=data.column_sums[:, c])
        if data.cosine:
            pairs.update(N_r=mom.N[r], N_c=mom.N[c], i_r=mom.i[r], i_c=mom.i[c])
        else:
            pairs.update(mu_r=data.mean[r], mu_c=data.mean[c])
        return pairs
    # The dense kernel computes each side's terms once per feature of the block.
    feats = np.union1d(r, c)
    pairs.update(feats=feats, pr=np.searchsorted(feats, r), pc=np.searchsorted(feats, c),
                 f=data.scale[feats])
    if data.cosine:
        pairs.update(N=mom.N[feats], i=mom.i[feats])
    else:
        pairs.update(mu=data.mean[feats])
    return pairs


def _acceleration(e1: np.ndarray, e2: np.ndarray, e3: np.ndarray, n: int,
                  sign: float) -> np.ndarray:
    """BCa acceleration ``â = Σ dₜ³ / (6 (Σ dₜ²)^{3/2})`` (E&T 14.15) from the power sums of
    ``eₜ``, with ``dₜ = ±(eₜ − ē)``.

    An entry whose leave-one-out values are all equal (a cosine that is 1 or 0 in every
    subsample) has no skewness to correct: its acceleration is 0. So has one whose spread is
    rounding noise next to the sums it is computed from.
    """
    c2 = e2 - e1 * e1 / n
    c3 = e3 - 3 * e1 * e2 / n + 2 * e1**3 / n**2
    spread = c2 > 1e-12 * e2
    with np.errstate(divide="ignore", invalid="ignore"):
        a = sign * c3 / (6.0 * np.where(spread, c2, 1.0) ** 1.5)
    return np.where(spread, a, 0.0)


def _scaled_columns(xp: Any, values: Any, by: Any, r: np.ndarray, c: np.ndarray) -> Any:
    """``values * by[:, r] * by[:, c]``, in values' buffer for NumPy."""
    if xp is np:
        V, T = values.T, np.ascontiguousarray(by.T)
        # run by run of pairs sharing r: one row of T and a slice, no gathered copies
        for a, b, i, cols in pair_runs(r, c):
            V[a:b] *= T[i] * T[cols]
        return values
    return values * xp.take(by, _index(xp, r, by), axis=1) * xp.take(by, _index(xp, c, by),
                                                                      axis=1)


def _minus_product(xp: Any, values: Any, by: Any, r: np.ndarray, c: np.ndarray,
                   n: int) -> Any:
    """``(values − by[:, r] · by[:, c] / n) / (n − 1)``, in values' buffer for NumPy."""
    if xp is np:
        V, T = values.T, np.ascontiguousarray(by.T) / math.sqrt(n)
        for a, b, i, cols in pair_runs(r, c):
            V[a:b] -= T[i] * T[cols]
        values /= n - 1
        return values
    t = xp.take(by, _index(xp, r, by), axis=1) * xp.take(by, _index(xp, c, by), axis=1)
    return (values - t / n) / (n - 1)


def _index(xp: Any, idx: np.ndarray, like: Any) -> Any:
    return idx if xp is np else xp.asarray(idx, device=_device(like))


def _device(x: Any) -> Any:
    from array_api_compat import device

    return device(x)


def _sorted(values: Any) -> Any:
    if isinstance(values, np.ndarray):
        values.sort(axis=0)
        return values
    return namespace_of(values).sort(values, axis=0)


def _inverse_sqrt(values: np.ndarray) -> np.ndarray:
    out = np.zeros_like(values)
    positive = values > 0
    out[positive] = 1.0 / np.sqrt(values[positive])
    return out


def _unscaled(values: np.ndarray, exponent: int) -> np.ndarray:
    """``values · 2^exponent`` in place (a range error, from :func:`unscale` on the largest
    entry, when it leaves float64)."""
    return _unscale_in_place(values, exponent)


def _unscale_in_place(A: np.ndarray, exponent: int) -> np.ndarray:
    """``A · 2^exponent`` in place; a range error (from :func:`unscale`, on A's largest
    entry) when it leaves float64."""
    if exponent:
        unscale(np.array([float(max_abs(A))]), exponent, "the covariance of X")
        np.ldexp(A, exponent, out=A)
    return A


def _fill_symmetric(out: np.ndarray, r: np.ndarray, c: np.ndarray, values: np.ndarray) -> None:
    out[r, c] = values
    out[c, r] = values


# --- blocks of pairs and their memory ---------------------------------------------------------


def _pair_blocks(data: _Data, block: int, first: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """(r, c) index arrays of consecutive blocks of pairs, the first of ``first`` pairs."""
    total = data.n_pairs
    starts = None
    if data.pairs is None:
        i = np.arange(data.p, dtype=np.int64)
        starts = i * data.p - i * (i - 1) // 2  # flat index of pair (i, i)
    a = 0
    while a < total:
        b = min(total, a + (first if a == 0 else block))
        if starts is None:
            yield data.pairs[0][a:b], data.pairs[1][a:b]
        else:
            flat = np.arange(a, b, dtype=np.int64)
            r = np.searchsorted(starts, flat, side="right") - 1
            yield r.astype(np.intp), (r + flat - starts[r]).astype(np.intp)
        a = b


def _block_budget(memory_limit: object) -> float:
    if memory_limit is None:
        return min(DEFAULT_MEMORY_LIMIT, kit_limit() / 4)
    return float(check_int(memory_limit, "memory_limit", low=1))


def _pair_bytes(rows: int, B: int, data: _Data) -> float:
    """Peak working memory of one pair in a block (measured: tests/memory_probe.py).

    The pair's B resampled sums, turned into its B values in place and sorted there, with
    the comparisons of the BCa count; plus its share of the index, estimate and level
    vectors. A dense X's products go to the matrix product in batches, counted once in
    :func:`_working_bytes` with the per-feature terms.
    """
    return 8.0 * (1.25 * B + 15)


def _working_bytes(n: int, p: int, B: int, block_bytes: float, data: _Data,
                   outputs: float) -> float:
    """Peak memory of the three phases, whichever is largest: drawing the counts (the
    indices beside them), the per-feature moments (with their temporaries), and the blocks
    of pairs (counts, resampled sums, the results and one block with its features' terms
    and a batch of products; for sparse X also the co-occurrence pattern of the
    features)."""
    counts = 8.0 * B * n
    moments = 8.0 * B * p
    draw = 2 * counts
    if data.sparse:
        pattern = 24.0 * _gram_nnz(data.samples.X)
        return max(draw, 2 * counts + 2 * moments + pattern + outputs + block_bytes)
    first = counts + moments * (2 if data.cosine else 1) + 16.0 * data.rows * p
    # beside a block, the per-feature terms of its sides (pair_sums): the scaled columns,
    # and for the cosine their Δ and ℓ; the temporaries of one run of pairs; the batch of
    # products waiting for the matrix product
    run = min(p, BATCH_ROWS)
    per_feature = 8.0 * data.rows * (p * (3 if data.cosine else 1)
                                     + run * (6 if data.cosine else 2) + 2 * BATCH_ROWS)
    return max(draw, first, counts + moments + outputs + block_bytes + per_feature)


def _gram_nnz(X: Any) -> float:
    """An upper bound on the stored entries of the sparse Gram matrix XᵀX: Σₜ kₜ² over the
    samples' numbers of non-zeros, at most p²."""
    k = np.bincount(X.indices, minlength=X.shape[0]).astype(np.float64)
    return min(float(k @ k), float(X.shape[1]) ** 2)


def _similarity_bytes(data: _Data) -> float:
    """A, and either the scaled copy of a dense X with the centring's outer product, or the
    sparse Gram matrix."""
    n, p = data.n, data.p
    if data.sparse:
        return 8.0 * p * p * (1 if data.cosine else 2) + 12.0 * _gram_nnz(data.samples.X)
    return 8.0 * (p * p * (1 if data.cosine else 2) + 2 * n * p)
