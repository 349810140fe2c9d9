"""Plots of variable weighting for PCA/FDA (Wolf & Bileschi 2005).

Each ``plot_*`` function draws onto a given Axes and returns a dict of its artists; the
matching ``update_*`` function changes those artists in place (``set_offsets``,
``set_height``, ``set_data``) and rescales the axes, so a widget can redraw at slider speed.
With ``normalize=True`` the projection and the spectrum are drawn in units that keep the
axes still (coordinates ÷ their largest magnitude, eigenvalues ÷ the top one), and
``rescale=False`` leaves the limits alone: a widget that blits its artists over a cached
background then never has to redraw the axes. Inputs are library results or plain arrays;
nothing here computes a weighting.

* :func:`plot_cluster_projection` -- samples on two components, coloured by cluster (Fig. 1 b–d);
* :func:`plot_variable_weights` -- the weight of every feature, relevant ones highlighted
  (Fig. 2);
* :func:`plot_spectrum_vs_bulk` -- eigenvalues of the kernel A beside the Wishart bulk edge
  and the predicted signal eigenvalue (Sec. 2);
* :func:`plot_detectability` -- the signal θ against the threshold ``1 + √(n₂/q)`` as the
  number of irrelevant features grows (Sec. 2).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.patches import StepPatch

from ..validation import (
    check_array,
    check_finite_scalar,
    check_int,
    check_labels,
    check_mask,
)
from ..weighting.detectability import critical_irrelevant
from ._checks import check_result, check_values

__all__ = [
    "plot_cluster_projection",
    "plot_detectability",
    "plot_spectrum_vs_bulk",
    "plot_variable_weights",
    "update_cluster_projection",
    "update_detectability",
    "update_spectrum_vs_bulk",
    "update_variable_weights",
]

#: Colour of relevant features in weight plots; irrelevant ones are grey.
RELEVANT_COLOR = "tab:red"
IRRELEVANT_COLOR = "0.6"
#: Half-width of the fixed box of normalised projections (coordinates lie in [−1, 1]).
PROJECTION_BOX = 1.08
#: Fixed eigenvalue range of a normalised spectrum: eigenvalues ÷ the top one lie in [0, 1];
#: the bulk edge and the predicted top eigenvalue of a drowned signal may lie a little beyond
#: the measured top eigenvalue.
RELATIVE_SPECTRUM_LIMITS = (-0.02, 1.15)


def _fit_limits(ax: Axes, x: np.ndarray, y: np.ndarray, pad: float = 0.08) -> None:
    for values, setter in ((x, ax.set_xlim), (y, ax.set_ylim)):
        finite = np.asarray(values, dtype=float)
        finite = finite[np.isfinite(finite)]
        if finite.size == 0:
            continue
        lo, hi = float(finite.min()), float(finite.max())
        span = hi - lo if hi > lo else max(abs(hi), 1.0)
        setter(lo - pad * span, hi + pad * span)


# ------------------------------------------------------------------------- projection


def plot_cluster_projection(
    ax: Axes,
    embedding: object,
    labels: object,
    *,
    title: str | None = None,
    cmap: str = "tab10",
    size: float = 18.0,
    normalize: bool = False,
) -> dict[str, Any]:
    """Samples on their first two components, coloured by cluster (Fig. 1 b–d).

    Parameters
    ----------
    ax : Axes
    embedding : array-like of shape (n_samples, ≥ 2)
        Coordinates, e.g. :attr:`spectral_kit.weighting.Projection.embedding`; the first
        two columns are drawn.
    labels : array-like of shape (n_samples,)
        Cluster or class of every sample.
    title : str, optional
    cmap : str
        Qualitative colormap for the clusters.
    size : float
        Marker area.
    normalize : bool
        Divide both coordinates by the largest ``|coordinate|`` of the two (one factor, so the
        spread along component 1 stays comparable with component 2) and show them in the
        fixed box ``[−1, 1]²`` (plus a margin, :data:`PROJECTION_BOX`) instead of limits fitted
        to the data. Principal coordinates have no unit of their own, so this changes
        nothing but the tick labels, and the axes then stay put as the data change.

    Returns
    -------
    dict
        ``{"points": PathCollection}``.

    Examples
    --------
    Fig. 1's data (σ = 0.1) on the first two components of PCA after Algo. 2's weighting:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.datasets import make_wolf_bileschi_fig1
    >>> from spectral_kit.plots import plot_cluster_projection
    >>> from spectral_kit.weighting import parameter_free_weights, weighted_pca
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> projection = weighted_pca(data.M, parameter_free_weights(data.M).alpha)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_cluster_projection(ax, projection.embedding, data.y, normalize=True)
    >>> artists["points"].get_offsets().shape, float(abs(artists["points"].get_offsets()).max())
    ((100, 2), 1.0)
    >>> plt.close(fig)
    """
    Z = _check_embedding(embedding)
    codes = _label_codes(labels, Z.shape[0])
    shown = _normalized_projection(Z) if normalize else Z[:, :2]
    points = ax.scatter(
        shown[:, 0], shown[:, 1], c=codes, cmap=cmap, vmin=0, vmax=9, s=size,
        edgecolors="none",
    )
    ax.set_xlabel("component 1")
    ax.set_ylabel("component 2")
    if title:
        ax.set_title(title)
    if normalize:
        ax.set_xlim(-PROJECTION_BOX, PROJECTION_BOX)
        ax.set_ylim(-PROJECTION_BOX, PROJECTION_BOX)
    else:
        _fit_limits(ax, shown[:, 0], shown[:, 1])
    return {"points": points}


def update_cluster_projection(
    artists: dict[str, Any],
    embedding: object,
    labels: object | None = None,
    *,
    normalize: bool = False,
    rescale: bool = True,
) -> None:
    """Move the points of :func:`plot_cluster_projection`; recolour them if labels are given.

    ``normalize`` scales the coordinates as in :func:`plot_cluster_projection`; with
    ``rescale=False`` the axes keep their limits (a caller that blits the points over a
    cached background sets the limits itself).

    Parameters
    ----------
    artists : dict
        What :func:`plot_cluster_projection` returned.
    embedding, normalize
        As in :func:`plot_cluster_projection`.
    labels : array-like of shape (n_samples,), optional
        New clusters; the colours stay when omitted.
    rescale : bool
        Fit the axes to the new points.

    Examples
    --------
    From the weighted projection to plain PCA, in the same fixed box:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.datasets import make_wolf_bileschi_fig1
    >>> from spectral_kit.plots import plot_cluster_projection, update_cluster_projection
    >>> from spectral_kit.weighting import parameter_free_weights, weighted_pca
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> weighted = weighted_pca(data.M, parameter_free_weights(data.M).alpha)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_cluster_projection(ax, weighted.embedding, data.y, normalize=True)
    >>> update_cluster_projection(artists, weighted_pca(data.M).embedding, normalize=True,
    ...                           rescale=False)
    >>> [round(float(x), 2) for x in ax.get_xlim()]
    [-1.08, 1.08]
    >>> plt.close(fig)
    """
    Z = _check_embedding(embedding)
    codes = None if labels is None else _label_codes(labels, Z.shape[0])
    shown = _normalized_projection(Z) if normalize else Z[:, :2]
    points = artists["points"]
    points.set_offsets(shown)
    if codes is not None:
        points.set_array(codes.astype(float))
    if rescale:
        _fit_limits(points.axes, shown[:, 0], shown[:, 1])


def _check_embedding(embedding: object) -> np.ndarray:
    """The samples' coordinates, at least two components each, finite."""
    Z = check_array(embedding, "embedding", rows_label="samples", cols_label="components")
    if Z.shape[1] < 2:
        raise ValueError(f"embedding must have shape (n_samples, ≥ 2); got {Z.shape}.")
    return Z


