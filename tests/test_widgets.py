"""The widget layer without a browser: every slider swept, errors surfaced, artists updated."""

from __future__ import annotations

import base64
import html
import io
from pathlib import Path

import matplotlib.pyplot as plt
import numpy as np
import pytest

from spectral_kit.plots._style import FIGURE_DPI
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
        bundle, metadata = exp._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle
        # the fallback PNG has twice the pixels it is shown with (HiDPI), its size is said
        png = base64.b64decode(bundle["image/png"])
        shown = metadata["image/png"]
        width, height = exp.figsize
        assert (shown["width"], shown["height"]) == (round(width * FIGURE_DPI),
                                                       round(height * FIGURE_DPI))
        pixels = plt.imread(io.BytesIO(png), format="png")
        assert pixels.shape[:2] == (2 * shown["height"], 2 * shown["width"])
        monkeypatch.setenv("SPECTRAL_KIT_STATIC_WIDGETS", "1")
        static, _ = exp._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" not in static
        assert exp.snapshot().startswith(b"\x89PNG")
        # after a picture at another resolution the next move is still drawn correctly
        exp.update(k=4)
        assert np.array_equal(_agg_pixels(exp), _fresh_pixels(exp))
    finally:
        exp.close()


def _agg_pixels(exp: Explorer) -> np.ndarray:
    return np.asarray(exp.figure.canvas.buffer_rgba()).copy()


def _fresh_pixels(exp: Explorer) -> np.ndarray:
    """The canvas after a full redraw of the current state."""
    exp.figure.canvas.draw()
    return _agg_pixels(exp)


def test_update_checks_every_value_before_setting_any():
    exp = SparsityGapExplorer()
    try:
        before = exp.values
        drawn = _agg_pixels(exp)
        latencies = len(exp.latencies)
        with pytest.raises(ValueError, match="k must lie in"):
            exp.update(sigma=0.3, k=99)
        with pytest.raises(ValueError, match="n_clusters must be a whole number"):
            exp.update(sigma=0.3, n_clusters=2.5)
        with pytest.raises(ValueError, match="unknown control"):
            exp.update(sigma=0.3, nope=1)
        assert exp.values == before  # sigma did not move
        assert len(exp.latencies) == latencies  # nothing was recomputed or redrawn
        assert np.array_equal(_agg_pixels(exp), drawn)
        exp.update(sigma=0.3, k=4, n_clusters=2.0)
        assert exp.values["sigma"] == pytest.approx(0.3) and exp.values["k"] == 4
    finally:
        exp.close()


def test_reset_brings_back_the_first_values_and_picture():
    exp = SparsityGapExplorer(k=4)
    try:
        first = exp.values
        assert first["k"] == 4
        picture = _fresh_pixels(exp)
        exp.update(k=2, sigma=0.4, n_irrelevant=30)
        assert exp.values != first
        exp.reset_button.click()
        assert exp.values == first
        assert np.array_equal(_fresh_pixels(exp), picture)
        # the button is part of every explorer's box
        assert exp.reset_button in exp.widget.children[0].children
    finally:
        exp.close()


class _FakeLoop:
    """Stands in for a kernel's IO loop: callbacks are queued, never run by themselves."""

    def __init__(self):
        self.callbacks = []

    def add_callback(self, callback):
        self.callbacks.append(callback)


def test_in_a_kernel_constructor_and_update_never_wait_for_refinement(monkeypatch):
    from spectral_kit.widgets import base

    loop = _FakeLoop()
    monkeypatch.setattr(base, "_kernel_loop", lambda: loop)
    exp = PositivityExplorer(n=150, trials=1000)
    try:
        # the first picture is drawn, the rest is left to the loop
        assert len(exp.latencies) == 1 and exp._pending is not None and loop.callbacks
        # the page can tell a frame on the way from the final picture
        assert base.REFINING_CLASS in exp.status._dom_classes
        exp.update(mu=0.5)  # in a kernel update() does not finish either
        assert exp._pending is not None and base.REFINING_CLASS in exp.status._dom_classes
        while exp._pending is not None:  # the loop runs the refinement steps
            loop.callbacks.pop(0)()
        assert base.REFINING_CLASS not in exp.status._dom_classes
        n, p = exp.result["n"], exp.result["probability"]
        assert n.size == exp.grid.size + (150 not in exp.grid) and np.all(np.isfinite(p))
    finally:
        exp.close()


