"""Bootstrap intervals of every covariance/cosine entry: batched GEMM vs scipy.stats.bootstrap.

The data set of the paper's largest experiment, Spambase (4601 × 57), with 1000 resamples
and BCa intervals at confidence 0.9 (Mavroeidis & Vazirgiannis, Sec. 4.1 and 5). SciPy has
no all-entries bootstrap; the fastest way to get it from SciPy is one ``scipy.stats.bootstrap``
call whose statistic is vectorized over all entries (batched matrix products), and that
measured call is the headline. A second row per statistic times ``scipy.stats.bootstrap``
once per entry (paired resampling, the same resamples as ours so that the intervals can be
compared) on a few entries and scales it to all of them: labelled extrapolated, never the
headline. A row (full mode) shows the memory bound for 1000 features.

Then the cost of SbS on the data it meets outside the paper:

* **wide data** -- :class:`StableSparsePCA` (30 resamples) on 5 samples × p features, p up
  to 3,000: time against p and the fitted exponent; beside it, the removal path of
  Algorithm 1 with the paper's Proposition 1 on the same intervals (the screened path
  replaces it);
* **sparse data** -- a seeded Zipf-like term matrix (~1 % non-zero): the intervals from the
  sparse matrix against the same matrix dense (on 150 terms, where dense still runs in
  seconds), time and traced peak memory, then the whole matrix sparse;
* **hold-out matrices against scikit-learn's SparsePCA** at equal sparsity (the same number
  of components and of features kept; SparsePCA's penalty found by the search of
  ``bench sparse-pca``, its time that of one fit at that penalty): Spambase (SbS-LSI),
  z-scored Spambase (SbS-PCA) and a 2,000 × 500 term matrix (SbS-LSI), with the estimator's
  defaults (a = 50 %, 1000 resamples), both timed warm in alternating rounds; when SbS finds
  nothing, the criterion that failed and the first stable subspace below where the path
  stopped; and the resampled products the bootstrap sums, its floor.
"""

from __future__ import annotations

import math
import warnings

import numpy as np

from ..datasets import load_dataset
from ..stability import bootstrap_intervals, resample_indices, sbs
from ._core import BenchResult, benchmark, peak_memory, timed, timed_alternating

__all__ = ["run"]

N_RESAMPLES = 1000
CONFIDENCE = 0.9
SEED = 0
#: Resamples per vectorized SciPy call: (57, 50, 4601) doubles ≈ 100 MB at a time.
SCIPY_BATCH = 50
#: Rows of Spambase used in quick mode.
QUICK_ROWS = 1500