def _label_codes(labels: object, n_samples: int) -> np.ndarray:
    """Class labels as codes 0, 1, … (one per sample), for the colours."""
    arr = check_labels(labels, n_samples, "labels", min_classes=1)
    return np.unique(arr, return_inverse=True)[1]


def _normalized_projection(embedding: object) -> np.ndarray:
    """The first two columns of an embedding divided by their largest absolute value.

    One factor for both columns keeps their relative spread; an all-zero embedding is
    returned unchanged.
    """
    Z = np.asarray(embedding, dtype=float)[:, :2]
    finite = np.abs(Z[np.isfinite(Z)])
    largest = float(finite.max()) if finite.size else 0.0
    return Z / largest if largest > 0 else Z.copy()


# ------------------------------------------------------------------------ weights


def plot_variable_weights(
    ax: Axes,
    alpha: object,
    relevant: object | None = None,
    *,
    max_features: int | None = None,
    title: str | None = None,
) -> dict[str, Any]:
    """The weight of every feature as a bar, relevant features highlighted (Fig. 2).

    Parameters
    ----------
    ax : Axes
    alpha : array-like of shape (n_features,)
        Weights (α of a :class:`~spectral_kit.weighting.WeightingResult`, or ``|loadings|``).
    relevant : array-like of bool, optional
        Mask of the truly relevant features, drawn in :data:`RELEVANT_COLOR`.
    max_features : int, optional
        Show only the first features (Fig. 2 shows 50 of 203).
    title : str, optional

    Returns
    -------
    dict
        ``{"bars": BarContainer}``.

    Examples
    --------
    Algo. 2's weights on Fig. 1's data: the three relevant features stand out.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_fig1
    >>> from spectral_kit.plots import plot_variable_weights
    >>> from spectral_kit.weighting import parameter_free_weights
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)
    >>> alpha = parameter_free_weights(data.M).alpha
    >>> fig, ax = plt.subplots()
    >>> artists = plot_variable_weights(ax, alpha, data.relevant, max_features=50)
    >>> heights = [bar.get_height() for bar in artists["bars"]]
    >>> len(heights), np.round(heights[:4], 3)
    (50, array([0.203, 0.195, 0.209, 0.057]))
    >>> plt.close(fig)
    """
    a = check_values(alpha, "alpha")
    shown = a.size if max_features is None else min(
        check_int(max_features, "max_features", low=1), a.size)
    mask = (np.zeros(a.size, dtype=bool) if relevant is None
            else check_mask(relevant, "relevant", a.size))
    colors = [RELEVANT_COLOR if m else IRRELEVANT_COLOR for m in mask[:shown]]
    bars = ax.bar(np.arange(1, shown + 1), a[:shown], width=0.8, color=colors)
    ax.set_xlabel("feature")
    ax.set_ylabel("weight")
    ax.set_xlim(0.3, shown + 0.7)
    ax.set_ylim(min(0.0, float(a[:shown].min()) * 1.1), max(float(a[:shown].max()) * 1.1, 1e-12))
    if title:
        ax.set_title(title)
    return {"bars": bars}


