"""Moghaddam, Weiss & Avidan (2006), Generalized spectral bounds for sparse LDA: Figs. 1–4.

The figures themselves are not part of the text the kit works from, so every published
number here is one the paper states in words (Sec. 3); each comparison's note quotes it.
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
from ._core import compare, reproduction

__all__ = [
    "eslda_exactness",
    "fig1_monte_carlo",
    "fig2_sonar",
    "fig3_ionosphere",
    "fig4_colon",
]

PAPER = "moghaddam-weiss-avidan-2006"

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
    comparisons, data = [], {"ks": np.arange(1, n + 1), "settings": []}
    for kind in PAIR_KINDS:
        for H in SMOOTHNESS:
            batch = monte_carlo_batch(n, per_setting, smoothness=H, kind=kind, random_state=rng)
            g, st = batch.mean_ratio("GSLDA"), batch.mean_ratio("ST")
            label = f"{kind.replace('_', '-')} A, H = {H}"
            comparisons.append(compare(
                f"GSLDA: lowest mean optimality ratio over k ({label})", float(g.min()), 0.90,
                at_least=True, rtol=0.0, close_rtol=0.05,
                note="Sec. 3.1: GSLDA captures 'at least 90% of the maximum LDA score across "
                     "all cardinalities' (text).",
            ))
            comparisons.append(compare(
                f"GSLDA: k of the lowest mean ratio ({label})", int(np.argmin(g) + 1), n / 2,
                rtol=0.0, atol=2.0,
                note="Sec. 3.1: 'its poorest performance ... occurs at half-sparsity (k = n/2)';"
                     " within ±2 counts as reproduced.",
            ))
            comparisons.append(compare(
                f"ST: lowest mean optimality ratio over k ({label})", float(st.min()), None,
                note="Fig. 1b shows ST below GSLDA; the text gives no number.",
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
    comparisons = [compare(
        f"pairs where ESLDA equals exhaustive search at every k (of {total})",
        int(agree_arr.sum()), total, rtol=0.0,
        note="ESLDA 'is guaranteed to terminate with the optimal discriminant' (Sec. 2.3).",
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


def _at(ks: np.ndarray, curve: np.ndarray, k: int) -> float:
    return float(curve[int(np.flatnonzero(ks == k)[0])])


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
    g30 = _at(ks, mean["GSLDA"], 30)
    comparisons = [
        compare(
            "GSLDA test error at k = 30", g30, 0.09, rtol=0.25,
            note="Sec. 3.2: 'The half-sparsity test error of GSLDA (9% at k = 30)' (text). "
                 "Ours: LDA on the selected bands, the shared covariance of the training folds.",
        ),
        compare(
            "ST error − GSLDA error at k = 30", _at(ks, mean["ST"], 30) - g30, 0.0,
            at_least=True,
            note="Fig. 2 / Sec. 3.2: ST and P-corr lose accuracy 'as soon as we discard more "
                 "than just a few variables' while GSLDA keeps it (qualitative: difference > 0).",
        ),
        compare(
            "Pearson error − GSLDA error at k = 30", _at(ks, mean["Pearson"], 30) - g30, 0.0,
            at_least=True, note="As above, for correlation ranking.",
        ),
        compare(
            "GSLDA error at k = 30 − error with all 60 bands",
            g30 - _at(ks, mean["GSLDA"], 60), 0.0, atol=0.01,
            note="'GSLDA maintains essentially the same level of performance with only half the "
                 "number of features' (within 1 point counts as reproduced).",
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
    e16 = _at(ks, mean["ESLDA"], 16)
    half = ks <= n // 2
    comparisons = [
        compare(
            "ESLDA test error at k = 16", e16, 0.11, rtol=0.25,
            note="Sec. 3.2: 'The error rate at half-sparsity (≈ 11% at k = 16)' (text).",
        ),
        compare(
            "ST error − ESLDA error at k = 16", _at(ks, mean["ST"], 16) - e16, 0.0, atol=0.02,
            note="'the fixed sub-optimal ST method appears to yield essentially the same "
                 "accuracy' (|difference| ≤ 2 points counts as reproduced).",
        ),
        compare(
            "Pearson error − ESLDA error, mean over k ≤ n/2",
            float((mean["Pearson"][half] - mean["ESLDA"][half]).mean()), 0.0, at_least=True,
            note="'the correlation-based filter is once again found to be inferior to our "
                 "spectral algorithm' (qualitative: difference > 0).",
        ),
    ]
    out = {"ks": ks, "mean": mean, "std": {m: v.std(axis=0) for m, v in curves.items()},
           "runs": curves, "features": kept}
    return comparisons, out, {"repeats": repeats, "folds": 5, "n_features": n,
                              "classifier": "LDA on support"}


def _loo_errors(
    X: np.ndarray, y: np.ndarray, supports: list[np.ndarray], eps: float
) -> np.ndarray:
    """Leave-one-out error of LDA on each fixed support (the selection is not redone)."""
    N = X.shape[0]
    wrong = np.zeros(len(supports))
    for i in range(N):
        train = np.delete(np.arange(N), i)
        for j, support in enumerate(supports):
            Xs = X[:, support]
            wrong[j] += discriminant_errors(
                Xs[train], y[train], Xs[i : i + 1], y[i : i + 1],
                [np.arange(support.size)], epsilon=eps,
            )[0]
    return wrong / N


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
    curves = {}
    for name, o in (("GSLDA", order), ("ST", st_order), ("Pearson", p_order)):
        curves[name] = _loo_errors(X, y, [np.sort(o[:k]) for k in ks], eps)
    comparisons = [
        compare(
            "GSLDA: lowest leave-one-out error over k", float(curves["GSLDA"].min()), 0.0,
            atol=0.0,
            note="Sec. 3.3: 'the zero error rates of RFE-SVM and GSLDA in Figure 4' (text).",
        ),
        compare(
            "GSLDA: leave-one-out error at k = 1", float(curves["GSLDA"][0]), None,
            note="The text says GSLDA differs most from RFE-SVM (by 15%) at k = 1; the "
                 "absolute values are only in the figure.",
        ),
        compare(
            "GSLDA error − ST error, mean over k ≤ 10",
            float((curves["GSLDA"][ks <= 10] - curves["ST"][ks <= 10]).mean()), 0.0,
            at_most=True,
            note="Sec. 4: 'GSLDA consistently out-performed ... simple thresholding (ST) and "
                 "variable ranking by correlation' (qualitative: difference ≤ 0).",
        ),
        compare(
            "GSLDA error − Pearson error, mean over k ≤ 10",
            float((curves["GSLDA"][ks <= 10] - curves["Pearson"][ks <= 10]).mean()), 0.0,
            at_most=True, note="As above, for correlation ranking.",
        ),
    ]
    out = {"ks": ks, "loo_error": curves, "forward_values": values, "order": order,
           "epsilon": eps}
    return comparisons, out, {"epsilon": eps, "preprocessing": "log10, z-score per gene",
                              "k_max": int(ks.max())}
