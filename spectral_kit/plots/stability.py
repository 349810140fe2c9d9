"""Plots for stability based sparse LSI/PCA (Mavroeidis & Vazirgiannis).

Each function draws onto a given Axes and returns a small artists object whose ``update``
method changes the drawing in place (heights, offsets, image data), so that an explorer can
redraw cheaply with ``fig.canvas.draw_idle()``; with ``rescale=False`` the updaters keep the
axes limits, for a caller that blits the artists over a cached background.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PathCollection
from matplotlib.container import BarContainer
from matplotlib.image import AxesImage
from matplotlib.lines import Line2D
from matplotlib.patches import Rectangle
from matplotlib.ticker import MaxNLocator

from ..stability.interlacing import lemma1_distance_bound
from ..validation import check_array, check_finite_scalar, check_int
from ._checks import check_result, check_values

__all__ = [
    "BootstrapHistogramArtists",
    "EigengapArtists",
    "IntervalWidthArtists",
    "PerturbationArtists",
    "StewartArtists",
    "TrajectoryArtists",
    "plot_bootstrap_histogram",
    "plot_eigengaps",
    "plot_interval_widths",
    "plot_perturbation_distances",
    "plot_sbs_trajectory",
    "plot_stewart_bound",
]

STABLE_COLOR = "tab:green"
UNSTABLE_COLOR = "tab:gray"
THRESHOLD_COLOR = "tab:red"


def _descending(values: Any) -> np.ndarray:
    return np.sort(check_values(values, "eigenvalues", min_size=2))[::-1]


def _stable_set(stable_ks: Any, n_gaps: int) -> set[int]:
    """The k of ``stable_ks`` as a set, each an integer in [1, n_gaps]."""
    ks = np.asarray(list(stable_ks) if not isinstance(stable_ks, np.ndarray) else stable_ks)
    if ks.size and ks.dtype.kind not in "iu":
        raise TypeError(f"stable_ks must hold integers k (1-based); got dtype {ks.dtype}.")
    ks = ks.astype(int).ravel()
    if ks.size and (ks.min() < 1 or ks.max() > n_gaps):
        raise ValueError(f"stable_ks must hold k in [1, {n_gaps}] (one per eigengap); got "
                         f"{ks.min()} … {ks.max()}.")
    return {int(k) for k in ks}


@dataclass(frozen=True)
class EigengapArtists:
    """Bars of the eigengaps, the 4·λ₁(E) line, and the Axes they live in.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    bars : list of Rectangle
        One bar per eigengap, green for a stable k.
    threshold : Line2D
        The threshold ``4·λ₁(E)``.

    Examples
    --------
    With a higher threshold no k is stable and every bar turns grey:

    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.colors import to_hex
    >>> from spectral_kit.plots import plot_eigengaps
    >>> fig, ax = plt.subplots()
    >>> artists = plot_eigengaps(ax, [5.0, 3.0, 1.0, 0.8], threshold=1.0)
    >>> artists.update([5.0, 3.0, 1.0, 0.8], threshold=2.5)
    >>> [to_hex(bar.get_facecolor()) for bar in artists.bars]
    ['#7f7f7f', '#7f7f7f', '#7f7f7f']
    >>> plt.close(fig)
    """

    ax: Axes
    bars: list[Rectangle]
    threshold: Line2D

    def update(
        self, eigenvalues: Any, threshold: float, stable_ks: Any = None, *,
        rescale: bool = True,
    ) -> None:
        """Show new eigenvalues / threshold; bars are recoloured, re-created if n changed.

        With ``rescale=False`` the axes keep their limits (a caller that blits the artists
        over a cached background sets them once), and a threshold above the top limit is
        drawn just inside the top edge (the caller should say so: the line then does not
        show its value).

        Parameters
        ----------
        eigenvalues, threshold, stable_ks
            As in :func:`plot_eigengaps`.
        rescale : bool
            Fit the axes to the new values.
        """
        gaps = -np.diff(_descending(eigenvalues))
        threshold = check_finite_scalar(threshold, "threshold")
        if stable_ks is None:
            stable_ks = np.flatnonzero(gaps > threshold) + 1
        stable = _stable_set(stable_ks, gaps.size)
        if len(self.bars) != gaps.size:
            for rect in self.bars:
                rect.remove()
            self.bars[:] = self.ax.bar(np.arange(1, gaps.size + 1), gaps, width=0.8).patches
        for i, (rect, gap) in enumerate(zip(self.bars, gaps), start=1):
            rect.set_height(gap)
            rect.set_facecolor(STABLE_COLOR if i in stable else UNSTABLE_COLOR)
        if not rescale:
            bottom, top = self.ax.get_ylim()
            # Just inside the edge: on it, the spine would hide the line.
            edge = top - 0.01 * (top - bottom)
            shown = edge if float(threshold) > top else float(threshold)
            self.threshold.set_ydata([shown, shown])
            return
        self.threshold.set_ydata([threshold, threshold])
        top = max(float(gaps.max(initial=0.0)), float(threshold)) * 1.1 or 1.0
        self.ax.set_xlim(0.3, gaps.size + 0.7)
        self.ax.set_ylim(0.0, top)


def plot_eigengaps(
    ax: Axes, eigenvalues: Any, threshold: float, stable_ks: Any = None
) -> EigengapArtists:
    """Eigengaps ``λₖ − λₖ₊₁`` of A against Lemma 1's threshold ``4·λ₁(E)``.

    A bar above the line is a stable k (its top-k eigenvector space cannot move far under
    the bootstrap perturbation); stable bars are drawn in green.

    This is Lemma 1 of Mavroeidis & Vazirgiannis (Sec. 4.2): the top-k eigenvector space
    of A is stable when ``λ_k − λ_{k+1} > 4‖E‖₂`` (``‖E‖₂ = λ₁(E)``).

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    eigenvalues : array-like
        Eigenvalues of A (any order).
    threshold : float
        ``4·λ₁(E)``.
    stable_ks : iterable of int, optional
        Defaults to the k whose gap exceeds the threshold.

    Returns
    -------
    EigengapArtists
        The bars (one per k) and the threshold line.

    Examples
    --------
    The gaps of 5, 3, 1, 0.8 are 2, 2 and 0.2: k = 1 and 2 pass a threshold of 1.

    >>> import matplotlib.pyplot as plt
    >>> from matplotlib.colors import to_hex
    >>> from spectral_kit.plots import plot_eigengaps
    >>> fig, ax = plt.subplots()
    >>> artists = plot_eigengaps(ax, [5.0, 3.0, 1.0, 0.8], threshold=1.0)
    >>> [round(float(bar.get_height()), 2) for bar in artists.bars]
    [2.0, 2.0, 0.2]
    >>> [to_hex(bar.get_facecolor()) == to_hex("tab:green") for bar in artists.bars]
    [True, True, False]
    >>> plt.close(fig)
    """
    gaps = -np.diff(_descending(eigenvalues))
    threshold = check_finite_scalar(threshold, "threshold")
    _stable_set(() if stable_ks is None else stable_ks, gaps.size)
    bars = ax.bar(np.arange(1, gaps.size + 1), gaps, width=0.8, color=UNSTABLE_COLOR)
    line = ax.axhline(threshold, color=THRESHOLD_COLOR, linestyle="--", label=r"$4\lambda_1(E)$")
    ax.set_xlabel("$k$")
    ax.set_ylabel(r"eigengap $\lambda_k - \lambda_{k+1}$")
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper right")
    artists = EigengapArtists(ax, list(bars.patches), line)
    artists.update(eigenvalues, threshold, stable_ks)
    return artists


@dataclass(frozen=True)
class StewartArtists:
    """Stewart's bound per k, the observed distances per resample and their maximum.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    bound : Line2D
        The bound per k (capped at 1).
    observed : PathCollection
        One point per resample and k.
    worst : Line2D
        The largest observed distance per k.

    Examples
    --------
    A bound above 1 is drawn at 1 (a distance never exceeds 1):

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_stewart_bound
    >>> fig, ax = plt.subplots()
    >>> artists = plot_stewart_bound(ax, [1, 2, 3], [0.2, 0.3, 0.6], [0.05, 0.3, 0.2])
    >>> artists.update([1, 2, 3], [0.1, 0.2, 1.5], [0.02, 0.1, 0.4])
    >>> artists.bound.get_ydata().tolist()
    [0.1, 0.2, 1.0]
    >>> plt.close(fig)
    """

    ax: Axes
    bound: Line2D
    observed: PathCollection
    worst: Line2D

    def update(self, ks: Any, bounds: Any, observed: Any, *, rescale: bool = True) -> None:
        """Show new bounds and distances; with ``rescale=False`` the axes keep their limits.

        Parameters
        ----------
        ks, bounds, observed
            As in :func:`plot_stewart_bound`.
        rescale : bool
            Fit the k axis to the new values.
        """
        ks_arr, bound_arr, obs = _stewart_arrays(ks, bounds, observed)
        self.bound.set_data(ks_arr, np.minimum(bound_arr, 1.0))
        jitter = np.linspace(-0.15, 0.15, obs.shape[0]) if obs.shape[0] > 1 else np.zeros(1)
        xs = (ks_arr[None, :] + jitter[:, None]).ravel()
        self.observed.set_offsets(np.column_stack([xs, obs.ravel()]))
        self.worst.set_data(ks_arr, obs.max(axis=0))
        if rescale:
            self.ax.set_xlim(ks_arr.min() - 0.5, ks_arr.max() + 0.5)


def _stewart_arrays(ks: Any, bounds: Any, observed: Any) -> tuple[np.ndarray, ...]:
    ks_arr = check_values(ks, "ks")
    bound_arr = np.array(
        [np.nan if b is None else float(b) for b in np.ravel(np.asarray(bounds, dtype=object))]
    )
    # NaN is a gap: a bound where the theorem's conditions fail, a distance of a resample
    # still being drawn (the explorers draw progressively)
    obs = np.atleast_2d(np.asarray(observed, dtype=float))
    if np.isinf(obs).any():
        raise ValueError("observed must hold distances in [0, 1] (NaN for one not drawn "
                         "yet); got an infinite value.")
    if obs.shape[1] != ks_arr.size and obs.shape[0] == ks_arr.size:
        obs = obs.T
    if bound_arr.size != ks_arr.size or obs.shape[1] != ks_arr.size:
        raise ValueError(
            f"bounds and observed must have one value (column) per k; got {bound_arr.size} "
            f"bounds and observed of shape {obs.shape} for {ks_arr.size} k."
        )
    return ks_arr, bound_arr, obs


def plot_stewart_bound(ax: Axes, ks: Any, bounds: Any, observed: Any) -> StewartArtists:
    """Stewart's distance bound ``2‖E₂₁‖/δ`` beside the subspace distances observed.

    Parameters
    ----------
    ax : Axes
    ks : array-like of int
        Subspace dimensions.
    bounds : array-like of float or None
        The bound for each k; None (or NaN) where the theorem's conditions fail -- drawn as a
        gap in the line. Bounds above 1 say nothing (a distance never exceeds 1) and are
        drawn at 1.
    observed : array-like of shape (B, len(ks)) or (len(ks),)
        Distances between the top-k eigenspaces of A and of each resampled matrix; NaN for
        a resample not drawn yet.

    Returns
    -------
    StewartArtists
        The bound line, the observed points and their maximum per k.

    Notes
    -----
    Stewart's theorem as stated by Mavroeidis & Vazirgiannis (Sec. 2.3, Theorem 1).

    Examples
    --------
    Two resamples, three k; where the theorem does not apply (k = 2) the line has a gap:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_stewart_bound
    >>> fig, ax = plt.subplots()
    >>> artists = plot_stewart_bound(ax, [1, 2, 3], [0.2, None, 0.6],
    ...                              [[0.05, 0.3, 0.2], [0.1, 0.5, 0.3]])
    >>> artists.bound.get_ydata().tolist(), artists.worst.get_ydata().tolist()
    ([0.2, nan, 0.6], [0.1, 0.5, 0.3])
    >>> plt.close(fig)
    """
    ks_arr, bound_arr, obs = _stewart_arrays(ks, bounds, observed)
    (bound,) = ax.plot(ks_arr, np.minimum(bound_arr, 1.0), "o-", color=THRESHOLD_COLOR,
                       label=r"Stewart bound $2\Vert E_{21}\Vert/\delta$")
    observed_pts = ax.scatter([], [], s=6, alpha=0.3, color="tab:blue",
                              label="observed, each resample")
    (worst,) = ax.plot([], [], "_", markersize=14, color="tab:blue", label="largest observed")
    ax.set_xlabel("$k$ (dimension of the top-$k$ eigenvector space)")
    ax.set_ylabel(r"$\mathrm{dist}(\mathcal{R}(V_1), \mathcal{R}(V_1'))$")
    ax.set_ylim(0.0, 1.05)
    ax.legend(loc="upper left")
    artists = StewartArtists(ax, bound, observed_pts, worst)
    artists.update(ks_arr, bound_arr, obs)
    return artists


@dataclass(frozen=True)
class IntervalWidthArtists:
    """The heat map of interval widths.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    image : AxesImage
        ``upper − lower``, one pixel per entry.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_interval_widths
    >>> fig, ax = plt.subplots()
    >>> artists = plot_interval_widths(ax, np.zeros((2, 2)), np.ones((2, 2)))
    >>> artists.update(np.eye(2), np.eye(2) + [[0.5, 0.1], [0.1, 0.2]])
    >>> artists.image.get_array().tolist(), artists.image.get_clim()
    ([[0.5, 0.1], [0.1, 0.2]], (0.0, 0.5))
    >>> plt.close(fig)
    """

    ax: Axes
    image: AxesImage

    def update(self, lower: Any, upper: Any) -> None:
        """Show the widths of new intervals (same shape), in place.

        Parameters
        ----------
        lower, upper : array-like of shape (n_features, n_features)
            The bounds of every entry's interval, ``lower ≤ upper``.
        """
        width = _interval_width(lower, upper)
        self.image.set_data(width)
        self.image.set_clim(0.0, float(width.max()) or 1.0)


def _interval_width(lower: Any, upper: Any) -> np.ndarray:
    """``upper − lower`` of square interval matrices of one shape, lower ≤ upper."""
    lower, upper = check_array(lower, "lower"), check_array(upper, "upper")
    if lower.shape != upper.shape or lower.shape[0] != lower.shape[1]:
        raise ValueError(f"lower and upper must be square matrices of one shape; got "
                         f"{lower.shape} and {upper.shape}.")
    width = upper - lower
    if width.min() < 0:
        raise ValueError("lower must not exceed upper (an interval is [lower, upper]); "
                         "were the two swapped?")
    return width


def plot_interval_widths(
    ax: Axes, lower: Any, upper: Any, *, feature_names: Any = None, cmap: str = "viridis"
) -> IntervalWidthArtists:
    """Width ``upper − lower`` of every entry's confidence interval, as an image.

    Wide rows are the features whose similarities/covariances are least accurate -- those
    Algorithm 1 removes first.

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    lower, upper : array-like of shape (n_features, n_features)
        The bounds of every entry's interval (e.g. ``BootstrapIntervals.lower`` and
        ``.upper``), ``lower ≤ upper``.
    feature_names : sequence of str, optional
        Tick labels of the rows and columns.
    cmap : str
        The colour map.

    Returns
    -------
    IntervalWidthArtists
        The image.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_interval_widths
    >>> lower = np.array([[1.0, 0.2], [0.2, 2.0]])
    >>> upper = np.array([[1.5, 0.4], [0.4, 2.1]])
    >>> fig, ax = plt.subplots()
    >>> artists = plot_interval_widths(ax, lower, upper, feature_names=["a", "b"])
    >>> np.round(artists.image.get_array(), 3).tolist()
    [[0.5, 0.2], [0.2, 0.1]]
    >>> plt.close(fig)
    """
    width = _interval_width(lower, upper)
    image = ax.imshow(width, cmap=cmap, vmin=0.0, vmax=float(width.max()) or 1.0,
                      interpolation="nearest")
    if feature_names is not None:
        names = [str(n) for n in feature_names]
        ax.set_xticks(range(len(names)), names, rotation=90)
        ax.set_yticks(range(len(names)), names)
    ax.set_title("confidence interval width")
    return IntervalWidthArtists(ax, image)


@dataclass(frozen=True)
class TrajectoryArtists:
    """Largest eigengap and threshold along Algorithm 1's removals.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    gap : Line2D
        The largest eigengap of A′ per removal.
    threshold : Line2D
        ``4·λ₁(E′)`` per removal.
    stable : Line2D
        The steps with a stable k.

    Examples
    --------
    ``update`` draws the trajectory of another run on the same artists:

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_sbs_trajectory
    >>> from spectral_kit.stability import sbs
    >>> rng = np.random.default_rng(1)
    >>> z = rng.normal(size=(200, 1))
    >>> X = np.hstack([z + 0.1 * rng.normal(size=(200, 3)), rng.normal(size=(200, 2))])
    >>> fig, ax = plt.subplots()
    >>> artists = plot_sbs_trajectory(ax, sbs(X, n_resamples=100, random_state=0))
    >>> artists.gap.get_xdata().tolist(), artists.stable.get_xdata().tolist()
    ([0.0, 1.0, 2.0, 3.0], [])
    >>> artists.update(sbs(X[:, :3], n_resamples=100, random_state=0))
    >>> artists.gap.get_xdata().tolist(), artists.stable.get_xdata().tolist()
    ([0.0], [0.0])
    >>> plt.close(fig)
    """

    ax: Axes
    gap: Line2D
    threshold: Line2D
    stable: Line2D

    def update(self, result: Any) -> None:
        """Show the trajectory of another :class:`~spectral_kit.stability.SbSResult`.

        Parameters
        ----------
        result : SbSResult
            From :func:`spectral_kit.stability.sbs`.
        """
        removed, gap, thr, stable = _trajectory_arrays(result)
        self.gap.set_data(removed, gap)
        self.threshold.set_data(removed, thr)
        self.stable.set_data(removed[stable], gap[stable])
        self.ax.relim()
        self.ax.autoscale_view()


def _trajectory_arrays(result: Any) -> tuple[np.ndarray, ...]:
    check_result(result, "result", ("A", "trajectory"),
                 "the result of spectral_kit.stability.sbs")
    p = result.A.shape[0]
    steps = [s for s in result.trajectory if s.eigenvalues is not None]
    removed = np.array([p - s.n_features for s in steps], dtype=float)
    gap = np.array([float(s.eigengaps.max(initial=0.0)) for s in steps])
    thr = np.array([s.threshold for s in steps], dtype=float)
    stable = np.array([bool(s.stable_ks) for s in steps], dtype=bool)
    return removed, gap, thr, stable


def plot_sbs_trajectory(ax: Axes, result: Any) -> TrajectoryArtists:
    """Along Algorithm 1: the largest eigengap of A′ against ``4·λ₁(E′)``, per removal.

    ``result`` is an :class:`~spectral_kit.stability.SbSResult` (run with the default
    ``full_trajectory=True`` to see every step). Steps with a stable k are marked.

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    result : SbSResult
        From :func:`spectral_kit.stability.sbs` (Algorithm 1 of Mavroeidis &
        Vazirgiannis, Sec. 4.3).

    Returns
    -------
    TrajectoryArtists
        The gap and threshold lines and the stable steps.

    Examples
    --------
    One latent direction in four features, and three noisy features: after the noisy
    features are removed the largest gap clears the threshold.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_sbs_trajectory
    >>> from spectral_kit.stability import sbs
    >>> rng = np.random.default_rng(0)
    >>> latent = rng.normal(size=(300, 1))
    >>> X = np.hstack([latent + 0.1 * rng.normal(size=(300, 4)),
    ...                1.5 * rng.normal(size=(300, 3))])
    >>> result = sbs(X, retain=0.5, n_resamples=200, random_state=0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_sbs_trajectory(ax, result)
    >>> np.round(artists.gap.get_ydata(), 2), np.round(artists.threshold.get_ydata(), 2)
    (array([2.02, 2.02, 2.13, 4.16]), array([4.98, 3.94, 3.  , 2.18]))
    >>> artists.stable.get_xdata().tolist()
    [3.0]
    >>> plt.close(fig)
    """
    removed, gap, thr, stable = _trajectory_arrays(result)
    (gap_line,) = ax.plot(removed, gap, "o-", color="tab:blue", label=r"largest eigengap of $A'$")
    (thr_line,) = ax.plot(removed, thr, "--", color=THRESHOLD_COLOR, label=r"$4\lambda_1(E')$")
    (stable_pts,) = ax.plot(removed[stable], gap[stable], "o", color=STABLE_COLOR,
                            markersize=9, label="stable $k$ exists")
    ax.set_xlabel("features removed")
    ax.set_ylabel("eigengap")
    ax.legend(loc="best")
    return TrajectoryArtists(ax, gap_line, thr_line, stable_pts)


@dataclass(frozen=True)
class BootstrapHistogramArtists:
    """Histogram of one entry's bootstrap values and its estimate/interval lines.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    bars : BarContainer
        One bar per bin.
    estimate, lower, upper : Line2D
        Vertical lines at the estimate and at the interval's ends.
    bins : ndarray
        The bin edges, kept by ``update``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_bootstrap_histogram
    >>> rng = np.random.default_rng(0)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_bootstrap_histogram(ax, rng.normal(0.5, 0.1, 500), 0.5, 0.34, 0.66,
    ...                                    bins=20, value_range=(0.0, 1.0))
    >>> artists.update(rng.normal(0.6, 0.1, 500), 0.6, 0.44, 0.76)
    >>> len(artists.bins), artists.estimate.get_xdata()
    (21, [0.6, 0.6])
    >>> plt.close(fig)
    """

    ax: Axes
    bars: BarContainer
    estimate: Line2D
    lower: Line2D
    upper: Line2D
    bins: np.ndarray

    def update(self, values: Any, estimate: float, lower: float, upper: float) -> None:
        """Show new bootstrap values and interval, on the same bins.

        Parameters
        ----------
        values, estimate, lower, upper
            As in :func:`plot_bootstrap_histogram`.
        """
        vals, estimate, lower, upper = _histogram_inputs(values, estimate, lower, upper)
        counts, _ = np.histogram(vals, bins=self.bins)
        for rect, count in zip(self.bars, counts):
            rect.set_height(count)
        for line, x in ((self.estimate, estimate), (self.lower, lower), (self.upper, upper)):
            line.set_xdata([x, x])
        self.ax.set_ylim(0, max(1, int(counts.max())) * 1.1)


def _histogram_inputs(values: Any, estimate: Any, lower: Any,
                      upper: Any) -> tuple[np.ndarray, float, float, float]:
    vals = check_values(values, "values")
    estimate = check_finite_scalar(estimate, "estimate")
    lower = check_finite_scalar(lower, "lower")
    upper = check_finite_scalar(upper, "upper")
    if lower > upper:
        raise ValueError(f"lower ({lower:g}) must not exceed upper ({upper:g}): an interval "
                         "is [lower, upper]; were the two swapped?")
    return vals, estimate, lower, upper


def plot_bootstrap_histogram(
    ax: Axes, values: Any, estimate: float, lower: float, upper: float, *,
    bins: Any = 30, value_range: tuple[float, float] | None = None,
) -> BootstrapHistogramArtists:
    """Bootstrap values of one similarity/covariance with its estimate and interval.

    ``bins``/``value_range`` fix the bin edges, which later updates keep. The interval is
    one entry of the bootstrap confidence intervals of Mavroeidis & Vazirgiannis
    (Sec. 4.1).

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    values : array-like
        The entry's value in every bootstrap resample.
    estimate : float
        The entry's value on the data.
    lower, upper : float
        The ends of its interval, ``lower ≤ upper``.
    bins : int or array-like
        Number of bins or their edges (as :func:`numpy.histogram`).
    value_range : (float, float), optional
        The range the bins cover.

    Returns
    -------
    BootstrapHistogramArtists
        The bars, the three vertical lines and the bin edges.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_bootstrap_histogram
    >>> values = np.random.default_rng(0).normal(0.5, 0.1, 500)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_bootstrap_histogram(ax, values, 0.5, 0.34, 0.66, bins=20,
    ...                                    value_range=(0.0, 1.0))
    >>> int(sum(bar.get_height() for bar in artists.bars)), artists.lower.get_xdata()
    (500, [0.34, 0.34])
    >>> plt.close(fig)
    """
    vals, estimate, lower, upper = _histogram_inputs(values, estimate, lower, upper)
    counts, edges = np.histogram(vals, bins=bins, range=value_range)
    bars = ax.bar(edges[:-1], counts, width=np.diff(edges), align="edge", color="tab:blue",
                  alpha=0.6, label="bootstrap values")
    est = ax.axvline(estimate, color="black", label="estimate")
    low = ax.axvline(lower, color=THRESHOLD_COLOR, linestyle="--", label="interval")
    high = ax.axvline(upper, color=THRESHOLD_COLOR, linestyle="--")
    ax.set_ylabel("resamples")
    ax.legend(loc="upper left")
    return BootstrapHistogramArtists(ax, bars, est, low, high, edges)


@dataclass(frozen=True)
class PerturbationArtists:
    """Per resample ‖A*_b − A‖₂ against the distance moved, Stewart's curve and ‖E‖₂.

    Attributes
    ----------
    ax : Axes
        The Axes drawn on.
    points : PathCollection
        One point per resample.
    curve : Line2D
        The bound ``2ε/(gap − 2ε)`` on ε ∈ [0, gap/4].
    limit : Line2D
        The vertical line ε = gap/4.
    norm_E : Line2D
        The vertical line ε = ‖E‖₂.
    stewart_E : Line2D
        Theorem 1's bound for A + E (a star; empty without one).

    Examples
    --------
    A new k moves the curve and the limit; here the gap at k = 2 is 1, so ε = 1/4:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_perturbation_distances
    >>> fig, ax = plt.subplots()
    >>> artists = plot_perturbation_distances(ax, [0.1, 0.3], [0.1, 0.2], [4.0, 2.0, 1.0],
    ...                                       1, norm_E=0.35)
    >>> artists.update([0.1, 0.3], [0.1, 0.2], [4.0, 2.0, 1.0], 2, norm_E=0.35)
    >>> artists.limit.get_xdata()
    [0.25, 0.25]
    >>> plt.close(fig)
    """

    ax: Axes
    points: PathCollection
    curve: Line2D
    limit: Line2D
    norm_E: Line2D
    stewart_E: Line2D

    def update(
        self, perturbation_norms: Any, distances: Any, eigenvalues: Any, k: int,
        norm_E: float, stewart_E: float | None = None, *, rescale: bool = True,
    ) -> None:
        """Redraw for new resamples, spectrum, k or ‖E‖₂ (artists changed in place).

        With ``rescale=False`` the axes keep their limits, and what lies beyond them is not
        seen. Stewart's curve depends on the spectrum through the gap at k only, so a caller
        that divides ``perturbation_norms``, ``eigenvalues`` and ``norm_E`` by that gap gets
        the same curve ``2u/(1 − 2u)`` on u ∈ [0, 1/4) for every state and can fix the
        limits once.

        Parameters
        ----------
        perturbation_norms, distances, eigenvalues, k, norm_E, stewart_E
            As in :func:`plot_perturbation_distances` (``stewart_E=None`` hides the star).
        rescale : bool
            Fit the ε axis to the new values.
        """
        norms, dist = _perturbation_arrays(perturbation_norms, distances)
        eps, bound, quarter = _stewart_curve(eigenvalues, k)
        self.points.set_offsets(np.column_stack([norms, dist]))
        self.curve.set_data(eps, bound)
        self.limit.set_xdata([quarter, quarter])
        self.norm_E.set_xdata([norm_E, norm_E])
        if stewart_E is None:
            self.stewart_E.set_data([], [])
        else:
            self.stewart_E.set_data([norm_E], [min(float(stewart_E), 1.0)])
        if not rescale:
            return
        right = max(float(norms.max(initial=0.0)), float(norm_E), quarter)
        self.ax.set_xlim(0.0, 1.08 * right if right > 0 else 1.0)


def _perturbation_arrays(norms: Any, distances: Any) -> tuple[np.ndarray, np.ndarray]:
    n = np.asarray(norms, dtype=float).ravel()
    d = np.asarray(distances, dtype=float).ravel()
    if n.size != d.size:
        raise ValueError(
            "perturbation_norms and distances must have one value per resample; got "
            f"{n.size} and {d.size}."
        )
    return n, d


def _stewart_curve(eigenvalues: Any, k: int, points: int = 48) -> tuple[np.ndarray, ...]:
    """ε ↦ 2ε/(λ_k − λ_{k+1} − 2ε) on [0, gap/4), closed by the trivial value 1 at gap/4."""
    lam = _descending(eigenvalues)
    k = check_int(k, "k", low=1, high=lam.size - 1)
    quarter = max(float(lam[k - 1] - lam[k]), 0.0) / 4
    if quarter == 0.0:
        return np.empty(0), np.empty(0), 0.0
    eps = quarter * np.linspace(0.0, 1.0, points)[:-1]
    bound = [lemma1_distance_bound(lam, e, k) for e in eps]
    return np.append(eps, quarter), np.append(np.array(bound, dtype=float), 1.0), quarter


def plot_perturbation_distances(
    ax: Axes, perturbation_norms: Any, distances: Any, eigenvalues: Any, k: int,
    norm_E: float, stewart_E: float | None = None,
) -> PerturbationArtists:
    """Stewart's theorem at one k, as a function of the size of the perturbation.

    For every perturbation F with ``‖F‖₂ = ε < (λ_k − λ_{k+1})/4`` the top-k eigenvector
    space moves by at most ``2ε/(λ_k − λ_{k+1} − 2ε)`` (Theorem 1 with the estimates of the
    proof of Lemma 1; :func:`~spectral_kit.stability.lemma1_distance_bound`). Each bootstrap
    resample is a point (‖A*_b − A‖₂, distance moved), and every point left of the dotted
    line ε = gap/4 lies under the curve. The dashed line is ``‖E‖₂ = λ₁(E)`` from the
    confidence intervals: k is stable (Lemma 1) exactly when it lies left of the dotted line.

    Parameters
    ----------
    ax : Axes
        The Axes to draw on.
    perturbation_norms : array-like of shape (B,)
        ``‖A*_b − A‖₂`` of each resample.
    distances : array-like of shape (B,)
        ``dist(range V₁, range V₁*)`` of the top-k spaces of A and A*_b.
    eigenvalues : array-like
        Eigenvalues of A (any order).
    k : int
        Dimension of the eigenvector space, 1 ≤ k < len(eigenvalues).
    norm_E : float
        ``‖E‖₂``.
    stewart_E : float, optional
        Theorem 1's bound ``2‖E₂₁‖/δ`` for A + E itself, drawn as a star at ε = ‖E‖₂.

    Returns
    -------
    PerturbationArtists
        The resample points, the curve, the two vertical lines and the star.

    Examples
    --------
    Eigenvalues 4, 2, 1 and k = 1: the gap is 2, so the curve ends at ε = 1/2, where the
    bound reaches 1, and at ε = 1/4 it is ``2·(1/4)/(2 − 1/2) = 1/3``:

    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_perturbation_distances
    >>> from spectral_kit.stability import lemma1_distance_bound
    >>> fig, ax = plt.subplots()
    >>> artists = plot_perturbation_distances(ax, [0.1, 0.3], [0.1, 0.2], [4.0, 2.0, 1.0],
    ...                                       1, norm_E=0.35, stewart_E=0.5)
    >>> artists.limit.get_xdata(), float(artists.curve.get_ydata()[-1])
    ([0.5, 0.5], 1.0)
    >>> round(lemma1_distance_bound([4.0, 2.0, 1.0], 0.25, 1), 4)
    0.3333
    >>> plt.close(fig)
    """
    norms, dist = _perturbation_arrays(perturbation_norms, distances)
    points = ax.scatter(norms, dist, s=6, alpha=0.35, color="tab:blue", label="resamples")
    (curve,) = ax.plot([], [], "-", color=THRESHOLD_COLOR,
                       label=r"bound $2\varepsilon/(\mathrm{gap} - 2\varepsilon)$, "
                             r"$\Vert F\Vert_2 \leq \varepsilon$")
    limit = ax.axvline(0.0, color=THRESHOLD_COLOR, linestyle=":",
                       label=r"$\varepsilon = \mathrm{gap}/4$")
    line_E = ax.axvline(0.0, color="black", linestyle="--",
                        label=r"$\Vert E\Vert_2 = \lambda_1(E)$")
    (star,) = ax.plot([], [], "*", color="black", markersize=11,
                      label="$A + E$ (Theorem 1)")
    ax.set_xlabel(r"size of the perturbation $\varepsilon = \Vert A^*_b - A\Vert_2$")
    ax.set_ylabel("distance of top-$k$ spaces")
    ax.set_ylim(0.0, 1.05)
    ax.legend(loc="upper right")
    artists = PerturbationArtists(ax, points, curve, limit, line_E, star)
    artists.update(norms, dist, eigenvalues, k, norm_E, stewart_E)
    return artists
