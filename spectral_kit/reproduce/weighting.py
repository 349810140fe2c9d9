"""Reproductions of Wolf & Bileschi (2005): Figs. 1 and 2, the Sec. 2 random-matrix argument,
and a small recognition experiment in the spirit of Table 1.

The report prints no numbers for Figs. 1–2 (only pictures and qualitative claims), and its
Table 1 is on face data sets that are not freely redistributable; so every comparison here is
a claim row -- a printed statement, quoted, with the test the kit applies: a measured
difference decided on its 95 % interval over draws (:func:`compare_claim`), or a measurement
against the band the kit reads the statement as (:func:`compare_claim_band`), such as the
printed formulas of Sec. 2 evaluated at the simulated sizes -- or a number with no published
counterpart.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.spatial.distance import cdist
from sklearn.cluster import KMeans
from sklearn.datasets import load_digits
from sklearn.metrics import silhouette_score

from ..baselines import fisher_score
from ..datasets.wolf_bileschi import (
    haar_features,
    haar_filters,
    make_wolf_bileschi_fig1,
    make_wolf_bileschi_fig2,
    make_wolf_bileschi_ideal,
)
from ..metrics import clustering_accuracy, sparsity_gap
from ..preprocess import preprocess_rows
from ..theory import wishart_top_eigenvalue, wishart_top_eigenvalue_as_printed
from ..validation import as_generator
from ..weighting import (
    detectability,
    parameter_free_weights,
    pca_weights,
    relevant_signal,
    reweight,
    supervised_weights,
    weighted_fda,
    weighted_pca,
)
from ._core import (
    Comparison,
    compare,
    compare_claim,
    compare_claim_band,
    median_ci,
    quote,
    reproduction,
)

__all__ = ["fig1_separation", "fig2_weights", "table1_digits", "wishart_bulk"]

PAPER = "wolf-bileschi-2005"

# -- the paper's words that the rows compare with ----------------------------------------------
Q_PCA_FAILS = quote(
    PAPER, "Sec. 2, 3rd paragraph",
    "As can be seen from Fig. 1, PCA does not perform well in the presence of the irrelevant "
    "features, i.e it fails to separate the clusters.",
)
Q_ALGO2_SOLVES = quote(
    PAPER, "Sec. 2, 3rd paragraph",
    "An application of the simple Algo. 2 presented below solves the problem, and the good "
    "separation between the clusters is clear.",
)
Q_ALGO1_PANEL = quote(
    PAPER, "Fig. 1 caption",
    "they are very different in their capabilities of dealing with irrelevant variables … "
    "(d) The results of applying PCA after weighting according to the α weights recovered by "
    "Algo. 1.",
)
Q_FIG2_CAPTION = quote(
    PAPER, "Fig. 2 caption",
    "Algo. 1 produces sharper results than Algo. 2. The first PCA does not detect the "
    "relevant variables.",
)
Q_LESS_SHARP = quote(
    PAPER, "Sec. 3.1, last paragraph",
    "The results of Algo. 2 are less sharp than those of Algo. 1. The ratio of the average "
    "weights between the relevant and irrelevant features is lower with parameter free "
    "algorithm.",
)
Q_ALGO2_DETECTS = quote(
    PAPER, "Sec. 3.1, last paragraph",
    "Algo. 2 successfully detects the relevant variables, but assigns somewhat higher weights "
    "to the irrelevant variables.",
)
Q_FIRST_PC = quote(
    PAPER, "Sec. 3.1, last paragraph",
    "As it follows, the assignment of weights by taking the first PCA of the data is "
    "uninformative for feature selection purposes.",
)
Q_WISHART_TOP = quote(
    PAPER, "Sec. 2, paragraph “Assume now that in our ideal situation …”",
    "The matrix A₂ here is called a Wishart matrix, and its first eigenvalue distributes with "
    "a mean of n₂/q²(√n₂ + √q)²",
)
Q_WISHART_QUADRATIC = quote(
    PAPER, "Sec. 2, paragraph “Let v₁ be the only eigenvector …”",
    "This element is just the square norm of a vector of n₂ random Gaussians with mean zero "
    "and variance 1/q, and distributes according to a Chi-squared distribution around a mean "
    "of n₂/q².",
)
Q_DROWNED = quote(
    PAPER, "Sec. 2, paragraph “Since v₁ᵀAv₁ = …”",
    "When n₁ + n₂/q² ≪ n₂/q²(√n₂ + √q)², v₁ is not distinguishable from u₁ and any "
    "unsupervised kernel method would fail.",
)
Q_COMPLEX_FEATURES = quote(
    PAPER, "Abstract",
    "The resulting algorithm benefits from complex features as variable selection algorithms "
    "do, and at the same time enjoys the benefits of dimensionality reduction.",
)
Q_WAVELETS_IMPROVE = quote(
    PAPER, "Sec. 6, Face Recognition, 5th paragraph",
    "As shown in Table 1, the use of wavelets together with Algo. 2 improves the results both "
    "for eigenfaces and for fisherfaces.",
)
Q_LARGE_WAVELETS = quote(
    PAPER, "Sec. 6, Face Recognition, last paragraph",
    "The algorithm tends to choose large/medium sized wavelets.",
)

#: σ of the cluster standard deviations: the footnote as printed, and well separated clusters.
SIGMA_FOOTNOTE = 1.0
SIGMA_SEPARATED = 0.1


def _median(values: np.ndarray) -> float:
    """Median, or NaN for no values (a quick run may have no draw on one side)."""
    return float(np.median(values)) if values.size else float("nan")


def _mean(values: np.ndarray) -> float:
    return float(np.mean(values)) if values.size else float("nan")


SIGMA_NOTE = {
    SIGMA_SEPARATED: "Kit's choice: σ = 0.1, well separated clusters (the paper's footnote "
                     "draws variances in [0.5, 1.5], i.e. σ ≈ 1: see the σ = 1 rows)",
    SIGMA_FOOTNOTE: "σ = 1, the footnote's scale (the paper's choice)",
}


# ------------------------------------------------------------------------------ Fig. 1

FIG1_METHODS = ("PCA, 3 relevant", "PCA, all 203", "PCA, normalised", "Algo. 1 + PCA",
                "Algo. 2 + PCA")


def _fig1_embeddings(M: np.ndarray, relevant: np.ndarray) -> dict[str, np.ndarray]:
    """The first two components of every Fig. 1 panel for one data set."""
    alpha1 = pca_weights(M, 2).alpha
    alpha2 = parameter_free_weights(M).alpha
    return {
        "PCA, 3 relevant": weighted_pca(M[relevant], None, 2, preprocess=False).embedding,
        "PCA, all 203": weighted_pca(M, None, 2, preprocess=False).embedding,
        "PCA, normalised": weighted_pca(M, None, 2).embedding,
        "Algo. 1 + PCA": weighted_pca(M, alpha1, 2).embedding,
        "Algo. 2 + PCA": weighted_pca(M, alpha2, 2).embedding,
    }


def _spike_overlap(M: np.ndarray, relevant: np.ndarray) -> float:
    """cos² between the top eigenvectors of A = MᵀM and of A₁ (normalised rows)."""
    Mp = preprocess_rows(M)
    u = np.linalg.eigh(Mp.T @ Mp)[1][:, -1]
    M1 = Mp[relevant]
    w = np.linalg.eigh(M1.T @ M1)[1][:, -1]
    return float(u @ w) ** 2


def _separation(Z: np.ndarray, y: np.ndarray, seed: int) -> tuple[float, float]:
    labels = KMeans(n_clusters=2, n_init=10, random_state=seed).fit_predict(Z)
    return clustering_accuracy(y, labels), float(silhouette_score(Z, y))


@reproduction(
    f"{PAPER}/fig1", PAPER,
    "Fig. 1: two clusters on the first two components, with 200 permuted features",
)
def fig1_separation(*, quick: bool = False, random_state: int = 0):
    """k-means accuracy and silhouette of the two clusters on the first two components.

    For PCA of the 3 relevant coordinates (Fig. 1b), PCA of all 203 (Fig. 1c), PCA of the
    normalised features (the control), and PCA after Algo. 1 (k = 2, the two components
    shown) and Algo. 2 weights (Fig. 1d); medians over 20 draws (3 in quick mode), at the
    footnote's scale σ = 1 and at σ = 0.1. k-means (k = 2, 10 starts) accuracy is the best
    matching of clusters to the true labels; the silhouette uses the true labels.
    """
    n_seeds = 3 if quick else 20
    results: dict[float, dict[str, Any]] = {}
    for sigma in (SIGMA_SEPARATED, SIGMA_FOOTNOTE):
        acc = {m: np.empty(n_seeds) for m in FIG1_METHODS}
        sil = {m: np.empty(n_seeds) for m in FIG1_METHODS}
        theta, overlap = np.empty(n_seeds), np.empty(n_seeds)
        for s in range(n_seeds):
            seed = random_state + s
            data = make_wolf_bileschi_fig1(sigma=sigma, random_state=seed)
            theta[s] = relevant_signal(data.M[data.relevant])
            overlap[s] = _spike_overlap(data.M, data.relevant)
            for method, Z in _fig1_embeddings(data.M, data.relevant).items():
                acc[method][s], sil[method][s] = _separation(Z, data.y, seed)
        results[sigma] = {
            "accuracy": acc, "silhouette": sil, "theta": theta, "overlap": overlap,
        }
    comparisons = []
    for sigma, label in ((SIGMA_SEPARATED, "σ = 0.1"), (SIGMA_FOOTNOTE, "σ = 1 (footnote)")):
        med = {m: float(np.median(v)) for m, v in results[sigma]["accuracy"].items()}
        sil = {m: float(np.median(v)) for m, v in results[sigma]["silhouette"].items()}
        for method in FIG1_METHODS:
            comparisons.append(Comparison(
                f"k-means accuracy, {method}, {label}, median", med[method], None,
                "not published", f"silhouette {sil[method]:.2f}",
            ))
        res = results[sigma]
        acc = res["accuracy"]
        if sigma == SIGMA_SEPARATED:
            # Sec. 2: PCA of the normalised features sees the relevant structure only when θ
            # of the relevant coordinates exceeds 1 + √(n₂/q) (the kit's corrected threshold).
            above = res["theta"] > detectability(1.0, 200, 100).threshold
            pca_acc = acc["PCA, normalised"]
            hi, lo = _median(pca_acc[above]), _median(pca_acc[~above])
            predicted = np.array(
                [detectability(t, 200, 100).overlap for t in res["theta"][above]]
            )
            comparisons += [
                Comparison(
                    f"PCA (normalised) accuracy, median of draws with θ > 1 + √2 ({label})",
                    hi, None, "not published",
                    f"{int(above.sum())} of {above.size} draws; cos²(top PC, top relevant "
                    f"direction) measured {_mean(res['overlap'][above]):.2f}, predicted "
                    f"{_mean(predicted):.2f}; the threshold is the kit's corrected Sec. 2 "
                    "condition, not a printed one",
                ),
                Comparison(
                    f"PCA (normalised) accuracy, median of draws with θ ≤ 1 + √2 ({label})",
                    lo, None, "not published",
                    f"cos² measured {_mean(res['overlap'][~above]):.2f}, predicted 0",
                ),
            ]
        test = ("the 95 % interval of the paired differences over draws lies above 0; the "
                "kit's metric is k-means accuracy on the first two components (the paper shows "
                "scatter plots only)")
        comparisons += [
            compare_claim(
                f"PCA of all 203 loses the clusters ({label}): accuracy of PCA on the 3 "
                "relevant minus on all 203",
                acc["PCA, 3 relevant"] - acc["PCA, all 203"], Q_PCA_FAILS, test=test,
                note="Fig. 1b against 1c. " + SIGMA_NOTE[sigma],
            ),
            compare_claim(
                f"Algo. 1 weighting restores them ({label}): gain over PCA of all 203",
                acc["Algo. 1 + PCA"] - acc["PCA, all 203"], Q_ALGO1_PANEL, test=test,
                note="Fig. 1d; Algo. 1 with k = 2 (the kit's choice). " + SIGMA_NOTE[sigma],
            ),
            compare_claim(
                f"Algo. 2 weighting restores them ({label}): gain over PCA of all 203",
                acc["Algo. 2 + PCA"] - acc["PCA, all 203"], Q_ALGO2_SOLVES, test=test,
                note="The text names Algo. 2 where the caption of Fig. 1d names Algo. 1: both "
                     "are tested. " + SIGMA_NOTE[sigma],
            ),
        ]
    data = {
        f"sigma={sigma:g}": {
            "accuracy": {m: v.tolist() for m, v in res["accuracy"].items()},
            "silhouette": {m: v.tolist() for m, v in res["silhouette"].items()},
            "theta": res["theta"].tolist(),
            "overlap": res["overlap"].tolist(),
        }
        for sigma, res in results.items()
    }
    return comparisons, data, {"n_seeds": n_seeds, "sigmas": [SIGMA_SEPARATED, SIGMA_FOOTNOTE]}


# ------------------------------------------------------------------------------ Fig. 2

FIG2_METHODS = ("Algo. 1", "Algo. 2", "first PC")


def _fig2_ratios(seed: int, sigma: float) -> dict[str, float]:
    data = make_wolf_bileschi_fig2(sigma=sigma, random_state=seed)
    M, relevant = data.M, data.relevant
    first_pc = np.abs(weighted_pca(M, None, 1).W[:, 0])
    return {
        "Algo. 1": sparsity_gap(pca_weights(M, 3).alpha, relevant),
        "Algo. 2": sparsity_gap(parameter_free_weights(M).alpha, relevant),
        "first PC": sparsity_gap(first_pc, relevant),
    }


@reproduction(
    f"{PAPER}/fig2", PAPER,
    "Fig. 2: weights of 3 relevant among 203 variables (four Gaussians)",
)
def fig2_weights(*, quick: bool = False, random_state: int = 0):
    """Mean weight of the relevant ÷ irrelevant variables for Algo. 1, Algo. 2 and the first PC.

    Four Gaussians of 25 points, 3 relevant and 200 permuted variables (Fig. 1's recipe, the
    report gives no sizes), σ = 0.1 and the footnote's σ = 1; Algo. 1 with k = 3 (four
    clusters span three directions after centring); the first PC's weights are the absolute
    loadings of the leading principal direction of the normalised features (unit norm, like
    α). Medians over 20 draws (3 in quick mode).
    """
    n_seeds = 3 if quick else 20
    ratios: dict[float, dict[str, np.ndarray]] = {}
    for sigma in (SIGMA_SEPARATED, SIGMA_FOOTNOTE):
        per = {m: np.empty(n_seeds) for m in FIG2_METHODS}
        for s in range(n_seeds):
            for method, value in _fig2_ratios(random_state + s, sigma).items():
                per[method][s] = value
        ratios[sigma] = per
    comparisons = []
    for sigma, label in ((SIGMA_SEPARATED, "σ = 0.1"), (SIGMA_FOOTNOTE, "σ = 1 (footnote)")):
        med = {m: float(np.median(v)) for m, v in ratios[sigma].items()}
        for method in FIG2_METHODS:
            comparisons.append(Comparison(
                f"relevant ÷ irrelevant weight, {method}, {label}, median", med[method], None,
                "not published",
                f"quartiles {np.percentile(ratios[sigma][method], 25):.2f}–"
                f"{np.percentile(ratios[sigma][method], 75):.2f}",
            ))
        per = ratios[sigma]
        detects = {m: float(np.mean(v > 1.0)) for m, v in per.items()}
        setup = ("Kit's choices: four clusters of 25 points, Algo. 1 with k = 3, the first "
                 "PC's weights are its absolute loadings, σ (the report gives no sizes or "
                 "scale for Fig. 2; σ = 1 follows Fig. 1's footnote).")
        comparisons += [
            compare_claim(
                f"Algo. 2 detects more reliably than the first PC ({label}): draws with "
                "ratio > 1, Algo. 2 minus first PC",
                (per["Algo. 2"] > 1.0).astype(float) - (per["first PC"] > 1.0),
                Q_FIG2_CAPTION,
                test="'detects' read as a relevant ÷ irrelevant weight ratio above 1; the 95 % "
                     "interval of the paired differences of the indicators over draws lies "
                     "above 0",
                note="Shares of draws with ratio > 1: "
                     + ", ".join(f"{m} {v:.0%}" for m, v in detects.items()) + ". " + setup,
            ),
            compare_claim(
                f"Algo. 1 sharper than Algo. 2 ({label}): log of the ratio of the two ratios",
                np.log(per["Algo. 1"]) - np.log(per["Algo. 2"]), Q_LESS_SHARP,
                test="the 95 % interval over draws of log(Algo. 1's ratio ÷ Algo. 2's ratio) "
                     "lies above 0",
                note="Median ratio of ratios "
                     f"{np.median(per['Algo. 1'] / per['Algo. 2']):.2f}. " + setup,
            ),
            compare_claim(
                f"Algo. 2 detects the relevant variables ({label}): log of its ratio",
                np.log(per["Algo. 2"]), Q_ALGO2_DETECTS,
                test="the 95 % interval over draws of the log of Algo. 2's relevant ÷ "
                     "irrelevant weight ratio lies above 0",
                note=setup,
            ),
            compare_claim_band(
                f"first PC uninformative ({label}): median relevant ÷ irrelevant weight",
                med["first PC"], Q_FIRST_PC, reading=1.0, rtol=0.25, close_rtol=0.5,
                ci=median_ci(per["first PC"]), n=per["first PC"].size,
                test="the kit reads 'uninformative' as a relevant ÷ irrelevant weight ratio "
                     "of 1: the median's 95 % interval (order statistics) within 25 % of 1 is "
                     "reproduced, within 50 % close",
                note=setup,
            ),
        ]
    data = {f"sigma={s:g}": {m: v.tolist() for m, v in r.items()} for s, r in ratios.items()}
    return comparisons, data, {"n_seeds": n_seeds, "k_algo1": 3}


# ---------------------------------------------------------------------------- Sec. 2


def _top_eigenvalues(
    n1: int, n2: int, q: int, trials: int, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Top eigenvalue of A = MᵀM, cos²(u₁, v₁), and v₁ᵀA₂v₁ for the ideal data of Sec. 2."""
    tops, overlaps, quad = np.empty(trials), np.empty(trials), np.empty(trials)
    for t in range(trials):
        data = make_wolf_bileschi_ideal(n1, n2, q, random_state=rng)
        M = data.M
        A = M.T @ M
        w, V = np.linalg.eigh(A)
        v1 = np.where(data.y == 0, 1.0, -1.0) / np.sqrt(q)
        M2 = M[n1:]
        tops[t] = w[-1]
        overlaps[t] = float(V[:, -1] @ v1) ** 2
        quad[t] = float(np.sum((M2 @ v1) ** 2))
    return tops, overlaps, quad


