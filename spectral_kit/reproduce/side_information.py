"""Reproductions for kernel Q-α and side information.

* Wolf & Shashua (2005), Sec. 6, Fig. 6b: the hidden-session experiment (kernel Q-α against
  "square the data, then Q-α" and plain Q-α);
* Shashua & Wolf (2004), Sec. 6: the UC Irvine table (each class in turn is the side data);
* Shashua & Wolf (2004), Sec. 4, Fig. 2: the topographical map of two solution sets;
* Shashua & Wolf (2004), Secs. 3 and 5 on synthetic data with two known structures: side
  data and pairwise side information move α from one structure to the other.

The helper functions (:func:`hidden_session_rates`, :func:`uci_side_information`,
:func:`balanced_pair_accuracy`, ...) compute the numbers; the registered functions put them
beside the published ones.

The clustering score of the UCI table. The table's raw-data column is reproduced to three or
four digits by the pairwise accuracy of Xing et al. (2002) -- the paper's reference [20] --
in its balanced form (:func:`balanced_pair_accuracy`), and not by the matched-label accuracy
(:func:`spectral_kit.metrics.clustering_accuracy`), which is 0.10–0.20 away on every data
set; the reproduction reports both for the raw data so that the check is visible.
"""

from __future__ import annotations

import numpy as np
from sklearn.cluster import KMeans
from sklearn.decomposition import PCA

from ..datasets import load_dataset
from ..datasets.side_information import (
    make_hidden_sessions,
    make_topographic,
    make_two_structures,
)
from ..metrics import balanced_pair_accuracy, clustering_accuracy
from ..qalpha import q_alpha
from ..qalpha.kernel import kernel_q_alpha
from ..qalpha.pairwise import q_alpha_pairwise
from ..qalpha.side import SideInformationProblem, q_alpha_side
from ..topography import topographic_map
from ..validation import as_generator
from ._core import compare, compare_claim_band, proportion_ci, quote, reproduction

__all__ = [
    "PUBLISHED_UCI",
    "hidden_session_rates",
    "hidden_sessions",
    "load_uci",
    "pairwise_side_information",
    "side_information_synthetic",
    "topography",
    "uci_side_information",
    "uci_table",
]

#: The rows of the UCI table of Shashua & Wolf (2004, Sec. 6) as printed.
UCI_TABLE_ROWS: dict[str, str] = {
    "dermatology": "dermatology 0.5197 0.8816 0.5197 0.6074 0.8050",
    "ecoli": "ecoli 0.6889 0.7059 0.6953 0.6973 0.5620",
    "segmentation": "segmentation 0.7157 0.7817 0.7208 0.7089 0.7110",
    "wine": "wine 0.7280 0.9635 0.7280 0.7280 0.9493",
}
#: Its columns: raw data, Q-α-SI, PCA, CPCA, OPCA.
UCI_COLUMNS = ("raw", "qalpha_si", "pca", "cpca", "opca")
#: The UCI table read from :data:`UCI_TABLE_ROWS`: data set → column → score.
PUBLISHED_UCI: dict[str, dict[str, float]] = {
    name: dict(zip(UCI_COLUMNS, (float(v) for v in row.split()[1:])))
    for name, row in UCI_TABLE_ROWS.items()
}

# -- the papers' words that the rows compare with ----------------------------------------------
Q_PLAIN_ZERO = quote(
    "wolf-shashua-2005", "Sec. 6, Kernel Q-α experiments, last paragraph; Fig. 6b caption",
    "The success rate for the original Q-α algorithm on the unprocessed measurements was "
    "constantly zero and is not shown in the graph.",
)
Q_UCI_ROWS = {
    name: quote("shashua-wolf-2004", f"Sec. 6, UC Irvine table, row {name}", row)
    for name, row in UCI_TABLE_ROWS.items()
}
Q_TOPOGRAPHY_AXES = quote(
    "shashua-wolf-2004", "Sec. 4, Fig. 2 paragraph",
    "The horizontal axis in Fig. 2(b) is associated with the solution set of features “1,2,3” "
    "and the vertical axis with the solution set “A,B,C”.",
)
Q_TOPOGRAPHY_HYBRIDS = quote(
    "shashua-wolf-2004", "Sec. 4, Fig. 2 paragraph",
    "We see that the hybrid features 1A,2B,3C, which are relevant to both cluster "
    "configurations, have equal (high) relevancy in both sets (large circles in the "
    "topographical map).",
)
Q_PAIRWISE_POSITIVE = quote(
    "shashua-wolf-2004", "Sec. 5, last paragraph",
    "Empirical studies on this algorithm validate this assumption and indeed α maintains the "
    "positivity and sparsity properties in our experiments.",
)

