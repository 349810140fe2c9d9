"""DetectabilityExplorer: when PCA loses the clusters, and what variable weighting gives back.

Wolf & Bileschi (2005), Sec. 2 and Fig. 1: two Gaussian clusters in 3 relevant coordinates,
plus irrelevant coordinates drawn the same way and permuted across samples. Two sliders --
the number of irrelevant features n₂ and the cluster spread σ -- drive four panels:

* the samples on the first two principal components of all (normalised) features, and
  after Algo. 2's (or Algo. 1's) weights (Fig. 1 c–d);
* the eigenvalues of the kernel ``A = MᵀM`` beside the Wishart bulk edge
  ``(1/q)(√n₂ + √q)²`` and the predicted top eigenvalue;
* the relevant signal θ against the detectability threshold ``1 + √(n₂/q)`` over n₂.

Every panel keeps its axes as the sliders move -- principal coordinates are divided by their
largest magnitude, eigenvalues by the top one, and what changes in a title is shown as text
drawn with the data -- so a slider move redraws only the data over a cached background.

Everything shown is computed by :mod:`spectral_kit.weighting` and drawn by
:mod:`spectral_kit.plots.weighting`; this module wires sliders to them.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from ..datasets.synthetic import SyntheticData
from ..datasets.wolf_bileschi import make_wolf_bileschi_fig1
from ..metrics import sparsity_gap
from ..plots.weighting import (
    PROJECTION_BOX,
    plot_cluster_projection,
    plot_detectability,
    plot_spectrum_vs_bulk,
    update_cluster_projection,
    update_detectability,
    update_spectrum_vs_bulk,
)
from ..preprocess import preprocess_rows
from ..validation import check_choice, check_int
from ..weighting import (
    Detectability,
    Projection,
    WeightingResult,
    critical_irrelevant,
    detectability,
    parameter_free_weights,
    pca_weights,
    relevant_signal,
    weighted_pca,
)
from .base import Explorer
from .controls import make_slider

__all__ = ["DetectabilityExplorer", "DetectabilityState", "WeightedView"]

#: Relevant (clustered) coordinates of the Fig. 1 data.
N_RELEVANT = 3
#: The weightings the right-hand panel can show (names as in ``WeightedPCA``).
WEIGHTINGS = {"parameter-free": "Algo. 2", "q-alpha": "Algo. 1"}
#: Top of the spectrum's (log) count axis, in multiples of q (the most any bar can hold):
#: the bars and the lines stay below :data:`SPECTRUM_LINE_TOP`, the legend above.
SPECTRUM_HEADROOM = 20.0
#: Height of the spectrum's vertical lines, as a fraction of the axes.
SPECTRUM_LINE_TOP = 0.62
#: Top of the scatter panels' vertical axis: the normalised coordinates end at 1, the
#: silhouette is written above them.
PROJECTION_TOP = 1.45
#: Colour of the verdict when the signal has drowned (as the explorer's error text).
FAILURE_COLOR = "#b00020"


@dataclass(frozen=True)
class WeightedView:
    """A weighting, the PCA after it and how well it shows the clusters.

    Attributes
    ----------
    result : WeightingResult
        Algo. 2's or Algo. 1's weights.
    projection : Projection
        PCA (two components) of the reweighted normalised features.
    silhouette : float
        Silhouette of the true clusters on those two components.
    ratio : float
        Mean relevant ÷ mean irrelevant weight (NaN without irrelevant features).
    """

    result: WeightingResult
    projection: Projection
    silhouette: float
    ratio: float


@dataclass(frozen=True)
class DetectabilityState:
    """What the explorer computes first for one slider state (n₂, σ).

    Attributes
    ----------
    data : SyntheticData
        The 3 relevant and n₂ irrelevant coordinates of the 100 samples (X samples × features).
    theta : float
        The relevant signal θ: top eigenvalue of ``A₁ = M₁ᵀM₁`` for the normalised relevant
        rows (:func:`~spectral_kit.weighting.relevant_signal`).
    detect : Detectability
        The Sec. 2 comparison of θ with the Wishart bulk of the n₂ irrelevant features.
    critical : float
        ``q(θ − 1)²``: the number of irrelevant features at which θ drowns.
    eigenvalues : ndarray of shape (q,)
        Eigenvalues of ``A = MᵀM`` for all normalised rows, increasing.
    overlap : float
        Measured cos² between the top eigenvectors of A and of A₁ (``detect.overlap`` is its
        large-(n₂, q) prediction).
    pca : Projection
        PCA (two components) of the normalised features, all weights equal.
    pca_silhouette : float
        Silhouette of the true clusters on those two components.
    algo2 : WeightedView
        Algo. 2's weights and the PCA after them (also Algo. 1's starting point).
    """

    data: SyntheticData
    theta: float
    detect: Detectability
    critical: float
    eigenvalues: np.ndarray
    overlap: float
    pca: Projection
    pca_silhouette: float
    algo2: WeightedView


class DetectabilityExplorer(Explorer):
    """Sliders n₂ (irrelevant features) and σ (cluster spread) → PCA with and without
    variable weighting on Fig. 1's data, and the Sec. 2 detectability condition.

    The data are :func:`~spectral_kit.datasets.wolf_bileschi.make_wolf_bileschi_fig1`: two
    clusters of 50 points in 3 relevant coordinates, each cluster with standard deviations
    σ·√u (u uniform in [0.5, 1.5]), and irrelevant coordinates drawn the same way, then
    permuted across samples. One data set with the slider's largest n₂ is drawn per σ (the
    same seed for every σ, so σ only rescales the spread), and a state with n₂ irrelevant
    features shows its first 3 + n₂ coordinates: moving the n₂ slider adds or removes
    irrelevant features and leaves the others in place.

    PCA of the normalised features sees the clusters while θ, the relevant signal, exceeds
    ``1 + √(n₂/q)`` (:func:`~spectral_kit.weighting.detectability`), i.e. up to
    ``n₂ ≈ q(θ − 1)²`` irrelevant features; Algo. 2 (parameter-free) or Algo. 1 (Q-α with
    k = 2, the two components shown, started from Algo. 2's weights) reweights the features
    first.

    Results are cached per slider state. Algo. 1 takes about 0.1 s at n₂ = 300, so with
    ``weighting="q-alpha"`` the first picture shows its starting point (Algo. 2's weights)
    and the converged weights follow as a refinement step.

    Parameters
    ----------
    weighting : {"parameter-free", "q-alpha"}
        Algo. 2 (default) or Algo. 1 in the right-hand panel.
    random_state : int
        Seed of the data (default 0: at σ = 0.1 its θ ≈ 2.1 drowns beyond n₂ ≈ 120).
    **values
        Initial slider values (``n_irrelevant``, ``sigma``).

    Raises
    ------
    ValueError
        For an unknown control, or a slider value outside its range or not a whole number
        where the slider is an integer one (here and in :meth:`update`); for an option out of
        range.

    Examples
    --------
    Headless (a notebook shows the controls and the figure when ``explorer`` is the last
    expression of a cell):

    >>> from spectral_kit.widgets import DetectabilityExplorer
    >>> explorer = DetectabilityExplorer()
    >>> _ = explorer.update(n_irrelevant=50)
    >>> explorer.values["n_irrelevant"], explorer.errors
    (50, [])
    >>> explorer.close()
    """

    #: 460 px of figure: with its sliders and status line the explorer fits the notebook area
    #: of a 1280 × 800 screen (it was 580 px, 708 px in all, taller than that area).
    figsize = (8.0, 4.6)
    #: Largest n₂ on the slider; the default n₂ = 200 is the report's.
    N_IRRELEVANT_MAX = 300
    SIGMA_RANGE = (0.02, 1.0)
    #: Slider states kept in the cache.
    CACHE_SIZE = 256

    def __init__(self, *, weighting: str = "parameter-free", random_state: int = 0,
                 **values: Any):
        self.weighting = check_choice(weighting, "weighting", tuple(WEIGHTINGS))
        self.random_state = check_int(random_state, "random_state", low=0)
        self._cache: OrderedDict[tuple, DetectabilityState] = OrderedDict()
        self._algo1: dict[tuple, WeightedView] = {}
        self._base: OrderedDict[float, SyntheticData] = OrderedDict()
        super().__init__(**values)

    # -- controls and artists ----------------------------------------------------------------
    def _build_controls(self) -> dict:
        lo, hi = self.SIGMA_RANGE
        return {
            "n_irrelevant": make_slider("n_irrelevant", max=self.N_IRRELEVANT_MAX, value=200),
            "sigma": make_slider("sigma", min=lo, max=hi, step=0.01, value=0.1),
        }

    def _draw(self, figure: Figure) -> None:
        (ax_pca, ax_weighted), (ax_spec, ax_det) = figure.subplots(
            2, 2, height_ratios=[0.85, 1.0]
        )
        state = self.compute(self.values)
        self.projections = {}
        self.projection_texts = {}
        titles = {"PCA": "PCA of all features",
                  "weighted": f"{WEIGHTINGS[self.weighting]} weights + PCA"}
        for name, ax in (("PCA", ax_pca), ("weighted", ax_weighted)):
            # Principal coordinates have no unit: each embedding is divided by its largest
            # |coordinate|, so the box stays fixed and the axes need no redraw.
            self.projections[name] = plot_cluster_projection(
                ax, state.pca.embedding, state.data.y, size=12, normalize=True
            )
            ax.set_ylim(-PROJECTION_BOX, PROJECTION_TOP)
            ax.set_xticks([])
            ax.set_yticks([])
            ax.set_xlabel("PC 1")
            ax.set_ylabel("PC 2")
            ax.set_title(titles[name], y=1.0)
            self.projection_texts[name] = ax.text(
                0.02, 0.97, "", transform=ax.transAxes, ha="left", va="top"
            )
        # Eigenvalues ÷ the top one keep the eigenvalue axis still; counts on a log axis show
        # the spike of zero eigenvalues (3 + n₂ < q features) beside the lone top eigenvalue.
        self.spectrum = plot_spectrum_vs_bulk(
            ax_spec, state.eigenvalues, state.detect, normalize=True, log=True, stairs=True
        )
        ax_spec.set_ylim(0.7, SPECTRUM_HEADROOM * state.eigenvalues.size)
        ax_spec.set_xlabel(r"eigenvalue of $A = M^\top M$ / the top one")
        ax_spec.set_ylabel("count (log scale)")
        ax_spec.set_title("kernel spectrum vs Wishart bulk edge", y=1.0)
        # The legend is part of the cached background: the moving lines stop below it.
        for key in ("edge", "energy", "top"):
            self.spectrum[key].set_ydata([0.0, SPECTRUM_LINE_TOP])
        ax_spec.legend(loc="upper center", ncols=2, borderaxespad=0.3, columnspacing=1.0,
                       handlelength=1.5)
        self.detect_artists = plot_detectability(
            ax_det, state.theta, state.detect.n_samples, state.detect.n_irrelevant,
            n_irrelevant_max=self.N_IRRELEVANT_MAX,
        )
        # Where the signal drowns: n₂ = q(θ − 1)², the crossing of θ with the solid curve,
        # dropped to the n₂ axis. θ ≤ 3, the trace of A₁ for 3 unit-norm rows, keeps it and
        # the θ line below the legend, which is part of the cached background.
        (self.critical_line,) = ax_det.plot([0.0, 0.0], [0.0, 1.0], color="0.4", ls=":",
                                            lw=1)
        ax_det.set_xlim(0.0, 1.03 * self.N_IRRELEVANT_MAX)  # room for the marker at the end
        # A fixed top well above θ ≤ 3: the legend, part of the cached background, stays
        # above every moving line in the short figure that fits a 1280 × 800 screen.
        ax_det.set_ylim(0.0, 6.0)
        ax_det.set_title(r"$\theta$ vs $1 + \sqrt{n_2/q}$", y=1.0)
        # θ ≥ 1 and every curve starts at 1: the band below 1 is free for the verdict.
        self.verdict_text = ax_det.text(
            0.98, 0.04, "", transform=ax_det.transAxes, ha="right", va="bottom"
        )
        self._freeze_text_positions(figure)
        det = self.detect_artists
        self.animate(
            *(self.projections[name]["points"] for name in self.projections),
            *self.projection_texts.values(),
            self.spectrum["hist"], self.spectrum["edge"], self.spectrum["energy"],
            self.spectrum["top"], self.critical_line, det["signal"], det["current"],
            self.verdict_text,
        )

    @staticmethod
    def _freeze_text_positions(figure: Figure) -> None:
        """Lay the figure out once and pin the axis labels where the layout put them.

        Matplotlib otherwise re-measures every tick label on every draw to place the axis
        labels (titles are pinned by ``y=1.0``), which costs as much as the rest of a redraw.
        """
        figure.canvas.draw()
        for ax in figure.axes:
            to_axes = ax.transAxes.inverted()
            _, y_pixels = ax.xaxis.label.get_position()
            ax.xaxis.set_label_coords(0.5, to_axes.transform((0.0, y_pixels))[1])
            x_pixels, _ = ax.yaxis.label.get_position()
            ax.yaxis.set_label_coords(to_axes.transform((x_pixels, 0.0))[0], 0.5)

    # -- computation -------------------------------------------------------------------------
    @staticmethod
    def _key(values: dict[str, Any]) -> tuple[int, float]:
        return int(values["n_irrelevant"]), round(float(values["sigma"]), 6)

    def data(self, n_irrelevant: int, sigma: float) -> SyntheticData:
        """The Fig. 1 data of one slider state: 3 relevant and the first n₂ irrelevant features.

        One draw with the slider's largest n₂ per σ, always with the explorer's seed.
        """
        sigma = round(float(sigma), 6)
        if sigma not in self._base:
            self._base[sigma] = make_wolf_bileschi_fig1(
                n_irrelevant=self.N_IRRELEVANT_MAX, sigma=sigma, random_state=self.random_state,
            )
            if len(self._base) > 32:
                self._base.popitem(last=False)
        full = self._base[sigma]
        n = N_RELEVANT + int(n_irrelevant)
        return SyntheticData(full.X[:, :n].copy(), full.y, full.relevant[:n].copy())

    def compute(self, values: dict[str, Any]) -> DetectabilityState:
        """Data, detectability, spectrum, PCA and Algo. 2 for one slider state (cached)."""
        key = self._key(values)
        if key in self._cache:
            self._cache.move_to_end(key)
            return self._cache[key]
        n2, sigma = key
        data = self.data(n2, sigma)
        M = data.M
        q = M.shape[1]
        Mp = preprocess_rows(M)
        theta = relevant_signal(M[data.relevant])
        # One decomposition serves the spectrum of A = MᵀM, its top eigenvector and the PCA
        # panel: PCA's variances are A's non-zero eigenvalues (the rest are 0).
        full = weighted_pca(Mp, None, min(Mp.shape), preprocess=False)
        eigenvalues = np.sort(np.concatenate([full.values, np.zeros(q - full.values.size)]))
        top = full.embedding[:, 0] / np.linalg.norm(full.embedding[:, 0])
        pca = Projection(W=full.W[:, :2], embedding=full.embedding[:, :2],
                         values=full.values[:2], center=full.center)
        # Top eigenvector of A₁ = M₁ᵀM₁: the leading right singular vector of M₁.
        relevant_direction = np.linalg.svd(Mp[data.relevant], full_matrices=False)[2][0]
        state = DetectabilityState(
            data=data, theta=theta, detect=detectability(theta, n2, q),
            critical=critical_irrelevant(theta, q), eigenvalues=eigenvalues,
            overlap=float(top @ relevant_direction) ** 2,
            pca=pca, pca_silhouette=float(_silhouette(pca.embedding, data.y)),
            algo2=_view(Mp, parameter_free_weights(Mp, preprocess=False), data),
        )
        self._cache[key] = state
        if len(self._cache) > self.CACHE_SIZE:
            old, _ = self._cache.popitem(last=False)
            self._algo1.pop(old, None)
        return state

    def compute_algo1(self, values: dict[str, Any]) -> WeightedView:
        """Algo. 1 (k = 2) and the PCA after it for one slider state (cached)."""
        key = self._key(values)
        if key not in self._algo1:
            data = self.compute(values).data
            Mp = preprocess_rows(data.M)
            self._algo1[key] = _view(Mp, pca_weights(Mp, 2, preprocess=False), data)
        return self._algo1[key]

    # -- rendering ---------------------------------------------------------------------------
    def _render(self, values: dict[str, Any]) -> Iterator | None:
        state = self.compute(values)
        self._show_projection("PCA", state.pca.embedding,
                              f"silhouette {state.pca_silhouette:.2f}")
        self._show_spectrum(state)
        self._show_detectability(state)
        key = self._key(values)
        if self.weighting == "parameter-free" or key in self._algo1:
            view = state.algo2 if self.weighting == "parameter-free" else self._algo1[key]
            self._show_weighted(state, view)
            return None
        # Algo. 1 starts from Algo. 2's weights: show that start until it has converged.
        self._show_projection("weighted", state.algo2.projection.embedding,
                              "iterating from Algo. 2's weights…", color="0.45")
        self._status(state, None)

        def refine() -> Iterator[None]:
            self._show_weighted(state, self.compute_algo1(values))
            yield

        return refine()

    def _show_projection(self, panel: str, embedding: np.ndarray, text: str,
                         color: str = "black") -> None:
        update_cluster_projection(self.projections[panel], embedding, normalize=True,
                                  rescale=False)
        self.projection_texts[panel].set_text(text)
        self.projection_texts[panel].set_color(color)

    def _show_weighted(self, state: DetectabilityState, view: WeightedView) -> None:
        self._show_projection("weighted", view.projection.embedding,
                              f"silhouette {view.silhouette:.2f}")
        self._status(state, view)

    def _show_spectrum(self, state: DetectabilityState) -> None:
        update_spectrum_vs_bulk(self.spectrum, state.eigenvalues, state.detect,
                                normalize=True, rescale=False)

    def _show_detectability(self, state: DetectabilityState) -> None:
        det = state.detect
        update_detectability(self.detect_artists, state.theta, det.n_samples, det.n_irrelevant,
                             rescale=False)
        self.critical_line.set_data([state.critical] * 2, [0.0, state.theta])
        marker = self.detect_artists["current"]
        marker.set_markerfacecolor(marker.get_color() if det.detectable else "white")
        relation = ">" if det.detectable else r"\leq"
        verdict = "detectable" if det.detectable else "drowned"
        self.verdict_text.set_text(
            rf"$\theta = {state.theta:.2f} {relation} 1 + \sqrt{{n_2/q}} = {det.threshold:.2f}$: "
            f"{verdict}"
        )
        self.verdict_text.set_color("black" if det.detectable else FAILURE_COLOR)

    def _status(self, state: DetectabilityState, view: WeightedView | None) -> None:
        det = state.detect
        if det.n_irrelevant == 0:
            where = "no irrelevant features"
        elif det.detectable:
            where = ("the cluster direction stands out of the Wishart bulk "
                     f"(until n₂ ≈ q(θ − 1)² = {state.critical:.0f})")
        else:
            where = ("the cluster direction has drowned in the Wishart bulk "
                     f"(since n₂ ≈ q(θ − 1)² = {state.critical:.0f})")
        name = WEIGHTINGS[self.weighting]
        if view is None:
            weights = "running…"
        elif det.n_irrelevant == 0:
            weights = "every feature is relevant"
        else:
            weights = f"relevant ÷ irrelevant weight {view.ratio:.1f}"
        # The spectrum panel shows eigenvalues ÷ the top one; its scale is given here.
        edge = f"bulk edge {det.bulk_edge:.2f}" if det.n_irrelevant else "no bulk"
        self.status.value = (
            f"n₂ = {det.n_irrelevant}, σ = {float(self.values['sigma']):.2f}: {where}. "
            f"Top eigenvalue of A {state.eigenvalues[-1]:.2f} (predicted "
            f"{det.top_eigenvalue:.2f}, {edge}). "
            f"cos²(top PC, relevant direction): measured {state.overlap:.2f}, "
            f"predicted {det.overlap:.2f}. {name}: {weights}."
        )

    # -- inspection --------------------------------------------------------------------------
    @property
    def state(self) -> DetectabilityState:
        """Data and results behind the current picture."""
        return self.compute(self.values)

    @property
    def weighted(self) -> WeightedView | None:
        """The right-hand panel's weighting for the current state (None while Algo. 1 runs)."""
        if self.weighting == "parameter-free":
            return self.state.algo2
        return self._algo1.get(self._key(self.values))


def _view(Mp: np.ndarray, result: WeightingResult, data: SyntheticData) -> WeightedView:
    """PCA after a weighting of the normalised rows Mp, and how it separates the clusters."""
    projection = weighted_pca(Mp, result.alpha, 2, preprocess=False)
    relevant = data.relevant
    return WeightedView(
        result=result, projection=projection,
        silhouette=float(_silhouette(projection.embedding, data.y)),
        ratio=sparsity_gap(result.alpha, relevant) if (~relevant).any() else float("nan"),
    )


def _silhouette(points: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette (Rousseeuw 1987) of ``points`` (samples × dimensions) clustered by
    ``labels``, with Euclidean distances: what ``sklearn.metrics.silhouette_score`` computes
    (a test compares them), without loading scikit-learn into the explorer's kernel. A
    sample alone in its cluster scores 0."""
    points = np.asarray(points, dtype=float)
    labels = np.asarray(labels)
    # Differences, not the Gram expansion: exact to rounding for near points.
    distances = np.sqrt(((points[:, None, :] - points[None, :, :]) ** 2).sum(-1))
    classes, index = np.unique(labels, return_inverse=True)
    if not 2 <= len(classes) <= len(labels) - 1:
        raise ValueError(f"the silhouette needs 2 to n - 1 clusters; got {len(classes)} "
                         f"for {len(labels)} samples.")
    onehot = np.eye(len(classes))[index]
    sizes = onehot.sum(0)
    totals = distances @ onehot  # each sample's summed distance to each cluster
    own = sizes[index]
    a = totals[np.arange(len(labels)), index] / np.maximum(own - 1, 1)
    means = totals / sizes
    means[np.arange(len(labels)), index] = np.inf
    b = means.min(1)
    score = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), np.finfo(float).tiny), 0.0)
    return float(score.mean())

