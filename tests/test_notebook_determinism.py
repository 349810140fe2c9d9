"""Notebooks are deterministic: a restart-and-run-all reproduces every checked output.

nbval (run by the same test command) executes each notebook once and compares its cells tagged
``nbval-check-output`` with the outputs stored in the file. This module executes each notebook a
second time, in a fresh kernel, and compares the same cells again: every test run thus checks
two consecutive runs against one stored reference, hence against each other. The research
appendices run as nbval runs them, recomputing their reproductions in quick mode
(``SPECTRAL_KIT_RECOMPUTE=quick``).
"""

from __future__ import annotations

import configparser
import os
import re
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient

NOTEBOOKS = Path(__file__).resolve().parent.parent / "notebooks"
CHECK = "nbval-check-output"
PATHS = sorted(NOTEBOOKS.glob("*.ipynb")) + sorted((NOTEBOOKS / "appendix").glob("*.ipynb"))


def _sanitizers() -> list[tuple[re.Pattern, str]]:
    """The replacements nbval applies (tests/nbval_sanitize.cfg): addresses, timings."""
    config = configparser.ConfigParser()
    config.read(Path(__file__).resolve().parent / "nbval_sanitize.cfg")
    return [(re.compile(config[s]["regex"]), config[s]["replace"]) for s in config.sections()]


def _checked_text(nb: nbformat.NotebookNode) -> list[str]:
    """The text a checked cell shows (streams and plain-text results), sanitized."""
    sanitizers = _sanitizers()
    shown = []
    for cell in nb.cells:
        if cell.cell_type != "code" or CHECK not in cell.metadata.get("tags", []):
            continue
        parts = []
        for out in cell.get("outputs", []):
            if out.output_type == "stream":
                parts.append(out.text)
            elif out.output_type in ("execute_result", "display_data"):
                parts.append(out.get("data", {}).get("text/plain", ""))
            elif out.output_type == "error":
                parts.append(f"{out.ename}: {out.evalue}")
        text = "".join(parts)
        for pattern, replacement in sanitizers:
            text = pattern.sub(replacement, text)
        shown.append(text)
    return shown


@pytest.mark.slow
@pytest.mark.parametrize(
    "path", [p for p in PATHS if any(CHECK in c.metadata.get("tags", [])
                                     for c in nbformat.read(p, as_version=4).cells)],
    ids=lambda p: p.stem if p.parent == NOTEBOOKS else f"appendix-{p.stem}",
)
def test_restart_and_run_all_reproduces_the_checked_outputs(path, monkeypatch):
    stored = nbformat.read(path, as_version=4)
    expected = _checked_text(stored)
    # As the stored outputs were made: explorers as pictures (no front end here).
    monkeypatch.setenv("SPECTRAL_KIT_STATIC_WIDGETS", "1")
    monkeypatch.setenv("SPECTRAL_KIT_RECOMPUTE", "quick")
    monkeypatch.setenv("OPENBLAS_NUM_THREADS", os.environ.get("OPENBLAS_NUM_THREADS", "1"))
    fresh = nbformat.read(path, as_version=4)
    NotebookClient(fresh, timeout=600, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    got = _checked_text(fresh)
    assert len(got) == len(expected)
    for i, (a, b) in enumerate(zip(got, expected)):
        assert a == b, f"{path.name}: checked cell {i} differs from the stored output"


# Characters that only ever belong to a formula: in markdown they must sit inside $…$.
FORMULA_ONLY = re.compile(r"[ᵀΣ√‖⁻∘₀₁₂₃ₖ]")


def _prose(source: str) -> str:
    """Markdown without its maths ($…$, $$…$$), code spans and links."""
    for pattern in (r"\$\$.*?\$\$", r"\$[^$\n]*\$", r"`[^`]*`", r"\]\([^)]*\)"):
        source = re.sub(pattern, "", source, flags=re.S)
    return source


@pytest.mark.parametrize("path", [p for p in PATHS if re.match(r"0[0-6]_", p.name)],
                         ids=lambda p: p.stem if p.parent == NOTEBOOKS else f"appendix-{p.stem}")
def test_markers_are_tags_and_formulas_are_typeset(path):
    """The teaching notebooks and their appendices: no test comments, maths in $…$."""
    nb = nbformat.read(path, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert "# NBVAL_" not in cell.source, "nbval markers belong in the cell's tags"
        else:
            untypeset = [line for line in _prose(cell.source).splitlines()
                         if FORMULA_ONLY.search(line)]
            assert not untypeset, f"{path.name}: formula outside $…$: {untypeset[0]!r}"
    assert any("$" in c.source for c in nb.cells if c.cell_type == "markdown")
