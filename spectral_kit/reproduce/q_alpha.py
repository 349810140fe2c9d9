"""Reproductions of Wolf & Shashua (2005): Fig. 3b, the Weston problems, Ben-Dor's model,
and a study of Q-α's starting subspace."""

from __future__ import annotations

import math

import numpy as np
from sklearn.svm import LinearSVC

from ..baselines import fisher_score, ks_score, pearson_score, rank_features
from ..datasets import make_ben_dor, make_multiclass_clusters, make_weston_linear
from ..metrics import sparsity_gap
from ..preprocess import preprocess_rows
from ..qalpha import q_alpha, q_alpha_supervised
from ..qalpha.engine import alternate
from ..qalpha.models import StandardModel
from ..theory import positivity_prediction, positivity_probability, smallest_n_above
from ._core import compare, proportion_ci, quote, reproduction

__all__ = [
    "ben_dor_selection",
    "fig3b_sparsity_gap",
    "initialization_study",
    "positivity_statements",
    "weston_linear",
]

PAPER = "wolf-shashua-2005"

# -- the paper's words that the rows compare with ----------------------------------------------
Q_ABOVE_20 = quote(
    PAPER, "Sec. 4.1, paragraph on Fig. 2a",
    "One can see that for n > 20 the probability becomes very close to 1 (above 0.99).",
)
Q_FROM_500 = quote(
    PAPER, "Sec. 4.1, paragraph on Fig. 2a",
    "Simulations with μ = 0.1 and σ = 1 show that the probability is above 0.99 starting from "
    "n = 500.",
)
Q_SPARSITY_GAP = quote(
    PAPER, "Sec. 6, Synthetic data, paragraph after Fig. 3",
    "Good performance up to 6 clusters and a sparsity gap around 5 – 10 are not “magical "
    "numbers”.",
)
Q_BEN_DOR = quote(
    PAPER, "Sec. 6, Genomics, synthetic data",
    "While MSA was able to handle values of s reaching 2, our algorithm was robust to s, and "
    "was at least 30 times more likely to choose a relevant feature than an irrelevant one, "
    "even for s > 1000.",
)


