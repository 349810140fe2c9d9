"""``spectral-kit reproduce``: run every reproduction and write a Markdown report with figures.

The report has one section per paper with one table per reproduction (our number beside the
published one and the verdict) and a PNG figure per reproduction: the comparisons as points
(ours) against the published values (open circles), or a topic-specific figure when the
reproduction's module registers one with :func:`figure_for`.

Nothing finished is lost. Each reproduction's section (``sections/<key>.md``) and figure
(``figures/<key>.png``) are written as soon as it finishes, then ``README.md`` and
``manifest.json`` (settings and the status of every section) are rewritten, each atomically.
A reproduction that fails gets its own section (cause and fix, traceback in
``sections/<key>.traceback.txt``) and the others go on; an interrupt (Ctrl-C) leaves a README
marked *partial* that lists what ran. ``resume=True`` skips the sections already complete for
the same settings. A folder that holds something other than a report of the kit is refused
unless ``force=True``, and a README.md of the user's is kept (renamed), never overwritten.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import json
import math
import os
import signal
import sys
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib

from ._core import PAPERS, REGISTRY, Comparison, Reproduction
from ._files import write_atomic

__all__ = [
    "FIGURES",
    "MANIFEST",
    "ReportError",
    "figure_for",
    "run_all",
    "select_keys",
    "write_report",
]

#: Topic-specific figure makers by reproduction key: ``f(reproduction, figure) -> None``.
FIGURES: dict[str, Callable] = {}

#: Name of the file that marks a folder as a report of the kit and records its state.
MANIFEST = "manifest.json"
_FORMAT = "spectral_kit reproduce report"
_TITLE = "# spectral_kit — reproductions of the papers"

#: Marker colours of the default figure; verdicts not listed here are drawn in black.
_COLOURS = {"reproduced": "#009E73", "close": "#E69F00", "differs": "#D55E00",
            "not published": "#0072B2", "inconclusive": "#999999",
            "provisional (quick)": "#CC79A7"}


class ReportError(ValueError):
    """A report cannot be written where or how it was asked (one line, for the command)."""


def figure_for(key: str) -> Callable:
    """Register a function that draws reproduction ``key`` onto a given figure."""

    def decorate(func: Callable) -> Callable:
        FIGURES[key] = func
        return func

    return decorate


def select_keys(keys: list[str] | None) -> list[str]:
    """The registry keys matching ``keys`` (exact keys or prefixes), in registry order.

    Raises
    ------
    ReportError
        When a name matches no reproduction (the message lists the available keys).
    """
    if not keys:
        return list(REGISTRY)
    unknown = [p for p in keys if not any(k == p or k.startswith(p) for k in REGISTRY)]
    if unknown:
        raise ReportError(
            f"--only: no reproduction matches {', '.join(map(repr, unknown))}; "
            f"available: {', '.join(REGISTRY)}"
        )
    return [k for k in REGISTRY if any(k == p or k.startswith(p) for p in keys)]


_selected = select_keys  # the older private name


def run_all(
    *, quick: bool = False, keys: list[str] | None = None, stream=None
) -> list[Reproduction]:
    """Run the selected reproductions in registry order, printing progress (in memory only).

    :func:`write_report` is the runner that keeps every finished result on disk.
    """
    stream = stream or sys.stdout
    chosen = select_keys(keys)
    results = []
    start = time.perf_counter()
    for i, key in enumerate(chosen, 1):
        print(f"{_bar(i - 1, len(chosen))} {i}/{len(chosen)} {key} ...", end="", flush=True,
              file=stream)
        result = REGISTRY[key].func(quick=quick)
        results.append(result)
        print(f" {result.seconds:.1f} s", file=stream, flush=True)
    print(f"{_bar(1, 1)} done in {time.perf_counter() - start:.1f} s", file=stream)
    return results


def _bar(done: int, total: int) -> str:
    return f"[{'#' * (20 * done // max(total, 1)):<20}]"


def _numeric(value: object) -> float | None:
    try:
        out = float(value)
    except (TypeError, ValueError):
        return None
    return out if math.isfinite(out) else None  # drop NaN and infinities


def _default_figure(result: Reproduction, fig: matplotlib.figure.Figure) -> None:
    rows = [(c.quantity, _numeric(c.ours), _numeric(c.published), c.verdict)
            for c in result.comparisons]
    rows = [r for r in rows if r[1] is not None]
    ax = fig.subplots()
    for y, (_, ours, published, verdict) in enumerate(rows):
        ax.plot(ours, y, "o", color=_COLOURS.get(verdict, "k"))
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


# -- files -------------------------------------------------------------------------------------

def _stem(key: str) -> str:
    return key.replace("/", "__")


@contextlib.contextmanager
def _no_interrupt() -> Iterator[None]:
    """Hold a Ctrl-C until the block ends, so that a file is never left half written."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    received: list[tuple] = []
    try:
        previous = signal.signal(signal.SIGINT, lambda *a: received.append(a))
    except ValueError:  # not the main interpreter thread
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, previous)
        if received and callable(previous):
            previous(*received[0])


