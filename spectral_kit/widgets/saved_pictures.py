"""Saved explorers keep their pictures, whatever saves the notebook next.

An explorer's output holds a widget view and, beside it, a PNG of its picture
(:meth:`~spectral_kit.widgets.base.Explorer.png_bundle`). JupyterLab prefers the widget view,
which needs the widget's model: from the live kernel, or from the widget state saved in the
notebook's metadata. A notebook reopened without running its cells has no live models, and
the next save (Ctrl-S, or the autosave every two minutes) writes an empty widget state; the
open after that finds neither and shows "Error displaying widget: model not found".

:func:`pre_save_hook` runs on the Jupyter server before every save (configured in
``jupyter_config/jupyter_server_config.json``):

* a widget view whose model is missing from the new widget state gets the model back from the
  copy on disk, with every model it refers to (the explorer's box, controls and canvas);
* a view whose model is nowhere is dropped from its output, which keeps the PNG and shows it;
* the PNG of a view whose canvas model holds a picture (``_data_url``) as sharp as the stored
  one becomes that picture: the last one drawn, so renderers without widgets show what the
  student saw (a screen with fewer pixels than the kernel's 2× PNG keeps the PNG).

:class:`PicturesForExport` is the nbconvert preprocessor of the HTML export (Lab's "Export
Notebook As HTML" and ``jupyter nbconvert --to html`` with the kit's configuration): an
exported page needs the widgets' JavaScript from a CDN to draw a widget view, so each view
that carries a PNG is exported as that PNG, which shows offline.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from nbconvert.preprocessors import Preprocessor

__all__ = ["PicturesForExport", "keep_pictures", "pre_save_hook"]

WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
PNG = "image/png"
_DATA_URL_PREFIX = "data:image/png;base64,"


def _views(notebook: dict) -> Iterator[dict]:
    """Every display output holding a widget view."""
    for cell in notebook.get("cells", []):
        if cell.get("cell_type") != "code":
            continue
        for output in cell.get("outputs", []):
            if WIDGET_VIEW in output.get("data", {}):
                yield output


def _state(notebook: dict) -> dict:
    return (notebook.get("metadata", {}).get("widgets", {})
            .get(WIDGET_STATE, {}).get("state", {}))


def _references(value: Any) -> Iterator[str]:
    """Model ids a widget's state refers to (``"IPY_MODEL_<id>"`` strings, nested)."""
    if isinstance(value, str):
        if value.startswith("IPY_MODEL_"):
            yield value[len("IPY_MODEL_"):]
    elif isinstance(value, dict):
        for item in value.values():
            yield from _references(item)
    elif isinstance(value, list):
        for item in value:
            yield from _references(item)


def _closure(model_id: str, state: dict) -> dict:
    """The model ``model_id`` and every model reachable from it, as found in ``state``."""
    found: dict = {}
    todo = [model_id]
    while todo:
        current = todo.pop()
        if current in found or current not in state:
            continue
        found[current] = state[current]
        todo.extend(_references(state[current].get("state", {})))
    return found


def _picture(model_id: str, state: dict) -> str | None:
    """The base64 PNG of the canvas drawn by view ``model_id`` (an ipympl ``_data_url``)."""
    for model in _closure(model_id, state).values():
        url = model.get("state", {}).get("_data_url", "")
        if model.get("model_name") == "MPLCanvasModel" and url.startswith(_DATA_URL_PREFIX):
            data = url[len(_DATA_URL_PREFIX):]
            try:
                base64.b64decode(data, validate=True)
            except (binascii.Error, ValueError):
                return None
            return data or None
    return None


def _png_width(data: str) -> int:
    """Pixel width of a base64 PNG (read from its IHDR chunk), 0 when it is not one."""
    try:
        head = base64.b64decode(data[:44] + "=" * (-len(data[:44]) % 4))
    except (binascii.Error, ValueError):
        return 0
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n":
        return 0
    return int.from_bytes(head[16:20], "big")


def keep_pictures(notebook: dict, previous: dict | None = None) -> dict:
    """The changes :func:`pre_save_hook` makes, on a notebook dict, in place; returns a
    summary ``{"restored": n, "dropped": n, "refreshed": n}``.

    ``previous`` is the notebook as it is on disk (None: a first save).
    """
    summary = {"restored": 0, "dropped": 0, "refreshed": 0}
    views = list(_views(notebook))
    if not views:
        return summary
    old_state = _state(previous or {})
    state = _state(notebook)
    for output in views:
        model_id = output["data"][WIDGET_VIEW].get("model_id", "")
        if model_id not in state and model_id in old_state:
            widgets = notebook.setdefault("metadata", {}).setdefault("widgets", {})
            saved = widgets.setdefault(WIDGET_STATE, {"version_major": 2, "version_minor": 0,
                                                      "state": {}})
            for key in ("version_major", "version_minor"):
                old = previous["metadata"]["widgets"][WIDGET_STATE].get(key)
                if old is not None:
                    saved.setdefault(key, old)
            state = saved.setdefault("state", {})
            state.update(copy.deepcopy(_closure(model_id, old_state)))
            summary["restored"] += 1
        if model_id in state:
            picture = _picture(model_id, state)
            stored = output["data"].get(PNG)
            if (picture is not None and picture != stored
                    and _png_width(picture) >= _png_width(stored or "")):
                output["data"][PNG] = picture
                summary["refreshed"] += 1
        elif PNG in output["data"]:
            # No model anywhere: the PNG is all a reader can be shown.
            del output["data"][WIDGET_VIEW]
            summary["dropped"] += 1
    return summary


def pre_save_hook(model: dict, path: str, contents_manager: Any, **kwargs: Any) -> None:
    """Jupyter Server's ``FileContentsManager.pre_save_hook``: keep the explorers' pictures
    in a notebook being saved (see the module's docstring). Never stops a save."""
    if model.get("type") != "notebook" or not isinstance(model.get("content"), dict):
        return
    previous = None
    try:
        os_path = Path(contents_manager._get_os_path(path))
        if os_path.is_file():
            previous = json.loads(os_path.read_text(encoding="utf-8"))
    except Exception:  # no copy on disk to restore from: still refresh and drop
        previous = None
    try:
        summary = keep_pictures(model["content"], previous)
    except Exception as exc:  # a save must never fail because of a picture
        contents_manager.log.warning("spectral_kit: pictures not checked in %s: %s", path, exc)
        return
    if summary["restored"] or summary["dropped"]:
        contents_manager.log.info("spectral_kit: %s: widget state of %d explorer(s) kept from "
                                  "the saved copy, %d shown as their PNG", path,
                                  summary["restored"], summary["dropped"])


class PicturesForExport(Preprocessor):
    """Export each widget view that carries a PNG as that PNG (an exported page draws widget
    views only with the widgets' JavaScript from a CDN, so offline they stay blank)."""

    def preprocess(self, nb: Any, resources: dict) -> tuple[Any, dict]:
        # Voilà's exporter is an HTMLExporter and reads the same configuration under
        # JupyterLab's /voila/render: a live dashboard keeps its widgets.
        if type(self.parent).__module__.split(".")[0] == "voila":
            return nb, resources
        state = _state(nb)
        for output in _views(nb):
            model_id = output["data"][WIDGET_VIEW].get("model_id", "")
            picture = _picture(model_id, state) if model_id in state else None
            stored = output["data"].get(PNG)
            if picture is not None and _png_width(picture) >= _png_width(stored or ""):
                output["data"][PNG] = picture
            if PNG in output["data"]:
                del output["data"][WIDGET_VIEW]
        return nb, resources
