"""``spectral-kit reproduce``: run every reproduction and write a Markdown report with figures.

The report has one section per paper with one table per reproduction (our number beside the
published one and the verdict) and a PNG figure per reproduction: the comparisons as points
(ours) against the published values (open circles), or a topic-specific figure when the
reproduction's module registers one with :func:`figure_for`.
"""

from __future__ import annotations

import datetime as _dt
import sys
import time
from collections.abc import Callable
from pathlib import Path

import matplotlib

from . import PAPERS, REGISTRY, Reproduction

__all__ = ["FIGURES", "figure_for", "run_all", "write_report"]

#: Topic-specific figure makers by reproduction key: ``f(reproduction, figure) -> None``.
FIGURES: dict[str, Callable] = {}


def figure_for(key: str) -> Callable:
    """Register a function that draws reproduction ``key`` onto a given figure."""

    def decorate(func: Callable) -> Callable:
        FIGURES[key] = func
        return func

    return decorate


def _selected(keys: list[str] | None) -> list[str]:
    if not keys:
        return list(REGISTRY)
    chosen = [k for k in REGISTRY if any(k == p or k.startswith(p) for p in keys)]
    if not chosen:
        raise ValueError(
            f"no reproduction matches {keys}; available: {', '.join(REGISTRY)}"
        )
    return chosen


def run_all(
    *, quick: bool = False, keys: list[str] | None = None, stream=None
) -> list[Reproduction]:
    """Run the selected reproductions in registry order, printing progress."""
    stream = stream or sys.stdout
    chosen = _selected(keys)
    results = []
    start = time.perf_counter()
    for i, key in enumerate(chosen, 1):
        bar = "#" * (20 * (i - 1) // len(chosen))
        print(f"[{bar:<20}] {i}/{len(chosen)} {key} ...", end="", flush=True, file=stream)
        result = REGISTRY[key].func(quick=quick)
        results.append(result)
        print(f" {result.seconds:.1f} s", file=stream, flush=True)
    print(f"[{'#' * 20}] done in {time.perf_counter() - start:.1f} s", file=stream)
    return results


def _numeric(value: object) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if out == out else None  # drop NaN


def _default_figure(result: Reproduction, fig: matplotlib.figure.Figure) -> None:
    rows = [(c.quantity, _numeric(c.ours), _numeric(c.published), c.verdict)
            for c in result.comparisons]
    rows = [r for r in rows if r[1] is not None]
    ax = fig.subplots()
    colours = {"reproduced": "#009E73", "close": "#E69F00", "differs": "#D55E00",
               "not published": "#0072B2"}
    for y, (_, ours, published, verdict) in enumerate(rows):
        ax.plot(ours, y, "o", color=colours.get(verdict, "k"))
        if published is not None:
            ax.plot(published, y, "o", mfc="none", mec="k")
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0][:60] for r in rows], fontsize=7)
    ax.invert_yaxis()
    ax.set_title(result.title[:90], fontsize=9)
    ax.set_xlabel("value (filled: ours, coloured by verdict; open: published)")
    values = [abs(v) for r in rows for v in r[1:3] if v is not None and v != 0]
    if values and max(values) / min(values) > 1e3:
        ax.set_xscale("symlog")


def write_report(out: Path, *, quick: bool = False, keys: list[str] | None = None) -> Path:
    """Run the reproductions and write ``out/README.md`` and ``out/figures/*.png``."""
    import matplotlib.pyplot as plt

    out = Path(out)
    figures_dir = out / "figures"
    figures_dir.mkdir(parents=True, exist_ok=True)
    start = time.perf_counter()
    results = run_all(quick=quick, keys=keys)
    elapsed = time.perf_counter() - start
    counts: dict[str, int] = {}
    for r in results:
        for c in r.comparisons:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
    lines = [
        "# spectral_kit — reproductions of the papers",
        "",
        f"Run on {_dt.date.today().isoformat()} in {'quick' if quick else 'full'} mode; "
        f"{len(results)} reproductions took {elapsed:.0f} s "
        f"({elapsed / 60:.1f} min).",
        "",
        "Verdicts: " + ", ".join(f"{v}: {n}" for v, n in sorted(counts.items())) + ".",
        "",
    ]
    for paper, citation in PAPERS.items():
        mine = [r for r in results if r.paper == paper]
        if not mine:
            continue
        lines += [f"## {citation}", ""]
        for r in mine:
            name = r.key.replace("/", "__")
            fig = plt.figure(figsize=(8, max(2.5, 0.3 * len(r.comparisons) + 1.2)), dpi=90,
                             layout="constrained")
            (FIGURES.get(r.key) or _default_figure)(r, fig)
            fig.savefig(figures_dir / f"{name}.png")
            plt.close(fig)
            lines += [
                r.to_markdown(),
                "",
                f"*{r.seconds:.1f} s; settings: "
                + ", ".join(f"{k}={v}" for k, v in r.settings.items()) + "*",
                "",
                f"![{r.key}](figures/{name}.png)",
                "",
            ]
    path = out / "README.md"
    path.write_text("\n".join(lines))
    print(f"report written to {path}")
    return path