@contextlib.contextmanager
def _terminate_as_interrupt() -> Iterator[None]:
    """Treat SIGTERM (a closed terminal, a CI time-out) like Ctrl-C: leave a partial report."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def interrupt(*_):
        raise KeyboardInterrupt

    try:
        previous = signal.signal(signal.SIGTERM, interrupt)
    except ValueError:
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


def _jsonable(value: object) -> object:
    if value is None or isinstance(value, (bool, str)):
        return value
    if hasattr(value, "item") and getattr(value, "ndim", 1) == 0:
        value = value.item()
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else str(value)
    return str(value)


def _read_manifest(out: Path) -> dict | None:
    try:
        manifest = json.loads((out / MANIFEST).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        return None
    if not isinstance(manifest.get("sections"), dict):
        manifest["sections"] = {}
    return manifest


def _is_kit_report(out: Path) -> bool:
    if _read_manifest(out) is not None:
        return True
    try:  # a report written before the manifest existed
        with open(out / "README.md", encoding="utf-8") as handle:
            return handle.readline().rstrip("\n") == _TITLE
    except (OSError, UnicodeDecodeError):
        return False


def prepare_folder(out: Path, *, force: bool = False) -> Path:
    """Check that ``out`` can hold a report; create it. Returns the resolved path.

    Raises
    ------
    ReportError
        ``out`` is a file, cannot be created or written, or is a non-empty folder that is not a
        report of the kit (unless ``force``).
    """
    out = Path(out).expanduser()
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out: {out} is a file, not a folder; give a folder for the report")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out: cannot create {out} ({exc.strerror or exc}); "
                          "choose a folder you can write to") from None
    try:  # a real write: permissions, read-only file systems and quotas all show here
        fd, probe = tempfile.mkstemp(dir=out, prefix=".write-probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ReportError(f"--out: cannot write in {out} ({exc.strerror or exc}); "
                          "choose a folder you can write to") from None
    entries = [p for p in out.iterdir() if not p.name.startswith(".")]
    if entries and not _is_kit_report(out):
        if not force:
            raise ReportError(
                f"--out: {out} already holds files that are not a report of the kit "
                f"({', '.join(sorted(p.name for p in entries)[:3])}"
                f"{', ...' if len(entries) > 3 else ''}); "
                "choose an empty or new folder, or pass --force to write into it"
            )
        readme = out / "README.md"
        if readme.exists():  # the user's file: keep it under another name
            n, backup = 0, out / "README.md.orig"
            while backup.exists():
                n += 1
                backup = out / f"README.md.orig{n}"
            readme.rename(backup)
            print(f"kept the folder's README.md as {backup.name}", file=sys.stderr)
    return out


# -- sections ----------------------------------------------------------------------------------

def _settings_line(seconds: float, settings: dict) -> str:
    return (f"*{seconds:.1f} s; settings: "
            + ", ".join(f"{k}={v}" for k, v in settings.items()) + "*")


def _fix_for(exc: BaseException, key: str) -> str:
    text = f"{type(exc).__name__}: {exc}"
    if isinstance(exc, MemoryError):
        return "run it with `--quick`, or on a machine with more memory"
    if isinstance(exc, OSError) or "sha256" in text or "data set" in text:
        return ("check the data set: `spectral-kit data` fetches and verifies the copies "
                "(or set SPECTRAL_KIT_DATA to a folder of verified copies), then rerun with "
                f"`spectral-kit reproduce --resume --only {key}`")
    return (f"see the traceback; after a fix, `spectral-kit reproduce --resume --only {key}` "
            "reruns only this section")


def _failed_section(key: str, exc: BaseException, seconds: float, settings: dict,
                    traceback_file: str) -> str:
    frames = traceback.extract_tb(exc.__traceback__)
    where = f" (in {Path(frames[-1].filename).name}, line {frames[-1].lineno})" if frames else ""
    message = str(exc).replace("\n", " ").replace("|", "\\|")
    return "\n".join([
        f"### {REGISTRY[key].title} — failed",
        "",
        f"**Cause:** `{type(exc).__name__}`: {message}{where}.",
        "",
        f"**Fix:** {_fix_for(exc, key)}.",
        "",
        f"Full traceback: [{traceback_file}]({traceback_file}).",
        "",
        _settings_line(seconds, settings),
        "",
    ])


def _done_section(result: Reproduction, figure: str | None, figure_error: str) -> str:
    lines = [result.to_markdown(), "", _settings_line(result.seconds, result.settings), ""]
    if figure is not None:
        lines += [f"![{result.key}]({figure})", ""]
    elif figure_error:
        lines += [f"*(figure not drawn: {figure_error})*", ""]
    return "\n".join(lines)


def _draw(result: Reproduction, path: Path) -> None:
    import matplotlib.pyplot as plt

    fig = plt.figure(figsize=(8, max(2.5, 0.3 * len(result.comparisons) + 1.2)), dpi=90,
                     layout="constrained")
    try:
        (FIGURES.get(result.key) or _default_figure)(result, fig)
        fig.savefig(path)
    finally:
        plt.close(fig)


# -- the README --------------------------------------------------------------------------------

def _results_of(manifest: dict) -> list[Reproduction]:
    """Light :class:`Reproduction` objects (comparisons only) of the finished sections."""
    out = []
    for key, entry in manifest["sections"].items():
        if entry.get("status") != "done":
            continue
        comparisons = tuple(Comparison(*c) for c in entry.get("comparisons", []))
        spec = REGISTRY.get(key)
        out.append(Reproduction(key=key, paper=entry.get("paper", spec.paper if spec else ""),
                                title=entry.get("title", ""), comparisons=comparisons,
                                seconds=entry.get("seconds", 0.0),
                                settings=entry.get("settings", {})))
    return out


def _verdict_counts(results: list[Reproduction]) -> dict:
    package = sys.modules.get(__package__)
    counter = getattr(package, "verdict_counts", None)
    if callable(counter):
        try:
            return dict(counter(results))
        except Exception:  # a plain count rather than no README
            pass
    counts: dict[str, int] = {}
    for r in results:
        for c in r.comparisons:
            counts[c.verdict] = counts.get(c.verdict, 0) + 1
    return counts


def _readme(out: Path, manifest: dict) -> str:
    sections = manifest["sections"]
    selected = manifest.get("selected", list(sections))
    done = [k for k in selected if sections.get(k, {}).get("status") == "done"]
    failed = [k for k in selected if sections.get(k, {}).get("status") == "failed"]
    missing = [k for k in selected if k not in done and k not in failed]
    settings = manifest.get("settings", {})
    seconds = sum(float(e.get("seconds", 0.0)) for e in sections.values())
    status = manifest.get("status", "running")
    lines = [
        _TITLE,
        "",
        f"Run on {manifest.get('updated', '')[:10]} in "
        f"{'quick' if settings.get('quick') else 'full'} mode "
        f"(random_state={settings.get('random_state', 0)}); {len(done)} of {len(selected)} "
        f"reproductions written, {seconds:.0f} s of computation ({seconds / 60:.1f} min).",
        "",
    ]
    if status != "complete":
        why = ("interrupted" if status == "partial" else "still running, or stopped before "
               "it could say so")
        lines += [
            f"> **Partial report** ({why}). Written: "
            + (", ".join(f"`{k}`" for k in done) or "none") + ". "
            + (f"Failed: {', '.join(f'`{k}`' for k in failed)}. " if failed else "")
            + "Not run: " + (", ".join(f"`{k}`" for k in missing) or "none") + ". "
            "`spectral-kit reproduce --resume` (with the same options) runs only what is "
            "missing.",
            "",
        ]
    elif failed:
        lines += [f"> **{len(failed)} reproduction(s) failed**: "
                  + ", ".join(f"`{k}`" for k in failed)
                  + "; each section says why and how to fix it.", ""]
    counts = _verdict_counts(_results_of(manifest))
    lines += ["Verdicts: " + (", ".join(f"{v}: {n}" for v, n in sorted(counts.items()))
                              or "none yet") + ".", ""]
    rules = getattr(sys.modules.get(__package__), "VERDICT_RULES", "")
    if rules:
        lines += [str(rules).strip(), ""]
    order = [k for k in REGISTRY if k in sections] + [k for k in sections if k not in REGISTRY]
    for paper, citation in PAPERS.items():
        mine = [k for k in order if sections[k].get("paper") == paper
                and sections[k].get("status") in ("done", "failed")]
        if not mine:
            continue
        lines += [f"## {citation}", ""]
        for key in mine:
            try:
                lines += [(out / sections[key]["file"]).read_text(encoding="utf-8"), ""]
            except (OSError, KeyError):
                lines += [f"### {key}", "", "*(section file missing; rerun with --resume)*", ""]
    return "\n".join(lines)


def _save(out: Path, manifest: dict) -> None:
    manifest["updated"] = _dt.datetime.now().isoformat(timespec="seconds")
    with _no_interrupt():
        write_atomic(out / MANIFEST, json.dumps(manifest, indent=1, ensure_ascii=False))
        write_atomic(out / "README.md", _readme(out, manifest))


# -- the runner --------------------------------------------------------------------------------

def write_report(
    out: Path,
    *,
    quick: bool = False,
    keys: list[str] | None = None,
    resume: bool = False,
    force: bool = False,
    random_state: int = 0,
    stream=None,
) -> Path:
    """Run the reproductions, writing each one's section and figure as soon as it finishes.

    Parameters
    ----------
    out : path
        Report folder: ``README.md``, ``manifest.json``, ``sections/``, ``figures/``.
    quick : bool
        The reproductions' quick versions.
    keys : list of str, optional
        Registry keys or prefixes (default: all).
    resume : bool
        Skip the sections that ``out`` already holds complete for the same settings.
    force : bool
        Write into a non-empty folder that is not a report of the kit (its README.md is kept
        as ``README.md.orig``).
    random_state : int
        Seed passed to every reproduction.

    Returns
    -------
    Path
        The README. On Ctrl-C the README is marked partial and ``KeyboardInterrupt`` propagates.

    Raises
    ------
    ReportError
        Unknown keys, or a folder that cannot or must not hold the report.
    """
    stream = stream or sys.stdout
    chosen = select_keys(keys)
    out = prepare_folder(Path(out), force=force)
    for sub in ("sections", "figures"):
        (out / sub).mkdir(exist_ok=True)
    settings = {"quick": bool(quick), "random_state": int(random_state)}
    previous = _read_manifest(out) or {}
    kept = previous.get("sections", {}) if resume else {}
    for key, entry in previous.get("sections", {}).items():
        if key not in kept:  # a fresh report: the earlier run's files must not linger
            for name in (entry.get("file"), entry.get("figure"),
                         f"sections/{_stem(key)}.traceback.txt"):
                if name and "/" in name and ".." not in name:
                    with contextlib.suppress(OSError):
                        (out / name).unlink()
    manifest = {
        "format": _FORMAT, "version": 1, "status": "running", "settings": settings,
        "started": _dt.datetime.now().isoformat(timespec="seconds"),
        # a resumed report keeps the sections of earlier runs, listed after this run's keys
        "selected": chosen + [k for k in kept if k not in chosen],
        "sections": dict(kept),
    }
    todo = [k for k in chosen if not _complete(out, kept.get(k), settings)]
    skipped = len(chosen) - len(todo)
    if skipped:
        print(f"resuming: {skipped} section(s) already complete for these settings",
              file=stream, flush=True)
    _save(out, manifest)
    start = time.perf_counter()
    current = None
    with _terminate_as_interrupt():
        try:
            for i, key in enumerate(todo, 1):
                current = key
                print(f"{_bar(i - 1, len(todo))} {i}/{len(todo)} {key} ...", end="", flush=True,
                      file=stream)
                manifest["sections"][key] = _run_one(out, key, settings)
                current = None
                entry = manifest["sections"][key]
                print(f" {entry['seconds']:.1f} s" + ("" if entry["status"] == "done"
                                                       else f" FAILED ({entry['error']})"),
                      file=stream, flush=True)
                _save(out, manifest)
        except BaseException:
            manifest["status"] = "partial"
            if current is not None:  # the unfinished one leaves no half of itself behind
                manifest["sections"].pop(current, None)
                stem = _stem(current)
                for name in (f"figures/{stem}.png", f"sections/{stem}.md",
                             f"sections/{stem}.traceback.txt"):
                    with contextlib.suppress(OSError):
                        (out / name).unlink()
                print(" interrupted", file=stream, flush=True)
            _save(out, manifest)
            print(f"partial report written to {out / 'README.md'}", file=stream, flush=True)
            raise
    manifest["status"] = "complete"
    _save(out, manifest)
    print(f"{_bar(1, 1)} done in {time.perf_counter() - start:.1f} s", file=stream)
    print(f"report written to {out / 'README.md'}", file=stream)
    return out / "README.md"


def _complete(out: Path, entry: dict | None, settings: dict) -> bool:
    if not entry or entry.get("status") != "done" or entry.get("run_settings") != settings:
        return False
    files = [entry.get("file"), entry.get("figure")]
    return all((out / f).is_file() for f in files if f)


def _run_one(out: Path, key: str, settings: dict) -> dict:
    """Run one reproduction and write its section (and figure); its manifest entry."""
    spec = REGISTRY[key]
    stem = _stem(key)
    section = f"sections/{stem}.md"
    entry = {"paper": spec.paper, "title": spec.title, "file": section, "figure": None,
             "run_settings": settings}
    for stale in (out / "figures" / f"{stem}.png", out / "sections" / f"{stem}.traceback.txt"):
        with contextlib.suppress(OSError):
            stale.unlink()
    start = time.perf_counter()
    try:
        result = spec.func(**settings)
    except Exception as exc:  # one failing reproduction must not stop the rest
        seconds = time.perf_counter() - start
        trace = f"sections/{stem}.traceback.txt"
        with _no_interrupt():
            write_atomic(out / trace, "".join(traceback.format_exception(exc)))
            write_atomic(out / section, _failed_section(key, exc, seconds, settings, trace))
        return {**entry, "status": "failed", "seconds": seconds, "settings": settings,
                "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}
    figure, figure_error = f"figures/{stem}.png", ""
    try:
        _draw(result, out / figure)
    except Exception as exc:  # the table is worth keeping without its figure
        figure, figure_error = None, f"{type(exc).__name__}: {exc}"
    with _no_interrupt():
        write_atomic(out / section, _done_section(result, figure, figure_error))
    return {
        **entry, "status": "done", "figure": figure, "seconds": float(result.seconds),
        "settings": {k: _jsonable(v) for k, v in result.settings.items()},
        "comparisons": [[c.quantity, _jsonable(c.ours), _jsonable(c.published), c.verdict,
                         c.note] for c in result.comparisons],
    }