@reproduction(
    f"{PAPER}/wishart", PAPER,
    "Sec. 2: the Wishart bulk and when the relevant signal drowns in it",
)
def wishart_bulk(*, quick: bool = False, random_state: int = 0):
    """The random-matrix argument of Sec. 2 against simulation.

    (a) the mean top eigenvalue of ``A₂ = M₂ᵀM₂`` (entries of variance 1/q) against the
    Marchenko–Pastur edge ``(1/q)(√n₂ + √q)²`` and against the expression as printed,
    ``n₂/q² (√n₂ + √q)²``; (b) the mean of ``v₁ᵀA₂v₁`` against n₂/q (printed: n₂/q²);
    (c) the top eigenvalue of ``A = A₁ + A₂`` and its eigenvector's overlap with v₁ for the
    ideal two-cluster data as n₁ crosses the threshold ``1 + √(n₂/q)``
    (:func:`spectral_kit.weighting.detectability`). 200 trials (20 in quick mode).
    """
    rng = as_generator(random_state)
    trials = 20 if quick else 200
    comparisons = []
    data: dict[str, Any] = {}
    for n2, q in ((200, 100), (2000, 200)):
        tops, _, quad = _top_eigenvalues(0, n2, q, trials, rng)
        edge = wishart_top_eigenvalue(n2, q)
        printed_top = wishart_top_eigenvalue_as_printed(n2, q)
        mean_top = float(tops.mean())
        quad_mean = float(quad.mean())
        comparisons += [
            compare_claim_band(
                f"mean top eigenvalue of A₂, n₂={n2}, q={q}", None, Q_WISHART_TOP,
                reading=printed_top, rtol=0.05, samples=tops,
                test=(f"the printed formula evaluated at the kit's sizes n₂ = {n2}, q = {q} "
                      f"(the paper names none) gives {printed_top:.4g}; the simulated mean "
                      "(95 % interval) within 5 % of it is reproduced, within 15 % close"),
                note=(
                    f"The printed formula is wrong: for entries of variance 1/q the "
                    f"Marchenko–Pastur edge is (√n₂+√q)²/q = {edge:.3g}, and the simulation "
                    f"({trials} matrices) is within {abs(mean_top - edge) / edge:.1%} of it "
                    f"(finite-size shift ~ q^(-2/3)); the printed value is that edge times "
                    f"n₂/q = {n2 / q:g}."
                ),
            ),
            compare_claim_band(
                f"mean of v₁ᵀA₂v₁, n₂={n2}, q={q}", None, Q_WISHART_QUADRATIC,
                reading=n2 / q**2, rtol=0.05, samples=quad,
                test=(f"the printed mean n₂/q² evaluated at the kit's sizes n₂ = {n2}, q = {q} "
                      f"gives {n2 / q**2:g}; the simulated mean (95 % interval) within 5 % of "
                      "it is reproduced, within 15 % close"),
                note=(
                    f"The printed mean is wrong: v₁ᵀA₂v₁ is the squared norm of n₂ Gaussians of "
                    f"variance 1/q, so its mean is n₂/q = {n2 / q:g}; the simulation gives "
                    f"{quad_mean:.3g} (within {abs(quad_mean - n2 / q) / (n2 / q):.1%})."
                ),
            ),
        ]
        data[f"A2 n2={n2} q={q}"] = {"tops": tops.tolist(), "quad": quad.tolist()}
    n2, q = 400, 100
    printed_noise = wishart_top_eigenvalue_as_printed(n2, q)
    for n1 in (1, 2, 4, 6, 10):
        tops, overlaps, _ = _top_eigenvalues(n1, n2, q, trials, rng)
        pred = detectability(float(n1), n2, q)
        printed_signal = n1 + n2 / q**2
        comparisons.append(compare(
            f"top eigenvalue of A, n₁={n1}, n₂={n2}, q={q}", None, None, samples=tops,
            note=(
                f"Kit's prediction (rank-one spike on the Wishart bulk, not in the paper): "
                f"{pred.top_eigenvalue:.3g}, {'detectable' if pred.detectable else 'drowned'} "
                f"(threshold θ = {pred.threshold:.2f})"
            ),
        ))
        ratio = printed_signal / printed_noise
        prediction = (f"Kit's prediction: cos² = {pred.overlap:.2f} (threshold θ = 1 + √(n₂/q) "
                      f"= {pred.threshold:.2f}). Sizes n₁, n₂, q are the kit's choice.")
        quantity = f"cos²(u₁, v₁) of A's top eigenvector, n₁={n1}, n₂={n2}, q={q}"
        if ratio <= 0.2:
            comparisons.append(compare_claim_band(
                quantity, None, Q_DROWNED, reading=0.0, rtol=0.0, atol=0.1, close_rtol=0.0,
                samples=overlaps,
                test=(f"here n₁ + n₂/q² = {printed_signal:.3g} and n₂/q²(√n₂+√q)² = "
                      f"{printed_noise:.3g}, a ratio of {ratio:.2f}, which the kit reads as ≪ "
                      "(ratio ≤ 0.2); it reads 'not distinguishable' as cos²(u₁, v₁) ≤ 0.1: "
                      "the 95 % interval over trials inside [0, 0.1] is reproduced, wholly "
                      "above it differs"),
                note=prediction,
            ))
        else:
            comparisons.append(compare(
                quantity, None, None, samples=overlaps,
                note=f"The printed condition's ratio (n₁ + n₂/q²) ÷ n₂/q²(√n₂+√q)² = "
                     f"{ratio:.2f} is not clearly ≪ 1, so the paper's claim says nothing "
                     "here. " + prediction,
            ))
        data[f"spike n1={n1}"] = {
            "tops": tops.tolist(), "overlaps": overlaps.tolist(),
            "predicted_top": pred.top_eigenvalue, "predicted_overlap": pred.overlap,
        }
    # Fig. 1's own data: the relevant signal θ of the three clustered coordinates.
    thetas = np.array([
        relevant_signal(make_wolf_bileschi_fig1(sigma=SIGMA_SEPARATED, random_state=s).M[:3])
        for s in range(random_state, random_state + (3 if quick else 20))
    ])
    fig1 = detectability(float(np.median(thetas)), 200, 100)
    comparisons.append(Comparison(
        "Fig. 1 data (σ = 0.1): median θ of the 3 relevant coordinates", fig1.signal, None,
        "not published",
        f"kit's threshold 1 + √2 = {fig1.threshold:.2f}; the paper's comparison, with its "
        f"formulas corrected, would put it at 1 + 2√2 = {fig1.paper_threshold:.2f}",
    ))
    data["fig1 thetas"] = thetas.tolist()
    return comparisons, data, {"trials": trials}


