"""InterlacingExplorer headless: every slider swept, the artists checked against the library
(sparsity_curves, eslda, interlacing) and against brute force (scipy.linalg.eigh over every
k-subset), the progressive ESLDA with its certified bounds, the caches, blitting, errors."""

from __future__ import annotations

from itertools import combinations

import numpy as np
import pytest
import scipy.linalg

from spectral_kit import sparse_lda as sl
from spectral_kit.widgets import SLIDERS, InterlacingExplorer, make_slider
from spectral_kit.widgets.interlacing import InterlacingState


def _sweep_values(control, count: int):
    if hasattr(control, "base"):  # log slider: min/max are exponents
        return [float(control.base**e) for e in np.linspace(control.min, control.max, count)]
    return [type(control.value)(v) for v in np.linspace(control.min, control.max, count)]


def _pair(exp: InterlacingExplorer):
    state = exp.state["state"]
    return state.A, state.random_pair.B, state.lam, state.scale


def _brute_force_optimum(A: np.ndarray, B: np.ndarray, k: int) -> float:
    """max over every k-subset S of the largest root of det(A_S − λB_S) (SciPy)."""
    n = B.shape[0]
    return max(
        float(scipy.linalg.eigh(A[np.ix_(S, S)], B[np.ix_(S, S)], eigvals_only=True)[-1])
        for S in map(list, combinations(range(n), k))
    )


@pytest.fixture
def explorer():
    # One per test: the suite closes every pyplot figure after each test.
    exp = InterlacingExplorer(n_max=12, n=8, k=4)
    yield exp
    exp.close()


def test_smoothness_is_a_canonical_slider():
    assert "smoothness" in SLIDERS
    s = make_slider("smoothness")
    assert s.description == "H" and 0 < s.min < 0.5 == s.value < s.max < 1


def test_every_slider_swept_without_error(explorer):
    for name, control in explorer.controls.items():
        start = control.value
        for value in [*_sweep_values(control, 5), start]:
            before = len(explorer.latencies)
            explorer.update(**{name: value})
            assert len(explorer.latencies) == before + 1
            assert not explorer.errors, explorer.errors[-1]
            assert explorer.state["state"].complete  # finish=True: ESLDA at every k done
            assert explorer.status.value.startswith(f"k = {explorer.state['k']}:")


def test_curves_match_the_library_and_brute_force(explorer):
    explorer.update(n=9, k=4, lam=0.01, smoothness=0.3)
    A, B, lam, scale = _pair(explorer)
    curves = sl.sparsity_curves(A, B, regularization=lam)
    assert scale == pytest.approx(curves.upper, rel=1e-12)
    lines = explorer.curve_artists["curves"]
    for method in ("ST", "GSLDA", "ESLDA"):
        x, y = lines[method].get_data()
        np.testing.assert_allclose(x, curves.ks / 9)
        np.testing.assert_allclose(y, curves.values[method] / scale, rtol=1e-9)
    # The exact curve is the optimum over every k-subset, found by enumeration with SciPy.
    A_full = np.outer(A, A) if A.ndim == 1 else A
    B_reg = B + lam * np.eye(9)
    _, y = lines["ESLDA"].get_data()
    for k in range(1, 10):
        assert y[k - 1] * scale == pytest.approx(_brute_force_optimum(A_full, B_reg, k),
                                                 rel=1e-9)
    # Band of Eq. 8: λ_k(A, B) below, λ_n(A, B) = 1 above, every curve inside it.
    np.testing.assert_allclose(explorer.curve_artists["lower"].get_ydata(),
                               curves.lower / scale, rtol=1e-12)
    np.testing.assert_allclose(explorer.curve_artists["upper"].get_ydata(), 1.0)
    for method in ("ST", "GSLDA", "ESLDA"):
        y = lines[method].get_ydata()
        assert np.all(y >= curves.lower / scale - 1e-9) and np.all(y <= 1 + 1e-9)
    assert np.all(lines["ESLDA"].get_ydata() >= lines["GSLDA"].get_ydata() - 1e-12)
    assert not explorer.open_bars.get_segments()  # nothing left uncertified
    np.testing.assert_allclose(explorer.k_line.get_xdata(), [4 / 9, 4 / 9])


