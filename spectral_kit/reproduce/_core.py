"""Reproductions: our numbers beside the published ones, with a verdict.

Each reproduction is a function registered with :func:`reproduction`; it takes ``quick``
(a small version that finishes in seconds to a minute) and ``random_state``, and returns a
:class:`Reproduction`. Notebooks and ``spectral-kit reproduce`` only call these functions,
so the numbers in the report and in the notebooks are the same numbers.

Every verdict follows the rules of :data:`VERDICT_RULES`. A row is of one of two kinds:

* a *value*: our number against a number or range the paper prints (:func:`compare`);
* a *claim*: our measurement against a qualitative statement of the paper ("A beats B", "v₁ is
  not distinguishable from u₁"), with the test the kit applies to decide it stated in the row
  (:func:`compare_claim` for the sign of a difference, :func:`compare_claim_band` for a band
  the kit reads the statement as).

Every published value and every claim carries the paper's own words and their place, a
:class:`Quote` declared once in the reproduction's module (:func:`quote`), so that a test can
check that the number occurs in the words and the words in the paper.
"""

from __future__ import annotations

import html
import math
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np

__all__ = [
    "KINDS",
    "PAPERS",
    "QUOTES",
    "REGISTRY",
    "VERDICTS",
    "VERDICT_RULES",
    "Comparison",
    "Quote",
    "Reproduction",
    "ReproductionSpec",
    "compare",
    "compare_claim",
    "compare_claim_band",
    "mean_ci",
    "median_ci",
    "proportion_ci",
    "quote",
    "reproduction",
    "verdict_counts",
]

#: The five papers, keyed by short name.
PAPERS: dict[str, str] = {
    "wolf-shashua-2005": (
        "L. Wolf and A. Shashua. Feature selection for unsupervised and supervised inference: "
        "the emergence of sparsity in a weighted-based approach. JMLR 6:1855–1887, 2005."
    ),
    "shashua-wolf-2004": (
        "A. Shashua and L. Wolf. Kernel feature selection with side data using a spectral "
        "approach. ECCV 2004."
    ),
    "moghaddam-weiss-avidan-2006": (
        "B. Moghaddam, Y. Weiss and S. Avidan. Generalized spectral bounds for sparse LDA. "
        "ICML 2006 (MERL TR2006-046)."
    ),
    "wolf-bileschi-2005": (
        "L. Wolf and S. Bileschi. Combining variable selection with dimensionality reduction. "
        "MIT-CSAIL-TR-2005-019 (CBCL-247), 2005."
    ),
    "mavroeidis-vazirgiannis": (
        "D. Mavroeidis and M. Vazirgiannis. Stability based sparse LSI/PCA: incorporating "
        "feature selection in LSI and PCA. ECML 2007."
    ),
}

PROVISIONAL = "provisional (quick)"

#: Every verdict a comparison can carry, in the order reports count them.
VERDICTS: tuple[str, ...] = (
    "reproduced", "close", "differs", "inconclusive", "not published", PROVISIONAL,
)

#: Confidence level of every interval behind a verdict.
LEVEL = 0.95

#: The rules every verdict follows (Markdown), printed with every report and on the site.
VERDICT_RULES = (
    "**Verdicts.** *Published* is what the paper prints, with its own words quoted and its "
    "place (section, paragraph, table or figure caption). A row is a *value* or a *claim*. A "
    "value row compares our number with a number or range printed in the quoted words (a "
    'printed percentage such as "9 %" is the fraction 0.09); a value read off a curve says '
    '"read from Fig. N" and its reading error is part of the tolerance. A claim row compares '
    'our measurement with a qualitative statement of the paper ("A beats B", "uninformative",'
    ' "essentially the same") and states the test the kit applies to decide it; the paper '
    "prints no number there, so none is shown as published. A parameter the paper does not "
    "name (a size, a λ, a threshold) is a choice of the kit and the row says so. *Ours* is a "
    "mean (or median, or rate) over the draws named in the settings, with its 95 % confidence"
    " interval in brackets when it rests on random draws (Student t for means, order "
    "statistics for medians, Wilson for rates, bootstrap redraws for an arg-min; for the "
    "outcome of a randomized algorithm run on a few seeds, the range over the seeds); a "
    "deterministic number has no interval. Each value row states its tolerance band around "
    'the published value (absolute and/or relative, wider for a value printed to few digits '
    'or read off a figure; a printed range such as "around 5–10" is a band with two sides; '
    'a printed bound such as "at least 90 %" is a band with one side) and a wider *close* '
    "band. **reproduced**: the whole interval lies inside the tolerance band. **close**: the "
    "whole interval lies inside the close band, but not inside the tolerance band. "
    "**differs**: the whole interval lies outside the close band -- including where the "
    "printed value or formula is itself wrong; the note then gives the corrected value and "
    "the evidence. **inconclusive**: the interval straddles a band's edge, so more draws are "
    'needed to decide. A claim of a difference ("A beats B") is **reproduced** only when the '
    "95 % interval of the difference over repeats lies wholly on the claimed side (the "
    "difference exceeds about two standard errors), **differs** when it lies wholly on the "
    "other side, and is **inconclusive** otherwise; a claim the kit reads as a band (its test "
    "names the band) is decided by the band rules above. **not published**: the paper prints"
    " no number or claim for this quantity. **provisional (quick)**: the row came from "
    "`--quick`, which draws fewer repeats than the full run; its leaning is shown, and only "
    "the full run (without `--quick`) gives the verdict. A row the quick run computes exactly"
    " as the full run does keeps its verdict."
)