def test_text_is_at_least_ten_points():
    # projected in a classroom, nothing in a figure is smaller than 10 pt
    from matplotlib.text import Text

    from spectral_kit import widgets

    for name in ("PositivityExplorer", "SparsityGapExplorer", "SideInformationExplorer",
                 "InterlacingExplorer", "StabilityExplorer", "DetectabilityExplorer"):
        exp = getattr(widgets, name)()
        try:
            exp.finish()
            with exp._static_render():  # the moving artists' text too
                exp.figure.canvas.draw()
            small = [(t.get_text(), t.get_fontsize()) for t in exp.figure.findobj(Text)
                     if t.get_text().strip() and t.get_visible() and t.get_fontsize() < 10]
            assert not small, (name, small)
            assert exp.figure.dpi >= 100
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


def test_dashboard_holds_every_explorer_with_caption_link_and_reset():
    from pathlib import Path

    from spectral_kit.widgets import DetectabilityExplorer, InterlacingExplorer, StabilityExplorer
    from spectral_kit.widgets.dashboard import CARDS, Dashboard

    notebooks = Path(__file__).resolve().parent.parent / "notebooks"
    # the five explorers of the kit, each linked to a notebook that exists
    assert {card.explorer for card in CARDS} == {
        "PositivityExplorer", "SparsityGapExplorer", "InterlacingExplorer",
        "StabilityExplorer", "DetectabilityExplorer"}
    for card in CARDS:
        assert (notebooks / card.notebook).exists(), card.notebook
        assert card.notice.count("$") % 2 == 0, card.notice  # typeset maths is balanced
    built = {card.title: cls() for card, cls in zip(CARDS[:1], [PositivityExplorer])}
    built.update({CARDS[2].title: InterlacingExplorer(), CARDS[3].title: DetectabilityExplorer(),
                  CARDS[4].title: StabilityExplorer()})
    dashboard = Dashboard(built)
    try:
        cards = dashboard.cards
        assert len(cards) == 4
        for card, explorer in zip(cards, built.values()):
            texts = [c.value for c in card.children if hasattr(c, "value")]
            assert any("What to notice" in t for t in texts)
            assert any(".ipynb" in t and "href" in t for t in texts)
            assert explorer.widget.children[0].children[-1] is explorer.reset_button
            # a card is as wide as its figure, so cards wrap instead of squeezing figures
            assert card.layout.width == f"{explorer.figsize[0] * FIGURE_DPI + 16:.0f}px"
            assert explorer.figsize[0] * FIGURE_DPI <= 800  # fits a 1280 px screen beside
            # JupyterLab's file browser
        bundle, _ = dashboard._repr_mimebundle_()
        assert "application/vnd.jupyter.widget-view+json" in bundle and bundle["image/png"]
    finally:
        dashboard.close()


def test_notebook_links_follow_where_the_dashboard_runs(monkeypatch):
    from spectral_kit.jupyter_config.voila_hooks import SERVER_ENV
    from spectral_kit.widgets.dashboard import NOTEBOOKS_ONLINE, notebook_href

    monkeypatch.delenv("SCRIPT_NAME", raising=False)
    monkeypatch.delenv(SERVER_ENV, raising=False)
    assert notebook_href("01_q_alpha.ipynb") == "01_q_alpha.ipynb"
    # Voilà inside a Jupyter server (Binder): open the notebook in JupyterLab instead
    monkeypatch.setenv("SCRIPT_NAME", "/user/abc/voila/render/notebooks/dashboard.ipynb")
    assert notebook_href("01_q_alpha.ipynb") == "/user/abc/lab/tree/notebooks/01_q_alpha.ipynb"
    monkeypatch.setenv(SERVER_ENV, "jupyter")
    assert notebook_href("01_q_alpha.ipynb") == "/user/abc/lab/tree/notebooks/01_q_alpha.ipynb"
    # Voilà on its own serving a folder renders the notebook beside the dashboard
    monkeypatch.setenv(SERVER_ENV, "voila")
    monkeypatch.setenv("SCRIPT_NAME", "/voila/render/dashboard.ipynb")
    assert notebook_href("03_sparse_lda_bounds.ipynb") == "03_sparse_lda_bounds.ipynb"
    # Voilà on its own serving the dashboard only: it refuses other notebooks (403)
    monkeypatch.setenv("SCRIPT_NAME", "/")
    assert notebook_href("03_sparse_lda_bounds.ipynb") == (
        NOTEBOOKS_ONLINE + "03_sparse_lda_bounds.ipynb")
    assert NOTEBOOKS_ONLINE.startswith("https://") and NOTEBOOKS_ONLINE.endswith("/notebooks/")