@reproduction(
    "wolf-shashua-2005/positivity", PAPER,
    "Fig. 2a and Sec. 4.1 — probability that the leading eigenvector of G is same-sign",
)
def positivity_statements(*, quick: bool = False, random_state: int = 0) -> tuple:
    """The paper's two simulation statements about Theorem 10.

    1. μ = 1/6, σ = √2/6: "for n > 20 the probability becomes very close to 1 (above 0.99)";
    2. μ = 0.1, σ = 1: "the probability is above 0.99 starting from n = 500".

    Also the probabilities at n = 5, 10, 20, 30, 50 for the first setting (2000 trials),
    with 95 % Wilson intervals, beside the large-n prediction of
    :func:`~spectral_kit.theory.positivity_prediction`.
    """
    mu1, sigma1 = 1 / 6, np.sqrt(2) / 6
    table_n = np.array([5, 10, 20, 30, 50])
    table = positivity_probability(table_n, mu1, sigma1, 2000, random_state)
    sweep_n = np.arange(2, 61)
    sweep = positivity_probability(sweep_n, mu1, sigma1, 1000 if quick else 4000, random_state)
    n0 = smallest_n_above(0.99, sweep.n, sweep.probability)
    big_n = np.array([500]) if quick else np.array([300, 500, 1000])
    big = positivity_probability(big_n, 0.1, 1.0, 40 if quick else 400, random_state)
    # Where the prediction for the second setting finally passes 0.99.
    grid = np.arange(100, 20001, 50)
    predicted = positivity_prediction(grid, 0.1, 1.0)
    n_pred = int(grid[np.argmax(predicted > 0.99)])
    comparisons = [
        compare(
            f"μ=1/6, σ=√2/6, n={n}: P(same-sign)", float(p), None, ci=(float(lo), float(hi)),
            n=2000, final_in_quick=True,
            note=f"Wilson interval over 2000 trials; large-n prediction {pr:.4f}; Fig. 2a "
                 "shows the curve only",
        )
        for n, p, lo, hi, pr in zip(
            table_n, table.probability, table.lower, table.upper,
            positivity_prediction(table_n, mu1, sigma1),
        )
    ]
    # Where P crosses 0.99, with an interval from the Wilson bounds: it cannot cross before
    # the upper bound does, nor stay below once the lower bound has. The paper prints the
    # crossing as "n > 20", i.e. N = 20 with P > 0.99 for every n > N: N is one less than the
    # smallest n from which P stays above 0.99.
    n_lo = smallest_n_above(0.99, sweep.n, sweep.upper)
    n_hi = smallest_n_above(0.99, sweep.n, sweep.lower)
    comparisons.append(
        compare(
            "μ=1/6, σ=√2/6: N such that P(same-sign) > 0.99 for every n > N (n ≤ 60)",
            n0 - 1 if n0 is not None else float("nan"), 20, rtol=0.0, atol=2.0,
            close_rtol=0.3,
            ci=None if n_lo is None else (float(n_lo - 1), float((n_hi or math.inf) - 1)),
            n=int(sweep.trials[0]), quote=Q_ABOVE_20,
            note="±2 reproduced, ±(2 + 6) close; interval from the Wilson bounds at every n; "
                 f"P(20) = {table.probability[2]:.3f}, P(30) = {table.probability[3]:.3f} "
                 "(2000 trials); Fig. 2a",
        )
    )
    i500 = int(np.flatnonzero(big.n == 500)[0])
    comparisons.append(
        compare(
            "μ=0.1, σ=1, n=500: P(same-sign) above 0.99", float(big.probability[i500]), 0.99,
            at_least=True, rtol=0.0, close_rtol=0.01,
            ci=(float(big.lower[i500]), float(big.upper[i500])), n=int(big.trials[i500]),
            quote=Q_FROM_500,
            note="Wilson interval; the large-n prediction reaches 0.99 only near n ≈ "
                 f"{n_pred}. Kit's reading: a symmetric matrix with i.i.d. N(μ, σ²) entries "
                 "(Theorem 10's model)",
        )
    )
    return comparisons, {
        "table": table, "sweep": sweep, "big": big, "n0": n0, "n_pred_setting2": n_pred,
    }, {"trials_sweep": int(sweep.trials[0])}


@reproduction(
    "wolf-shashua-2005/fig3b", PAPER,
    "Fig. 3b — sparsity gap of unsupervised Q-α with n_c clusters (5 relevant + 120 permuted)",
)
def fig3b_sparsity_gap(
    *, quick: bool = False, random_state: int = 0, init: str = "pca"
) -> tuple:
    """Sparsity gap (mean α of the 5 relevant ÷ mean α of the 120 irrelevant) for
    n_c = 2…6 clusters, 20 data sets each, with k = n_c, k = n_c + 2 and k = max(1, n_c − 2)
    (the three curves of Fig. 3b), and the fraction of runs with every α_i > 0.

    The paper reports gaps "around 5–10" and good behaviour up to 6 classes; its figure gives
    the mean and the 25th/75th percentiles, read here as a band of 5–10 for k = n_c.
    """
    clusters = [2, 4, 6] if quick else [2, 3, 4, 5, 6]
    seeds = 6 if quick else 20
    choices = {"k = n_c": lambda c: c}
    if not quick:
        choices["k = n_c + 2"] = lambda c: c + 2
        choices["k = max(1, n_c − 2)"] = lambda c: max(1, c - 2)
    gaps = {name: np.zeros((len(clusters), seeds)) for name in choices}
    positive = {name: np.zeros((len(clusters), seeds), dtype=bool) for name in choices}
    random_gaps = np.zeros((len(clusters), seeds))
    for i, n_c in enumerate(clusters):
        for s in range(seeds):
            data = make_multiclass_clusters(n_c, random_state=random_state * 1000 + s)
            for name, k_of in choices.items():
                res = q_alpha(data.M, k_of(n_c), init=init, random_state=s)
                gaps[name][i, s] = sparsity_gap(res.alpha, data.relevant)
                positive[name][i, s] = res.all_positive
            rand = q_alpha(data.M, n_c, init="random", random_state=s)
            random_gaps[i, s] = sparsity_gap(rand.alpha, data.relevant)
    comparisons = []
    start = ("Kit's choice: the PCA start (the paper starts from a random Q⁽⁰⁾, see the "
             "'random start' rows)" if init == "pca" else "the paper's random start")
    for i, n_c in enumerate(clusters):
        q25, q50, q75 = np.percentile(gaps["k = n_c"][i], [25, 50, 75])
        comparisons.append(
            compare(
                f"n_c = {n_c}: mean sparsity gap, k = n_c", None, (5.0, 10.0), rtol=0.0,
                close_rtol=0.5, samples=gaps["k = n_c"][i], quote=Q_SPARSITY_GAP,
                note=f"Fig. 3b shows the mean of 20 runs; median {q50:.1f}, quartiles "
                     f"{q25:.1f}–{q75:.1f}; 5–10 is a band with two sides, 2.5–15 close. "
                     + start,
            )
        )
        comparisons.append(
            compare(
                f"n_c = {n_c}: fraction of runs with all α > 0", None, None,
                samples=positive["k = n_c"][i].astype(float),
                ci=proportion_ci(int(positive["k = n_c"][i].sum()), seeds),
                note="the paper argues positivity (Sec. 4) but prints no rate for this "
                     "experiment; Wilson interval",
            )
        )
    for i, n_c in enumerate(clusters):
        comparisons.append(
            compare(
                f"n_c = {n_c}: mean sparsity gap, k = n_c, random start (the paper's)", None,
                (5.0, 10.0), rtol=0.0, close_rtol=0.5, samples=random_gaps[i],
                quote=Q_SPARSITY_GAP,
                note=f"median {np.median(random_gaps[i]):.1f}; a random start sometimes ends "
                     "in a poor local maximum (see the start study)",
            )
        )
    data_out = {
        "clusters": np.array(clusters),
        "gaps": gaps,
        "all_positive": positive,
        "random_start_gaps": random_gaps,
    }
    return comparisons, data_out, {"seeds": seeds, "init": init}


