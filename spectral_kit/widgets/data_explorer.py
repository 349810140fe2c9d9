"""DataExplorer: the four papers' views on a researcher's own X (and y), linked.

``spectral_kit.explore(X, y)`` shows, in one figure and for one data matrix:

* **Q-α** (Wolf & Shashua 2005, Defs. 1–6): α of the top features by name, the sparsity gap
  of the top set (Sec. 6, Fig. 3b), the cluster count k of the eigen-step;
* **sparse PCA / LDA** (Moghaddam, Weiss & Avidan 2006): λ_max(A_S, B_S) against the
  cardinality inside the inclusion bounds (Eq. 8), GSLDA (Sec. 2.3) and the exact search
  (ESLDA) at the chosen k, refined anytime between kernel messages with its incumbent and
  bound until it is certified;
* **stability** (Mavroeidis & Vazirgiannis 2007): the eigengaps of the candidates'
  covariance (or cosine) matrix against Lemma 1's threshold 4‖E‖₂ from bootstrap intervals
  (Sec. 4.1, Example 2), the stable k, the intervals of the selected features' entries, and
  what SbS (Algorithm 1) prunes;
* **weighting** (Wolf & Bileschi 2005, Algo. 2): the parameter-free weights and the PCA
  picture before and after weighting, coloured by y or by k-means clusters.

The views are linked through one feature selection: the Q-α top set is the candidate set of
the sparse and stability views, the sparse support at k is the selection the stability view
draws intervals for and the weighting view marks, and :meth:`DataExplorer.select` sets a
selection of the user's own that every view then shows.

Large data: the quadratic views (sparse search, bootstrap of every entry) run on the
``n_candidates`` Q-α top features, and Q-α and the weighting run on at most ``max_features``
features. Wider data are screened to the ``max_features`` of largest variance (said in the
status line and in :attr:`DataExplorer.notes`); a working copy that would not fit in
``memory_limit`` bytes is refused with the size it would need.
"""

from __future__ import annotations

import time
from collections import OrderedDict
from collections.abc import Iterator, Sequence
from typing import Any

import ipywidgets as widgets
import numpy as np
import scipy.sparse as sp
from matplotlib.collections import LineCollection
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from ..metrics import sparsity_gap
from ..plots.stability import plot_eigengaps
from ..plots.weighting import plot_cluster_projection, update_cluster_projection
from ..qalpha import QAlphaResult, q_alpha
from ..sparse_lda import (
    ESLDASearch,
    GSLDAPath,
    check_pair,
    generalized_spectrum,
    gslda,
    scatter_matrices,
)
from ..stability import bootstrap_distribution, sbs, stability_report
from ..stability.bootstrap import BootstrapDistribution
from ..validation import check_finite_scalar, check_int, check_labels
from ..weighting import parameter_free_weights, weighted_pca
from .base import Explorer
from .controls import make_slider

__all__ = ["DataExplorer", "explore"]

#: Bars of the Q-α panel (the top features by α, named).
N_BARS = 12


def _as_data(X: Any, feature_names: Sequence[str] | None) -> tuple[Any, list[str] | None]:
    """X as a float64 ndarray or CSR matrix (samples × features) and its feature names
    (None: the default names ``x0, x1, …``)."""
    names: list[str] | None = None
    if hasattr(X, "columns") and hasattr(X, "dtypes"):  # a pandas DataFrame
        bad = [str(c) for c, t in zip(X.columns, X.dtypes)
               if getattr(t, "kind", "O") not in "biuf"]
        if bad:
            shown = ", ".join(bad[:5]) + (" …" if len(bad) > 5 else "")
            raise TypeError(
                f"X has non-numeric columns ({shown}); drop them or encode them as numbers "
                "(a label column belongs in y)."
            )
        names = [str(c) for c in X.columns]
        X = X.to_numpy(dtype=np.float64)
    if sp.issparse(X):
        X = sp.csr_matrix(X, dtype=np.float64)
        if not np.all(np.isfinite(X.data)):
            raise ValueError("X (sparse) holds NaN or inf entries; remove or impute them.")
    else:
        if X is None:
            raise TypeError("X must be a samples × features array, DataFrame or sparse "
                            "matrix; got None.")
        arr = np.asarray(X)
        if arr.dtype.kind not in "biuf":
            raise TypeError(f"X must be numeric; got an array of dtype {arr.dtype}. Convert "
                            "the columns to numbers (a label column belongs in y).")
        if arr.ndim != 2:
            raise ValueError(f"X must be 2-D (samples × features); got shape {arr.shape}.")
        X = arr.astype(np.float64, copy=False)
        if not np.all(np.isfinite(X)):
            bad = int(np.count_nonzero(~np.isfinite(X)))
            raise ValueError(f"X holds {bad} NaN or inf entries (missing values); remove "
                             "those rows or impute them first.")
    n, p = X.shape
    if n < 3:
        raise ValueError(f"X has {n} sample(s); the explorer needs at least 3 rows "
                         "(bootstrap intervals resample the samples).")
    if p < 2:
        raise ValueError(f"X has {p} feature(s); feature selection needs at least 2 columns.")
    if feature_names is not None:
        if isinstance(feature_names, str) or not isinstance(feature_names, Sequence | np.ndarray):
            raise TypeError("feature_names must be a sequence of strings, one per column "
                            f"of X; got {type(feature_names).__name__}.")
        names = [str(s) for s in feature_names]
        if len(names) != p:
            raise ValueError(f"feature_names has {len(names)} names but X has {p} columns; "
                             "give one name per column.")
    if names is None:
        # Made for the working columns only: a million names cost most of a second.
        return X, None
    if len(set(names)) != len(names):
        raise ValueError("feature_names must be unique; rename the repeated columns.")
    return X, names


