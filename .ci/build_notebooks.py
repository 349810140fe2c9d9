#!/usr/bin/env python3
"""Execute the kit's notebooks and store their outputs (run before committing a notebook).

    .venv/bin/python .ci/build_notebooks.py [notebooks/NAME.ipynb ...]

Explorers are stored as PNG pictures of their initial state (``SPECTRAL_KIT_STATIC_WIDGETS``),
so a notebook reads well without a kernel and never shows a stale widget placeholder; run
live, the same cells show the interactive explorers. nbval later re-runs every notebook and
compares the cells marked ``# NBVAL_CHECK_OUTPUT`` with these stored outputs.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parent.parent


def build(path: Path) -> float:
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(nb, timeout=900, kernel_name="python3",
                   resources={"metadata": {"path": str(path.parent)}}).execute()
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
    nb.metadata.pop("widgets", None)
    nbformat.write(nb, path)
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    os.environ["SPECTRAL_KIT_STATIC_WIDGETS"] = "1"
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    os.environ.setdefault("OMP_NUM_THREADS", "1")
    paths = [Path(a) for a in argv] or sorted((ROOT / "notebooks").glob("*.ipynb"))
    for path in paths:
        print(f"{path.name}: {build(path):.1f} s", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
