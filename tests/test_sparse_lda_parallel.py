"""ESLDA on worker processes: the same certified optimum as one process and as brute force,
and the same anytime bracket when stopped early."""

from __future__ import annotations

import heapq
import pickle

import numpy as np
import pytest

from spectral_kit import SparseLDA
from spectral_kit import sparse_lda as sl
from spectral_kit.sparse_lda import parallel
from spectral_kit.sparse_lda.branch_bound import ESLDASearch
from spectral_kit.sparse_lda.nodes import _scaled
from spectral_kit.sparse_lda.pair import check_pair
from spectral_kit.sparse_lda.search import _Search

RTOL = 1e-9


@pytest.fixture
def at_once(monkeypatch):
    """Workers from the first node on, with short slices: small searches then go through
    several rounds of sharing out and merging back. Returns the list of the share counts
    handed out, round by round."""
    monkeypatch.setattr(ESLDASearch, "START_WORKERS_AFTER", 0.0)
    monkeypatch.setattr(ESLDASearch, "PARALLEL_AFTER", 0.0)
    monkeypatch.setattr(parallel, "MIN_SLICE_SECONDS", 0.003)
    monkeypatch.setattr(parallel, "MAX_SLICE_SECONDS", 0.003)
    rounds: list[int] = []
    shares = parallel._shares

    def counted(heap, parts, size, threshold):
        out = shares(heap, parts, size, threshold)
        rounds.append(len(out))
        return out

    monkeypatch.setattr(parallel, "_shares", counted)
    return rounds


def _pair(kind: str, seed: int, n: int):
    if kind == "pca":
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((3 * n, n)) @ rng.standard_normal((n, n))
        return np.corrcoef(X, rowvar=False), np.eye(n)
    rp = sl.random_pair(n, kind=kind, random_state=seed)
    return (rp.d if kind == "rank_one" else rp.A), rp.B


@pytest.mark.parametrize("kind", ["rank_one", "general", "pca"])
def test_workers_certify_the_brute_force_optimum(kind, at_once):
    A, B = _pair(kind, 11, 14)
    exact = sl.exhaustive_path(A, B)
    for k in (3, 7, 10):
        # a poor start, so that better subsets are found by the workers and shared
        res = sl.eslda(A, B, k, init=np.arange(k), n_jobs=2)
        assert res.optimal and res.stopped_by == "completed"
        assert res.value == pytest.approx(exact.values[k - 1], rel=RTOL)
        assert res.upper_bound >= res.value
        assert res.nodes_expanded >= 1


def test_workers_and_one_process_agree_on_a_longer_search(at_once):
    rp = sl.random_pair(40, random_state=1)
    one = sl.eslda(rp.d, rp.B, 20)
    two = sl.eslda(rp.d, rp.B, 20, n_jobs=2)
    assert one.optimal and two.optimal
    assert two.value == pytest.approx(one.value, rel=RTOL)
    # it went through the workers, in several rounds, and both had work at once
    assert len(at_once) >= 2 and max(at_once) == 2


def test_a_budget_still_brackets_the_optimum(at_once):
    rp = sl.random_pair(40, random_state=2)
    full = sl.eslda(rp.d, rp.B, 20)
    for budget in ({"max_nodes": 30}, {"max_seconds": 0.02}):
        res = sl.eslda(rp.d, rp.B, 20, n_jobs=2, **budget)
        assert res.value <= full.value * (1 + RTOL)
        assert res.upper_bound >= full.value * (1 - RTOL)
        if not res.optimal:
            assert res.stopped_by == next(iter(budget))


def test_the_search_state_travels_without_its_queue():
    rp = sl.random_pair(20, random_state=0)
    pair = _scaled(check_pair(rp.d, rp.B))
    search = _Search(pair, 8, np.arange(8), 0.0, 1e-10)
    clone = pickle.loads(pickle.dumps(search))
    assert search.heap and not clone.heap
    assert clone.threshold() == search.threshold()
    clone.set_incumbent(np.arange(8, 16), 1e300)
    assert clone.best_value == 1e300 and list(clone.best_support) == list(range(8, 16))
    clone.set_incumbent(np.arange(8), -1.0)  # a worse one is ignored
    assert clone.best_value == 1e300
    assert search.best_value == 0.0  # the original is untouched


