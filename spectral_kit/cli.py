"""The ``spectral-kit`` command: open the kit, run benchmarks, reproduce the papers, fetch the
data sets."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

from .notebook_files import notebooks_dir

__all__ = ["main", "notebooks_dir"]


def _lab(args: argparse.Namespace) -> int:
    from .jupyter_config import CONFIG_DIR, environment

    root = notebooks_dir(Path(args.dir) if args.dir else None)
    cmd = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={root}"]
    start = root / args.open if args.open else None
    if start is not None and start.exists():
        cmd.append(str(start))
    if args.no_browser:
        cmd.append("--no-browser")
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in args.extra:
        # Containers (and CI machines) often run as root, which JupyterLab refuses by default.
        cmd.append("--allow-root")
    cmd.extend(args.extra)
    print("Opening JupyterLab on", root, flush=True)
    # The kit's configuration (idle kernels of closed tabs culled, widget state saved with
    # the notebooks) below the user's own, which still wins.
    print("Jupyter configuration:", CONFIG_DIR, flush=True)
    return subprocess.call(cmd, env=environment())


def _headless() -> None:
    # Benchmarks and reports draw figures to files; they must not need a display.
    os.environ.setdefault("MPLBACKEND", "Agg")


def _unknown(kind: str, names: list[str], available: list[str]) -> bool:
    """Report names that are not among ``available`` (on stderr); whether there were any."""
    unknown = [n for n in names if n not in available]
    if unknown:
        print(f"unknown {kind}(s): {', '.join(unknown)}; available: {', '.join(available)}",
              file=sys.stderr)
    return bool(unknown)


def _bench(args: argparse.Namespace) -> int:
    _headless()
    from .bench import BENCHMARKS, format_table, save_run

    names = args.names or list(BENCHMARKS)
    if _unknown("benchmark", names, list(BENCHMARKS)):
        return 2
    results = []
    for name in names:
        print(f"running {name}{' (quick)' if args.quick else ''} ...", flush=True)
        rows = BENCHMARKS[name](args.quick)
        print(format_table(rows), flush=True)
        if args.save:
            print(f"saved to {save_run(name, rows, args.save, quick=args.quick)}", flush=True)
        results.extend(rows)
    if len(names) > 1:
        print("\nAll benchmarks\n" + format_table(results))
    return 0


def _reproduce(args: argparse.Namespace) -> int:
    _headless()
    from .reproduce.report import ReportError, write_report

    try:
        # None (no --only) runs everything; an empty list (a bare --only) is refused.
        readme = write_report(Path(args.out), quick=args.quick, keys=args.only,
                              resume=args.resume, force=args.force)
    except ReportError as exc:
        return _error("reproduce", str(exc))
    except KeyboardInterrupt:
        print("spectral-kit reproduce: interrupted; the report in "
              f"{args.out} is marked partial (--resume runs what is missing)", file=sys.stderr)
        return 130
    except OSError as exc:
        return _error("reproduce", f"cannot write the report in {args.out}: "
                      f"{exc.strerror or exc}{f' ({exc.filename})' if exc.filename else ''}")
    failed = _failed_sections(readme.parent)
    if failed:
        print(f"spectral-kit reproduce: {len(failed)} reproduction(s) failed "
              f"({', '.join(failed)}); their sections in {readme} say why", file=sys.stderr)
        return 1
    return 0


def _failed_sections(folder: Path) -> list[str]:
    import json

    from .reproduce.report import MANIFEST

    sections = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))["sections"]
    return [k for k, e in sections.items() if e.get("status") == "failed"]


def _error(command: str, message: str) -> int:
    """Print a command-line error as one line on stderr; the exit status for it."""
    print(f"spectral-kit {command}: error: {message}", file=sys.stderr)
    return 2


class _Parser(argparse.ArgumentParser):
    """An argument parser whose errors are one line on stderr (exit status 2)."""

    def error(self, message: str):  # type: ignore[override]
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def _data(args: argparse.Namespace) -> int:
    from .datasets.real import DATA_FILES, data_home, fetch_file

    names = args.names or sorted(DATA_FILES)
    if _unknown("data set", names, sorted(DATA_FILES)):
        return 2
    failed = []
    for name in names:
        for spec in DATA_FILES[name]:
            try:
                path = fetch_file(spec)
            except OSError as exc:
                failed.append(name)
                print(f"{name}: {spec.name} unavailable: {exc}", file=sys.stderr, flush=True)
            else:
                print(f"{name}: {path} (sha256 verified)", flush=True)
    if failed:
        print(f"not fetched: {', '.join(sorted(set(failed)))}; the notebooks that need them "
              f"download them on first use (cache: {data_home()}).", file=sys.stderr)
        return 1
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="spectral-kit",
        description="Spectral feature selection: notebooks, benchmarks and reproductions.",
    )
    sub = parser.add_subparsers(dest="command", required=True)

    lab = sub.add_parser("lab", help="open JupyterLab on the kit's notebooks")
    lab.add_argument("--dir", help="where to copy the notebooks when installed from a wheel")
    lab.add_argument("--open", default="00_tour.ipynb", help="notebook to open first")
    lab.add_argument("--no-browser", action="store_true", help="do not open a browser")
    lab.set_defaults(func=_lab)

    bench = sub.add_parser("bench", help="run benchmarks (ratios against in-process baselines)")
    bench.add_argument("names", nargs="*", help="benchmarks to run (default: all)")
    bench.add_argument("--quick", action="store_true", help="smaller sizes, a minute or two")
    bench.add_argument("--save", metavar="DIR",
                       help="also write each table to DIR/NAME.json (the site's benchmark page)")
    bench.set_defaults(func=_bench)

    rep = sub.add_parser("reproduce", help="reproduce the papers' figures and tables")
    rep.add_argument("--out", default="report", help="output directory")
    rep.add_argument("--quick", action="store_true", help="reduced repetitions, a few minutes")
    rep.add_argument("--only", nargs="*", help="registry keys (or prefixes) to run")
    rep.add_argument("--resume", action="store_true",
                     help="skip the sections the folder already holds for the same settings")
    rep.add_argument("--force", action="store_true",
                     help="write into a non-empty folder that is not a report of the kit "
                          "(its README.md is kept as README.md.orig)")
    rep.set_defaults(func=_reproduce)

    data = sub.add_parser("data", help="fetch and verify the public data sets the papers use")
    data.add_argument("names", nargs="*", help="data sets (default: all)")
    data.set_defaults(func=_data)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Entry point of the ``spectral-kit`` console script.

    Options that ``spectral-kit lab`` does not know (``--port=8890``, ``--ServerApp.*``) are
    passed on to JupyterLab.
    """
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown and args.command != "lab":
        parser.error(f"unrecognized arguments: {' '.join(unknown)}")
    args.extra = unknown
    return int(args.func(args) or 0)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
