"""The dashboard's kernel: small once its explorers are refined (what a card keeps between
slider moves is bounded, the pictures those of the stand-alone explorers), and quick to
answer a slider while other cards are still refining."""

from __future__ import annotations

import itertools

import numpy as np

from spectral_kit.widgets import PositivityExplorer
from spectral_kit.widgets.dashboard import CARDS, _explorer_for


def test_the_positivity_card_caches_no_eigendecompositions_and_draws_the_same_curve():
    """At the card's 200 trials the curve's blocks (about 83 MB) do not fit the sampler's
    64 MiB cache, which a refined kernel then held for nothing; the card's sampler keeps
    none, draws from the same matrices, and a μ move gives the stand-alone explorer's curve."""
    card = next(c for c in CARDS if c.explorer == "PositivityExplorer")
    on_card, alone = _explorer_for(card), PositivityExplorer()
    try:
        assert on_card.sampler.seed == alone.sampler.seed
        for explorer in (on_card, alone):
            explorer.update(mu=0.25)
            explorer.finish()
        assert on_card.sampler._used == 0 and not on_card.sampler._cache
        # the stand-alone explorer cached its decompositions: the same numbers either way
        assert alone.sampler._used > 0
        for key in ("n", "probability", "lower", "upper"):
            np.testing.assert_array_equal(on_card.result[key], alone.result[key])
    finally:
        on_card.close()
        alone.close()


class _Loop:
    """Stands in for the kernel's IO loop: callbacks and timers are queued, run by hand."""

    def __init__(self):
        self.soon, self.later, self.delays = [], [], []

    def add_callback(self, callback):
        self.soon.append(callback)

    def call_later(self, delay, callback):
        self.later.append((delay, callback))
        self.delays.append(delay)

    def turn(self) -> None:
        """Run what is due: the callbacks, else the earliest timer."""
        if self.soon:
            self.soon.pop(0)()
        elif self.later:
            self.later.pop(0)[1]()


def test_refinement_steps_take_turns_one_at_a_time_and_a_moved_card_goes_first(monkeypatch):
    """In a kernel, the explorers' refinement steps run one per turn of the loop, in turn,
    with a gap between two in which slider messages get through; a card whose slider just
    moved refines first."""
    from spectral_kit.widgets import base

    loop = _Loop()
    monkeypatch.setattr(base, "_kernel_loop", lambda: loop)
    explorers = {name: PositivityExplorer(n=150, trials=1000, random_state=seed)
                 for seed, name in enumerate("ab")}
    steps: list[str] = []
    for name, explorer in explorers.items():
        step = explorer._step
        explorer._step = lambda *a, _name=name, _step=step, **k: (steps.append(_name),
                                                                   _step(*a, **k))[1]
    try:
        for _ in range(40):
            loop.turn()
            # never more than one step waiting to run
            queued = loop.soon + [c for _, c in loop.later]
            stepping = [c for c in queued if c == base._REFINEMENTS.run
                        or getattr(c, "__name__", "") in ("_step", "<lambda>")]
            assert len(stepping) <= 1, queued
        assert len(steps) >= 10
        assert all(x != y for x, y in itertools.pairwise(steps)), steps  # a, b, a, b, ...
        # each step after another waits for the gap
        assert len(loop.delays) >= len(steps) - 2 and set(loop.delays) == {base.STEP_GAP}
        explorers["b"].update(mu=0.4)
        steps.clear()
        while not steps:
            loop.turn()
        assert steps == ["b"]
    finally:
        for explorer in explorers.values():
            explorer.close()


_IMPORTS_WHILE_THE_PAGE_LOADS = r"""
import sys
from spectral_kit.widgets import dashboard

class Loop:
    def __init__(self):
        self.soon, self.later = [], []
    def add_callback(self, callback, *args):
        self.soon.append((callback, args))
    def call_later(self, delay, callback, *args):
        self.later.append((delay, callback))

loop = Loop()
dashboard._kernel_loop = lambda: loop
modules = ["spectral_kit.widgets." + m for m in
           ("positivity", "sparsity_gap", "interlacing", "detectability", "stability")]
board = dashboard.Dashboard(lazy=True)
assert not any(m in sys.modules for m in modules), "imported in the cell already"
turns = 0
while loop.soon:
    callback, args = loop.soon.pop(0)
    callback(*args)
    turns += 1
missing = [m for m in modules if m not in sys.modules]
assert not missing, missing
assert board.explorers == {} and turns == len(modules) + 1, (board.explorers, turns)
assert [d for d, _ in loop.later] == [dashboard.VIEW_WAIT]
print("ok")
"""


def test_a_shown_dashboard_imports_its_explorers_modules_while_the_page_loads():
    """The cell that shows the dashboard imports no explorer module; the kernel's loop then
    imports one per turn, building nothing, so the first card's build does not pay for them."""
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _IMPORTS_WHILE_THE_PAGE_LOADS],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0 and out.stdout.strip() == "ok", out.stderr[-3000:]


def test_a_negative_cache_is_refused_by_name():
    import pytest

    with pytest.raises(ValueError, match="cache_bytes"):
        PositivityExplorer(cache_bytes=-1)