# ---------------------------------------------------------------------------- Table 1

#: The report's Table 1 (face recognition, 3 training images per person, 20 trials).
TABLE1_PUBLISHED = {
    "Yale": {
        "PCA": (70.0, 2.5), "PCA + Haar": (64.5, 2.2), "FS + PCA": (67.6, 4.9),
        "Algo. 2 + PCA": (81.2, 2.4), "Fisher": (83.4, 3.2), "Fisher + Haar": (81.8, 3.1),
        "FS + Fisher": (83.4, 2.7), "Algo. 2 + Fisher": (88.2, 2.4),
    },
    "AR": {
        "PCA": (62.9, 2.4), "PCA + Haar": (32.2, 1.6), "FS + PCA": (62.9, 4.4),
        "Algo. 2 + PCA": (70.6, 1.8), "Fisher": (91.9, 1.3), "Fisher + Haar": (90.4, 1.8),
        "FS + Fisher": (90.9, 1.6), "Algo. 2 + Fisher": (94.6, 0.8),
    },
}

PCA_DIMS = (5, 10, 15, 20, 25, 29)
FISHER_PCA_DIMS = (9, 12, 15, 20)
#: Fraction of features the filter (FS) keeps: the report's best was 40–50 %.
FS_KEEP = 0.5
#: Squared distances this close (relatively) to the nearest one count as a tie in 1-NN.
TIE_RTOL = 1e-9


