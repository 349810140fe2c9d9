"""Stored full-mode results of every reproduction, for instant display and for checks.

The full runs draw enough repeats to decide their verdicts, and take long: the whole set took
about an hour and a half of wall time on a shared two-core machine, the slowest keys being
sparse LDA's Fig. 1 Monte Carlo (about 33 minutes), Ionosphere with ESLDA at every k (18),
the UCI side-information table (8) and the positivity sweep (6); each stored file records its
own run time. Their tables are
stored here, one JSON file per reproduction under ``full/``, so that notebooks can show them
at once (:func:`show`), quick runs can be checked against them, and the README's verdict
count is generated from them (:func:`update_readme`).

Regenerate them with::

    python -m spectral_kit.reproduce.reference                 # every reproduction
    python -m spectral_kit.reproduce.reference --only KEY ...  # some (a key or its prefix)

which runs each selected reproduction in full mode, writes its file and rewrites the README
line between the ``verdict-counts`` markers.
"""

from __future__ import annotations

import datetime as _dt
import json
import math
import re
from collections.abc import Iterable
from pathlib import Path

from .._core import PAPERS, REGISTRY, VERDICTS, Comparison, Reproduction, verdict_counts
from .._files import write_atomic

__all__ = [
    "README_BEGIN",
    "README_END",
    "MissingReference",
    "load_reference",
    "load_references",
    "readme_counts",
    "reference_path",
    "regenerate",
    "show",
    "store",
    "stored_keys",
    "update_readme",
]

#: Where the stored results live.
DIRECTORY = Path(__file__).resolve().parent / "full"
README_BEGIN = "<!-- verdict-counts:begin -->"
README_END = "<!-- verdict-counts:end -->"


