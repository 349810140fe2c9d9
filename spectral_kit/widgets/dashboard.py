"""The dashboard: the kit's five explorers, each with what to notice and where to read more,
for Voilà or a notebook."""

from __future__ import annotations

import base64
import io
import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt

from ..plots._style import FIGURE_DPI, PNG_SCALE
from .base import STATIC_ENV, Explorer

__all__ = ["CARDS", "Card", "Dashboard", "default_explorers", "notebook_href"]


@dataclass(frozen=True)
class Card:
    """What the dashboard shows around one explorer.

    Attributes
    ----------
    title : str
        The idea and where it is stated.
    notice : str
        One line: what to look for while moving the sliders (``$…$`` is typeset).
    notebook : str
        The notebook that teaches the idea (a file name in the kit's ``notebooks/``).
    explorer : str
        The explorer's class name in :mod:`spectral_kit.widgets`.
    """

    title: str
    notice: str
    notebook: str
    explorer: str


#: The dashboard's cards, in teaching order.
CARDS: tuple[Card, ...] = (
    Card("Positivity of the leading eigenvector (Wolf & Shashua, Thm. 10)",
         r"Raise $n$: the chance that the leading eigenvector is all one sign climbs to 1 "
         r"whenever $\mu > 0$, the faster the larger $\mu/\sigma$.",
         "01_q_alpha.ipynb", "PositivityExplorer"),
    Card("Sparsity gap of Q-α (Wolf & Shashua, Lemma 13)",
         r"Add irrelevant features: their weights $\alpha_i$ stay small, under Lemma 13's "
         r"bound, and the relevant bars stand apart.",
         "01_q_alpha.ipynb", "SparsityGapExplorer"),
    Card("Eigenvalue interlacing bounds (Moghaddam et al., Thm. 1)",
         r"Each eigenvalue of a $k$-subset sits on its bracket, so the best subset lies in "
         r"the grey band; greedy GSLDA is almost always on the exact ESLDA curve.",
         "03_sparse_lda_bounds.ipynb", "InterlacingExplorer"),
    Card("Detectability and variable weighting (Wolf & Bileschi, Sec. 2)",
         r"Push $n_2$ past $q(\theta - 1)^2$: PCA loses the two clusters as $\theta$ sinks "
         r"into the Wishart bulk, the weighted PCA still separates them.",
         "04_selection_then_reduction.ipynb", "DetectabilityExplorer"),
    Card("Stewart's stability check (Mavroeidis & Vazirgiannis, Lemma 1)",
         r"A top-$k$ space is stable where the eigengap clears $4\Vert E\Vert_2$; more "
         r"samples shrink $\Vert E\Vert_2$, and the resamples stay under Stewart's bound.",
         "05_stability_sparse_pca.ipynb", "StabilityExplorer"),
)


def default_explorers() -> dict[str, Explorer]:
    """One explorer per card of :data:`CARDS`, by title, in teaching order."""
    from .. import widgets as kit_widgets

    return {card.title: getattr(kit_widgets, card.explorer)() for card in CARDS}


def notebook_href(notebook: str) -> str:
    """Where a link to one of the kit's notebooks points, from the dashboard.

    In JupyterLab (and Voilà standalone) the link is relative to the dashboard, which sits
    beside the notebooks. Voilà running inside a Jupyter server (Binder's
    ``voila/render/...``) tells the kernel its page address in ``SCRIPT_NAME``; the link
    then opens the notebook in JupyterLab on the same server rather than as another Voilà
    page.
    """
    page = os.environ.get("SCRIPT_NAME", "")
    marker = "/voila/render/"
    if marker in page:
        prefix, path = page.split(marker, 1)
        folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        return f"{prefix}/lab/tree/{folder}{notebook}"
    return notebook


