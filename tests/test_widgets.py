"""The widget layer without a browser: every slider swept, errors surfaced, artists updated."""

from __future__ import annotations

import numpy as np
import pytest

from spectral_kit.widgets import (
    SLIDERS,
    Explorer,
    PositivityExplorer,
    SparsityGapExplorer,
    make_slider,
)


def _sweep_values(control, count: int = 5):
    if hasattr(control, "base"):  # log slider
        exps = np.linspace(control.min, control.max, count)
        return [float(control.base**e) for e in exps]
    values = np.linspace(control.min, control.max, count)
    return [type(control.value)(v) for v in values]


def _sweep(explorer: Explorer, count: int = 5) -> None:
    for name, control in explorer.controls.items():
        start = control.value
        for value in _sweep_values(control, count):
            before = len(explorer.latencies)
            explorer.update(**{name: value})
            assert len(explorer.latencies) == before + 1
            assert not explorer.errors, explorer.errors[-1]
        explorer.update(**{name: start})


def test_make_slider_is_consistent():
    sigma = make_slider("sigma")
    assert sigma.description == "σ" and sigma.continuous_update
    assert not make_slider("trials").continuous_update
    lam = make_slider("lam")
    assert lam.base == 10 and lam.value == pytest.approx(SLIDERS["lam"].value)
    narrow = make_slider("n", min=5, max=30, value=10)
    assert (narrow.min, narrow.max, narrow.value) == (5, 30, 10)
    with pytest.raises(ValueError, match="name must be one of"):
        make_slider("nope")
    with pytest.raises(ValueError, match="outside"):
        make_slider("n", value=500)


def test_positivity_explorer_follows_every_slider():
    exp = PositivityExplorer(n_max=40, trials=50)
    try:
        _sweep(exp, count=4)
        exp.update(n=20, mu=1 / 6, sigma=2**0.5 / 6, trials=200)
        shown = exp.result
        i = int(np.flatnonzero(shown["n"] == 20)[0])
        from spectral_kit.theory import positivity_probability

        ref = positivity_probability(20, 1 / 6, 2**0.5 / 6, trials=200)
        assert shown["probability"][i] == pytest.approx(ref.probability[0])
        assert exp.curve.marker.get_xdata()[0] == 20
        assert "n = 20" in exp.status.value
        exp.update(mu=-0.3)
        assert np.nanmax(exp.result["probability"]) < 0.7
    finally:
        exp.close()


def test_positivity_explorer_refines_progressively_when_heavy():
    exp = PositivityExplorer(n_max=600, trials=25)
    try:
        exp.update(n=500, trials=300, finish=False)
        # The first response comes back within a step budget, before all trials are done;
        # the rest is refined later (between kernel messages in a live notebook).
        assert exp.latencies[-1] < 5.0
        assert exp._pending is not None
        assert "refining" in exp.status.value
        exp.update(trials=50)  # a slider move abandons the refinement in progress
        assert exp._pending is None and "refining" not in exp.status.value
    finally:
        exp.close()


def test_sparsity_gap_explorer_follows_every_slider():
    exp = SparsityGapExplorer()
    try:
        _sweep(exp)
        exp.update(n_clusters=3, k=3, sigma=0.14, n_irrelevant=120)
        state = exp.state
        heights = [seg[1, 1] for seg in exp.bars.bars.get_segments()]
        np.testing.assert_allclose(sorted(heights, reverse=True), np.sort(state["result"].alpha)[::-1])
        assert state["gap"] > 5 and state["bound"].holds
        assert "sparsity gap" in exp.status.value
    finally:
        exp.close()


class _Broken(SparsityGapExplorer):
    fail = False

    def _render(self, values):
        if self.fail:
            raise RuntimeError("deliberate failure")
        return super()._render(values)


def test_errors_are_shown_not_swallowed():
    exp = _Broken()
    try:
        exp.fail = True
        exp.controls["k"].value = 2  # as a browser would: through the observer
        assert exp.errors and "deliberate failure" in exp.errors[-1]
        assert "deliberate failure" in exp.error_area.value
        assert exp.error_area.layout.display == "block"
        with pytest.raises(RuntimeError, match="deliberate"):
            exp.update(k=3)
        exp.fail = False
        exp.update(k=4)
        assert exp.error_area.layout.display == "none"
    finally:
        exp.close()


def test_unknown_or_out_of_range_controls():
    exp = SparsityGapExplorer()
    try:
        with pytest.raises(ValueError, match="unknown control"):
            exp.update(mu=1.0)
        with pytest.raises(ValueError, match="must lie in"):
            exp.update(k=99)
    finally:
        exp.close()
    with pytest.raises(RuntimeError, match="closed"):
        exp.refresh()


def test_display_bundle_has_widget_and_png(monkeypatch):
    exp = SparsityGapExplorer()
    try:
        bundle = exp._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert bundle["image/png"]
        monkeypatch.setenv("SPECTRAL_KIT_STATIC_WIDGETS", "1")
        static = exp._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" not in static
        assert exp.snapshot().startswith(b"\x89PNG")
    finally:
        exp.close()


@pytest.mark.parametrize("cls", [PositivityExplorer, SparsityGapExplorer])
def test_slider_moves_redraw_only_the_moving_artists(cls):
    # A full redraw (text layout of every tick label) costs several times the latency
    # target; a slider move must only blit the animated artists over the cached background.
    explorer = cls()
    explorer.update(**{name: c.value for name, c in explorer.controls.items()})
    full_draws = []
    explorer.figure.canvas.mpl_connect("draw_event", full_draws.append)
    blits = 0
    original = explorer._blit_animated

    def counting_blit():
        nonlocal blits
        blits += 1
        original()

    explorer._blit_animated = counting_blit
    moves = 0
    for name, control in explorer.controls.items():
        for value in _sweep_values(control, 3):
            explorer.update(**{name: value})
            moves += 1
    assert not full_draws, f"{len(full_draws)} of {moves} moves redrew the whole figure"
    assert blits >= moves
    explorer.close()