def _split(y: np.ndarray, per_class: int, rng: np.random.Generator) -> np.ndarray:
    train = np.zeros(y.size, dtype=bool)
    for c in np.unique(y):
        train[rng.choice(np.flatnonzero(y == c), per_class, replace=False)] = True
    return train


def _nn_rate(Z_train: np.ndarray, y_train: np.ndarray, Z_test: np.ndarray,
             y_test: np.ndarray) -> float:
    """1-nearest-neighbour recognition rate (%), tied nearest neighbours sharing the vote.

    Gray levels are integers, so in a full-rank PCA of the pixels two training images can be
    exactly as far from a test image; rounding, which differs between processors' BLAS
    kernels, would then pick the winner. Distances within a relative ``TIE_RTOL`` of the
    nearest count as tied, and a test image scores the share of its tied neighbours that
    carry its label: the expected rate under a random tie-break, the same on every machine.
    """
    # cdist sums squared differences (not |a|² − 2a·b + |b|²): rounding relative to distance.
    d2 = cdist(Z_test, Z_train, "sqeuclidean")
    nearest = d2.min(axis=1, keepdims=True)
    tied = d2 <= nearest * (1.0 + TIE_RTOL)
    hits = (tied & (y_train[None, :] == y_test[:, None])).sum(axis=1) / tied.sum(axis=1)
    return 100.0 * float(hits.mean())