def _column_variance(X: Any, block: int = 1024) -> np.ndarray:
    if sp.issparse(X):
        mean = np.asarray(X.mean(axis=0)).ravel()
        return np.asarray(X.multiply(X).mean(axis=0)).ravel() - mean**2
    # Two passes by blocks of columns, as ``X.var(axis=0)`` computes it, without its
    # temporary copy of the whole of X (a tenth of a second of page faults at 500 × 10⁴).
    X = np.asarray(X)
    mean = X.mean(axis=0)
    variance = np.empty(X.shape[1])
    for start in range(0, X.shape[1], block):
        centred = X[:, start:start + block] - mean[start:start + block]
        variance[start:start + block] = np.einsum("ij,ij->j", centred, centred)
    return variance / X.shape[0]


def _dense_columns(X: Any, columns: np.ndarray) -> np.ndarray:
    sub = X[:, columns]
    return sub.toarray() if sp.issparse(sub) else np.array(sub)


class DataExplorer(Explorer):
    """Q-α, sparse PCA/LDA, stability and weighting on one data matrix, linked.

    Sliders: ``n_clusters`` (k of Q-α's eigen-step, and the k-means clusters that colour the
    PCA pictures without y), ``k`` (cardinality of the sparse PCA/LDA support), ``lam`` (the
    ridge λ of B + λI, Sec. 3.2) and ``confidence`` (coverage of the bootstrap intervals).

    Parameters
    ----------
    X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
        The data, samples as rows (a DataFrame's column names become feature names).
    y : array-like of shape (n_samples,), optional
        Class labels: the sparse view is then sparse LDA (A, B the between- and
        within-class scatter) instead of sparse PCA (A the covariance, B = I), and the PCA
        pictures are coloured by class.
    feature_names : sequence of str, optional
        One name per column of X.
    n_candidates : int
        Q-α top features handed to the sparse and stability views (4 … 40; default 20).
    max_features : int
        Features Q-α and the weighting run on; wider X is screened to this many, of largest
        variance (default 2000).
    n_resamples : int
        Bootstrap resamples of the stability view (20 … 1000; default 100).
    memory_limit : int
        Bytes the dense working copy may take (default 512 MiB); more is refused.
    eslda_seconds : float
        Search time at one k after which the exact search stops with its certified bound.
    random_state : int
        Seed of Q-α's start, the bootstrap, k-means and SbS.
    **values
        Starting values of the sliders by name (``n_clusters``, ``k``, ``lam``,
        ``confidence``).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.widgets import DataExplorer
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 8))
    >>> X[:20, :2] += 3
    >>> explorer = DataExplorer(X, np.repeat([0, 1], 20), k=3)
    >>> len(explorer.selected_features())
    3
    >>> explorer.close()
    """

    figsize = (8.0, 6.4)  # a 1280 px screen beside JupyterLab's side bar
    cache_size = 32

    def __init__(
        self,
        X: Any,
        y: Any = None,
        *,
        feature_names: Sequence[str] | None = None,
        n_candidates: int = 20,
        max_features: int = 2000,
        n_resamples: int = 100,
        memory_limit: int = 512 * 1024**2,
        eslda_seconds: float = 2.0,
        random_state: int = 0,
        **values: Any,
    ):
        self._frame_input = hasattr(X, "columns") and hasattr(X, "dtypes")
        self._named = feature_names is not None
        X, names = _as_data(X, feature_names)
        n, p = X.shape
        self.random_state = check_int(random_state, "random_state", low=0)
        self.n_resamples = check_int(n_resamples, "n_resamples", low=20, high=1000)
        self.max_features = check_int(max_features, "max_features", low=2)
        memory_limit = check_int(memory_limit, "memory_limit", low=1)
        self.eslda_seconds = check_finite_scalar(eslda_seconds, "eslda_seconds", low=0.0,
                                                 low_inclusive=False)
        self.y = None if y is None else check_labels(y, n, "y")
        if self.y is not None:
            _, counts = np.unique(self.y, return_counts=True)
            if counts.min() < 2:
                raise ValueError("y has a class with a single sample; sparse LDA's "
                                 "within-class scatter needs at least 2 samples per class.")
        #: What the explorer did to fit the data in an interactive budget (screening).
        self.notes: list[str] = []
        variance = _column_variance(X)
        usable = np.flatnonzero(variance > 1e-12 * max(float(variance.max()), 1e-300))
        if usable.size < 2:
            raise ValueError("X has fewer than 2 non-constant columns; nothing to select.")
        if usable.size < p:
            self.notes.append(f"{p - usable.size} constant column(s) left out.")
        if usable.size > self.max_features:
            order = usable[np.argsort(-variance[usable], kind="stable")]
            usable = np.sort(order[: self.max_features])
            self.notes.append(
                f"{p:,} features: the explorer works on the {self.max_features:,} of largest "
                "variance (pass max_features= to change it; Q-α costs about "
                "n_samples × features per iteration)."
            )
        needed = n * usable.size * 8
        if needed > memory_limit:
            raise ValueError(
                f"X of {n:,} × {usable.size:,} needs {needed / 1e9:.2g} GB as a dense working "
                f"copy, over memory_limit={memory_limit / 1e9:.2g} GB; pass a smaller "
                "max_features or memory_limit= that large."
            )
        self.sparse_input = sp.issparse(X)
        #: Column indices (into X) of the working features, and their names.
        self.columns = usable
        self.feature_names = ([f"x{j}" for j in usable] if names is None
                              else [names[j] for j in usable])
        self.X = _dense_columns(X, usable) if self.sparse_input else X[:, usable].copy()
        self.shape = (n, p)
        self.n_candidates = check_int(n_candidates, "n_candidates", low=4, high=40)
        self.n_candidates = min(self.n_candidates, usable.size)
        self.statistic = "cosine" if self.sparse_input else "covariance"
        self._selection: np.ndarray | None = None
        self._qalpha: OrderedDict[int, QAlphaResult] = OrderedDict()
        self._pairs: OrderedDict[tuple, dict] = OrderedDict()
        self._boot: OrderedDict[bytes, BootstrapDistribution] = OrderedDict()
        self._sbs: OrderedDict[tuple, Any] = OrderedDict()
        self._weights = None
        self._pca: dict[str, np.ndarray] = {}
        self._clusters: dict[int, np.ndarray] = {}
        self._variance = variance[usable]
        self._ranking: np.ndarray | None = None
        self._pair: dict = {}
        self._report: Any = None
        super().__init__(**values)

    # -- controls ---------------------------------------------------------------------------
    def _build_controls(self) -> dict[str, widgets.Widget]:
        c = self.n_candidates
        n_max = int(min(8, self.X.shape[0] - 1, self.X.shape[1] - 1))
        return {
            "n_clusters": make_slider("n_clusters", min=1, max=max(n_max, 1),
                                      value=min(2, max(n_max, 1))),
            "k": make_slider("k", min=1, max=c, value=min(5, c)),
            "lam": make_slider("lam", value=0.1),
            "confidence": make_slider("confidence"),
        }

    # -- library calls (cached) ----------------------------------------------------------------
    @property
    def M(self) -> np.ndarray:
        """Working features as rows (the papers' n × q)."""
        return self.X.T

    def qalpha(self, n_clusters: int) -> QAlphaResult:
        """Q-α with k = ``n_clusters`` on the working features (Defs. 1–5)."""
        k = int(n_clusters)
        if k not in self._qalpha:
            self._remember(self._qalpha, k,
                           q_alpha(self.M, k, random_state=self.random_state))
        return self._qalpha[k]

    def candidates(self, n_clusters: int) -> np.ndarray:
        """Working-feature indices of the ``n_candidates`` largest α, largest first."""
        alpha = self.qalpha(n_clusters).alpha
        return np.argsort(-alpha, kind="stable")[: self.n_candidates]

    def pair(self, n_clusters: int, lam: float) -> dict:
        """A, B on the Q-α candidates, the generalized spectrum (B + λI) and GSLDA's path."""
        return self.pair_for(self.candidates(n_clusters), lam)

    def pair_for(self, cand: np.ndarray, lam: float) -> dict:
        """:meth:`pair` for given candidates (working-feature indices)."""
        key = (cand.tobytes(), round(float(lam), 12))
        hit = self._pairs.get(key)
        if hit is None:
            Xc = self.X[:, cand]
            if self.y is not None:
                sm = scatter_matrices(Xc, self.y)
                A, B = sm.A, sm.B
            else:
                A, B = np.cov(Xc, rowvar=False), np.eye(cand.size)
            lam = float(lam)
            hit = {
                "candidates": cand, "A": A, "B": B, "lam": lam,
                "spectrum": generalized_spectrum(A, B, regularization=lam),
                "gslda": gslda(A, B, regularization=lam),
                "mp": check_pair(A, B, lam), "searches": {}, "stopped": set(),
            }
            self._remember(self._pairs, key, hit)
        return hit

    def search(self, pair: dict, k: int) -> ESLDASearch:
        if k not in pair["searches"]:
            g: GSLDAPath = pair["gslda"]
            pair["searches"][k] = ESLDASearch(pair["mp"], k, g.support_at(k))
        return pair["searches"][k]

    def support(self, pair: dict, k: int) -> tuple[str, np.ndarray, float]:
        """Best known k-subset of the candidates: (method, positions, λ_max(A_S, B_S))."""
        g: GSLDAPath = pair["gslda"]
        best = ("GSLDA", g.support_at(k), float(g.values[k - 1]))
        run = pair["searches"].get(k)
        if run is not None and run.value >= best[2] * (1 - 1e-12):
            best = ("exact" if run.optimal else "search", np.sort(run.support), float(run.value))
        return best

    def bootstrap(self, cand: np.ndarray) -> BootstrapDistribution:
        key = cand.tobytes()
        if key not in self._boot:
            self._remember(self._boot, key, bootstrap_distribution(
                self.X[:, cand], self.statistic, self.n_resamples, self.random_state))
        return self._boot[key]

    def sbs_result(self, cand: np.ndarray, confidence: float) -> Any:
        """SbS (Algorithm 1) on the candidates, from the same resamples."""
        key = (cand.tobytes(), round(float(confidence), 9))
        if key not in self._sbs:
            variant = "lsi" if self.statistic == "cosine" else "pca"
            self._remember(self._sbs, key, sbs(
                self.X[:, cand], variant, 0.5, confidence=float(confidence),
                n_resamples=self.n_resamples, random_state=self.random_state,
                progress=False, full_trajectory=False))
        return self._sbs[key]

    def weights(self) -> Any:
        """Algorithm 2's weights of the working features (parameter-free)."""
        if self._weights is None:
            self._weights = parameter_free_weights(self.M)
        return self._weights

    def projections(self) -> dict[str, np.ndarray]:
        """Embeddings of PCA before and after Algorithm 2's weighting (2 components)."""
        if not self._pca:
            self._pca["before"] = weighted_pca(self.M, None, 2).embedding
            self._pca["after"] = weighted_pca(self.M, self.weights().alpha, 2).embedding
        return self._pca

    def clusters(self, n_clusters: int) -> np.ndarray:
        """k-means clusters of the weighted embedding (colours without y)."""
        k = int(n_clusters)
        if k not in self._clusters:
            if k == 1:
                self._clusters[k] = np.zeros(self.X.shape[0], dtype=int)
            else:
                from sklearn.cluster import KMeans

                self._clusters[k] = KMeans(k, n_init=4, random_state=self.random_state) \
                    .fit_predict(self.projections()["after"])
        return self._clusters[k]

    def _remember(self, cache: OrderedDict, key: Any, value: Any) -> Any:
        cache[key] = value
        cache.move_to_end(key)
        if len(cache) > self.cache_size:
            cache.popitem(last=False)
        return value

    # -- linked selection ---------------------------------------------------------------------
    def select(self, names: Sequence[str] | None) -> DataExplorer:
        """Make ``names`` the selection every view shows (None: back to the sparse support)."""
        if names is None:
            self._selection = None
        else:
            if isinstance(names, str):
                names = [names]
            index = {name: i for i, name in enumerate(self.feature_names)}
            unknown = [s for s in names if s not in index]
            if unknown:
                raise ValueError(f"names {unknown[:5]} are not among the explorer's features "
                                 "(constant or screened-out columns are left out).")
            if not names:
                raise ValueError("names must hold at least one feature name.")
            self._selection = np.array(sorted({index[s] for s in names}), dtype=np.intp)
        self.refresh(raise_errors=True, finish=True)
        return self

    def selection(self) -> np.ndarray:
        """Working-feature indices of the current selection."""
        if self._selection is not None:
            return self._selection
        pair = self._pair
        _, pos, _ = self.support(pair, int(self.values["k"]))
        return pair["candidates"][pos]

    def selected_features(self) -> list[str]:
        """Names of the selected features (the sparse support at k, or :meth:`select`'s)."""
        return [self.feature_names[j] for j in self.selection()]

    # -- drawing ------------------------------------------------------------------------------
    def _draw(self, figure: Figure) -> None:
        # Fixed margins instead of constrained layout, which costs seconds on eight panels
        # of a loaded machine (every tick label measured) before the first picture.
        figure.set_layout_engine("none")
        grid = figure.subplots(2, 4, gridspec_kw={
            "left": 0.075, "right": 0.985, "top": 0.95, "bottom": 0.08, "wspace": 0.62,
            "hspace": 0.48})
        (ax_alpha, ax_sparse, ax_gaps, ax_int), (ax_w, ax_support, ax_before, ax_after) = grid
        self.axes = grid
        # Q-α: the top features by name as horizontal bars (α ÷ α_max).
        self.alpha_bars = ax_alpha.barh(np.arange(N_BARS), np.zeros(N_BARS), height=0.75,
                                        color="0.7").patches
        self.alpha_names = [ax_alpha.text(0.02, i, "", va="center", fontsize=7)
                            for i in range(N_BARS)]
        ax_alpha.set_xlim(0.0, 1.05)
        ax_alpha.set_ylim(N_BARS + 1.4, -0.6)  # room at the bottom for two lines of text
        ax_alpha.set_yticks([])
        ax_alpha.set_xlabel(r"$\alpha_i / \max\,\alpha$")
        ax_alpha.set_title("Q-α: top features")
        self.alpha_text = ax_alpha.text(0.98, 0.02, "", transform=ax_alpha.transAxes,
                                        ha="right", va="bottom", fontsize=7)
        # Sparse PCA/LDA: λ_max(A_k, B_k) ÷ λ_max(A, B) against k/c inside Eq. 8's band.
        self.band = ax_sparse.fill_between([0, 1], [0, 0], [1, 1], color="0.88", lw=0,
                                           label="Eq. 8 bounds")
        self.gslda_line, = ax_sparse.plot([], [], "o-", ms=3, lw=1.2, color="tab:blue",
                                          label="GSLDA")
        self.exact_bar = ax_sparse.plot([], [], color="tab:red", lw=4, alpha=0.35,
                                        solid_capstyle="butt")[0]
        self.exact_point, = ax_sparse.plot([], [], "D", color="tab:red", ms=5,
                                           label="exact search")
        self.k_line = ax_sparse.axvline(0.5, color="0.3", ls=":", lw=1)
        self.sparse_text = ax_sparse.text(0.98, 0.03, "", transform=ax_sparse.transAxes,
                                          ha="right", va="bottom", fontsize=7)
        ax_sparse.set_xlim(0.0, 1.04)
        ax_sparse.set_ylim(0.0, 1.08)
        ax_sparse.set_xlabel("$k$ / candidates")
        ax_sparse.set_ylabel(r"$\lambda_{\max}(A_S, B_S)/\lambda_{\max}(A, B)$")
        ax_sparse.set_title("sparse LDA" if self.y is not None else "sparse PCA")
        ax_sparse.legend(loc="upper left", fontsize=7, frameon=False)
        # Stability: eigengaps ÷ λ₁ against 4‖E‖₂ ÷ λ₁ (Lemma 1).
        c = self.n_candidates
        self.eigengaps = plot_eigengaps(ax_gaps, np.linspace(c, 1.0, c), 1.0)
        ax_gaps.get_legend().remove()
        ax_gaps.set_xlim(0.3, c - 0.3)
        ax_gaps.xaxis.set_major_locator(MaxNLocator(5, integer=True))
        ax_gaps.set_ylim(0.0, 1.1)
        ax_gaps.set_ylabel(r"$(\lambda_k-\lambda_{k+1})/\lambda_1$")
        ax_gaps.set_title(r"gaps vs $4\Vert E\Vert_2$")
        self.gaps_text = ax_gaps.text(0.97, 0.97, "", transform=ax_gaps.transAxes,
                                      ha="right", va="top", fontsize=7)
        # Bootstrap intervals of the selected features' entries (÷ max |A|).
        self.intervals = ax_int.add_collection(LineCollection([], colors="tab:purple", lw=1.5))
        self.estimates, = ax_int.plot([], [], "_", color="black", ms=5)
        ax_int.axhline(0.0, color="0.6", lw=0.6)
        ax_int.set_xlim(0.0, 1.0)
        ax_int.set_ylim(-1.1, 1.1)
        ax_int.set_xticks([])
        ax_int.set_xlabel("entries $(i, j)$")
        ax_int.set_title("bootstrap CIs")
        self.int_text = ax_int.text(0.02, 0.02, "", transform=ax_int.transAxes, fontsize=7,
                                    va="bottom")
        # Weighting: Algorithm 2's weights sorted, the selection marked.
        self.w_line, = ax_w.plot([], [], color="tab:green", lw=1.2)
        self.w_marks, = ax_w.plot([], [], "o", color="tab:red", ms=4, label="selected")
        ax_w.set_xlim(0.0, 1.0)
        ax_w.set_ylim(0.0, 1.08)
        ax_w.set_xlabel("rank / features")
        ax_w.set_ylabel(r"$\alpha_i / \max\,\alpha$")
        ax_w.set_title("weights (Algo. 2)")
        ax_w.legend(loc="upper right", fontsize=7, frameon=False)
        # Support strip: rows Q-α top-k, sparse support, selection; columns the candidates.
        self.strip = ax_support.imshow(np.zeros((3, c)), cmap="Greys", vmin=0, vmax=1,
                                       aspect="auto", extent=(0, c, 2.5, -0.5))
        ax_support.set_yticks([0, 1, 2], ["Q-α top k", "support", "selection"], fontsize=7)
        ax_support.set_xlabel("candidates (Q-α rank)")
        ax_support.set_title("linked selection")
        # PCA before / after weighting.
        n = self.X.shape[0]
        zeros = np.zeros((n, 2))
        self.before = plot_cluster_projection(ax_before, zeros, np.zeros(n, int),
                                              normalize=True, size=8, title="PCA")
        self.after = plot_cluster_projection(ax_after, zeros, np.zeros(n, int),
                                             normalize=True, size=8,
                                             title="PCA, weighted")
        for ax in (ax_before, ax_after):
            ax.set_xticks([])
            ax.set_yticks([])
        # Eight panels in the width of one explorer (800 px beside JupyterLab's side bar).
        # An explicit title height: matplotlib's automatic one measures every axis's tick
        # labels on each full draw (a seventh of the first picture); no panel has top labels.
        for ax in grid.flat:
            ax.set_title(ax.get_title(), y=1.0, fontsize=10)
            ax.xaxis.label.set_fontsize(9)
            ax.yaxis.label.set_fontsize(9)
            ax.tick_params(labelsize=8)
        # The band first: animated artists are drawn in this order, the curves over it.
        self.animate(self.band, *self.alpha_bars, *self.alpha_names, self.alpha_text,
                     self.gslda_line,
                     self.exact_bar, self.exact_point, self.k_line, self.sparse_text,
                     *self.eigengaps.bars, self.eigengaps.threshold, self.gaps_text,
                     self.intervals, self.estimates, self.int_text, self.w_line,
                     self.w_marks, self.strip, self.before["points"], self.after["points"])

    # -- rendering ----------------------------------------------------------------------------
    def _render(self, values: dict[str, Any]) -> Iterator[None] | None:
        kc, k = int(values["n_clusters"]), int(values["k"])
        lam, confidence = float(values["lam"]), float(values["confidence"])
        # Q-α and the weighting cost seconds on wide data: the first picture uses what is
        # at hand (the last Q-α computed, or the screening variance before any) and the
        # refinement steps bring the rest, so that a slider move answers at once.
        res = self._qalpha.get(kc)
        if res is not None:
            ranking, exact_alpha = res.alpha, True
        elif self._ranking is not None:
            ranking, exact_alpha = self._ranking, False
        else:
            ranking, exact_alpha = self._variance, False
        self._ranking = ranking

        def show(pair: dict, result: Any = None) -> None:
            self._pair = pair
            self._show_qalpha(ranking if not exact_alpha else self._qalpha[kc].alpha, pair,
                              kc, exact_alpha)
            self._show_sparse(pair, k)
            self._show_stability(pair, k, confidence, result)
            self._show_weighting(kc)
            self._show_status(pair, k, confidence, result)

        cand = np.argsort(-ranking, kind="stable")[: self.n_candidates]
        show(self.pair_for(cand, lam))

        def refine() -> Iterator[None]:
            nonlocal ranking, exact_alpha
            if not exact_alpha:
                self.qalpha(kc)
                ranking, exact_alpha = self._qalpha[kc].alpha, True
                self._ranking = ranking
                show(self.pair(kc, lam))
                yield
            if self._weights is None:
                self.weights()
                show(self._pair)
                yield
            if not self._pca:
                self.projections()
                show(self._pair)
                yield
            pair = self._pair
            while k not in pair["stopped"]:
                run = self.search(pair, k)
                if run.optimal:
                    break
                run.advance(time.perf_counter()
                            + min(self.step_budget, self.eslda_seconds - run.seconds))
                if not run.optimal and run.seconds >= self.eslda_seconds:
                    run.stop()
                    pair["stopped"].add(k)
                show(pair)
                yield
            show(pair, self.sbs_result(pair["candidates"], confidence))
            yield

        return refine()

    def _show_qalpha(self, alpha: np.ndarray, pair: dict, n_clusters: int,
                     exact: bool) -> None:
        order = np.argsort(-alpha, kind="stable")[:N_BARS]
        top = float(alpha[order[0]]) if alpha[order[0]] > 0 else 1.0
        chosen = set(self.selection().tolist())
        for i, rect in enumerate(self.alpha_bars):
            if i < order.size:
                j = order[i]
                rect.set_width(max(float(alpha[j]) / top, 0.0))
                rect.set_facecolor("tab:red" if j in chosen else "tab:blue")
                self.alpha_names[i].set_text(self.feature_names[j])
            else:
                rect.set_width(0.0)
                self.alpha_names[i].set_text("")
        mask = np.zeros(alpha.size, dtype=bool)
        mask[pair["candidates"]] = True
        if not exact:
            self.alpha_text.set_text(f"computing Q-α (k = {n_clusters})…")
            return
        text = f"k = {n_clusters}"
        if mask.sum() < alpha.size:  # two short lines: one line ran out of the panel
            text += (f" · top {int(mask.sum())}\n"
                     f"sparsity gap {sparsity_gap(alpha, mask):.3g}")
        self.alpha_text.set_text(text)

    def _show_sparse(self, pair: dict, k: int) -> None:
        c = pair["candidates"].size
        spectrum = np.sort(np.asarray(pair["spectrum"], dtype=float))
        scale = float(spectrum[-1]) if spectrum[-1] > 0 else 1.0
        ks = np.arange(1, c + 1)
        x = ks / c
        lower = spectrum[:c] / scale  # λ_k(A, B) ascending: Eq. 8's lower bound at k
        upper = np.full(c, spectrum[-1] / scale)
        verts = np.concatenate([np.column_stack([x, lower]),
                                np.column_stack([x[::-1], upper[::-1]])])
        self.band.set_verts([verts])
        self.gslda_line.set_data(x, np.asarray(pair["gslda"].values) / scale)
        run = pair["searches"].get(k)
        if run is not None:
            self.exact_point.set_data([k / c], [run.value / scale])
            self.exact_bar.set_data([k / c, k / c],
                                    [run.value / scale, min(run.upper_bound, spectrum[-1])
                                     / scale])
        else:
            self.exact_point.set_data([], [])
            self.exact_bar.set_data([], [])
        self.k_line.set_xdata([k / c, k / c])
        self.sparse_text.set_text(self._search_words(pair, k))

    def _search_words(self, pair: dict, k: int) -> str:
        run = pair["searches"].get(k)
        if run is None:
            return "exact search: waiting"
        if run.optimal:
            return f"k = {k}: certified optimal"
        if k in pair["stopped"]:
            return f"k = {k}: stopped, gap ≤ {run.upper_bound / run.value - 1:.2g}"
        return f"k = {k}: searching ({run.nodes} nodes)"

    def _show_stability(self, pair: dict, k: int, confidence: float, result: Any) -> None:
        cand = pair["candidates"]
        rep = stability_report(self.bootstrap(cand), confidence)
        lam = np.asarray(rep.eigenvalues, dtype=float)
        scale = float(lam.max()) if lam.max() > 0 else 1.0
        self.eigengaps.update(lam / scale, rep.threshold / scale, rep.stable_ks,
                              rescale=False)
        ks = ", ".join(str(s) for s in rep.stable_ks[:6]) or "none"
        self.gaps_text.set_text(f"stable k: {ks}")
        # Intervals of the entries (i ≤ j) among the selected candidates.
        sel = self.selection()
        pos = np.flatnonzero(np.isin(cand, sel))
        iu = np.triu_indices(pos.size)
        rows, cols = pos[iu[0]], pos[iu[1]]
        iv = rep.intervals
        low, up = iv.lower[rows, cols], iv.upper[rows, cols]
        est = iv.estimate[rows, cols]
        ref = float(np.abs(iv.estimate).max()) or 1.0
        xs = (np.arange(rows.size) + 0.5) / max(rows.size, 1)
        self.intervals.set_segments([[(x, lo / ref), (x, hi / ref)]
                                     for x, lo, hi in zip(xs, low, up)])
        self.estimates.set_data(xs, est / ref)
        words = f"{rows.size} entries"
        if pos.size < sel.size:
            words += f" ({sel.size - pos.size} selected outside the candidates)"
        if result is not None:
            words += f"\nSbS prunes {result.removed.size} of {cand.size}"
        self.int_text.set_text(words)
        self._report = rep

    def _show_weighting(self, n_clusters: int) -> None:
        sel = self.selection()
        if self._weights is None:
            self.w_line.set_data([], [])
            self.w_marks.set_data([], [])
            w = None
        else:
            w = self._weights.alpha
        if w is not None:
            self._show_weights(w, sel)
        self._show_projection(n_clusters, sel)

    def _show_weights(self, w: np.ndarray, sel: np.ndarray) -> None:
        order = np.argsort(-w, kind="stable")
        top = float(w[order[0]]) if w[order[0]] > 0 else 1.0
        rank = np.empty(w.size, dtype=int)
        rank[order] = np.arange(w.size)
        xs = (np.arange(w.size) + 0.5) / w.size
        self.w_line.set_data(xs, w[order] / top)
        self.w_marks.set_data(xs[rank[sel]], w[sel] / top)

    def _show_projection(self, n_clusters: int, sel: np.ndarray) -> None:
        if self._pca:
            labels = self.y if self.y is not None else self.clusters(n_clusters)
            codes = np.unique(labels, return_inverse=True)[1] % 10
            emb = self._pca
            update_cluster_projection(self.before, emb["before"], codes, normalize=True,
                                      rescale=False)
            update_cluster_projection(self.after, emb["after"], codes, normalize=True,
                                      rescale=False)
        else:
            for art in (self.before, self.after):
                art["points"].set_offsets(np.empty((0, 2)))
        # The strip: Q-α top-k, the support and the selection among the candidates.
        cand = self._pair["candidates"]
        k = int(self.values["k"])
        _, pos, _ = self.support(self._pair, k)
        strip = np.zeros((3, cand.size))
        strip[0, :k] = 1.0
        strip[1, pos] = 1.0
        strip[2] = np.isin(cand, sel)
        self.strip.set_data(strip)

    def _show_status(self, pair: dict, k: int, confidence: float, result: Any) -> None:
        method, _, value = self.support(pair, k)
        names = ", ".join(self.selected_features()[:8])
        text = (f"{self.shape[0]} samples × {self.shape[1]} features. Selected ({method}, "
                f"λ_max = {value:.4g}): {names}. {self._search_words(pair, k)}.")
        rep = self._report
        text += f" ‖E‖₂ = {rep.eigenvalues_E[0]:.3g} at confidence {confidence:.2f}."
        if result is not None:
            pruned = [self.feature_names[j] for j in pair["candidates"][result.removed]][:6]
            text += f" SbS prunes {result.removed.size}: {', '.join(pruned) or 'none'}."
        if self.notes:
            text += " " + " ".join(self.notes)
        self.status.value = text

    # -- code for what you see ------------------------------------------------------------------
    def code(self) -> str:
        """The library calls that produce the current picture, as a script (``X``, ``y`` and
        ``feature_names`` stand for what was passed to :func:`explore`)."""
        v = self.values
        kc, k, lam, conf = int(v["n_clusters"]), int(v["k"]), float(v["lam"]), float(
            v["confidence"])
        sel = self.selected_features()
        lines = [
            "import numpy as np",
            "from spectral_kit import q_alpha",
            "from spectral_kit.sparse_lda import eslda, gslda, inclusion_bounds"
            + (", scatter_matrices" if self.y is not None else ""),
            "from spectral_kit.stability import bootstrap_distribution, sbs, "
            "stability_report",
            "from spectral_kit.weighting import parameter_free_weights, weighted_pca",
            "",
        ]
        # X, y and feature_names stand for what was passed to explore().
        if self._frame_input:
            lines += ["feature_names = [str(c) for c in X.columns]",
                      "X = X.to_numpy(dtype=float)"]
        elif not self._named:
            lines.append("feature_names = [f'x{j}' for j in range(X.shape[1])]")
        if self.columns.size < self.shape[1]:
            lines.append("# working features (constant or screened-out columns left out)")
            lines.append(f"columns = np.array({self.columns.tolist()!r})")
            lines.append("Xw = X[:, columns]" + (".toarray()" if self.sparse_input else ""))
            lines.append("names = [feature_names[j] for j in columns]")
        else:
            lines.append("Xw = X" + (".toarray()" if self.sparse_input else ""))
            lines.append("names = list(feature_names)")
        lines += [
            f"res = q_alpha(Xw.T, {kc}, random_state={self.random_state})  # Q-α, k = {kc}",
            f"cand = np.argsort(-res.alpha, kind='stable')[:{self.n_candidates}]",
        ]
        if self.y is not None:
            lines.append("sm = scatter_matrices(Xw[:, cand], y)  # sparse LDA")
            lines.append("A, B = sm.A, sm.B")
        else:
            lines.append("A, B = np.cov(Xw[:, cand], rowvar=False), np.eye(cand.size)"
                         "  # sparse PCA")
        lines += [
            f"path = gslda(A, B, regularization={lam:.6g})",
            f"bounds = inclusion_bounds(A, B, {k}, regularization={lam:.6g})  # Eq. 8",
            f"best = eslda(A, B, {k}, regularization={lam:.6g}, "
            f"max_seconds={self.eslda_seconds:g})",
            "selected = [names[j] for j in cand[best.support]]",
            f"dist = bootstrap_distribution(Xw[:, cand], {self.statistic!r}, "
            f"{self.n_resamples}, {self.random_state})",
            f"report = stability_report(dist, {conf:.6g})  # Lemma 1, Stewart",
            f"pruned = sbs(Xw[:, cand], {'lsi' if self.statistic == 'cosine' else 'pca'!r}, "
            f"0.5, confidence={conf:.6g}, n_resamples={self.n_resamples}, "
            f"random_state={self.random_state}).removed",
            "w = parameter_free_weights(Xw.T)  # Algorithm 2",
            "before, after = weighted_pca(Xw.T, None, 2), weighted_pca(Xw.T, w.alpha, 2)",
            f"# selected now: {sel}",
        ]
        return "\n".join(lines) + "\n"

    @property
    def widget(self) -> widgets.Widget:
        """The explorer with a "code" button that shows :meth:`code`."""
        box = super().widget
        button = widgets.Button(description="Code", icon="code",
                                tooltip="the library calls behind this picture",
                                layout=widgets.Layout(width="90px"))
        out = widgets.HTML()

        def show(_button: Any) -> None:
            from html import escape

            out.value = f"<pre style='font-size:11px'>{escape(self.code())}</pre>"

        button.on_click(show)
        return widgets.VBox([box, widgets.HBox([button]), out])


