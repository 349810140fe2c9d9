"""Sparse LDA benchmarks: exact ESLDA (certification times, node rates) and GSLDA on colon.

ESLDA (Sec. 2.3) against the first version of the same search -- the inclusion bounds alone
and SciPy's wrappers at every node, kept in :mod:`._eslda_reference` -- in the
same process, and against exhaustive enumeration where that can run:

* **node evaluation**: the same nodes through both node kernels (nodes per second);
* **certification**: Sonar's correlation matrix (sparse PCA, n = 60) at k = 5, 10, 20;
  random rank-one pairs (Brownian paths, Sec. 3.1) at n = 40, k = 20 (the paper quotes
  "≈ 2 hours") and n = 80, k = 40; a general (full-rank) A at n = 60, k = 10 (and the same
  kind of pair at n = 30, 35, 40, to show how the time grows with n, and at n = 60 with a
  direction of strength θ planted in A, to show how it falls as one subset stands out from
  the noise); a general A from real data, ten-class LDA on the
  61 non-constant pixels of scikit-learn's handwritten digits, at k = 5 and 10; and sparse PCA
  with ≥ 100 variables: the correlation of the 100 highest-variance colon-cancer genes and
  a spiked covariance (planted 10-sparse component, 120 variables) -- in its population form
  the optimum is known in closed form, 1 + β. Each search runs under a time budget; a search
  stopped by it reports its incumbent and proven gap ``(upper_bound − value) / value``.
* **hard instances** (full run only): weak spiked covariances at p = 300 (three seeds) and
  p = 500, k = 10, 120 s each, and Sonar's correlation at k = 25, 60 s -- the search against
  the same search without the root's ℓ₁ relaxation, each with its anytime curve (gap against
  time) and, where not certified, the relaxation's floor (how far above the best subset any
  of its bounds stays);
* **worker processes**: the n = 80 rank-one pairs to completion on every available CPU
  (``eslda(..., n_jobs=...)``) against the same search in one process (full run only, and
  only with at least two CPUs);
* **Optimal-SPCA's instances**: Berk & Bertsimas (Math. Prog. Comp. 11, 2019, Tables 6–7)
  certify sparse PCA on Pitprops (Jeffers 1967) and UCI Wine (covariance and correlation,
  13 variables) at k = 5 and 10; their optima, as the authors' code repository asserts them
  (``Algorithm/test1.jl`` of Optimal-SPCA), are printed beside ours and checked against
  exhaustive enumeration run here. Their instances with ≥ 100 variables (UCI Communities and
  Crime, p ≈ 100; Arrhythmia) are not in the kit's data, so those rows cannot be rerun; for
  that size the comparison is with their abstract's claim, "certifiable optimality in seconds
  for n = 100s, k = 10s", beside our colon (n = 100 and 200) and spiked (n = 120) rows. Their
  paper's solve times were not available here; no per-instance speed comparison is claimed.
* **GSLDA on colon cancer (n = 2000)**: the forward pass against scikit-learn's
  ``SequentialFeatureSelector`` driven by the same score λ_max(A_S, B_S + εI) for the same
  number of steps (measured), and the whole two-pass path against that baseline's cost per
  evaluation scaled to the n(n+1)/2 evaluations of a full forward path -- an extrapolated
  figure, marked as such.
"""

from __future__ import annotations

import contextlib
import time

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SequentialFeatureSelector

from ..datasets import load_dataset
from ..sparse_lda import (
    auto_epsilon,
    eslda,
    estimate_tree_size,
    exhaustive,
    greedy_forward,
    gslda,
    random_pair,
    relaxation_floor,
    scatter_matrices,
)
from ..sparse_lda import bounds as _bounds
from ..sparse_lda import start as _start
from ..sparse_lda._numerics import add_one_values, submatrix, subset_value
from ..sparse_lda.branch_bound import ESLDASearch, eslda_pair, single_threaded_blas
from ..sparse_lda.driver import DEFAULT_GAP
from ..sparse_lda.greedy import gslda_pair
from ..sparse_lda.nodes import _pairs_block, _scaled
from ..sparse_lda.pair import MatrixPair, check_pair
from ..sparse_lda.parallel import available_cpus
from ..sparse_lda.search import _Search
from ..sparse_lda.start import greedy_start, local_swap_search
from ._core import BenchResult, benchmark, timed, timed_alternating
from ._eslda_reference import _ReferenceESLDASearch, _ReferenceSearch, row_tops_before

__all__ = ["RayleighScore", "rayleigh_scorer", "run"]


