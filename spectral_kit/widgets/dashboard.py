"""The dashboard: the kit's explorers side by side, for Voilà or a notebook."""

from __future__ import annotations

import base64
import io
import os
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt

from .base import STATIC_ENV, Explorer

__all__ = ["Dashboard", "default_explorers"]


def default_explorers() -> dict[str, Explorer]:
    """One explorer per idea the kit teaches, with titles, in teaching order."""
    from . import (
        InterlacingExplorer,
        PositivityExplorer,
        SparsityGapExplorer,
        StabilityExplorer,
    )

    return {
        "Positivity of the leading eigenvector (Wolf & Shashua, Thm. 10)": PositivityExplorer(),
        "Sparsity gap of Q-α (Wolf & Shashua, Lemma 13)": SparsityGapExplorer(),
        "Eigenvalue interlacing bounds (Moghaddam et al., Thm. 1)": InterlacingExplorer(),
        "Stewart's stability check (Mavroeidis & Vazirgiannis)": StabilityExplorer(),
    }


class Dashboard:
    """Explorers laid out together (wrapping rows), each under its title.

    Parameters
    ----------
    explorers : dict of title → Explorer, optional
        Defaults to :func:`default_explorers`.
    """

    def __init__(self, explorers: dict[str, Explorer] | None = None):
        self.explorers = default_explorers() if explorers is None else dict(explorers)
        cards = []
        for title, explorer in self.explorers.items():
            heading = widgets.HTML(f"<h3 style='margin:4px 0'>{title}</h3>")
            card = widgets.VBox([heading, explorer.widget],
                                layout=widgets.Layout(margin="0 16px 16px 0"))
            cards.append(card)
        self.widget = widgets.Box(
            cards, layout=widgets.Layout(display="flex", flex_flow="row wrap")
        )
        self.widget.add_class("spectral-kit-dashboard")

    def close(self) -> None:
        for explorer in self.explorers.values():
            explorer.close()
        self.widget.close()

    def snapshot(self) -> bytes:
        """All explorers' figures stacked into one PNG."""
        images = [plt.imread(io.BytesIO(e.snapshot()), format="png")
                  for e in self.explorers.values()]
        width = max(im.shape[1] for im in images)
        height = sum(im.shape[0] for im in images)
        with plt.ioff():
            fig = plt.figure(figsize=(width / 80, height / 80), dpi=80)
        top = 1.0
        for im in images:
            h = im.shape[0] / height
            ax = fig.add_axes((0, top - h, im.shape[1] / width, h))
            ax.imshow(im)
            ax.axis("off")
            top -= h
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=80)
        plt.close(fig)
        return buffer.getvalue()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict:
        png = base64.b64encode(self.snapshot()).decode("ascii")
        fallback = {"image/png": png, "text/plain": f"Dashboard({len(self.explorers)} explorers)"}
        if os.environ.get(STATIC_ENV):
            return fallback
        return {**fallback, **self.widget._repr_mimebundle_(**kwargs)}