def update_variable_weights(artists: dict[str, Any], alpha: object) -> None:
    """Set the bar heights of :func:`plot_variable_weights` to new weights.

    Parameters
    ----------
    artists : dict
        What :func:`plot_variable_weights` returned.
    alpha : array-like
        The new weights, at least as many as bars are shown (the first ones are drawn).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_variable_weights, update_variable_weights
    >>> fig, ax = plt.subplots()
    >>> artists = plot_variable_weights(ax, np.array([0.9, 0.1, 0.1, 0.1]), max_features=3)
    >>> update_variable_weights(artists, np.array([0.5, 0.5, 0.2, 0.2]))
    >>> [float(bar.get_height()) for bar in artists["bars"]]
    [0.5, 0.5, 0.2]
    >>> plt.close(fig)
    """
    a = check_values(alpha, "alpha")
    bars = artists["bars"]
    if a.size < len(bars.patches):
        raise ValueError(f"alpha has {a.size} weights but the plot shows {len(bars.patches)} "
                         "features.")
    shown = a[: len(bars.patches)]
    for patch, value in zip(bars.patches, shown):
        patch.set_height(value)
    ax = bars.patches[0].axes
    ax.set_ylim(min(0.0, float(shown.min()) * 1.1), max(float(shown.max()) * 1.1, 1e-12))


# ------------------------------------------------------------------------ spectrum


