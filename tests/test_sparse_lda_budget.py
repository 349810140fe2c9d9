"""Progress bar and time budget of the GSLDA path and of SparseLDA (Moghaddam et al. 2006)."""

from __future__ import annotations

import itertools
import time

import numpy as np
import pytest

import spectral_kit.progress as progress_module
from spectral_kit import SparseLDA
from spectral_kit import sparse_lda as sl
from spectral_kit.progress import BudgetExceeded
from spectral_kit.sparse_lda import _meter, greedy
from spectral_kit.sparse_lda.branch_bound import ESLDASearch
from spectral_kit.sparse_lda.start import greedy_start


def _scatter(p: int, classes: int, seed: int = 0, n: int = 200):
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n, p))
    y = rng.integers(0, classes, n)
    X[y == 1, :3] += 1.0
    return X, y, sl.scatter_matrices(X, y)


@pytest.mark.parametrize("classes", [2, 3])
def test_the_cost_model_has_one_entry_per_step(classes):
    """The bar advances once per greedy step: the model must count the steps exactly, or
    the bar would stop short of (or run past) the whole work."""
    _, _, sc = _scatter(25, classes)
    pair = sl.check_pair(sc.d if classes == 2 else sc.A, sc.B, "auto")
    ticks = []
    with _meter.Meter(pair, False, 1e6) as tick:
        def count() -> None:
            ticks.append(1)
            tick()
        if pair.rank_one:
            greedy._forward_rank_one(pair, pair.n, tick=count)
            order = greedy._backward_rank_one(pair, tick=count)
            greedy._forward_rank_one(pair, pair.n, order=order, tick=count)
        else:
            greedy._forward_general(pair, pair.n, tick=count)
            greedy._backward_general(pair, tick=count)
    costs = _meter.step_costs(pair)
    assert len(ticks) == costs.size and np.all(costs > 0)


@pytest.mark.parametrize("classes", [2, 3])
def test_progress_and_budget_leave_the_path_unchanged(classes, capsys):
    _, _, sc = _scatter(30, classes)
    A = sc.d if classes == 2 else sc.A
    plain = sl.gslda(A, sc.B, regularization="auto")
    shown = sl.gslda(A, sc.B, regularization="auto", progress=True, max_seconds=600)
    assert "GSLDA path over 30 features" in capsys.readouterr().err
    np.testing.assert_array_equal(plain.values, shown.values)
    for k in (1, 5, 30):
        np.testing.assert_array_equal(plain.support_at(k), shown.support_at(k))


def test_a_bar_only_when_asked_or_for_many_features(capsys, monkeypatch):
    _, _, sc = _scatter(40, 2)
    sl.gslda(sc.d, sc.B, regularization="auto", progress=False)
    sl.gslda(sc.d, sc.B, regularization="auto")  # None: 40 features is small work
    assert capsys.readouterr().err == ""
    # None on "many" features shows the bar once the path has run SHOW_AFTER seconds
    monkeypatch.setattr(_meter, "LARGE_FEATURES", 40)
    monkeypatch.setattr(progress_module, "SHOW_AFTER", 0.0)
    sl.gslda(sc.d, sc.B, regularization="auto")
    assert "GSLDA path over 40 features" in capsys.readouterr().err
    sl.gslda(sc.d, sc.B, regularization="auto", progress=False)
    assert capsys.readouterr().err == ""


def test_a_budget_far_too_small_is_refused_early_with_the_estimate():
    """General A (three classes): the path costs O(n⁵) flops in the model; with a budget a
    small fraction of the real time, it stops soon after a twentieth of the budget."""
    _, _, sc = _scatter(70, 3)
    start = time.perf_counter()
    sl.gslda(sc.A, sc.B, regularization="auto")
    full = time.perf_counter() - start
    budget = full / 20
    start = time.perf_counter()
    with pytest.raises(BudgetExceeded, match=r"GSLDA path over 70 features would take about"
                       ) as info:
        sl.gslda(sc.A, sc.B, regularization="auto", max_seconds=budget)
    stopped = time.perf_counter() - start
    err = info.value
    assert stopped < budget + 0.5  # honoured, with slack for a loaded machine
    assert err.estimated > budget and err.max_seconds <= budget
    # the projection, from a few milliseconds of work, is of the right order (measured
    # 1.2-3x the real time on an idle machine: the first steps carry more overhead)
    assert full / 10 < err.estimated < 30 * full
    assert "method='forward'" in str(err) and "raise max_seconds" in str(err)


def test_a_generous_budget_lets_the_path_finish():
    _, _, sc = _scatter(200, 2)
    path = sl.gslda(sc.d, sc.B, regularization="auto", max_seconds=120)
    np.testing.assert_array_equal(path.values, sl.gslda(sc.d, sc.B, regularization="auto").values)


def test_sparse_lda_passes_progress_and_budget(capsys):
    X, y, _ = _scatter(60, 3)
    model = SparseLDA(n_features_to_select=5, progress=True, max_seconds=600)
    assert model.get_params()["progress"] is True and model.get_params()["max_seconds"] == 600
    model.fit(X, y)
    assert "GSLDA path over 60 features" in capsys.readouterr().err
    ref = SparseLDA(n_features_to_select=5).fit(X, y)
    np.testing.assert_array_equal(model.support_, ref.support_)
    with pytest.raises(BudgetExceeded, match="would take about"):
        SparseLDA(n_features_to_select=5, max_seconds=1e-6).fit(X, y)


@pytest.mark.parametrize(("kwargs", "error", "name"), [
    ({"progress": "yes"}, TypeError, "progress"),
    ({"progress": 1}, TypeError, "progress"),
    ({"max_seconds": 0}, ValueError, "max_seconds"),
    ({"max_seconds": -2.0}, ValueError, "max_seconds"),
    ({"max_seconds": "soon"}, TypeError, "max_seconds"),
])
def test_bad_options_are_named(kwargs, error, name):
    X, y, sc = _scatter(8, 2, n=40)
    with pytest.raises(error, match=name):
        SparseLDA(n_features_to_select=2, **kwargs).fit(X, y)
    with pytest.raises(error, match=name):
        sl.gslda(sc.d, sc.B, regularization="auto", **kwargs)


@pytest.mark.parametrize("seed", [0, 2])
def test_the_proven_upper_bound_never_rises_between_nodes(seed):
    # Wide correlation of a few factors (gene-expression-like): the row-sum bounds a child
    # gets when it is queued can exceed the bound its parent was queued with. The search's
    # upper bound, read after every node, must still only fall.
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((62, 8)) @ rng.standard_normal((8, 300)) * 0.6
    X += rng.standard_normal((62, 300))
    pair = sl.check_pair(np.corrcoef(X, rowvar=False), np.eye(300))
    search = ESLDASearch(pair, 15, greedy_start(pair, 15))
    search._search.RELAX_AFTER_NODES = 10**9  # the row-sum bounds alone
    upper = [search.upper_bound]
    for _ in range(40):
        if search.optimal:
            break
        search.advance(max_nodes=search.nodes + 1)
        upper.append(search.upper_bound)
    assert len(upper) > 10
    assert all(b <= a * (1 + 1e-12) for a, b in itertools.pairwise(upper))
