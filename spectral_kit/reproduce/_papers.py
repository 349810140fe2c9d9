"""Finding a row's quoted words in the papers' text, and its published number in its words.

The reproductions store, for every published value and every claim, the paper's words and
their place (:class:`~spectral_kit.reproduce.Quote`). Two checks keep those rows honest:

* :func:`printed_in` -- the published number (or both ends of a range, or every number of a
  printed outcome such as "{1, 3} (3)") occurs in the quoted words, as digits, as a
  percentage ("9 %" prints 0.09) or as a number word ("zero");
* :func:`find_quote` -- the quoted words occur in the paper's text, compared after
  :func:`normalise` (whitespace, line-break hyphenation, typographic quotes and dashes, and the
  LaTeX of the text copies against the Unicode of the quotes).

The papers' text is not part of the kit: :func:`paper_texts` reads a folder of text copies
(``SPECTRAL_KIT_PAPERS``) and recognises each paper by its title.
"""

from __future__ import annotations

import math
import os
import re
import unicodedata
from pathlib import Path

__all__ = [
    "PAPERS_ENV",
    "PAPER_TITLES",
    "find_quote",
    "normalise",
    "numbers_in",
    "paper_texts",
    "printed_in",
]

#: The environment variable naming a folder of text copies of the papers.
PAPERS_ENV = "SPECTRAL_KIT_PAPERS"

#: Words of each paper's title, by which its text copy is recognised.
PAPER_TITLES: dict[str, str] = {
    "wolf-shashua-2005": "Feature Selection for Unsupervised and Supervised Inference",
    "shashua-wolf-2004": "Kernel Feature Selection with Side Data using a Spectral Approach",
    "moghaddam-weiss-avidan-2006": "Generalized Spectral Bounds for Sparse LDA",
    "wolf-bileschi-2005": "Combining Variable Selection with Dimensionality Reduction",
    "mavroeidis-vazirgiannis": "Stability based Sparse LSI/PCA",
}

#: LaTeX commands of the text copies, as the symbols a quote writes instead.
_SYMBOLS = {
    "sqrt": "√", "approx": "≈", "geq": "≥", "ge": "≥", "leq": "≤", "le": "≤", "ll": "≪",
    "gg": "≫", "neq": "≠", "pm": "±", "times": "×", "cdot": "·", "infty": "∞", "in": "∈",
    "top": "T", "ldots": "...", "dots": "...", "cdots": "...", "to": "→", "rightarrow": "→",
    "alpha": "α", "beta": "β", "gamma": "γ", "delta": "δ", "epsilon": "ε",
    "varepsilon": "ε", "theta": "θ", "lambda": "λ", "mu": "μ", "pi": "π", "rho": "ρ",
    "sigma": "σ", "tau": "τ", "phi": "φ", "omega": "ω", "Delta": "Δ", "Lambda": "Λ",
    "Sigma": "Σ", "sum": "Σ",
}
#: LaTeX commands that only format what follows them.
_FORMAT = {"mathbf", "mathrm", "mathcal", "mathbb", "text", "textbf", "textit", "emph",
           "operatorname", "left", "right", "big", "Big", "bigl", "bigr", "displaystyle"}
_QUOTES = str.maketrans({"‘": "'", "’": "'", "‚": "'", "‛": "'", "´": "'", "`": "'",
                         "“": '"', "”": '"', "„": '"', "‟": '"', "–": "-", "—": "-",
                         "−": "-", "‐": "-", "‑": "-"})
_NUMBER_WORDS = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "twenty": 20,
    "thirty": 30, "hundred": 100,
}
#: The most text skipped by one " … " of a quote: an ellipsis shortens a sentence, it does
#: not join words from different pages.
MAX_GAP = 400


def _latex(match: re.Match) -> str:
    name = match.group(1)
    if name in _SYMBOLS:
        return _SYMBOLS[name]
    return "" if name in _FORMAT else name