def plot_spectrum_vs_bulk(
    ax: Axes,
    eigenvalues: object,
    detect: Any,
    *,
    bins: int = 30,
    normalize: bool = False,
    log: bool = False,
    stairs: bool = False,
) -> dict[str, Any]:
    """Eigenvalues of the kernel A beside the Wishart bulk edge and the predicted top
    eigenvalue (Sec. 2).

    Parameters
    ----------
    ax : Axes
    eigenvalues : array-like
        Eigenvalues of ``A = MᵀM`` (or any sample of them).
    detect : Detectability
        From :func:`spectral_kit.weighting.detectability`: supplies the bulk edge
        ``(1/q)(√n₂ + √q)²`` (the mean top eigenvalue of a Wishart matrix), the paper's
        signal energy ``θ + n₂/q`` and the predicted top eigenvalue.
    bins : int
        Histogram bins.
    normalize : bool
        Divide the eigenvalues and the three lines by the largest eigenvalue: the bins then
        cover ``[0, 1]`` whatever the data (the eigenvalues of the positive semidefinite A
        are ≥ 0; round-off below 0 counts in the first bin), the measured top eigenvalue
        sits at 1, and the eigenvalue axis keeps the fixed limits
        :data:`RELATIVE_SPECTRUM_LIMITS` (a detectable signal shows as a bulk edge well left
        of 1; a drowned one as an edge at about 1). The count axis is fixed too, to the
        number of eigenvalues.
    log : bool
        Counts on a log axis: a rank-deficient A (fewer features than samples) has a spike
        of zero eigenvalues that would otherwise flatten the bulk and the lone top
        eigenvalue.
    stairs : bool
        Draw the histogram as one filled outline (:meth:`~matplotlib.axes.Axes.stairs`)
        instead of one bar per bin: the same picture as a single artist, which redraws
        tens of times faster.

    Returns
    -------
    dict
        ``{"hist": BarContainer, "edge": Line2D, "energy": Line2D, "top": Line2D}``; with
        ``stairs`` the histogram is a StepPatch.

    Examples
    --------
    The ideal case of Sec. 2 (θ = n₁ = 3 relevant, 200 noise features, q = 100): the
    measured top eigenvalue 5.73 is close to the predicted 6 and above the bulk edge 5.83
    of the noise alone.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_ideal
    >>> from spectral_kit.plots import plot_spectrum_vs_bulk
    >>> from spectral_kit.weighting import detectability, relevant_signal
    >>> data = make_wolf_bileschi_ideal(3, 200, 100, random_state=0)
    >>> detect = detectability(relevant_signal(data.M[data.relevant]), 200, 100)
    >>> eigenvalues = np.linalg.eigvalsh(data.M.T @ data.M)
    >>> [round(float(v), 2) for v in (eigenvalues[-1], detect.top_eigenvalue, detect.bulk_edge)]
    [5.73, 6.0, 5.83]
    >>> fig, ax = plt.subplots()
    >>> artists = plot_spectrum_vs_bulk(ax, eigenvalues, detect)
    >>> sorted(artists), round(float(artists["top"].get_xdata()[0]), 2)
    (['edge', 'energy', 'hist', 'top'], 6.0)
    >>> plt.close(fig)
    """
    w = check_values(eigenvalues, "eigenvalues")
    _check_detectability(detect)
    scale = _spectrum_scale(w) if normalize else 1.0
    shown, span = (_relative(w, scale), (0.0, 1.0)) if normalize else (w, None)
    hist: Any
    if stairs:
        counts, edges = np.histogram(shown, bins=bins, range=span)
        hist = ax.stairs(counts, edges, fill=True, color="0.7", label="eigenvalues of $A$")
        if log:
            ax.set_yscale("log", nonpositive="clip")
    else:
        _, _, hist = ax.hist(
            shown, bins=bins, range=span, log=log, color="0.7", label="eigenvalues of $A$"
        )
    edge = ax.axvline(detect.bulk_edge / scale, color="k", ls="--", label="Wishart bulk edge")
    energy = ax.axvline(
        detect.signal_energy / scale, color="tab:blue", ls=":", label=r"$\theta + n_2/q$ (paper)"
    )
    top = ax.axvline(detect.top_eigenvalue / scale, color=RELEVANT_COLOR, label="predicted top")
    ax.set_xlabel("eigenvalue ÷ top eigenvalue" if normalize else "eigenvalue")
    ax.set_ylabel("count")
    if normalize:
        ax.set_xlim(*RELATIVE_SPECTRUM_LIMITS)
        ax.set_ylim(*_count_limits(w.size, log))
    ax.legend(loc="upper right")
    return {"hist": hist, "edge": edge, "energy": energy, "top": top}


