"""A notebook a student ran and saved keeps its pictures: reopened in JupyterLab without
running a cell (its new kernel knows none of the widgets), each explorer shows its last
picture from the widget state saved with the notebook, never "Error displaying widget: model
not found" -- also after JupyterLab's autosave (on, every few seconds, in this module's
server) and Ctrl-S have saved the reopened notebook, three open/save cycles in a row; a
renderer without widgets (GitHub, nbconvert, a PDF export) shows the PNG stored beside each
widget view. The notebook's Markdown maths is typeset by MathJax."""

from __future__ import annotations

import base64
import io
import json
import time

import nbformat
import pytest
from browser_harness import (
    _PANEL,
    _SAVE,
    Findings,
    _new_page,
    _watched_page,
    _widget_errors,
    assert_clean,
    copy_notebooks,
    lab_url,
    reopen_without_running,
    run_and_save,
    screenshot_dir,
    start_lab,
    typeset_maths,
)
from PIL import Image

pytestmark = pytest.mark.browser

NAME = "saved_pictures.ipynb"
MARKDOWN = r"""# Saved pictures

Every eigenvalue of a principal pair interlaces, $\lambda_i(A, B) \le \lambda_i(A_S, B_S) \le
\lambda_{i+n-k}(A, B)$, and the captured variance of a subset is

$$\sum_{j \le k} \lambda_j(A_S)^2 .$$"""
CODE = [
    "%matplotlib widget\nfrom spectral_kit.widgets import PositivityExplorer, SparsityGapExplorer",
    "PositivityExplorer(n_max=40, trials=50)",
    "SparsityGapExplorer(n_irrelevant=40)",
]
WIDGET_VIEW = "application/vnd.jupyter.widget-view+json"
WIDGET_STATE = "application/vnd.jupyter.widget-state+json"
#: Seconds between JupyterLab's autosaves in this module's server (its default is 120).
AUTOSAVE_SECONDS = 3
CYCLES = 3


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """JupyterLab with autosave ON (the harness turns it off for the other tests): the
    settings are read from disk at every page load, so they are written after the start."""
    root = tmp_path_factory.mktemp("lab-root")
    copy_notebooks(root)
    server = start_lab(root)
    try:
        settings = (server.home / "lab-settings" / "@jupyterlab" / "docmanager-extension"
                    / "plugin.jupyterlab-settings")
        settings.write_text(json.dumps({"autosave": True,
                                        "autosaveInterval": AUTOSAVE_SECONDS}))
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="module")
def saved(browser, lab_server):
    """The notebook run and saved in JupyterLab, its kernel then shut down."""
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_markdown_cell(MARKDOWN),
                      *[nbformat.v4.new_code_cell(code) for code in CODE]]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    nbformat.write(notebook, lab_server.root / NAME)
    findings = Findings(f"{NAME} run and saved in JupyterLab")
    try:
        with _watched_page(browser, lab_server, findings, height=1000) as page:
            run_and_save(page, lab_server, NAME, findings)
            maths = typeset_maths(page)
            path = screenshot_dir() / "saved-run-page.png"
            page.screenshot(path=str(path))
    finally:
        lab_server.shutdown_kernels()
    return findings, maths, nbformat.read(lab_server.root / NAME, as_version=4)


def test_markdown_maths_is_typeset(saved):
    findings, maths, _ = saved
    print(findings.summary(), maths)
    assert_clean(findings)
    # one inline and one display formula, both typeset; no cell shows a raw $…$
    assert maths["typeset"] >= 2 and maths["raw"] == 0, maths


def test_saved_notebook_holds_the_pictures(saved):
    _, _, notebook = saved
    state = notebook.metadata["widgets"][WIDGET_STATE]["state"]
    canvases = [m["state"] for m in state.values() if m["model_name"] == "MPLCanvasModel"]
    assert len(canvases) == 2
    for canvas in canvases:
        url = canvas["_data_url"]
        assert url.startswith("data:image/png;base64,")
        picture = Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1])))
        assert picture.width >= 800  # the whole figure, not an empty canvas
    views = [o for cell in notebook.cells if cell.cell_type == "code"
             for o in cell.outputs if WIDGET_VIEW in o.get("data", {})]
    assert len(views) == 2
    for output in views:
        # every widget view carries a PNG for renderers without widgets
        assert output["data"]["image/png"] and output["data"][WIDGET_VIEW]["model_id"] in state


def test_reopened_without_a_kernel_run_explorers_show_their_pictures(browser, lab_server, saved):
    findings = reopen_without_running(browser, lab_server, NAME, "saved-reopened")
    print(findings.summary())
    assert_clean(findings)
    assert findings.explorer_count == 2


def _models_and_views(notebook) -> tuple[set, list]:
    """The ids of the models the widget views need (each view's model and every model it
    refers to) that the saved widget state holds, and the outputs that show a picture."""
    from spectral_kit.widgets.saved_pictures import _closure

    state = notebook.metadata.get("widgets", {}).get(WIDGET_STATE, {}).get("state", {})
    views = [o["data"] for cell in notebook.cells if cell.cell_type == "code"
             for o in cell.outputs if WIDGET_VIEW in o.get("data", {})
             or "image/png" in o.get("data", {})]
    needed = set()
    for data in views:
        if WIDGET_VIEW in data:
            needed |= set(_closure(data[WIDGET_VIEW]["model_id"], state))
    return needed, views


