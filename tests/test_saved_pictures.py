"""Saved explorers keep their pictures through any number of saves: the Jupyter server's
pre-save hook (run here through a real contents manager configured from the kit's
``jupyter_server_config.json``) and the HTML export's preprocessor (through nbconvert)."""

from __future__ import annotations

import base64
import copy
import io
import json

import nbformat
import pytest
from PIL import Image

from spectral_kit.jupyter_config import CONFIG_DIR
from spectral_kit.widgets.saved_pictures import (
    PNG,
    WIDGET_STATE,
    WIDGET_VIEW,
    PicturesForExport,
    keep_pictures,
    pre_save_hook,
)


def _png(width: int, colour: str) -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (width, width // 2), colour).save(buffer, format="PNG")
    return base64.b64encode(buffer.getvalue()).decode("ascii")


KERNEL_PNG = _png(1600, "white")           # the kernel's 2x PNG, stored beside the view
SHARP_CANVAS = _png(1600, "red")           # the canvas as a HiDPI screen last drew it
BLURRY_CANVAS = _png(800, "blue")          # the canvas as a 1x screen last drew it


def _state(canvas_png: str) -> dict:
    """An explorer's models: a box holding a slider and an ipympl canvas."""
    return {
        "box": {"model_name": "VBoxModel", "model_module": "@jupyter-widgets/controls",
                "model_module_version": "2.0.0",
                "state": {"children": ["IPY_MODEL_slider", "IPY_MODEL_canvas"]}},
        "slider": {"model_name": "IntSliderModel", "model_module": "@jupyter-widgets/controls",
                   "model_module_version": "2.0.0", "state": {"value": 3}},
        "canvas": {"model_name": "MPLCanvasModel", "model_module": "jupyter-matplotlib",
                   "model_module_version": "^0.11",
                   "state": {"_data_url": "data:image/png;base64," + canvas_png}},
        "other": {"model_name": "LayoutModel", "model_module": "@jupyter-widgets/base",
                  "model_module_version": "2.0.0", "state": {}},
    }


def _notebook(state: dict | None) -> dict:
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("PositivityExplorer()")]
    notebook.cells[0].outputs = [nbformat.v4.new_output(
        "display_data", data={WIDGET_VIEW: {"version_major": 2, "version_minor": 0,
                                            "model_id": "box"},
                              PNG: KERNEL_PNG, "text/plain": "PositivityExplorer()"})]
    if state is not None:
        notebook.metadata["widgets"] = {WIDGET_STATE: {"version_major": 2, "version_minor": 0,
                                                       "state": state}}
    return json.loads(json.dumps(notebook))


def test_an_empty_widget_state_gets_the_models_back_from_the_saved_copy():
    on_disk = _notebook(_state(SHARP_CANVAS))
    saving = _notebook({})                                  # what Lab writes after a reopen
    summary = keep_pictures(saving, on_disk)
    state = saving["metadata"]["widgets"][WIDGET_STATE]["state"]
    # the view's model and every model it refers to, not the unrelated one
    assert sorted(state) == ["box", "canvas", "slider"]
    assert state["canvas"] == on_disk["metadata"]["widgets"][WIDGET_STATE]["state"]["canvas"]
    assert summary["restored"] == 1 and summary["dropped"] == 0
    assert WIDGET_VIEW in saving["cells"][0]["outputs"][0]["data"]


def test_any_number_of_saves_keeps_the_picture():
    on_disk = _notebook(_state(SHARP_CANVAS))
    for _ in range(5):                                       # autosave after autosave
        saving = _notebook(None)
        keep_pictures(saving, on_disk)
        on_disk = saving
    state = on_disk["metadata"]["widgets"][WIDGET_STATE]["state"]
    assert state["canvas"]["state"]["_data_url"].endswith(SHARP_CANVAS)
    assert on_disk["cells"][0]["outputs"][0]["data"][PNG] == SHARP_CANVAS


def test_a_view_without_a_model_anywhere_shows_its_png():
    saving = _notebook({})
    summary = keep_pictures(saving, None)
    data = saving["cells"][0]["outputs"][0]["data"]
    assert WIDGET_VIEW not in data and data[PNG] == KERNEL_PNG
    assert summary == {"restored": 0, "dropped": 1, "refreshed": 0}


def test_the_png_follows_the_last_picture_unless_it_is_less_sharp():
    sharp = _notebook(_state(SHARP_CANVAS))
    assert keep_pictures(sharp, None)["refreshed"] == 1
    assert sharp["cells"][0]["outputs"][0]["data"][PNG] == SHARP_CANVAS
    blurry = _notebook(_state(BLURRY_CANVAS))
    assert keep_pictures(blurry, None)["refreshed"] == 0
    assert blurry["cells"][0]["outputs"][0]["data"][PNG] == KERNEL_PNG