#: "At least 10 of the 12 features with the highest α are relevant" (Fig. 6b).
SUCCESS_HITS = 10

HIDDEN_METHODS = ("kernel Q-α", "squared data, Q-α", "plain Q-α")


# -- scores -----------------------------------------------------------------------------------


# -- hidden sessions (Wolf & Shashua 2005, Fig. 6b) ----------------------------------------
def _hits(alpha: np.ndarray, relevant: np.ndarray) -> int:
    top = np.argsort(-alpha, kind="stable")[: int(relevant.sum())]
    return int(relevant[top].sum())


def hidden_session_rates(
    lam_values: object,
    runs: int,
    *,
    k: int = 3,
    center: bool = False,
    random_state: object = 0,
) -> dict[str, np.ndarray]:
    """Success rates of the hidden-session experiment (Wolf & Shashua 2005, Sec. 6).

    For every λ, ``runs`` data sets from :func:`make_hidden_sessions`; a run succeeds when at
    least 10 of the 12 features with the largest α are relevant. Methods: kernel Q-α with the
    sum of 2nd-order polynomial kernels over sections of 8 entries, Q-α on the entrywise
    square of the data, and plain Q-α; all with k clusters and the PCA start.

    Returns
    -------
    dict
        ``"lam"``, and for every method name an array of success rates and, under
        ``name + " hits"``, the mean number of relevant features among the top 12.
    """
    lams = np.asarray(lam_values, dtype=np.float64)
    seeds = as_generator(random_state).integers(0, 2**31 - 1, size=(lams.size, runs))
    hits = {m: np.zeros((lams.size, runs)) for m in HIDDEN_METHODS}
    for i, lam in enumerate(lams):
        for r in range(runs):
            data = make_hidden_sessions(float(lam), center=center, random_state=int(seeds[i, r]))
            M, rel = data.M, data.relevant
            alphas = {
                "kernel Q-α": kernel_q_alpha(M, k, "sections", degree=2, section=8).alpha,
                "squared data, Q-α": q_alpha(M**2, k).alpha,
                "plain Q-α": q_alpha(M, k).alpha,
            }
            for name, alpha in alphas.items():
                hits[name][i, r] = _hits(alpha, rel)
    out: dict[str, np.ndarray] = {"lam": lams}
    for name, h in hits.items():
        out[name] = (h >= SUCCESS_HITS).mean(axis=1)
        out[name + " hits"] = h.mean(axis=1)
    return out