#: The kinds of row: a number against a printed number, or a measurement against a printed
#: qualitative statement.
KINDS: tuple[str, ...] = ("value", "claim")


@dataclass(frozen=True)
class Quote:
    """Words printed in one of :data:`PAPERS`, and where.

    Attributes
    ----------
    paper : str
        Key of :data:`PAPERS`.
    place : str
        Where the words are printed: section and paragraph, table or figure caption
        ("Sec. 3.2, Sonar paragraph", "Sec. 6, UCI table").
    text : str
        The words, as printed (mathematics may be written in Unicode, e.g. "n₂/q²"); " … "
        marks words left out.

    Examples
    --------
    >>> from spectral_kit.reproduce import Quote
    >>> printed = Quote("mavroeidis-vazirgiannis", "Sec. 4.1, Example 1",
    ...                 "The cosine similarity of the two terms is 0.75.")
    >>> printed.place
    'Sec. 4.1, Example 1'
    >>> Quote("a-paper-not-in-the-kit", "Sec. 1", "words")
    Traceback (most recent call last):
    ...
    ValueError: paper must be one of [...]; got 'a-paper-not-in-the-kit'.
    """

    paper: str
    place: str
    text: str

    def __post_init__(self) -> None:
        if self.paper not in PAPERS:
            raise ValueError(f"paper must be one of {sorted(PAPERS)}; got {self.paper!r}.")
        for name in ("place", "text"):
            value = getattr(self, name)
            if not isinstance(value, str) or not value.strip():
                raise ValueError(f"{name} must be a non-empty string; got {value!r}.")


#: Every quote the reproductions declare (:func:`quote`), in declaration order.
QUOTES: list[Quote] = []


def quote(paper: str, place: str, text: str) -> Quote:
    """Declare the words of ``paper`` printed at ``place`` that a row compares with.

    The quote is added to :data:`QUOTES`, which the test suite checks against the papers'
    text; rows take it through the ``quote`` (or ``claim``) argument of :func:`compare`,
    :func:`compare_claim` and :func:`compare_claim_band`.

    Parameters
    ----------
    paper : str
        Key of :data:`PAPERS`.
    place : str
        Where the words are printed (section and paragraph, table or figure caption).
    text : str
        The words, as printed.

    Returns
    -------
    Quote
        The quote, declared once however often it is declared.

    Examples
    --------
    Declaring a quote the kit already declares changes nothing:

    >>> from spectral_kit.reproduce import QUOTES, quote
    >>> before = len(QUOTES)
    >>> q = quote("mavroeidis-vazirgiannis", "Sec. 4.1, Example 1",
    ...           "The cosine similarity of the two terms is 0.75.")
    >>> q in QUOTES, len(QUOTES) == before
    (True, True)
    """
    q = Quote(paper, place, text)
    if q not in QUOTES:
        QUOTES.append(q)
    return q


def _plain(value: Any) -> Any:
    """NumPy scalars as Python numbers (for printing and storing)."""
    if isinstance(value, np.generic):
        return value.item()
    return value


