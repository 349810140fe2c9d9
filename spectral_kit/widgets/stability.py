"""StabilityExplorer: from bootstrap accuracy to stable eigenvector spaces, live.

Mavroeidis & Vazirgiannis (Sec. 4.1–4.2): bootstrap confidence intervals of every covariance
(or cosine) give the perturbation matrix E (Example 2); the top-k eigenvector space of A is
stable when the eigengap ``λ_k − λ_{k+1}`` exceeds ``4·λ₁(E)`` (Lemma 1), and Stewart's
theorem (Theorem 1) then bounds how far it can move. The explorer shows the three steps on
data with a known group structure (:func:`make_grouped_factors`), beside the distances the
top-k spaces actually move across the bootstrap resamples.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle
from matplotlib.ticker import FormatStrFormatter, MaxNLocator

from ..plots.stability import (
    THRESHOLD_COLOR,
    plot_eigengaps,
    plot_perturbation_distances,
    plot_stewart_bound,
)
from ..stability import (
    BootstrapDistribution,
    StabilityReport,
    bootstrap_distribution,
    resample_subspace_distances,
    stability_report,
)
from ..stability.bootstrap import METHODS, STATISTICS
from ..validation import as_generator, check_choice, check_finite_scalar, check_int
from .base import Explorer
from .controls import make_slider

__all__ = ["GroupedFactorData", "StabilityExplorer", "make_grouped_factors"]


@dataclass(frozen=True)
class GroupedFactorData:
    """Samples of features that come in groups, each group driven by one latent factor.

    Attributes
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data, samples × features (the paper's objects × terms).
    groups : ndarray of int, shape (n_features,)
        Group of each feature, 0 … n_clusters − 1 (contiguous, sizes differ by at most one).
    covariance : ndarray of shape (n_features, n_features)
        The population covariance ``Σ = [g(i) = g(j)] + σ²·I``.
    sigma : float
        Standard deviation of the noise of each feature.
    """

    X: np.ndarray
    groups: np.ndarray
    covariance: np.ndarray
    sigma: float

    @property
    def M(self) -> np.ndarray:
        """Features as rows (n_features × n_samples)."""
        return self.X.T

    @property
    def n_clusters(self) -> int:
        return int(self.groups.max()) + 1

    @property
    def group_sizes(self) -> np.ndarray:
        return np.bincount(self.groups)

    @property
    def population_eigenvalues(self) -> np.ndarray:
        """Eigenvalues of Σ, descending: ``m_g + σ²`` for each group of size m_g, then σ²."""
        noise = self.sigma**2
        sizes = np.sort(self.group_sizes)[::-1].astype(float)
        rest = np.zeros(self.groups.size - sizes.size)
        return np.concatenate([sizes, rest]) + noise


def make_grouped_factors(
    n_samples: int = 200,
    n_features: int = 8,
    n_clusters: int = 2,
    sigma: float = 0.5,
    *,
    random_state: int | np.random.Generator | None = 0,
) -> GroupedFactorData:
    """Features in ``n_clusters`` groups; each feature = its group's factor + σ·noise.

    The features are split into contiguous groups of (nearly) equal size m_g; every group has
    a latent factor ``z_g ~ N(0, 1)`` shared by its features, and feature j of sample t is
    ``x_tj = z_{t,g(j)} + σ·ε_tj`` with independent ``ε_tj ~ N(0, 1)``. So the population
    covariance is ``Σ = [g(i) = g(j)] + σ²·I``, with eigenvalues ``m_g + σ²`` (eigenvectors:
    the groups' indicator vectors) and ``σ²`` (p − n_clusters times). The known structure:
    the top-n_clusters eigenvector space of Σ is spanned by the group indicators, the gap
    below it is ``min m_g``, and groups of equal size give equal eigenvalues -- whose
    individual eigenvectors are not defined, although the space they span is (Sec. 2.3).

    Each sample is one row ``[z_t, ε_t]`` of a single stream of normal draws, so for a fixed
    ``random_state`` the first n samples are the same whatever n is, and σ and the number of
    groups change the same draws (sliders move the data continuously).

    Parameters
    ----------
    n_samples : int, ≥ 3
    n_features : int, ≥ 2
    n_clusters : int, 1 ≤ n_clusters ≤ n_features
    sigma : float, ≥ 0
    random_state : None, int or Generator

    Returns
    -------
    GroupedFactorData
    """
    n = check_int(n_samples, "n_samples", low=3, hint="Bootstrap intervals need 3 samples.")
    p = check_int(n_features, "n_features", low=2)
    c = check_int(n_clusters, "n_clusters", low=1, high=p,
                  hint="Every group needs at least one feature.")
    sigma = check_finite_scalar(sigma, "sigma", low=0.0)
    rng = as_generator(random_state)
    draws = rng.standard_normal((n, 2 * p))
    groups = np.arange(p) * c // p
    X = draws[:, :p][:, groups] + sigma * draws[:, p:]
    covariance = (groups[:, None] == groups[None, :]).astype(float) + sigma**2 * np.eye(p)
    return GroupedFactorData(X, groups, covariance, float(sigma))


@dataclass(frozen=True)
class _Resampled:
    """What does not depend on the confidence level: data, resamples and their distances."""

    data: GroupedFactorData
    distribution: BootstrapDistribution
    perturbation_norms: np.ndarray  # (B,)  ‖A*_b − A‖₂
    distances: np.ndarray  # (B, p − 1)  top-k distance, k = 1 … p − 1


class StabilityExplorer(Explorer):
    """Sliders n (samples), σ (noise), k, cluster count (latent groups) and confidence →
    the eigengaps of A against Lemma 1's threshold 4·λ₁(E) with the stable k in green,
    Stewart's bound for every k beside the distances the top-k spaces move across the
    bootstrap resamples, and, for the chosen k, each resample's distance against the size of
    its perturbation with Stewart's curve (Mavroeidis & Vazirgiannis, Sec. 4.2, Lemma 1).

    The data are :func:`make_grouped_factors` with ``n_features`` features. A is their
    covariance (``statistic="covariance"``, SbS-PCA) or cosine matrix (``"cosine"``, SbS-LSI);
    E comes from BCa (or percentile) intervals of every entry from ``n_resamples``
    resamples (Example 2). The drawn bound is the one that holds for every perturbation F
    with ``‖F‖₂ ≤ ‖E‖₂`` -- every matrix inside all the intervals, and every resample that
    small (:attr:`~spectral_kit.stability.StabilityReport.uniform_bounds`); Stewart's
    theorem for A + E itself is the star of the right panel.

    So that no axis limit moves with a slider (each move is then blitted over one cached
    background), the left panel divides the eigengaps and the threshold by λ₁ -- whether a
    gap exceeds 4‖E‖₂ does not depend on the scale -- and a threshold above the panel is
    drawn at its top edge, with its value written below it. The right panel measures ε in
    units of the eigengap at k, ``u = ε/(λ_k − λ_{k+1})``: Stewart's curve is then
    ``2u/(1 − 2u)`` up to u = 1/4 whatever the data, and k is stable exactly when
    ``‖E‖₂/gap < 1/4``. Resamples beyond u = :attr:`perturbation_range` are counted in the
    panel and in the status line, and a ‖E‖₂ beyond it is written in the panel's title.

    Caching: the bootstrap distribution, the resampled eigenvector spaces and their distances
    are kept per (n, σ, cluster count); moving the confidence only recomputes quantiles, E
    and one eigendecomposition; moving k only redraws. When new resamples take longer than
    ``step_budget``, the spectrum and the bounds are drawn first and the distances observed
    across the resamples follow in a second step.

    Parameters
    ----------
    n_features : int
        Number of features p (3 … 12; default 8). k runs over 1 … p − 1 and the cluster
        count over 1 … p // 2 (groups of at least two features).
    statistic : {"covariance", "cosine"}
    method : {"bca", "percentile"}
    n_resamples : int
        Bootstrap resamples B, 20 … 1000 (default 200; the paper uses 1000).
    random_state : int
        Seed of the data and of the resamples (the same for every slider state).
    **values
        Initial slider values (``n_samples``, ``sigma``, ``k``, ``n_clusters``,
        ``confidence``).

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

    >>> from spectral_kit.widgets import StabilityExplorer
    >>> explorer = StabilityExplorer()
    >>> _ = explorer.update(k=2)
    >>> explorer.values["k"], explorer.errors
    (2, [])
    >>> explorer.close()
    """

    figsize = (8.0, 4.4)
    #: Slider states whose resamples are kept.
    cache_size = 48
    #: Top of the left panel, in units of λ₁ (a gap of a positive semi-definite A is at most
    #: λ₁, a larger threshold is drawn at this edge).
    gap_range = 1.12
    #: Right end of the right panel, in units of the eigengap at k (Stewart's curve ends at
    #: 1/4).
    perturbation_range = 0.6

    def __init__(
        self,
        *,
        n_features: int = 8,
        statistic: str = "covariance",
        method: str = "bca",
        n_resamples: int = 200,
        random_state: int = 0,
        **values: Any,
    ):
        self.n_features = check_int(n_features, "n_features", low=3, high=12,
                                    hint="The picture is meant for a handful of features.")
        self.statistic = check_choice(statistic, "statistic", STATISTICS)
        self.method = check_choice(method, "method", METHODS)
        self.n_resamples = check_int(n_resamples, "n_resamples", low=20, high=1000)
        self.random_state = check_int(random_state, "random_state", low=0)
        self._distributions: OrderedDict[tuple, tuple] = OrderedDict()
        self._observed: OrderedDict[tuple, tuple] = OrderedDict()
        self._reports: OrderedDict[tuple, StabilityReport] = OrderedDict()
        #: Cache misses so far: bootstrap distributions, resample distances, reports.
        self.computations = {"resamples": 0, "distances": 0, "reports": 0}
        super().__init__(**values)

    # -- controls and artists ------------------------------------------------------------------
    def _build_controls(self) -> dict:
        p = self.n_features
        return {
            # Lemma 1 is demanding: with 3 groups (σ = 0.3, confidence 0.9) its threshold
            # falls below the eigengap only from about 1400 samples, so the canonical range
            # is widened to 2000.
            "n_samples": make_slider("n_samples", min=20, max=2000, step=20, value=600),
            "sigma": make_slider("sigma", min=0.05, max=2.0, step=0.05, value=0.3),
            "k": make_slider("k", min=1, max=p - 1, value=min(2, p - 1)),
            "n_clusters": make_slider("n_clusters", min=1, max=p // 2, value=min(2, p // 2)),
            "confidence": make_slider("confidence"),
        }

    def _draw(self, figure: Figure) -> None:
        ax_gaps, ax_stewart, ax_k = figure.subplots(1, 3, width_ratios=[1, 1.15, 1.15])
        p = self.n_features
        lam = np.linspace(float(p), 0.0, p)
        self.eigengaps = plot_eigengaps(ax_gaps, lam, 1.0)
        ks = np.arange(1, p)
        self.stewart = plot_stewart_bound(ax_stewart, ks, np.full(ks.size, np.nan),
                                          np.zeros((2, ks.size)))
        # A band behind the chosen k, up to the largest distance (1) only: it is drawn over
        # the cached background, which holds the legend in the band above.
        self.k_marker = ax_stewart.add_patch(Rectangle(
            (0.5, 0.0), 1.0, 1.05, color=(0.0, 0.0, 0.0, 0.1), linewidth=0.0, zorder=0))
        self.perturbation = plot_perturbation_distances(
            ax_k, np.zeros(2), np.zeros(2), lam, 1, 1.0)
        # Every piece of text costs time on each redraw: short labels, few ticks, one legend
        # entry per idea (the docstring and the notebook explain the rest).
        ax_gaps.get_legend().remove()
        ax_gaps.set_ylabel(r"$(\lambda_k - \lambda_{k+1}) / \lambda_1$")
        ax_gaps.set_title(r"eigengaps vs $4\Vert E\Vert_2$ (dashed)")
        self.threshold_text = ax_gaps.text(
            0.97, 0.965, "", transform=ax_gaps.transAxes, ha="right", va="top",
            color=THRESHOLD_COLOR)
        self.stewart.bound.set_label(r"bound, $\Vert F\Vert_2 \leq \Vert E\Vert_2$")
        self.stewart.worst.set_label("largest")
        self.stewart.observed.set_label("resamples")
        ax_stewart.set_xlabel("$k$")
        ax_stewart.set_ylabel("distance of top-$k$ spaces")
        art = self.perturbation
        art.curve.set_label(r"bound $2u/(1 - 2u)$")
        art.limit.set_label("_u = 1/4")
        art.norm_E.set_label(r"$\Vert E\Vert_2$ / gap")
        art.stewart_E.set_label("$A + E$")
        # The dashed line stops below the changing title (k = …), which it would cross.
        art.norm_E.set_ydata([0.0, 0.9])
        ax_k.set_xlabel(r"$u = \Vert A^*_b - A\Vert_2 / (\lambda_k - \lambda_{k+1})$")
        ax_k.set_ylabel("")
        # The title changes with every move: text drawn with the moving artists.
        self.k_text = ax_k.text(0.5, 1.0, " ", transform=ax_k.transAxes, ha="center",
                                va="bottom")
        self.beyond_text = ax_k.text(0.98, 0.03, "", transform=ax_k.transAxes, ha="right",
                                     va="bottom")
        # Distances never exceed 1. One legend for the two distance panels, under the
        # figure: inside the axes the moving artists (drawn over the background, which holds
        # the legend) would cover it.
        handles = []
        for ax in (ax_stewart, ax_k):
            ax.set_ylim(0.0, 1.1)
            ax.set_yticks([0.0, 0.5, 1.0])
            legend = ax.get_legend()
            if legend is not None:
                legend.remove()
            handles += [h for h, label in zip(*ax.get_legend_handles_labels())
                        if label not in {x.get_label() for x in handles}]
        figure.legend(handles=handles, loc="outside lower center", ncol=3, frameon=False,
                      columnspacing=1.2, handlelength=1.6)
        ax_stewart.set_title("top-$k$ spaces: bound and resamples")
        # Fixed limits: the background (ticks, labels, legends) is drawn once.
        ax_gaps.set_xlim(0.3, p - 0.3)
        ax_gaps.set_ylim(0.0, self.gap_range)
        ax_gaps.set_yticks([0.0, 0.5, 1.0])
        ax_stewart.set_xlim(0.5, p - 0.5)
        ax_k.set_xlim(0.0, self.perturbation_range)
        ax_k.set_xticks([0.0, 0.25, 0.5])
        for ax in (ax_gaps, ax_stewart):
            ax.xaxis.set_major_locator(MaxNLocator(nbins=8, integer=True))
        ax_gaps.yaxis.set_major_formatter(FormatStrFormatter("%.1f"))
        for ax in (ax_gaps, ax_stewart, ax_k):
            # The layout is frozen after the first draw: a label placed in axes coordinates
            # stays inside the figure whatever width the tick labels take later.
            ax.yaxis.set_label_coords(-0.14, 0.5)
        # The band behind k first: animated artists are drawn in this order.
        self.animate(*self.eigengaps.bars, self.eigengaps.threshold, self.threshold_text,
                     self.k_marker, self.stewart.bound, self.stewart.observed,
                     self.stewart.worst, art.points, art.norm_E, art.stewart_E, self.k_text,
                     self.beyond_text)

    # -- computation (library calls, cached) ---------------------------------------------------
    @staticmethod
    def _key(n_samples: Any, sigma: Any, n_clusters: Any) -> tuple:
        return int(n_samples), round(float(sigma), 9), int(n_clusters)

    def _bootstrap(self, key: tuple) -> tuple[GroupedFactorData, BootstrapDistribution]:
        hit = self._distributions.get(key)
        if hit is not None:
            self._distributions.move_to_end(key)
            return hit
        data = make_grouped_factors(key[0], self.n_features, key[2], key[1],
                                    random_state=self.random_state)
        dist = bootstrap_distribution(data.X, self.statistic, self.n_resamples,
                                      self.random_state)
        self.computations["resamples"] += 1
        return self._remember(self._distributions, key, (data, dist))

    def _distances(self, key: tuple) -> tuple[np.ndarray, np.ndarray]:
        hit = self._observed.get(key)
        if hit is not None:
            self._observed.move_to_end(key)
            return hit
        _, dist = self._bootstrap(key)
        stack = dist.matrices()
        distances = resample_subspace_distances(dist.estimate, stack,
                                                np.arange(1, self.n_features))
        # ‖A*_b − A‖₂ of a symmetric difference is its largest |eigenvalue|.
        norms = np.abs(np.linalg.eigvalsh(stack - dist.estimate)).max(axis=1)
        self.computations["distances"] += 1
        return self._remember(self._observed, key, (norms, distances))

    def resampled(self, n_samples: int, sigma: float, n_clusters: int) -> _Resampled:
        """Data, bootstrap distribution and per-resample distances for one slider state.

        ``distances[b, k − 1]`` is the distance between the top-k eigenvector spaces of A and
        of the resampled A*_b; ``perturbation_norms[b]`` is ‖A*_b − A‖₂.
        """
        key = self._key(n_samples, sigma, n_clusters)
        data, dist = self._bootstrap(key)
        norms, distances = self._distances(key)
        return _Resampled(data, dist, norms, distances)

    def report(self, n_samples: int, sigma: float, n_clusters: int,
               confidence: float) -> StabilityReport:
        """Intervals, E, eigenvalues, Lemma 1 and Stewart's theorem at one confidence."""
        key = (*self._key(n_samples, sigma, n_clusters), round(float(confidence), 9))
        hit = self._reports.get(key)
        if hit is not None:
            self._reports.move_to_end(key)
            return hit
        _, dist = self._bootstrap(key[:3])
        out = stability_report(dist, float(confidence), self.method)
        self.computations["reports"] += 1
        return self._remember(self._reports, key, out)

    def _remember(self, cache: OrderedDict, key: tuple, value: Any) -> Any:
        cache[key] = value
        if len(cache) > self.cache_size:
            cache.popitem(last=False)
        return value

    @property
    def state(self) -> dict[str, Any]:
        """Everything behind the current picture (data, report, distances, k)."""
        v = self.values
        base = self.resampled(v["n_samples"], v["sigma"], v["n_clusters"])
        rep = self.report(v["n_samples"], v["sigma"], v["n_clusters"], v["confidence"])
        return {
            "data": base.data, "distribution": base.distribution, "report": rep,
            "perturbation_norms": base.perturbation_norms, "distances": base.distances,
            "k": int(v["k"]),
        }

    # -- drawing ---------------------------------------------------------------------------
    def _render(self, values: dict[str, Any]) -> Iterator[None] | None:
        start = time.perf_counter()
        key = self._key(values["n_samples"], values["sigma"], values["n_clusters"])
        rep = self.report(*key, values["confidence"])
        k = int(values["k"])
        if key in self._observed or time.perf_counter() - start < self.step_budget:
            self._show(rep, self._distances(key), k)
            return None
        self._show(rep, None, k)

        def refine() -> Iterator[None]:
            self._show(rep, self._distances(key), k)
            return
            yield  # a generator: the base class draws when it stops

        return refine()

    def _show(self, rep: StabilityReport, observed: tuple | None, k: int) -> None:
        """Update every artist; ``observed`` None hides the resamples (still computing)."""
        p = self.n_features
        if observed is None:
            norms, distances = np.empty(0), np.full((1, p - 1), np.nan)
        else:
            norms, distances = observed
        norm_E = float(rep.eigenvalues_E[0])
        lam = np.asarray(rep.eigenvalues, dtype=float)
        scale = float(lam.max()) if lam.max() > 0 else 1.0
        self.eigengaps.update(lam / scale, rep.threshold / scale, rep.stable_ks,
                              rescale=False)
        clipped = rep.threshold / scale > self.gap_range
        # Text is the dearest artist to redraw: written only when the line cannot show it.
        self.threshold_text.set_text(
            rf"$4\Vert E\Vert_2 = {rep.threshold / scale:.2g}\,\lambda_1$ (above)"
            if clipped else "")
        for i, rect in enumerate(self.eigengaps.bars, start=1):
            rect.set_edgecolor("black" if i == k else "none")
            rect.set_linewidth(1.6 if i == k else 0.0)
        uniform = rep.uniform_bounds
        self.stewart.update(rep.ks, uniform, distances, rescale=False)
        self.k_marker.set_x(k - 0.5)
        at_k = distances[:, k - 1] if observed is not None else np.empty(0)
        gap = float(rep.eigengaps[k - 1])
        stable = k in rep.stable_ks
        art = self.perturbation
        title = f"$k = {k}$: " + ("stable" if stable else "not stable")
        off_panel = ""
        if gap > 0:
            art.update(norms / gap, at_k, lam / gap, k, norm_E / gap, rep.stewart[k - 1].bound,
                       rescale=False)
            beyond = int(np.count_nonzero(norms / gap > self.perturbation_range))
            if norm_E / gap > self.perturbation_range:  # the dashed line is off the panel
                # inside the panel, not in its title: a long title runs over the middle
                # panel's title and off the figure
                ratio = norm_E / gap
                off_panel = (rf"$\Vert E\Vert_2 = {ratio:.0f}\,$gap →" if ratio >= 100
                             else rf"$\Vert E\Vert_2 = {ratio:.2g}\,$gap →")
        else:  # tied eigenvalues: no unit, and no guarantee
            art.points.set_offsets(np.empty((0, 2)))
            art.norm_E.set_xdata([np.nan, np.nan])
            art.stewart_E.set_data([], [])
            beyond = norms.size
            title += " (gap 0)"
        self.k_text.set_text(title)
        lines = [off_panel] if off_panel else []
        if beyond:
            lines.append(f"{beyond} of {norms.size} resamples beyond →")
        self.beyond_text.set_text("\n".join(lines))
        ks = ", ".join(str(s) for s in rep.stable_ks) or "none"
        text = f"‖E‖₂ = {norm_E:.3g}, 4‖E‖₂ = {rep.threshold:.3g}"
        if clipped:
            text += f" = {rep.threshold / scale:.2g}·λ₁ (drawn at the top of the left panel)"
        text += f"; stable k: {ks}. "
        if observed is None:
            self.status.value = text + "Computing the distances across the resamples…"
            return
        text += f"k = {k}: largest distance over the {norms.size} resamples {at_k.max():.3g}"
        if np.isfinite(uniform[k - 1]):
            text += f", bound {uniform[k - 1]:.3g}"
        inside = float(np.mean(norms <= norm_E))
        text += f"; {inside:.0%} of the resamples have ‖A*_b − A‖₂ ≤ ‖E‖₂"
        if beyond:
            text += (f"; {beyond} lie right of the right panel "
                     f"(‖A*_b − A‖₂ > {self.perturbation_range:g}·gap)")
        self.status.value = text + "."
