"""Reproductions: our numbers beside the published ones, with a verdict.

Each reproduction is a function registered with :func:`reproduction`; it takes ``quick``
(a small version that finishes in seconds to a minute) and ``random_state``, and returns a
:class:`Reproduction`. Notebooks and ``spectral-kit reproduce`` only call these functions,
so the numbers in the report and in the notebooks are the same numbers.

Every verdict follows the rules of :data:`VERDICT_RULES`, applied by :func:`compare` (a
number against a printed number or range) and :func:`compare_claim` (a measured difference
against a printed qualitative claim such as "A beats B").
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
    "PAPERS",
    "REGISTRY",
    "VERDICTS",
    "VERDICT_RULES",
    "Comparison",
    "Reproduction",
    "ReproductionSpec",
    "compare",
    "compare_claim",
    "mean_ci",
    "median_ci",
    "proportion_ci",
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

VERDICT_RULES = (
    "**Verdicts.** *Published* is the value printed in the paper, with its place (table, "
    'figure, section or equation); a value read off a curve says "read from Fig. N" and its '
    "reading error is part of the tolerance. *Ours* is a mean (or median, or rate) over the "
    "draws named in the settings, with its 95 % confidence interval in brackets when it rests"
    " on random draws (Student t for means, order statistics for medians, Wilson for rates, "
    "bootstrap redraws for an arg-min; for the outcome of a randomized algorithm run on a few"
    " seeds, the range over the seeds); a deterministic number has no interval. Each "
    "comparison states its tolerance band around the published value (absolute and/or "
    "relative, wider for a value printed to few digits or read off a figure; a printed range "
    'such as "around 5–10" is a band with two sides; a printed bound such as "at least 90 %" '
    "is a band with one side) and a wider *close* band. **reproduced**: the whole interval "
    "lies inside the tolerance band. **close**: the whole interval lies inside the close "
    "band, but not inside the tolerance band. **differs**: the whole interval lies outside "
    "the close band -- including where the printed value or formula is itself wrong; the note"
    " then gives the corrected value and the evidence. **inconclusive**: the interval "
    'straddles a band\'s edge, so more draws are needed to decide. A qualitative claim ("A '
    'beats B") is **reproduced** only when the 95 % interval of the difference over repeats '
    "lies wholly on the claimed side (the difference exceeds about two standard errors), "
    "**differs** when it lies wholly on the other side, and is **inconclusive** otherwise. "
    "**not published**: the paper prints no number or claim for this quantity. **provisional "
    "(quick)**: the row came from `--quick`, which draws fewer repeats than the full run; its"
    " leaning is shown, and only the full run (without `--quick`) gives the verdict. A row "
    "the quick run computes exactly as the full run does keeps its verdict."
)


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
        Where the published value is printed ("Table 2", "Sec. 3.2, text", "read from
        Fig. 3b, ±1").
    ci : tuple of float or None
        95 % confidence interval of ours over the draws, when it rests on random draws.
    n : int or None
        How many draws (repeats, data sets, splits) ours rests on.
    leaning : str or None
        For a provisional (quick) row, the verdict the quick draws point to.
    final_in_quick : bool
        True when quick mode computes this row exactly as full mode does, so its quick
        verdict is final.
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

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"verdict must be one of {VERDICTS}; got {self.verdict!r}.")

    @property
    def verdict_label(self) -> str:
        """The verdict as shown in tables (a provisional row shows its leaning)."""
        if self.verdict == PROVISIONAL and self.leaning:
            return f"{PROVISIONAL}, leans {self.leaning}"
        return self.verdict

    def cells(self) -> tuple[str, str, str, str, str]:
        """Plain-text cells: quantity, ours, published, verdict, note."""
        ours = _fmt(self.ours)
        if self.ci is not None:
            ours += f" [{_fmt(self.ci[0])}, {_fmt(self.ci[1])}]"
        if self.n is not None:
            ours += f" (n={self.n})"
        published = _fmt(self.published)
        if self.source:
            published += f" ({self.source})"
        return self.quantity, ours, published, self.verdict_label, self.note

    def to_dict(self) -> dict:
        """A JSON-ready dictionary (see :func:`Comparison.from_dict`)."""
        out = {
            "quantity": self.quantity, "ours": _jsonable(self.ours),
            "published": _jsonable(self.published), "verdict": self.verdict,
            "note": self.note, "source": self.source,
            "ci": None if self.ci is None else [float(v) for v in self.ci],
            "n": self.n, "leaning": self.leaning, "final_in_quick": self.final_in_quick,
        }
        return out

    @classmethod
    def from_dict(cls, d: dict) -> Comparison:
        published = d.get("published")
        if isinstance(published, list):
            published = tuple(published)
        ci = d.get("ci")
        return cls(
            quantity=d["quantity"], ours=d.get("ours"), published=published,
            verdict=d["verdict"], note=d.get("note", ""), source=d.get("source", ""),
            ci=None if ci is None else (float(ci[0]), float(ci[1])), n=d.get("n"),
            leaning=d.get("leaning"), final_in_quick=bool(d.get("final_in_quick", False)),
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
        """A Markdown table: quantity | ours | published | verdict | note (cells escaped)."""
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
            rows.append(
                "<tr>"
                f"<td style='text-align:left'>{e(quantity)}</td>"
                f"<td style='white-space:nowrap;text-align:right'>{e(ours)}</td>"
                f"<td style='white-space:nowrap;text-align:right'>{e(published)}</td>"
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
    """95 % Student-t interval of the mean of ``samples`` (infinite for fewer than 2)."""
    x = np.asarray(samples, dtype=np.float64).ravel()
    x = x[np.isfinite(x)]
    if x.size < 2:
        return (-math.inf, math.inf)
    half = _t_quantile(x.size - 1) * float(x.std(ddof=1)) / math.sqrt(x.size)
    m = float(x.mean())
    return (m - half, m + half)


def median_ci(samples: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Distribution-free 95 % interval of the median (order statistics, binomial)."""
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
    """95 % Wilson interval of a proportion."""
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
    samples: Sequence[float] | np.ndarray | None = None,
    ci: tuple[float, float] | None = None,
    n: int | None = None,
    final_in_quick: bool = False,
) -> Comparison:
    """Build a :class:`Comparison` with a verdict by the rules of :data:`VERDICT_RULES`.

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
    source : str
        Where the published value is printed.
    samples : array-like, optional
        Per-draw values whose mean is ``ours`` (``ours=None`` takes their mean).
    ci : (float, float), optional
        Our 95 % interval when ``ours`` is not a mean (e.g. :func:`median_ci`).
    n : int, optional
        Number of draws; defaults to ``len(samples)``.
    final_in_quick : bool
        Quick mode computes this row exactly as full mode does (its verdict is final).
    """
    if samples is not None:
        arr = np.asarray(samples, dtype=np.float64).ravel()
        if ours is None:
            ours = float(arr.mean()) if arr.size else float("nan")
        if ci is None:
            ci = mean_ci(arr)
        n = int(arr.size) if n is None else n
    ours = _plain(ours)
    if published is None:
        return Comparison(quantity, ours, None, "not published", note, source, ci, n,
                          final_in_quick=final_in_quick)
    close_rtol = 3 * rtol if close_rtol is None else close_rtol
    if isinstance(published, tuple):
        lo_p, hi_p = (float(v) for v in published)
        band = (lo_p - atol - rtol * abs(lo_p), hi_p + atol + rtol * abs(hi_p))
        close = (lo_p - atol - close_rtol * abs(lo_p), hi_p + atol + close_rtol * abs(hi_p))
    else:
        p = float(published)
        if at_least:
            band = (p - atol, math.inf)
            close = (p - atol - close_rtol * abs(p), math.inf)
        elif at_most:
            band = (-math.inf, p + atol)
            close = (-math.inf, p + atol + close_rtol * abs(p))
        else:
            band = (p - atol - rtol * abs(p), p + atol + rtol * abs(p))
            close = (p - atol - close_rtol * abs(p), p + atol + close_rtol * abs(p))
    value = float(ours)
    if math.isnan(value):
        verdict = "inconclusive"
        lo = hi = value
    else:
        lo, hi = (value, value) if ci is None else (float(ci[0]), float(ci[1]))
        verdict = _interval_verdict(lo, hi, band, close)
    if ci is not None:
        ci = (float(ci[0]), float(ci[1]))
    return Comparison(quantity, ours, _plain(published) if not isinstance(published, tuple)
                      else published, verdict, note, source, ci, n,
                      final_in_quick=final_in_quick)


def compare_claim(
    quantity: str,
    difference: float | Sequence[float] | np.ndarray,
    claim: str,
    *,
    margin: float = 0.0,
    side: str = "greater",
    ci: tuple[float, float] | None = None,
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
    """
    if side not in ("greater", "less"):
        raise ValueError(f"side must be 'greater' or 'less'; got {side!r}.")
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
    return Comparison(quantity, value, claim, verdict, note, source,
                      None if ci is None else (float(ci[0]), float(ci[1])), n,
                      final_in_quick=final_in_quick)


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

    The decorated function may return comparisons only; the wrapper times it and fills in
    key, paper and title. In quick mode every verdict the quick run does not compute exactly
    as the full run becomes "provisional (quick)", keeping its leaning.
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