class RayleighScore(BaseEstimator):
    """A minimal estimator whose "fit" computes the two-class generalized Rayleigh quotient.

    ``fit(X, y)`` stores λ_max(A, B + εI) = dᵀ(B + εI)⁻¹d of the scatter matrices of X, the
    quantity GSLDA maximizes, so that ``SequentialFeatureSelector`` with
    :func:`rayleigh_scorer` and ``cv=[(all, all)]`` performs greedy forward selection on it.
    """

    def __init__(self, epsilon: float = 0.0):
        self.epsilon = epsilon

    def fit(self, X: np.ndarray, y: np.ndarray) -> RayleighScore:
        sc = scatter_matrices(X, y)
        B = sc.B + self.epsilon * np.eye(X.shape[1])
        self.value_ = float(sc.d @ np.linalg.solve(B, sc.d))
        return self


def rayleigh_scorer(estimator: RayleighScore, X: np.ndarray, y: np.ndarray) -> float:
    """Scorer returning the fitted quotient (train = test in the single split used)."""
    return estimator.value_


# --------------------------------------------------------------------------- ESLDA


def _sonar_correlation() -> np.ndarray:
    X = load_dataset("sonar").X
    return np.corrcoef(X, rowvar=False)


def _digits_pair() -> MatrixPair:
    """Multi-class LDA on handwritten digits (scikit-learn's bundled copy of UCI's optical
    digits test set: 1797 images of 8 × 8 pixels, 10 classes): the between- and
    within-class covariances of the 61 pixels that are not constant. A is a general
    (rank 9) matrix, B is far from diagonal: a real instance of the general-A goal."""
    from sklearn.datasets import load_digits  # bundled with scikit-learn: no download

    X, y = load_digits(return_X_y=True)
    X = X[:, X.std(axis=0) > 0]
    sc = scatter_matrices(X, y)
    return check_pair(sc.A, sc.B)


def _colon_top_genes(count: int = 100) -> np.ndarray:
    """Correlation of the ``count`` highest-variance log₁₀ expression profiles (colon)."""
    X = np.log10(load_dataset("colon").X)
    idx = np.sort(np.argsort(-X.var(axis=0), kind="stable")[:count])
    return np.corrcoef(X[:, idx], rowvar=False)


def _spiked(n: int, support: int, beta: float, samples: int | None, seed: int) -> np.ndarray:
    """Spiked covariance I + β v vᵀ with v uniform on a random ``support``-subset: the
    population matrix (``samples=None``; optimum 1 + β at cardinality ``support``) or the
    sample covariance of ``samples`` draws."""
    rng = np.random.default_rng(seed)
    v = np.zeros(n)
    v[rng.choice(n, support, replace=False)] = 1.0 / np.sqrt(support)
    if samples is None:
        return np.eye(n) + beta * np.outer(v, v)
    Z = rng.standard_normal((samples, n)) + np.sqrt(beta) * rng.standard_normal((samples, 1)) * v
    return np.cov(Z, rowvar=False)


#: Pitprops correlation matrix (Jeffers 1967; 180 trees, 13 variables), as printed in the
#: sparse PCA literature.
_PITPROPS_UPPER = (
    (1, .954, .364, .342, -.129, .313, .496, .424, .592, .545, .084, -.019, .134),
    (1, .297, .284, -.118, .291, .503, .419, .648, .569, .076, -.036, .144),
    (1, .882, -.148, .153, -.029, -.054, .125, -.081, .162, .220, .126),
    (1, .220, .381, .174, -.059, .137, -.014, .097, .169, .015),
    (1, .364, .296, .004, -.039, .037, -.091, -.145, -.208),
    (1, .813, .090, .211, .274, -.036, .024, -.329),
    (1, .372, .465, .679, -.113, -.232, -.424),
    (1, .482, .557, .061, -.357, -.202),
    (1, .526, .085, -.127, -.076),
    (1, -.319, -.368, -.291),
    (1, .029, .007),
    (1, .184),
    (1,),
)

#: Optimal-SPCA's certified optima (Berk & Bertsimas 2019, Tables 6–7, as asserted by the
#: authors' repository, ``Algorithm/test1.jl``): (instance, k) → value.
OPTIMAL_SPCA_PUBLISHED = {
    ("Pitprops", 5): 3.40615, ("Pitprops", 10): 4.17264,
    ("Wine (correlation)", 5): 3.43978, ("Wine (correlation)", 10): 4.59429,
    ("Wine (covariance)", 5): 99201.31, ("Wine (covariance)", 10): 99201.78,
}


def pitprops_correlation() -> np.ndarray:
    """The 13 × 13 Pitprops correlation matrix (Jeffers 1967)."""
    A = np.zeros((13, 13))
    for i, row in enumerate(_PITPROPS_UPPER):
        A[i, i:] = row
    return np.triu(A) + np.triu(A, 1).T


def _wine(correlation: bool) -> np.ndarray:
    from sklearn.datasets import load_wine  # bundled with scikit-learn: no download

    X = load_wine().data
    return np.corrcoef(X, rowvar=False) if correlation else np.cov(X, rowvar=False)


