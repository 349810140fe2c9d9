"""ESLDA: exact sparse LDA by branch-and-bound on the eigenvalue bounds (Sec. 2.3).

A node is a pair (F, T) with F ⊆ T: the k-subsets S with F ⊆ S ⊆ T. By the inclusion
principle (Thm. 1, Eq. 8) λ_max(A_S, B_S) ≤ λ_max(A_T, B_T) for every such S, and the bound
tightens as T shrinks. Nodes are expanded best-first (largest bound first) from an incumbent
given by greedy forward selection (Sec. 2.3), so that the search can stop at any time with
the incumbent and a certified upper bound: the largest bound still open.

What makes n = 40, k = 20 tractable (the paper quotes ≈ 2 hours):

* **All one-removal bounds at once.** At a node, f(T∖j) for every free j -- in the rank-one
  case ``f(T) − w_j²/P_jj`` with P = B_T⁻¹, w = P d_T (one inverse, O(m²) after it); in general
  stacked eigen-solves.
* **Two-removal bounds (rank one).** f(T∖{i, j}) = f(T) − w_Rᵀ (P_RR)⁻¹ w_R with R = {i, j}, a
  2 × 2 solve, for all pairs in O(m²). Any S in the node leaves out ``e = |T| − k`` free
  variables, so when e ≥ 2 a subset without j is bounded by max_i f(T∖{i, j}).
  For a general A the same bounds come from the inertia of A_T − μB_T at μ just under the
  threshold (:class:`_PairsAtThreshold`): one inverse tells, for every pair, whether
  f(T∖{i, j}) can exceed μ -- wherever at most two eigenvalues of the node lie above μ.
* **Fixing.** A free j whose exclusion bound is already ≤ the incumbent must be in every
  improving S: it moves to F without branching.
* **Narendra–Fukunaga branching.** Free variables u_1, u_2, … sorted by increasing exclusion
  bound; child i excludes u_i and includes u_1 … u_{i−1}. The children partition the node, and
  the ones with low bounds -- the largest subtrees -- are pruned first.
* **Closed-form leaves.** Nodes needing one or (rank one) two more removals, or one more
  inclusion, are solved directly from the same quantities.

What makes sparse PCA at n = 60–120, k = 5–10 a matter of seconds (:class:`_Search`; the
search above is the benchmark's reference, :mod:`spectral_kit.bench._eslda_reference`):

* **Cardinality bounds** (:mod:`.bounds`, each with its proof): the e-th largest removal
  bound; for B = I (or divided by λ_min(B)) the trace–Frobenius (Wolkowicz–Styan), row-sum
  (Gershgorin, as in Berk & Bertsimas 2019), fixed-block and soft-threshold (ℓ₁) bounds; the
  generalized top-entries bound from a node's own eigenpairs. They use k, so they prune near
  the root, where f(T) is close to λ_max(A, B).
* **Perron-weighted row sums.** The row-sum bound holds for every positive weighting; a
  nonlinear power iteration (warm-started from node to node) finds weights at which it is
  nearly the largest k-sparse eigenvalue of |A| -- for correlated blocks of variables, where
  the unweighted sums overshoot, it certifies Sonar's k = 20 in seconds.
* **Schur-complement loss bounds (rank one, any B).** Removing R from T loses exactly
  x_Rᵀ (P_RR)⁻¹ x_R (P = B_T⁻¹, x = P d_T), which is ≥ 2yᵀx_R − yᵀP_RR y for every y; with
  y along x / diag(P) or P_ff⁻¹ x_f and the double sum bounded row by row, the loss splits
  into per-variable terms, summed over the e removed or the r kept variables. They capture
  many removals at once where λ_min(B) is tiny (smooth within-class covariances) and the
  cardinality bounds above are useless.
* **The perspective bound (rank one, B ≠ I;** :mod:`.perspective`). Given F, the kept
  variables' gain is best-subset regression on the Schur complement Q = B_T / B_F; a
  diagonal D ⪯ Q splits it into a convex (perspective) relaxation whose tangent planes bound
  every subset by per-variable terms, used like the kept-side Schur terms for the node,
  fixing and children. Conditioning on F makes the free variables of a smooth process nearly
  independent, so D is a tenth of diag(Q) deep in the tree: on the random n = 80, k = 40
  pairs it prunes most of the nodes the Schur bounds leave. The branching order stays on
  the other exclusion bounds: sorted by the perspective terms, the tree grew several times.
* **Fixing out (rank one).** The same kept-side terms bound the subsets that keep a free j:
  f(T) − base + ψ_j + (the r − 1 largest other ψ). Where that cannot beat the incumbent,
  j leaves T and the node is evaluated again without it (its bounds tighten with the
  smaller T); on the random n = 60–80 pairs this removes 8–31 % of the nodes.
* **Cheap nodes.** Far from the leaves (e > k) the O(m²) bounds decide without an
  eigen-solve; children are bounded when they are created, so best-first order follows them.
* **Short finishes.** Rank one: a node that needs at most three more variables is solved by
  one vectorized bordered-Cholesky pass over all the candidate subsets instead of a subtree,
  without factorizing B_T or bounding it at all. General A: a node that needs at most
  six more is settled by a threshold test, not by values
  (:func:`._completions.completions_above`): with μ just under the incumbent and f(F) < μ,
  f(F ∪ R) > μ exactly when K_RR is not positive definite, K the Schur complement of
  A_FF − μB_FF in μB − A over the candidates, scaled to a unit diagonal (Haynsworth
  inertia, Sylvester) -- one m × m matrix for the node. Pairs and triples are decided by
  their principal minors (a triple only through an entry of size ≥ ½); more variables by
  a chain of Schur complements that stops once the variables left give a positive
  definite block (interlacing), ordered by a pivoted Cholesky factorization. Only the
  subsets that pass (improvements and near-ties) are evaluated. Where the test cannot
  decide (some smaller F ∪ R' already reaches μ) pairs are solved by bordering F's
  whitened eigenproblem (:func:`._numerics.bordered_add_pairs_values`, values of
  arrowhead secular equations, Weyl's inequality skipping pairs) and a node that needs
  three or more is branched. On the benchmark's general pairs at n = 60, k = 10 this takes
  the noise-only pair from an estimated hour to under a minute, the planted one (θ = 10)
  from 13.8 s to 0.5 s. A general node that needs up to seven more solves its children
  that keep the first variable u_1 the same way, as one test from F ∪ {u_1}, instead of
  queuing them (:meth:`_Search.solves_kept_directly`). All r + 1 children of a node are
  bounded together, on (r + 1) × |u| arrays.
* **Node kernels without wrappers.** LAPACK's ``dpotrf``/``dpotri``/``dtrtri``/``dposv``
  directly, no factorization at all when B = I, submatrices by ``take`` rather than ``ix_``;
  the rank-one pair values f(T ∖ {i, j}) only for the blocks of free variables the bounds
  read (:class:`_PairValues`). On vectors of tens of entries NumPy's Python-level
  wrappers cost more than the work they wrap, so the node code calls the ufunc reductions
  (``np.add.reduce`` for ``.sum()``, ``np.maximum.reduce`` for ``.max()``) and the
  in-place array methods (``partition``, ``sort``, ``nonzero``) itself: the same arithmetic,
  bit for bit (the same trees), a few per cent less time a node.
* **A start that costs seconds.** Greedy forward selection to k (:func:`.start.greedy_start`,
  O(n·k) up-dates per step, not GSLDA's O(n⁵) full path for a general A) polished by a
  best-improvement one-swap local search; both count against ``max_seconds``.

Bounds computed by cancellation carry a rounding margin (∝ eps · cond(B_T) · f(T)); a node is
pruned only when its bound plus that margin cannot beat the incumbent by more than ``gap``.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
from threadpoolctl import threadpool_limits

from ..validation import check_finite_scalar, check_int
from ._numerics import subset_value, subset_vector
from .driver import DEFAULT_GAP
from .nodes import _scaled
from .pair import MatrixPair, check_k, check_pair
from .parallel import check_n_jobs, parallel_advance, start_workers
from .results import ESLDAResult, GSLDAPath
from .search import _Search
from .spectrum import check_support
from .start import greedy_start, local_swap_search

__all__ = ["DEFAULT_GAP", "ESLDASearch", "eslda", "eslda_pair", "single_threaded_blas"]

class ESLDASearch:
    """ESLDA at one cardinality, run in slices of bounded time.

    The search of :func:`eslda` (best first from the greedy support after a one-swap local
    search, default gap), but resumable: each :meth:`advance` spends until a deadline on it
    and keeps the queue, so an explorer can give it a few tens of milliseconds at a time and
    keep its sliders live. At
    any moment the incumbent and the largest open bound bracket the optimum (Sec. 2.3:
    "preset thresholds based on generalized eigenvalue bounds can be used for early
    termination"). That holds after an interrupt too: Ctrl-C (or an error) during
    :meth:`advance` puts the node being expanded, and the nodes out with worker processes,
    back in the queue, and a later :meth:`advance` resumes the search.

    Parameters
    ----------
    pair : MatrixPair
        The validated pair (:func:`~spectral_kit.sparse_lda.check_pair`).
    k : int
        Cardinality.
    support : ndarray of int, shape (k,)
        The initial incumbent (the greedy support at k, or GSLDA's).
    gap : float
        Relative optimality gap, as in :func:`eslda`.
    deadline : float, optional
        ``time.perf_counter()`` value after which the local search that polishes
        ``support`` stops (the start counts against :func:`eslda`'s ``max_seconds``).
    polished : bool
        ``support`` is a one-swap local optimum already (:func:`.start.greedy_start`'s):
        no local search.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> import time
    >>> p = sl.random_pair(16, random_state=0)
    >>> pair = sl.check_pair(p.d, p.B)
    >>> search = sl.ESLDASearch(pair, 6, sl.gslda(p.d, p.B).support_at(6))
    >>> while search.advance(time.perf_counter() + 0.01) == "max_seconds":
    ...     pass  # a slider, a redraw: the search resumes where it stopped
    >>> search.optimal, bool(search.upper_bound >= search.value)
    (True, True)
    """

    #: The branch-and-bound state class and whether a one-swap local search polishes the
    #: initial incumbent (the benchmark's reference search turns both back to the first
    #: search).
    _search_class: type = _Search
    _polish = True
    POLISH_MIN_N = 24
    #: With several worker processes: the workers are started after this many seconds of
    #: search in this process (most searches end sooner, and never start them), and take
    #: over after PARALLEL_AFTER: a worker needs most of a second to start and import the
    #: kit on an idle machine, longer beside a running search.
    START_WORKERS_AFTER = 0.2
    PARALLEL_AFTER = 2.0

    def __init__(self, pair: MatrixPair, k: int, support: np.ndarray, gap: float = DEFAULT_GAP,
                 *, deadline: float | None = None, polished: bool = False):
        self.pair, self.k = pair, int(k)
        scaled = _scaled(pair)
        support = np.sort(np.asarray(support, dtype=np.intp))
        self.initial_value = subset_value(scaled, support)
        value = self.initial_value
        # below POLISH_MIN_N the whole search costs less than one round of swaps
        # (the default start is polished already: one more round at n = 2,000 costs seconds)
        if self._polish and not polished and pair.n >= self.POLISH_MIN_N:
            polished, polished_value = local_swap_search(scaled, support, deadline=deadline)
            if polished_value > value:
                support, value = polished, polished_value
        self._search = self._search_class(scaled, self.k, support, value, gap)
        self._search.deadline = deadline
        self.seconds = 0.0
        self.optimal = False
        self._value: tuple[bytes, float] | None = None
        self._stopped_bound: float | None = None

    def advance(
        self, deadline: float | None = None, max_nodes: int | None = None,
        *, at_least_one: bool = True, n_jobs: int = 1,
    ) -> str:
        """Expand nodes until the optimum is certified, ``max_nodes`` nodes in all are
        expanded or ``time.perf_counter()`` passes ``deadline`` (by default at least one
        node per call, so that every slice makes progress); returns why it stopped:
        "completed", "max_nodes", "max_seconds" or "stopped" (after :meth:`stop`).

        With ``n_jobs`` > 1 (a validated count, :func:`.parallel.check_n_jobs`), a search
        not certified within :attr:`PARALLEL_AFTER` seconds goes on in that many worker
        processes (:func:`.parallel.parallel_advance`; :meth:`_advance_on_workers`)."""
        if self.stopped:
            return "stopped"
        start = time.perf_counter()
        try:
            if n_jobs == 1:
                stopped_by, _ = self._search.advance(deadline, max_nodes,
                                                     at_least_one=at_least_one)
            else:
                stopped_by = self._advance_on_workers(start, deadline, max_nodes,
                                                      at_least_one, n_jobs)
        finally:
            self.seconds += time.perf_counter() - start
        self.optimal = stopped_by == "completed"
        return stopped_by

    def _advance_on_workers(self, start: float, deadline: float | None,
                            max_nodes: int | None, at_least_one: bool, n_jobs: int) -> str:
        """:meth:`advance` with ``n_jobs`` > 1: here first, the workers started after
        :attr:`START_WORKERS_AFTER` seconds, and the queue handed to them after
        :attr:`PARALLEL_AFTER`."""
        for phase, after in enumerate((self.START_WORKERS_AFTER, self.PARALLEL_AFTER)):
            until = start + after if deadline is None else min(deadline, start + after)
            stopped_by, _ = self._search.advance(until, max_nodes,
                                                 at_least_one=at_least_one and phase == 0)
            out_of_time = deadline is not None and time.perf_counter() >= deadline
            if stopped_by != "max_seconds" or out_of_time:
                return stopped_by
            if phase == 0:
                start_workers(n_jobs)
        return parallel_advance(self._search, n_jobs, deadline, max_nodes)

    def stop(self) -> None:
        """Give up: keep the incumbent and the certified bound, free the queue."""
        if not self.optimal and self._stopped_bound is None:
            self._stopped_bound = self.upper_bound
            self._search.heap.clear()

    @property
    def stopped(self) -> bool:
        """Whether the search was given up before its certificate."""
        return self._stopped_bound is not None

    @property
    def support(self) -> np.ndarray:
        """The incumbent support (the optimum once :attr:`optimal`)."""
        return self._search.best_support

    @property
    def value(self) -> float:
        """λ_max(A_S, B_S) of the incumbent, evaluated on the caller's pair."""
        key = self.support.tobytes()
        if self._value is None or self._value[0] != key:
            self._value = (key, subset_value(self.pair, self.support))
        return self._value[1]

    @property
    def upper_bound(self) -> float:
        """A certified upper bound on the optimum (the value itself, up to the gap, once
        certified)."""
        if self._stopped_bound is not None:
            return self._stopped_bound
        search = self._search
        bound = search.threshold()
        if not self.optimal and search.heap:
            bound = max(bound, search.top_bound())
        if not np.isfinite(bound):
            # the root is still queued (a zero budget): its inclusion bound λ_max(A, B)
            # (Thm. 1) holds for every subset
            info = search.node_info(np.arange(self.pair.n))
            bound = info.f_T + info.margin
        return max(float(bound), self.value)

    @property
    def nodes(self) -> int:
        """Branch-and-bound nodes expanded so far."""
        return self._search.nodes

def eslda(
    A: Any,
    B: Any,
    k: int,
    *,
    init: Any = None,
    gap: float = DEFAULT_GAP,
    max_seconds: float | None = None,
    max_nodes: int | None = None,
    regularization: Any = None,
    n_jobs: int | None = None,
) -> ESLDAResult:
    """Exact sparse LDA (ESLDA): the k-subset with the largest λ_max(A_S, B_S), certified.

    Best-first branch-and-bound on the eigenvalue bounds of the generalized inclusion
    principle (Thm. 1, Eq. 8) and the cardinality bounds of :mod:`.bounds`, initialised from
    greedy forward selection (Sec. 2.3) polished by a one-swap local search. Sparse PCA is
    B = I.

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Between-class matrix, or the vector d of a rank-one A = d dᵀ (detected automatically
        from a matrix too); rank one makes every bound a Cholesky quantity.
    B : array-like of shape (n, n)
        Within-class matrix, positive definite unless ``regularization`` is given.
    k : int
        Cardinality, 1 ≤ k ≤ n.
    init : GSLDAPath or array-like of int, optional
        Initial incumbent: a GSLDA path (its support at k is used) or a support of size k.
        Default: greedy forward selection up to k (:func:`.start.greedy_start`); its cost
        (and that of the local search after it) counts against ``max_seconds``.
    gap : float
        Relative optimality gap: the search stops when no open node can beat the incumbent by
        more than ``gap · |value|``. The default treats values equal to ~1e-10 as ties.
    max_seconds, max_nodes : optional
        Stop early and return the incumbent with a certified ``upper_bound``
        ("preset thresholds based on generalized eigenvalue bounds can be used for early
        termination", Sec. 2.3).
    regularization : None, float or "auto"
        B ← B + εI; reported as ``epsilon``.
    n_jobs : int, optional
        Worker processes for a search that is not certified within two seconds
        (:mod:`.parallel`): None or 1 runs in this process, −1 on every available CPU. The
        result is certified either way; the node count varies from run to run.

    Returns
    -------
    ESLDAResult
        The support, its value and factor, ``upper_bound``, ``optimal``, ``nodes_expanded``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> p = sl.random_pair(14, random_state=0)
    >>> res = sl.eslda(p.d, p.B, 5)
    >>> ex = sl.exhaustive(p.d, p.B, 5)
    >>> res.optimal, res.support.tolist() == ex.support.tolist()
    (True, True)
    >>> res.stopped_by
    'completed'
    """
    pair = check_pair(A, B, regularization)
    k = check_k(k, pair.n)
    gap = check_finite_scalar(gap, "gap", low=0.0)
    if max_seconds is not None:
        max_seconds = check_finite_scalar(max_seconds, "max_seconds", low=0.0)
    if max_nodes is not None:
        max_nodes = check_int(max_nodes, "max_nodes", low=0)
    if init is not None and not isinstance(init, GSLDAPath):
        init = check_support(init, pair.n, "init", k)
    if isinstance(init, GSLDAPath) and init.values.size != pair.n:
        raise ValueError(
            f"init is a GSLDA path over {init.values.size} features but A and B have "
            f"{pair.n}; pass the path computed for this pair."
        )
    n_jobs = check_n_jobs(n_jobs)
    with single_threaded_blas():
        return eslda_pair(
            pair, k, init=init, gap=gap, max_seconds=max_seconds, max_nodes=max_nodes,
            n_jobs=n_jobs,
        )


def single_threaded_blas() -> threadpool_limits:
    """A context in which BLAS runs on one thread.

    The search makes thousands of LAPACK calls on matrices of at most n × n; for them BLAS
    threads only add synchronisation (on a busy two-core machine a 40 × 40 search ran 25×
    slower with two threads than with one).
    """
    return threadpool_limits(limits=1, user_api="blas")


def eslda_pair(
    pair: MatrixPair,
    k: int,
    *,
    init: GSLDAPath | np.ndarray | None = None,
    gap: float = DEFAULT_GAP,
    max_seconds: float | None = None,
    max_nodes: int | None = None,
    n_jobs: int = 1,
    _search_class: type | None = None,
) -> ESLDAResult:
    """:func:`eslda` on a validated pair with validated arguments (no BLAS thread change;
    ``n_jobs`` a count ≥ 1).

    ``_search_class`` replaces :class:`ESLDASearch` (the benchmark's reference search,
    :mod:`spectral_kit.bench._eslda_reference`)."""
    # the budget covers the start: the greedy pass and its local search
    start = time.perf_counter()
    deadline = None if max_seconds is None else start + max_seconds
    polished = init is None
    if polished:
        init = greedy_start(pair, k, deadline=deadline)
    support = init.support_at(k) if isinstance(init, GSLDAPath) else np.asarray(init)
    search = (_search_class or ESLDASearch)(pair, k, support, gap, deadline=deadline,
                                            polished=polished)
    stopped_by = search.advance(deadline, max_nodes, at_least_one=False, n_jobs=n_jobs)
    seconds = time.perf_counter() - start
    value, x = subset_vector(pair, search.support)
    return ESLDAResult(
        support=search.support, value=value, x=x, epsilon=pair.epsilon,
        upper_bound=float(max(search.upper_bound, value)), optimal=search.optimal,
        nodes_expanded=search.nodes, seconds=seconds,
        initial_value=float(search.initial_value), gap=gap, stopped_by=stopped_by,
    )
