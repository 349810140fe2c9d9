"""Knuth's estimate of the exact search's tree (``sparse_lda.estimate_tree_size``).

The estimate is unbiased when each probe sees the tree the search expands. So the tests
walk every path the probes could take (the expectation, computed exactly) and compare it
with the nodes the search itself expands from the same incumbent, on pairs small enough to
enumerate; then the sampled mean against that count.
"""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit import sparse_lda as sl
from spectral_kit.sparse_lda.branch_bound import ESLDASearch, eslda_pair
from spectral_kit.sparse_lda.pair import check_pair
from spectral_kit.sparse_lda.tree_size import _children


def small_pair(kind: str, seed: int):
    n = 28
    if kind == "identity":
        X = np.random.default_rng(seed).standard_normal((48, n))
        return check_pair(np.corrcoef(X, rowvar=False), np.eye(n))
    p = sl.random_pair(n, kind=kind, random_state=seed)
    return check_pair(p.d if kind == "rank_one" else p.A, p.B)


def tree_nodes(search, F, T, own) -> int:
    """Every node under (F, T) that the probes can reach, each with what it expands."""
    nodes, live = _children(search, F, T, own)
    return nodes + sum(tree_nodes(search, cF, cT, cown) for cF, cT, cown in live)


@pytest.mark.parametrize("kind", ["general", "rank_one", "identity"])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_probes_walk_the_tree_the_search_expands(kind, seed):
    pair = small_pair(kind, seed)
    k = 12
    best = eslda_pair(pair, k)
    assert best.optimal
    # the search again, with the optimum as its incumbent from the start: its whole tree
    again = eslda_pair(pair, k, init=best.support)
    search = ESLDASearch(pair, k, best.support)._search
    n = pair.n
    expected = tree_nodes(search, np.zeros(n, dtype=bool), np.ones(n, dtype=bool), False)
    assert expected == again.nodes_expanded >= 14
    est = sl.estimate_tree_size(pair.A, pair.B, k, best.support, probes=400, random_state=seed)
    assert est.value == pytest.approx(best.value, rel=1e-12)
    assert abs(est.nodes - expected) <= 5 * est.standard_error + 1e-9 * expected


def test_estimate_on_a_larger_tree_within_its_error():
    p = sl.random_pair(30, kind="general", random_state=0)
    pair = check_pair(p.A, p.B)
    best = eslda_pair(pair, 10)
    again = eslda_pair(pair, 10, init=best.support)
    assert again.nodes_expanded > 100
    est = sl.estimate_tree_size(p.A, p.B, 10, best.support, probes=300, random_state=1)
    assert abs(est.nodes - again.nodes_expanded) <= 5 * est.standard_error
    assert est.seconds_at(1000.0) == pytest.approx(est.nodes / 1000.0)


def test_a_weaker_incumbent_gives_a_larger_tree():
    """With its threshold held (nothing offered raises it), the tree of a weaker incumbent
    is larger than the optimum's: a node's bound is compared with a lower threshold. The
    estimator raises a weak incumbent whenever a probe meets a better subset."""
    pair = small_pair("general", 1)
    k = 12
    best = eslda_pair(pair, k)
    worst = np.argsort(np.diag(pair.A) / np.diag(pair.B))[:k]
    n = pair.n
    root = (np.zeros(n, dtype=bool), np.ones(n, dtype=bool), False)
    strong = ESLDASearch(pair, k, best.support)._search
    weak = ESLDASearch(pair, k, worst)._search
    assert weak.best_value < 0.99 * best.value
    weak.offer = lambda support: None
    assert tree_nodes(weak, *root) > tree_nodes(strong, *root)
    est = sl.estimate_tree_size(pair.A, pair.B, k, worst, probes=100, random_state=0)
    assert weak.best_value < est.value <= best.value * (1 + 1e-12)


def test_seeded_and_uniform_probes():
    p = sl.random_pair(16, kind="general", random_state=3)
    support = sl.eslda(p.A, p.B, 5).support
    a = sl.estimate_tree_size(p.A, p.B, 5, support, probes=50, random_state=7)
    b = sl.estimate_tree_size(p.A, p.B, 5, support, probes=50, random_state=7)
    assert a == b
    one = sl.estimate_tree_size(p.A, p.B, 5, support, probes=1, alpha=0.0, random_state=0)
    assert one.nodes >= 1 and np.isinf(one.standard_error)
    # a time budget of zero still runs one probe, and says so
    quick = sl.estimate_tree_size(p.A, p.B, 5, support, probes=1000, max_seconds=0.0,
                                  random_state=7)
    assert quick.probes == 1 and np.isinf(quick.standard_error)


def test_bad_arguments():
    p = sl.random_pair(10, kind="general", random_state=0)
    with pytest.raises(ValueError, match="support"):
        sl.estimate_tree_size(p.A, p.B, 4, [0, 1, 2])
    with pytest.raises(ValueError, match="probes"):
        sl.estimate_tree_size(p.A, p.B, 3, [0, 1, 2], probes=0)
    with pytest.raises(ValueError, match="max_seconds"):
        sl.estimate_tree_size(p.A, p.B, 3, [0, 1, 2], max_seconds=-1.0)
    with pytest.raises(ValueError, match="alpha"):
        sl.estimate_tree_size(p.A, p.B, 3, [0, 1, 2], alpha=-1.0)
    A = p.A.copy()
    A[0, 0] = np.nan
    with pytest.raises(ValueError, match="NaN"):
        sl.estimate_tree_size(A, p.B, 3, [0, 1, 2])
    A0 = p.A.copy()
    sl.estimate_tree_size(p.A, p.B, 3, [0, 1, 2], probes=3, random_state=0)
    np.testing.assert_array_equal(p.A, A0)