def test_left_panel_is_thm1_for_the_best_subset(explorer):
    explorer.update(n=10, k=6, lam=0.1, smoothness=0.7)
    A, B, lam, scale = _pair(explorer)
    shown = explorer.state
    ref = sl.eslda(A, B, 6, regularization=lam)
    assert shown["method"] == "ESLDA"
    np.testing.assert_array_equal(shown["support"], ref.support)
    inter = sl.interlacing(A, B, ref.support, regularization=lam)
    art = explorer.interlacing_artists
    np.testing.assert_allclose(art["spectrum"].get_ydata(), inter.spectrum / scale, rtol=1e-12)
    np.testing.assert_allclose(art["sub"].get_ydata(), inter.sub / scale, rtol=1e-12)
    np.testing.assert_allclose(art["sub"].get_xdata(), np.arange(1, 7) / 6)
    np.testing.assert_allclose(art["top"].get_ydata(), [ref.value / scale], rtol=1e-9)
    # Thm. 1 (Eq. 7) on the drawn brackets, against eigenvalues computed by SciPy here.
    A_full = np.outer(A, A) if A.ndim == 1 else A
    B_reg = B + lam * np.eye(10)
    S = ref.support
    lam_full = scipy.linalg.eigh(A_full, B_reg, eigvals_only=True) / scale
    lam_sub = scipy.linalg.eigh(A_full[np.ix_(S, S)], B_reg[np.ix_(S, S)],
                                eigvals_only=True) / scale
    segments = art["brackets"].get_segments()
    assert len(segments) == 6
    for i, (seg, value) in enumerate(zip(segments, lam_sub)):
        lo, hi = seg[0, 1], seg[1, 1]
        assert lo == pytest.approx(lam_full[i], rel=1e-9)
        assert hi == pytest.approx(lam_full[i + 10 - 6], rel=1e-9)
        assert lo * (1 - 1e-9) <= value <= hi * (1 + 1e-9)


def test_progressive_first_picture_then_gslda_then_eslda():
    exp = InterlacingExplorer(n_max=18, n=5, k=2)
    try:
        exp.update(n=18, k=10, lam=0.01, finish=False)
        state = exp.state["state"]
        assert exp._pending is not None and state.gslda is None
        lines = exp.curve_artists["curves"]
        A, B, lam, scale = _pair(exp)
        st = sl.simple_threshold_path(A, B, regularization=lam)
        np.testing.assert_allclose(lines["ST"].get_ydata(), st.values / scale, rtol=1e-12)
        assert np.all(np.isnan(lines["GSLDA"].get_ydata()))
        assert np.all(np.isnan(lines["ESLDA"].get_ydata()))
        assert "GSLDA computing" in exp.status.value and exp.state["method"] == "ST"
        exp._step(reschedule=False)  # GSLDA
        g = sl.gslda(A, B, regularization=lam)
        np.testing.assert_allclose(lines["GSLDA"].get_ydata(), g.values / scale, rtol=1e-12)
        exp._step(reschedule=False)  # the first ESLDA slice starts at the current k
        assert 10 in state.searches
        ex = state.eslda()
        assert np.all(ex["value"][ex["started"]] >= g.values[ex["started"]] * (1 - 1e-12))
        # Moving k abandons the refinement but keeps the searches of this pair.
        nodes = state.searches[10].nodes
        exp.update(k=9, finish=False)
        assert exp.state["state"] is state and state.searches[10].nodes >= nodes
        exp.finish()
        assert state.complete and not exp.errors
        for k in (9, 10):
            assert state.searches[k].optimal
            assert state.searches[k].value == pytest.approx(
                sl.eslda(A, B, k, regularization=lam).value, rel=1e-9)
    finally:
        exp.close()


def test_time_limit_leaves_certified_bounds():
    # n = 20: at n = 14 every search certifies within its first node
    exp = InterlacingExplorer(n_max=20, eslda_seconds=1e-6, n=5, k=2)
    try:
        exp.update(n=20, k=10, lam=0.001, smoothness=0.5)
        state = exp.state["state"]
        ex = state.eslda()
        stopped = np.flatnonzero(ex["stopped"])
        assert stopped.size > 0 and "stopped with a bound" in exp.status.value
        A, B, lam, scale = _pair(exp)
        g = sl.gslda(A, B, regularization=lam)
        segments = exp.open_bars.get_segments()
        assert len(segments) == stopped.size
        for seg, j in zip(segments, stopped):
            k = j + 1
            assert seg[0, 0] == pytest.approx(k / 20)
            low, high = seg[0, 1] * scale, seg[1, 1] * scale
            optimum = sl.eslda(A, B, k, regularization=lam).value
            assert g.values[j] * (1 - 1e-12) <= low <= optimum * (1 + 1e-9)
            assert optimum <= high * (1 + 1e-9)
        # Stopped searches are not drawn on the certified curve.
        assert np.all(np.isnan(exp.curve_artists["curves"]["ESLDA"].get_ydata()[stopped]))
    finally:
        exp.close()