class _Features:
    """Train/test feature rows (M orientation) of one split, constant training rows dropped."""

    def __init__(self, X: np.ndarray, train: np.ndarray, normalise: bool,
                 keep: np.ndarray | None = None):
        varying = np.ptp(X[train], axis=0) > 0
        if keep is not None:
            varying &= keep
        Mtr, Mte = X[train][:, varying].T, X[~train][:, varying].T
        self.columns = np.flatnonzero(varying)
        if normalise:
            mean = Mtr.mean(axis=1, keepdims=True)
            norm = np.linalg.norm(Mtr - mean, axis=1, keepdims=True)
            Mtr, Mte = (Mtr - mean) / norm, (Mte - mean) / norm
        self.train, self.test = Mtr, Mte


def _evaluate(
    feats: _Features, alpha: np.ndarray | None, y_tr: np.ndarray, y_te: np.ndarray,
    reducer: str,
) -> dict[int, float]:
    """Recognition rate (1-NN) for every dimension of the grid."""
    Mtr = feats.train if alpha is None else reweight(feats.train, alpha)
    Mte = feats.test if alpha is None else reweight(feats.test, alpha)
    rates = {}
    dims = PCA_DIMS if reducer == "pca" else FISHER_PCA_DIMS
    for d in dims:
        if reducer == "pca":
            P = weighted_pca(Mtr, None, min(d, *Mtr.shape), preprocess=False)
        else:
            P = weighted_fda(Mtr, y_tr, None, n_pca=d, preprocess=False)
        Z_te = (Mte - P.center[:, None]).T @ P.W
        rates[d] = _nn_rate(P.embedding, y_tr, Z_te, y_te)
    return rates


