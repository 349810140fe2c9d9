"""Progress bars and time budgets of long computations (bootstrap intervals, SbS)."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit import StableSparsePCA
from spectral_kit.progress import SHOW_AFTER, BudgetExceeded, Progress
from spectral_kit.stability import bootstrap_intervals, sbs


class Clock:
    def __init__(self):
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_budget_stops_when_spent_and_says_how_long_the_whole_would_take():
    clock = Clock()
    bar = Progress(100, "work", progress=False, max_seconds=10.0, clock=clock)
    clock.now = 1.0
    bar.update(10)  # 10 % in 1 s: 10 s projected, within the budget
    clock.now = 10.5
    with pytest.raises(BudgetExceeded, match=r"work would take about 35 s .*30 % of the work "
                                             r"in 10.5 s.*max_seconds=10") as info:
        bar.update(20)
    assert info.value.done == pytest.approx(0.3)
    assert info.value.estimated == pytest.approx(35.0)
    assert isinstance(info.value, TimeoutError)


def test_budget_refuses_early_when_the_rate_projects_far_beyond_it():
    clock = Clock()
    bar = Progress(1000, "work", progress=False, max_seconds=60.0, clock=clock)
    clock.now = 10.0
    with pytest.raises(BudgetExceeded, match="would take about 200 s"):
        bar.update(50)  # 5 % in 10 s, far from spent but projected at 200 s


def test_no_budget_never_stops_and_finishing_is_never_refused():
    clock = Clock()
    bar = Progress(10, "work", progress=False, clock=clock)
    clock.now = 1e6
    bar.update(5)
    bar = Progress(10, "work", progress=False, max_seconds=1.0, clock=clock)
    clock.now = 2e6
    bar.update(10)  # all done: nothing left to stop


def test_a_bar_appears_only_for_large_work_that_runs_long(capsys):
    clock = Clock()
    with Progress(10, "small work", large=False, clock=clock) as bar:
        clock.now = 100.0
        bar.update(5)
        assert bar.bar is None
    clock.now = 0.0
    with Progress(10, "quick work", clock=clock) as bar:
        bar.update(5)
        assert bar.bar is None
        clock.now = SHOW_AFTER + 0.1
        bar.update(1)
        assert bar.bar is not None and bar.bar.n == 6
    with Progress(10, "silent work", progress=False, clock=clock) as bar:
        clock.now += 100
        bar.update(5)
        assert bar.bar is None
    err = capsys.readouterr().err
    assert "quick work" in err and "small work" not in err


@pytest.mark.parametrize(("kwargs", "error"), [({"progress": "yes"}, TypeError),
                                               ({"max_seconds": 0}, ValueError),
                                               ({"max_seconds": -1.0}, ValueError),
                                               ({"max_seconds": float("nan")}, ValueError)])
def test_bad_options_are_named(kwargs, error):
    X = np.random.default_rng(0).standard_normal((10, 3))
    name = next(iter(kwargs))
    with pytest.raises(error, match=name):
        bootstrap_intervals(X, n_resamples=20, **kwargs)


def test_bootstrap_intervals_shows_progress_when_asked(capsys):
    X = np.random.default_rng(0).standard_normal((20, 30))
    bootstrap_intervals(X, n_resamples=20, random_state=0, progress=True)
    assert "bootstrap intervals" in capsys.readouterr().err
    bootstrap_intervals(X, n_resamples=20, random_state=0, progress=False)
    assert capsys.readouterr().err == ""


def test_bootstrap_intervals_refuses_a_budget_it_cannot_keep():
    X = np.random.default_rng(0).standard_normal((400, 300))
    with pytest.raises(BudgetExceeded, match=r"bootstrap intervals would take about .* "
                                             r"max_seconds=0.001.*fewer resamples"):
        bootstrap_intervals(X, n_resamples=500, random_state=0, memory_limit=2**20,
                            progress=False, max_seconds=0.001)


def test_stable_sparse_pca_budget_and_a_result_within_it():
    X = np.random.default_rng(0).standard_normal((300, 200))
    with pytest.raises(BudgetExceeded):
        StableSparsePCA(n_resamples=500, random_state=0, progress=False,
                        max_seconds=0.001).fit(X)
    small = np.random.default_rng(0).standard_normal((40, 6))
    ref = sbs(small, "pca", 0.5, n_resamples=100, random_state=0, progress=False)
    res = sbs(small, "pca", 0.5, n_resamples=100, random_state=0, progress=False,
              max_seconds=600)
    np.testing.assert_array_equal(res.kept, ref.kept)
