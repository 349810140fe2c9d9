"""The sliders every explorer uses, with one name, range, unit and update policy each.

Explorers ask :func:`make_slider` for a control by its canonical name (``"n"``, ``"mu"``,
``"sigma"``, ``"k"``, ``"lam"``, ``"n_clusters"``, ...) and may narrow its range; the label,
unit, step and ``continuous_update`` policy stay the same everywhere, so a student meets the
same σ slider in every notebook. ``explorer.update(n=50, mu=0.2)`` uses the same names.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import ipywidgets as widgets

__all__ = ["SLIDERS", "SliderSpec", "make_slider"]


@dataclass(frozen=True)
class SliderSpec:
    """How one kind of control looks and behaves.

    Attributes
    ----------
    label : str
        Short symbol shown before the slider (μ, σ, λ, ...).
    unit : str
        What the value means, shown as a tooltip and after the label.
    kind : {"int", "float", "log"}
        ``"log"`` is a base-10 logarithmic slider (``min``/``max`` are exponents).
    min, max, step, value : float
        Range, step and default.
    costly : bool
        When true the slider updates only on release (``continuous_update=False``) because
        each value triggers real computation; cheap sliders follow the drag.

    Examples
    --------
    >>> from spectral_kit.widgets import SLIDERS
    >>> spec = SLIDERS["lam"]
    >>> spec.label, spec.kind, (spec.min, spec.max)  # λ from 10⁻³ to 10³
    ('λ', 'log', (-3.0, 3.0))
    >>> SLIDERS["confidence"].costly  # recomputes on release, not while dragging
    True
    """

    label: str
    unit: str
    kind: str
    min: float
    max: float
    step: float
    value: float
    costly: bool = False


#: The kit's controls, by canonical name.
SLIDERS: dict[str, SliderSpec] = {
    "n": SliderSpec("n", "size: rows of G / features", "int", 2, 200, 1, 20),
    "mu": SliderSpec("μ", "mean of the entries", "float", -0.3, 1.0, 0.01, 0.17),
    "sigma": SliderSpec("σ", "standard deviation", "float", 0.01, 2.0, 0.01, 0.24),
    "k": SliderSpec("k", "eigenvectors / cardinality", "int", 1, 10, 1, 2),
    "lam": SliderSpec("λ", "weight (log scale)", "log", -3.0, 3.0, 0.1, 0.1),
    "n_clusters": SliderSpec("clusters", "number of clusters / groups", "int", 1, 8, 1, 3),
    "trials": SliderSpec("trials", "Monte-Carlo repetitions", "int", 25, 1000, 25, 200,
                         costly=True),
    "n_irrelevant": SliderSpec("irrelevant", "number of irrelevant features", "int", 0, 300,
                               10, 120, costly=True),
    "n_samples": SliderSpec("samples", "number of samples", "int", 10, 2000, 10, 60,
                            costly=True),
    "confidence": SliderSpec("confidence", "coverage of the intervals", "float", 0.5, 0.99,
                             0.01, 0.9, costly=True),
}

_WIDTH = "340px"
_STYLE = {"description_width": "84px"}


def make_slider(
    name: str,
    *,
    min: float | None = None,
    max: float | None = None,
    step: float | None = None,
    value: float | None = None,
    costly: bool | None = None,
) -> widgets.Widget:
    """A slider for the canonical control ``name``, optionally with a narrower range.

    Every explorer builds its controls here, so that μ, σ, λ, k, ... look and behave the same
    in every notebook (CONTRIBUTING: add a kind to :data:`SLIDERS` rather than an ad-hoc
    slider).

    Parameters
    ----------
    name : str
        A key of :data:`SLIDERS` (``"n"``, ``"mu"``, ``"sigma"``, ``"k"``, ``"lam"``, ...).
    min, max, step, value : float, optional
        Override the range, step and default of the canonical spec (exponents for a ``"log"``
        slider's ``min``/``max``; ``value`` itself for its value).
    costly : bool, optional
        Override whether the slider updates only on release.

    Returns
    -------
    ipywidgets.Widget
        An ``IntSlider``, ``FloatSlider`` or ``FloatLogSlider``.

    Raises
    ------
    ValueError
        For an unknown name or a value outside the range.

    Examples
    --------
    >>> from spectral_kit.widgets import make_slider
    >>> slider = make_slider("k", max=8, value=3)
    >>> type(slider).__name__, slider.description, slider.value, slider.max
    ('IntSlider', 'k', 3, 8)
    >>> make_slider("lam", value=1e4)
    Traceback (most recent call last):
    ...
    ValueError: value 10000.0 of lam is outside 10^[-3.0, 3.0].
    """
    if name not in SLIDERS:
        raise ValueError(f"name must be one of {', '.join(SLIDERS)}; got {name!r}.")
    spec = SLIDERS[name]
    changes = {
        k: v for k, v in (("min", min), ("max", max), ("step", step), ("value", value),
                          ("costly", costly)) if v is not None
    }
    spec = replace(spec, **changes)
    common = {
        "description": spec.label, "tooltip": f"{spec.label}: {spec.unit}",
        "continuous_update": not spec.costly, "style": _STYLE,
        "layout": widgets.Layout(width=_WIDTH),
    }
    if spec.min > spec.max:
        raise ValueError(f"min ({spec.min}) of {name} must not exceed max ({spec.max}); "
                         "were the two swapped?")
    if spec.kind == "log":
        if spec.value <= 0:
            raise ValueError(f"value of {name} must be positive (its slider is logarithmic, "
                             f"10^[{spec.min}, {spec.max}]); got {spec.value}.")
        if not spec.min <= math.log10(spec.value) <= spec.max:
            raise ValueError(
                f"value {spec.value} of {name} is outside 10^[{spec.min}, {spec.max}]."
            )
        return widgets.FloatLogSlider(
            value=spec.value, base=10, min=spec.min, max=spec.max, step=spec.step,
            readout_format=".3g", **common,
        )
    if not spec.min <= spec.value <= spec.max:
        raise ValueError(f"value {spec.value} of {name} is outside [{spec.min}, {spec.max}].")
    if spec.kind == "int":
        return widgets.IntSlider(
            value=int(spec.value), min=int(spec.min), max=int(spec.max), step=int(spec.step),
            **common,
        )
    return widgets.FloatSlider(
        value=spec.value, min=spec.min, max=spec.max, step=spec.step, readout_format=".3g",
        **common,
    )
