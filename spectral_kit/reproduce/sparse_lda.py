"""Moghaddam, Weiss & Avidan (2006), Generalized spectral bounds for sparse LDA: Figs. 1–4.

The figures themselves are not part of the text the kit works from, so every published
number here is one the paper states in words (Secs. 3–4), quoted with its place. Means over
repeats carry their 95 % interval; the qualitative claims ("GSLDA out-performs ST",
"essentially the same accuracy", "poorest ... at half-sparsity") are claim rows: the
differences over repeats (CV repetitions, random pairs, or left-out samples) are decided by
:func:`compare_claim`, and a claim the kit reads as a band by :func:`compare_claim_band`,
whose test states the band.
"""

from __future__ import annotations

import numpy as np
from sklearn.model_selection import StratifiedKFold

from ..datasets import load_dataset
from ..sparse_lda import (
    auto_epsilon,
    check_pair,
    discriminant_errors,
    greedy_forward,
    monte_carlo_batch,
    pearson_ranking,
    scatter_matrices,
)
from ..sparse_lda.branch_bound import eslda_pair, single_threaded_blas
from ..sparse_lda.greedy import gslda_pair
from ..sparse_lda.thresholding import threshold_loadings
from ..validation import as_generator
from ._core import compare, compare_claim, compare_claim_band, quote, reproduction

__all__ = [
    "eslda_exactness",
    "fig1_monte_carlo",
    "fig2_sonar",
    "fig3_ionosphere",
    "fig4_colon",
]

PAPER = "moghaddam-weiss-avidan-2006"

# -- the paper's words that the rows compare with ----------------------------------------------
Q_AT_LEAST_90 = quote(
    PAPER, "Sec. 3.1, Monte Carlo paragraph; Fig. 1b",
    "GSLDA is seen to capture at least 90% of the maximum LDA score across all cardinalities",
)
Q_HALF_SPARSITY = quote(
    PAPER, "Sec. 3.1, Monte Carlo paragraph; Fig. 1b",
    "its poorest performance (10% suboptimality) occurs at “half-sparsity” (k = n/2)",
)
Q_CONSISTENTLY = quote(
    PAPER, "Sec. 4, Discussion, 4th paragraph",
    "In our experiments, GSLDA consistently out-performed continuous algorithms like simple "
    "thresholding (ST) and variable ranking by correlation.",
)
Q_ESLDA_EXACT = quote(
    PAPER, "Sec. 2.3, 2nd paragraph",
    "Our exact sparse LDA algorithm (called ESLDA) is guaranteed to terminate with the "
    "optimal discriminant.",
)
Q_SONAR_ERROR = quote(
    PAPER, "Sec. 3.2, Sonar paragraph",
    "The “half-sparsity” test error of GSLDA (9% at k = 30) is as good as any reported on "
    "this dataset without sparsity",
)
Q_SONAR_FLAT = quote(
    PAPER, "Sec. 3.2, Sonar paragraph",
    "unlike correlation-based ranking (P-corr) and simple thresholding (ST) whose test error "
    "begins to increase as soon as we discard more than just a few variables, GSLDA maintains "
    "essentially the same level of performance with only half the number of features (k = 30)",
)
Q_IONOSPHERE_ERROR = quote(
    PAPER, "Sec. 3.2, Ionosphere paragraph",
    "The error rate at “half-sparsity” (≈ 11% at k = 16) is competitive with past benchmarks "
    "established with neural networks and SVMs using all variables.",
)
Q_IONOSPHERE_ST = quote(
    PAPER, "Sec. 3.2, Ionosphere paragraph",
    "the “fixed” sub-optimal ST method appears to yield essentially the same accuracy",
)
Q_IONOSPHERE_PEARSON = quote(
    PAPER, "Sec. 3.2, Ionosphere paragraph",
    "Note that the correlation-based filter is once again found to be inferior to our "
    "spectral algorithm.",
)
Q_COLON_ZERO = quote(
    PAPER, "Sec. 3.3, 2nd paragraph",
    "the true skeptic would discount the zero error rates of RFE-SVM and GSLDA in Figure 4 "
    "anyway",
)

