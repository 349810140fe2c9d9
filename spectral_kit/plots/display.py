"""Showing static figures in notebooks, whatever matplotlib backend is active."""

from __future__ import annotations

import io

import matplotlib.pyplot as plt
from matplotlib.figure import Figure

from ._style import FIGURE_DPI

__all__ = ["new_figure", "static_figure"]


def new_figure(nrows: int = 1, ncols: int = 1, *, figsize: tuple[float, float] = (8.0, 3.0),
               **kwargs: object) -> tuple[Figure, object]:
    """A figure with axes that is not shown by the active backend until asked.

    Notebooks run with ipympl (``%matplotlib widget``) for the explorers; figures that
    illustrate a fixed result are made here and shown with :func:`static_figure`, so they
    are plain PNG images that any notebook viewer can display.
    """
    with plt.ioff():
        fig, axes = plt.subplots(nrows, ncols, figsize=figsize, dpi=FIGURE_DPI,
                                 layout="constrained", **kwargs)
    return fig, axes


def static_figure(fig: Figure):
    """Render ``fig`` to a PNG ``IPython.display.Image`` and close it."""
    from IPython.display import Image

    buffer = io.BytesIO()
    fig.savefig(buffer, format="png", dpi=FIGURE_DPI)
    plt.close(fig)
    return Image(data=buffer.getvalue(), format="png")