def _svm_error(Xtr: np.ndarray, ytr: np.ndarray, Xte: np.ndarray, yte: np.ndarray) -> float:
    clf = LinearSVC(C=1.0, dual="auto", max_iter=20000).fit(Xtr, ytr)
    return float(np.mean(clf.predict(Xte) != yte))


@reproduction(
    "wolf-shashua-2005/weston-linear", PAPER,
    "Fig. 3a — Weston et al.'s linear problem (6 relevant of 202): selection and SVM error",
)
def weston_linear(
    *, quick: bool = False, random_state: int = 0, n_select: int = 6
) -> tuple:
    """Unsupervised and supervised Q-α (k = 2) against Pearson, Fisher and KS filters.

    For each training size (10, 20, 30, 50, 75, 100) and each of 30 seeds: select
    ``n_select`` features on the training set, train a linear SVM on them and measure the
    error on 500 test points; also count how many of the top-6 features are relevant.
    The paper shows curves only (overlaid on Weston et al.'s figure) and says supervised Q-α
    "closely agrees" with the SVM wrapper while unsupervised Q-α "does not fall much behind".
    """
    sizes = [20, 50, 100] if quick else [10, 20, 30, 50, 75, 100]
    seeds = 8 if quick else 30
    methods = ["Q-α unsupervised", "Q-α supervised", "Pearson", "Fisher", "KS"]
    errors = {m: np.zeros((len(sizes), seeds)) for m in methods}
    hits = {m: np.zeros((len(sizes), seeds)) for m in methods}
    for i, n in enumerate(sizes):
        for s in range(seeds):
            rng_seed = random_state * 10_000 + 100 * s + i
            train = make_weston_linear(n, random_state=rng_seed)
            test = make_weston_linear(500, random_state=rng_seed + 7_000_000)
            if np.unique(train.y).size < 2:
                train = make_weston_linear(n, random_state=rng_seed + 1)
            rankings = {
                "Q-α unsupervised": q_alpha(train.M, 2, random_state=s).ranking,
                "Q-α supervised": q_alpha_supervised(train.M, train.y, random_state=s).ranking,
                "Pearson": rank_features(pearson_score(train.X, train.y)),
                "Fisher": rank_features(fisher_score(train.X, train.y)),
                "KS": rank_features(ks_score(train.X, train.y)),
            }
            for m, order in rankings.items():
                chosen = order[:n_select]
                hits[m][i, s] = train.relevant[order[:6]].sum()
                errors[m][i, s] = _svm_error(train.X[:, chosen], train.y, test.X[:, chosen],
                                             test.y)
    comparisons = []
    last = len(sizes) - 1
    choices = (f"Kit's choices: the top {n_select} features train a linear SVM (LinearSVC, "
               "C = 1; the paper does not say how many features or which C), k = 2.")
    for m in methods:
        comparisons.append(
            compare(
                f"{m}: relevant among top 6, n = {sizes[last]} (mean)", None, None,
                samples=hits[m][last],
            )
        )
    for i, n in enumerate(sizes):
        row = ", ".join(f"{m} {errors[m][i].mean():.3f}" for m in methods)
        comparisons.append(
            compare(
                f"n = {n}: SVM test error, Q-α supervised", None, None,
                samples=errors["Q-α supervised"][i],
                note=f"published as curves only (Fig. 3a); all methods: {row}. " + choices,
            )
        )
        comparisons.append(
            compare(
                f"n = {n}: SVM test error, Q-α unsupervised minus supervised", None, None,
                samples=errors["Q-α unsupervised"][i] - errors["Q-α supervised"][i],
                note="'the performance of the unsupervised version does not fall much "
                     "behind' (Sec. 6) gives no size, so no verdict; paired over runs",
            )
        )
    return comparisons, {"sizes": np.array(sizes), "errors": errors, "hits": hits}, {
        "seeds": seeds, "n_select": n_select,
    }