def test_dashboard_builds_its_explorers_once_it_is_shown():
    from spectral_kit import widgets as kit_widgets
    from spectral_kit.widgets.dashboard import _FIGSIZES, CARDS, YOUR_DATA, Dashboard

    for card in CARDS:  # the placeholders take the room of the explorer to come
        assert _FIGSIZES[card.explorer] == getattr(kit_widgets, card.explorer).figsize
    dashboard = Dashboard(lazy=True)
    try:
        # shown nowhere yet: captions, links and placeholders only, no explorer
        assert dashboard.explorers == {} and len(dashboard.cards) == len(CARDS)
        assert dashboard.widget._view_count == 0
        bundle, _ = dashboard._repr_mimebundle_()
        assert "image/png" not in bundle
        assert "application/vnd.jupyter.widget-view+json" in bundle
        assert YOUR_DATA in dashboard.widget.children[-1].value
        for box in dashboard.cards:  # each card shows its stored first picture meanwhile
            placeholder = box.children[-1].children[0]
            assert placeholder.children[-1].value[:8] == b"\x89PNG\r\n\x1a\n"
        # what the front end reports when the page shows the dashboard
        dashboard.widget._view_count = 1
        assert list(dashboard.explorers) == [card.title for card in CARDS]
        for card, box in zip(CARDS, dashboard.cards):
            explorer = dashboard.explorers[card.title]
            assert type(explorer).__name__ == card.explorer
            shown = box.children[-1].children[0]  # the explorer's box, in place of the placeholder
            assert shown.children[0].children[-1] is explorer.reset_button
        assert not dashboard.errors
        dashboard.widget._view_count = 2  # a second view builds nothing again
        assert len(dashboard.explorers) == len(CARDS)
    finally:
        dashboard.close()


def test_a_card_whose_explorer_fails_says_so_and_the_others_come(monkeypatch):
    from spectral_kit.widgets import dashboard as module

    def broken(card):
        if card.explorer == "InterlacingExplorer":
            raise RuntimeError("no memory left")
        return real(card)

    real = module._explorer_for
    monkeypatch.setattr(module, "_explorer_for", broken)
    dashboard = module.Dashboard(lazy=True)
    try:
        dashboard.widget._view_count = 1
        assert len(dashboard.explorers) == len(module.CARDS) - 1
        assert len(dashboard.errors) == 1 and "no memory left" in dashboard.errors[0]
        assert "could not start" in dashboard.cards[2].children[-1].children[0].value
    finally:
        dashboard.close()


def test_dashboard_rejects_a_bad_lazy_flag():
    from spectral_kit.widgets.dashboard import Dashboard

    with pytest.raises(TypeError, match="lazy"):
        Dashboard(lazy="yes")


def test_a_hidpi_screen_gets_whole_frames_at_its_resolution():
    exp = SparsityGapExplorer()
    try:
        exp.update(k=2)  # a background is cached at the first resolution
        # what ipympl does when a front end reports a device pixel ratio of 2
        exp.figure.set_dpi(2 * FIGURE_DPI)
        exp.update(k=4)
        drawn = _agg_pixels(exp)
        width, height = exp.figsize
        assert drawn.shape[:2] == (round(2 * height * FIGURE_DPI), round(2 * width * FIGURE_DPI))
        assert np.array_equal(drawn, _fresh_pixels(exp))
    finally:
        exp.close()


def test_frames_sent_before_the_front_end_attaches_are_png():
    # ipympl 0.10 sends the raw RGBA buffer as the frame until its front end says it is
    # initialised; explorers refine while the front end attaches, so their frames must be
    # PNG images, and _data_url the whole picture as a data URL
    nbagg = pytest.importorskip("ipympl.backend_nbagg")
    from matplotlib.figure import Figure

    from spectral_kit.widgets import base

    figure = Figure(figsize=(2, 1), dpi=50)
    figure.add_subplot().plot([0, 1])
    nbagg.new_figure_manager_given_figure(1, figure)
    canvas = figure.canvas
    assert canvas.syncing_data_url
    sent = []
    canvas.send = lambda content, buffers=None: sent.append(buffers)
    base._prefix_data_url(canvas)
    canvas._force_full = True
    canvas.draw()
    assert sent and bytes(sent[-1][0]).startswith(b"\x89PNG")
    url = canvas._data_url
    assert url.startswith("data:image/png;base64,")
    shown = plt.imread(io.BytesIO(base64.b64decode(url.split(",", 1)[1])), format="png")
    assert shown.shape[:2] == (50, 100)
    canvas.close()