@dataclass(frozen=True)
class Comparison:
    """One reported quantity: ours beside the published value.

    Attributes
    ----------
    quantity : str
        What is compared, in the paper's words (e.g. "sparsity gap, n_c = 3, median"). It
        names the row: the same quantity has the same text in quick and full mode.
    ours, published : float, str, tuple or None
        Our value and the paper's (None when the paper gives no number). A published
        ``(lo, hi)`` tuple is a printed range.
    verdict : str
        One of :data:`VERDICTS`.
    note : str
        Why a difference arises, choices the kit made that the paper did not, caveats.
    source : str
        Where the published value or claim is printed ("Table 2", "Sec. 3.2, text", "read
        from Fig. 3b, ±1").
    ci : tuple of float or None
        95 % confidence interval of ours over the draws, when it rests on random draws.
    n : int or None
        How many draws (repeats, data sets, splits) ours rests on.
    leaning : str or None
        For a provisional (quick) row, the verdict the quick draws point to.
    final_in_quick : bool
        True when quick mode computes this row exactly as full mode does, so its quick
        verdict is final.
    kind : str
        "value" (a number against a printed number or range) or "claim" (a measurement
        against a printed qualitative statement); see :data:`KINDS`.
    quote : str
        The paper's words that print the published value, or state the claim.
    test : str
        For a claim, the test the kit applies to decide it (with the kit's choices).

    Examples
    --------
    Rows are built by :func:`compare` and its siblings; ``cells`` gives the text a table
    shows, and a row survives a round trip through JSON:

    >>> from spectral_kit.reproduce import Comparison, compare
    >>> row = compare("cosine of the two terms", 0.7539, 0.75, rtol=0.0, atol=0.005,
    ...               source="Sec. 4.1, Example 1")
    >>> row.cells()[:4]
    ('cosine of the two terms', '0.754', '0.75 (Sec. 4.1, Example 1)', 'reproduced')
    >>> Comparison.from_dict(row.to_dict()) == row
    True
    """

    quantity: str
    ours: Any
    published: Any
    verdict: str
    note: str = ""
    source: str = ""
    ci: tuple[float, float] | None = None
    n: int | None = None
    leaning: str | None = None
    final_in_quick: bool = False
    kind: str = "value"
    quote: str = ""
    test: str = ""

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}.")
        if self.kind not in KINDS:
            raise ValueError(f"kind must be one of {KINDS}; got {self.kind!r}.")
        if self.kind == "claim" and not self.test:
            raise ValueError(
                f"{self.quantity!r}: a claim row must state its test (test='...')."
            )

    @property
    def verdict_label(self) -> str:
        """The verdict as shown in tables (a provisional row shows its leaning)."""
        if self.verdict == PROVISIONAL and self.leaning:
            return f"{PROVISIONAL}, leans {self.leaning}"
        return self.verdict

    def cells(self) -> tuple[str, str, str, str, str]:
        """Plain-text cells: quantity, ours, published, verdict, note.

        A claim's published cell is the quoted statement and its place, and its note starts
        with the test; a value's note starts with the words that print the value.

        Returns
        -------
        tuple of five str
            The cells of the row, as the text, Markdown and HTML tables show them.
        """
        ours = _fmt(self.ours)
        if self.ci is not None:
            ours += f" [{_fmt(self.ci[0])}, {_fmt(self.ci[1])}]"
        if self.n is not None:
            ours += f" (n={self.n})"
        if self.kind == "claim":
            published = f"claim: “{self.quote}”" if self.quote else f"claim: {self.published}"
            lead = f"Test: {self.test}."
        else:
            published = _fmt(self.published)
            lead = f"Printed: “{self.quote}”" if self.quote else ""
            if lead and not self.quote.rstrip().endswith((".", "!", "?")):
                lead += "."
        if self.source:
            published += f" ({self.source})"
        note = " ".join(x for x in (lead, self.note) if x)
        return self.quantity, ours, published, self.verdict_label, note

    def to_dict(self) -> dict:
        """A JSON-ready dictionary (see :func:`Comparison.from_dict`).

        Returns
        -------
        dict
            Every field, NumPy numbers as Python numbers and tuples as lists.
        """
        out = {
            "quantity": self.quantity, "ours": _jsonable(self.ours),
            "published": _jsonable(self.published), "verdict": self.verdict,
            "note": self.note, "source": self.source,
            "ci": None if self.ci is None else [float(v) for v in self.ci],
            "n": self.n, "leaning": self.leaning, "final_in_quick": self.final_in_quick,
            "kind": self.kind, "quote": self.quote, "test": self.test,
        }
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Comparison:
        """The comparison stored by :meth:`to_dict`.

        Parameters
        ----------
        d : dict
            What :meth:`to_dict` returned (after a trip through JSON).

        Returns
        -------
        Comparison
            Equal to the comparison that was stored.
        """
        published = d.get("published")
        if isinstance(published, list):
            published = tuple(published)
        ci = d.get("ci")
        return cls(
            quantity=d["quantity"], ours=d.get("ours"), published=published,
            verdict=d["verdict"], note=d.get("note", ""), source=d.get("source", ""),
            ci=None if ci is None else (float(ci[0]), float(ci[1])), n=d.get("n"),
            leaning=d.get("leaning"), final_in_quick=bool(d.get("final_in_quick", False)),
            kind=d.get("kind", "value"), quote=d.get("quote", ""), test=d.get("test", ""),
        )


def _jsonable(value: Any) -> Any:
    value = _plain(value)
    if isinstance(value, tuple):
        return [_jsonable(v) for v in value]
    if isinstance(value, (bool, int, float, str)) or value is None:
        return value
    return str(value)


_COLOURS = {
    "reproduced": "#009E73", "close": "#E69F00", "differs": "#D55E00",
    "inconclusive": "#7F7F7F", "not published": "#0072B2", PROVISIONAL: "#CC79A7",
}


def _md_cell(text: str) -> str:
    """Escape a Markdown table cell: a ``|`` or a newline must not break the row."""
    return text.replace("\\", "\\\\").replace("|", "\\|").replace("\r\n", "\n").replace(
        "\n", "<br>"
    )


