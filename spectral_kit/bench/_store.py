"""Stored benchmark runs: one JSON file per benchmark, for the documentation site.

``spectral-kit bench NAME --save DIR`` writes ``DIR/NAME.json`` with the rows, the date, the
machine (processor count, platform, Python, NumPy) and whether the run was quick; the site's
benchmark page renders every stored file with :meth:`StoredRun.html_table`.
"""

from __future__ import annotations

import dataclasses
import datetime as _dt
import html
import json
import os
import platform
from dataclasses import dataclass
from pathlib import Path

from ._core import BenchResult, _fmt, _fmt_ratio

__all__ = ["StoredRun", "load_run", "save_run"]


def _machine() -> dict[str, str]:
    import numpy as np

    load = ""
    if hasattr(os, "getloadavg"):
        load = " ".join(f"{x:.2f}" for x in os.getloadavg())
    return {
        "cpus": str(os.cpu_count()),
        "platform": platform.platform(terse=True),
        "processor": platform.machine(),
        "python": platform.python_version(),
        "numpy": np.__version__,
        "load at the end": load,
    }


@dataclass(frozen=True)
class StoredRun:
    """One benchmark's rows as stored on disk.

    Attributes
    ----------
    name : str
        The benchmark (a key of :data:`~spectral_kit.bench.BENCHMARKS`).
    date : str
        ISO date of the run.
    quick : bool
        Whether it ran with ``--quick``.
    machine : dict
        Processor count, platform, Python and NumPy versions, load average at the end.
    results : tuple of BenchResult
        The rows.

    Examples
    --------
    >>> import tempfile
    >>> from spectral_kit.bench import BenchResult, load_run, save_run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = load_run(save_run("toy", [BenchResult("toy", 0.5, "peer", 2.0)], folder,
    ...                             quick=True))
    >>> run.name, run.quick, run.results[0].ratio
    ('toy', True, 4.0)
    >>> run.caption().startswith("Run of ")
    True
    """

    name: str
    date: str
    quick: bool
    machine: dict
    results: tuple[BenchResult, ...]

    def caption(self) -> str:
        """One line: when, where, how."""
        m = self.machine
        return (f"Run of {self.date}{' (quick)' if self.quick else ''} on {m.get('cpus', '?')} "
                f"cores, {m.get('platform', '?')}, Python {m.get('python', '?')}, NumPy "
                f"{m.get('numpy', '?')}; load average at the end {m.get('load at the end', '?')}.")

    def html_table(self) -> str:
        """The rows as an HTML table (★ marks the headline)."""
        head = ("", "benchmark", "ours [s]", "baseline", "baseline [s]", "ratio", "goal",
                "extra")
        rows = []
        for r in self.results:
            ratio = "—" if r.ratio is None else _fmt_ratio(r.ratio)
            base_s = "—" if r.baseline_seconds is None else f"{r.baseline_seconds:.4g}"
            if r.extrapolated and r.baseline_seconds is not None:
                ratio += " (extrapolated)"
                base_s += " (extrapolated)"
            extra = ", ".join(f"{k} = {_fmt(v)}" for k, v in r.extra.items())
            cells = ("★" if r.headline else "", r.name, f"{r.seconds:.4g}", r.baseline or "—",
                     base_s, ratio, r.goal, extra)
            rows.append("<tr>" + "".join(f"<td>{html.escape(c)}</td>" for c in cells) + "</tr>")
        header = "<tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
        return (f"<table class='table kit-bench'><thead>{header}</thead><tbody>"
                + "".join(rows) + "</tbody></table>")


def save_run(name: str, results: list[BenchResult], folder: Path | str, *,
             quick: bool = False) -> Path:
    """Write ``folder/name.json`` and return its path.

    The site's benchmark page (``docs/benchmarks.md``) shows the runs stored this way
    (``spectral-kit bench NAME --save docs/benchmarks``), with the machine and date.

    Parameters
    ----------
    name : str
        The benchmark.
    results : list of BenchResult
        Its rows.
    folder : path-like
        Created if missing.
    quick : bool, default False
        Whether the rows come from a ``--quick`` run.

    Returns
    -------
    pathlib.Path
        The file written.

    Examples
    --------
    >>> import tempfile
    >>> from spectral_kit.bench import BenchResult, save_run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     path = save_run("toy", [BenchResult("toy", 0.5)], folder)
    ...     print(path.name, path.exists())
    toy.json True
    """
    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    payload = {
        "name": name, "date": _dt.date.today().isoformat(), "quick": bool(quick),
        "machine": _machine(), "results": [_row(r) for r in results],
    }
    path = folder / f"{name}.json"
    path.write_text(json.dumps(payload, ensure_ascii=False, indent=1) + "\n", encoding="utf-8")
    return path


def _row(result: BenchResult) -> dict:
    row = dataclasses.asdict(result)
    row["extra"] = {str(k): _plain(v) for k, v in result.extra.items()}
    return row


def _plain(value: object) -> object:
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (TypeError, ValueError):
            pass
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def load_run(path: Path | str) -> StoredRun:
    """Read a file written by :func:`save_run`.

    Parameters
    ----------
    path : path-like
        The JSON file.

    Returns
    -------
    StoredRun
        The run with its rows as :class:`BenchResult`.

    Raises
    ------
    FileNotFoundError
        If ``path`` does not exist.
    json.JSONDecodeError
        If the file is not JSON.

    Examples
    --------
    >>> import tempfile
    >>> from spectral_kit.bench import BenchResult, load_run, save_run
    >>> with tempfile.TemporaryDirectory() as folder:
    ...     run = load_run(save_run("toy", [BenchResult("toy", 0.5, "peer", 1.0)], folder))
    >>> run.results[0].baseline, run.results[0].ratio
    ('peer', 2.0)
    """
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    fields = {f.name for f in dataclasses.fields(BenchResult)}
    results = tuple(BenchResult(**{k: v for k, v in row.items() if k in fields})
                    for row in data["results"])
    return StoredRun(name=data["name"], date=data["date"], quick=bool(data.get("quick")),
                     machine=data.get("machine", {}), results=results)
