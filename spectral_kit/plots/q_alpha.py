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
    """Artists of :func:`plot_positivity_curve`.

    ``update`` redraws the same artists for a new curve (new μ, σ or trials), which is
    what the positivity explorer does on every slider move.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    line : Line2D
        The estimated probability against n.
    band : PolyCollection
        The confidence band.
    marker : Line2D
        The point at the marked n.
    level : Line2D
        The horizontal reference level.
    label : Text
        The value at the marked n, as text.
    note : Text
        A free line of text under it (``update(..., title=...)``).
    auto_xlim : bool
        Fit the n axis to the sizes on every update.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_positivity_curve
    >>> from spectral_kit.theory import positivity_probability
    >>> fig, ax = plt.subplots()
    >>> sizes = [5, 10, 20, 40]
    >>> artists = plot_positivity_curve(
    ...     ax, positivity_probability(sizes, mu=1/6, sigma=2**0.5/6, trials=100))
    >>> res = positivity_probability(sizes, mu=1/6, sigma=1/6, trials=100)
    >>> artists.update(res.n, res.probability, res.lower, res.upper, current_n=20,
    ...                current_p=float(res.probability[2]))
    >>> artists.line.get_ydata().tolist(), artists.label.get_text()
    ([0.91, 0.99, 1.0, 1.0], '$n = 20$: $P = 1.000$')
    >>> plt.close(fig)
    """

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
        """Show a new curve (and mark ``current_n`` at ``current_p``), in place.

        Parameters
        ----------
        n : array-like of int
            The matrix sizes.
        probability, lower, upper : array-like
            The estimates and their interval at each size.
        current_n : int, optional
            The size to mark.
        current_p : float, optional
            The probability at ``current_n``.
        title : str, optional
            A line of text under the marked value.
        """
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
        The Axes to draw on.
    result : PositivityResult
        From :func:`spectral_kit.theory.positivity_probability`.
    current_n : int, optional
        Marks the probability at this n (must be one of ``result.n``).
    level : float
        Draws the horizontal line the paper's statements refer to (0.99).
    logx : bool
        A logarithmic n axis, labelled at 1-2-5 steps.

    Returns
    -------
    PositivityArtists
        The curve, its band, the marker, the level line and the texts.

    Examples
    --------
    The setting of Fig. 2a (μ = 1/6, σ = √2/6), marked at n = 20:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_positivity_curve
    >>> from spectral_kit.theory import positivity_probability
    >>> res = positivity_probability([5, 10, 20, 40], mu=1/6, sigma=2**0.5/6, trials=100)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_positivity_curve(ax, res, current_n=20)
    >>> type(artists).__name__, artists.label.get_text()
    ('PositivityArtists', '$n = 20$: $P = 0.990$')
    >>> plt.close(fig)
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
    """Artists of :func:`plot_eigenvector_entries`.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    stems : LineCollection
        One stem per entry, blue when positive, orange when negative.
    zero : Line2D
        The zero line.
    label : Text
        How many entries are negative.
    relative_x : bool
        Draw entry i of n at x = (i + ½)/n on a fixed [0, 1] axis.

    Examples
    --------
    ``update`` shows another eigenvector in place; with a larger mean (μ/σ = 1) it is
    same-sign:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_eigenvector_entries
    >>> from spectral_kit.theory import PositivitySampler
    >>> sampler = PositivitySampler(seed=0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_eigenvector_entries(ax, sampler.leading_eigenvector(30, 0.2))
    >>> artists.label.get_text()
    '9 of 30 entries negative'
    >>> artists.update(sampler.leading_eigenvector(30, 1.0))
    >>> artists.label.get_text()
    'all entries same-sign'
    >>> plt.close(fig)
    """

    ax: Axes
    stems: LineCollection
    zero: Line2D
    label: Text
    #: Draw entry i of n at x = (i + ½)/n on a fixed [0, 1] axis instead of at x = i (the
    #: axes then stay put when n changes; see :class:`AlphaBarsArtists`).
    relative_x: bool = False

    def update(self, v: np.ndarray) -> None:
        """Show the entries of another vector ``v`` (any length), in place.

        Parameters
        ----------
        v : array-like of shape (n,)
            A non-zero vector.
        """
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
    the uniform vector is at 1 whatever n (values beyond [−2, 3] are clipped).

    The picture behind Theorem 10 of Wolf & Shashua (2005): the leading eigenvector of a
    matrix with positive-mean entries is same-sign with high probability.

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    v : array-like of shape (n,)
        A non-zero vector, e.g. :meth:`~spectral_kit.theory.PositivitySampler.leading_eigenvector`.

    Returns
    -------
    EigenvectorArtists
        The stems, the zero line and the count of negative entries.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_eigenvector_entries
    >>> fig, ax = plt.subplots()
    >>> artists = plot_eigenvector_entries(ax, np.array([0.5, 0.5, 0.6, -0.2]))
    >>> len(artists.stems.get_segments()), artists.label.get_text()
    (4, '1 of 4 entries negative')
    >>> plt.close(fig)
    """
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
    """Artists of :func:`plot_alpha_bars`.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    bars : LineCollection
        One bar per feature, sorted by α, coloured by true relevance.
    bound_line : Line2D
        Lemma 13's bound ÷ n₂ (hidden without a bound).
    text : Text
        The sparsity gap, the bound and the count of α_i ≤ 0.
    legend_handles : list
        The legend's entries.
    relative_x : bool
        Draw bar i of n at x = (i + ½)/n on a fixed [0, 1] axis.

    Examples
    --------
    ``update`` without a gap or a bound clears the annotation and hides the bound line:

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_alpha_bars
    >>> fig, ax = plt.subplots()
    >>> artists = plot_alpha_bars(ax, np.array([0.1, 0.7, 0.7]), np.array([False, True, True]),
    ...                           gap=7.0)
    >>> artists.text.get_text()
    'sparsity gap $7.0$'
    >>> artists.update(np.array([0.3, 0.4, 0.5, 0.6]), np.array([False, False, True, True]))
    >>> len(artists.bars.get_segments()), artists.text.get_text(), artists.bound_line.get_visible()
    (4, '', False)
    >>> plt.close(fig)
    """

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
        """Show new weights (any number of features), in place.

        Parameters
        ----------
        alpha : array-like of shape (n_features,)
            The weights.
        relevant : array-like of bool, shape (n_features,)
            Mask of the truly relevant features.
        gap : float, optional
            The sparsity gap to print.
        bound : SparsityBound, optional
            Lemma 13 for this α; None hides the bound line.
        """
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

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    alpha : array-like of shape (n_features,)
        The weights.
    relevant : array-like of bool, shape (n_features,)
        Mask of the truly relevant features (drawn blue; the others grey).
    gap : float, optional
        The sparsity gap to print (:func:`spectral_kit.metrics.sparsity_gap`).
    bound : SparsityBound, optional
        Lemma 13 for this α (:func:`spectral_kit.theory.lemma13_bound`).

    Returns
    -------
    AlphaBarsArtists
        The bars, the bound line and the annotation.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.metrics import sparsity_gap
    >>> from spectral_kit.plots import plot_alpha_bars
    >>> from spectral_kit.theory import lemma13_bound
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> res = q_alpha(data.M, k=3, random_state=0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_alpha_bars(ax, res.alpha, data.relevant,
    ...                           gap=sparsity_gap(res.alpha, data.relevant),
    ...                           bound=lemma13_bound(data.M, data.relevant, res))
    >>> len(artists.bars.get_segments())
    125
    >>> print(artists.text.get_text())
    sparsity gap $22.3$
    irrelevant: $\\Sigma\\,\\alpha_i = 2.23 \\leq 11.74$ (Lemma 13)
    >>> plt.close(fig)
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
    """trace(QᵀA_α²Q) per iteration: Prop. 3 says it never decreases.

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    result : QAlphaResult
        A Q-α result (:func:`spectral_kit.q_alpha` and its variants), with its
        ``objective`` per iteration.

    Returns
    -------
    list of Line2D
        The one line drawn.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.plots import plot_objective_trace
    >>> data = make_multiclass_clusters(n_clusters=3, random_state=0)
    >>> res = q_alpha(data.M, k=3, random_state=0)
    >>> fig, ax = plt.subplots()
    >>> (line,) = plot_objective_trace(ax, res)
    >>> ax.get_title()
    '8 iterations, converged = True'
    >>> bool(np.all(np.diff(line.get_ydata()) >= -1e-12))
    True
    >>> plt.close(fig)
    """
    check_result(result, "result", ("objective", "n_iter", "converged"),
                 "a Q-α result (spectral_kit.q_alpha and its variants)")
    it = np.arange(1, len(result.objective) + 1)
    lines = ax.plot(it, result.objective, "-o", ms=3, color=POSITIVE)
    ax.set_xlabel("iteration")
    ax.set_ylabel(r"$\mathrm{tr}(Q^\top A_\alpha^2 Q)$")
    ax.set_title(f"{result.n_iter} iterations, converged = {result.converged}")
    return lines
