"""Showing static figures in notebooks, whatever matplotlib backend is active."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.figure import Figure

from ._style import DRAW_LOCK, FIGURE_DPI, MIN_FONT_SIZE, PNG_SCALE, figure_style

__all__ = ["new_figure", "static_figure"]


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] = (8.0, 3.0),
               **kwargs: object) -> tuple[Figure, object]:
    """A figure with axes that is not shown by the active backend until asked.

    Notebooks run with ipympl (``%matplotlib widget``) for the explorers; figures that
    illustrate a fixed result are made here and shown with :func:`static_figure`, so they
    are plain PNG images that any notebook viewer can display. Tick labels are set to the
    kit's smallest type size here, so they keep it whatever the global settings.
    """
    with plt.ioff(), figure_style():
        fig, axes = plt.subplots(nrows, ncols, figsize=figsize, dpi=FIGURE_DPI,
                                 layout="constrained", **kwargs)
    for ax in np.atleast_1d(axes).ravel():
        ax.tick_params(labelsize=MIN_FONT_SIZE)
    return fig, axes


def static_figure(fig: Figure):
    """Render ``fig`` to a PNG ``IPython.display.Image`` and close it.

    The PNG has :data:`~spectral_kit.plots._style.PNG_SCALE` times the pixels it is shown
    with, so it stays sharp on HiDPI screens, projectors and in PDF exports.
    """
    from IPython.display import Image

    buffer = io.BytesIO()
    width, height = fig.get_size_inches() * FIGURE_DPI
    with DRAW_LOCK:
        fig.savefig(buffer, format="png", dpi=FIGURE_DPI * PNG_SCALE)
    plt.close(fig)
    return Image(data=buffer.getvalue(), format="png", width=round(width),
                 height=round(height))