def _pair_statistic(statistic: str):
    def covariance(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        xc = x - x.mean(axis=axis, keepdims=True)
        yc = y - y.mean(axis=axis, keepdims=True)
        return (xc * yc).sum(axis=axis) / (x.shape[axis] - 1)

    def cosine(x: np.ndarray, y: np.ndarray, axis: int = -1) -> np.ndarray:
        return (x * y).sum(axis=axis) / np.sqrt(
            (x * x).sum(axis=axis) * (y * y).sum(axis=axis)
        )

    return covariance if statistic == "covariance" else cosine


def _all_entries_statistic(statistic: str):
    """Statistic of a (p, ..., n) sample returning (p, p, ...), resamples last (SciPy's rule)."""

    def stat(x: np.ndarray, axis: int = -1) -> np.ndarray:
        y = np.moveaxis(x, 0, -2)  # (..., p, n)
        if statistic == "covariance":
            y = y - y.mean(axis=-1, keepdims=True)
            out = y @ np.swapaxes(y, -1, -2) / (y.shape[-1] - 1)
        else:
            norms = np.sqrt((y * y).sum(axis=-1))
            out = y @ np.swapaxes(y, -1, -2) / (norms[..., :, None] * norms[..., None, :])
        return np.moveaxis(out, (-2, -1), (0, 1))

    return stat


def _scipy_per_entry(X: np.ndarray, statistic: str, pairs: list[tuple[int, int]]):
    from scipy.stats import bootstrap

    func = _pair_statistic(statistic)
    lows, highs = [], []
    for i, j in pairs:
        res = bootstrap(
            (X[:, i], X[:, j]), func, paired=True, vectorized=True, n_resamples=N_RESAMPLES,
            confidence_level=CONFIDENCE, method="BCa", rng=np.random.default_rng(SEED),
        )
        lows.append(res.confidence_interval.low)
        highs.append(res.confidence_interval.high)
    return np.array(lows), np.array(highs)


def _scipy_vectorized(X: np.ndarray, statistic: str, batch: int):
    from scipy.stats import bootstrap

    res = bootstrap(
        (X.T,), _all_entries_statistic(statistic), axis=-1, n_resamples=N_RESAMPLES,
        confidence_level=CONFIDENCE, method="BCa", rng=np.random.default_rng(SEED),
        batch=batch,
    )
    return res.confidence_interval


def _max_rel_diff(intervals, low: np.ndarray, high: np.ndarray, where) -> float:
    scale = max(float(np.abs(intervals.upper).max()), 1e-300)
    return max(
        float(np.abs(intervals.lower[where] - low).max()),
        float(np.abs(intervals.upper[where] - high).max()),
    ) / scale


def _rows(X: np.ndarray, label: str, quick: bool) -> list[BenchResult]:
    n, p = X.shape
    n_entries = p * (p + 1) // 2
    resamples = resample_indices(n, N_RESAMPLES, SEED)
    # Entries spread over the matrix; off-diagonal so that the cosine is not the constant 1.
    timed_pairs = [(0, 1), (20, 40), (5, 56), (33, 34), (10, 11)][: 1 if quick else 3]
    results = []
    for statistic in ("covariance", "cosine"):

        def ours(statistic: str = statistic):
            return bootstrap_intervals(
                X, statistic, "bca", confidence=CONFIDENCE, resamples=resamples,
                progress=False,
            )

        seconds, intervals = timed(ours, repeat=1 if quick else 2)
        peak, _, _ = peak_memory(ours)
        name = (f"BCa intervals, all {n_entries} {statistic} entries, {label} {n}×{p}, "
                f"B={N_RESAMPLES}")
        with warnings.catch_warnings():
            # SciPy warns where a jackknife is degenerate; those entries are counted below.
            warnings.simplefilter("ignore")
            vec_seconds, ci = timed(lambda s=statistic: _scipy_vectorized(X, s, SCIPY_BATCH))
            sp_seconds, (low, high) = timed(
                lambda s=statistic: _scipy_per_entry(X, s, timed_pairs)
            )
        finite = np.isfinite(ci.low) & np.isfinite(ci.high)
        results.append(BenchResult(
            name=name, seconds=seconds,
            baseline=f"scipy.stats.bootstrap, one call, statistic vectorized over all entries "
                     f"(batch={SCIPY_BATCH})",
            baseline_seconds=vec_seconds,
            goal="< 10 s; ratio > 1",
            headline=statistic == "covariance",
            extra={
                "peak_MiB": peak / 2**20,
                "max_rel_diff_vs_scipy": _max_rel_diff(
                    intervals, ci.low[finite], ci.high[finite], finite
                ),
                "scipy_nan_entries": int((~finite).sum()),
                "bca_fallbacks": intervals.n_fallback,
            },
        ))
        rows, cols = np.array(timed_pairs).T
        results.append(BenchResult(
            name=f"{name} (same run as above)", seconds=seconds,
            baseline=f"scipy.stats.bootstrap once per entry, timed on {len(timed_pairs)} of "
                     f"{n_entries} entries",
            baseline_seconds=sp_seconds / len(timed_pairs) * n_entries,
            extrapolated=True,
            extra={
                "scipy_s_per_entry": sp_seconds / len(timed_pairs),
                "max_rel_diff_vs_scipy": _max_rel_diff(intervals, low, high, (rows, cols)),
            },
        ))
    return results


@benchmark("stability")
def run(quick: bool = False) -> list[BenchResult]:
    """Spambase, 1000 resamples, BCa: ours against SciPy, for the covariance and the cosine.

    Quick mode uses a seeded subsample of :data:`QUICK_ROWS` rows (SciPy's jackknife costs
    n² · p² / 2) and skips the memory-bound row.
    """
    X = load_dataset("spambase").X
    label = "Spambase"
    if quick:
        rows = np.sort(np.random.default_rng(SEED).choice(X.shape[0], QUICK_ROWS, replace=False))
        X, label = X[rows], f"Spambase (rows subsampled, seed {SEED})"
    results = _rows(X, label, quick)
    if not quick:
        results.append(_memory_bound_row())
    return results + _wide_rows(quick) + _sparse_rows(quick) + _holdout_rows(quick)


def _memory_bound_row(n: int = 300, p: int = 1000, n_resamples: int = 100) -> BenchResult:
    """Many features: the pair blocks keep memory far below the p²·B bootstrap values."""
    X = np.random.default_rng(SEED).lognormal(size=(n, p))
    limit = 64 * 2**20
    peak, seconds, _ = peak_memory(
        lambda: bootstrap_intervals(X, "cosine", "bca", n_resamples, CONFIDENCE, SEED,
                                    memory_limit=limit, progress=False)
    )
    return BenchResult(
        name=f"BCa cosine intervals, {p} features × {n} samples, B={n_resamples}, "
             f"memory_limit=64 MiB",
        seconds=seconds,
        goal="memory bounded by blocks, not p²·B",
        extra={
            "peak_MiB": peak / 2**20,
            "all_values_MiB": p * (p + 1) / 2 * n_resamples * 8 / 2**20,
            "output_MiB": 3 * p * p * 8 / 2**20,
        },
    )


# --- wide data: time against p ----------------------------------------------------------------

WIDE_P = (250, 500, 1000, 2000, 3000)
#: Beyond this p the paper's pruned path is not timed (O(p⁴): minutes).
WIDE_PAPER_MAX = 1000


def _wide_rows(quick: bool) -> list[BenchResult]:
    """StableSparsePCA(n_resamples=30) on 5 × p: time against p, fitted exponent."""
    from ..estimators.stability import StableSparsePCA

    sizes = WIDE_P[:2] if quick else WIDE_P
    rows, times = [], []
    for p in sizes:
        X = np.random.default_rng(SEED).standard_normal((5, p))
        model = StableSparsePCA(n_resamples=30, random_state=SEED, progress=False)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # nothing is stable in pure noise: the fallback
            seconds, fitted = timed(lambda m=model, X=X: m.fit(X))
        times.append(seconds)
        result = fitted.result_
        baseline = baseline_seconds = None
        if p <= WIDE_PAPER_MAX:
            ours_path, paper_path = timed_alternating(
                lambda X=X, r=result: sbs(X, "pca", 0.5, intervals=r.intervals,
                                          prune="rayleigh", full_trajectory=False,
                                          progress=False),
                lambda X=X, r=result: sbs(X, "pca", 0.5, intervals=r.intervals, prune=True,
                                          full_trajectory=False, progress=False),
                repeat=1,
            )
            baseline = ("the removal path alone: Algorithm 1 with Proposition 1 (the paper) "
                        f"on the same intervals; ours {ours_path:.3g} s")
            baseline_seconds = paper_path
        rows.append(BenchResult(
            name=f"StableSparsePCA(n_resamples=30).fit, 5 samples × {p} features",
            seconds=seconds, baseline=baseline, baseline_seconds=baseline_seconds,
            goal="seconds, not minutes, at p = 3,000",
            extra={"submatrices computed / ruled out":
                   f"{result.n_eigendecompositions}/{result.n_ruled_out}",
                   "features kept": int(fitted.support_.sum())},
        ))
    slope = float(np.polyfit(np.log(sizes), np.log(times), 1)[0])
    rows[-1].extra["fitted exponent (time ∝ p^e)"] = round(slope, 2)
    return rows


# --- sparse data ------------------------------------------------------------------------------


def term_matrix(n: int = 2000, p: int = 500, density: float = 0.01, seed: int = SEED):
    """A seeded Zipf-like term–document matrix (documents × terms), CSR, no empty term."""
    import scipy.sparse as sp

    rng = np.random.default_rng(seed)
    weights = 1.0 / np.arange(1, p + 1) ** 1.1
    weights /= weights.sum()
    nnz = int(density * n * p)
    rows = np.r_[rng.integers(0, n, nnz), rng.integers(0, n, p)]
    cols = np.r_[rng.choice(p, nnz, p=weights), np.arange(p)]
    X = sp.csr_matrix((np.ones(rows.size), (rows, cols)), shape=(n, p))
    X.sum_duplicates()
    return X


def _sparse_rows(quick: bool) -> list[BenchResult]:
    n, p, B = (1000, 300, 200) if quick else (2000, 500, N_RESAMPLES)
    T = term_matrix(n, p)
    head = T[:, :150].tocsr()
    rows = []
    for statistic in ("cosine", "covariance"):
        def run(X, s=statistic):
            return bootstrap_intervals(X, s, "bca", B, CONFIDENCE, SEED, progress=False)

        peak_sparse, _, sparse = peak_memory(lambda: run(head))
        peak_dense, _, dense = peak_memory(lambda: run(head.toarray()))
        t_sparse, t_dense = timed_alternating(lambda: run(head), lambda: run(head.toarray()),
                                              repeat=1 if quick else 2)
        scale = float(np.abs(dense.upper).max())
        rows.append(BenchResult(
            name=f"BCa {statistic} intervals, term matrix {n}×150 (Zipf, "
                 f"{head.nnz / (n * 150):.1%} non-zero), B={B}: sparse X",
            seconds=t_sparse, baseline="the same X dense", baseline_seconds=t_dense,
            goal="sparse never densified; equal to dense",
            extra={"peak_MiB sparse": peak_sparse / 2**20,
                   "peak_MiB dense": peak_dense / 2**20,
                   "max |sparse − dense| / max |upper|": max(
                       float(np.abs(sparse.upper - dense.upper).max()),
                       float(np.abs(sparse.lower - dense.lower).max())) / scale},
        ))
        peak, seconds, _ = peak_memory(lambda: run(T))
        rows.append(BenchResult(
            name=f"BCa {statistic} intervals, term matrix {n}×{p} "
                 f"({T.nnz / (n * p):.1%} non-zero), B={B}: sparse X",
            seconds=seconds, goal="seconds",
            extra={"peak_MiB": peak / 2**20, "dense X alone would be MiB": 8 * n * p / 2**20},
        ))
    return rows


# --- hold-out matrices against scikit-learn's SparsePCA ---------------------------------------


def _holdout_rows(quick: bool) -> list[BenchResult]:
    spam = load_dataset("spambase").X
    if quick:
        spam = spam[np.sort(np.random.default_rng(SEED).choice(spam.shape[0], QUICK_ROWS,
                                                                 replace=False))]
    spam = spam[:, spam.std(axis=0) > 0]
    zscored = (spam - spam.mean(axis=0)) / spam.std(axis=0)
    terms = term_matrix(*((1000, 300) if quick else (2000, 500)))
    cases = (
        ("Spambase, SbS-LSI", spam, "lsi"),
        ("z-scored Spambase, SbS-PCA", zscored, "pca"),
        (f"term matrix {terms.shape[0]}×{terms.shape[1]} (Zipf, "
         f"{terms.nnz / math.prod(terms.shape):.1%} non-zero, sparse), SbS-LSI", terms, "lsi"),
    )
    return [_holdout_row(label, X, variant, quick) for label, X, variant in cases]


def _holdout_row(label: str, X, variant: str, quick: bool) -> BenchResult:
    import scipy.sparse as sp
    from sklearn.decomposition import SparsePCA

    from ..estimators.stability import StableSparsePCA
    from .peers import _matched_alpha, features_kept

    n_resamples = 200 if quick else N_RESAMPLES
    model = StableSparsePCA(variant=variant, n_resamples=n_resamples, random_state=SEED,
                            progress=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # a fallback is reported below, with its reason
        ours = model.fit(X)  # untimed: sets the sparsity the peer is matched to
    k, kept = ours.n_components_, int(ours.support_.sum())
    # The peer sees the data SbS works on: raw (PCA) or unit-norm columns (LSI), dense.
    Z = X.toarray() if sp.issparse(X) else np.asarray(X)
    if variant == "lsi":
        Z = Z / np.linalg.norm(Z, axis=0)

    def make(alpha: float):
        return SparsePCA(k, alpha=alpha, random_state=SEED)

    def fit_ours():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return model.fit(X)

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        alpha, fits = _matched_alpha(make, Z, kept, steps=10 if quick else 14)
        peer = make(alpha).fit(Z)
        # Both warm, taking turns, best of the rounds: on a shared machine a single cold
        # timing of either mostly measures the load.
        t_ours, t_peer = timed_alternating(fit_ours, lambda: make(alpha).fit(Z),
                                           repeat=1 if quick else 3)
    result = ours.result_
    n, p = X.shape
    onward = result.onward
    return BenchResult(
        name=f"StableSparsePCA ({variant}, a=50 %, B={n_resamples}) fit, {label} "
             f"{n}×{p}: {k} component(s), {kept} features",
        seconds=t_ours, baseline=f"sklearn SparsePCA, alpha={alpha:.3g} matched to the same "
                                 "sparsity (one fit)",
        baseline_seconds=t_peer, goal="≤ 2× SparsePCA's time (ratio ≥ 0.5)",
        extra={"features kept peer": features_kept(peer.components_),
               "stable found": ours.found_,
               "criterion failed": result.failed or "—",
               "best stable on the path (k, features, a)":
                   "—" if result.best is None else
                   f"{result.best[1]}, {result.best[0].size}, {result.best[2]:.3g}",
               "first stable below the stop (k, features, a)":
                   "—" if onward is None or onward[1] is None else
                   f"{onward[1]}, {onward[0].size}, {onward[2]:.3g}",
               # The bootstrap's floor: one multiply-add per resample for every product
               # x_tr·x_tc of a sample and a pair of features (its non-zero ones, sparse X).
               "resampled products": f"{n_resamples * _products(X):.2g}",
               "alpha search fits": fits,
               "times": "best of alternating rounds, both warm"},
    )


def _products(X) -> float:
    """Products ``x_tr·x_tc`` (r ≤ c) the bootstrap sums: all of them for a dense X, the
    co-occurrences of each sample's non-zeros for a sparse one."""
    import scipy.sparse as sp

    n, p = X.shape
    if not sp.issparse(X):
        return n * p * (p + 1) / 2
    k = np.diff(sp.csr_matrix(X).indptr).astype(np.float64)
    return float(np.sum(k * (k + 1) / 2))
