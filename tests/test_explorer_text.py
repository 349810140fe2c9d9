"""Every explorer's text stays inside its figure and off the other text, at every slider
extreme: each slider at its minimum and at its maximum (the others at their defaults), and all
at their minima and all at their maxima. Bounding boxes come from the Agg renderer, in the
figure's pixels; tick labels are left out (they are drawn once, with the axes)."""

from __future__ import annotations

import itertools

import matplotlib
import pytest
from matplotlib.text import Text

from spectral_kit.plots._style import FIGURE_DPI

EXPLORERS = ["DetectabilityExplorer", "InterlacingExplorer", "PositivityExplorer",
             "SideInformationExplorer", "SparsityGapExplorer", "StabilityExplorer"]
#: Figure height an explorer may have: with its sliders and status line (about 130 px) it
#: then fits the notebook area JupyterLab leaves on a 1280 × 800 screen (about 650 px).
MAX_FIGURE_HEIGHT_PX = 500


def _explorer(name: str):
    import spectral_kit.widgets as widgets

    matplotlib.use("Agg")
    cls = getattr(widgets, name)
    return cls(n_resamples=50) if name == "StabilityExplorer" else cls()


def _range(control) -> tuple[float, float]:
    """A slider's smallest and largest value (a log slider's bounds are exponents)."""
    if type(control).__name__ == "FloatLogSlider":
        return control.base ** control.min, control.base ** control.max
    return control.min, control.max


def _extremes(explorer) -> list[tuple[str, dict]]:
    sliders = {name: _range(c) for name, c in explorer.controls.items()
               if hasattr(c, "min") and hasattr(c, "max")}
    states = [("defaults", {})]
    for name, (low, high) in sliders.items():
        states += [(f"{name} = {low:g}", {name: low}), (f"{name} = {high:g}", {name: high})]
    states.append(("all at their minima", {n: lo for n, (lo, _) in sliders.items()}))
    states.append(("all at their maxima", {n: hi for n, (_, hi) in sliders.items()}))
    return states


def text_problems(figure, label: str) -> list[str]:
    """Visible text outside the figure, and pairs of visible texts that overlap."""
    figure.canvas.draw()
    renderer = figure.canvas.get_renderer()
    ticks = set()
    for ax in figure.axes:
        for axis in (ax.xaxis, ax.yaxis):
            for tick in axis.get_major_ticks() + axis.get_minor_ticks():
                ticks |= {id(tick.label1), id(tick.label2)}
    boxes = [(t.get_text(), t.get_window_extent(renderer)) for t in figure.findobj(Text)
             if t.get_visible() and t.get_text().strip() and id(t) not in ticks]
    frame = figure.bbox
    problems = []
    for text, box in boxes:
        if (box.x0 < frame.x0 - 1 or box.x1 > frame.x1 + 1 or box.y0 < frame.y0 - 1
                or box.y1 > frame.y1 + 1):
            problems.append(f"{label}: {text!r} leaves the figure ({box.bounds} outside "
                            f"{frame.bounds})")
    for (text1, box1), (text2, box2) in itertools.combinations(boxes, 2):
        common = type(box1).intersection(box1, box2)
        if common is not None and common.width > 1 and common.height > 1:
            problems.append(f"{label}: {text1!r} runs over {text2!r}")
    return problems


def test_the_check_sees_text_off_the_figure_and_over_other_text():
    import matplotlib.pyplot as plt

    matplotlib.use("Agg")
    figure, (left, right) = plt.subplots(1, 2, figsize=(8, 3.2), dpi=FIGURE_DPI)
    left.set_title("left")
    right.set_title("right")
    assert text_problems(figure, "clean") == []
    right.text(0.5, 1.0, "a caption over the title", transform=right.transAxes,
               ha="center", va="bottom")
    right.text(0.9, 0.5, "a caption that runs off the figure", transform=right.transAxes,
               ha="left")
    found = text_problems(figure, "broken")
    assert any("'a caption that runs off the figure' leaves the figure" in p for p in found)
    assert any("'a caption over the title' runs over 'right'" in p
               or "'right' runs over 'a caption over the title'" in p for p in found), found
    plt.close(figure)


def test_the_stability_caption_stays_in_its_panel():
    """The case found in a class: clusters = 1, k = 7, samples = 20, then clusters = 4."""
    explorer = _explorer("StabilityExplorer")
    problems = []
    for values in ({"n_clusters": 1}, {"k": 7}, {"n_samples": 20}, {"n_clusters": 4}):
        explorer.update(finish=True, **values)
        problems += text_problems(explorer.figure, str(explorer.values))
    assert problems == []
    # what the title no longer says is said inside the panel
    assert "gap →" in explorer.beyond_text.get_text()
    assert "gap" not in explorer.k_text.get_text()


@pytest.mark.slow
@pytest.mark.parametrize("name", EXPLORERS)
def test_text_stays_inside_at_every_slider_extreme(name):
    explorer = _explorer(name)
    problems = []
    for label, values in _extremes(explorer):
        explorer.reset()
        explorer.update(finish=True, **values)
        problems += text_problems(explorer.figure, f"{name}, {label}")
    assert problems == [], "\n".join(problems)


@pytest.mark.parametrize("name", EXPLORERS)
def test_every_explorer_fits_a_1280_by_800_screen(name):
    import spectral_kit.widgets as widgets

    width, height = getattr(widgets, name).figsize
    assert width * FIGURE_DPI <= 1280 - 300          # beside JupyterLab's side bar
    assert height * FIGURE_DPI <= MAX_FIGURE_HEIGHT_PX, (name, height * FIGURE_DPI)


@pytest.mark.slow
@pytest.mark.parametrize("labelled", [True, False], ids=["with y", "without y"])
def test_the_data_explorer_text_stays_inside_at_every_slider_extreme(labelled):
    """The same check on a researcher's data (planted classes, 200 × 400), with and without
    labels: its eight panels share the width of one explorer."""
    from spectral_kit.bench.explorers import _planted
    from spectral_kit.widgets import DataExplorer

    matplotlib.use("Agg")
    X, y = _planted(200, 400)
    explorer = DataExplorer(X, y if labelled else None, eslda_seconds=0.5)
    problems = []
    try:
        for label, values in _extremes(explorer):
            explorer.reset()
            explorer.update(finish=True, **values)
            problems += text_problems(explorer.figure, f"DataExplorer, {label}")
    finally:
        explorer.close()
    assert problems == [], "\n".join(problems)