@reproduction(
    "wolf-shashua-2005/fig6b-hidden-sessions",
    "wolf-shashua-2005",
    "Fig. 6b: hidden ±1 sessions -- kernel Q-α vs squared data vs plain Q-α",
)
def hidden_sessions(*, quick: bool = False, random_state: int = 0):
    """The kernel Q-α experiment of Wolf & Shashua (2005, Sec. 6, Fig. 6b).

    The paper gives the success rates only as a figure, and states one number in the text:
    plain Q-α succeeds in no run at any λ. We run the data as described (positive cluster
    means) and, because the paper does not say whether the clean measurements were centred
    before the session signs, also with centred measurements.
    """
    lams = (0.005, 0.05, 0.2) if quick else (0.005, 0.01, 0.02, 0.05, 0.1, 0.2, 0.5)
    runs = 8 if quick else 80
    comparisons, data = [], {}
    for label, center in (("as described", False), ("centred measurements", True)):
        rates = hidden_session_rates(lams, runs, center=center, random_state=random_state)
        data[label] = rates
        comparisons.append(compare(
            f"plain Q-α success rate, max over λ ({label})",
            float(rates["plain Q-α"].max()), 0.0, atol=0.0, rtol=0.0, close_rtol=0.0,
            n=runs * len(lams), quote=Q_PLAIN_ZERO,
            note="A single success is a difference, so the rule is exact (no interval); "
                 f"{runs} runs per λ, the λ grid the kit's choice (the paper's values are "
                 "only on the figure's axis). "
                 + ("Kit's reading: positive cluster means, as described."
                    if not center else "The paper does not say whether the clean "
                    "measurements were centred; this row centres them."),
        ))
        for name in ("kernel Q-α", "squared data, Q-α"):
            curve = ", ".join(f"{v:.2f}" for v in rates[name])
            successes = round(float(rates[name][0]) * runs)
            comparisons.append(compare(
                f"{name} success rate at λ = {lams[0]:g} ({label})",
                float(rates[name][0]), None, ci=proportion_ci(successes, runs), n=runs,
                note=f"rates over λ = {', '.join(f'{v:g}' for v in lams)}: {curve}; the "
                "paper shows the curve only as a figure (Fig. 6b); Wilson interval",
            ))
        kernel_better = float(np.mean(rates["kernel Q-α"] >= rates["squared data, Q-α"]))
        comparisons.append(compare(
            f"fraction of λ where kernel Q-α ≥ squared data ({label})", kernel_better, None,
            note="the figure plots both; the text does not rank them",
        ))
    return comparisons, data, {"lam_values": lams, "runs": runs, "k": 3}


# -- the UCI table (Shashua & Wolf 2004, Sec. 6) -------------------------------------------
def load_uci(name: str) -> tuple[np.ndarray, np.ndarray]:
    """X (samples × features, constant features dropped) and y of a data set of the table.

    Wine comes with scikit-learn; the others through :func:`spectral_kit.datasets.load_dataset`.
    Segmentation is the 210-sample training file (``segmentation.data``): its raw k-means
    score is 0.713 against the published 0.7157, while the 2310 samples of both files give
    0.695.
    """
    if name == "wine":
        from sklearn.datasets import load_wine

        bunch = load_wine()
        X, y = bunch.data, bunch.target
    else:
        data = load_dataset(name, **({"part": "train"} if name == "segmentation" else {}))
        X, y = data.X, data.y
    X = np.asarray(X, dtype=np.float64)
    keep = X.std(axis=0) > 0
    return X[:, keep], np.asarray(y)


def _standardize(X: np.ndarray) -> np.ndarray:
    return (X - X.mean(axis=0)) / X.std(axis=0)