def update_spectrum_vs_bulk(
    artists: dict[str, Any],
    eigenvalues: object,
    detect: Any,
    *,
    normalize: bool = False,
    rescale: bool = True,
) -> None:
    """Redraw the histogram heights (same bins, rescaled range) and move the three lines.

    ``normalize`` divides by the top eigenvalue as in :func:`plot_spectrum_vs_bulk` (the
    bins then stay on ``[0, 1]``); with ``rescale=False`` the axes keep their limits.

    Parameters
    ----------
    artists : dict
        What :func:`plot_spectrum_vs_bulk` returned.
    eigenvalues, detect, normalize
        As in :func:`plot_spectrum_vs_bulk`.
    rescale : bool
        Fit the axes to the new values.

    Examples
    --------
    With 400 noise features instead of 200 the bulk edge moves up to the top eigenvalue:

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.datasets import make_wolf_bileschi_ideal
    >>> from spectral_kit.plots import plot_spectrum_vs_bulk, update_spectrum_vs_bulk
    >>> from spectral_kit.weighting import detectability
    >>> def spectrum(n_irrelevant):
    ...     data = make_wolf_bileschi_ideal(3, n_irrelevant, 100, random_state=0)
    ...     return np.linalg.eigvalsh(data.M.T @ data.M), detectability(3.0, n_irrelevant, 100)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_spectrum_vs_bulk(ax, *spectrum(200), normalize=True)
    >>> update_spectrum_vs_bulk(artists, *spectrum(400), normalize=True)
    >>> round(float(artists["edge"].get_xdata()[0]), 2)
    0.97
    >>> plt.close(fig)
    """
    w = check_values(eigenvalues, "eigenvalues")
    _check_detectability(detect)
    hist = artists["hist"]
    if normalize:
        scale = _spectrum_scale(w)
        lo, hi = 0.0, 1.0
        shown = _relative(w, scale)
    else:
        scale = 1.0
        lo = min(float(w.min()), detect.bulk_edge)
        hi = max(float(w.max()), detect.top_eigenvalue, detect.signal_energy)
        shown = w
    if isinstance(hist, StepPatch):
        counts, edges = np.histogram(shown, bins=len(hist.get_data().values), range=(lo, hi))
        hist.set_data(counts, edges)
    else:
        counts, edges = np.histogram(shown, bins=len(hist.patches), range=(lo, hi))
        for patch, count, left, right in zip(hist.patches, counts, edges[:-1], edges[1:]):
            patch.set_x(left)
            patch.set_width(right - left)
            patch.set_height(count)
    for key, value in (
        ("edge", detect.bulk_edge), ("energy", detect.signal_energy),
        ("top", detect.top_eigenvalue),
    ):
        artists[key].set_xdata([value / scale, value / scale])
    if not rescale:
        return
    ax = artists["edge"].axes
    log = ax.get_yscale() == "log"
    if normalize:
        ax.set_xlim(*RELATIVE_SPECTRUM_LIMITS)
    else:
        span = hi - lo if hi > lo else 1.0
        ax.set_xlim(lo - 0.05 * span, hi + 0.05 * span)
    ax.set_ylim(*_count_limits(max(int(counts.max()), 1), log))


def _check_detectability(detect: Any) -> None:
    check_result(detect, "detect", ("bulk_edge", "signal_energy", "top_eigenvalue"),
                 "the result of spectral_kit.weighting.detectability")


def _spectrum_scale(w: np.ndarray) -> float:
    """The top eigenvalue, the unit of a normalised spectrum (1 for an all-zero one)."""
    top = float(np.max(w)) if w.size else 0.0
    return top if top > 0 else 1.0


def _relative(w: np.ndarray, scale: float) -> np.ndarray:
    """Eigenvalues ÷ the top one, on [0, 1]: the eigenvalues of a positive semidefinite
    kernel are ≥ 0, and the round-off that makes zero ones slightly negative must not drop
    them from the first bin."""
    return np.clip(w / scale, 0.0, 1.0)


def _count_limits(largest: int, log: bool) -> tuple[float, float]:
    """Count-axis limits that show bars up to ``largest`` (and single counts on a log axis)."""
    return (0.7, 1.5 * largest) if log else (0.0, 1.1 * largest)


# -------------------------------------------------------------------- detectability