def _optimal_spca_rows() -> list[BenchResult]:
    """Optimal-SPCA's small instances: our certified optimum and time beside their value,
    against exhaustive enumeration of the C(13, k) supports in the same run."""
    rows = []
    matrices = {"Pitprops": pitprops_correlation(), "Wine (correlation)": _wine(True),
                "Wine (covariance)": _wine(False)}
    for (label, k), published in OPTIMAL_SPCA_PUBLISHED.items():
        A = matrices[label]
        eye = np.eye(A.shape[0])
        seconds, res = timed(lambda A=A, k=k, eye=eye: eslda(A, eye, k), repeat=3)
        base, ex = timed(lambda A=A, k=k, eye=eye: exhaustive(A, eye, k))
        # the published figures carry 5–6 significant digits
        digits = 10.0 ** (np.floor(np.log10(published)) - 5)
        rows.append(BenchResult(
            f"ESLDA certify {label} (Optimal-SPCA instance), n={A.shape[0]}, k={k}", seconds,
            baseline="exhaustive enumeration", baseline_seconds=base,
            goal="the published optimum",
            extra={"optimal": res.optimal, "value": res.value,
                   "Optimal-SPCA (Tables 6–7)": published,
                   "matches_published": bool(abs(res.value - published) <= digits),
                   "same_value": bool(abs(res.value - ex.value) <= 1e-9 * abs(ex.value))},
        ))
    return rows


def _gap(value: float, upper: float) -> float:
    return float((upper - value) / abs(value)) if value else float(upper - value)


#: Probes of the tree-size estimate for a search not certified within its goal.
TREE_PROBES = 1000


def _certify(label: str, pair: MatrixPair, k: int, goal_seconds: float,
             ref_budget: float, known: float | None = None,
             planted: np.ndarray | None = None) -> BenchResult:
    """Both searches from the same GSLDA path, each under a time budget (ours: the goal);
    ``planted``: a subset whose members in our support are counted. A search that does not
    certify within the goal gets Knuth's estimate of the tree still to search from its
    incumbent (:func:`~spectral_kit.sparse_lda.estimate_tree_size`), and the time that
    takes at its node rate."""
    path = gslda_pair(pair)
    seconds, res = timed(lambda: eslda_pair(pair, k, init=path, max_seconds=goal_seconds))
    ref_seconds, ref = timed(
        lambda: eslda_pair(pair, k, init=path, max_seconds=ref_budget,
                           _search_class=_ReferenceESLDASearch))
    extra = {
        "optimal": res.optimal, "value": res.value, "gap": _gap(res.value, res.upper_bound),
        "nodes": res.nodes_expanded, "nodes/s": res.nodes_expanded / max(seconds, 1e-9),
        "baseline_optimal": ref.optimal, "baseline_gap": _gap(ref.value, ref.upper_bound),
        "baseline_nodes/s": ref.nodes_expanded / max(ref_seconds, 1e-9),
        "gslda/value": res.initial_value / res.value,
    }
    if ref.optimal and res.optimal:
        extra["same_value"] = bool(abs(res.value - ref.value) <= 1e-9 * abs(ref.value))
    if known is not None:
        extra["known_optimum"] = known
        extra["matches_known"] = bool(abs(res.value - known) <= 1e-9 * abs(known))
    if planted is not None:
        extra["planted_in_support"] = f"{int(np.isin(planted, res.support).sum())}/{planted.size}"
    if not res.optimal:
        tree = estimate_tree_size(pair.d if pair.rank_one else pair.A, pair.B, k, res.support,
                                  probes=TREE_PROBES, random_state=0)
        extra["estimated_nodes_to_certify"] = tree.nodes
        extra["estimate_standard_error"] = tree.standard_error
        # the budget covers the start's local search: a search may stop before its first node
        rate = extra["nodes/s"]
        extra["estimated_seconds_to_certify"] = tree.seconds_at(rate) if rate > 0 else np.inf
    stopped = "" if ref.optimal else f", stopped at its {ref_budget:g} s budget"
    return BenchResult(
        f"ESLDA certify {label}, n={pair.n}, k={k}", seconds,
        baseline=f"first ESLDA (inclusion bounds only){stopped}",
        baseline_seconds=ref_seconds,
        goal=f"certified < {goal_seconds:g} s",
        extra=extra,
    )


def _general_frontier_rows() -> list[BenchResult]:
    """The general-A pair of the n = 60 row, drawn the same way at n = 30, 35 and 40: how far
    from n = 60 the search still certifies within the goal's 60 s, and how fast that time
    grows with n."""
    rows = []
    for n in (30, 35, 40):
        p = random_pair(n, kind="general", random_state=0)
        rows.append(_certify("general A, random pair (seed 0; below the n = 60 goal)",
                             check_pair(p.A, p.B), 10, 60.0, 60.0))
    return rows