def test_exact_search_in_slices_equals_eslda():
    rp = sl.random_pair(12, kind="general", smoothness=0.8, random_state=3)
    pair = sl.check_pair(rp.A, rp.B, 0.01)
    path = sl.gslda(rp.A, rp.B, regularization=0.01)
    for k in (3, 6, 9):
        run = sl.ESLDASearch(pair, k, path.support_at(k))
        slices = 0
        while run.advance(0.0) != "completed":  # a deadline in the past: one node a slice
            slices += 1
            assert run.value <= run.upper_bound * (1 + 1e-12)
            assert run.value >= path.values[k - 1] * (1 - 1e-12)
        ref = sl.eslda(rp.A, rp.B, k, init=path, regularization=0.01)
        np.testing.assert_array_equal(run.support, ref.support)
        assert run.value == pytest.approx(ref.value, rel=1e-12)
        assert run.nodes == ref.nodes_expanded and slices >= ref.nodes_expanded - 1


def test_rank_one_pair_leaves_only_the_top_eigenvalue_free():
    exp = InterlacingExplorer(kind="rank_one", n_max=10, n=5, k=2)
    try:
        exp.update(n=10, k=4, lam=0.01)
        A, B, lam, scale = _pair(exp)
        assert A.ndim == 1  # A = d dᵀ passed as d
        art = exp.interlacing_artists
        spectrum, sub = art["spectrum"].get_ydata(), art["sub"].get_ydata()
        np.testing.assert_allclose(spectrum[:-1], 0.0, atol=1e-10)
        np.testing.assert_allclose(sub[:-1], 0.0, atol=1e-10)
        top = sub[-1] * scale
        S = exp.state["support"]
        d_S, B_S = A[S], (B + lam * np.eye(10))[np.ix_(S, S)]
        assert top == pytest.approx(float(d_S @ np.linalg.solve(B_S, d_S)), rel=1e-9)
        curves = sl.sparsity_curves(A, B, regularization=lam)
        np.testing.assert_allclose(exp.curve_artists["curves"]["ESLDA"].get_ydata(),
                                   curves.values["ESLDA"] / scale, rtol=1e-9)
        assert "band [0, 1]" in exp.status.value
    finally:
        exp.close()


def test_large_lambda_turns_sparse_lda_into_sparse_pca():
    exp = InterlacingExplorer(n_max=10, n=5, k=2)
    try:
        exp.update(n=8, lam=1000.0)
        state = exp.state["state"]
        A = state.random_pair.A
        pca = sl.exhaustive_path(A, np.eye(8))  # sparse PCA of A: B = I
        values = state.eslda()["value"]
        # B + λI = λ(I + B/λ): every value is λ_max(A_S)/λ up to ‖B‖/λ ≲ 0.5 %.
        np.testing.assert_allclose(values * 1000.0, pca.values, rtol=0.01)
    finally:
        exp.close()


def test_k_slider_follows_n(explorer):
    explorer.update(n=12, k=10)
    explorer.update(n=5)
    k = explorer.controls["k"]
    assert (k.max, k.value) == (5, 5) and explorer.state["k"] == 5
    explorer.update(n=11, k=9)  # n is applied first, so k = 9 is in range
    assert (k.max, k.value) == (11, 9)
    with pytest.raises(ValueError, match="k must lie in"):
        explorer.update(k=12)
    explorer.controls["n"].value = 6  # as a browser would: through the observer
    assert (k.max, k.value) == (6, 6) and not explorer.errors


