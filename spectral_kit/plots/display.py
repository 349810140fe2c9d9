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

    Parameters
    ----------
    nrows, ncols : int
        The grid of Axes.
    figsize : (float, float)
        Width and height in inches.
    **kwargs
        Passed to :func:`matplotlib.pyplot.subplots` (e.g. ``sharey=True``).

    Returns
    -------
    fig : Figure
        The figure, with a constrained layout.
    axes : Axes or ndarray of Axes
        As :func:`matplotlib.pyplot.subplots` returns them.

    Examples
    --------
    >>> from spectral_kit.plots import new_figure
    >>> fig, axes = new_figure(1, 2, figsize=(6.0, 2.5))
    >>> axes.shape, fig.get_size_inches().tolist()
    ((2,), [6.0, 2.5])
    >>> import matplotlib.pyplot as plt
    >>> plt.close(fig)
    """
    with plt.ioff(), figure_style():
        fig, axes = plt.subplots(nrows, ncols, figsize=figsize, dpi=FIGURE_DPI,
                                 layout="constrained", **kwargs)
    for ax in np.atleast_1d(axes).ravel():
        ax.tick_params(labelsize=MIN_FONT_SIZE)
    return fig, axes


def static_figure(fig: Figure):
    """Render ``fig`` to a PNG ``IPython.display.Image`` and close it.

    The PNG has ``PNG_SCALE`` (2) times the pixels it is shown with, so it stays sharp on
    HiDPI screens, projectors and in PDF exports.

    Parameters
    ----------
    fig : Figure
        The figure to show (closed afterwards).

    Returns
    -------
    IPython.display.Image
        A PNG image displayed at the figure's size on screen (its ``width`` and ``height``
        in pixels).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import new_figure, static_figure
    >>> fig, ax = new_figure(figsize=(2.0, 1.5))
    >>> lines = ax.plot([1, 2, 3], [1, 4, 9])
    >>> image = static_figure(fig)
    >>> image.width, image.height, image.data[:4] == b"\\x89PNG"
    (200, 150, True)
    >>> plt.fignum_exists(fig.number)
    False
    """
    from IPython.display import Image

    buffer = io.BytesIO()
    width, height = fig.get_size_inches() * FIGURE_DPI
    with DRAW_LOCK:
        fig.savefig(buffer, format="png", dpi=FIGURE_DPI * PNG_SCALE)
    plt.close(fig)
    return Image(data=buffer.getvalue(), format="png", width=round(width),
                 height=round(height))