class Dashboard:
    """Explorers laid out together in wrapping rows, each in a card with its title, what to
    notice, a link to the notebook that teaches it, and its reset button.

    The cards keep the width of their figure and wrap: one column on a 1280 px screen,
    two side by side from about 1850 px.

    Parameters
    ----------
    explorers : dict of title → Explorer, optional
        Defaults to :func:`default_explorers` (the five explorers of :data:`CARDS`).

    Raises
    ------
    TypeError
        If ``explorers`` is not a mapping of titles to explorers.

    Examples
    --------
    >>> from spectral_kit.widgets import Dashboard, PositivityExplorer
    >>> dashboard = Dashboard({"Positivity": PositivityExplorer()})
    >>> list(dashboard.explorers), type(dashboard.widget).__name__
    (['Positivity'], 'Box')
    >>> dashboard.close()
    """

    def __init__(self, explorers: dict[str, Explorer] | None = None):
        if explorers is not None and not isinstance(explorers, Mapping):
            raise TypeError(f"explorers must map a card title to an explorer; got "
                            f"{type(explorers).__name__}.")
        self.explorers = default_explorers() if explorers is None else dict(explorers)
        for title, explorer in self.explorers.items():
            if not isinstance(explorer, Explorer):
                raise TypeError(f"explorers[{title!r}] must be an explorer (for example "
                                f"PositivityExplorer()); got {type(explorer).__name__}.")
        cards_by_title = {card.title: card for card in CARDS}
        cards = []
        for title, explorer in self.explorers.items():
            parts: list[widgets.Widget] = [
                widgets.HTML(f"<h3 style='margin:4px 0'>{title}</h3>")
            ]
            card = cards_by_title.get(title)
            if card is not None:
                notice = widgets.HTMLMath(f"<b>What to notice.</b> {card.notice}")
                notice.add_class("spectral-kit-notice")
                link = widgets.HTML(
                    f"<a href='{notebook_href(card.notebook)}' target='_blank' "
                    "style='color:#0b57d0;text-decoration:underline' "
                    f"rel='noopener'>Read more: notebook {card.notebook}</a>"
                )
                link.add_class("spectral-kit-notebook-link")
                parts += [notice, link]
            parts.append(explorer.widget)
            width = explorer.figsize[0] * FIGURE_DPI + 16
            box = widgets.VBox(parts, layout=widgets.Layout(
                margin="0 24px 24px 0", width=f"{width:.0f}px", flex="0 0 auto"))
            box.add_class("spectral-kit-card")
            cards.append(box)
        self.widget = widgets.Box(
            cards, layout=widgets.Layout(display="flex", flex_flow="row wrap",
                                         align_items="flex-start", width="100%")
        )
        self.widget.add_class("spectral-kit-dashboard")

    def close(self) -> None:
        for explorer in self.explorers.values():
            explorer.close()
        self.widget.close()

    def snapshot(self) -> bytes:
        """All explorers' figures stacked into one PNG (twice the pixels on screen)."""
        images = [plt.imread(io.BytesIO(e.snapshot(scale=PNG_SCALE)), format="png")
                  for e in self.explorers.values()]
        width = max(im.shape[1] for im in images)
        height = sum(im.shape[0] for im in images)
        dpi = FIGURE_DPI * PNG_SCALE
        with plt.ioff():
            fig = plt.figure(figsize=(width / dpi, height / dpi), dpi=dpi)
        top = 1.0
        for im in images:
            h = im.shape[0] / height
            ax = fig.add_axes((0, top - h, im.shape[1] / width, h))
            ax.imshow(im)
            ax.axis("off")
            top -= h
        buffer = io.BytesIO()
        fig.savefig(buffer, format="png", dpi=dpi)
        plt.close(fig)
        return buffer.getvalue()

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        static = bool(os.environ.get(STATIC_ENV))
        if static:
            # A stored picture is final: no kernel will refine it later.
            for explorer in self.explorers.values():
                explorer.finish()
        png = self.snapshot()
        shape = plt.imread(io.BytesIO(png), format="png").shape
        data = {"image/png": base64.b64encode(png).decode("ascii"),
                "text/plain": f"Dashboard({len(self.explorers)} explorers)"}
        metadata = {"image/png": {"width": round(shape[1] / PNG_SCALE),
                                  "height": round(shape[0] / PNG_SCALE)}}
        if static:
            return data, metadata
        return {**data, **self.widget._repr_mimebundle_(**kwargs)}, metadata