#: Strengths θ of the direction planted in the general pair of :func:`_planted_general_rows`.
PLANTED_THETAS = (10.0, 20.0, 40.0)


def _planted_general(theta: float, k: int = 10, seed: int = 0) -> tuple[MatrixPair, np.ndarray]:
    """The general pair of the n = 60 row with a direction planted in A: A' = A + θ (Bv)(Bv)ᵀ
    for a v on a random ``k``-subset with vᵀBv = 1, and that subset.

    Every S containing the subset then has λ_max(A'_S, B_S) ≥ vᵀA'v / vᵀBv = vᵀAv + θ ≥ θ
    (v is supported on S, A ⪰ 0), while without the plant A and B are sample covariances of
    the same process and no subset stands out: θ is the strength of the one subset that
    does."""
    p = random_pair(60, kind="general", random_state=seed)
    rng = np.random.default_rng(100 + seed)
    support = np.sort(rng.choice(60, k, replace=False))
    v = np.zeros(60)
    v[support] = rng.standard_normal(k)
    v /= np.sqrt(v @ p.B @ v)
    Bv = p.B @ v
    return check_pair(p.A + theta * np.outer(Bv, Bv), p.B), support


def _planted_general_rows() -> list[BenchResult]:
    """The n = 60, k = 10 general pair with a planted direction of strength θ: how the time to
    a certificate falls as one subset stands out from the noise (the row without a plant is
    the noise-only pair above)."""
    rows = []
    for theta in PLANTED_THETAS:
        pair, planted = _planted_general(theta)
        rows.append(_certify(
            f"general A, random pair (seed 0) with a planted direction, θ = {theta:g}",
            pair, 10, 60.0, 60.0, planted=planted))
    return rows


def _parallel_rows(quick: bool) -> list[BenchResult]:
    """The rank-one n = 80, k = 40 pairs to completion on every available CPU
    (:mod:`spectral_kit.sparse_lda.parallel`) against the same search in one process, same
    GSLDA start, both run until certified. Skipped on one CPU and in the quick run."""
    jobs = available_cpus()
    if quick or jobs < 2:
        return []
    rows = []
    for seed in (0, 1, 2):
        p = random_pair(80, smoothness=0.5, kind="rank_one", random_state=seed)
        pair = check_pair(p.d, p.B)
        path = gslda_pair(pair)
        seconds, res = timed(lambda pair=pair, path=path: eslda_pair(
            pair, 40, init=path, n_jobs=jobs))
        base, ref = timed(lambda pair=pair, path=path: eslda_pair(pair, 40, init=path))
        rows.append(BenchResult(
            f"ESLDA certify rank-one random pair (seed {seed}), n=80, k=40, "
            f"{jobs} worker processes", seconds,
            baseline="the same search in one process, to completion", baseline_seconds=base,
            goal="certified < 60 s",
            extra={"optimal": res.optimal, "nodes": res.nodes_expanded,
                   "baseline_nodes": ref.nodes_expanded, "workers": jobs,
                   "same_value": bool(res.optimal and ref.optimal
                                      and abs(res.value - ref.value) <= 1e-9 * ref.value)},
        ))
    return rows