def uci_side_information(
    X: object,
    y: object,
    *,
    lam: float = 0.1,
    runs: int = 20,
    n_init: int = 10,
    pca_dims: object = None,
    random_state: object = 0,
) -> dict[str, object]:
    """The protocol of the UCI table of Shashua & Wolf (2004, Sec. 6).

    Each class in turn is the side data and the other classes the main data; k-means with as
    many clusters as main classes is run ``runs`` times (seeds differ) on the main data as
    given to each method, and the scores are averaged over classes and runs:

    * ``raw``: the raw main data;
    * ``pca``: the leading d principal components of the raw main data, d the best on average
      (the paper's rule for its PCA column);
    * ``standardized``: every feature z-scored over the main data -- the row normalisation
      Q-α applies before it weighs anything;
    * ``qalpha``: standardized features scaled by √α of plain Q-α (no side data);
    * ``qalpha_si``: standardized features scaled by √α of Q-α-SI (λ = ``lam``; k = number of
      main classes). √α makes the k-means geometry that of the weighted affinity
      ``A_α = Σ α_i m_i m_iᵀ``; negative weights are set to zero.

    Scores are :func:`balanced_pair_accuracy`; ``raw_matched`` is the matched-label accuracy
    of the raw data, kept to show which score the published table uses.

    Returns
    -------
    dict
        Mean scores by method, ``"pca_dim"`` (the chosen d), and ``"alpha_si"`` (α of
        Q-α-SI per side class).
    """
    X = np.asarray(X, dtype=np.float64)
    y = np.asarray(y)
    classes = np.unique(y)
    seeds = as_generator(random_state).integers(0, 2**31 - 1, size=runs)
    dims = range(1, X.shape[1] + 1) if pca_dims is None else list(pca_dims)
    scores: dict[str, list[float]] = {
        m: [] for m in ("raw", "raw_matched", "standardized", "qalpha", "qalpha_si")
    }
    pca_scores = {d: [] for d in dims}
    alpha_si = {}
    for c in classes:
        main = y != c
        Xm, ym, Xs = X[main], y[main], X[~main]
        keep = Xm.std(axis=0) > 0
        Xm, Xs = Xm[:, keep], Xs[:, keep]
        n_clusters = np.unique(ym).size
        Z = _standardize(Xm)
        a_plain = q_alpha(Xm.T, n_clusters).alpha
        a_side = q_alpha_side(Xm.T, Xs.T, n_clusters, lam).alpha
        alpha_si[c] = a_side
        weighted = {
            "qalpha": Z * np.sqrt(np.clip(a_plain, 0.0, None)),
            "qalpha_si": Z * np.sqrt(np.clip(a_side, 0.0, None)),
        }
        projected = PCA().fit_transform(Xm)
        for seed in seeds:
            kmeans = KMeans(n_clusters, n_init=n_init, random_state=int(seed))
            labels = kmeans.fit(Xm).labels_
            scores["raw"].append(balanced_pair_accuracy(ym, labels))
            scores["raw_matched"].append(clustering_accuracy(ym, labels))
            scores["standardized"].append(balanced_pair_accuracy(ym, kmeans.fit(Z).labels_))
            for name, data in weighted.items():
                scores[name].append(balanced_pair_accuracy(ym, kmeans.fit(data).labels_))
            for d in dims:
                if d <= projected.shape[1]:
                    labels = kmeans.fit(projected[:, :d]).labels_
                    pca_scores[d].append(balanced_pair_accuracy(ym, labels))
    out: dict[str, object] = {m: float(np.mean(v)) for m, v in scores.items()}
    # Scores are appended class by class, run by run: the mean over classes per run.
    out["per_run"] = {m: np.asarray(v).reshape(classes.size, runs).mean(axis=0)
                      for m, v in scores.items()}
    means = {d: float(np.mean(v)) for d, v in pca_scores.items() if v}
    best = max(means, key=means.get)
    out["pca"], out["pca_dim"], out["pca_by_dim"] = means[best], best, means
    best_scores = np.asarray(pca_scores[best])
    # Every class has d = best unless a class's main data has fewer components.
    out["per_run"]["pca"] = (best_scores.reshape(classes.size, runs).mean(axis=0)
                             if best_scores.size == classes.size * runs else best_scores)
    out["alpha_si"] = alpha_si
    return out