def test_cache_and_blitting(explorer):
    explorer.update(n=10, k=3, lam=0.001, smoothness=0.5)
    explorer.figure.canvas.draw()  # as a front end does on first display
    state = explorer.state["state"]
    background, frame = explorer._background, explorer._frame_key
    assert background is not None
    # Axes limits and labels never move: every slider move is blitted over one background.
    for kwargs in ({"k": 7}, {"lam": 10.0}, {"smoothness": 0.9}, {"n": 4}, {"n": 10, "k": 3},
                   {"lam": 0.001, "smoothness": 0.5}):
        explorer.update(**kwargs)
        assert explorer._background is background and explorer._frame_key == frame
    assert explorer.state["state"] is state  # returning to a slider state reuses its work
    assert explorer.interlacing_artists["top"].get_animated()


def test_bad_arguments_give_clear_errors():
    with pytest.raises(ValueError, match="kind"):
        InterlacingExplorer(kind="diagonal")
    with pytest.raises(ValueError, match="n_max"):
        InterlacingExplorer(n_max=2)
    with pytest.raises(ValueError, match="eslda_seconds"):
        InterlacingExplorer(eslda_seconds=0.0)
    exp = InterlacingExplorer(n_max=8, n=5, k=2)
    try:
        with pytest.raises(ValueError, match="lam must lie in"):
            exp.update(lam=1e5)
        with pytest.raises(ValueError, match="unknown control"):
            exp.update(sigma=0.3)
        with pytest.raises(ValueError, match="smoothness must lie in"):
            exp.update(smoothness=1.0)
        assert exp.snapshot().startswith(b"\x89PNG")
    finally:
        exp.close()
    with pytest.raises(RuntimeError, match="closed"):
        exp.refresh()


def test_state_compute_is_deterministic():
    a = InterlacingState.compute(7, 0.4, 0.01, "general", 5)
    b = InterlacingState.compute(7, 0.4, 0.01, "general", 5)
    np.testing.assert_array_equal(a.random_pair.A, b.random_pair.A)
    np.testing.assert_array_equal(a.spectrum, b.spectrum)


def test_plot_spacing_and_fixed_limits():
    import matplotlib.pyplot as plt

    from spectral_kit.plots import (
        plot_interlacing,
        plot_lambda_vs_k,
        update_interlacing,
        update_lambda_vs_k,
    )

    rp = sl.random_pair(9, kind="general", random_state=2)
    inter = sl.interlacing(rp.A, rp.B, [0, 3, 4, 8])
    fig, (ax1, ax2) = plt.subplots(1, 2)
    art = plot_interlacing(ax1, inter, spacing=0.25)
    np.testing.assert_allclose(art["sub"].get_xdata(), [0.25, 0.5, 0.75, 1.0])
    np.testing.assert_allclose(art["top"].get_xdata(), [1.0])
    assert ax1.get_xlim() == pytest.approx((-0.175, 1.175))
    ax1.set_xlim(-1.0, 2.0)
    update_interlacing(art, sl.interlacing(rp.A, rp.B, [1, 2]), spacing=0.5, rescale=False)
    assert ax1.get_xlim() == (-1.0, 2.0)
    np.testing.assert_allclose([s[0, 0] for s in art["brackets"].get_segments()], [0.5, 1.0])
    ks = np.arange(1, 10)
    lam = sl.generalized_spectrum(rp.A, rp.B)
    curves = plot_lambda_vs_k(ax2, ks, {"ST": lam}, lam, lam[-1])
    ax2.set_ylim(0.0, 123.0)
    update_lambda_vs_k(curves, ks / 9, {"ST": lam / 2}, lam, lam[-1], rescale=False)
    assert ax2.get_ylim() == (0.0, 123.0)
    np.testing.assert_allclose(curves["curves"]["ST"].get_xdata(), ks / 9)
    plt.close(fig)


def test_a_superseded_refinement_step_draws_nothing():
    # In a live kernel a slider move can be handled while a step of the previous state is
    # still computing; that step must neither draw the old state nor end the new refinement.
    exp = InterlacingExplorer(n_max=18, n=5, k=2)
    try:
        exp.update(n=18, k=9, finish=False)
        stale = exp._pending
        exp.update(n=12, k=6, finish=False)
        current = exp._pending
        shown = exp.curve_artists["curves"]["ST"].get_xdata().copy()
        status = exp.status.value
        next(stale)  # the old step finishes its computation after the move: no StopIteration
        np.testing.assert_array_equal(exp.curve_artists["curves"]["ST"].get_xdata(), shown)
        assert exp.status.value == status and exp._pending is current
        exp.finish()
        assert exp.state["state"].n == 12 and exp.state["state"].complete
    finally:
        exp.close()