#: Hurst exponents of the random pairs' processes: rough, Brownian, smooth.
SMOOTHNESS = (0.25, 0.5, 0.75)
PAIR_KINDS = ("rank_one", "general")


@reproduction(
    f"{PAPER}/fig1", PAPER,
    "Fig. 1 — Monte Carlo (n = 16): mean optimality ratio of ST and GSLDA against k",
)
def fig1_monte_carlo(
    *, quick: bool = False, random_state: int = 0, n_pairs: int | None = None
) -> tuple[list, dict, dict]:
    """Mean optimality ratio per k of ST and GSLDA over random pairs, ESLDA as ground truth.

    The paper draws 50,000 pairs; here ``n_pairs`` per setting (default 1000, quick 10) for
    every smoothness in :data:`SMOOTHNESS` and both a rank-one (two-class) and a general A.
    That ESLDA -- the ground truth -- is exact is checked by :func:`eslda_exactness`.
    """
    n = 16
    per_setting = n_pairs if n_pairs is not None else (10 if quick else 1000)
    rng = as_generator(random_state)
    boot = np.random.default_rng(int(rng.integers(2**31)))
    comparisons, data = [], {"ks": np.arange(1, n + 1), "settings": []}
    generator = (
        "The paper gives no formula for its 'Brownian processes of various degrees of "
        "smoothness'; the kit's pairs (fractional Brownian motion, Hurst H) are one reading, "
        f"{per_setting} pairs per setting against the paper's 50,000."
    )
    for kind in PAIR_KINDS:
        for H in SMOOTHNESS:
            batch = monte_carlo_batch(n, per_setting, smoothness=H, kind=kind, random_state=rng)
            ratio_g, ratio_st = batch.ratio("GSLDA"), batch.ratio("ST")
            g, st = ratio_g.mean(axis=0), ratio_st.mean(axis=0)
            worst = int(np.argmin(g))
            # Where the worst k falls when the pairs are redrawn (bootstrap over pairs).
            draws = boot.integers(0, batch.n_pairs, size=(200, batch.n_pairs))
            worst_boot = np.array([np.argmin(ratio_g[d].mean(axis=0)) + 1 for d in draws])
            k_lo, k_hi = np.quantile(worst_boot, [0.025, 0.975], method="inverted_cdf")
            label = f"{kind.replace('_', '-')} A, H = {H}"
            comparisons.append(compare(
                f"GSLDA: lowest mean optimality ratio over k ({label})", None, 0.90,
                at_least=True, rtol=0.0, close_rtol=0.05, samples=ratio_g[:, worst],
                quote=Q_AT_LEAST_90,
                note=f"Interval over pairs at the worst k = {worst + 1}. " + generator,
            ))
            comparisons.append(compare_claim_band(
                f"GSLDA: k of the lowest mean ratio ({label})", worst + 1, Q_HALF_SPARSITY,
                reading=n / 2, rtol=0.0, atol=2.0, close_rtol=0.125,
                ci=(float(k_lo), float(k_hi)),
                test=f"the paper's n = 16 (Fig. 1a), so half-sparsity is k = {n // 2}; the "
                     "worst k (95 % of 200 bootstrap redraws of the pairs) within ±2 of it is "
                     "reproduced, within ±3 close (the kit's tolerance)",
                note=generator,
            ))
            st_worst = int(np.argmin(st))
            comparisons.append(compare_claim(
                f"GSLDA − ST optimality ratio at ST's worst k ({label})",
                ratio_g[:, st_worst] - ratio_st[:, st_worst], Q_CONSISTENTLY,
                test="the 95 % interval of the paired differences over pairs, at ST's worst "
                     "k (the kit's choice of k), lies above 0",
                note=f"ST's lowest mean ratio {st.min():.3f} at k = {st_worst + 1}.",
            ))
            data["settings"].append({
                "kind": kind, "smoothness": H, "n_pairs": batch.n_pairs,
                "ratio_ST": st, "ratio_GSLDA": g,
                "normalized": {m: batch.mean_normalized(m) for m in ("ST", "GSLDA", "ESLDA")},
                "mean_nodes": batch.nodes.mean(axis=0),
            })
    settings = {"n": n, "pairs_per_setting": per_setting, "smoothness": SMOOTHNESS,
                "kinds": PAIR_KINDS}
    return comparisons, data, settings


