"""Run time and peak memory of every notebook: the student tracks and the research appendices.

Each notebook is executed top to bottom in a fresh kernel by ``jupyter nbconvert --execute``
inside a fresh Python process; that process reports the largest resident set size of its
descendants (``RUSAGE_CHILDREN``), which is the kernel's peak (Binder guarantees 1 GB to a
session). The student tracks' goal is a Run All under 30 s on a 2-core machine. An appendix is
timed as a reader opens it (stored results only) and, unless ``quick``, as the test suite runs it
(``SPECTRAL_KIT_RECOMPUTE=quick``). The baseline is an empty notebook: kernel start-up and
nbconvert, the part of every time that no notebook can remove (and a gauge of the machine's load).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from ._core import BenchResult, benchmark

__all__ = ["STUDENT_GOAL_SECONDS", "measure_notebook", "notebook_tracks", "run"]

#: Run All of a student track, in seconds, on a 2-core machine.
STUDENT_GOAL_SECONDS = 30.0
RECOMPUTE_ENV = "SPECTRAL_KIT_RECOMPUTE"

_PROBE = r"""
import json, resource, subprocess, sys
subprocess.run([sys.executable, "-m", "jupyter", "nbconvert", "--to", "notebook", "--execute",
                "--ExecutePreprocessor.timeout=1200", "--output-dir", sys.argv[2], sys.argv[1]],
               check=True, capture_output=True)
usage = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps([usage.ru_maxrss, usage.ru_utime + usage.ru_stime]))
"""


def measure_notebook(path: str, workdir: str, env: dict | None = None
                     ) -> tuple[float, float, float]:
    """(wall seconds, peak MiB, CPU seconds) of executing one notebook in a fresh kernel.

    The CPU seconds (user + system, kernel and nbconvert) are what a run costs on an idle
    machine with single-threaded BLAS; on a shared machine the wall time grows with the load.
    """
    start = time.perf_counter()
    out = subprocess.run([sys.executable, "-c", _PROBE, str(path), workdir], check=True,
                         capture_output=True, text=True, env=env)
    seconds = time.perf_counter() - start
    kib, cpu = json.loads(out.stdout.strip().splitlines()[-1])
    return seconds, kib / 1024.0, cpu


def notebook_tracks(directory: Path) -> list[tuple[str, Path]]:
    """("student" | "dashboard" | "appendix", path) for every notebook, in reading order."""
    tracks = []
    for path in sorted(directory.glob("*.ipynb")):
        tracks.append(("dashboard" if path.stem == "dashboard" else "student", path))
    tracks += [("appendix", p) for p in sorted((directory / "appendix").glob("*.ipynb"))]
    return tracks


def _empty_notebook(workdir: str) -> str:
    # here rather than at the top: importing nbformat (through jsonschema) takes seconds,
    # and every benchmark module is imported whichever benchmark runs
    import nbformat

    path = Path(workdir) / "empty.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.cells = [nbformat.v4.new_code_cell("pass")]
    nbformat.write(nb, path)
    return str(path)


@benchmark("notebooks")
def run(quick: bool = False) -> list[BenchResult]:
    """Every notebook of the kit: run time (printed as it finishes) and peak memory."""
    from ..notebook_files import notebooks_dir

    env = dict(os.environ)
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    results = []
    with tempfile.TemporaryDirectory() as workdir:
        base, _, base_cpu = measure_notebook(_empty_notebook(workdir), workdir, env)
        print(f"  baseline, an empty notebook (kernel start-up): {base:.1f} s "
              f"(CPU {base_cpu:.1f} s)", flush=True)
        runs = []
        for track, path in notebook_tracks(notebooks_dir()):
            modes = ["no"] if track != "appendix" or quick else ["no", "quick"]
            for mode in modes:
                runs.append((track, path, mode))
        for track, path, mode in runs:
            seconds, mib, cpu = measure_notebook(str(path), workdir, {**env, RECOMPUTE_ENV: mode})
            if track == "student":
                label = f"student track {path.name}: run all"
                goal = f"< {STUDENT_GOAL_SECONDS:.0f} s; peak < 1024 MiB"
            elif track == "appendix":
                label = (f"appendix {path.name}: run all, "
                         + ("stored results" if mode == "no" else "quick recomputation"))
                goal = "instant (< 30 s); peak < 1024 MiB" if mode == "no" else "peak < 1024 MiB"
            else:
                label = f"{path.name}: run all"
                goal = "peak < 1024 MiB"
            verdict = ""
            if track == "student":
                verdict = "  (goal met)" if seconds < STUDENT_GOAL_SECONDS else "  (over the goal)"
            print(f"  {label}: {seconds:.1f} s (CPU {cpu:.1f} s), peak {mib:.0f} MiB{verdict}",
                  flush=True)
            results.append(BenchResult(
                label, seconds, baseline="empty notebook", baseline_seconds=base, goal=goal,
                extra={"CPU [s]": round(cpu, 1), "peak memory [MiB]": round(mib, 1)},
            ))
    return results