def test_the_dashboards_explorers_import_neither_scikit_learn_nor_scipy_stats():
    """A dashboard kernel loads what its five explorers draw with, not all of SciPy and
    scikit-learn (a Binder session has 1–2 GB for every kernel of a class's reloads)."""
    import subprocess
    import sys

    code = ("import sys\nfrom spectral_kit.widgets import Dashboard\nimport spectral_kit.widgets as w\n"
            "from spectral_kit.widgets.dashboard import CARDS\n"
            "assert 'scipy' not in sys.modules, 'the dashboard module loads SciPy'\n"
            "for card in CARDS: getattr(w, card.explorer)\n"
            "print(sorted(m for m in ('sklearn', 'scipy.stats', 'pandas') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "[]", out.stdout


def test_the_dashboards_stored_pictures_are_what_the_explorers_draw(tmp_path):
    """The pictures a card shows before its explorer is live (spectral_kit/widgets/pictures)
    are the explorers' first pictures today: rewrite them with ``store_pictures()`` when an
    explorer's look changes."""
    from spectral_kit.widgets.dashboard import CARDS, PICTURES, store_pictures

    for fresh in store_pictures(tmp_path):
        stored = PICTURES / fresh.name
        assert stored.is_file(), f"{stored} is missing: run store_pictures()"
        a = plt.imread(stored)[..., :3]
        b = plt.imread(fresh)[..., :3]
        assert a.shape == b.shape, f"{fresh.name}: {a.shape} stored, {b.shape} drawn now"
        differ = np.any(np.abs(a - b) > 0.1, axis=-1).mean()
        # fonts may be rasterised a little differently from one machine to another
        assert differ < 0.01, f"{fresh.name}: {differ:.1%} of the pixels differ"
    assert len(list(PICTURES.glob("*.png"))) == len(CARDS)


def test_the_dashboard_notebook_carries_the_preview_of_its_cards(tmp_path):
    """The dashboard notebook's preview cell (what Voilà sends with the page, before the
    kernel has run) is ``preview_html()`` of today's cards and stored pictures, hidden
    outside Voilà; ``write_preview`` rewrites it and leaves an up-to-date copy alone."""
    import shutil

    import nbformat

    from spectral_kit.widgets.dashboard import (
        CARDS,
        PICTURES,
        PREVIEW_CLASS,
        preview_html,
        write_preview,
    )

    notebook = Path(__file__).resolve().parent.parent / "notebooks" / "dashboard.ipynb"
    nb = nbformat.read(notebook, as_version=4)
    cells = [c for c in nb.cells if c.cell_type == "markdown" and PREVIEW_CLASS in c.source]
    assert len(cells) == 1, "the dashboard notebook needs one preview cell: write_preview()"
    source = cells[0].source
    assert source == preview_html(), "the preview is out of date: run write_preview()"
    first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
    assert nb.cells.index(cells[0]) < first_code
    # one HTML block that Markdown passes whole; hidden unless Voilà's page shows it
    assert "\n\n" not in source and source.startswith(
        f'<div class="{PREVIEW_CLASS}" hidden style="display:none">')
    assert "body[data-voila]" in source
    for card in CARDS:
        assert html.escape(card.title) in source and card.notice in source
        data = base64.b64encode((PICTURES / f"{card.explorer}.png").read_bytes()).decode()
        assert data in source
    copy = tmp_path / "dashboard.ipynb"
    shutil.copy(notebook, copy)
    assert write_preview(copy) is False
    stale = nbformat.read(copy, as_version=4)
    for cell in stale.cells:
        if PREVIEW_CLASS in cell.source:
            cell.source = cell.source.replace("What to notice.", "Old text.")
    nbformat.write(stale, copy)
    assert write_preview(copy) is True
    assert [c.source for c in nbformat.read(copy, as_version=4).cells
            if PREVIEW_CLASS in c.source] == [preview_html()]