@reproduction(
    "wolf-shashua-2005/ben-dor", PAPER,
    "Sec. 6 — Ben-Dor et al.'s microarray model at the leukemia-fitted parameters",
)
def ben_dor_selection(*, quick: bool = False, random_state: int = 0) -> tuple:
    """How much more likely unsupervised Q-α (k = 2) is to select a relevant feature than an
    irrelevant one, selecting either as many features as there are relevant ones or the
    top 20.

    Parameters m = 600, a = 25, b = 47, e = 0.72, d = 555; the spread s is varied as in
    the paper, which reports a ratio of at least 30 "even for s > 1000".
    """
    spreads = [0.75, 1000.0] if quick else [0.75, 10.0, 100.0, 1000.0, 2000.0]
    seeds = 5 if quick else 20
    names = ("top |relevant|", "top 20")
    boot = np.random.default_rng(random_state + 12345)
    # counts[name][spread, seed] = (selected relevant, selected irrelevant, n_rel, n_irr)
    counts = {name: np.zeros((len(spreads), seeds, 4)) for name in names}
    for i, s_value in enumerate(spreads):
        for seed in range(seeds):
            data = make_ben_dor(s=s_value, random_state=random_state * 1000 + seed)
            ranking = q_alpha(data.M, 2, random_state=seed).ranking
            for name, size in zip(names, (int(data.relevant.sum()), 20)):
                chosen = np.zeros(data.relevant.size, dtype=bool)
                chosen[ranking[:size]] = True
                counts[name][i, seed] = [
                    (chosen & data.relevant).sum(), (chosen & ~data.relevant).sum(),
                    data.relevant.sum(), (~data.relevant).sum(),
                ]

    def pooled(c: np.ndarray) -> tuple[float, bool]:
        sel_rel, sel_irr, n_rel, n_irr = c.sum(axis=0)
        # With no irrelevant feature selected, one selection gives a lower bound.
        return (sel_rel / n_rel) / (max(sel_irr, 1) / n_irr), bool(sel_irr == 0)

    comparisons, ratios = [], {name: [] for name in names}
    for i, s_value in enumerate(spreads):
        for name in names:
            c = counts[name][i]
            value, bound = pooled(c)
            ratios[name].append(value)
            draws = boot.integers(0, seeds, size=(1000, seeds))
            resampled = np.array([pooled(c[d])[0] for d in draws])
            lo, hi = np.percentile(resampled, [2.5, 97.5])
            comparisons.append(
                compare(
                    f"s = {s_value:g}, {name}: P(select | relevant) ÷ P(select | irrelevant)",
                    float(value), 30.0, at_least=True, rtol=0.0, close_rtol=0.3,
                    ci=(float(lo), float(hi)), n=seeds, quote=Q_BEN_DOR,
                    note="Interval: 1000 bootstrap redraws of the data sets. "
                         + ("Lower bound: no irrelevant feature selected. " if bound else "")
                         + ("s = 0.75 is the leukemia fit the paper prints. "
                            if s_value == 0.75 else "This s is the kit's choice (the paper "
                            "names s = 0.75 and 's > 1000'). ")
                         + "Kit's choice: how many features are selected (the paper does "
                           "not say; both readings shown).",
                )
            )
    return comparisons, {"spreads": np.array(spreads),
                         "ratios": {k: np.array(v) for k, v in ratios.items()}}, {
        "seeds": seeds,
    }