def plot_detectability(
    ax: Axes,
    signal: float,
    n_samples: int,
    n_irrelevant: int,
    *,
    n_irrelevant_max: int | None = None,
) -> dict[str, Any]:
    """Signal θ against the detectability threshold as irrelevant features are added.

    Draws ``1 + √(n₂/q)`` (the phase transition) and the paper's ``1 + 2√(n₂/q)`` over n₂,
    a horizontal line at θ and a marker at the current n₂: PCA sees the relevant structure
    while θ is above the solid curve.

    Parameters
    ----------
    ax : Axes
    signal : float
        θ (see :func:`spectral_kit.weighting.relevant_signal`).
    n_samples : int
        q.
    n_irrelevant : int
        Current n₂, marked on the curve.
    n_irrelevant_max : int, optional
        Right end of the n₂ axis; default ``max(4 n₂, 2 q(θ − 1)²)``.

    Returns
    -------
    dict
        ``{"threshold": Line2D, "paper": Line2D, "signal": Line2D, "current": Line2D}``.

    Examples
    --------
    θ = 3 on q = 100 samples with n₂ = 200: the threshold is ``1 + √2``, below θ.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_detectability
    >>> fig, ax = plt.subplots()
    >>> artists = plot_detectability(ax, 3.0, 100, 200)
    >>> round(float(artists["current"].get_ydata()[0]), 4), round(1 + float(np.sqrt(2)), 4)
    (2.4142, 2.4142)
    >>> plt.close(fig)
    """
    crit = critical_irrelevant(signal, n_samples)  # checks signal and n_samples
    q = float(n_samples)
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    right = (float(max(4 * n_irrelevant, 10, min(2.0 * crit, 1e300)))
             if n_irrelevant_max is None
             else check_int(n_irrelevant_max, "n_irrelevant_max", low=1))
    n2 = np.linspace(0.0, float(right), 200)
    (threshold,) = ax.plot(n2, 1 + np.sqrt(n2 / q), color="k", label=r"$1 + \sqrt{n_2/q}$")
    (paper,) = ax.plot(
        n2, 1 + 2 * np.sqrt(n2 / q), color="k", ls="--", label=r"paper: $1 + 2\sqrt{n_2/q}$"
    )
    sig = ax.axhline(float(signal), color=RELEVANT_COLOR, label=r"signal $\theta$")
    (current,) = ax.plot(
        [n_irrelevant], [1 + np.sqrt(n_irrelevant / q)], "o", color=RELEVANT_COLOR
    )
    ax.set_xlabel("irrelevant features $n_2$")
    ax.set_ylabel("eigenvalue scale")
    ax.set_xlim(0, right)
    ax.set_ylim(0.0, 1.1 * max(float(signal), float(1 + 2 * np.sqrt(right / q))))
    ax.legend(loc="upper left")
    return {"threshold": threshold, "paper": paper, "signal": sig, "current": current}


def update_detectability(
    artists: dict[str, Any],
    signal: float,
    n_samples: int,
    n_irrelevant: int,
    *,
    rescale: bool = True,
) -> None:
    """Move the θ line and the current-n₂ marker; redraw the curves for a new q.

    With ``rescale=False`` the axes keep their limits.

    Parameters
    ----------
    artists : dict
        What :func:`plot_detectability` returned.
    signal, n_samples, n_irrelevant
        As in :func:`plot_detectability`; ``n_irrelevant`` is the new current n₂.
    rescale : bool
        Fit the vertical axis to the new values.

    Examples
    --------
    At n₂ = 400 = q(θ − 1)² a signal θ = 3 sits exactly on the threshold ``1 + √(n₂/q)``:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_detectability, update_detectability
    >>> fig, ax = plt.subplots()
    >>> artists = plot_detectability(ax, 3.0, 100, 200)
    >>> update_detectability(artists, 3.0, 100, 400)
    >>> float(artists["current"].get_ydata()[0])
    3.0
    >>> plt.close(fig)
    """
    signal = check_finite_scalar(signal, "signal", low=0.0)
    q = float(check_int(n_samples, "n_samples", low=1))
    n_irrelevant = check_int(n_irrelevant, "n_irrelevant", low=0)
    n2 = artists["threshold"].get_xdata()
    artists["threshold"].set_ydata(1 + np.sqrt(n2 / q))
    artists["paper"].set_ydata(1 + 2 * np.sqrt(n2 / q))
    artists["signal"].set_ydata([signal, signal])
    artists["current"].set_data([n_irrelevant], [1 + np.sqrt(n_irrelevant / q)])
    if not rescale:
        return
    ax = artists["threshold"].axes
    top = max(float(signal), float(np.max(1 + 2 * np.sqrt(n2 / q))))
    ax.set_ylim(0.0, 1.1 * top)
