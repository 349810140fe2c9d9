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

A report folder is trusted no further than itself (:mod:`._folder`): every path taken from
``manifest.json`` must be one the kit writes and lie inside the folder, or the manifest is
refused before anything is read or deleted; and one run writes into a folder at a time (a
lock file naming the writer; a second run is refused, a dead writer's lock taken over).
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import io
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from collections.abc import Callable, Iterator
from pathlib import Path

import matplotlib

from ._core import PAPERS, REGISTRY, Comparison, Reproduction
from ._files import write_atomic
from ._folder import (
    LOCK,
    ReportError,
    UnsafeManifest,
    check_manifest,
    inside,
    probe_writable,
    report_lock,
    section_files,
    subfolder,
)

__all__ = [
    "FIGURES",
    "LOCK",
    "MANIFEST",
    "ReportError",
    "UnsafeManifest",
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


def figure_for(key: str) -> Callable:
    """Register a function that draws reproduction ``key`` onto a given figure."""

    def decorate(func: Callable) -> Callable:
        FIGURES[key] = func
        return func

    return decorate


def select_keys(keys: list[str] | None) -> list[str]:
    """The registry keys matching ``keys`` (exact keys or prefixes), in registry order;
    ``None`` selects every reproduction.

    Raises
    ------
    ReportError
        When ``keys`` is empty or holds an empty name (a bare ``--only`` or ``--only ""``,
        which would otherwise select everything), or a name matches no reproduction; the
        message lists the available keys.
    """
    if keys is None:
        return list(REGISTRY)
    if isinstance(keys, str):
        keys = [keys]
    if not keys or any(not isinstance(p, str) or not p.strip() for p in keys):
        raise ReportError(
            f"--only: {'no key given' if not keys else 'an empty key'} "
            f"({' '.join(repr(p) for p in keys) or 'bare --only'}); give one or more keys or "
            f"prefixes, or leave --only out to run all; available: {', '.join(REGISTRY)}"
        )
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
    """The folder's manifest, its sections checked (:func:`._folder.check_manifest`); None
    when there is none, or it is not a report of the kit's.

    Raises
    ------
    UnsafeManifest
        The manifest (or ``manifest.json`` itself, as a link) points outside the folder.
    """
    try:
        path = inside(out, MANIFEST)
    except UnsafeManifest as exc:
        raise UnsafeManifest(f"--out: {out / MANIFEST} cannot be trusted: {exc}; nothing was "
                             "read or deleted. Delete it, or choose another --out") from None
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(manifest, dict) or manifest.get("format") != _FORMAT:
        return None
    manifest["sections"] = check_manifest(out, manifest)
    return manifest


def _is_kit_report(out: Path) -> bool:
    if _read_manifest(out) is not None:
        return True
    readme = out / "README.md"
    if readme.is_symlink():  # the kit writes files, not links
        return False
    try:  # a report written before the manifest existed
        with open(readme, encoding="utf-8") as handle:
            return handle.readline().rstrip("\n") == _TITLE
    except (OSError, UnicodeDecodeError):
        return False


def _create_folder(out: Path) -> Path:
    """Create ``out`` (resolved) if needed and check that it can be written."""
    out = Path(os.path.realpath(Path(out).expanduser()))
    if out.exists() and not out.is_dir():
        raise ReportError(f"--out: {out} is a file, not a folder; give a folder for the report")
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"--out: cannot create {out} ({exc.strerror or exc}); "
                          "choose a folder you can write to") from None
    probe_writable(out)
    return out


def prepare_folder(out: Path, *, force: bool = False) -> Path:
    """Check that ``out`` can hold a report; create it. Returns the resolved path.

    Call it with the folder's lock held (:func:`._folder.report_lock`): with ``force`` it
    renames the folder's README.md.

    Raises
    ------
    ReportError
        ``out`` is a file, cannot be created or written, or is a non-empty folder that is not a
        report of the kit (unless ``force``); :class:`UnsafeManifest` when its manifest
        points outside it.
    """
    out = _create_folder(out)
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
        if os.path.lexists(readme):  # the user's file: keep it under another name
            n, backup = 0, out / "README.md.orig"
            while os.path.lexists(backup):  # never over another file, nor through a link
                n += 1
                backup = out / f"README.md.orig{n}"
            readme.rename(backup)  # a link is renamed itself, its target untouched
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
        png = io.BytesIO()
        fig.savefig(png, format="png")
    finally:
        plt.close(fig)
    with _no_interrupt():  # replaces whatever is at path (a link too), never writes through it
        write_atomic(path, png.getvalue())


# -- the README --------------------------------------------------------------------------------

def _comparison(row: object) -> Comparison | None:
    """A comparison stored in a manifest (a dict, or a list from older reports); None for
    a row that does not read as one."""
    try:
        if isinstance(row, dict):
            return Comparison.from_dict(row)
        if isinstance(row, list) and 4 <= len(row) <= 5:
            return Comparison(*row)
    except (KeyError, TypeError, ValueError):
        pass
    return None


def _results_of(manifest: dict) -> list[Reproduction]:
    """Light :class:`Reproduction` objects (comparisons only) of the finished sections."""
    out = []
    for key, entry in manifest["sections"].items():
        if entry.get("status") != "done":
            continue
        rows = (_comparison(c) for c in entry.get("comparisons", []))
        comparisons = tuple(c for c in rows if c is not None)
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
        why = (manifest.get("stopped") or "interrupted" if status == "partial"
               else "still running, or stopped before it could say so")
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
                lines += [inside(out, sections[key]["file"]).read_text(encoding="utf-8"), ""]
            except (OSError, KeyError, UnicodeDecodeError, UnsafeManifest):
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
    out = _create_folder(Path(out))
    with report_lock(out):
        prepare_folder(out, force=force)
        previous = _read_manifest(out) or {}
        for sub in ("sections", "figures"):  # before anything of the old report changes
            probe_writable(subfolder(out, sub))
        return _run_report(out, chosen, quick=quick, resume=resume,
                           random_state=random_state, previous=previous, stream=stream)


def _run_report(out: Path, chosen: list[str], *, quick: bool, resume: bool,
                random_state: int, previous: dict, stream) -> Path:
    """The body of :func:`write_report`, with the folder checked and its lock held."""
    settings = {"quick": bool(quick), "random_state": int(random_state)}
    kept = previous.get("sections", {}) if resume else {}
    for key in previous.get("sections", {}):
        if key not in kept:  # a fresh report: the earlier run's files must not linger
            for name in section_files(key).values():
                with contextlib.suppress(OSError):
                    inside(out, name).unlink()
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
        except BaseException as exc:
            manifest["status"] = "partial"
            if not isinstance(exc, KeyboardInterrupt):  # say what stopped it
                manifest["stopped"] = (f"stopped by {type(exc).__name__}: "
                                       f"{exc}".splitlines()[0][:300])
            if current is not None:  # the unfinished one leaves no half of itself behind
                manifest["sections"].pop(current, None)
                for name in section_files(current).values():
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
    return all(inside(out, f).is_file() for f in files if f)


def _run_one(out: Path, key: str, settings: dict) -> dict:
    """Run one reproduction and write its section (and figure); its manifest entry."""
    spec = REGISTRY[key]
    files = section_files(key)
    section = files["file"]
    entry = {"paper": spec.paper, "title": spec.title, "file": section, "figure": None,
             "run_settings": settings}
    for stale in (files["figure"], files["traceback"]):
        with contextlib.suppress(OSError):
            (out / stale).unlink()
    start = time.perf_counter()
    try:
        result = spec.func(**settings)
    except Exception as exc:  # one failing reproduction must not stop the rest
        seconds = time.perf_counter() - start
        trace = files["traceback"]
        with _no_interrupt():
            write_atomic(out / trace, "".join(traceback.format_exception(exc)))
            write_atomic(out / section, _failed_section(key, exc, seconds, settings, trace))
        return {**entry, "status": "failed", "seconds": seconds, "settings": settings,
                "error": f"{type(exc).__name__}: {exc}".splitlines()[0][:300]}
    figure, figure_error = files["figure"], ""
    try:
        _draw(result, out / figure)
    except Exception as exc:  # the table is worth keeping without its figure
        figure, figure_error = None, f"{type(exc).__name__}: {exc}"
    with _no_interrupt():
        write_atomic(out / section, _done_section(result, figure, figure_error))
    return {
        **entry, "status": "done", "figure": figure, "seconds": float(result.seconds),
        "settings": {k: _jsonable(v) for k, v in result.settings.items()},
        "comparisons": [c.to_dict() for c in result.comparisons],
    }
