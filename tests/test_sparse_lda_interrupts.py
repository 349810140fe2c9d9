"""An exact search interrupted mid-way (Ctrl-C, a kernel interrupt, a failing worker) keeps
a queue that covers every subset it has not beaten: its bound still brackets the optimum,
and resumed, it certifies the brute-force optimum -- in one process and on workers."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit import sparse_lda as sl
from spectral_kit.sparse_lda import parallel
from spectral_kit.sparse_lda.branch_bound import ESLDASearch
from spectral_kit.sparse_lda.pair import check_pair
from spectral_kit.sparse_lda.search import _Search

RTOL = 1e-9
#: Pairs of 18 variables whose trees have several nodes at k = 9 from a poor start.
SEEDS = {"rank_one": 1, "general": 0, "pca": 2}


def _pair(kind: str, seed: int, n: int):
    if kind == "pca":
        rng = np.random.default_rng(seed)
        X = rng.standard_normal((3 * n, n)) @ rng.standard_normal((n, n))
        return check_pair(np.corrcoef(X, rowvar=False), np.eye(n))
    rp = sl.random_pair(n, kind=kind, random_state=seed)
    return check_pair(rp.d if kind == "rank_one" else rp.A, rp.B)


def _interrupt_at(monkeypatch, cls, name: str, call: int, *,
                  after: bool = False) -> list[int]:
    """Make ``cls.name`` raise KeyboardInterrupt at its ``call``-th call (never for 0),
    instead of running or, with ``after``, once it has run; returns the running count of
    its calls."""
    original = getattr(cls, name)
    calls = [0]

    def interrupted(*args, **kwargs):
        calls[0] += 1
        if calls[0] == call and not after:
            raise KeyboardInterrupt
        out = original(*args, **kwargs)
        if calls[0] == call:
            raise KeyboardInterrupt
        return out

    monkeypatch.setattr(cls, name, interrupted)
    return calls


@pytest.mark.parametrize("kind", ["rank_one", "general", "pca"])
@pytest.mark.parametrize("where", ["expand", "prune_node", "push"])
def test_a_search_interrupted_in_a_node_resumes_to_the_optimum(kind, where, monkeypatch):
    pair = _pair(kind, SEEDS[kind], 18)
    k = 9
    optimum = sl.exhaustive(pair.A, pair.B, k).value
    # from a poor start, so that the lost part of a tree would hold better subsets
    full = ESLDASearch(pair, k, np.arange(k))
    with monkeypatch.context() as patch:
        counted = _interrupt_at(patch, _Search, where, 0)
        full.advance()
    assert full.value == pytest.approx(optimum, rel=RTOL)
    calls = range(1, counted[0] + 1)
    interrupted = 0
    for call in calls:
        search = ESLDASearch(pair, k, np.arange(k))
        with monkeypatch.context() as patch:
            _interrupt_at(patch, _Search, where, call)
            try:
                search.advance()
            except KeyboardInterrupt:
                pass
            else:  # the search ended before that call
                continue
        interrupted += 1
        assert not search.optimal
        assert search.upper_bound >= optimum * (1 - RTOL), (where, call)
        assert search.advance() == "completed"
        assert search.value == pytest.approx(optimum, rel=RTOL), (where, call)
    assert interrupted >= 2


def test_a_search_interrupted_on_workers_resumes_to_the_optimum(monkeypatch):
    monkeypatch.setattr(ESLDASearch, "START_WORKERS_AFTER", 0.0)
    monkeypatch.setattr(ESLDASearch, "PARALLEL_AFTER", 0.0)
    # a slice that ends at once expands one node: the tree of nine nodes then takes the
    # driver at least five rounds of results, however fast the machine
    monkeypatch.setattr(parallel, "MIN_SLICE_SECONDS", 1e-5)
    monkeypatch.setattr(parallel, "MAX_SLICE_SECONDS", 1e-5)
    pair = _pair("general", 0, 18)
    k = 9
    optimum = sl.exhaustive(pair.A, pair.B, k).value
    interrupted = 0
    for call in (1, 2, 3):
        search = ESLDASearch(pair, k, np.arange(k))
        with monkeypatch.context() as patch:
            # as the driver takes the workers' results: their shares are out of the queue,
            # one of them back but not merged yet
            _interrupt_at(patch, parallel, "wait", call, after=True)
            try:
                search.advance(n_jobs=2)
            except KeyboardInterrupt:
                pass
            else:
                continue
        interrupted += 1
        assert search.upper_bound >= optimum * (1 - RTOL)
        assert search.advance() == "completed"
        assert search.value == pytest.approx(optimum, rel=RTOL)
    assert interrupted == 3


@pytest.mark.parametrize("kind", ["rank_one", "general", "pca"])
def test_expansions_cut_short_by_the_deadline_still_cover_the_tree(kind, monkeypatch):
    """Past the deadline an expansion queues its first child and the rest as one node
    (``interrupted``). With a deadline that always reads as passed, every expansion splits
    that way: the bound still brackets the optimum at every stop, and the search certifies
    the brute-force optimum. Slices that must make progress never split."""
    import time

    pair = _pair(kind, SEEDS[kind], 18)
    k = 9
    optimum = sl.exhaustive(pair.A, pair.B, k).value
    splits = [0]

    def passed(self):
        if self.interrupt_at is None:
            return False
        splits[0] += 1
        return True

    monkeypatch.setattr(_Search, "interrupted", passed)
    search = ESLDASearch(pair, k, np.arange(k))
    for _ in range(10_000):
        stopped = search.advance(deadline=time.perf_counter() + 600,
                                 max_nodes=search.nodes + 3, at_least_one=False)
        assert search.upper_bound >= optimum * (1 - RTOL)
        if stopped == "completed":
            break
    assert search.value == pytest.approx(optimum, rel=RTOL)
    assert splits[0] > 0, "no expansion was split"
    before = splits[0]
    sliced = ESLDASearch(pair, k, np.arange(k))
    sliced._search.advance(deadline=0.0, at_least_one=True)
    assert splits[0] == before
