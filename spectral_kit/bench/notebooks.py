"""Peak memory and run time of every notebook (Binder guarantees 1 GB to a session).

Each notebook is executed top to bottom in a fresh kernel by ``jupyter nbconvert --execute``
inside a fresh Python process; that process reports the largest resident set size of its
descendants (``RUSAGE_CHILDREN``), which is the kernel's peak.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

from ._core import BenchResult, benchmark

__all__ = ["measure_notebook", "run"]

_PROBE = r"""
import json, resource, subprocess, sys
subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                "--ExecutePreprocessor.timeout=1200", "--output-dir", sys.argv[2], sys.argv[1]],
               check=True, capture_output=True)
print(json.dumps(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss))
"""


def measure_notebook(path: str, workdir: str) -> tuple[float, float]:
    """(seconds, peak MiB) of executing one notebook in a fresh kernel."""
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PROBE, str(path), workdir], check=True,
                         capture_output=True, text=True)
    seconds = time.perf_counter() - start
    kib = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, kib / 1024.0


@benchmark("notebooks")
def run(quick: bool = False) -> list[BenchResult]:
    """Every notebook of the kit: run time and peak memory of its kernel."""
    import tempfile

    from ..cli import notebooks_dir

    results = []
    with tempfile.TemporaryDirectory() as workdir:
        for path in sorted(notebooks_dir().glob("*.ipynb")):
            seconds, mib = measure_notebook(str(path), workdir)
            results.append(BenchResult(
                f"notebook {path.name}: run all", seconds, goal="peak < 1024 MiB",
                extra={"peak memory [MiB]": round(mib, 1)},
            ))
    return results
