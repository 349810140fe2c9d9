"""Reproductions: our numbers beside the published ones, with a verdict.

Each reproduction is a function registered with :func:`reproduction`; it takes ``quick``
(a small version that finishes in seconds to a minute) and ``random_state``, and returns a
:class:`Reproduction`. Notebooks and ``spectral-kit reproduce`` only call these functions,
so the numbers in the report and in the notebooks are the same numbers.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

__all__ = [
    "PAPERS",
    "REGISTRY",
    "Comparison",
    "Reproduction",
    "ReproductionSpec",
    "compare",
    "reproduction",
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

VERDICTS = ("reproduced", "close", "differs", "not published")


@dataclass(frozen=True)
class Comparison:
    """One reported quantity: ours beside the published value.

    Attributes
    ----------
    quantity : str
        What is compared, in the paper's words (e.g. "sparsity gap, n_c = 3, median").
    ours, published : float, str or None
        Our value and the paper's (None when the paper gives no number).
    verdict : str
        One of "reproduced", "close", "differs", "not published".
    note : str
        Why a difference arises, or how the published value was read (e.g. from a figure).
    """

    quantity: str
    ours: Any
    published: Any
    verdict: str
    note: str = ""


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
        The raw numbers behind the comparisons (arrays, per-seed values), for plots.
    seconds : float
        Wall time of the computation.
    settings : dict
        The parameters it was run with (quick or full, seeds, repetitions).
    """

    key: str
    paper: str
    title: str
    comparisons: tuple[Comparison, ...]
    data: dict = field(default_factory=dict, repr=False)
    seconds: float = 0.0
    settings: dict = field(default_factory=dict)

    def to_markdown(self) -> str:
        """A Markdown table: quantity | ours | published | verdict | note."""
        lines = [
            f"### {self.title}",
            "",
            "| quantity | ours | published | verdict | note |",
            "|---|---|---|---|---|",
        ]
        for c in self.comparisons:
            lines.append(
                f"| {c.quantity} | {_fmt(c.ours)} | {_fmt(c.published)} | {c.verdict} | "
                f"{c.note} |"
            )
        return "\n".join(lines)

    def _repr_markdown_(self) -> str:
        return self.to_markdown()

    def __str__(self) -> str:
        rows = [(c.quantity, _fmt(c.ours), _fmt(c.published), c.verdict) for c in self.comparisons]
        widths = [max(len(r[i]) for r in [("quantity", "ours", "published", "verdict"), *rows])
                  for i in range(4)]
        out = [self.title]
        for r in [("quantity", "ours", "published", "verdict"), *rows]:
            out.append("  ".join(v.ljust(w) for v, w in zip(r, widths)))
        return "\n".join(out)


def _fmt(value: Any) -> str:
    if value is None:
        return "—"
    if isinstance(value, (float, np.floating)):
        return f"{value:.3g}" if abs(value) < 1e4 else f"{value:.3e}"
    return str(value)


def compare(
    quantity: str,
    ours: float,
    published: float | None,
    *,
    rtol: float = 0.1,
    close_rtol: float | None = None,
    atol: float = 0.0,
    at_least: bool = False,
    at_most: bool = False,
    note: str = "",
) -> Comparison:
    """Build a :class:`Comparison` with a verdict from tolerances.

    ``reproduced`` when ``|ours − published| ≤ atol + rtol·|published|`` (or, with
    ``at_least``/``at_most``, when ours is on the claimed side of a published bound);
    ``close`` within ``close_rtol`` (default 3·rtol); otherwise ``differs``.
    """
    if published is None:
        return Comparison(quantity, ours, None, "not published", note)
    close_rtol = 3 * rtol if close_rtol is None else close_rtol
    on_claimed_side = (at_least and ours >= published - atol) or (
        at_most and ours <= published + atol
    )
    if on_claimed_side or abs(ours - published) <= atol + rtol * abs(published):
        verdict = "reproduced"
    elif abs(ours - published) <= atol + close_rtol * abs(published):
        verdict = "close"
    else:
        verdict = "differs"
    return Comparison(quantity, ours, published, verdict, note)


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
    key, paper and title.
    """
    if paper not in PAPERS:
        raise ValueError(f"paper must be one of {sorted(PAPERS)}; got {paper!r}.")

    def decorate(func: Callable[..., Reproduction]) -> Callable[..., Reproduction]:
        def run(*, quick: bool = False, random_state: int = 0, **kwargs: Any) -> Reproduction:
            start = time.perf_counter()
            out = func(quick=quick, random_state=random_state, **kwargs)
            comparisons, data, settings = out
            return Reproduction(
                key=key, paper=paper, title=title, comparisons=tuple(comparisons), data=data,
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
