"""Run time and peak memory of every notebook: the student tracks and the research appendices.

Each notebook is executed top to bottom in a fresh kernel by ``jupyter nbconvert --execute``
inside a fresh Python process; that process reports the largest resident set size of its
descendants (``RUSAGE_CHILDREN``), which is the kernel's peak (Binder guarantees 1 GB to a
session). The student tracks' goal is a Run All under 30 s on a 2-core machine. An appendix is
timed as a reader opens it (stored results only) and, unless ``quick``, as the test suite runs it
(``SPECTRAL_KIT_RECOMPUTE=quick``). The baseline is an empty notebook: kernel start-up and
nbconvert, the part of every time that no notebook can remove (and a gauge of the machine's load).

A class shares its machine: every measurement, the baseline's included, runs beside a CPU
burner (``SPECTRAL_KIT_BENCH_BURNERS`` busy processes, 2 by default: a load of about 4 on the
kit's 2-core reference machine with the notebook's own work), and each row says the load
average it ran at. ``SPECTRAL_KIT_BENCH_NOTEBOOKS`` (comma-separated parts of file names, e.g.
``01_,06_``) measures only some notebooks.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from ._core import BenchResult, benchmark

__all__ = ["DASHBOARD_GOAL_MIB", "STUDENT_GOAL_MIB", "STUDENT_GOAL_SECONDS", "cpu_burner",
           "dashboard_kernel", "measure_notebook", "notebook_tracks", "run"]

#: Run All of a student track, in seconds, on a 2-core machine.
STUDENT_GOAL_SECONDS = 30.0
#: Peak memory of a student track's kernel after Run All (400 MB: a Binder session of 1 GB
#: holds the track and the dashboard beside it).
STUDENT_GOAL_MIB = 400e6 / 2**20
RECOMPUTE_ENV = "SPECTRAL_KIT_RECOMPUTE"
#: An appendix's quick recomputation, in seconds.
APPENDIX_QUICK_GOAL_SECONDS = 60.0
BURNERS_ENV = "SPECTRAL_KIT_BENCH_BURNERS"
SELECT_ENV = "SPECTRAL_KIT_BENCH_NOTEBOOKS"


def _burn() -> None:  # pragma: no cover - runs in a child process until terminated
    while True:
        pass


@contextlib.contextmanager
def cpu_burner(processes: int) -> Iterator[None]:
    """``processes`` busy processes for the duration of the block: the other users of a
    class's shared machine."""
    context = multiprocessing.get_context("spawn")
    workers = [context.Process(target=_burn, daemon=True) for _ in range(max(processes, 0))]
    for worker in workers:
        worker.start()
    try:
        yield
    finally:
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join(timeout=10)

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
    burners = int(os.environ.get(BURNERS_ENV, "2"))
    chosen = [part for part in os.environ.get(SELECT_ENV, "").split(",") if part.strip()]
    results = []
    print(f"  beside a CPU burner of {burners} busy process(es)", flush=True)
    with tempfile.TemporaryDirectory() as workdir, cpu_burner(burners):
        base, _, base_cpu = measure_notebook(_empty_notebook(workdir), workdir, env)
        print(f"  baseline, an empty notebook (kernel start-up): {base:.1f} s "
              f"(CPU {base_cpu:.1f} s)", flush=True)
        runs = []
        for track, path in notebook_tracks(notebooks_dir()):
            if chosen and not any(part.strip() in path.name for part in chosen):
                continue
            modes = ["no"] if track != "appendix" or quick else ["no", "quick"]
            for mode in modes:
                runs.append((track, path, mode))
        for track, path, mode in runs:
            seconds, mib, cpu = measure_notebook(str(path), workdir, {**env, RECOMPUTE_ENV: mode})
            load = os.getloadavg()[0]
            if track == "student":
                label = f"student track {path.name}: run all"
                goal = f"< {STUDENT_GOAL_SECONDS:.0f} s; peak <= {STUDENT_GOAL_MIB:.0f} MiB"
            elif track == "appendix":
                label = (f"appendix {path.name}: run all, "
                         + ("stored results" if mode == "no" else "quick recomputation"))
                goal = ("instant (< 30 s); peak < 1024 MiB" if mode == "no" else
                        f"< {APPENDIX_QUICK_GOAL_SECONDS:.0f} s; peak < 1024 MiB")
            else:
                # without a page the dashboard builds no explorer (see the next row)
                label = f"{path.name}: run all (no page: cards not built)"
                goal = "peak < 1024 MiB"
            verdict = ""
            limit = (STUDENT_GOAL_SECONDS if track == "student" else
                     APPENDIX_QUICK_GOAL_SECONDS if mode == "quick" else None)
            if limit is not None:
                met = seconds < limit and (track != "student" or mib <= STUDENT_GOAL_MIB)
                verdict = "  (goal met)" if met else "  (over the goal)"
            print(f"  {label}: {seconds:.1f} s (CPU {cpu:.1f} s), peak {mib:.0f} MiB, "
                  f"load {load:.1f}{verdict}", flush=True)
            results.append(BenchResult(
                label, seconds, baseline="empty notebook", baseline_seconds=base, goal=goal,
                extra={"CPU [s]": round(cpu, 1), "peak memory [MiB]": round(mib, 1),
                       "load": round(load, 1), "burners": burners},
            ))
        results.append(dashboard_kernel(env))
    return results


#: Resident memory of a dashboard kernel with its five explorers drawn (a Binder session
#: has 1–2 GB for every kernel a class's reloads start).
DASHBOARD_GOAL_MIB = 250.0

_DASHBOARD_CELL = """%matplotlib widget
import time
from spectral_kit.widgets import Dashboard
start = time.perf_counter()
dashboard = Dashboard(lazy=True)
dashboard.widget._view_count = 1  # what the page reports when it shows the dashboard
dashboard.build()
for explorer in dashboard.explorers.values():
    explorer.finish()
print(time.perf_counter() - start)
"""


def dashboard_kernel(env: dict) -> BenchResult:
    """Resident memory (``ps``'s RSS) of a kernel that shows the dashboard as Voilà does,
    its five explorers built and refined; the baseline is the same kernel before the
    dashboard's cell."""
    import psutil
    from jupyter_client.manager import start_new_kernel

    # the kernel draws with the widget backend, as in Voilà, not a headless one
    kernel_env = {k: v for k, v in env.items() if k != "MPLBACKEND"}
    manager, client = start_new_kernel(env=kernel_env)
    try:
        process = psutil.Process(manager.provisioner.process.pid)
        bare = process.memory_info().rss / 2**20
        printed: list[str] = []
        client.execute_interactive(
            _DASHBOARD_CELL, timeout=600,
            output_hook=lambda msg: printed.append(msg["content"].get("text", ""))
            if msg["msg_type"] == "stream" else None)
        mib = process.memory_info().rss / 2**20
    finally:
        manager.shutdown_kernel(now=True)
    seconds = float("".join(printed).split()[-1])
    verdict = "goal met" if mib <= DASHBOARD_GOAL_MIB else "over the goal"
    print(f"  dashboard kernel, five explorers built in {seconds:.1f} s: RSS {mib:.0f} MiB "
          f"(a bare kernel {bare:.0f} MiB; {verdict})", flush=True)
    return BenchResult(
        "dashboard kernel: five explorers built and drawn", seconds,
        baseline="bare kernel", baseline_seconds=None,
        goal=f"RSS <= {DASHBOARD_GOAL_MIB:.0f} MiB",
        extra={"RSS [MiB]": round(mib, 1), "bare kernel RSS [MiB]": round(bare, 1)},
    )