def test_a_notebook_without_widgets_is_left_alone():
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell("1 + 1")]
    before = json.loads(json.dumps(notebook))
    after = copy.deepcopy(before)
    assert keep_pictures(after, None) == {"restored": 0, "dropped": 0, "refreshed": 0}
    assert after == before


def test_the_kits_server_configuration_saves_through_the_hook(tmp_path):
    """A real contents manager, configured from the kit's jupyter_server_config.json, saving
    a reopened notebook (empty widget state) three times: the file keeps its models."""
    from jupyter_server.services.contents.filemanager import FileContentsManager
    from traitlets.config import Config

    config = Config(json.loads((CONFIG_DIR / "jupyter_server_config.json").read_text()))
    manager = FileContentsManager(root_dir=str(tmp_path), config=config)
    assert manager.pre_save_hook is pre_save_hook
    (tmp_path / "saved.ipynb").write_text(json.dumps(_notebook(_state(SHARP_CANVAS))))
    for _ in range(3):
        manager.save({"type": "notebook", "format": "json", "content": _notebook({})},
                     "saved.ipynb")
        on_disk = json.loads((tmp_path / "saved.ipynb").read_text())
        state = on_disk["metadata"]["widgets"][WIDGET_STATE]["state"]
        assert sorted(state) == ["box", "canvas", "slider"]
        assert WIDGET_VIEW in on_disk["cells"][0]["outputs"][0]["data"]


def test_a_broken_copy_on_disk_never_stops_a_save(tmp_path):
    from jupyter_server.services.contents.filemanager import FileContentsManager

    manager = FileContentsManager(root_dir=str(tmp_path), pre_save_hook=pre_save_hook)
    (tmp_path / "broken.ipynb").write_text("{ not json")
    manager.save({"type": "notebook", "format": "json", "content": _notebook({})},
                 "broken.ipynb")
    data = json.loads((tmp_path / "broken.ipynb").read_text())["cells"][0]["outputs"][0]["data"]
    assert WIDGET_VIEW not in data and data[PNG] == KERNEL_PNG


@pytest.mark.parametrize("config_file", ["jupyter_server_config.json",
                                         "jupyter_nbconvert_config.json"])
def test_the_html_export_shows_the_png_without_a_cdn(config_file):
    """Lab's export (server configuration) and nbconvert's (nbconvert configuration) write
    each explorer as its PNG: no widget-view script that needs the CDN's JavaScript."""
    from nbconvert import HTMLExporter
    from traitlets.config import Config

    config = Config(json.loads((CONFIG_DIR / config_file).read_text()))
    exporter = HTMLExporter(config=config)
    assert any(isinstance(p, PicturesForExport) for p in exporter._preprocessors)
    html, _ = exporter.from_notebook_node(nbformat.from_dict(_notebook(_state(SHARP_CANVAS))))
    assert f'src="data:image/png;base64,{SHARP_CANVAS}' in html
    assert '<script type="application/vnd.jupyter.widget-view+json">' not in html
    plain, _ = HTMLExporter().from_notebook_node(
        nbformat.from_dict(_notebook(_state(SHARP_CANVAS))))
    # without the kit's preprocessor the view is a script and the PNG is not in the page
    assert '<script type="application/vnd.jupyter.widget-view+json">' in plain
    assert SHARP_CANVAS not in plain and KERNEL_PNG not in plain


def test_the_lab_configuration_turns_the_news_pop_up_off():
    overrides = json.loads((CONFIG_DIR / "labconfig" / "default_setting_overrides.json")
                           .read_text())
    notification = overrides["@jupyterlab/apputils-extension:notification"]
    assert notification["fetchNews"] == "false" and notification["checkForUpdates"] is False
    assert overrides["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True


def test_voila_keeps_live_widgets_under_the_same_configuration():
    """Under JupyterLab's /voila/render Voilà reads the server's configuration, and its
    exporter is an HTMLExporter: the export preprocessor must leave a dashboard's widgets."""
    voila_exporter = pytest.importorskip("voila.exporter")
    from traitlets.config import Config

    config = Config(json.loads((CONFIG_DIR / "jupyter_server_config.json").read_text()))
    exporter = voila_exporter.VoilaExporter(config=config)
    notebook = nbformat.from_dict(_notebook(_state(SHARP_CANVAS)))
    ours = [p for p in exporter._preprocessors if isinstance(p, PicturesForExport)]
    assert len(ours) == 1                    # the configuration does reach Voilà's exporter
    notebook, _ = ours[0].preprocess(notebook, {})
    assert WIDGET_VIEW in notebook.cells[0].outputs[0]["data"]
