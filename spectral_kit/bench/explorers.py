"""Explorer latency: slider change → artists updated and drawn, p50 and p95 per explorer;
and the time to the first picture of an explorer built at every slider extreme.

Headless (Agg backend), one BLAS thread, default settings: each slider of each explorer is
swept across its range and every move is timed by the explorer itself (computation, artist
update and the Agg redraw — what ipympl sends to the browser). Then the explorer is built
with each slider at its minimum and at its maximum (the others at their defaults), and the
constructor is timed: it must return with its first picture, leaving any refinement to the
kernel's loop (or to ``finish()``). The reference "baseline" is the redraw of a one-line
figure of the same size in the same process: the floor set by matplotlib on this machine.
"""

from __future__ import annotations

import importlib
import os

import numpy as np

from ..plots._style import FIGURE_DPI
from ._core import BenchResult, benchmark

__all__ = ["EXPLORERS", "construction_times", "data_explorer_rows", "measure", "run"]

#: Explorers to measure (module, class); those not present in this build are skipped.
EXPLORERS = (
    ("spectral_kit.widgets.positivity", "PositivityExplorer"),
    ("spectral_kit.widgets.sparsity_gap", "SparsityGapExplorer"),
    ("spectral_kit.widgets.sparsity_gap", "SideInformationExplorer"),
    ("spectral_kit.widgets.interlacing", "InterlacingExplorer"),
    ("spectral_kit.widgets.stability", "StabilityExplorer"),
    ("spectral_kit.widgets.detectability", "DetectabilityExplorer"),
)


def _values(control, count: int) -> list:
    if hasattr(control, "base"):
        return [float(control.base**e) for e in np.linspace(control.min, control.max, count)]
    return [type(control.value)(v) for v in np.linspace(control.min, control.max, count)]


def measure(explorer, *, count: int = 8) -> np.ndarray:
    """Sweep every slider of ``explorer`` (``count`` values each, back to the start) and
    return the latencies of those moves in seconds."""
    explorer.latencies.clear()
    for name, control in explorer.controls.items():
        start = control.value
        for value in [*_values(control, count), start]:
            explorer.update(**{name: value})
    return np.asarray(explorer.latencies)


def _extremes(control) -> tuple:
    if hasattr(control, "base"):
        return float(control.base**control.min), float(control.base**control.max)
    return type(control.value)(control.min), type(control.value)(control.max)


def construction_times(cls) -> dict[str, tuple[float, float]]:
    """With each slider at its minimum and at its maximum, by ``"name=value"``: seconds from
    calling the constructor to its return (figure, widgets and first picture), and seconds
    of its first picture alone (computation and draw, as a slider move is timed)."""
    import time

    probe = cls()
    extremes = {name: _extremes(control) for name, control in probe.controls.items()}
    probe.close()
    times = {}
    for name, values in extremes.items():
        for value in values:
            start = time.perf_counter()
            explorer = cls(**{name: value})
            times[f"{name}={value:g}"] = (time.perf_counter() - start, explorer.latencies[0])
            explorer.close()
    return times


def _reference_draw(figsize: tuple[float, float]) -> float:
    import time

    import matplotlib.pyplot as plt

    with plt.ioff():
        fig, ax = plt.subplots(figsize=figsize, dpi=FIGURE_DPI)
    ax.plot([0, 1], [0, 1])
    fig.canvas.draw()
    times = []
    for _ in range(15):
        start = time.perf_counter()
        fig.canvas.draw()
        times.append(time.perf_counter() - start)
    plt.close(fig)
    return float(np.median(times))