@reproduction(
    "wolf-shashua-2005/initialization", PAPER,
    "Starting subspace Q⁽⁰⁾: how often Q-α ends in a poor local maximum (Fig. 3b data)",
)
def initialization_study(*, quick: bool = False, random_state: int = 0) -> tuple:
    """Compare the paper's random Q⁽⁰⁾ with the kit's PCA start and with restarts.

    For every data set the best objective found by any start (PCA, 8 random starts and an
    oracle start at the relevant features) is the reference; a run "reaches the best" when its
    final objective is within 1 % of it, and is a "poor local maximum" when its sparsity gap
    is below 2 while the best run's is above 5.
    """
    clusters = [2, 4] if quick else [2, 3, 4, 5, 6]
    seeds = 4 if quick else 20
    n_random = 3 if quick else 8
    labels = ["random (paper)", "pca (default)", "pca + 3 random restarts"]
    reach = {lab: np.zeros((len(clusters), seeds), dtype=bool) for lab in labels}
    poor = {lab: np.zeros((len(clusters), seeds), dtype=bool) for lab in labels}
    for i, n_c in enumerate(clusters):
        for s in range(seeds):
            data = make_multiclass_clusters(n_c, random_state=random_state * 1000 + s)
            M = preprocess_rows(data.M)
            model = StandardModel(M)
            rng = np.random.default_rng(s)
            finals = []
            for j in range(n_random):
                Q0 = model.initial_subspace("random", n_c, rng)
                raw = alternate(model, Q0, method="basic", max_iter=300, tol=1e-6,
                                solver="dense")
                finals.append((raw["objective"][-1], raw["alpha"], f"random{j}"))
            oracle_alpha = data.relevant / np.sqrt(data.relevant.sum())
            raw = alternate(model, model.eigen_step(oracle_alpha, np.empty((M.shape[1], n_c))),
                            method="basic", max_iter=300, tol=1e-6, solver="dense",
                            alpha0=oracle_alpha)
            finals.append((raw["objective"][-1], raw["alpha"], "oracle"))
            runs = {
                "random (paper)": q_alpha(data.M, n_c, init="random", random_state=s),
                "pca (default)": q_alpha(data.M, n_c, init="pca"),
                "pca + 3 random restarts": q_alpha(data.M, n_c, n_init=4, random_state=s),
            }
            best = max([f[0] for f in finals] + [r.objective[-1] for r in runs.values()])
            best_gap = max(
                sparsity_gap(a, data.relevant) for _, a, _ in finals
            )
            for lab, res in runs.items():
                reach[lab][i, s] = res.objective[-1] >= 0.99 * best
                poor[lab][i, s] = (
                    sparsity_gap(res.alpha, data.relevant) < 2 and best_gap > 5
                )
    comparisons = []
    for lab in labels:
        comparisons.append(
            compare(
                f"{lab}: runs reaching the best objective",
                float(reach[lab].mean()), None,
                ci=proportion_ci(int(reach[lab].sum()), reach[lab].size), n=reach[lab].size,
                note=f"poor local maxima in {poor[lab].mean():.0%} of runs; Wilson interval",
            )
        )
    return comparisons, {"clusters": np.array(clusters), "reach": reach, "poor": poor}, {
        "seeds": seeds, "random_starts": n_random,
    }