TABLE1_METHODS = (
    "PCA", "PCA + Haar", "FS + PCA", "PCA + normalised Haar", "Algo. 2 + PCA",
    "Fisher", "Fisher + Haar", "FS + Fisher", "Fisher + normalised Haar", "Algo. 2 + Fisher",
    "Algo. 3 + Fisher",
)


def _one_split(
    images: np.ndarray, haar: np.ndarray, y: np.ndarray, rng: np.random.Generator,
    sizes: np.ndarray,
) -> tuple[dict[str, dict[int, float]], dict[int, float]]:
    train = _split(y, 3, rng)
    y_tr, y_te = y[train], y[~train]
    gray = _Features(images, train, normalise=False)
    raw = _Features(haar, train, normalise=False)
    norm = _Features(haar, train, normalise=True)
    # Filter: keep the Haar features with the best Fisher score on the training images.
    scores = fisher_score(haar[train][:, raw.columns], y_tr)
    keep = np.zeros(haar.shape[1], dtype=bool)
    keep[raw.columns[np.argsort(-scores, kind="stable")[: int(FS_KEEP * raw.columns.size)]]] = (
        True
    )
    fs = _Features(haar, train, normalise=False, keep=keep)
    alpha2 = parameter_free_weights(norm.train, preprocess=False).alpha
    alpha3 = supervised_weights(norm.train, y_tr, 1.0, preprocess=False).alpha
    run: dict[str, Callable[[], dict[int, float]]] = {
        "PCA": lambda: _evaluate(gray, None, y_tr, y_te, "pca"),
        "PCA + Haar": lambda: _evaluate(raw, None, y_tr, y_te, "pca"),
        "FS + PCA": lambda: _evaluate(fs, None, y_tr, y_te, "pca"),
        "PCA + normalised Haar": lambda: _evaluate(norm, None, y_tr, y_te, "pca"),
        "Algo. 2 + PCA": lambda: _evaluate(norm, alpha2, y_tr, y_te, "pca"),
        "Fisher": lambda: _evaluate(gray, None, y_tr, y_te, "fisher"),
        "Fisher + Haar": lambda: _evaluate(raw, None, y_tr, y_te, "fisher"),
        "FS + Fisher": lambda: _evaluate(fs, None, y_tr, y_te, "fisher"),
        "Fisher + normalised Haar": lambda: _evaluate(norm, None, y_tr, y_te, "fisher"),
        "Algo. 2 + Fisher": lambda: _evaluate(norm, alpha2, y_tr, y_te, "fisher"),
        "Algo. 3 + Fisher": lambda: _evaluate(norm, alpha3, y_tr, y_te, "fisher"),
    }
    kept_sizes = sizes[norm.columns]
    by_size = {int(z): float(alpha2[kept_sizes == z].mean()) for z in np.unique(kept_sizes)}
    return {method: run[method]() for method in TABLE1_METHODS}, by_size


