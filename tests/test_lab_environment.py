"""Every student notebook runs in the environment a class gets -- Binder's and ``kit.py lab``'s,
which do not install the ``scale`` extra: executed top to bottom in a fresh kernel where Dask,
distributed and Zarr cannot be imported (an import hook refuses them, as a missing package
would), no cell stores an error. Notebook 06, which needs them, says so in one line and shows
its stored outputs."""

from __future__ import annotations

import json
import os
import re
import sys
import textwrap
from pathlib import Path

import nbformat
import pytest

from spectral_kit.extras import EXTRAS, missing_modules, needs

ROOT = Path(__file__).resolve().parent.parent
NOTEBOOKS = ROOT / "notebooks"
STUDENT = sorted(p for p in NOTEBOOKS.glob("[0-9][0-9]_*.ipynb"))
SCALE_NOTEBOOK = "06_beyond_one_machine.ipynb"

_BLOCKER = """
import importlib.abc, sys

class _Missing(importlib.abc.MetaPathFinder):
    # a package of the scale extra, as on Binder: not installed
    names = {names!r}

    def find_spec(self, fullname, path=None, target=None):
        if fullname.split(".")[0] in self.names:
            raise ModuleNotFoundError(f"No module named {{fullname!r}}", name=fullname)
        return None

sys.meta_path.insert(0, _Missing())
"""


def _lab_environment(tmp_path: Path) -> dict[str, str]:
    """This environment, with the scale extra's packages made unimportable."""
    blocker = tmp_path / "without-scale"
    blocker.mkdir()
    names = sorted({m.split(".")[0] for m in EXTRAS["scale"]})
    (blocker / "sitecustomize.py").write_text(textwrap.dedent(_BLOCKER.format(names=names)))
    env = {k: v for k, v in os.environ.items() if k != "SPECTRAL_KIT_STATIC_WIDGETS"}
    env["PYTHONPATH"] = os.pathsep.join([str(blocker), str(ROOT),
                                         *filter(None, [os.environ.get("PYTHONPATH")])])
    env.setdefault("MPLBACKEND", "Agg")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return env


def _execute(path: Path, tmp_path: Path) -> nbformat.NotebookNode:
    from nbclient import NotebookClient

    notebook = nbformat.read(path, as_version=4)
    client = NotebookClient(notebook, timeout=600, kernel_name="python3",
                            resources={"metadata": {"path": str(NOTEBOOKS)}})
    client.execute(env=_lab_environment(tmp_path))
    return notebook


def _errors(notebook: nbformat.NotebookNode) -> list[str]:
    return [f"cell {i}: {o.get('ename')}: {o.get('evalue')}"
            for i, cell in enumerate(notebook.cells) if cell.cell_type == "code"
            for o in cell.get("outputs", []) if o.get("output_type") == "error"]


def _text(outputs: list) -> str:
    parts = []
    for output in outputs:
        parts.append("".join(output.get("text", "")))
        parts.append("".join(output.get("data", {}).get("text/plain", "")))
    return "".join(parts)


def test_the_scale_extra_lists_the_modules_of_pyproject():
    tomllib = pytest.importorskip("tomllib")          # Python 3.11+
    extra = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]["scale"]
    declared = {re.split(r"[\[<>=;\s]", r, maxsplit=1)[0].lower() for r in extra}
    assert {m.split(".")[0] for m in EXTRAS["scale"]} <= declared
    with pytest.raises(ValueError, match="extra must be one of"):
        missing_modules("gpu")


def test_needs_is_silent_where_the_extra_is_installed(capsys):
    pytest.importorskip("dask.array")
    pytest.importorskip("distributed")
    pytest.importorskip("zarr")
    needs("scale", notebook=SCALE_NOTEBOOK)
    assert capsys.readouterr().out == ""


def test_the_scale_notebook_calls_needs_before_importing_dask():
    cells = [c for c in nbformat.read(NOTEBOOKS / SCALE_NOTEBOOK, as_version=4).cells
             if c.cell_type == "code"]
    assert 'needs("scale"' in cells[0].source and SCALE_NOTEBOOK in cells[0].source
    assert all("import dask" not in c.source for c in cells[:1])


def test_notebook_06_without_the_scale_extra_shows_its_stored_outputs(tmp_path):
    stored = nbformat.read(NOTEBOOKS / SCALE_NOTEBOOK, as_version=4)
    ran = _execute(NOTEBOOKS / SCALE_NOTEBOOK, tmp_path)
    assert _errors(ran) == []
    code = [(s, r) for s, r in zip(stored.cells, ran.cells) if s.cell_type == "code"]
    note = _text(code[0][1].outputs).strip().splitlines()
    assert len(note) == 1 and note[0].startswith("Not installed here: dask.array, "
                                                 "distributed, zarr")
    shown = 0
    for before, after in code[1:]:
        assert _text(after.outputs) == _text(before.outputs), before.source[:60]
        shown += bool(_text(before.outputs))
    assert shown >= 4                     # the stored outputs are there to show


@pytest.mark.slow
@pytest.mark.parametrize("path", [p for p in STUDENT if p.name != SCALE_NOTEBOOK],
                         ids=lambda p: p.stem)
def test_every_student_notebook_runs_in_the_lab_environment(path, tmp_path):
    ran = _execute(path, tmp_path)
    assert _errors(ran) == [], path.name


def test_the_blocker_blocks(tmp_path):
    # the emulation above is only worth something if dask really cannot be imported there
    import subprocess

    env = _lab_environment(tmp_path)
    done = subprocess.run([sys.executable, "-c", "import dask.array"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode != 0 and "No module named 'dask" in done.stderr
    done = subprocess.run([sys.executable, "-c", "import numpy, json; print(json.dumps(1))"],
                          env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and json.loads(done.stdout) == 1


def test_the_students_file_browser_holds_only_what_they_open():
    """Notebooks, and the one module the appendices import; test configuration lives in
    tests/ (nbval's sanitizer was in notebooks/, in every student's file browser)."""
    import subprocess

    tracked = subprocess.run(["git", "ls-files", "notebooks"], cwd=ROOT, capture_output=True,
                             text=True, timeout=60)
    if tracked.returncode != 0:
        pytest.skip("not a git checkout")
    others = [p for p in tracked.stdout.split() if not p.endswith(".ipynb")]
    assert others == ["notebooks/appendix/_appendix.py"], others
    assert (ROOT / "tests" / "nbval_sanitize.cfg").is_file()
