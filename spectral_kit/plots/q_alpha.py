"""Plots of Q-α's positivity and sparsity (Wolf & Shashua 2005, Sec. 4, Figs. 2–3).

Each ``plot_*`` function draws onto a given Axes and returns an artists object whose
``update(...)`` changes the same artists in place, which is what the explorers call on every
slider move.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection, PolyCollection
from matplotlib.lines import Line2D
from matplotlib.text import Text
from matplotlib.ticker import FixedLocator, FormatStrFormatter, NullFormatter

from ..validation import check_array, check_finite_scalar
from ._checks import check_result
from ._style import IRRELEVANT, NEGATIVE, POSITIVE, RELEVANT

__all__ = [
    "AlphaBarsArtists",
    "EigenvectorArtists",
    "PositivityArtists",
    "plot_alpha_bars",
    "plot_eigenvector_entries",
    "plot_objective_trace",
    "plot_positivity_curve",
]


def _band_vertices(x: np.ndarray, lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    return np.concatenate([np.c_[x, lo], np.c_[x[::-1], hi[::-1]]])


@dataclass
class PositivityArtists:
    """Artists of :func:`plot_positivity_curve`."""

    ax: Axes
    line: Line2D
    band: PolyCollection
    marker: Line2D
    level: Line2D
    label: Text
    note: Text
    auto_xlim: bool = True

    def update(
        self,
        n: np.ndarray,
        probability: np.ndarray,
        lower: np.ndarray,
        upper: np.ndarray,
        *,
        current_n: int | None = None,
        current_p: float | None = None,
        title: str | None = None,
    ) -> None:
        self.line.set_data(n, probability)
        self.band.set_verts([_band_vertices(np.asarray(n, float), lower, upper)])
        if current_n is not None and current_p is not None:
            self.marker.set_data([current_n], [current_p])
            self.label.set_text(f"$n = {current_n}$: $P = {current_p:.3f}$")
        if title is not None:
            self.note.set_text(title)
        if self.auto_xlim and len(n):
            xlim = (max(1.0, float(np.min(n)) * 0.9), float(np.max(n)) * 1.1)
            if tuple(np.round(self.ax.get_xlim(), 9)) != tuple(np.round(xlim, 9)):
                self.ax.set_xlim(*xlim)


def plot_positivity_curve(
    ax: Axes,
    result: object,
    *,
    current_n: int | None = None,
    level: float = 0.99,
    logx: bool = True,
) -> PositivityArtists:
    """Probability that the leading eigenvector is same-sign, against n (Fig. 2a).

    Parameters
    ----------
    ax : Axes
    result : PositivityResult
        From :func:`spectral_kit.theory.positivity_probability`.
    current_n : int, optional
        Marks the probability at this n (must be one of ``result.n``).
    level : float
        Draws the horizontal line the paper's statements refer to (0.99).
    """
    check_result(result, "result", ("n", "probability", "lower", "upper", "confidence"),
                 "the result of spectral_kit.theory.positivity_probability")
    n = np.asarray(result.n, dtype=float)
    if current_n is not None and not np.any(result.n == current_n):
        raise ValueError(
            f"current_n={current_n!r} is not one of result.n ({np.asarray(result.n).tolist()}); "
            "mark one of the sizes that were simulated, or pass current_n=None."
        )
    (line,) = ax.plot(n, result.probability, "-o", color=POSITIVE, ms=3, lw=1.5,
                      label="$P$(leading eigenvector same-sign)")
    band = PolyCollection([_band_vertices(n, result.lower, result.upper)], color=POSITIVE,
                          alpha=0.2, lw=0, label=f"{result.confidence:.0%} interval")
    ax.add_collection(band)
    level_line = ax.axhline(level, color="0.4", lw=0.8, ls="--", label=f"{level:g}")
    (marker,) = ax.plot([], [], "o", color=NEGATIVE, ms=7, zorder=5)
    label = ax.text(0.03, 0.5, "", transform=ax.transAxes, color=NEGATIVE)
    note = ax.text(0.03, 0.4, "", transform=ax.transAxes, color="0.3")
    if logx:
        ax.set_xscale("log")
        # Plain numbers at 1-2-5 steps: a log axis spanning less than a decade would
        # otherwise label its minor ticks and crowd them.
        ax.xaxis.set_major_locator(FixedLocator([1, 2, 5, 10, 20, 50, 100, 200, 500, 1000,
                                                 2000, 5000]))
        ax.xaxis.set_major_formatter(FormatStrFormatter("%d"))
        ax.xaxis.set_minor_formatter(NullFormatter())
    ax.set_ylim(-0.02, 1.05)
    ax.set_xlabel("$n$ (matrix size)")
    ax.set_ylabel("probability")
    ax.legend(loc="lower right", frameon=False)
    artists = PositivityArtists(ax, line, band, marker, level_line, label, note)
    idx = None if current_n is None else np.flatnonzero(result.n == current_n)
    artists.update(
        result.n, result.probability, result.lower, result.upper, current_n=current_n,
        current_p=None if idx is None or idx.size == 0 else float(result.probability[idx[0]]),
    )
    return artists


@dataclass
class EigenvectorArtists:
    """Artists of :func:`plot_eigenvector_entries`."""

    ax: Axes
    stems: LineCollection
    zero: Line2D
    label: Text
    #: Draw entry i of n at x = (i + ½)/n on a fixed [0, 1] axis instead of at x = i (the
    #: axes then stay put when n changes; see :class:`AlphaBarsArtists`).
    relative_x: bool = False

    def update(self, v: np.ndarray) -> None:
        v = check_array(v, "v", ndim=1)
        if not np.any(v):
            raise ValueError("v must be a non-zero vector (an eigenvector has norm 1).")
        # √n·v puts every size on one scale: 1 is the uniform vector 1/√n.
        entries = np.sort(v * np.sqrt(v.size))[::-1]
        if self.relative_x:
            x = (np.arange(entries.size) + 0.5) / entries.size
        else:
            x = np.arange(entries.size)
            if self.ax.get_xlim() != (-1.0, float(max(entries.size, 2))):
                self.ax.set_xlim(-1.0, float(max(entries.size, 2)))
        self.stems.set_segments(np.stack([np.c_[x, np.zeros_like(entries)],
                                          np.c_[x, np.clip(entries, -2.0, 3.0)]], axis=1))
        self.stems.set_color([POSITIVE if e > 0 else NEGATIVE for e in entries])
        self.stems.set_linewidth(max(0.6, min(3.0, 200.0 / max(entries.size, 1))))
        negatives = int((entries < 0).sum())
        self.label.set_text(
            "all entries same-sign" if negatives in (0, entries.size)
            else f"{negatives} of {entries.size} entries negative"
        )


def plot_eigenvector_entries(ax: Axes, v: np.ndarray) -> EigenvectorArtists:
    """Entries of one leading eigenvector, sorted, coloured by sign, scaled by √n so that
    the uniform vector is at 1 whatever n (values beyond [−2, 3] are clipped)."""
    stems = LineCollection([], lw=2.5)
    ax.add_collection(stems)
    zero = ax.axhline(0, color="0.3", lw=0.8)
    ax.axhline(1, color="0.6", lw=0.8, ls=":")
    label = ax.text(0.98, 0.95, "", transform=ax.transAxes, ha="right", va="top")
    ax.set_ylim(-2.0, 3.0)
    ax.set_xlabel("entry (sorted)")
    ax.set_ylabel(r"$\sqrt{n}\,\cdot$ entry")
    artists = EigenvectorArtists(ax, stems, zero, label)
    artists.update(v)
    return artists


@dataclass
class AlphaBarsArtists:
    """Artists of :func:`plot_alpha_bars`."""

    ax: Axes
    bars: LineCollection
    bound_line: Line2D
    text: Text
    legend_handles: list = field(default_factory=list)
    #: Draw bar i of n at x = (i + ½)/n on a fixed [0, 1] axis instead of at x = i, so that
    #: the axes do not change with the number of features (an explorer then redraws only
    #: the bars over a cached background).
    relative_x: bool = False

    def update(
        self,
        alpha: np.ndarray,
        relevant: np.ndarray,
        *,
        gap: float | None = None,
        bound: object | None = None,
    ) -> None:
        alpha = check_array(alpha, "alpha", ndim=1)
        relevant = np.asarray(relevant, dtype=bool)
        if relevant.shape != alpha.shape:
            raise ValueError(
                f"relevant must mark each of the {alpha.size} weights (a boolean mask of the "
                f"length of alpha); got shape {relevant.shape}."
            )
        if gap is not None:
            gap = check_finite_scalar(gap, "gap")
        order = np.argsort(-alpha, kind="stable")
        a = alpha[order]
        rel = relevant[order]
        if self.relative_x:
            x = (np.arange(a.size) + 0.5) / a.size
            left, right = 0.0, 1.0
        else:
            x = np.arange(a.size)
            left, right = -1, a.size
            self.ax.set_xlim(left, right)
        self.bars.set_segments(np.stack([np.c_[x, np.zeros_like(a)], np.c_[x, a]], axis=1))
        self.bars.set_color([RELEVANT if r else IRRELEVANT for r in rel])
        self.bars.set_linewidth(max(0.6, min(4.0, 300.0 / max(a.size, 1))))
        self.ax.set_ylim(min(0.0, float(a.min()) * 1.1), float(a.max()) * 1.12)
        lines = []
        if gap is not None:
            lines.append(f"sparsity gap ${gap:.1f}$")
        if bound is not None:
            lines.append(
                rf"irrelevant: $\Sigma\,\alpha_i = {bound.observed:.2f} \leq {bound.bound:.2f}$ "
                "(Lemma 13)"
            )
            # The bound on the mean irrelevant weight, drawn where the bars can be compared.
            mean_bound = bound.bound / max(bound.n_irrelevant, 1)
            self.bound_line.set_data([left, right], [mean_bound, mean_bound])
            self.bound_line.set_visible(True)
        else:
            self.bound_line.set_visible(False)
        if not bool(np.all(alpha > 0)):
            lines.append(rf"{int(np.sum(alpha <= 0))} $\alpha_i \leq 0$")
        self.text.set_text("\n".join(lines))


def plot_alpha_bars(
    ax: Axes,
    alpha: np.ndarray,
    relevant: np.ndarray,
    *,
    gap: float | None = None,
    bound: object | None = None,
) -> AlphaBarsArtists:
    """Sorted α as bars coloured by true relevance, annotated with the sparsity gap and
    Lemma 13's bound (Fig. 2b / Fig. 3b of Wolf & Shashua 2005).

    The dashed line is Lemma 13's bound divided by the number of irrelevant features: no
    irrelevant weight can be above it *on average*.
    """
    bars = LineCollection([], lw=2)
    ax.add_collection(bars)
    (bound_line,) = ax.plot([], [], ls="--", color="0.35", lw=1)
    text = ax.text(0.98, 0.95, "", transform=ax.transAxes, ha="right", va="top")
    handles = [
        Line2D([], [], color=RELEVANT, lw=4, label="relevant"),
        Line2D([], [], color=IRRELEVANT, lw=4, label="irrelevant"),
        Line2D([], [], color="0.35", ls="--", label="Lemma 13 bound / $n_2$"),
    ]
    ax.legend(handles=handles, loc="center right", frameon=False)
    ax.set_xlabel(r"feature (sorted by $\alpha$)")
    ax.set_ylabel(r"$\alpha_i$")
    artists = AlphaBarsArtists(ax, bars, bound_line, text, handles)
    artists.update(alpha, relevant, gap=gap, bound=bound)
    return artists


def plot_objective_trace(ax: Axes, result: object) -> list[Line2D]:
    """trace(QᵀA_α²Q) per iteration: Prop. 3 says it never decreases."""
    check_result(result, "result", ("objective", "n_iter", "converged"),
                 "a Q-α result (spectral_kit.q_alpha and its variants)")
    it = np.arange(1, len(result.objective) + 1)
    lines = ax.plot(it, result.objective, "-o", ms=3, color=POSITIVE)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"$\mathrm{tr}(Q^\top A_\alpha^2 Q)$")
    ax.set_title(f"{result.n_iter} iterations, converged = {result.converged}")
    return lines