@reproduction(
    "shashua-wolf-2004/uci-table",
    "shashua-wolf-2004",
    "UCI table: k-means after Q-α-SI, each class in turn as side data (λ = 0.1)",
)
def uci_table(*, quick: bool = False, random_state: int = 0):
    """The UC Irvine table of Shashua & Wolf (2004, Sec. 6), with the score checked first.

    Besides the published columns we report k-means on standardized features: Q-α normalises
    every feature before weighting it, so the gain over raw k-means has two parts, the
    standardization and the weighting. ``gain explained`` is
    (ours standardized − published raw) / (published Q-α-SI − published raw).
    """
    names = ("wine",) if quick else ("wine", "ecoli", "segmentation", "dermatology")
    runs = 3 if quick else 20
    comparisons, data = [], {}
    for name in names:
        try:
            X, y = load_uci(name)
        except OSError as exc:
            comparisons.append(compare(f"{name}: data set unavailable", float("nan"), None,
                                       note=str(exc)))
            continue
        pub = PUBLISHED_UCI[name]
        res = uci_side_information(X, y, runs=runs, random_state=random_state,
                                   pca_dims=None if not quick else (1, 2, 3, X.shape[1]))
        data[name] = res
        per = res["per_run"]
        tight = {"rtol": 0.02, "close_rtol": 0.06, "quote": Q_UCI_ROWS[name]}
        score = ("Kit's choice of score: Xing et al.'s pairwise accuracy, balanced between "
                 "same- and different-class pairs (the paper: 'similarly to [20]'); it "
                 "reproduces the raw column, the matched-label accuracy does not. ")
        data_note = ("Kit's choice: the 210-sample training file. " if name == "segmentation"
                     else "")
        comparisons += [
            compare(f"{name}: raw k-means, balanced pair accuracy", None, pub["raw"],
                    samples=per["raw"], note=score + data_note, **tight),
            compare(f"{name}: raw k-means, matched-label accuracy", None,
                    pub["raw"], samples=per["raw_matched"],
                    note="the usual clustering accuracy, shown to check which score the "
                         "table uses", **tight),
            compare(f"{name}: PCA, best d", None, pub["pca"], samples=per["pca"],
                    note=f"d = {res['pca_dim']}, chosen, as in the paper, by the best mean "
                         "score over the same runs (optimistic, for PCA only)", **tight),
            compare(f"{name}: Q-α-SI (√α weights)", None, pub["qalpha_si"],
                    samples=per["qalpha_si"],
                    note="Kit's choices: features standardized and scaled by √α (negative α "
                         "set to 0) before k-means; side-data variances in units of the main "
                         "data's (D_ii = var(w_i)/var(m_i)). " + score, **tight),
            compare(f"{name}: Q-α without side data", None, None, samples=per["qalpha"]),
            compare(f"{name}: standardized features, no weights", None, None,
                    samples=per["standardized"]),
        ]
        published_gain = pub["qalpha_si"] - pub["raw"]
        comparisons.append(compare(
            f"{name}: share of the published Q-α-SI gain reached by standardizing alone",
            (res["standardized"] - pub["raw"]) / published_gain, None,
            note=f"weighting adds {res['qalpha_si'] - res['standardized']:+.4f} over "
            "standardized k-means in our runs",
        ))
    return comparisons, data, {"datasets": names, "runs": runs, "lam": 0.1, "n_init": 10}