@reproduction(
    f"{PAPER}/eslda-exact", PAPER,
    "Sec. 2.3 — ESLDA is exact: branch-and-bound equals exhaustive search at every k (n = 16)",
)
def eslda_exactness(
    *, quick: bool = False, random_state: int = 0, n_pairs: int | None = None
) -> tuple[list, dict, dict]:
    """ESLDA against exhaustive enumeration at every k on random pairs of size 16.

    200 pairs (quick: 12), half with a rank-one A and half general, cycling through the
    smoothness settings of Fig. 1; a pair counts as agreeing when ESLDA's value equals the
    exhaustive optimum within relative tolerance 1e-9 at all 16 cardinalities.
    """
    total = n_pairs if n_pairs is not None else (12 if quick else 200)
    rng = as_generator(random_state)
    agree, nodes = [], []
    for i in range(total):
        kind = PAIR_KINDS[i % 2]
        H = SMOOTHNESS[(i // 2) % len(SMOOTHNESS)]
        batch = monte_carlo_batch(16, 1, smoothness=H, kind=kind, audit=1, random_state=rng)
        agree.append(bool(batch.exhaustive_agrees[0]))
        nodes.append(batch.nodes[0])
    agree_arr = np.array(agree)
    comparisons = [compare_claim_band(
        "share of random pairs where ESLDA equals exhaustive search at every k",
        float(agree_arr.mean()), Q_ESLDA_EXACT, reading=1.0, rtol=0.0, close_rtol=0.0,
        test="ESLDA's value equals the exhaustive optimum (relative 10⁻⁹) at all 16 k on "
             "every random pair: a single failure differs (no interval)",
        note=f"{int(agree_arr.sum())} of {total} pairs (the kit's pairs, as in Fig. 1).",
    )]
    data = {"agrees": agree_arr, "nodes": np.array(nodes)}
    return comparisons, data, {"n": 16, "pairs": total, "rtol": 1e-9}


def _without_constant_features(X: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    keep = np.ptp(X, axis=0) > 0
    return X[:, keep], np.flatnonzero(keep)


def _cv_error_curves(
    X: np.ndarray,
    y: np.ndarray,
    methods: tuple[str, ...],
    ks: np.ndarray,
    repeats: int,
    folds: int,
    rng: np.random.Generator,
) -> dict[str, np.ndarray]:
    """Test error of LDA on the support each method picks, for every k, CV fold and repeat.

    In each fold the training part gives (A, B) and the selection, the test part the error
    (Sec. 3.2: "80% of the samples were used for covariance estimation and subsequent variable
    selection ... and 20% for subsequent testing").
    """
    errors: dict[str, list[np.ndarray]] = {m: [] for m in methods}
    with single_threaded_blas():
        for _ in range(repeats):
            cv = StratifiedKFold(folds, shuffle=True, random_state=int(rng.integers(2**31)))
            for train, test in cv.split(X, y):
                sc = scatter_matrices(X[train], y[train])
                eps = auto_epsilon(sc.B, A=sc.A)
                pair = check_pair(sc.d, sc.B, eps)
                path = gslda_pair(pair)
                for method in methods:
                    if method == "GSLDA":
                        supports = [path.support_at(k) for k in ks]
                    elif method == "ESLDA":
                        supports = [eslda_pair(pair, int(k), init=path).support for k in ks]
                    else:
                        if method == "ST":
                            order = np.argsort(-np.abs(threshold_loadings(pair)), kind="stable")
                        else:
                            order = pearson_ranking(X[train], y[train]).order
                        supports = [np.sort(order[:k]) for k in ks]
                    errors[method].append(discriminant_errors(
                        X[train], y[train], X[test], y[test], supports, epsilon=eps
                    ))
    return {m: np.array(v) for m, v in errors.items()}


def _at(ks: np.ndarray, curve: np.ndarray, k: int) -> np.ndarray:
    """The values at cardinality k (the last axis indexes ``ks``)."""
    return curve[..., int(np.flatnonzero(ks == k)[0])]


def _per_repeat(curves: dict[str, np.ndarray], repeats: int) -> dict[str, np.ndarray]:
    """Error per CV repetition (mean over its folds): the independent draws of a CV study."""
    return {m: v.reshape(repeats, -1, v.shape[-1]).mean(axis=1) for m, v in curves.items()}


CV_CLASSIFIER = (
    "Kit's choice: the error is that of Gaussian LDA on the selected support (shared "
    "covariance of the training folds, B + εI); the paper does not name its classifier."
)


@reproduction(
    f"{PAPER}/fig2-sonar", PAPER,
    "Fig. 2 — Sonar: 5-fold CV test error against k for ST, Pearson correlation and GSLDA",
)
def fig2_sonar(*, quick: bool = False, random_state: int = 0) -> tuple[list, dict, dict]:
    """Repeated 5-fold CV on Sonar (208 × 60); the paper runs 100 repetitions (quick: 3)."""
    data = load_dataset("sonar")
    X, y = data.X, data.y
    ks = np.arange(1, X.shape[1] + 1)
    repeats = 3 if quick else 100
    rng = as_generator(random_state)
    curves = _cv_error_curves(X, y, ("ST", "Pearson", "GSLDA"), ks, repeats, 5, rng)
    mean = {m: v.mean(axis=0) for m, v in curves.items()}
    rep = _per_repeat(curves, repeats)
    g30 = _at(ks, rep["GSLDA"], 30)
    comparisons = [
        compare(
            "GSLDA test error at k = 30", None, 0.09, rtol=0.0, atol=0.01, close_rtol=0.25,
            samples=g30, quote=Q_SONAR_ERROR,
            note="Printed to a whole percent, so ±1 point is reproduced and ±(1 + 2.25) "
                 f"points close; interval over {repeats} CV repetitions. With all 60 bands "
                 f"our LDA errs {_at(ks, mean['GSLDA'], 60):.3f} (notebook 03 checks it "
                 "against scikit-learn's LinearDiscriminantAnalysis): the 9 % is out of reach "
                 "of a linear discriminant under this protocol. " + CV_CLASSIFIER,
        ),
        compare_claim(
            "ST error − GSLDA error at k = 30", _at(ks, rep["ST"], 30) - g30, Q_SONAR_FLAT,
            test="the 95 % interval of the paired differences over CV repetitions lies "
                 "above 0",
            note="Fig. 2.",
        ),
        compare_claim(
            "Pearson error − GSLDA error at k = 30", _at(ks, rep["Pearson"], 30) - g30,
            Q_SONAR_FLAT,
            test="the 95 % interval of the paired differences over CV repetitions lies "
                 "above 0",
            note="For correlation ranking (P-corr); the quick run's 3 repetitions can lean "
                 "the other way from the full run's 100.",
        ),
        compare_claim_band(
            "GSLDA error at k = 30 − error with all 60 bands", None, Q_SONAR_FLAT,
            reading=0.0, rtol=0.0, atol=0.01, close_rtol=0.0,
            samples=g30 - _at(ks, rep["GSLDA"], 60),
            test="the kit reads 'essentially the same level of performance' as a difference "
                 "within ±1 point: the 95 % interval of the paired differences over CV "
                 "repetitions inside ±0.01 is reproduced, wholly outside differs",
        ),
    ]
    out = {"ks": ks, "mean": mean, "std": {m: v.std(axis=0) for m, v in curves.items()},
           "runs": curves}
    return comparisons, out, {"repeats": repeats, "folds": 5, "classifier": "LDA on support"}


@reproduction(
    f"{PAPER}/fig3-ionosphere", PAPER,
    "Fig. 3 — Ionosphere: 5-fold CV test error against k for ST, Pearson correlation and ESLDA",
)
def fig3_ionosphere(*, quick: bool = False, random_state: int = 0) -> tuple[list, dict, dict]:
    """Repeated 5-fold CV on Ionosphere with the optimal ESLDA support at every k.

    The constant second attribute (always 0) is dropped, leaving 33 variables. The paper does
    not say how many repetitions it ran for this figure; here 20 (quick: 1, on a grid of k).
    """
    data = load_dataset("ionosphere")
    X, kept = _without_constant_features(data.X)
    y = data.y
    n = X.shape[1]
    ks = np.array([1, 2, 4, 8, 12, 16, 20, 24, 28, n]) if quick else np.arange(1, n + 1)
    repeats = 1 if quick else 20
    rng = as_generator(random_state)
    curves = _cv_error_curves(X, y, ("ST", "Pearson", "GSLDA", "ESLDA"), ks, repeats, 5, rng)
    mean = {m: v.mean(axis=0) for m, v in curves.items()}
    rep = _per_repeat(curves, repeats)
    e16 = _at(ks, rep["ESLDA"], 16)
    half = ks <= n // 2
    setup = (
        f"Kit's choices: {n} variables (UCI's 34 attributes without the constant second "
        "one; the paper says n = 36), "
        f"{repeats} CV repetitions (the paper does not say how many). " + CV_CLASSIFIER
    )
    comparisons = [
        compare(
            "ESLDA test error at k = 16", None if repeats > 1 else float(e16[0]), 0.11,
            rtol=0.0, atol=0.01, close_rtol=0.3, samples=e16 if repeats > 1 else None,
            quote=Q_IONOSPHERE_ERROR,
            note="±1 point is reproduced, ±(1 + 3.3) points close. " + setup,
        ),
        compare_claim_band(
            "ST error − ESLDA error at k = 16", None if repeats > 1 else
            float((_at(ks, rep["ST"], 16) - e16)[0]), Q_IONOSPHERE_ST,
            reading=0.0, rtol=0.0, atol=0.02, close_rtol=0.0,
            samples=(_at(ks, rep["ST"], 16) - e16) if repeats > 1 else None,
            test="the kit reads 'essentially the same accuracy' as a difference within ±2 "
                 "points at the paper's half-sparsity k = 16: the 95 % interval of the paired "
                 "differences over CV repetitions inside ±0.02 is reproduced, wholly outside "
                 "differs",
            note=setup,
        ),
        compare_claim(
            "Pearson error − ESLDA error, mean over k ≤ n/2",
            (rep["Pearson"][:, half] - rep["ESLDA"][:, half]).mean(axis=1),
            Q_IONOSPHERE_PEARSON,
            test="the mean over k ≤ n/2 (the kit's choice: the paper names no k) of the "
                 "paired differences, its 95 % interval over CV repetitions above 0",
            note="Fig. 3. " + setup,
        ),
    ]
    out = {"ks": ks, "mean": mean, "std": {m: v.std(axis=0) for m, v in curves.items()},
           "runs": curves, "features": kept}
    return comparisons, out, {"repeats": repeats, "folds": 5, "n_features": n,
                              "classifier": "LDA on support"}


def _loo_errors(
    X: np.ndarray, y: np.ndarray, supports: list[np.ndarray], eps: float
) -> np.ndarray:
    """Leave-one-out mistakes (0/1) of LDA on each fixed support, per left-out sample.

    The selection is not redone; shape (n_samples, len(supports)).
    """
    N = X.shape[0]
    wrong = np.zeros((N, len(supports)))
    for i in range(N):
        train = np.delete(np.arange(N), i)
        for j, support in enumerate(supports):
            Xs = X[:, support]
            wrong[i, j] = discriminant_errors(
                Xs[train], y[train], Xs[i : i + 1], y[i : i + 1],
                [np.arange(support.size)], epsilon=eps,
            )[0]
    return wrong


COLON_BIAS = (
    "Selection on all 62 samples, then leave-one-out (the protocol of Guyon et al. 2002): the "
    "paper itself warns that this is optimistically biased and valid only for comparing "
    "methods; the error of a truly held-out sample would be higher."
)


COLON_TEST = (
    "the mean over k ∈ {1, 2, 4, 8} (the kit's choice of sparse k: the paper stresses k ≤ 10)"
    " of the paired leave-one-out mistakes, its 95 % interval over the 62 left-out samples "
    "below 0"
)


@reproduction(
    f"{PAPER}/fig4-colon", PAPER,
    "Fig. 4 — colon cancer: leave-one-out error against k for GSLDA (forward), ST and Pearson",
)
def fig4_colon(*, quick: bool = False, random_state: int = 0) -> tuple[list, dict, dict]:
    """Alon et al. colon data (62 tissues × 2000 genes), the protocol of Guyon et al. (2002).

    Genes are log10-transformed and standardized (as Guyon et al. preprocess these data);
    (A, B) and the selection use all 62 samples, B regularized by ε = 10⁻³ × its smallest
    non-zero eigenvalue; the leave-one-out error of LDA on each selected set is then computed
    with the same ε. The paper itself warns that this protocol is optimistically biased.
    Deterministic; the rows for k ≤ 10 are computed identically in quick mode (the greedy
    order does not depend on how far it runs).
    """
    del random_state  # deterministic: no resampling
    data = load_dataset("colon")
    X = np.log10(data.X)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    y = data.y
    ks = np.array([1, 2, 4, 8, 16, 32]) if quick else np.array(
        [1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2000]
    )
    sc = scatter_matrices(X, y)
    eps = auto_epsilon(sc.B, A=sc.A)
    pair = check_pair(sc.d, sc.B, eps)
    forward = greedy_forward(sc.d, sc.B, int(ks.max()), regularization=eps)
    order, values = forward.order, forward.values
    st_order = np.argsort(-np.abs(threshold_loadings(pair)), kind="stable")
    p_order = pearson_ranking(X, y).order
    wrong = {}
    for name, o in (("GSLDA", order), ("ST", st_order), ("Pearson", p_order)):
        wrong[name] = _loo_errors(X, y, [np.sort(o[:k]) for k in ks], eps)
    curves = {name: w.mean(axis=0) for name, w in wrong.items()}
    small = ks <= 10
    prep = ("Kit's choices: log10 and a z-score per gene (Guyon et al.'s preprocessing; the "
            "paper names none), Gaussian LDA as the classifier. ")
    zero_from = [int(k) for k, e in zip(ks, curves["GSLDA"]) if e == 0]
    comparisons = [
        compare(
            "GSLDA: lowest leave-one-out error over k", float(curves["GSLDA"].min()), 0.0,
            rtol=0.0, atol=0.0, close_rtol=0.0, quote=Q_COLON_ZERO,
            note=f"Zero at k = {zero_from}. " + prep + COLON_BIAS,
        ),
        compare(
            "GSLDA: leave-one-out error at k = 1", float(curves["GSLDA"][0]), None,
            final_in_quick=True,
            note="The text says GSLDA differs most from RFE-SVM (by 15%) at k = 1; the "
                 "absolute values are only in the figure. " + COLON_BIAS,
        ),
        compare_claim(
            "GSLDA error − ST error, mean over k ∈ {1, 2, 4, 8}",
            (wrong["GSLDA"][:, small] - wrong["ST"][:, small]).mean(axis=1),
            Q_CONSISTENTLY, side="less", final_in_quick=True, test=COLON_TEST,
            note="Fig. 4. " + COLON_BIAS,
        ),
        compare_claim(
            "GSLDA error − Pearson error, mean over k ∈ {1, 2, 4, 8}",
            (wrong["GSLDA"][:, small] - wrong["Pearson"][:, small]).mean(axis=1),
            Q_CONSISTENTLY, side="less", final_in_quick=True, test=COLON_TEST,
            note="For correlation ranking. " + COLON_BIAS,
        ),
    ]
    out = {"ks": ks, "loo_error": curves, "forward_values": values, "order": order,
           "epsilon": eps}
    return comparisons, out, {"epsilon": eps, "preprocessing": "log10, z-score per gene",
                              "k_max": int(ks.max())}