class MissingReference(KeyError):
    """No stored full-mode result for a key (the message says how to store it)."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""


def reference_path(key: str) -> Path:
    """The file of reproduction ``key`` (e.g. ``wolf-shashua-2005/fig3b``)."""
    return DIRECTORY / (key.replace("/", "__") + ".json")


def _clean(value: object) -> object:
    """JSON-ready settings: tuples as lists, NumPy scalars as numbers, others as text."""
    if isinstance(value, dict):
        return {str(k): _clean(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_clean(v) for v in value]
    if hasattr(value, "item") and callable(value.item):
        try:
            return value.item()
        except (TypeError, ValueError):
            pass
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


def store(result: Reproduction, directory: Path | None = None) -> Path:
    """Write a full-mode result to its reference file and return the path."""
    if result.settings.get("quick"):
        raise ValueError("store needs a full-mode result (quick=False); rerun without quick.")
    path = (directory or DIRECTORY) / (result.key.replace("/", "__") + ".json")
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = {
        "key": result.key, "paper": result.paper, "title": result.title,
        "date": _dt.date.today().isoformat(), "seconds": round(result.seconds, 1),
        "settings": _clean(result.settings),
        "comparisons": [c.to_dict() for c in result.comparisons],
    }
    write_atomic(path, json.dumps(payload, ensure_ascii=False, indent=1) + "\n")
    return path


def stored_keys() -> list[str]:
    """Keys with a stored result, in registry order (unknown keys last)."""
    have = {json.loads(p.read_text(encoding="utf-8"))["key"] for p in DIRECTORY.glob("*.json")}
    return [k for k in REGISTRY if k in have] + sorted(have - set(REGISTRY))


def load_reference(key: str) -> Reproduction:
    """The stored full-mode result of ``key``, marked with its date and run time.

    Parameters
    ----------
    key : str
        Registry key of a reproduction, e.g. ``"wolf-shashua-2005/fig3b"``.

    Returns
    -------
    Reproduction
        The stored rows and settings; ``data`` is empty (the raw numbers are not stored)
        and ``stored`` says when the run was stored and how long it took.

    Raises
    ------
    MissingReference
        (a KeyError) when nothing is stored for ``key``; the message says how to store it.

    Examples
    --------
    >>> from spectral_kit.reproduce import load_reference
    >>> result = load_reference("mavroeidis-vazirgiannis/example1")
    >>> result.settings["quick"], result.data, result.stored.startswith("stored full-mode")
    (False, {}, True)
    >>> result.comparisons[0].quantity, result.comparisons[0].verdict
    ('cosine of the two terms', 'reproduced')
    >>> load_reference("wolf-shashua-2005/no-such-figure")
    Traceback (most recent call last):
    ...
    spectral_kit.reproduce.reference.MissingReference: no stored full-mode result for ...
    """
    path = reference_path(key)
    if not path.exists():
        known = ", ".join(stored_keys()) or "none"
        raise MissingReference(
            f"no stored full-mode result for {key!r} (stored: {known}); run "
            f"`python -m spectral_kit.reproduce.reference --only {key}` to store it."
        )
    d = json.loads(path.read_text(encoding="utf-8"))
    seconds = float(d.get("seconds", 0.0))
    return Reproduction(
        key=d["key"], paper=d["paper"], title=d["title"],
        comparisons=tuple(Comparison.from_dict(c) for c in d["comparisons"]),
        data={}, seconds=seconds, settings=d.get("settings", {}),
        stored=f"stored full-mode result of {d.get('date', '?')} ({seconds / 60:.1f} min "
        "to compute)",
    )


def load_references(keys: Iterable[str] | None = None) -> list[Reproduction]:
    """Every stored result (or those of ``keys``), in registry order."""
    return [load_reference(k) for k in (stored_keys() if keys is None else keys)]


def show(key: str) -> Reproduction:
    """The stored full-mode table of ``key``, for ``display`` in a notebook (instant).

    A research appendix shows every reproduction this way, and recomputes it on request
    (``REGISTRY[key].func(quick=...)``).

    Parameters
    ----------
    key : str
        Registry key of a reproduction.

    Returns
    -------
    Reproduction
        As :func:`load_reference`; a notebook displays it as an HTML table with verdict
        badges.

    Examples
    --------
    >>> from spectral_kit.reproduce import show
    >>> table = show("mavroeidis-vazirgiannis/example1")
    >>> table._repr_html_().startswith("<div class='spectral-kit-reproduction'>")
    True
    >>> print(table.to_markdown().splitlines()[0])
    ### Examples 1–2: bootstrap cosines of two terms, the 0.6 percentile interval and E
    """
    return load_reference(key)


def readme_counts(results: Iterable[Reproduction] | None = None) -> str:
    """The README's verdict-count line, generated from the stored full-mode results."""
    results = load_references() if results is None else list(results)
    counts = verdict_counts(results)
    shown = [v for v in VERDICTS if counts[v] or v != "provisional (quick)"]
    per_paper = []
    for paper in PAPERS:
        mine = [r for r in results if r.paper == paper]
        if mine:
            c = verdict_counts(mine)
            per_paper.append(f"{paper} " + "/".join(str(c[v]) for v in shown))
    total = sum(counts.values())
    return (
        f"Verdicts of the stored full-mode runs ({len(results)} reproductions, {total} "
        "comparisons): " + ", ".join(f"{v} {counts[v]}" for v in shown) + ". Per paper ("
        + " / ".join(shown) + "): " + "; ".join(per_paper) + "."
    )


def update_readme(path: Path | str, line: str | None = None) -> bool:
    """Rewrite the line between the verdict-count markers of ``path``; True if it changed."""
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    if README_BEGIN not in text or README_END not in text:
        raise ValueError(f"{path} has no {README_BEGIN} … {README_END} markers.")
    line = readme_counts() if line is None else line
    new = re.sub(
        re.escape(README_BEGIN) + r".*?" + re.escape(README_END),
        lambda _: f"{README_BEGIN}\n{line}\n{README_END}", text, count=1, flags=re.S,
    )
    if new != text:
        write_atomic(path, new)
    return new != text


def regenerate(keys: list[str] | None = None, *, random_state: int = 0,
               stream=None) -> list[Path]:
    """Run the selected reproductions (all by default) in full mode and store each result."""
    import sys

    from ..report import select_keys

    stream = stream or sys.stdout
    chosen = select_keys(keys)  # None: all; an empty or unknown name is refused
    paths = []
    for key in chosen:
        print(f"{key} ...", end="", flush=True, file=stream)
        result = REGISTRY[key].func(quick=False, random_state=random_state)
        paths.append(store(result))
        print(f" {result.seconds:.0f} s", flush=True, file=stream)
    return paths
