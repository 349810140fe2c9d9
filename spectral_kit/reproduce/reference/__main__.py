"""Regenerate the stored full-mode results and the README's verdict count.

    python -m spectral_kit.reproduce.reference [--only KEY ...] [--readme README.md]

Full mode takes about an hour and a half on one core for all reproductions (the slowest
keys 10–25 minutes each); ``--only`` reruns some of them (a key or a prefix such as
``wolf-bileschi-2005``). ``--readme-only`` rewrites the README line from what is stored.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .. import REGISTRY  # noqa: F401 - importing the package registers every reproduction
from . import readme_counts, regenerate, update_readme


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m spectral_kit.reproduce.reference",
                                     description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="+", metavar="KEY", help="keys or key prefixes")
    parser.add_argument("--readme", type=Path,
                        default=Path(__file__).resolve().parents[3] / "README.md",
                        help="README whose verdict-count line to rewrite")
    parser.add_argument("--readme-only", action="store_true",
                        help="only rewrite the README line from the stored results")
    args = parser.parse_args(argv)
    if not args.readme_only:
        regenerate(args.only)
    if args.readme.is_file():
        changed = update_readme(args.readme)
        print(("rewrote" if changed else "unchanged:") + f" {args.readme}")
    print(readme_counts())
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