@benchmark("explorers")
def run(quick: bool = False) -> list[BenchResult]:
    """p50/p95 latency of every explorer over full slider sweeps; constructor time at the
    slider extremes."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    from threadpoolctl import threadpool_limits

    results = []
    with threadpool_limits(1):
        for module_name, class_name in EXPLORERS:
            try:
                cls = getattr(importlib.import_module(module_name), class_name)
            except (ImportError, AttributeError):
                continue
            explorer = cls()
            try:
                lat = measure(explorer, count=4 if quick else 8)
            finally:
                explorer.close()
            reference = _reference_draw(cls.figsize)
            built = construction_times(cls)
            slowest = max(built, key=lambda key: built[key][0])
            first = np.array([t[1] for t in built.values()])
            results.append(
                BenchResult(
                    f"{class_name}: constructor returns, slowest of {len(built)} slider "
                    "extremes", built[slowest][0], "one-line figure redraw", reference,
                    goal="< 1 s",
                    extra={"at": slowest,
                           "median [s]": round(float(np.median([t[0] for t in
                                                                built.values()])), 4),
                           "first picture p95 [s]": round(float(np.percentile(first, 95)),
                                                          4),
                           "first picture max [s]": round(float(first.max()), 4)},
                )
            )
            results.append(
                BenchResult(
                    f"{class_name}: slider → redrawn, p95 of {lat.size} moves",
                    float(np.percentile(lat, 95)), "one-line figure redraw", reference,
                    goal="p95 < 0.1 s",
                    extra={"p50 [s]": round(float(np.median(lat)), 4),
                           "max [s]": round(float(lat.max()), 4)},
                )
            )
        results += data_explorer_rows(quick)
    return results


def _planted(n: int, p: int, *, seed: int = 0) -> tuple[np.ndarray, np.ndarray]:
    """Two classes, 20 features shifted between them, the rest noise."""
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, p))
    X[:, :20] += 0.8 * y[:, None]
    return X, y


def data_explorer_rows(quick: bool = False) -> list[BenchResult]:
    """:class:`~spectral_kit.widgets.DataExplorer` on X of 500 × 10⁴ (first picture, a
    slider sweep) and on 10⁶ features (screened, or refused with the size needed).

    Baseline of the first picture: Q-α on the same working features, which a first picture
    without progressive refinement would wait for.
    """
    import time

    import scipy.sparse as sp

    from ..qalpha import q_alpha
    from ..widgets.data_explorer import DataExplorer

    results = []
    X, y = _planted(500, 10_000)
    start = time.perf_counter()
    explorer = DataExplorer(X, y)
    built = time.perf_counter() - start
    first = explorer.latencies[0]
    try:
        start = time.perf_counter()
        explorer.finish()
        refined = time.perf_counter() - start
        start = time.perf_counter()
        q_alpha(explorer.M, 2, random_state=0)
        qalpha_seconds = time.perf_counter() - start
        results.append(BenchResult(
            "DataExplorer, X 500 × 10⁴ with y: constructor returns (first picture)", built,
            "q_alpha on the 2000 working features", qalpha_seconds, goal="< 1 s",
            extra={"first picture [s]": round(first, 4),
                   "refinement to the end [s]": round(refined, 3)}))
        lat = measure(explorer, count=3 if quick else 5)
        results.append(BenchResult(
            f"DataExplorer, X 500 × 10⁴: slider → redrawn, p95 of {lat.size} moves",
            float(np.percentile(lat, 95)), "one-line figure redraw",
            _reference_draw(DataExplorer.figsize), goal="p95 < 0.2 s",
            extra={"p50 [s]": round(float(np.median(lat)), 4),
                   "max [s]": round(float(lat.max()), 4)}))
    finally:
        explorer.close()
    # 10⁶ features (a term-document matrix): screened to max_features by variance.
    rng = np.random.default_rng(1)
    p = 1_000_000
    S = sp.random(500, p, density=1e-3, random_state=rng, format="csr")
    start = time.perf_counter()
    explorer = DataExplorer(S)
    built = time.perf_counter() - start
    try:
        notes = " ".join(explorer.notes)
        start = time.perf_counter()
        explorer.finish()
        refined = time.perf_counter() - start
    finally:
        explorer.close()
    start = time.perf_counter()
    try:
        DataExplorer(S, max_features=p)
        refusal = "accepted"
    except ValueError as exc:
        refusal = str(exc)
    refused = time.perf_counter() - start
    results.append(BenchResult(
        f"DataExplorer, sparse 500 × 10⁶ ({S.nnz:,} non-zeros): screened, first picture",
        built, "the same asking for all 10⁶ features: refused", refused, goal="< 1 s",
        extra={"note": notes, "refinement to the end [s]": round(refined, 3),
               "refusal": refusal}))
    return results