def test_pictures_survive_autosave_and_save_cycles(browser, lab_server, saved):
    """Open the saved notebook without running it, let autosave write it (and press Ctrl-S),
    close it, three times: every save keeps each view's models and PNG, and every reopening
    shows both explorers' pictures."""
    _, _, first = saved
    models, views = _models_and_views(first)
    assert len(views) == 2 and all(WIDGET_VIEW in v for v in views)
    path = lab_server.root / NAME
    for cycle in range(1, CYCLES + 1):
        findings = Findings(f"{NAME} reopened and saved, cycle {cycle}")
        before = path.stat().st_mtime_ns
        with _watched_page(browser, lab_server, findings, height=1000) as page:
            page.goto(lab_url(lab_server, NAME), timeout=120_000)
            page.wait_for_function(f"(path) => !!({_PANEL})(path)", arg=NAME,
                                   timeout=120_000)
            page.wait_for_selector(".jp-OutputArea-output", timeout=120_000)
            # mark the notebook modified as a student does (a scroll, a click in a cell),
            # then give autosave several of its intervals
            page.evaluate(f"""(path) => {{ const panel = ({_PANEL})(path);
                panel.context.model.dirty = true; }}""", NAME)
            deadline = time.monotonic() + 60
            while path.stat().st_mtime_ns == before and time.monotonic() < deadline:
                page.wait_for_timeout(500)
            autosaved = path.stat().st_mtime_ns != before
            findings.widgets += _widget_errors(page)
            dirty = page.evaluate(_SAVE, NAME)
        lab_server.shutdown_kernels()
        assert autosaved, f"cycle {cycle}: autosave never wrote the notebook"
        assert not dirty, f"cycle {cycle}: Ctrl-S did not save"
        assert_clean(findings)
        notebook = nbformat.read(path, as_version=4)
        saved_models, saved_views = _models_and_views(notebook)
        assert len(saved_views) == 2, f"cycle {cycle}: {len(saved_views)} picture outputs"
        for data in saved_views:
            assert data["image/png"], f"cycle {cycle}: a view lost its PNG"
            if WIDGET_VIEW in data:
                assert data[WIDGET_VIEW]["model_id"] in saved_models, \
                    f"cycle {cycle}: a view's model was not saved"
        assert models <= saved_models, (cycle, len(models - saved_models), len(models))
        reopened = reopen_without_running(browser, lab_server, NAME, f"saved-cycle{cycle}")
        print(reopened.summary())
        assert_clean(reopened)
        assert reopened.explorer_count + sum(WIDGET_VIEW not in v for v in saved_views) == 2


def test_renderers_without_widgets_show_the_png(browser, saved, tmp_path):
    from nbconvert import HTMLExporter

    _, _, saved_notebook = saved
    notebook = nbformat.from_dict(saved_notebook)
    # GitHub and a PDF export do not run the widgets' JavaScript: what they show is what
    # nbconvert shows without the widget state
    notebook.metadata.pop("widgets", None)
    html, _ = HTMLExporter().from_notebook_node(notebook)
    page_file = tmp_path / "saved.html"
    page_file.write_text(html)
    context, page = _new_page(browser, height=1000)
    try:
        page.goto(page_file.as_uri())
        images = page.evaluate("""() => Array.from(document.querySelectorAll(
            '.jp-OutputArea-output img')).map((img) => ({src: img.src.slice(0, 22),
            width: img.getBoundingClientRect().width, natural: img.naturalWidth}))""")
        text = page.locator("body").inner_text()
        page.screenshot(path=str(screenshot_dir() / "saved-nbconvert-page.png"), full_page=True)
    finally:
        context.close()
    assert "model not found" not in text and "Error displaying widget" not in text
    assert len(images) == 2, images
    for image in images:
        assert image["src"] == "data:image/png;base64,"
        # shown at the figure's size, with twice the pixels (sharp on HiDPI screens)
        assert image["natural"] >= 1.9 * image["width"] > 1500, image


def test_a_pdf_export_shows_the_png(saved):
    from nbconvert import LatexExporter

    _, _, saved_notebook = saved
    notebook = nbformat.from_dict(saved_notebook)
    # Markdown needs pandoc to become LaTeX, the outputs do not: only the code cells count
    notebook.cells = [cell for cell in notebook.cells if cell.cell_type == "code"]
    # nbconvert's PDF is this LaTeX compiled: each explorer becomes its picture
    latex, resources = LatexExporter().from_notebook_node(notebook)
    pictures = [name for name in resources["outputs"] if name.endswith(".png")]
    assert len(pictures) == 2, pictures
    for name in pictures:
        assert "\\includegraphics" in latex and name in latex
        assert Image.open(io.BytesIO(resources["outputs"][name])).width > 1500