def test_n_jobs_follows_scikit_learn():
    cpus = parallel.available_cpus()
    assert parallel.check_n_jobs(None) == 1
    assert parallel.check_n_jobs(3) == 3
    assert parallel.check_n_jobs(-1) == cpus
    assert parallel.check_n_jobs(-2) == max(1, cpus - 1)
    assert parallel.check_n_jobs(-10_000) == 1
    with pytest.raises(ValueError, match="n_jobs must not be 0"):
        sl.eslda(np.ones(3), np.eye(3), 2, n_jobs=0)
    with pytest.raises(TypeError, match="n_jobs must be an integer"):
        sl.eslda(np.ones(3), np.eye(3), 2, n_jobs=1.5)


def test_sparse_lda_estimator_passes_n_jobs(at_once):
    rng = np.random.default_rng(0)
    X = rng.standard_normal((120, 12))
    y = (X[:, 0] + 0.5 * X[:, 3] + 0.3 * rng.standard_normal(120) > 0).astype(int)
    one = SparseLDA(4, method="eslda").fit(X, y)
    two = SparseLDA(4, method="eslda", n_jobs=2).fit(X, y)
    assert two.optimal_ and one.optimal_
    assert two.value_ == pytest.approx(one.value_, rel=RTOL)
    assert two.get_params()["n_jobs"] == 2


def test_a_worker_asks_for_the_state_once_per_run():
    rp = sl.random_pair(20, random_state=0)
    pair = _scaled(check_pair(rp.d, rp.B))
    search = _Search(pair, 8, np.arange(8), 0.0, 1e-10)
    payload = pickle.dumps(search)
    root = list(search.heap)
    args = (search.best_value, search.best_support, 10.0, 5)
    assert parallel._run_slice("run-a", None, root, *args) is None  # never saw run-a
    value, support, open_nodes, expanded = parallel._run_slice("run-a", payload, root, *args)
    assert expanded >= 1 and value >= 0.0 and len(support) == 8
    # later slices of the same run go without the state
    again = parallel._run_slice("run-a", None, open_nodes, value, support, 10.0, 5)
    assert again is not None and again[0] >= value
    assert parallel._run_slice("run-b", None, root, *args) is None  # a new run


def test_shares_are_the_top_of_the_queue_and_the_rest_stays_a_heap():
    rng = np.random.default_rng(3)
    bounds = rng.permutation(np.arange(100.0))
    heap = [(-b, 0, i, b"", b"", False) for i, b in enumerate(bounds)]
    heapq.heapify(heap)
    shares = parallel._shares(heap, 2, 5, threshold=-1.0)
    assert [len(s) for s in shares] == [5, 5]
    taken = sorted(-e[0] for s in shares for e in s)
    assert taken == list(np.arange(90.0, 100.0))  # the ten largest bounds ...
    assert [-e[0] for e in shares[0]] == [99.0, 97.0, 95.0, 93.0, 91.0]  # ... dealt in turn
    left = [-heapq.heappop(heap)[0] for _ in range(len(heap))]
    assert left == list(np.arange(89.0, -1.0, -1.0))  # still a heap, nothing lost
    # the incumbent prunes bounds ≤ 94.5: the queue ends at the first of them
    heap = [(-b, 0, i, b"", b"", False) for i, b in enumerate(bounds)]
    heapq.heapify(heap)
    shares = parallel._shares(heap, 3, None, threshold=94.5)
    assert sorted(-e[0] for s in shares for e in s) == [95.0, 96.0, 97.0, 98.0, 99.0]
    assert heap == []


def test_a_worker_imports_neither_scipy_stats_nor_the_benchmarks():
    """What a worker imports to unpickle the search (the search module) leaves out the
    imports that cost seconds: scipy.stats (only the random pairs draw from it) and
    nbformat (only the notebook benchmark writes notebooks), also when the benchmarks are
    imported, as ``spectral-kit bench`` does."""
    import subprocess
    import sys

    code = (
        "import sys, pickle, numpy as np\n"
        "from spectral_kit.sparse_lda.search import _Search\n"
        "from spectral_kit.sparse_lda.pair import check_pair\n"
        "A = np.diag(np.arange(1.0, 7.0)); B = np.eye(6)\n"
        "search = _Search(check_pair(A, B), 3, np.arange(3), -np.inf, 1e-10)\n"
        "pickle.loads(pickle.dumps(search))\n"
        "first = sorted(m for m in ('scipy.stats', 'nbformat') if m in sys.modules)\n"
        "import spectral_kit.bench\n"
        "print(first, 'nbformat' in sys.modules)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[] False"