def normalise(text: str) -> str:
    """The skeleton of ``text`` that quotes and papers are compared on.

    Line-break hyphenation is joined, HTML tags (and footnote marks in ``<sup>``) dropped,
    LaTeX commands turned into the symbols a quote writes (``\\sqrt`` → √, ``\\ll`` → ≪) or
    dropped when they only format, Unicode folded (NFKC: "q²" → "q2", "n₂" → "n2"),
    typographic quotes and dashes made plain, the markup characters ``$ { } ^ _ * \\``
    removed, and the result lower-cased without any whitespace.
    """
    text = re.sub(r"(\w)-[ \t]*\r?\n\s*(\w)", r"\1\2", text)
    text = re.sub(r"<sup>.*?</sup>", "", text, flags=re.S)
    text = re.sub(r"</?[A-Za-z][^>]*>", "", text)
    text = re.sub(r"\\([%{}&#$_])", r"\1", text)
    text = re.sub(r"\\[,;:! ]", " ", text)
    text = re.sub(r"\\([A-Za-z]+)", _latex, text)
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES)
    text = re.sub(r"[${}^_*\\]", "", text)
    return re.sub(r"\s+", "", text).lower()


def find_quote(words: str, paper: str) -> bool:
    """Whether ``words`` occur in ``paper``, compared after :func:`normalise`.

    " … " in ``words`` marks text left out: the parts must occur in order, each within
    :data:`MAX_GAP` characters (of the skeleton) after the end of the one before.
    """
    text = normalise(paper)
    parts = [normalise(p) for p in words.split("…")]
    if not any(parts):
        return False
    start, previous_end = 0, None
    for part in parts:
        if not part:
            continue
        at = text.find(part, start)
        if at < 0 or (previous_end is not None and at - previous_end > MAX_GAP):
            return False
        start = previous_end = at + len(part)
    return True


def numbers_in(words: str) -> list[float]:
    """Every number printed in ``words``: digits (a percentage also as its fraction) and
    number words ("zero", "two", ...). Digits glued to a letter (n₂, a02) are not numbers."""
    text = unicodedata.normalize("NFKC", words).translate(_QUOTES)
    text = re.sub(r"\\%", "%", text)
    found: list[float] = []
    for match in re.finditer(r"(?<![A-Za-z0-9.])(\d+(?:\.\d+)?)(\s*%)?", text):
        value = float(match.group(1))
        found.append(value)
        if match.group(2):
            found.append(value / 100.0)
    for word in re.findall(r"[A-Za-z]+", text):
        if word.lower() in _NUMBER_WORDS:
            found.append(float(_NUMBER_WORDS[word.lower()]))
    return found


def _values(published: object) -> list[float] | None:
    """The numbers a published value consists of (None when it is not a printed value)."""
    if isinstance(published, bool) or published is None:
        return None
    if isinstance(published, (int, float)):
        return [float(published)]
    if isinstance(published, (tuple, list)):
        out = [_values(v) for v in published]
        return None if any(v is None for v in out) else [x for v in out for x in v]
    if isinstance(published, str):
        return [float(x) for x in re.findall(r"\d+(?:\.\d+)?", published)] or None
    return None


def printed_in(published: object, words: str) -> bool:
    """Whether every number of ``published`` occurs in ``words`` (see :func:`numbers_in`)."""
    values = _values(published)
    if not values:
        return False
    printed = numbers_in(words)
    return all(any(math.isclose(v, p, rel_tol=1e-9, abs_tol=1e-12) for p in printed)
               for v in values)


def paper_texts(folder: str | Path | None = None) -> dict[str, str]:
    """The text of every paper found in ``folder`` (default ``$SPECTRAL_KIT_PAPERS``), by key.

    Each ``*.txt`` or ``*.md`` file is matched to the paper whose title it contains near
    its beginning. An unset variable gives an empty dict.

    Raises
    ------
    ValueError
        When ``folder`` is not a directory.
    """
    folder = folder if folder is not None else os.environ.get(PAPERS_ENV)
    if not folder:
        return {}
    root = Path(folder)
    if not root.is_dir():
        raise ValueError(f"{PAPERS_ENV}={str(folder)!r} is not a directory; point it at a "
                         "folder of the papers' text copies, or unset it.")
    titles = {key: normalise(title) for key, title in PAPER_TITLES.items()}
    found: dict[str, str] = {}
    for path in sorted([*root.glob("*.txt"), *root.glob("*.md")]):
        text = path.read_text(encoding="utf-8", errors="replace")
        head = normalise(text[:3000])
        for key, title in titles.items():
            if key not in found and title in head:
                found[key] = text
    return found