@dataclass(frozen=True)
class Reproduction:
    """A reproduced figure or table.

    Attributes
    ----------
    key : str
        Registry key, e.g. ``"wolf-shashua-2005/fig3b"``.
    paper : str
        Key of :data:`PAPERS`.
    title : str
        Which figure/table, and what it shows.
    comparisons : tuple of Comparison
    data : dict
        The raw numbers behind the comparisons (arrays, per-seed values), for plots. Empty
        for a stored result (:func:`spectral_kit.reproduce.load_reference`).
    seconds : float
        Wall time of the computation.
    settings : dict
        The parameters it was run with (quick or full, seeds, repetitions).
    stored : str
        Empty for a fresh run; for a stored full-mode result, when and how it was stored.

    Examples
    --------
    A fresh quick run of Examples 1–2 of Mavroeidis & Vazirgiannis (instant): the rows,
    the raw numbers behind them and the settings.

    >>> from spectral_kit.reproduce import REGISTRY
    >>> result = REGISTRY["mavroeidis-vazirgiannis/example1"].func(quick=True)
    >>> result.paper, result.settings["quick"], result.stored
    ('mavroeidis-vazirgiannis', True, '')
    >>> first = result.comparisons[0]
    >>> first.quantity, round(first.ours, 4), first.published, first.verdict
    ('cosine of the two terms', 0.7539, 0.75, 'reproduced')
    >>> sorted(result.data)[:3]
    ['E', 'X', 'cosine']

    In a notebook the result shows as an HTML table; ``print`` gives text and
    ``to_markdown()`` a Markdown table.
    """

    key: str
    paper: str
    title: str
    comparisons: tuple[Comparison, ...]
    data: dict = field(default_factory=dict, repr=False)
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)
    stored: str = ""

    @property
    def provisional(self) -> list[Comparison]:
        """The rows whose verdict only the full run gives."""
        return [c for c in self.comparisons if c.verdict == PROVISIONAL]

    def _caption(self) -> str:
        parts = []
        if self.stored:
            parts.append(self.stored)
        if self.provisional:
            parts.append(
                f"quick mode: {len(self.provisional)} of {len(self.comparisons)} verdicts are "
                "provisional; the full run (without `--quick`) is needed for them"
            )
        return "; ".join(parts)

    def to_markdown(self) -> str:
        """A Markdown table: quantity, ours, published, verdict, note (cells escaped).

        Returns
        -------
        str
            A heading with the title, the caption, and one table row per comparison.
        """
        lines = [f"### {self.title}", ""]
        if self._caption():
            lines += [f"*{_md_cell(self._caption())}*", ""]
        lines += [
            "| quantity | ours | published | verdict | note |",
            "|---|---|---|---|---|",
        ]
        for c in self.comparisons:
            lines.append("| " + " | ".join(_md_cell(x) for x in c.cells()) + " |")
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def _repr_html_(self) -> str:
        """An HTML table with coloured verdict badges; numbers never wrap, notes may."""
        e = html.escape
        head = (
            "<tr><th style='text-align:left'>quantity</th><th>ours</th><th>published</th>"
            "<th>verdict</th><th style='text-align:left'>note</th></tr>"
        )
        rows = []
        for c in self.comparisons:
            quantity, ours, published, verdict, note = c.cells()
            colour = _COLOURS.get(c.verdict, "#333333")
            badge = (
                f"<span style='background:{colour};color:white;border-radius:0.6em;"
                f"padding:0.1em 0.5em;white-space:nowrap;font-size:90%'>{e(verdict)}</span>"
            )
            # A quoted claim is a sentence: it wraps, where a number must not.
            printed = ("white-space:normal;text-align:left;min-width:14em" if c.kind == "claim"
                       else "white-space:nowrap;text-align:right")
            rows.append(
                "<tr>"
                f"<td style='text-align:left'>{e(quantity)}</td>"
                f"<td style='white-space:nowrap;text-align:right'>{e(ours)}</td>"
                f"<td style='{printed}'>{e(published)}</td>"
                f"<td>{badge}</td>"
                f"<td style='text-align:left;white-space:normal'>{e(note)}</td>"
                "</tr>"
            )
        caption = self._caption()
        return (
            f"<div class='spectral-kit-reproduction'><h4>{e(self.title)}</h4>"
            + (f"<p><em>{e(caption)}</em></p>" if caption else "")
            + "<table style='border-collapse:collapse;max-width:1280px'>"
            + f"<thead>{head}</thead><tbody>{''.join(rows)}</tbody></table></div>"
        )

    def __str__(self) -> str:
        header = ("quantity", "ours", "published", "verdict")
        rows = [c.cells()[:4] for c in self.comparisons]
        widths = [max(len(r[i]) for r in [header, *rows]) for i in range(4)]
        out = [self.title] + ([self._caption()] if self._caption() else [])
        for r in [header, *rows]:
            out.append("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        return "\n".join(out)


def verdict_counts(results: Iterable[Reproduction | Comparison]) -> dict[str, int]:
    """How many comparisons carry each verdict, over reproductions (or comparisons).

    Every verdict of :data:`VERDICTS` is a key, in that order, zeros included.

    Parameters
    ----------
    results : iterable of Reproduction or Comparison
        Reproductions (all their rows count) or single rows.

    Returns
    -------
    dict of str to int
        Verdict → number of rows.

    Examples
    --------
    >>> from spectral_kit.reproduce import compare, verdict_counts
    >>> rows = [compare("a", 1.0, 1.0), compare("b", 2.0, 1.0), compare("c", 1.0, None)]
    >>> verdict_counts(rows)
    {'reproduced': 1, 'close': 0, 'differs': 1, 'inconclusive': 0, 'not published': 1,
     'provisional (quick)': 0}
    """
    counts = dict.fromkeys(VERDICTS, 0)
    for item in results:
        rows = item.comparisons if isinstance(item, Reproduction) else (item,)
        for c in rows:
            counts[c.verdict] += 1
    return counts


def _fmt(value: Any) -> str:
    value = _plain(value)
    if value is None:
        return "—"
    if isinstance(value, bool):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.3g}" if abs(value) < 1e4 else f"{value:.3e}"
    if isinstance(value, tuple) and len(value) == 2 and all(
        isinstance(_plain(v), (int, float)) for v in value
    ):
        return f"{_fmt(value[0])}–{_fmt(value[1])}"
    return str(value)


# -------------------------------------------------------------------------- intervals


def _t_quantile(df: int) -> float:
    from scipy.stats import t

    return float(t.ppf(0.5 + LEVEL / 2, df))