# -- the topographical map (Shashua & Wolf 2004, Sec. 4, Fig. 2) ---------------------------
@reproduction(
    "shashua-wolf-2004/fig2-topography",
    "shashua-wolf-2004",
    "Fig. 2: topographical map of two solution sets and their hybrids",
)
def topography(*, quick: bool = False, random_state: int = 0):
    """Two rounds of the topographical model on the synthetic data of Fig. 2.

    Over several draws: does each round find one solution set ({1,2,3} or {A,B,C}), do the
    two rounds find different sets, and are the hybrids 1A, 2B, 3C among the six most
    relevant features in both rounds (the paper's "equal (high) relevancy in both sets")?
    """
    draws = 5 if quick else 30
    seeds = as_generator(random_state).integers(0, 2**31 - 1, size=draws)
    separated = {1.0: [], 2.0: []}
    hybrids_high, rel = [], []
    for seed in seeds:
        data = make_topographic(random_state=int(seed))
        topo = topographic_map(data.M, 2, rounds=2)
        r = topo.relevance
        for margin, outcome in separated.items():
            picks = []
            for rnd in range(2):
                first, second = r[rnd][data.first], r[rnd][data.second]
                if first.min() > margin * second.max():
                    picks.append("first")
                elif second.min() > margin * first.max():
                    picks.append("second")
                else:
                    picks.append("mixed")
            outcome.append("mixed" not in picks and picks[0] != picks[1])
        top6 = [set(topo.top_features(rnd, 6)) for rnd in range(2)]
        hyb = set(np.flatnonzero(data.hybrid))
        hybrids_high.append(all(hyb <= t for t in top6))
        rel.append([r[rnd][m].mean() for rnd in range(2)
                    for m in (data.first, data.second, data.hybrid, data.irrelevant)])
    rel_mean = np.mean(rel, axis=0)
    always = ("the paper shows one example; the kit reads it as holding in every draw: the "
              "Wilson 95 % interval of the rate above 0.85 is reproduced (with 30 draws, 30 of "
              "30 gives [0.89, 1]), wholly below it differs")
    comparisons = [
        compare_claim_band(
            "draws where the two rounds find the two different solution sets",
            float(np.mean(separated[1.0])), Q_TOPOGRAPHY_AXES, reading=1.0, rtol=0.0,
            atol=0.15, close_rtol=0.0, ci=proportion_ci(int(np.sum(separated[1.0])), draws),
            n=draws,
            test="a round finds a set when each of its features is more relevant than every "
                 "feature of the other set; " + always,
            note=f"With a 2× margin: {np.mean(separated[2.0]):.2f}."),
        compare_claim_band(
            "draws where 1A, 2B, 3C are among the 6 most relevant in both rounds",
            float(np.mean(hybrids_high)), Q_TOPOGRAPHY_HYBRIDS, reading=1.0, rtol=0.0,
            atol=0.15, close_rtol=0.0, ci=proportion_ci(int(np.sum(hybrids_high)), draws),
            n=draws,
            test="'equal (high) relevancy in both sets' read as the three hybrids among the 6 "
                 "most relevant features of both rounds; " + always),
        compare("mean relevance of the hybrids, round 1 / round 2",
                f"{rel_mean[2]:.2f} / {rel_mean[6]:.2f}", None,
                note=f"irrelevant features: {rel_mean[3]:.3f} / {rel_mean[7]:.3f}; relevance "
                "= leading eigenvector of the round's G"),
    ]
    return comparisons, {"relevance_means": rel_mean, "separated": separated[1.0],
                         "hybrids_high": hybrids_high}, {"draws": draws, "k": 2, "lam": 0.1}


# -- synthetic data with two structures (Shashua & Wolf 2004, Secs. 3 and 5) ---------------
def _share(alpha: np.ndarray, target: np.ndarray) -> float:
    return float(np.clip(alpha[target], 0, None).sum() / np.abs(alpha).sum())


@reproduction(
    "shashua-wolf-2004/side-synthetic",
    "shashua-wolf-2004",
    "Side data move α from the dominant structure to the wanted one (Def. 3)",
)
def side_information_synthetic(*, quick: bool = False, random_state: int = 0):
    """Q-α and Q-α-SI on :func:`make_two_structures` over many draws and a λ sweep.

    The paper's own synthetic study is in a technical report we do not have, so nothing is
    published to compare with; we report how often plain Q-α selects the dominant nuisance
    structure, how often Q-α-SI (λ = 0.1) selects the target structure instead, and the mean
    share of α on the target features over λ.
    """
    draws = 5 if quick else 40
    lams = (1e-3, 1e-2, 0.1, 1.0, 10.0, 100.0)
    seeds = as_generator(random_state).integers(0, 2**31 - 1, size=draws)
    plain_nuisance, side_target = [], []
    shares = {"best of warm and cold": [], "warm only (follow)": []}
    for seed in seeds:
        data = make_two_structures(random_state=int(seed))
        plain = q_alpha(data.M, 3).alpha
        plain_nuisance.append(_share(plain, data.nuisance) > 0.8)
        problem = SideInformationProblem(data.M, data.W)
        for label, follow in (("best of warm and cold", False), ("warm only (follow)", True)):
            row, previous = [], None
            for lam in lams:
                previous = problem.solve(3, lam, warm_start=previous, follow=follow)
                row.append(_share(previous.alpha, data.target))
            shares[label].append(row)
        cold = problem.solve(3, 0.1).alpha
        side_target.append(_share(cold, data.target) > 0.8)
    share = {label: np.mean(rows, axis=0) for label, rows in shares.items()}
    comparisons = [
        compare("draws where plain Q-α puts > 80% of α on the nuisance features",
                float(np.mean(plain_nuisance)), None,
                ci=proportion_ci(int(np.sum(plain_nuisance)), draws), n=draws),
        compare("draws where Q-α-SI (λ = 0.1) puts > 80% of α on the target features",
                float(np.mean(side_target)), None,
                ci=proportion_ci(int(np.sum(side_target)), draws), n=draws),
    ] + [
        compare(f"mean target share of α over increasing λ, {label}",
                ", ".join(f"λ={lam:g}: {v:.2f}" for lam, v in zip(lams, values)), None,
                note="plain Q-α is the λ → ∞ limit" if label.startswith("best") else
                "a sweep that only follows its warm start stays on the target maximum")
        for label, values in share.items()
    ]
    return comparisons, {"lam": np.array(lams), "target_share": share}, {"draws": draws}


