"""The stored outputs of every notebook are current: made by one Run All of the cells beside them.

The documentation site and a notebook opened without a kernel show the stored outputs; they must
come from the code that is printed above them. ``.ci/build_notebooks.py`` records a digest of
each code cell's source at build time; here a mismatch (a cell edited, added or removed after the
build), a cell never run, a run out of order, or a stored error fails.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parent.parent
_spec = importlib.util.spec_from_file_location("build_notebooks", ROOT / ".ci" / "build_notebooks.py")
build_notebooks = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(build_notebooks)
PATHS = build_notebooks.notebooks()


def _id(path: Path) -> str:
    return path.stem if path.parent.name == "notebooks" else f"appendix-{path.stem}"


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_stored_outputs_come_from_the_cells_beside_them(path):
    nb = nbformat.read(path, as_version=4)
    built_from = nb.metadata.get("spectral_kit", {}).get("built_from")
    assert built_from is not None, (
        f"{path.name} was not built by .ci/build_notebooks.py: run it on this notebook")
    now = build_notebooks.source_digests(nb)
    assert len(now) == len(built_from), (
        f"{path.name}: {len(now)} code cells, built with {len(built_from)}: rebuild it")
    for i, (a, b) in enumerate(zip(now, built_from)):
        assert a == b, f"{path.name}: code cell {i} changed since its outputs were stored: rebuild it"


@pytest.mark.parametrize("path", PATHS, ids=_id)
def test_stored_outputs_are_one_run_all_without_errors(path):
    nb = nbformat.read(path, as_version=4)
    code = [c for c in nb.cells if c.cell_type == "code"]
    counts = [c.execution_count for c in code]
    assert None not in counts, f"{path.name}: a code cell was never run"
    assert counts == list(range(1, len(code) + 1)), f"{path.name}: not one Run All in order"
    for i, cell in enumerate(code):
        errors = [o for o in cell.outputs if o.output_type == "error"]
        assert not errors, f"{path.name}: code cell {i} stored an error: {errors[0].ename}"


def test_digests_notice_an_edited_cell():
    nb = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell("x = 1"),
                                         nbformat.v4.new_markdown_cell("text")])
    before = build_notebooks.source_digests(nb)
    nb.cells[0].source = "x = 2"
    assert len(before) == 1
    assert build_notebooks.source_digests(nb) != before