def _node_rate_rows(quick: bool) -> list[BenchResult]:
    """The same nodes through the first and the current node kernel: f(T), the one-removal
    values and, for rank one, the two-removal values over half of T taken as free (the
    current kernel computes those for the free block only, when asked)."""
    rows = []
    count = 100 if quick else 400
    problems = [
        ("rank-one A, B ≠ I (random pair)", 80, 60,
         lambda: (lambda p: check_pair(p.d, p.B))(random_pair(80, random_state=0))),
        ("general A, B ≠ I (random pair)", 60, 45,
         lambda: (lambda p: check_pair(p.A, p.B))(random_pair(60, kind="general",
                                                               random_state=0))),
        ("sparse PCA, B = I (Sonar)", 60, 45,
         lambda: check_pair(_sonar_correlation(), np.eye(60))),
    ]
    for label, n, m, make in problems:
        pair = _scaled(make())
        rng = np.random.default_rng(0)
        nodes = [np.sort(rng.choice(n, m, replace=False)) for _ in range(count)]
        support = np.arange(10)
        ref = _ReferenceSearch(pair, 10, support, -np.inf, DEFAULT_GAP)
        new = _Search(pair, 10, support, -np.inf, DEFAULT_GAP)
        free = np.sort(rng.choice(m, m // 2, replace=False))

        def evaluate(search, ts=nodes, free=free):
            for T in ts:
                info = search.node_info(T)
                if info.H is not None:
                    _pairs_block(info.H, free, free)

        base, ours = timed_alternating(lambda s=ref: evaluate(s), lambda s=new: evaluate(s),
                                       repeat=7)
        rows.append(BenchResult(
            f"node evaluation, {label}, |T| = {m}", ours / count,
            baseline="first ESLDA node kernel (scipy.linalg wrappers, ix_)",
            baseline_seconds=base / count, goal="no Python-level SciPy overhead",
            extra={"nodes/s": count / ours, "baseline_nodes/s": count / base},
        ))
    return rows


def _start_rows(quick: bool) -> list[BenchResult]:
    """The search's default start (:func:`~spectral_kit.sparse_lda.start.greedy_start`:
    forward passes from sixteen seeds, the promising ones polished by one-swap local
    search) against GSLDA's full path polished the same way, on the weak spiked covariance
    (β = 1, 200 samples, k = 10): seconds and the value each start reaches."""
    rows = []
    for p in (100,) if quick else (100, 200, 300):
        pair = check_pair(_spiked(p, 10, 1.0, 200, 0), np.eye(p))
        ours, support = timed(lambda pair=pair: greedy_start(pair, 10))
        base, path = timed(lambda pair=pair: gslda_pair(pair))
        _, gslda_value = local_swap_search(pair, path.support_at(10))
        value = float(subset_value(pair, support))
        rows.append(BenchResult(
            f"ESLDA start, weak spiked covariance p={p}, k=10", ours,
            baseline="GSLDA full path (forward + backward, all k)", baseline_seconds=base,
            goal="start < 1 s at p = 300; value ≥ GSLDA's polished",
            extra={"value": value, "gslda_polished_value": float(gslda_value),
                   "at_least_gslda": bool(value >= gslda_value * (1 - 1e-12))},
        ))
    if not quick:
        rows += [_wide_start_row(p, k) for p, k in ((300, 10), (2000, 20))]
    return rows


class _SearchWithoutRelaxation(_Search):
    """The search as it was before the root's ℓ₁ relaxation: never solved."""

    RELAX_AFTER_NODES = np.iinfo(np.int64).max


class _ESLDASearchWithoutRelaxation(ESLDASearch):
    _search_class = _SearchWithoutRelaxation


#: Points of an anytime curve (gap against time) per search.
CURVE_POINTS = 6


def _anytime(pair: MatrixPair, k: int, seconds: float, search_class: type = ESLDASearch
             ) -> tuple[float, float, float, list[str], bool, np.ndarray]:
    """The default start and the search under one budget, as :func:`eslda` runs them, with
    the proven gap read :data:`CURVE_POINTS` times on the way: (value, upper bound, seconds,
    ["t s: gap %", …], certified, support)."""
    start = time.perf_counter()
    deadline = start + seconds
    support = greedy_start(pair, k, deadline=deadline)
    search = search_class(pair, k, support, deadline=deadline, polished=True)
    curve: list[str] = []
    stopped_by = "max_seconds"
    while stopped_by == "max_seconds" and time.perf_counter() < deadline:
        until = min(deadline, time.perf_counter() + seconds / CURVE_POINTS)
        stopped_by = search.advance(until, at_least_one=False)
        gap = _gap(search.value, search.upper_bound)
        curve.append(f"{time.perf_counter() - start:.0f} s: {100 * gap:.2f} %")
    return (search.value, search.upper_bound, time.perf_counter() - start, curve,
            stopped_by == "completed", search.support)


def _colon_lda_pair(genes: int = 300) -> MatrixPair:
    """Two-class LDA on the ``genes`` highest-variance log₁₀ colon profiles: A = d dᵀ, B the
    within-class scatter of 62 samples (rank 60) plus the paper's ε (``"auto"``)."""
    data = load_dataset("colon")
    X = np.log10(data.X)
    idx = np.sort(np.argsort(-X.var(axis=0), kind="stable")[:genes])
    sc = scatter_matrices(X[:, idx], data.y)
    return check_pair(sc.A, sc.B, regularization="auto")


def _sonar_lda_pair() -> MatrixPair:
    """Two-class LDA on Sonar (208 samples, 60 features; B positive definite, ε = 0)."""
    data = load_dataset("sonar")
    sc = scatter_matrices(data.X, data.y)
    return check_pair(sc.A, sc.B, regularization="auto")


@contextlib.contextmanager
def _row_kernel_before():
    """The search with the row-sum bounds' kernel as first written
    (:func:`._eslda_reference.row_tops_before`)."""
    from unittest import mock

    with mock.patch.object(_bounds, "_row_tops", row_tops_before):
        yield


def perspective_floor(pair: MatrixPair, k: int) -> float | None:
    """Rank one, B = W + εI: ``dᵀ(W + ε(n/k)I)⁻¹d``, the value of the perspective (Boolean)
    relaxation of max_{|S|=k} d_Sᵀ B_S⁻¹ d_S at the uniform weights s = k/n, so a lower
    bound on that relaxation's optimum; None for other pairs.

    The relaxation is max over w and s ∈ [0, 1]ⁿ, Σs = k, of 2dᵀw − wᵀWw − ε Σ w_i²/s_i
    (at s the indicator of S it is d_Sᵀ(W_S + εI)⁻¹d_S; w_i²/s_i is jointly convex), and at
    s = k/n it is 2dᵀw − wᵀ(W + εn/k I)w, maximal at dᵀ(W + εn/k I)⁻¹d. When W has rank
    below n and ε is small, the directions of d outside W's range cost only εn/k: the
    floor is far above the optimum, and every bound that contains this relaxation is."""
    if not pair.rank_one or pair.epsilon <= 0:
        return None
    n = pair.n
    W = pair.B.copy()
    W[np.diag_indices(n)] += pair.epsilon * (n / k - 1.0)
    return float(pair.d @ np.linalg.solve(W, pair.d))


#: The ℓ₁ relaxation's floor (:func:`~spectral_kit.sparse_lda.relaxation_floor`) of the
#: hard rows left uncertified: up to this many variables (the search does not solve the
#: relaxation above 1,000), in about this long.
RELAXATION_FLOOR_MAX_N = 1000
RELAXATION_FLOOR_SECONDS = 60.0


#: Baselines of the hard rows: (label, search class, context it runs in).
_WITHOUT_RELAXATION = ("the same search without the ℓ₁ relaxation, same budget",
                       _ESLDASearchWithoutRelaxation, contextlib.nullcontext)
_ROW_KERNEL_BEFORE = ("the same search with the row-sum kernel as first written, same "
                      "budget (the relaxation is not solved above n = 1,000)", ESLDASearch,
                      _row_kernel_before)


def _hard_rows(quick: bool) -> list[BenchResult]:
    """Weak signals, where the cardinality bounds are loose: the weak spiked covariance
    (β = 1, 200 samples, 10-sparse spike) at p = 300 (three seeds) and p = 500, k = 10,
    120 s each, and Sonar's correlation at k = 25, 60 s -- the search against the same
    search without the root's ℓ₁ relaxation (:mod:`~spectral_kit.sparse_lda.relaxation`),
    run one after the other in this process, each with its anytime curve. Then the wide
    and ill-conditioned cases: colon's 2,000 genes at k = 20 (300 s, against the row-sum
    kernel as first written), and sparse LDA on colon's top 300 genes (B of rank 60 plus
    the paper's ε) and on Sonar at k = 10 (60 s, against the search without the
    relaxation)."""
    if quick:
        return []
    cases = [(f"weak spiked covariance p={p}, k=10 (seed {seed})",
              lambda p=p, seed=seed: check_pair(_spiked(p, 10, 1.0, 200, seed), np.eye(p)),
              10, 120.0, goal, _WITHOUT_RELAXATION)
             for p, seeds, goal in ((300, (0, 1, 2), "certified or gap ≤ 1 % in 120 s"),
                                    (500, (0,), "gap ≤ 2 % in 120 s"))
             for seed in seeds]
    cases += [
        ("Sonar correlation, k=25", lambda: check_pair(_sonar_correlation(), np.eye(60)),
         25, 60.0, "certified in 60 s", _WITHOUT_RELAXATION),
        ("colon, all 2,000 genes, k=20",
         lambda: check_pair(_colon_top_genes(2000), np.eye(2000)), 20, 300.0,
         "certified in 300 s", _ROW_KERNEL_BEFORE),
        ("sparse LDA, colon top-300 genes (B: rank 60 + ε), k=10", _colon_lda_pair, 10,
         60.0, "certified in 60 s", _WITHOUT_RELAXATION),
        ("sparse LDA, Sonar (B: within-class scatter), k=10", _sonar_lda_pair, 10, 60.0,
         "certified in 60 s", _WITHOUT_RELAXATION),
    ]
    rows = []
    for label, make, k, budget, goal, (baseline, base_class, context) in cases:
        pair = make()
        value, upper, seconds, curve, certified, support = _anytime(pair, k, budget)
        with context():
            b_value, b_upper, b_seconds, b_curve, b_certified, _ = _anytime(
                pair, k, budget, base_class)
        floors = {}
        if (floor := perspective_floor(pair, k)) is not None:
            floors["perspective relaxation ≥"] = floor
        if not certified and pair.n <= RELAXATION_FLOOR_MAX_N:
            l1 = relaxation_floor(pair.A, pair.B, k, support=support,
                                  max_seconds=RELAXATION_FLOOR_SECONDS)
            floors["ℓ₁ relaxation ≥"] = l1.value
            floors["ℓ₁ relaxation's gap ≥"] = _gap(value, max(l1.value, value))
        rows.append(BenchResult(
            f"ESLDA on a hard instance: {label}", seconds, baseline=baseline,
            baseline_seconds=b_seconds, goal=goal,
            extra={"certified": certified, "value": value, "gap": _gap(value, upper),
                   "curve": "; ".join(curve), "baseline_certified": b_certified,
                   "baseline_value": b_value, "baseline_gap": _gap(b_value, b_upper),
                   "baseline_curve": "; ".join(b_curve), **floors},
        ))
    return rows


def _wide_node_rows(quick: bool) -> list[BenchResult]:
    """The bounds a wide node gets before any factorization (trace–Frobenius, row sums and
    the Perron-weighted row sums, 10 steps) on nodes of colon's 2,000-gene correlation with
    10 variables excluded and 5 fixed in, k = 20: the row-sum kernel against its first
    form, same nodes, same bounds."""
    genes = 500 if quick else 2000
    pair = check_pair(_colon_top_genes(genes), np.eye(genes))
    search = _Search(_scaled(pair), 20, np.arange(20), -np.inf, DEFAULT_GAP)
    rng = np.random.default_rng(0)
    nodes = []
    for _ in range(5 if quick else 10):
        T = np.sort(rng.choice(genes, genes - 10, replace=False))
        in_F = np.zeros(T.size, dtype=bool)
        in_F[rng.choice(T.size, 5, replace=False)] = True
        nodes.append((T, in_F))
    absA = np.abs(search.pair.A)

    def evaluate():
        out = []
        for T, in_F in nodes:
            A_T, absA_T = submatrix(search.pair.A, T), submatrix(absA, T)
            r = 20 - int(in_F.sum())
            out.append((_bounds.wolkowicz_styan_bound(A_T, in_F, r, 20),
                        _bounds.perron_rows_bound(A_T, absA_T, in_F, r, np.ones(T.size),
                                                  -np.inf, 10)[0]))
        return out

    def before():
        with _row_kernel_before():
            return evaluate()

    base, ours = timed_alternating(before, evaluate, repeat=3)
    # the same sums in another order: equal up to rounding
    same = np.allclose(evaluate(), before(), rtol=1e-12, atol=0.0)
    return [BenchResult(
        f"wide node bounds, colon {genes} genes, |T| = {genes - 10}, |F| = 5, k = 20",
        ours / len(nodes), baseline="the row-sum kernel as first written (same bounds)",
        baseline_seconds=base / len(nodes), goal="same bounds, faster",
        extra={"same_bounds (to 1e-12)": bool(same)},
    )]


def _wide_start_row(p: int, k: int) -> BenchResult:
    """The start on the weak spiked covariance against the same start with one eigen-solve
    per candidate instead of the bordered secular equations (GSLDA's full path takes
    hours at p = 2,000); both reach the same supports."""
    from unittest import mock

    pair = check_pair(_spiked(p, 10, 1.0, 200, 0), np.eye(p))
    ours, support = timed(lambda: greedy_start(pair, k))
    with mock.patch.object(_start, "_bordered_values", add_one_values):
        base, stacked = timed(lambda: greedy_start(pair, k))
    value, stacked_value = float(subset_value(pair, support)), float(subset_value(pair, stacked))
    return BenchResult(
        f"ESLDA start, weak spiked covariance p={p}, k={k}", ours,
        baseline="the same start, one eigen-solve per candidate", baseline_seconds=base,
        goal="start < 1 s at p = 300, < 10 s at p = 2,000; same value as the baseline",
        extra={"value": value, "baseline_value": stacked_value,
               "same_value": bool(abs(value - stacked_value) <= 1e-9 * abs(stacked_value))},
    )


def _eslda_rows(quick: bool) -> list[BenchResult]:
    rows = []
    sonar = check_pair(_sonar_correlation(), np.eye(60))
    for k in (5, 10) if quick else (5, 10, 20):
        rows.append(_certify("Sonar correlation (sparse PCA)", sonar, k, 10.0, 10.0))
    seeds = (0,) if quick else (0, 1, 2)
    for seed in seeds:
        p = random_pair(40, smoothness=0.5, kind="rank_one", random_state=seed)
        rows.append(_certify(f"rank-one random pair (seed {seed}; paper: ≈ 2 h)",
                             check_pair(p.d, p.B), 20, 60.0, 60.0 if not quick else 10.0))
    if not quick:
        for seed in seeds:
            p = random_pair(80, smoothness=0.5, kind="rank_one", random_state=seed)
            rows.append(_certify(f"rank-one random pair (seed {seed})",
                                 check_pair(p.d, p.B), 40, 60.0, 60.0))
        p = random_pair(60, kind="general", random_state=0)
        rows.append(_certify("general A, random pair (seed 0)", check_pair(p.A, p.B), 10,
                             60.0, 60.0))
        digits = _digits_pair()
        for k in (5, 10):
            rows.append(_certify("general A, digits LDA (10 classes)", digits, k, 60.0, 60.0))
        rows.extend(_general_frontier_rows())
        rows.extend(_planted_general_rows())
    for genes in (100,) if quick else (100, 200):
        colon = check_pair(_colon_top_genes(genes), np.eye(genes))
        for k in (5, 10) if quick else (5, 10, 20):
            rows.append(_certify(f"colon top-{genes}-variance genes (sparse PCA)", colon, k,
                                 10.0, 10.0 if quick else 30.0))
    beta = 3.0
    population = check_pair(_spiked(120, 10, beta, None, 0), np.eye(120))
    rows.append(_certify("spiked covariance, population (sparse PCA)", population, 10, 10.0,
                         10.0, known=1.0 + beta))
    if not quick:
        sample = check_pair(_spiked(120, 10, beta, 200, 0), np.eye(120))
        rows.append(_certify("spiked covariance, 200 samples (sparse PCA)", sample, 10, 60.0,
                             60.0))
    pair = random_pair(20, smoothness=0.5, kind="rank_one", random_state=0)
    ours, res = timed(lambda: eslda(pair.d, pair.B, 10), repeat=3)
    base, ex = timed(lambda: exhaustive(pair.d, pair.B, 10))
    rows.append(BenchResult(
        "ESLDA n=20, k=10, rank-one A (incl. GSLDA init)", ours,
        baseline="exhaustive enumeration of C(20,10) subsets", baseline_seconds=base,
        goal="same optimum",
        extra={"nodes_expanded": res.nodes_expanded,
               "same_value": bool(abs(res.value - ex.value) <= 1e-9 * ex.value)},
    ))
    return rows


def _colon_rows(quick: bool) -> list[BenchResult]:
    data = load_dataset("colon")
    X = np.log10(data.X)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = data.y
    sc = scatter_matrices(X, y)
    eps = auto_epsilon(sc.B, A=sc.A)
    rows = []
    steps = 3 if quick else 10
    genes = 500 if quick else X.shape[1]
    Xg = X[:, :genes]
    scg = scatter_matrices(Xg, y)
    ours, fwd = timed(
        lambda: greedy_forward(scg.d, scg.B, steps, regularization=eps), repeat=3
    )
    sfs = SequentialFeatureSelector(
        RayleighScore(eps), n_features_to_select=steps, direction="forward",
        scoring=rayleigh_scorer, cv=[(np.arange(y.size), np.arange(y.size))],
    )
    start = time.perf_counter()
    sfs.fit(Xg, y)
    base = time.perf_counter() - start
    picked = set(np.flatnonzero(sfs.get_support()))
    evaluations = sum(genes - i for i in range(steps))
    rows.append(BenchResult(
        f"greedy forward, {steps} steps, colon ({genes} genes)", ours,
        baseline="sklearn SequentialFeatureSelector, same score", baseline_seconds=base,
        goal="ratio ≥ 50",
        extra={"same_features": picked == set(fwd.order.tolist()), "epsilon": eps},
        # The peer a user would pick for greedy selection, measured here; the ESLDA rows
        # compare the search with its own first version.
        headline=True,
    ))
    per_evaluation = base / evaluations
    n = X.shape[1]
    full_seconds, path = timed(lambda: gslda(sc.d, sc.B, regularization=eps))
    rows.append(BenchResult(
        f"GSLDA full path (forward + backward, k = 1..{n}), colon", full_seconds,
        baseline=(f"SFS forward path, extrapolated: ≥ {n * (n + 1) // 2} evaluations × "
                  "measured cost each"),
        baseline_seconds=per_evaluation * n * (n + 1) / 2,
        goal="ratio ≥ 50",
        extra={"epsilon": eps, "max_value": float(path.values.max())},
        extrapolated=True,
    ))
    return rows


@benchmark("sparse-lda")
def run(quick: bool = False) -> list[BenchResult]:
    """ESLDA certification and node rates against the first search, and GSLDA on colon
    cancer (see the module docstring).

    Everything, baselines included, runs with single-threaded BLAS, so that ratios compare
    algorithms rather than thread scheduling on a shared machine. Measured rows come first;
    the one extrapolated baseline is last.
    """
    with single_threaded_blas():
        return (_start_rows(quick) + _eslda_rows(quick) + _hard_rows(quick)
                + _parallel_rows(quick)
                + _optimal_spca_rows() + _node_rate_rows(quick) + _wide_node_rows(quick)
                + _colon_rows(quick))