def explore(X: Any, y: Any = None, *, feature_names: Sequence[str] | None = None,
            **options: Any) -> DataExplorer:
    """Explore a data matrix with the four papers' views, linked (see :class:`DataExplorer`).

    Parameters
    ----------
    X : array-like, DataFrame or sparse matrix of shape (n_samples, n_features)
    y : array-like of shape (n_samples,), optional
        Class labels.
    feature_names : sequence of str, optional
    **options
        Passed to :class:`DataExplorer` (``n_candidates``, ``max_features``, slider values,
        ...).

    Returns
    -------
    DataExplorer
        Displayed in a notebook as one live figure; ``selected_features()`` and ``code()``
        work without a display.

    Examples
    --------
    Two classes that differ in the first two of eight features:

    >>> import numpy as np
    >>> from spectral_kit import explore
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(40, 8))
    >>> X[:20, :2] += 3
    >>> y = np.repeat([0, 1], 20)
    >>> explorer = explore(X, y, feature_names=[f"g{i}" for i in range(8)])
    >>> explorer.selected_features()[:2]
    ['g0', 'g1']
    >>> print(explorer.code().splitlines()[1])
    from spectral_kit import q_alpha
    >>> explorer.close()
    """
    return DataExplorer(X, y, feature_names=feature_names, **options)