@reproduction(
    f"{PAPER}/table1", PAPER,
    "Table 1 in miniature: digits with Haar wavelets, 3 training images per class",
)
def table1_digits(*, quick: bool = False, random_state: int = 0):
    """Recognition rate of PCA and Fisher with and without Algo. 2 weighting on digits.

    ``sklearn.datasets.load_digits`` (1797 images of 8 × 8 pixels, 10 classes) stands in for
    the Yale/AR faces. Each of 20 random splits (3 in quick mode) trains on 3 images per
    class and tests on the rest with a 1-nearest-neighbour classifier in the reduced space,
    where neighbours tied in distance share the vote (:func:`_nn_rate`). Gray levels are
    the 64 pixels; Haar features are the 177 over-complete Haar wavelets
    (:func:`~spectral_kit.datasets.wolf_bileschi.haar_features`). Features constant on the
    training images are dropped. "FS" keeps the 50 % of Haar features with the best Fisher
    score; Algo. 2 (and Algo. 3, λ = 1, a column the paper omits) weigh the centred,
    unit-norm Haar features, and "normalised Haar" is the same features with equal weights
    -- the control that separates the effect of the weights from that of the normalisation.
    As in the report, every method is shown at the dimension with
    the best mean rate -- the PCA dimension for eigen-digits, the PCA step before FDA for
    fisher-digits (FDA keeps 9 directions) -- a choice made on the test images, which
    favours every method alike.
    """
    digits = load_digits()
    images, y = digits.images, digits.target
    X_gray = images.reshape(images.shape[0], -1)
    bank = haar_filters(images.shape[1:])
    X_haar = haar_features(images, bank)
    rng = as_generator(random_state)
    n_splits = 3 if quick else 20
    runs = [_one_split(X_gray, X_haar, y, rng, bank.size) for _ in range(n_splits)]
    per_split = [r[0] for r in runs]
    weight_by_size = {z: float(np.mean([r[1][z] for r in runs])) for z in runs[0][1]}
    table: dict[str, tuple[float, float, int]] = {}
    rates_at_best: dict[str, np.ndarray] = {}
    for method in TABLE1_METHODS:
        dims = per_split[0][method].keys()
        means = {d: np.mean([s[method][d] for s in per_split]) for d in dims}
        best = max(means, key=means.get)
        rates = np.array([s[method][best] for s in per_split])
        rates_at_best[method] = rates
        table[method] = (float(rates.mean()), float(rates.std()), int(best))
    protocol = (
        "Kit's choices: scikit-learn's 8 × 8 digits stand in for the Yale/AR faces (not "
        "redistributable), 177 Haar wavelets, 1-NN (tied neighbours share the vote); as in the "
        "report each method is shown at its best dimension, chosen on the test images "
        "(optimistic for every method alike)."
    )
    comparisons = []
    for method, (_, std, dim) in table.items():
        pub = TABLE1_PUBLISHED["Yale"].get(method)
        context = (
            "not in the report" if pub is None else
            f"Yale {pub[0]} ± {pub[1]}, AR {TABLE1_PUBLISHED['AR'][method][0]} ± "
            f"{TABLE1_PUBLISHED['AR'][method][1]} (Table 1)"
        )
        where = f"PCA step {dim}, 9 FDA directions" if "Fisher" in method else f"{dim} PCs"
        comparisons.append(compare(
            f"recognition rate %, {method}", None, None, samples=rates_at_best[method],
            note=f"{where}; standard deviation over splits {std:.1f}; faces, for context "
                 f"only (other data): {context}",
        ))
    for ours_a, ours_b, what in (
        ("Algo. 2 + PCA", "PCA + Haar", "Algo. 2 weighting improves PCA on Haar features"),
        ("Algo. 2 + Fisher", "Fisher + Haar",
         "Algo. 2 weighting improves Fisher on Haar features"),
        ("Algo. 2 + PCA", "PCA", "Algo. 2 + Haar beats PCA on gray levels"),
        ("Algo. 2 + Fisher", "Fisher", "Algo. 2 + Haar beats Fisher on gray levels"),
    ):
        yale = TABLE1_PUBLISHED["Yale"][ours_a][0] - TABLE1_PUBLISHED["Yale"][ours_b][0]
        ar = TABLE1_PUBLISHED["AR"][ours_a][0] - TABLE1_PUBLISHED["AR"][ours_b][0]
        comparisons.append(compare_claim(
            f"{what}: gain in points", rates_at_best[ours_a] - rates_at_best[ours_b],
            Q_WAVELETS_IMPROVE if ours_b in ("PCA", "Fisher") else Q_COMPLEX_FEATURES,
            test="the 95 % interval of the paired gains over splits lies above 0 (on digits: "
                 "the faces are the paper's, the digits the kit's stand-in)",
            note=f"Table 1 prints, on faces, Yale {yale:+.1f} and AR {ar:+.1f} points. The "
                 "equal-weights rows below separate the weights from the normalisation of "
                 "the features, which is what costs accuracy here: 8 × 8 digits have no "
                 "irrelevant features for the weights to suppress. " + protocol,
        ))
    for weighted, uniform in (("Algo. 2 + PCA", "PCA + normalised Haar"),
                              ("Algo. 2 + Fisher", "Fisher + normalised Haar")):
        comparisons.append(compare(
            f"{weighted} minus equal weights on the same normalised Haar features (points)",
            None, None, samples=rates_at_best[weighted] - rates_at_best[uniform],
            note="separates the effect of the weights from that of normalising the features",
        ))
    smallest = min(weight_by_size)
    size_ratio = np.array([
        np.mean([w for z, w in r[1].items() if z > smallest]) / r[1][smallest] for r in runs
    ])
    comparisons.append(compare_claim(
        "Algo. 2 weights larger (≥ 4 px) over smallest (2 px) wavelets: log of the ratio of "
        "mean weights", np.log(size_ratio), Q_LARGE_WAVELETS,
        test="the 95 % interval over splits of log(mean α of wavelets ≥ 4 px ÷ mean α of 2 px "
             "wavelets) lies above 0 (the kit's reading of 'large/medium' for 8 × 8 images)",
        note="Fig. 3; mean α per wavelet size over the splits: "
             + ", ".join(f"{z} px {w:.3f}" for z, w in weight_by_size.items()) + ". "
             + protocol,
    ))
    data = {
        "weight_by_size": weight_by_size,
        "table": table,
        "per_split": [{m: {int(d): r for d, r in v.items()} for m, v in s.items()}
                      for s in per_split],
        "published": TABLE1_PUBLISHED,
    }
    return comparisons, data, {"n_splits": n_splits, "train_per_class": 3,
                               "n_haar_features": int(X_haar.shape[1])}
