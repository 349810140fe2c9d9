"""Plots for kernel Q-α and side information (Shashua & Wolf 2004; Wolf & Shashua 2005,
Sec. 6). Each function draws onto a given Axes and returns the artists it made, so that an
explorer can update them in place."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NamedTuple

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.lines import Line2D
from matplotlib.patches import Ellipse, Patch
from matplotlib.text import Text

from ..validation import check_array, check_choice, check_finite_scalar, check_int
from ._checks import check_mapping, check_result

__all__ = [
    "TopographicArtists",
    "plot_alpha_structures",
    "plot_success_rates",
    "plot_topographic_map",
]

#: Default colours of feature groups (colour-blind safe, Okabe–Ito).
GROUP_COLORS = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9")
OTHER_COLOR = "#999999"


class TopographicArtists(NamedTuple):
    """Artists of :func:`plot_topographic_map`.

    Parameters
    ----------
    ellipses : list of Ellipse
        One ellipse per feature: its width and height are the feature's relevancies in
        the two rounds.
    points : PathCollection
        The features' centres.
    labels : list of Text
        The feature names written beside the centres (empty without names).

    Examples
    --------
    A feature of the first solution is wide and flat, a hybrid (here 1A) large in both
    directions:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit import topographic_map
    >>> from spectral_kit.datasets import make_topographic
    >>> from spectral_kit.plots import plot_topographic_map
    >>> data = make_topographic(random_state=0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_topographic_map(ax, topographic_map(data.M, k=2, random_state=0))
    >>> one, hybrid = artists.ellipses[0], artists.ellipses[6]
    >>> [round(float(size), 2) for size in (one.width, one.height, hybrid.width, hybrid.height)]
    [0.38, 0.01, 0.43, 0.27]
    >>> plt.close(fig)
    """

    ellipses: list[Ellipse]
    points: PathCollection
    labels: list[Text]


def _group_colors(
    n: int, groups: Mapping[str, np.ndarray] | None
) -> tuple[list[str], list[tuple[str, str]]]:
    colors = [OTHER_COLOR] * n
    legend = []
    if groups is not None:
        check_mapping(groups, "groups", "a group's name to its boolean mask")
    for (name, mask), color in zip((groups or {}).items(), GROUP_COLORS):
        m = np.asarray(mask, dtype=bool)
        if m.shape != (n,):
            raise ValueError(
                f"groups[{name!r}] must be a boolean mask of shape ({n},); got shape {m.shape}."
            )
        for i in np.flatnonzero(m):
            colors[i] = color
        legend.append((name, color))
    return colors, legend


def plot_topographic_map(
    ax: Axes,
    topo: object,
    *,
    rounds: tuple[int, int] = (0, 1),
    weights: str = "relevance",
    feature_names: Sequence[str] | None = None,
    groups: Mapping[str, np.ndarray] | None = None,
    max_axis: float = 0.6,
) -> TopographicArtists:
    """The topographical map of Shashua & Wolf (2004, Fig. 2b).

    Every feature sits at its coordinates of two rounds (the direction of its row in each
    round's MDS frame) and is drawn as an ellipse whose horizontal and vertical axes are its
    relevancies in those rounds: features of the first solution are wide, of the second tall,
    and features relevant to both (the hybrids) are large circles.

    Parameters
    ----------
    ax : matplotlib Axes
    topo : TopographicMap
        The result of :func:`spectral_kit.topographic_map` (at least two rounds).
    rounds : (int, int)
        Which rounds give the horizontal and vertical axes (0-based).
    weights : {"relevance", "alpha"}
        Ellipse axes from each round's G eigenvector (default) or from its α.
    feature_names : sequence of str, optional
        Labels written next to the features.
    groups : mapping of name → boolean mask, optional
        Colours feature groups (e.g. the two solution sets).
    max_axis : float
        Length (radians) of the largest ellipse axis.

    Returns
    -------
    TopographicArtists
        ``ellipses`` (one per feature), the centre ``points`` and the ``labels``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit import topographic_map
    >>> from spectral_kit.datasets import make_topographic
    >>> from spectral_kit.plots import plot_topographic_map
    >>> data = make_topographic(random_state=0)
    >>> topo = topographic_map(data.M, k=2, rounds=2, random_state=0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_topographic_map(
    ...     ax, topo, feature_names=data.feature_names,
    ...     groups={"1, 2, 3": data.first, "A, B, C": data.second, "hybrid": data.hybrid})
    >>> len(artists.ellipses), len(artists.labels), artists.labels[6].get_text()
    (20, 20, '1A')
    >>> plt.close(fig)
    """
    weights = check_choice(weights, "weights", ("relevance", "alpha"))
    check_result(topo, "topo", ("relevance", "alpha", "coordinates"),
                 "the result of spectral_kit.topographic_map")
    max_axis = check_finite_scalar(max_axis, "max_axis", low=0.0, low_inclusive=False)
    values = check_array(getattr(topo, weights), f"topo.{weights}")
    n_rounds, n = values.shape
    rx, ry = (check_int(r, f"rounds[{i}]") for i, r in enumerate(rounds))
    for name, r in (("rounds[0]", rx), ("rounds[1]", ry)):
        if not 0 <= r < n_rounds:
            raise ValueError(
                f"{name} must be a round index in [0, {n_rounds - 1}]; got {r}. The map needs "
                "a topographic_map result with at least two rounds."
            )
    x, y = topo.coordinates[:, rx], topo.coordinates[:, ry]
    w = np.clip(values[rx], 0.0, None)
    h = np.clip(values[ry], 0.0, None)
    scale = max_axis / max(float(max(w.max(), h.max())), 1e-300)
    colors, legend = _group_colors(n, groups)
    ellipses = []
    for i in range(n):
        e = Ellipse((x[i], y[i]), w[i] * scale, h[i] * scale, facecolor=colors[i],
                    edgecolor="black", alpha=0.45, linewidth=0.6)
        ax.add_patch(e)
        ellipses.append(e)
    points = ax.scatter(x, y, s=6, c="black", zorder=3)
    labels = []
    if feature_names is not None:
        if len(feature_names) != n:
            raise ValueError(
                f"feature_names has {len(feature_names)} names but the map has {n} features."
            )
        for i, name in enumerate(feature_names):
            labels.append(ax.annotate(str(name), (x[i], y[i]), xytext=(3, 3),
                                      textcoords="offset points"))
    if legend:
        ax.legend(handles=[Patch(color=c, alpha=0.6, label=name) for name, c in legend],
                  loc="best")
    pad = max_axis / 2 + 0.1
    ax.set_xlim(float(x.min()) - pad, float(x.max()) + pad)
    ax.set_ylim(float(y.min()) - pad, float(y.max()) + pad)
    ax.set_xlabel(f"round {rx + 1} coordinate (rad); width = {weights} in round {rx + 1}")
    ax.set_ylabel(f"round {ry + 1} coordinate (rad); height = {weights} in round {ry + 1}")
    ax.set_title("Topographical map of the features")
    return TopographicArtists(ellipses, points, labels)


def plot_success_rates(
    ax: Axes,
    lam_values: object,
    rates: Mapping[str, object],
    *,
    log_x: bool = True,
) -> list[Line2D]:
    """Success rate against the covariance parameter λ (Wolf & Shashua 2005, Fig. 6b).

    Parameters
    ----------
    ax : matplotlib Axes
    lam_values : array-like of shape (m,)
    rates : mapping of method name → array-like of shape (m,)
        Fraction of successful runs per λ, e.g. ``{"kernel Q-α": ..., "squared data": ...}``.
    log_x : bool
        Logarithmic λ axis.

    Returns
    -------
    list of Line2D
        One line per method, in the order of ``rates``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_success_rates
    >>> fig, ax = plt.subplots()
    >>> lines = plot_success_rates(ax, [0.01, 0.1, 1.0], {"kernel Q-α": [1.0, 0.9, 0.4],
    ...                                                   "squared data": [0.8, 0.5, 0.1]})
    >>> [line.get_label() for line in lines], ax.get_xscale()
    (['kernel Q-α', 'squared data'], 'log')
    >>> plt.close(fig)
    """
    lam = check_array(lam_values, "lam_values", ndim=1)
    check_mapping(rates, "rates", "a method's name to its success rates")
    if log_x and lam.min() <= 0:
        # a logarithmic axis would drop these points without a word
        raise ValueError(f"lam_values must be positive on the logarithmic λ axis; got "
                         f"{lam.min():g}. Pass log_x=False for a linear axis.")
    lines = []
    styles = ("-o", "--s", ":^", "-.d")
    for (name, values), style, color in zip(rates.items(), styles * 3, GROUP_COLORS):
        v = check_array(values, f"rates[{name!r}]", ndim=1)
        if v.shape != lam.shape:
            raise ValueError(
                f"rates[{name!r}] has {v.size} values but lam_values has {lam.size}."
            )
        (line,) = ax.plot(lam, v, style, color=color, label=name)
        lines.append(line)
    if log_x:
        ax.set_xscale("log")
    ax.set_ylim(-0.03, 1.03)
    ax.set_xlabel(r"covariance parameter $\lambda$")
    ax.set_ylabel(r"success rate ($\geq$ 10 of the top 12 relevant)")
    ax.legend(loc="best")
    return lines


def plot_alpha_structures(
    ax: Axes,
    alpha: object,
    groups: Mapping[str, np.ndarray],
    *,
    title: str | None = None,
) -> BarContainer:
    """α as bars coloured by the structure each feature belongs to.

    Parameters
    ----------
    ax : matplotlib Axes
    alpha : array-like of shape (n_features,)
    groups : mapping of name → boolean mask
        E.g. ``{"target": data.target, "nuisance": data.nuisance}``; other features are grey.
    title : str, optional

    Returns
    -------
    BarContainer
        One bar per feature; update with ``bar.set_height`` when α changes.

    Examples
    --------
    Plain Q-α on data with a target and a nuisance structure (Shashua & Wolf 2004,
    Sec. 3): the eight nuisance features (bars 4–11) carry the weight.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_two_structures
    >>> from spectral_kit.plots import plot_alpha_structures
    >>> data = make_two_structures(random_state=0)
    >>> alpha = q_alpha(data.M, k=2, random_state=0).alpha
    >>> fig, ax = plt.subplots()
    >>> bars = plot_alpha_structures(ax, alpha, {"target": data.target,
    ...                                          "nuisance": data.nuisance})
    >>> heights = np.array([bar.get_height() for bar in bars])
    >>> len(bars), int(np.argmax(heights)) in range(4, 12)
    (32, True)
    >>> plt.close(fig)
    """
    a = check_array(alpha, "alpha", ndim=1)
    colors, legend = _group_colors(a.size, groups)
    bars = ax.bar(np.arange(a.size), a, color=colors, width=0.85)
    handles = [Patch(color=c, label=name) for name, c in [*legend, ("other", OTHER_COLOR)]]
    ax.axhline(0.0, color="black", linewidth=0.6)
    ax.set_xlabel("feature")
    ax.set_ylabel(r"$\alpha_i$")
    ax.legend(handles=handles, loc="best")
    if title:
        ax.set_title(title)
    return bars