def _different_cluster_pairs(
    data: object, n_pairs: int, rng: np.random.Generator
) -> np.ndarray:
    """Pairs of main samples in different target clusters but the same nuisance cluster."""
    yt, yn = data.y_target, data.y_nuisance
    i, j = np.triu_indices(yt.size, 1)
    ok = (yt[i] != yt[j]) & (yn[i] == yn[j])
    pick = rng.choice(np.flatnonzero(ok), size=n_pairs, replace=False)
    return np.column_stack([i[pick], j[pick]])


@reproduction(
    "shashua-wolf-2004/pairwise",
    "shashua-wolf-2004",
    "Pairwise side information (G − λB): does α stay positive?",
)
def pairwise_side_information(*, quick: bool = False, random_state: int = 0):
    """Sec. 5 on :func:`make_two_structures` with 20 "different-cluster" pairs.

    The pairs join samples of different target clusters in the same nuisance cluster, the
    information that should steer α to the target. The paper's working assumption is that α
    stays positive and sparse; we report, per λ, how often it does and where α goes.
    """
    draws = 4 if quick else 30
    lams = (0.1, 1.0, 10.0, 100.0, 1000.0)
    rng = as_generator(random_state)
    seeds = rng.integers(0, 2**31 - 1, size=draws)
    positive = np.zeros((draws, len(lams)), dtype=bool)
    share = np.zeros((draws, len(lams)))
    for d, seed in enumerate(seeds):
        data = make_two_structures(random_state=int(seed))
        pairs = _different_cluster_pairs(data, 20, rng)
        for i, lam in enumerate(lams):
            res = q_alpha_pairwise(data.M, pairs, 3, lam)
            positive[d, i] = res.all_positive
            share[d, i] = _share(res.alpha, data.target)
    comparisons = [
        compare_claim_band(
            f"fraction of draws with α > 0, λ = {lam:g}", float(positive[:, i].mean()),
            Q_PAIRWISE_POSITIVE, reading=1.0, rtol=0.0, atol=0.15, close_rtol=0.0,
            ci=proportion_ci(int(positive[:, i].sum()), draws), n=draws,
            test=f"the kit reads 'maintains the positivity' as α > 0 in every draw: the "
                 "Wilson 95 % interval of the share of draws with all α > 0 above 0.85 is "
                 f"reproduced, wholly below it differs; λ = {lam:g} is the kit's choice (the "
                 "paper names no λ for pairwise side information, nor its data)",
            note=f"Mean target share of α: {share[:, i].mean():.2f}. Kit's choice of data: "
                 "two structures, 20 pairs of different target clusters in the same nuisance "
                 "cluster. With centred rows the penalty (xᵀy)² also punishes the negative "
                 "inner products of points of different target clusters on the target "
                 "features, so α loses positivity before it moves there.")
        for i, lam in enumerate(lams)
    ]
    return comparisons, {"lam": np.array(lams), "positive": positive, "target_share": share}, {
        "draws": draws, "n_pairs": 20}
