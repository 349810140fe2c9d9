"""The browser checks catch what they exist to catch: a notebook with an explorer whose
update raises on a slider move, a widget whose front end is missing and a cell that raises is
reported on all three counts, and the assertion every kit notebook must pass fails on it."""

from __future__ import annotations

import nbformat
import pytest
from browser_harness import assert_clean, check_notebook_in_lab

pytestmark = pytest.mark.browser

BROKEN_CELLS = [
    "%matplotlib widget\nfrom spectral_kit.widgets import PositivityExplorer",
    '''class BrokenExplorer(PositivityExplorer):
    """PositivityExplorer whose update fails as soon as n leaves its first value."""

    def _render(self, values):
        if values["n"] != 20:
            raise RuntimeError("deliberately broken update")
        return super()._render(values)


BrokenExplorer(n=20)''',
    '''import ipywidgets
from traitlets import Unicode


class FrontEndMissing(ipywidgets.DOMWidget):
    """A widget whose JavaScript module no lab extension provides."""

    _view_name = Unicode("MissingView").tag(sync=True)
    _view_module = Unicode("spectral-kit-missing-front-end").tag(sync=True)
    _view_module_version = Unicode("1.0.0").tag(sync=True)


FrontEndMissing()''',
    'raise ValueError("deliberately failing cell")',
]


@pytest.fixture(scope="module")
def broken_notebook(lab_server):
    notebook = nbformat.v4.new_notebook()
    notebook.cells = [nbformat.v4.new_code_cell(source) for source in BROKEN_CELLS]
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                       "language": "python"}
    name = "broken_explorer.ipynb"
    nbformat.write(notebook, lab_server.root / name)
    return name


def test_broken_explorer_fails_the_notebook_checks(browser, lab_server, broken_notebook):
    findings = check_notebook_in_lab(browser, lab_server, broken_notebook, "demo-broken")
    print(findings.summary())
    print("\n".join(findings.problems()))
    # the explorer is shown, and its update fails when the student moves the slider n: the
    # red error area under the figure is found, and tied to that move
    assert findings.explorer_count == 1
    assert any("after moving slider 'n' 20.0 → 23.0 it shows an error: RuntimeError: "
               "deliberately broken update" in p for p in findings.explorers), (
        findings.explorers)
    assert not any("before any slider moved" in p for p in findings.explorers), (
        findings.explorers)
    # the cell that raised is reported with its traceback
    assert any("raised ValueError: deliberately failing cell" in p for p in findings.cells), (
        findings.cells)
    # the widget without a front end shows up in the console and in place of the widget
    assert any("spectral-kit-missing-front-end" in p for p in findings.console), (
        findings.console)
    assert any("1 widget(s) failed to render" in p for p in findings.widgets), findings.widgets
    # and the assertion every kit notebook must pass fails here
    with pytest.raises(AssertionError, match="deliberately broken update"):
        assert_clean(findings)
