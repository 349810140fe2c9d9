#!/usr/bin/env python3
"""Execute the kit's notebooks and store their outputs (run before committing a notebook).

    .venv/bin/python .ci/build_notebooks.py [notebooks/NAME.ipynb ...]

Without arguments: every notebook, the research appendices (``notebooks/appendix/``) included.
Explorers are stored as PNG pictures of their initial state (``SPECTRAL_KIT_STATIC_WIDGETS``),
so a notebook reads well without a kernel and never shows a stale widget placeholder; run
live, the same cells show the interactive explorers. The appendices are built with
``SPECTRAL_KIT_RECOMPUTE=quick``: below each stored full run they keep a quick recomputation,
which nbval (run with the same setting) compares with a fresh one in the cells tagged
``nbval-check-output``.

Each built notebook records, in its metadata (``spectral_kit.built_from``), a digest of every
code cell's source; ``tests/test_notebook_outputs.py`` fails when a cell was edited, added or
removed after the build, so the stored outputs (shown by the documentation site and on GitHub)
are always those of the cells beside them.
"""

from __future__ import annotations

import hashlib
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent
RECOMPUTE_ENV = "SPECTRAL_KIT_RECOMPUTE"


def source_digests(nb: nbformat.NotebookNode) -> list[str]:
    """One short SHA-256 digest per code cell, in order: what the stored outputs came from."""
    return [hashlib.sha256(c.source.encode()).hexdigest()[:16]
            for c in nb.cells if c.cell_type == "code"]


def notebooks() -> list[Path]:
    """Every notebook of the kit: the student tracks first, then the appendices."""
    top = sorted((ROOT / "notebooks").glob("*.ipynb"))
    return top + sorted((ROOT / "notebooks" / "appendix").glob("*.ipynb"))


def build(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nb.metadata["spectral_kit"] = {"built_from": source_digests(nb)}
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    os.environ["SPECTRAL_KIT_STATIC_WIDGETS"] = "1"
    os.environ[RECOMPUTE_ENV] = "quick"
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    paths = [Path(a).resolve() for a in argv] or notebooks()
    for path in paths:
        print(f"{path.relative_to(ROOT)}: {build(path):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
