"""Benchmark structure: headlines, extrapolated rows and the peers' wiring (never speed)."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit.bench import BENCHMARKS, BenchResult, benchmark, format_table
from spectral_kit.bench._core import mark_headline, timed_alternating


@pytest.fixture(autouse=True)
def _no_collection_between_timings(monkeypatch):
    """The timer's gc.collect() scans the whole test session's heap; times are not tested."""
    import spectral_kit.bench._core as core

    monkeypatch.setattr(core, "gc", type("NoGC", (), {"collect": staticmethod(lambda: 0)}))


def _row(name, base=1.0, **kw):
    return BenchResult(name, 0.5, None if base is None else "peer", base, **kw)


def test_alternating_timer_takes_turns_and_keeps_each_best(monkeypatch):
    """Baseline and contender alternate within every round, so that drifting machine load
    falls on both; each keeps its own best time (a fake clock makes the times exact)."""
    import spectral_kit.bench._core as core

    clock = [0.0]
    calls = []
    durations = {"base": iter([5.0, 3.0, 4.0]), "ours": iter([2.0, 2.5, 1.0])}

    def run(name):
        def func():
            calls.append(name)
            clock[0] += next(durations[name])
        return func

    monkeypatch.setattr(core.time, "perf_counter", lambda: clock[0])
    best = timed_alternating(run("base"), run("ours"), repeat=3)
    assert calls == ["base", "ours"] * 3
    assert best == [3.0, 1.0]


def test_extrapolated_rows_are_labelled_and_never_the_headline():
    rows = mark_headline([
        _row("no baseline", base=None),
        _row("scaled up", base=100.0, extrapolated=True),
        _row("first-measured", base=2.0),
        _row("second-measured", base=3.0),
    ])
    assert [r.headline for r in rows] == [False, False, True, False]
    table = format_table(rows)
    scaled = next(line for line in table.splitlines() if "scaled up" in line)
    assert "200×" in scaled and scaled.count("(extrapolated)") == 2
    assert not scaled.startswith("★")
    lines = {name: next(line for line in table.splitlines() if name in line)
             for name in ("first-measured", "second-measured")}
    assert lines["first-measured"].startswith("★")
    assert not lines["second-measured"].startswith("★")
    assert "(extrapolated)" in table.splitlines()[-1]  # the legend
    with pytest.raises(ValueError, match="headline"):
        _row("scaled", base=5.0, extrapolated=True, headline=True)
    with pytest.raises(ValueError, match="headline"):
        _row("alone", base=None, headline=True)


def test_an_explicit_headline_is_kept_and_unique():
    rows = mark_headline([_row("first", base=2.0), _row("peer", base=3.0, headline=True)])
    assert [r.headline for r in rows] == [False, True]
    with pytest.raises(ValueError, match="one headline"):
        mark_headline([_row("a", headline=True), _row("b", headline=True)])
    only_extrapolated = mark_headline([_row("x", base=9.0, extrapolated=True)])
    assert not only_extrapolated[0].headline


def test_registered_benchmarks_return_one_headline():
    @benchmark("_structure-test")
    def fake(quick: bool = False):
        return [_row("est", base=50.0, extrapolated=True), _row("real", base=2.0)]

    try:
        rows = BENCHMARKS["_structure-test"](True)
        assert [r.headline for r in rows] == [False, True]
        assert [r.headline for r in fake(True)] == [False, True]
    finally:
        del BENCHMARKS["_structure-test"]
    assert {"qalpha", "stability", "weighting", "sparse-pca",
            "unsupervised-selection"} <= set(BENCHMARKS)


def test_qalpha_step_headline_is_scipy_on_the_same_operator():
    from spectral_kit.bench.qalpha import _alpha_step

    rows = _alpha_step(400, 20, 2)
    heads = [r for r in mark_headline(rows) if r.headline]
    assert len(heads) == 1 and "eigsh" in heads[0].baseline and "cold" in heads[0].baseline
    assert not any(r.extrapolated for r in rows)
    assert "form G" in rows[-1].baseline and "secondary" in rows[-1].baseline
    # Every solver reaches the dense eigenvector.
    for r in rows[:3]:
        assert r.extra["1−|cos| peer"] < 1e-8
    assert rows[0].extra["1−|cos| ours to dense"] < 1e-8


def test_weighting_peers_compute_the_same_vector():
    from spectral_kit.bench.weighting import _data, _product_rows, _versus_peers

    M, _ = _data(50, 6, random_state=0)
    K = _product_rows(M)
    np.testing.assert_allclose(K @ K.T, (M @ M.T) ** 2, rtol=1e-12, atol=1e-14)
    rows = _versus_peers(300, 8)
    assert rows[0].headline and "eigsh" in rows[0].baseline
    assert "randomized_svd" in rows[-1].baseline
    for r in rows:
        assert r.extra["1−|cos| peer"] < 1e-8


def test_stability_headline_is_the_measured_vectorized_scipy_call():
    from spectral_kit.bench.stability import _rows

    X = np.random.default_rng(0).lognormal(size=(40, 3))
    rows = _rows(X, "lognormal", quick=True)
    heads = [r for r in rows if r.headline]
    assert len(heads) == 1 and "vectorized" in heads[0].baseline
    per_entry = [r for r in rows if "per entry" in r.baseline]
    assert len(per_entry) == 2 and all(r.extrapolated for r in per_entry)
    for r in rows:
        assert r.extra["max_rel_diff_vs_scipy"] < 1e-8


def test_explained_variance_and_sparsity_match_closed_forms():
    from spectral_kit.bench.peers import _matched_alpha, explained_variance, features_kept

    rng = np.random.default_rng(1)
    X = rng.normal(size=(200, 5)) * np.array([5.0, 3.0, 1.0, 0.5, 0.1])
    Xc = X - X.mean(axis=0)
    w, V = np.linalg.eigh(Xc.T @ Xc)
    # The top-2 eigenvectors capture (λ₁ + λ₂) / trace; a rotated, rescaled basis of the same
    # span gives the same number.
    assert explained_variance(X, V[:, -2:].T) == pytest.approx(w[-2:].sum() / w.sum())
    mixed = np.array([[2.0, 1.0], [0.0, 3.0]]) @ V[:, -2:].T
    assert explained_variance(X, mixed) == pytest.approx(w[-2:].sum() / w.sum())
    assert features_kept(np.array([[0.0, 1.0, 0.0], [0.0, 2.0, 3.0]])) == 2

    class Fake:
        """Keeps round(5 − log10 alpha) features, as a penalty would, fewer as alpha grows."""

        def __init__(self, alpha):
            self.alpha = alpha

        def fit(self, X):
            kept = int(np.clip(round(2.5 - np.log10(self.alpha)), 0, 5))
            self.components_ = np.zeros((1, 5))
            self.components_[0, :kept] = 1.0
            return self

    alpha, fits = _matched_alpha(Fake, X, 4, steps=20)
    assert features_kept(Fake(alpha).fit(X).components_) == 4 and fits <= 20


def test_unsupervised_selection_rows_report_quality_for_every_peer():
    from spectral_kit.bench.peers import _selection_setting

    rows = _selection_setting(3, 30, 3, 20, range(1))
    assert len(rows) == 3
    assert {"Laplacian", "SPEC φ₂", "SPEC φ₃"} <= {
        w for r in rows for w in ("Laplacian", "SPEC φ₂", "SPEC φ₃") if w in r.baseline}
    for r in rows:
        for key in ("share relevant in top ours", "share relevant in top peer"):
            assert 0.0 <= r.extra[key] <= 1.0


def test_eslda_profile_samples_are_valid_bounds_of_exact_node_optima():
    """The search profile's sampled node bounds, and its converged perspective bounds, are
    never below the node's exact best, which itself equals brute force over the node's
    subsets."""
    import itertools

    from spectral_kit.bench._eslda_profile import _node_best, profile_search
    from spectral_kit.sparse_lda import random_pair
    from spectral_kit.sparse_lda._numerics import subset_value
    from spectral_kit.sparse_lda.pair import check_pair

    p = random_pair(12, random_state=3)
    pair = check_pair(p.d, p.B)
    F, cand = np.array([0, 5, 9]), np.array([1, 2, 3, 6, 7, 10, 11])
    brute = max(subset_value(pair, np.concatenate([F, R]))
                for R in map(np.array, itertools.combinations(cand, 3)))
    assert _node_best(pair, F, cand, 3) == pytest.approx(brute, rel=1e-10)

    samples = 0
    for seed in range(3):
        p = random_pair(40, random_state=seed)
        profile = profile_search(check_pair(p.d, p.B), 20, 30.0, sample_rate=1.0)
        assert profile.upper_bound == pytest.approx(profile.value, rel=1e-9)  # certified
        assert profile.pruned_by_own_bounds + profile.branched <= profile.nodes
        for s in profile.samples:
            assert s.bound >= s.exact * (1 - 1e-9)
            assert np.isfinite(s.relaxation)  # B ≠ I: the perspective applies
            assert s.relaxation >= s.exact * (1 - 1e-9)
        samples += len(profile.samples)
    assert samples > 0


def test_a_search_stopped_at_its_goal_reports_the_tree_still_to_search(monkeypatch):
    from spectral_kit.bench import sparse_lda as bench
    from spectral_kit.sparse_lda import random_pair
    from spectral_kit.sparse_lda.pair import check_pair

    monkeypatch.setattr(bench, "TREE_PROBES", 30)
    p = random_pair(40, kind="general", random_state=0)
    row = bench._certify("stopped", check_pair(p.A, p.B), 10, 0.05, 0.05)
    assert not row.extra["optimal"]
    nodes = row.extra["estimated_nodes_to_certify"]
    assert nodes >= 1 and row.extra["estimate_standard_error"] > 0
    rate = row.extra["nodes/s"]  # 0 when the budget ended in the start's local search
    assert row.extra["estimated_seconds_to_certify"] == (
        pytest.approx(nodes / rate) if rate > 0 else np.inf)