def mean_ci(samples: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """95 % Student-t interval of the mean of ``samples`` (infinite for fewer than 2).

    Parameters
    ----------
    samples : array-like
        Per-draw values; NaN and infinite values are left out.

    Returns
    -------
    (float, float)
        The lower and upper end.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.stats import t
    >>> from spectral_kit.reproduce import mean_ci
    >>> [round(v, 4) for v in mean_ci([1.0, 2.0, 3.0, 4.0, 5.0])]
    [1.0368, 4.9632]
    >>> sem = np.std([1.0, 2.0, 3.0, 4.0, 5.0], ddof=1) / np.sqrt(5)
    >>> [round(float(v), 4) for v in t.interval(0.95, 4, loc=3.0, scale=sem)]
    [1.0368, 4.9632]
    """
    x = np.asarray(samples, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2:
        return (-math.inf, math.inf)
    half = _t_quantile(x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    m = float(x.mean())
    return (m - half, m + half)


def median_ci(samples: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Distribution-free 95 % interval of the median (order statistics, binomial).

    Parameters
    ----------
    samples : array-like
        Per-draw values.

    Returns
    -------
    (float, float)
        Two order statistics that cover the median with probability ≥ 95 %; infinite for
        fewer than 6 samples (no pair reaches 95 %).

    Examples
    --------
    Among ten draws, the 2nd and 9th smallest cover the median with probability
    1 − 2·P(Binomial(10, ½) ≤ 1) = 0.979:

    >>> from spectral_kit.reproduce import median_ci
    >>> median_ci([3.0, 1.0, 4.0, 1.5, 5.0, 9.0, 2.0, 6.0, 5.5, 3.5])
    (1.5, 6.0)
    >>> median_ci([1.0, 2.0, 3.0])
    (-inf, inf)
    """
    from scipy.stats import binom

    x = np.sort(np.asarray(samples, dtype=np.float64).ravel())
    n = x.size
    if n < 6:  # no pair of order statistics reaches 95 % coverage
        return (-math.inf, math.inf)
    lo = int(binom.ppf((1 - LEVEL) / 2, n, 0.5))
    hi = n - lo + 1
    lo = max(lo, 1)
    return (float(x[lo - 1]), float(x[min(hi, n) - 1]))


def proportion_ci(successes: int, trials: int) -> tuple[float, float]:
    """95 % Wilson interval of a proportion.

    Parameters
    ----------
    successes : int
        Number of successes.
    trials : int
        Number of trials; with none the interval is [0, 1].

    Returns
    -------
    (float, float)
        The lower and upper end, within [0, 1].

    Examples
    --------
    >>> from scipy.stats import binomtest
    >>> from spectral_kit.reproduce import proportion_ci
    >>> [round(v, 4) for v in proportion_ci(45, 50)]
    [0.7864, 0.9565]
    >>> interval = binomtest(45, 50).proportion_ci(0.95, method="wilson")
    >>> round(float(interval.low), 4), round(float(interval.high), 4)
    (0.7864, 0.9565)
    """
    if trials <= 0:
        return (0.0, 1.0)
    from scipy.stats import norm

    z = float(norm.ppf(0.5 + LEVEL / 2))
    p = successes / trials
    denom = 1 + z * z / trials
    centre = (p + z * z / (2 * trials)) / denom
    half = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / denom
    return (max(0.0, centre - half), min(1.0, centre + half))


def _inside(lo: float, hi: float, band: tuple[float, float]) -> bool:
    return band[0] <= lo and hi <= band[1]


def _disjoint(lo: float, hi: float, band: tuple[float, float]) -> bool:
    return hi < band[0] or lo > band[1]


def _interval_verdict(
    lo: float, hi: float, band: tuple[float, float], close: tuple[float, float]
) -> str:
    if _inside(lo, hi, band):
        return "reproduced"
    if _inside(lo, hi, close):
        return "close"
    if _disjoint(lo, hi, close):
        return "differs"
    return "inconclusive"


def _where(quote: Quote | None, source: str) -> tuple[str, str]:
    """The words and place of a row: from its :class:`Quote`, or a bare ``source``."""
    if quote is None:
        return "", source
    if not isinstance(quote, Quote):
        raise TypeError(f"quote must be a Quote (see spectral_kit.reproduce.quote); got "
                        f"{type(quote).__name__}.")
    if source and source != quote.place:
        raise ValueError(f"source {source!r} and the quote's place {quote.place!r} differ; "
                         "give the place in the quote only.")
    return quote.text, quote.place


def _bands(
    published: float | tuple[float, float], rtol: float, close_rtol: float | None,
    atol: float, at_least: bool, at_most: bool,
) -> tuple[tuple[float, float], tuple[float, float]]:
    """The tolerance band and the close band around a printed value, range or bound."""
    close_rtol = 3 * rtol if close_rtol is None else close_rtol
    if isinstance(published, tuple):
        lo_p, hi_p = (float(v) for v in published)
        return ((lo_p - atol - rtol * abs(lo_p), hi_p + atol + rtol * abs(hi_p)),
                (lo_p - atol - close_rtol * abs(lo_p), hi_p + atol + close_rtol * abs(hi_p)))
    p = float(published)
    if at_least:
        return (p - atol, math.inf), (p - atol - close_rtol * abs(p), math.inf)
    if at_most:
        return (-math.inf, p + atol), (-math.inf, p + atol + close_rtol * abs(p))
    return ((p - atol - rtol * abs(p), p + atol + rtol * abs(p)),
            (p - atol - close_rtol * abs(p), p + atol + close_rtol * abs(p)))


def _ours(
    ours: Any, samples: Sequence[float] | np.ndarray | None,
    ci: tuple[float, float] | None, n: int | None,
) -> tuple[Any, tuple[float, float] | None, int | None]:
    """Our value, its interval and its number of draws (from ``samples`` when given)."""
    if samples is not None:
        arr = np.asarray(samples, dtype=np.float64).ravel()
        if ours is None:
            ours = float(arr.mean()) if arr.size else float("nan")
        if ci is None:
            ci = mean_ci(arr)
        n = int(arr.size) if n is None else n
    if ci is not None:
        ci = (float(ci[0]), float(ci[1]))
    return _plain(ours), ci, n


def _band_verdict(ours: Any, ci: tuple[float, float] | None, band: tuple[float, float],
                  close: tuple[float, float]) -> str:
    value = float(ours)
    if math.isnan(value):
        return "inconclusive"
    lo, hi = (value, value) if ci is None else ci
    return _interval_verdict(lo, hi, band, close)


def compare(
    quantity: str,
    ours: float,
    published: float | tuple[float, float] | None,
    *,
    rtol: float = 0.1,
    close_rtol: float | None = None,
    atol: float = 0.0,
    at_least: bool = False,
    at_most: bool = False,
    note: str = "",
    source: str = "",
    quote: Quote | None = None,
    samples: Sequence[float] | np.ndarray | None = None,
    ci: tuple[float, float] | None = None,
    n: int | None = None,
    final_in_quick: bool = False,
) -> Comparison:
    """Build a value :class:`Comparison` with a verdict by the rules of :data:`VERDICT_RULES`.

    The tolerance band is ``published ± (atol + rtol·|published|)``; a published
    ``(lo, hi)`` range gives ``[lo − atol − rtol·|lo|, hi + atol + rtol·|hi|]``;
    ``at_least`` gives ``[published − atol, ∞)`` and ``at_most`` ``(−∞, published + atol]``.
    The close band is the same with ``close_rtol`` (default ``3·rtol``) in place of
    ``rtol`` (for a bound: ``atol + close_rtol·|published|``).

    Our interval is ``ci`` if given, else the 95 % interval of the mean of ``samples``
    (:func:`mean_ci`), else the point ``ours`` (a deterministic number). The verdict is
    "reproduced" when the interval lies inside the tolerance band, "close" inside the close
    band, "differs" wholly outside the close band, "inconclusive" otherwise.

    Parameters
    ----------
    quantity : str
        What is compared, in the paper's words; it names the row.
    ours : float or None
        Our value (None with ``samples``: their mean).
    published : float, (float, float) or None
        The printed value, a printed range ``(lo, hi)``, or None when the paper prints
        none (the verdict is then "not published").
    rtol, atol : float
        Relative and absolute tolerance of the band around ``published``.
    close_rtol : float, optional
        Relative tolerance of the close band (default ``3·rtol``).
    at_least, at_most : bool
        ``published`` is a printed bound ("at least 90 %", "at most 5").
    note : str
        Why a difference arises, the kit's choices, caveats.
    source : str
        Where the published value is printed, for a row without a quote.
    quote : Quote, optional
        The paper's words that print ``published``, and their place (:func:`quote`).
    samples : array-like, optional
        Per-draw values whose mean is ``ours`` (``ours=None`` takes their mean).
    ci : (float, float), optional
        Our 95 % interval when ``ours`` is not a mean (e.g. :func:`median_ci`).
    n : int, optional
        Number of draws; defaults to ``len(samples)``.
    final_in_quick : bool
        Quick mode computes this row exactly as full mode does (its verdict is final).

    Returns
    -------
    Comparison
        The row, with its verdict.

    Examples
    --------
    Example 1 of Mavroeidis & Vazirgiannis: two terms occur (0, 1), (2, 3), (4, 3), (3, 0),
    (1, 0) times in five documents, and the paper prints their cosine as 0.75 (two
    decimals, so ±0.005):

    >>> import numpy as np
    >>> from spectral_kit.reproduce import Quote, compare
    >>> t1, t2 = np.array([0, 2, 4, 3, 1]), np.array([1, 3, 3, 0, 0])
    >>> cosine = float(t1 @ t2 / (np.linalg.norm(t1) * np.linalg.norm(t2)))
    >>> printed = Quote("mavroeidis-vazirgiannis", "Sec. 4.1, Example 1",
    ...                 "The cosine similarity of the two terms is 0.75.")
    >>> row = compare("cosine of the two terms", cosine, 0.75, rtol=0.0, atol=0.005,
    ...               quote=printed)
    >>> round(row.ours, 4), row.verdict
    (0.7539, 'reproduced')

    A mean over draws is decided by its whole 95 % interval: [0.080, 0.120] lies within
    the close band 0.10 ± 30 % but not within the tolerance band 0.10 ± 10 %.

    >>> row = compare("error", None, 0.10, rtol=0.1, samples=[0.09, 0.12, 0.10, 0.08, 0.11])
    >>> [round(v, 3) for v in row.ci], row.n, row.verdict
    ([0.08, 0.12], 5, 'close')
    """
    words, source = _where(quote, source)
    ours, ci, n = _ours(ours, samples, ci, n)
    if published is None:
        return Comparison(quantity, ours, None, "not published", note, source, ci, n,
                          final_in_quick=final_in_quick, quote=words)
    band, close = _bands(published, rtol, close_rtol, atol, at_least, at_most)
    verdict = _band_verdict(ours, ci, band, close)
    return Comparison(quantity, ours, _plain(published) if not isinstance(published, tuple)
                      else published, verdict, note, source, ci, n,
                      final_in_quick=final_in_quick, quote=words)


def _claim_words(claim: Quote | str, source: str) -> tuple[str, str, str]:
    """(published text, quoted words, place) of a claim given as a Quote or as text."""
    if isinstance(claim, Quote):
        words, place = _where(claim, source)
        return words, words, place
    if not isinstance(claim, str) or not claim:
        raise TypeError(f"claim must be a Quote or a non-empty string; got {claim!r}.")
    return claim, "", source


def compare_claim(
    quantity: str,
    difference: float | Sequence[float] | np.ndarray,
    claim: Quote | str,
    *,
    margin: float = 0.0,
    side: str = "greater",
    ci: tuple[float, float] | None = None,
    test: str | None = None,
    note: str = "",
    source: str = "",
    n: int | None = None,
    final_in_quick: bool = False,
) -> Comparison:
    """A measured difference against a printed qualitative claim ("A beats B").

    ``difference`` is the per-repeat paired differences (their mean is shown, with its
    95 % interval) or one number with its interval ``ci``. With ``side="greater"`` the claim
    is "difference > margin": reproduced when the interval lies wholly above ``margin``,
    differs when wholly below, inconclusive otherwise (``side="less"`` mirrors it). A single
    number without an interval is deterministic and decides on its own.

    ``claim`` is the paper's statement, a :class:`Quote` (or, outside the kit's own
    reproductions, a short text such as "> 0"); ``test`` says how the kit decides it and
    defaults to the sign test just described.

    Parameters
    ----------
    quantity : str
        What is compared; it names the row.
    difference : float or array-like
        Per-repeat paired differences, or one number.
    claim : Quote or str
        The paper's statement.
    margin : float
        The claim is "difference > margin" (or "< margin" with ``side="less"``).
    side : {"greater", "less"}
        The claimed side of the margin.
    ci : (float, float), optional
        The interval of a single ``difference``.
    test : str, optional
        How the kit decides the claim, in words.
    note, source, n, final_in_quick
        As in :func:`compare` (``n``: the repeats behind a single ``difference``).

    Returns
    -------
    Comparison
        A claim row (``kind="claim"``) with its verdict.

    Examples
    --------
    Error of B minus error of A over five splits: A beats B, but not by more than 0.02.

    >>> from spectral_kit.reproduce import compare_claim
    >>> differences = [0.04, 0.02, 0.05, 0.03, 0.01]
    >>> row = compare_claim("error of B − error of A", differences, "A beats B")
    >>> row.verdict, [round(v, 4) for v in row.ci]
    ('reproduced', [0.0104, 0.0496])
    >>> compare_claim("error of B − error of A", differences, "A beats B by 0.02",
    ...               margin=0.02).verdict
    'inconclusive'
    """
    if side not in ("greater", "less"):
        raise ValueError(f"side must be 'greater' or 'less'; got {side!r}.")
    published, words, source = _claim_words(claim, source)
    arr = np.atleast_1d(np.asarray(difference, dtype=np.float64)).ravel()
    value = float(arr.mean()) if arr.size else float("nan")
    if ci is None and arr.size > 1:
        ci = mean_ci(arr)
        n = int(arr.size) if n is None else n
    lo, hi = (value, value) if ci is None else (float(ci[0]), float(ci[1]))
    if side == "less":
        lo, hi, margin_ = -hi, -lo, -margin
    else:
        margin_ = margin
    if math.isnan(value):
        verdict = "inconclusive"
    elif lo > margin_:
        verdict = "reproduced"
    elif hi < margin_ or (ci is None and lo <= margin_):
        verdict = "differs"
    else:
        verdict = "inconclusive"
    if test is None:
        where = "above" if side == "greater" else "below"
        test = (f"the 95 % interval of the difference lies {where} {margin:g}" if ci is not None
                else f"the difference is {where} {margin:g}")
    return Comparison(quantity, value, published, verdict, note, source,
                      None if ci is None else (float(ci[0]), float(ci[1])), n,
                      final_in_quick=final_in_quick, kind="claim", quote=words, test=test)


def compare_claim_band(
    quantity: str,
    ours: Any,
    claim: Quote | str,
    *,
    reading: float | tuple[float, float],
    test: str,
    rtol: float = 0.0,
    close_rtol: float | None = None,
    atol: float = 0.0,
    at_least: bool = False,
    at_most: bool = False,
    samples: Sequence[float] | np.ndarray | None = None,
    ci: tuple[float, float] | None = None,
    n: int | None = None,
    note: str = "",
    source: str = "",
    final_in_quick: bool = False,
) -> Comparison:
    """A measurement against a printed qualitative claim that the kit reads as a band.

    "v₁ is not distinguishable from u₁" read as cos² ≤ 0.1, "uninformative" as a ratio
    within 25 % of 1, "essentially the same accuracy" as a difference within ±2 points: the
    ``reading`` (a number, range or bound) and its tolerances are the kit's, not printed
    numbers, so ``test`` must say them in words; the verdict follows the band rules of
    :func:`compare` (same arguments). The published cell shows the quoted claim, never the
    reading.

    Parameters
    ----------
    quantity : str
        What is measured; it names the row.
    ours : float or None
        Our measurement (None with ``samples``: their mean).
    claim : Quote or str
        The paper's statement.
    reading : float or (float, float)
        The number, range or bound the kit reads the statement as.
    test : str
        The reading and its tolerances, in words.
    rtol, close_rtol, atol, at_least, at_most
        The bands around ``reading``, as in :func:`compare`.
    samples, ci, n, note, source, final_in_quick
        As in :func:`compare`.

    Returns
    -------
    Comparison
        A claim row whose verdict follows the band rules; its published cell is the claim.

    Examples
    --------
    "Essentially the same accuracy" (Moghaddam, Weiss & Avidan 2006, Sec. 3.2) read as a
    difference of accuracy within ±0.02:

    >>> from spectral_kit.reproduce import Quote, compare_claim_band
    >>> same = Quote("moghaddam-weiss-avidan-2006", "Sec. 3.2, Ionosphere paragraph",
    ...              "the “fixed” sub-optimal ST method appears to yield essentially the "
    ...              "same accuracy")
    >>> row = compare_claim_band(
    ...     "accuracy of ST − accuracy of GSLDA", 0.004, same, reading=0.0, atol=0.02,
    ...     ci=(-0.006, 0.014), test="the kit reads 'essentially the same' as within ±0.02")
    >>> row.kind, row.verdict, row.published == same.text
    ('claim', 'reproduced', True)
    """
    published, words, source = _claim_words(claim, source)
    ours, ci, n = _ours(ours, samples, ci, n)
    band, close = _bands(reading, rtol, close_rtol, atol, at_least, at_most)
    verdict = _band_verdict(ours, ci, band, close)
    return Comparison(quantity, ours, published, verdict, note, source, ci, n,
                      final_in_quick=final_in_quick, kind="claim", quote=words, test=test)


def _provisional(c: Comparison) -> Comparison:
    if c.final_in_quick or c.verdict in ("not published", PROVISIONAL):
        return c
    return replace(c, verdict=PROVISIONAL, leaning=c.verdict)


@dataclass(frozen=True)
class ReproductionSpec:
    """A registered reproduction function and where it belongs."""

    key: str
    paper: str
    title: str
    func: Callable[..., Reproduction]


#: Every registered reproduction, by key, in registration order.
REGISTRY: dict[str, ReproductionSpec] = {}


def reproduction(key: str, paper: str, title: str) -> Callable:
    """Register a reproduction function ``f(*, quick=False, random_state=0) -> Reproduction``.

    The decorated function returns ``(comparisons, data, settings)``; the wrapper times it
    and fills in key, paper and title. In quick mode every verdict the quick run does not
    compute exactly as the full run becomes "provisional (quick)", keeping its leaning.

    Parameters
    ----------
    key : str
        Registry key, ``"<paper>/<figure or table>"``.
    paper : str
        Key of :data:`PAPERS`.
    title : str
        Which figure or table, and what it shows.

    Returns
    -------
    callable
        The decorator; the function it returns runs the reproduction and returns a
        :class:`Reproduction`, and is listed in :data:`REGISTRY`.

    Examples
    --------
    >>> from spectral_kit.reproduce import REGISTRY, compare, reproduction
    >>> @reproduction("wolf-shashua-2005/my-check", "wolf-shashua-2005", "A check of mine")
    ... def my_check(*, quick=False, random_state=0):
    ...     rows = [compare("one plus one", 1 + 1, 2, final_in_quick=True),
    ...             compare("a drawn value", 0.98, 1.0)]
    ...     return rows, {}, {"repeats": 10 if quick else 1000}
    >>> result = my_check(quick=True)
    >>> [c.verdict for c in result.comparisons]
    ['reproduced', 'provisional (quick)']
    >>> result.settings
    {'quick': True, 'random_state': 0, 'repeats': 10}
    >>> del REGISTRY["wolf-shashua-2005/my-check"]  # the registry lists the kit's own
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}; got {paper!r}.")

    def decorate(func: Callable[..., Reproduction]) -> Callable[..., Reproduction]:
        def run(*, quick: bool = False, random_state: int = 0, **kwargs: Any) -> Reproduction:
            start = time.perf_counter()
            out = func(quick=quick, random_state=random_state, **kwargs)
            comparisons, data, settings = out
            comparisons = tuple(comparisons)
            if quick:
                comparisons = tuple(_provisional(c) for c in comparisons)
            return Reproduction(
                key=key, paper=paper, title=title, comparisons=comparisons, data=data,
                seconds=time.perf_counter() - start,
                settings={"quick": quick, "random_state": random_state, **settings},
            )

        run.__name__ = func.__name__
        run.__qualname__ = func.__qualname__
        run.__doc__ = func.__doc__
        run.__module__ = func.__module__
        REGISTRY[key] = ReproductionSpec(key, paper, title, run)
        return run

    return decorate
