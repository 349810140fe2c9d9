"""Every notebook of the kit opened in JupyterLab, in Chromium, and run as a student runs it:
no error output, every explorer draws its figure, a slider moved with the keyboard changes the
picture, and the browser console stays free of errors."""

from __future__ import annotations

import re

import pytest
from browser_harness import NOTEBOOKS, assert_clean, check_notebook_in_lab, notebooks

pytestmark = pytest.mark.browser


def test_notebooks_are_found():
    # the classes below are made from this list: an empty one would test nothing, silently
    assert notebooks(), f"no notebooks found in {NOTEBOOKS}"


class _NotebookInLab:
    notebook: str

    def test_notebook_runs_and_explorers_respond(self, browser, lab_server):
        stem = self.notebook.removesuffix(".ipynb")
        findings = check_notebook_in_lab(browser, lab_server, self.notebook, f"lab-{stem}")
        print(findings.summary())
        assert_clean(findings)


# One class per notebook (picked up from notebooks/ at collection): pytest-xdist's
# --dist loadscope hands each class to a worker, so notebooks run in parallel while a worker
# reuses its JupyterLab server for the notebooks it gets.
for _path in notebooks():
    _name = "TestLab_" + re.sub(r"\W", "_", _path.stem)
    globals()[_name] = type(_name, (_NotebookInLab,), {"notebook": _path.name})
