"""The dashboard: the kit's five explorers, each with what to notice and where to read more,
for Voilà or a notebook."""

from __future__ import annotations

import base64
import contextlib
import html
import io
import os
import traceback
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ipywidgets as widgets
import matplotlib.pyplot as plt

from ..plots._style import FIGURE_DPI, PNG_SCALE
from .base import STATIC_ENV, Explorer, _kernel_loop

__all__ = ["CARDS", "KERNEL_WATCH", "NOTEBOOKS_ONLINE", "PICTURES", "PREVIEW_CLASS", "YOUR_DATA",
           "Card", "Dashboard", "default_explorers", "notebook_href", "preview_html",
           "write_preview"]


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
    options : tuple of (name, value) pairs
        Keyword arguments the card builds its explorer with.
    """

    title: str
    notice: str
    notebook: str
    explorer: str
    options: tuple[tuple[str, Any], ...] = ()


#: The dashboard's cards, in teaching order.
CARDS: tuple[Card, ...] = (
    Card("Positivity of the leading eigenvector (Wolf & Shashua, Thm. 10)",
         r"Raise $n$: the chance that the leading eigenvector is all one sign climbs to 1 "
         r"whenever $\mu > 0$, the faster the larger $\mu/\sigma$.",
         # The sampler's cache of eigendecompositions helps a μ move only when the curve's
         # blocks fit in it; at 200 trials they need about 83 MB of its 64 MiB, every sweep
         # evicted what the next needed, and a refined kernel held 64 MiB for moves no faster
         # (1.5-1.6 s to refine a μ move either way).
         "01_q_alpha.ipynb", "PositivityExplorer", (("cache_bytes", 0),)),
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
    return {card.title: _explorer_for(card) for card in CARDS}


def _explorer_for(card: Card) -> Explorer:
    # Each explorer's module is imported only when its card is built: the dashboard's
    # kernel never loads what no card needs.
    from .. import widgets as kit_widgets

    return getattr(kit_widgets, card.explorer)(**dict(card.options))


#: Where the kit's notebooks are read when Voilà serves the dashboard on its own (``voila
#: notebooks/dashboard.ipynb``), a server that has no other page for them.
NOTEBOOKS_ONLINE = "https://github.com/spectral-kit/spectral_kit/blob/HEAD/notebooks/"

#: Seconds a shown dashboard waits for its page to report a view before it builds its
#: explorers anyway.
VIEW_WAIT = 15.0

#: The notebook that runs the kit on a student's own data, linked below the cards.
YOUR_DATA = "your_data.ipynb"


def notebook_href(notebook: str) -> str:
    """Where a link to one of the kit's notebooks points, from the dashboard.

    * JupyterLab, or no server at all: relative to the dashboard, which sits beside the
      notebooks.
    * Voilà inside a Jupyter server (Binder's ``voila/render/...``; the kernel learns its
      page address from ``SCRIPT_NAME``): the notebook opens in JupyterLab on the same
      server rather than as another Voilà page.
    * Voilà on its own, serving a folder (``voila notebooks/``): Voilà renders the notebook.
    * Voilà on its own, serving only the dashboard: it has no page for another notebook (it
      refuses ``voila/files/*.ipynb`` with 403), so the link opens the notebook, with its
      stored outputs, in the kit's public repository.

    Which Voilà started the kernel is told by the kit's Voilà hook
    (:data:`spectral_kit.jupyter_config.voila_hooks.SERVER_ENV`).
    """
    from ..jupyter_config.voila_hooks import SERVER_ENV

    page = os.environ.get("SCRIPT_NAME", "")
    server = os.environ.get(SERVER_ENV, "")
    marker = "/voila/render/"
    if marker in page and server != "voila":
        prefix, path = page.split(marker, 1)
        folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
        return f"{prefix}/lab/tree/{folder}{notebook}"
    if server == "voila" and marker not in page:
        return NOTEBOOKS_ONLINE + notebook
    return notebook


def _link(notebook: str, text: str) -> widgets.HTML:
    link = widgets.HTML(
        f"<a href='{notebook_href(notebook)}' target='_blank' "
        f"style='color:#0b57d0;text-decoration:underline' rel='noopener'>{text}</a>"
    )
    link.add_class("spectral-kit-notebook-link")
    return link


#: Shown on the page when the dashboard's kernel is gone -- shut down by the server's culling,
#: killed for memory (the server then restarts an empty kernel, which holds no explorer and
#: is shut down with the page), crashed -- greying the frozen sliders out under this message.
#: Two watches, either of which suffices:
#:
#: * the page's own kernel connection (Voilà's ``window.jupyterapp.widgetManager.kernel``):
#:   the server tells it at once, on the socket the widgets already use, that the kernel is
#:   ``restarting`` or ``dead`` -- a restart that polling would miss, since the fresh kernel
#:   reports ``idle`` again within a second;
#: * the server's kernel list, asked every second: an unknown kernel (404, shut down or
#:   dropped) or one restarting or dead.
KERNEL_WATCH = """<div class="spectral-kit-kernel-watch"></div>
<script>
(function () {
  var config = document.getElementById('jupyter-config-data');
  if (!config || window.spectralKitKernelWatch) { return; }
  config = JSON.parse(config.textContent);
  var kernel = config.kernelId, base = config.baseUrl || '/';
  if (!kernel) { return; }
  window.spectralKitKernelWatch = true;
  var leaving = false;
  window.addEventListener('beforeunload', function () { leaving = true; });
  function gone(why) {
    clearInterval(timer);
    if (leaving || document.querySelector('.spectral-kit-kernel-gone')) { return; }
    var banner = document.createElement('div');
    banner.className = 'spectral-kit-kernel-gone';
    banner.setAttribute('role', 'alert');
    banner.style.cssText = 'position:fixed;top:0;left:0;right:0;z-index:10000;padding:14px;' +
      'background:#b3261e;color:#fff;font:16px sans-serif;text-align:center';
    banner.textContent = "The explorers' kernel has stopped (" + why + '): the sliders ' +
      'no longer answer. Reload the page to start again.';
    document.body.appendChild(banner);
    var dash = document.querySelector('.spectral-kit-dashboard');
    if (dash) { dash.style.opacity = '0.45'; dash.style.pointerEvents = 'none'; }
  }
  // The connection the widgets use; no second channel to the kernel, which would be sent
  // every canvas frame of the explorers as well.
  var watched = null;
  function listen() {
    var app = window.jupyterapp, manager = app && app.widgetManager;
    var connection = manager && manager.kernel;
    if (!connection || connection === watched || !connection.statusChanged) { return; }
    watched = connection;
    connection.statusChanged.connect(function (_, status) {
      if (status === 'autorestarting' || status === 'restarting') {
        gone('it was restarted, out of memory or crashed');
      } else if (status === 'dead') {
        gone('it died, out of memory or crashed');
      }
    });
  }
  var seen = false;
  var timer = setInterval(function () {
    listen();
    fetch(base + 'api/kernels/' + kernel, {credentials: 'same-origin'}).then(function (r) {
      if (r.status === 404) { gone('the server shut it down, or it died'); return null; }
      return r.ok ? r.json() : null;
    }).then(function (model) {
      if (!model) { return; }
      var state = model.execution_state;
      if (state === 'idle' || state === 'busy') { seen = true; return; }
      if (seen && /start|restart|dead/.test(state)) {
        gone('it was restarted, out of memory or crashed');
      }
    }).catch(function () {});
  }, 1000);
})();
</script>"""


class Dashboard:
    """Explorers laid out together in wrapping rows, each in a card with its title, what to
    notice, a link to the notebook that teaches it, and its reset button.

    The cards keep the width of their figure and wrap: one column on a 1280 px screen,
    two side by side from about 1850 px.

    In a kernel, the default explorers are built once the dashboard is on a screen (its
    widget has a view), one card after the other: the cell that shows the dashboard creates
    a few widgets only, so the page's widget manager gets the dashboard's state at once
    instead of waiting for five explorers' canvases (under load that wait passed the
    manager's 4 s limit and the page said "model not found"), and the first card is live
    while the others are still being built.

    Parameters
    ----------
    explorers : dict of title → Explorer, optional
        Defaults to the five explorers of :data:`CARDS`.
    lazy : bool, optional
        Build the default explorers only when the dashboard is shown. Default: in a kernel
        and not when storing pictures (``SPECTRAL_KIT_STATIC_WIDGETS``); explorers given by
        the caller are already built.

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

    def __init__(self, explorers: dict[str, Explorer] | None = None, *,
                 lazy: bool | None = None):
        if explorers is not None and not isinstance(explorers, Mapping):
            raise TypeError(f"explorers must map a card title to an explorer; got "
                            f"{type(explorers).__name__}.")
        if lazy is not None and not isinstance(lazy, bool):
            raise TypeError(f"lazy must be True, False or None; got {lazy!r}.")
        if explorers is not None:
            for title, explorer in explorers.items():
                if not isinstance(explorer, Explorer):
                    raise TypeError(f"explorers[{title!r}] must be an explorer (for example "
                                    f"PositivityExplorer()); got {type(explorer).__name__}.")
        if lazy is None:
            lazy = (explorers is None and _kernel_loop() is not None
                    and not os.environ.get(STATIC_ENV))
        #: The explorers built so far, by card title.
        self.explorers: dict[str, Explorer] = {} if explorers is None else dict(explorers)
        #: Tracebacks of explorers that could not be built (also shown in their card).
        self.errors: list[str] = []
        cards_by_title = {card.title: card for card in CARDS}
        titles = list(self.explorers) if explorers is not None else [c.title for c in CARDS]
        self._pending = [cards_by_title[t] for t in titles if t not in self.explorers]
        self._slots: dict[str, widgets.Box] = {}
        self._started = False
        cards = []
        for title in titles:
            parts: list[widgets.Widget] = [
                widgets.HTML(f"<h3 style='margin:4px 0'>{title}</h3>")
            ]
            card = cards_by_title.get(title)
            if card is not None:
                notice = widgets.HTMLMath(f"<b>What to notice.</b> {card.notice}")
                notice.add_class("spectral-kit-notice")
                parts += [notice, _link(card.notebook, f"Read more: notebook {card.notebook}")]
            explorer = self.explorers.get(title)
            figsize = explorer.figsize if explorer is not None else _figsize(card)
            slot = widgets.VBox([explorer.widget if explorer is not None
                                 else _placeholder(card, figsize)])
            self._slots[title] = slot
            parts.append(slot)
            box = widgets.VBox(parts, layout=widgets.Layout(
                margin="0 24px 24px 0", width=f"{_card_width(figsize):.0f}px",
                flex="0 0 auto"))
            box.add_class("spectral-kit-card")
            cards.append(box)
        own_data = _link(YOUR_DATA, "Explore your own data: notebook " + YOUR_DATA)
        own_data.add_class("spectral-kit-your-data")
        self.widget = widgets.Box(
            [*cards, own_data],
            layout=widgets.Layout(display="flex", flex_flow="row wrap",
                                  align_items="flex-start", width="100%")
        )
        self.widget.add_class("spectral-kit-dashboard")
        if self._pending and lazy:
            # The front end reports its views of a widget whose count is not None.
            self.widget._view_count = 0
            self.widget.observe(self._on_view, names="_view_count")
            loop = _kernel_loop()
            if loop is not None:
                # While the page loads its scripts (2-3 s) the kernel is idle: the explorers'
                # modules are imported meanwhile, one per turn of the loop so the page's
                # requests for the widgets' state are answered between two, rather than
                # when the first card is built (0.2 s of its 0.6 s).
                loop.add_callback(self._import_next, list(self._pending))
                # A page that never reports its view (a front end without view counts)
                # still gets its explorers, once the page has long had the cell's widgets.
                loop.call_later(VIEW_WAIT, self._start_building)
        else:
            self.build()

    @property
    def cards(self) -> list[widgets.Widget]:
        """The card boxes, in order (the last child of :attr:`widget` is the link to
        :data:`YOUR_DATA`)."""
        return list(self.widget.children[:-1])

    def build(self) -> Dashboard:
        """Build every explorer not built yet (what a shown dashboard does by itself)."""
        while self._pending:
            self._build_one()
        return self

    def _import_next(self, cards: list[Card]) -> None:
        if self._started or not cards:
            return  # a build imports what it needs itself
        from .. import widgets as kit_widgets

        with contextlib.suppress(Exception):  # a failure is shown by the card's build
            getattr(kit_widgets, cards[0].explorer)
        loop = _kernel_loop()
        if loop is not None:
            loop.add_callback(self._import_next, cards[1:])

    def _on_view(self, change: dict) -> None:
        if change["new"]:
            self._start_building()

    def _start_building(self) -> None:
        if self._started:
            return
        self._started = True
        self.widget.unobserve(self._on_view, names="_view_count")
        self._build_next()

    def _build_next(self) -> None:
        if not self._pending:
            return
        self._build_one()
        loop = _kernel_loop()
        if self._pending:
            if loop is None:
                self.build()
            else:
                # One card per turn of the kernel's loop: slider moves on the cards already
                # live are answered between two builds.
                loop.add_callback(self._build_next)

    def _build_one(self) -> None:
        card = self._pending.pop(0)
        slot = self._slots[card.title]
        try:
            explorer = _explorer_for(card)
        except Exception as exc:  # shown in its card, the other cards still come
            self.errors.append(traceback.format_exc())
            error = widgets.HTML(f"<pre style='color:#b3261e;white-space:pre-wrap'>This "
                                 f"explorer could not start: {type(exc).__name__}: "
                                 f"{html.escape(str(exc))}</pre>")
            error.add_class("spectral-kit-error")
            slot.children = [error]
            return
        self.explorers[card.title] = explorer
        slot.children = [explorer.widget]

    def close(self) -> None:
        """Close every explorer built and the dashboard's widgets; nothing more is built."""
        self._pending = []
        for explorer in self.explorers.values():
            explorer.close()
        self.widget.close()

    def snapshot(self) -> bytes:
        """All explorers' figures stacked into one PNG (twice the pixels on screen); builds
        the explorers not built yet."""
        self.build()
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

    def _ipython_display_(self) -> None:
        # Displayed rather than returned: a live dashboard comes with the page's watch on its
        # kernel (KERNEL_WATCH), a second output beside the widget.
        from IPython.display import display

        data, metadata = self._repr_mimebundle_()
        if not os.environ.get(STATIC_ENV):
            display({"text/html": KERNEL_WATCH}, raw=True)
        display(data, metadata=metadata, raw=True)

    def _repr_mimebundle_(self, **kwargs: Any) -> tuple[dict, dict]:
        static = bool(os.environ.get(STATIC_ENV))
        text = {"text/plain": f"Dashboard({len(self._slots)} explorers)"}
        if not static and self._pending:
            # Not built yet: a picture would build every explorer before the page shows.
            return {**text, **self.widget._repr_mimebundle_(**kwargs)}, {}
        if static:
            # A stored picture is final: no kernel will refine it later.
            for explorer in self.explorers.values():
                explorer.finish()
        png = self.snapshot()
        shape = plt.imread(io.BytesIO(png), format="png").shape
        data = {"image/png": base64.b64encode(png).decode("ascii"), **text}
        metadata = {"image/png": {"width": round(shape[1] / PNG_SCALE),
                                  "height": round(shape[0] / PNG_SCALE)}}
        if static:
            return data, metadata
        return {**data, **self.widget._repr_mimebundle_(**kwargs)}, metadata


#: Each card's figure size in inches (its explorer's ``figsize``; a test keeps them equal), so
#: a placeholder takes the room of the explorer before its module is imported.
_FIGSIZES: dict[str, tuple[float, float]] = {
    "PositivityExplorer": (8.0, 3.2),
    "SparsityGapExplorer": (8.0, 3.4),
    "InterlacingExplorer": (8.0, 4.8),
    "DetectabilityExplorer": (8.0, 4.6),
    "StabilityExplorer": (8.0, 4.4),
}


def _card_width(figsize: tuple[float, float]) -> float:
    """A card's width in pixels: its figure's and the widgets' padding."""
    return figsize[0] * FIGURE_DPI + 16


def _figsize(card: Card | None) -> tuple[float, float]:
    """The figure size of a card's explorer, without importing the explorer's module."""
    return Explorer.figsize if card is None else _FIGSIZES.get(card.explorer, Explorer.figsize)


#: The explorers' first pictures, stored with the kit (``<ExplorerClass>.png``, written by
#: :func:`store_pictures`): a card shows its picture at once and the live canvas replaces
#: it when the explorer is built.
PICTURES = Path(__file__).resolve().parent / "pictures"


def store_pictures(folder: Path | None = None) -> list[Path]:
    """Write the first picture of every card's explorer (its starting values, refinement
    finished) to ``folder`` (default :data:`PICTURES`); returns the files written. A test
    checks that the stored pictures are those the explorers draw now."""
    folder = PICTURES if folder is None else Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for card in CARDS:
        explorer = _explorer_for(card)
        try:
            path = folder / f"{card.explorer}.png"
            path.write_bytes(explorer.finish().snapshot(scale=1.0))
            written.append(path)
        finally:
            explorer.close()
    return written


def _placeholder(card: Card | None, figsize: tuple[float, float]) -> widgets.Widget:
    """What a card shows while its explorer is being built: its stored first picture when
    there is one, under a line saying the explorer is starting, as tall as the explorer will
    be, so the page does not jump when it arrives."""
    height = figsize[1] * FIGURE_DPI + 90
    note = widgets.HTML("<div style='padding:4px 0 8px;color:#555'>Starting the explorer… "
                        "(the sliders come in a few seconds)</div>")
    parts: list[widgets.Widget] = [note]
    picture = PICTURES / f"{card.explorer}.png" if card is not None else None
    if picture is not None and picture.is_file():
        width, _ = (figsize[0] * FIGURE_DPI, figsize[1] * FIGURE_DPI)
        image = widgets.Image(value=picture.read_bytes(), format="png",
                              layout=widgets.Layout(width=f"{width:.0f}px"))
        image.add_class("spectral-kit-stored-picture")
        parts.append(image)
    box = widgets.VBox(parts, layout=widgets.Layout(min_height=f"{height:.0f}px"))
    box.add_class("spectral-kit-placeholder")
    return box


#: The class of the dashboard notebook's preview cell (see :func:`preview_html`).
PREVIEW_CLASS = "spectral-kit-preview"

# Voilà marks its page's body with ``data-voila``: only there is the preview shown, and only
# until the dashboard's first card is on the page. Everywhere else (JupyterLab, whose
# sanitizer drops <style> and ``hidden`` but keeps an inline ``display``; an HTML export;
# the documentation) it stays out of sight, beside the dashboard cell's own stored picture.
_PREVIEW_STYLE = (
    f"<style>body[data-voila] .{PREVIEW_CLASS}{{display:block!important}}"
    f"body[data-voila]:has(.spectral-kit-dashboard .spectral-kit-card) .{PREVIEW_CLASS}"
    f"{{display:none!important}}</style>"
)


def preview_html() -> str:
    """The dashboard as a page shows it before its kernel has run anything: each card's
    title, what to notice and its explorer's stored first picture (:data:`PICTURES`).

    The dashboard notebook carries it in a Markdown cell, which Voilà sends with the page
    itself: a class sees the cards as soon as the page arrives, while the kernel starts,
    instead of a blank page until the dashboard's cell has run. The live dashboard takes
    its place once its first card is on the page. :func:`write_preview` puts it in the
    notebook; a test keeps the two equal.

    Returns
    -------
    str
        One HTML block (no blank line inside, so that Markdown passes it through whole).
    """
    parts = [f'<div class="{PREVIEW_CLASS}" hidden style="display:none">', _PREVIEW_STYLE]
    for card in CARDS:
        width = _figsize(card)[0] * FIGURE_DPI
        picture = PICTURES / f"{card.explorer}.png"
        data = base64.b64encode(picture.read_bytes()).decode("ascii")
        parts += [
            f'<div class="spectral-kit-preview-card" style="margin:0 24px 24px 0;'
            f'width:{_card_width(_figsize(card)):.0f}px">',
            # the sizes of the live card's widgets, so that the page does not jump
            f"<h3 style='margin:4px 0;font-size:15px;font-weight:bold'>"
            f"{html.escape(card.title)}</h3>",
            f"<p style='font-size:13px;margin:0'><b>What to notice.</b> {card.notice}</p>",
            "<p style='color:#555;font-size:13px;margin:0;padding:4px 0 8px'>Starting the "
            "explorer… (the sliders come in a few seconds)</p>",
            f'<img src="data:image/png;base64,{data}" width="{width:.0f}" '
            f'alt="{html.escape(card.title)}: the explorer\'s first picture">',
            "</div>",
        ]
    parts.append("</div>")
    return "\n".join(parts)


def write_preview(notebook: Path) -> bool:
    """Put :func:`preview_html` in ``notebook``'s preview cell (the Markdown cell that holds
    :data:`PREVIEW_CLASS`; one is added before the first code cell if there is none);
    returns whether the file changed."""
    import nbformat

    nb = nbformat.read(notebook, as_version=4)
    source = preview_html()
    cells = [c for c in nb.cells if c.cell_type == "markdown" and PREVIEW_CLASS in c.source]
    if cells:
        if cells[0].source == source:
            return False
        cells[0].source = source
    else:
        first_code = next(i for i, c in enumerate(nb.cells) if c.cell_type == "code")
        nb.cells.insert(first_code, nbformat.v4.new_markdown_cell(source))
    nbformat.write(nb, notebook)
    return True
