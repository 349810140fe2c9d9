"""Colours, resolution and type sizes shared by every plot of the kit.

Colours are colour-blind safe (the Okabe–Ito palette). Figures are made at
:data:`FIGURE_DPI` (a 10-point label is 14 px tall on screen) and no text is smaller than
:data:`MIN_FONT_SIZE` points, so that a projected figure reads from the back of a room; ipympl
canvases multiply the resolution by the screen's device pixel ratio themselves, and stored
pictures are rendered at :data:`PNG_SCALE` times their size on screen.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import matplotlib as mpl

RELEVANT = "#0072B2"
IRRELEVANT = "#BBBBBB"
POSITIVE = "#0072B2"
NEGATIVE = "#D55E00"
ACCENT = "#009E73"
MUTED = "#999999"

#: Dots per inch of every figure on screen.
FIGURE_DPI = 100
#: Pixels of a stored picture per pixel on screen (sharp on HiDPI screens and projectors).
PNG_SCALE = 2.0
#: The smallest type size (points) of any text in the kit's figures.
MIN_FONT_SIZE = 10.0

#: Matplotlib settings the kit's figures are drawn with (sizes in points, never below
#: :data:`MIN_FONT_SIZE`; "medium" and every relative size resolve against ``font.size``).
RC_PARAMS = {
    "font.size": MIN_FONT_SIZE,
    "axes.titlesize": 11.0,
    "axes.labelsize": MIN_FONT_SIZE,
    "xtick.labelsize": MIN_FONT_SIZE,
    "ytick.labelsize": MIN_FONT_SIZE,
    "legend.fontsize": MIN_FONT_SIZE,
    "legend.title_fontsize": MIN_FONT_SIZE,
    "figure.titlesize": 12.0,
    "figure.dpi": FIGURE_DPI,
    "savefig.dpi": FIGURE_DPI,
    # Mathtext in the sans-serif of the labels around it.
    "mathtext.fontset": "dejavusans",
}


#: Held while the kit draws a figure. In a kernel, explorers refine their pictures between
#: messages while slider moves and the canvas' own redraws may arrive on another thread;
#: FreeType's fonts, shared through matplotlib's cache of typeset (mathtext) labels, fail
#: ("FT_Load_Glyph ... invalid outline") when two threads draw at once.
DRAW_LOCK = threading.RLock()


@contextlib.contextmanager
def figure_style() -> Iterator[None]:
    """Draw with :data:`RC_PARAMS` (sizes are fixed when an artist is created, so figures
    made inside keep them)."""
    with mpl.rc_context(RC_PARAMS):
        yield
