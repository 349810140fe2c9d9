"""Stability based sparse LSI/PCA: Algorithm 1 (SbS-LSI / SbS-PCA).

Mavroeidis & Vazirgiannis, Sec. 4.3: starting from all features, repeatedly remove the
feature whose row of the perturbation matrix E has the largest norm (the least accurate
similarities/covariances), skipping the eigendecomposition of every submatrix that
Proposition 1 already rules out, until a principal submatrix A′ has a stable top-k
eigenvector space (Lemma 1) that also meets the termination criterion: the fraction of the
original variance (PCA) or of the original Frobenius norm (LSI) that k eigenvectors of A′
retain.

The paper states LSI's criterion as "a % of the Frobenius norm of the original data". With
cosine similarities, A = DDᵀ for the term vectors D scaled to unit norm, and the projection on
k eigenvectors of A′ keeps ``Σ_{i≤k} μᵢ(A′)`` of ``‖D‖²_F = trace(A)``: the same measure as
PCA's fraction of variance (criterion ``"variance"``, the default for both variants). Read as
the unsquared norm (criterion ``"frobenius"``), the first Segmentation eigenvector alone would
keep 74 % and the paper's a ≥ 65 % run would have stopped at once, which it did not.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import scipy.linalg

from ..backends.samples import is_sparse
from ..preprocess import row_norms
from ..progress import Progress, check_max_seconds, check_progress
from ..validation import (
    check_choice,
    check_finite_scalar,
    check_int,
    scale_exponent,
    unscale,
)
from .bootstrap import (
    BootstrapIntervals,
    bootstrap_intervals,
    similarity_matrix,
)
from .interlacing import lemma1_stable_ks, proposition1_rules_out
from .perturbation import check_matrix_and_perturbation, perturbation_matrix
from .sbs_result import CRITERIA, SbSResult, SbSStep, retained_fraction
from .screening import TIE, least_accurate, screened_path

__all__ = [
    "CRITERIA",
    "VARIANTS",
    "SbSResult",
    "SbSStep",
    "retained_fraction",
    "sbs",
    "sparse_loadings",
    "stable_principal_submatrix",
]

#: The two algorithms and the statistic each bootstraps.
VARIANTS = {"lsi": "cosine", "pca": "covariance"}
_DEFAULT_CRITERION = {"lsi": "variance", "pca": "variance"}
#: How Algorithm 1 avoids eigendecompositions: Proposition 1 (the paper), nothing, or the
#: bounds of :mod:`spectral_kit.stability.screening` (wide data).
PRUNES = (True, False, "rayleigh")
def stable_principal_submatrix(
    A: object,
    E: object,
    retain: float,
    *,
    criterion: str = "variance",
    total: float | None = None,
    prune: bool | str = True,
    full_trajectory: bool = True,
) -> SbSResult:
    """Algorithm 1 on the paper's objects: the matrices A and E.

    Parameters
    ----------
    A : array-like of shape (p, p)
        Symmetric feature–feature similarity (LSI) or covariance (PCA) matrix.
    E : array-like of shape (p, p)
        Symmetric, entrywise non-negative perturbation matrix (:func:`perturbation_matrix`).
    retain : float
        The termination criterion a in (0, 1]: e.g. 0.33 for "a ≥ 33 %".
    criterion : {"variance", "frobenius"}
        See :func:`retained_fraction`.
    total : float, optional
        Denominator of the measure; trace(A) by default (the original matrix).
    prune : {True, False, "rayleigh"}
        True: Proposition 1 skips eigendecompositions (the paper). ``"rayleigh"``: every
        submatrix is screened by an interlacing bound on A′'s eigengaps and a Rayleigh-quotient
        bound on λ₁(E′) (:mod:`~spectral_kit.stability.screening`), far cheaper on wide data.
        The result is the same either way; only what is computed changes.
    full_trajectory : bool
        Also record the eigenvalues of submatrices that were ruled out (for plots and
        teaching; not counted in ``n_eigendecompositions``).

    Returns
    -------
    SbSResult
        With ``diagnosis`` (and ``failed``, ``best`` when nothing met both criteria).

    Raises
    ------
    ValueError
        If A or E is not a finite symmetric matrix of the same shape, E has a negative entry,
        or an option is out of range.

    Examples
    --------
    From the paper's objects: A and its perturbation E from the bootstrap intervals.

    >>> import numpy as np
    >>> from spectral_kit.stability import (bootstrap_intervals, perturbation_matrix,
    ...                                     stable_principal_submatrix)
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> iv = bootstrap_intervals(X, n_resamples=200, random_state=0)
    >>> E = perturbation_matrix(iv.estimate, iv.lower, iv.upper)
    >>> result = stable_principal_submatrix(iv.estimate, E, retain=0.5)
    >>> result.found, result.k, result.kept
    (True, 1, array([0, 1, 2, 3, 4, 5]))
    """
    A, E = check_matrix_and_perturbation(A, E)
    if (E < 0).any():
        raise ValueError(
            "E must be entrywise non-negative (Lemma 1 uses λ₁(E) = ‖E‖₂, which needs it); "
            f"got min(E) = {E.min():g}. Build E with perturbation_matrix(A, lower, upper)."
        )
    retain = check_finite_scalar(
        retain, "retain", low=0.0, high=1.0, low_inclusive=False,
        hint="Give a fraction, e.g. retain=0.33 for a ≥ 33 %.",
    )
    criterion = check_choice(criterion, "criterion", CRITERIA)
    prune = _check_prune(prune)
    if total is None:
        total = float(np.trace(A))
    total = check_finite_scalar(
        total, "total", low=0.0, low_inclusive=False,
        hint="The termination measure divides by it (trace(A) by default).",
    )
    return _run(A, E, retain, criterion, total, prune, full_trajectory)


def _check_prune(prune: object) -> bool | str:
    if isinstance(prune, (bool, np.bool_)) or prune == "rayleigh":
        return prune if isinstance(prune, str) else bool(prune)
    raise ValueError(f"prune must be True, False or 'rayleigh'; got {prune!r}.")


def _run(A: np.ndarray, E: np.ndarray, retain: float, criterion: str, total: float,
         prune: bool | str, full_trajectory: bool, *,
         gram: Callable[[np.ndarray], np.ndarray] | None = None, n_samples: int | None = None,
         tick: Callable[[], None] | None = None, onward: bool = True) -> SbSResult:
    """Algorithm 1 on validated A, E; the result carries its diagnosis.

    With ``onward``, a path that stops (retain out of reach) before Lemma 1 held anywhere
    also reports the first stable submatrix further down it (``SbSResult.onward``): the
    screened path goes on from where it stopped; the other paths ask the screened path,
    which visits the same submatrices, from the start.
    """
    A, E = _symmetric(A), _symmetric(E)
    # Algorithm 1 is invariant to a common scale of A, E and the total: it runs on them
    # divided by a power of two (exact), so that no eigenvalue, norm or sum over- or
    # underflows, and the recorded eigenvalues are scaled back.
    e = max(scale_exponent(A), scale_exponent(E), int(np.frexp(total)[1]))
    As, Es, ts = np.ldexp(A, -e), np.ldexp(E, -e), float(np.ldexp(total, -e))
    if prune == "rayleigh":
        scaled_gram = None if gram is None else (lambda idx: np.ldexp(gram(idx), -e))
        result = screened_path(As, Es, retain, criterion, ts, full_trajectory=full_trajectory,
                               gram=scaled_gram, n_samples=n_samples, tick=tick,
                               onward=onward)
    else:
        result = _algorithm1(As, Es, retain, criterion, ts, prune, full_trajectory)
        if onward and result.stopped == "retain unreachable" and not any(
                step.stable_ks for step in result.trajectory):
            scaled_gram = None if gram is None else (lambda idx: np.ldexp(gram(idx), -e))
            further = screened_path(As, Es, retain, criterion, ts, gram=scaled_gram,
                                    n_samples=n_samples, onward=True)
            result = replace(result, onward=further.onward)
    steps = tuple(
        replace(step,
                eigenvalues=None if step.eigenvalues is None else unscale(
                    step.eigenvalues, e, "the eigenvalues of A"),
                threshold=None if step.threshold is None else float(unscale(
                    step.threshold, e, "4·λ₁(E)")))
        for step in result.trajectory
    )
    return _diagnosed(replace(result, trajectory=steps, total=total, A=A, E=E))


def _symmetric(M: np.ndarray) -> np.ndarray:
    """½(M + Mᵀ); M itself when it is exactly symmetric already (no p × p copy)."""
    if np.array_equal(M, M.T):
        return M
    S = np.add(M, M.T)
    S *= 0.5
    return S


def _diagnosed(result: SbSResult) -> SbSResult:
    """The result with ``best``, ``closest_gap``, ``failed`` and ``diagnosis`` filled in."""
    best = None
    closest = result.closest_gap or 0.0
    closest_at: int | None = None
    removed_so_far = 0
    p = result.A.shape[0]
    for step in result.trajectory:
        if step.removed_feature is not None:
            removed_so_far += 1
        if step.eigenvalues is not None and step.threshold and step.n_features > 1:
            ratio = float(np.max(-np.diff(step.eigenvalues))) / step.threshold
            if ratio >= closest:
                closest, closest_at = max(closest, ratio), step.n_features
        for k in step.stable_ks:
            value = float(step.retained[k - 1])
            if best is None or value > best[2]:
                kept = np.setdiff1d(np.arange(p), result.removed[:removed_so_far])
                best = (kept, int(k), value, step.stable_ks)
    a = result.retain
    if result.found:
        text = (f"Found: k = {result.k} eigenvector(s) of {result.kept.size} of {p} features "
                f"are stable (Lemma 1) and retain a = {result.retained:.3g} ≥ {a:g}.")
        return replace(result, best=(result.kept, result.k, result.retained, result.stable_ks),
                       closest_gap=closest, diagnosis=text)
    if best is None:
        text = _stability_failed(result, closest, closest_at)
        return replace(result, failed="stability", closest_gap=closest, diagnosis=text)
    kept, k, value, _ = best
    suggest = np.floor(value * 1000) / 1000
    text = (
        f"Nothing found: the termination criterion failed -- stable subspaces exist on the "
        f"removal path, but the best retains a = {value:.3g} (k = {k}, {kept.size} of {p} "
        f"features), less than retain = {a:g}; the path ended with {result.stopped}. Use "
        f"retain ≤ {suggest:g}, or more samples (narrower intervals let larger submatrices "
        "be stable)."
    )
    return replace(result, failed="retain", best=best, closest_gap=closest, diagnosis=text)


def _stability_failed(result: SbSResult, closest: float, closest_at: int | None) -> str:
    """Why nothing was found when Lemma 1 held nowhere, at which a, and what to try."""
    p, a = result.A.shape[0], result.retain
    left = result.kept.size
    held = _trace_fraction(result, result.kept)
    if result.stopped == "retain unreachable":
        end = (f"the {left} of {p} features left hold a = {held:.3g} < {a:g} even with every "
               "eigenvector")
    else:
        end = f"{result.stopped}, a = {held:.3g}"
    where = "" if closest_at is None else f" at {closest_at} features"
    text = (
        f"Nothing found: stability failed at retain = {a:g} -- Lemma 1 held at no submatrix "
        f"on the removal path before it ended ({end}); the largest eigengap of A′ reached "
        f"{closest:.2g} × 4·λ₁(E′){where}, and must exceed 1 ×."
    )
    if result.onward is not None:
        kept, k, value, _ = result.onward
        if k is not None:
            suggest = np.floor(value * 1000) / 1000
            text += (f" Further down the path, k = {k} eigenvector(s) of {kept.size} features "
                     f"are stable and retain a = {value:.3g}: retain ≤ {suggest:g} finds them.")
        else:
            text += " Further down the path Lemma 1 holds nowhere, down to a single feature."
    more = ""
    if 0 < closest < 1:
        # Bootstrap interval widths, hence E, shrink about like 1/√n.
        more = f" (about {1 / closest**2:.2g}× as many: interval widths shrink like 1/√n)"
    return text + (
        " The bootstrap intervals are too wide next to the eigengaps: use more samples"
        f"{more}, a lower confidence (e.g. 0.8) or the percentile method, fewer (better "
        "estimated) features, or do without PCA/LSI on these data."
    )


def _trace_fraction(result: SbSResult, kept: np.ndarray) -> float:
    """The termination measure of all eigenvectors of ``A[kept][:, kept]``: its trace."""
    value = float(np.diagonal(result.A)[kept].sum()) / result.total
    return float(np.sqrt(max(value, 0.0))) if result.criterion == "frobenius" else value


def _algorithm1(A: np.ndarray, E: np.ndarray, retain: float, criterion: str, total: float,
                prune: bool, full_trajectory: bool) -> SbSResult:
    """Algorithm 1 on symmetric A, E of a moderate scale (see stable_principal_submatrix)."""
    # For a positive semi-definite A every principal submatrix keeps at most its trace, and
    # the trace only falls as features go: once it is below retain, nothing later can meet it.
    psd = bool(np.all(np.diag(A) >= 0)) and _eigvals(A)[-1] >= -1e-10 * max(abs(total), 1e-300)

    def reachable(idx: np.ndarray) -> bool:
        if not psd:
            return True
        best = float(np.trace(A[np.ix_(idx, idx)])) / total
        best = np.sqrt(max(best, 0.0)) if criterion == "frobenius" else best
        return best >= retain

    kept = list(range(A.shape[0]))
    removed: list[int] = []
    steps: list[SbSStep] = []
    n_eig = n_ruled = 0
    # rows tied up to rounding go by index (screening.least_accurate), as in screened_path
    tie = TIE * float(np.max(row_norms(E), initial=0.0)) ** 2
    removed_feature: int | None = None

    def finish(found: bool, stopped: str, k: int | None = None, frac: float | None = None,
               stable: tuple[int, ...] = ()) -> SbSResult:
        return SbSResult(
            found, np.array(sorted(kept), dtype=np.intp), np.array(removed, dtype=np.intp),
            stable, k, frac, stopped, tuple(steps), n_eig, n_ruled, retain, criterion, total,
            A, E,
        )

    while True:
        # Algorithm 1, lines 1–4: eigenvalues of the current A′ and E′, Lemma 1, criterion.
        idx = np.array(kept)
        lam_A = _eigvals(A[np.ix_(idx, idx)])
        lam_E = _eigvals(E[np.ix_(idx, idx)])
        n_eig += 1
        stable = lemma1_stable_ks(lam_A, lam_E[0])
        fractions = retained_fraction(lam_A, total, criterion)
        steps.append(SbSStep(
            idx.size, removed_feature, lam_A, 4 * float(lam_E[0]), stable, fractions,
            False, True,
        ))
        meeting = [k for k in stable if fractions[k - 1] >= retain]
        if meeting:
            return finish(True, "criteria met", meeting[0], float(fractions[meeting[0] - 1]),
                          stable)
        if len(kept) == 1:
            return finish(False, "one feature left", stable=stable)
        if not reachable(idx):
            return finish(False, "retain unreachable", stable=stable)
        # Lines 6–11: remove the feature with the least accurate row of E′ until
        # Proposition 1 (on this call's A′, E′) can no longer rule the submatrix out.
        removed_here = 0
        while True:
            E_sub = E[np.ix_(idx, idx)]
            worst = least_accurate(row_norms(E_sub) ** 2, tie)
            removed_feature = kept.pop(worst)
            removed.append(removed_feature)
            removed_here += 1
            idx = np.array(kept)
            if not (prune and proposition1_rules_out(lam_A, lam_E, removed_here)):
                break
            n_ruled += 1
            steps.append(_ruled_out_step(A, E, idx, removed_feature, total, criterion,
                                         full_trajectory))
            if len(kept) == 1:
                return finish(False, "one feature left")
            if not reachable(idx):
                return finish(False, "retain unreachable")


def _ruled_out_step(A: np.ndarray, E: np.ndarray, idx: np.ndarray, removed_feature: int,
                    total: float, criterion: str, record: bool) -> SbSStep:
    if not record:
        return SbSStep(idx.size, removed_feature, None, None, (), None, True, False)
    lam_A = _eigvals(A[np.ix_(idx, idx)])
    lam_E = _eigvals(E[np.ix_(idx, idx)])
    return SbSStep(
        idx.size, removed_feature, lam_A, 4 * float(lam_E[0]),
        lemma1_stable_ks(lam_A, lam_E[0]), retained_fraction(lam_A, total, criterion),
        True, False,
    )


def _eigvals(M: np.ndarray) -> np.ndarray:
    return scipy.linalg.eigvalsh(M, check_finite=False)[::-1].copy()


def sbs(
    X: object,
    variant: str = "pca",
    retain: float = 0.5,
    *,
    criterion: str | None = None,
    confidence: float = 0.9,
    method: str = "bca",
    n_resamples: int = 1000,
    random_state: object = None,
    resamples: object = None,
    intervals: BootstrapIntervals | None = None,
    prune: bool | str = True,
    full_trajectory: bool = True,
    memory_limit: int | None = None,
    progress: bool | None = None,
    max_seconds: float | None = None,
) -> SbSResult:
    """SbS-LSI / SbS-PCA (Algorithm 1) on data X (samples × features).

    Builds A (cosine similarities for ``"lsi"``, covariances for ``"pca"``), their bootstrap
    intervals (Sec. 4.1), E (Example 2), and runs :func:`stable_principal_submatrix`.

    Parameters
    ----------
    X : array-like or SciPy sparse matrix of shape (n_samples, n_features)
        Raw data (LSI uses the uncentred columns; PCA's covariance centres them). Not
        modified; a sparse X (a term–document matrix) is never densified.
    variant : {"lsi", "pca"}
    retain : float
        Termination criterion a in (0, 1].
    criterion : {"variance", "frobenius"}, optional
        ``"variance"`` by default for both variants (see the module notes on Sec. 5).
    confidence, method, n_resamples, random_state, resamples, memory_limit
        Passed to :func:`bootstrap_intervals` (the paper: 0.9, BCa, 1000).
    intervals : BootstrapIntervals, optional
        Intervals already computed for this X and variant (skips the bootstrap).
    prune, full_trajectory
        See :func:`stable_principal_submatrix`. With ``prune="rayleigh"`` and fewer samples
        than features, the eigenvalues of each A′ come from the n × n Gram matrix of its
        features.
    progress : None or bool
        Progress bars for the bootstrap and the removal path (None: for large work -- a
        thousand features or more -- once it has run 2 s).
    max_seconds : float, optional
        Time budget for the whole call; beyond it (or when the measured rate projects well
        beyond it) :class:`~spectral_kit.progress.BudgetExceeded` says how long it would take.

    Returns
    -------
    SbSResult
        With ``intervals`` set.

    Raises
    ------
    ValueError
        On invalid data or options (see :func:`bootstrap_intervals` and
        :func:`stable_principal_submatrix`), or when the work would exceed the kit's memory
        limit.
    spectral_kit.progress.BudgetExceeded
        When the call would not finish within ``max_seconds``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import sbs, sparse_loadings
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))  # one factor behind features 0-2; 3-5 are noise
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> result = sbs(X, "pca", retain=0.5, n_resamples=200, random_state=0)
    >>> result.found, result.k, result.kept
    (True, 1, array([0, 1, 2, 3, 4, 5]))
    >>> result.intervals.method, result.intervals.n_resamples
    ('bca', 200)
    """
    variant = check_choice(variant, "variant", tuple(VARIANTS))
    statistic = VARIANTS[variant]
    prune = _check_prune(prune)
    progress = check_progress(progress)
    max_seconds = check_max_seconds(max_seconds)
    budget = Progress(1, "SbS", progress=False, max_seconds=max_seconds)
    if criterion is None:
        criterion = _DEFAULT_CRITERION[variant]
    if intervals is None:
        intervals = bootstrap_intervals(
            X, statistic, method, n_resamples, confidence, random_state,
            resamples=resamples, memory_limit=memory_limit, progress=progress,
            max_seconds=budget.remaining(), _then=_path_bytes(X),
        )
    elif not isinstance(intervals, BootstrapIntervals):
        raise TypeError(
            f"intervals must be a BootstrapIntervals; got {type(intervals).__name__}."
        )
    elif intervals.statistic != statistic:
        raise ValueError(
            f"intervals were computed for the {intervals.statistic} but variant={variant!r} "
            f"needs the {statistic}."
        )
    else:
        # the intervals describe A of the data they came from: they must be X's
        A = similarity_matrix(X, statistic)
        if A.shape != intervals.estimate.shape or not np.allclose(
                A, intervals.estimate, rtol=1e-6, atol=1e-8 * float(np.abs(A).max())):
            raise ValueError(
                f"intervals were computed for other data than X (its {statistic} matrix "
                f"is {A.shape[0]} × {A.shape[0]}, the intervals' "
                f"{intervals.estimate.shape[0]} × {intervals.estimate.shape[0]}, or their "
                "entries differ); pass the X they came from, or intervals=None."
            )
    A = intervals.estimate
    E = perturbation_matrix(A, intervals.lower, intervals.upper)
    retain = check_finite_scalar(
        retain, "retain", low=0.0, high=1.0, low_inclusive=False,
        hint="Give a fraction, e.g. retain=0.33 for a ≥ 33 %.",
    )
    criterion = check_choice(criterion, "criterion", CRITERIA)
    total = check_finite_scalar(float(np.trace(A)), "trace(A)", low=0.0, low_inclusive=False)
    gram, n = (_gram(X, statistic) if prune == "rayleigh" else (None, None))
    p = A.shape[0]
    with Progress(p, "SbS removal path", progress=progress, max_seconds=budget.remaining(),
                  unit="features", hint="Use fewer features, or prune='rayleigh'.",
                  large=p >= 1000) as bar:
        result = _run(A, E, retain, criterion, total, prune, full_trajectory, gram=gram,
                      n_samples=n, tick=bar.update)
    return replace(result, intervals=intervals)


def _path_bytes(X: object) -> tuple[float, str]:
    """What Algorithm 1 allocates beside the intervals: E, the scaled A and E it runs on and
    one p × p temporary of building E (measured: tests/memory_probe.py)."""
    p = int(np.shape(X)[1]) if len(np.shape(X)) == 2 else 0
    return 4 * 8.0 * p * p, f", then E and the scaled A and E of Algorithm 1 ({p} × {p} each)"


def first_stable(result: SbSResult, X: object = None) -> SbSResult:
    """Follow ``result``'s removal path past where it stopped, down to the first submatrix
    with any stable k (retain ignored): the fallback when nothing met both criteria.

    ``X``, the data of ``result``, lets wide data use the Gram matrix of the kept features.
    """
    statistic = "covariance" if result.intervals is None else result.intervals.statistic
    gram, n = _gram(X, statistic) if X is not None else (None, None)
    tiny = float(np.finfo(float).tiny)
    return _run(result.A, result.E, tiny, result.criterion, result.total, "rayleigh", False,
                gram=gram, n_samples=n, onward=False)


def _gram(X: object, statistic: str) -> tuple[Callable | None, int | None]:
    """``gram(idx)``: the n × n matrix ``F_S F_Sᵀ`` of the factor F with A = FᵀF (centred
    columns over √(n − 1) for the covariance, unit columns for the cosine), for data with
    fewer samples than features; sparse X stays sparse (the centring is algebraic)."""
    shape = getattr(X, "shape", None)
    if shape is None or len(shape) != 2 or shape[0] >= shape[1]:
        return None, None
    n = int(shape[0])
    sparse = is_sparse(X)
    Xs = X.tocsc().astype(np.float64) if sparse else np.asarray(X, dtype=np.float64)
    sq = np.asarray(Xs.multiply(Xs).sum(axis=0) if sparse else (Xs * Xs).sum(axis=0)).ravel()
    mean = np.asarray(Xs.mean(axis=0)).ravel()

    def gram(idx: np.ndarray) -> np.ndarray:
        cols = Xs[:, idx]
        if statistic == "cosine":
            inv = 1.0 / np.sqrt(sq[idx])
            cols = cols.multiply(inv[None, :]).tocsc() if sparse else cols * inv
            G = cols @ cols.T
            return G.toarray() if sparse else G
        G = cols @ cols.T
        G = G.toarray() if is_sparse(G) else np.asarray(G)
        g = np.asarray(cols @ mean[idx]).ravel()  # X_S μ_S
        G = G - g[:, None] - g[None, :] + float(mean[idx] @ mean[idx])
        return G / (n - 1)

    return gram, n


def sparse_loadings(result: SbSResult, k: int | None = None) -> np.ndarray:
    """Sparse factor loadings: the top-k eigenvectors of A′ placed in the kept rows.

    Parameters
    ----------
    result : SbSResult
    k : int, optional
        Number of eigenvectors; ``result.k`` by default.

    Returns
    -------
    ndarray of shape (n_features, k)
        Zero outside ``result.kept``; each column has unit norm and its entries sum to a
        non-negative number (a fixed sign, so that runs compare).

    Raises
    ------
    TypeError
        If ``result`` is not an :class:`SbSResult`.
    ValueError
        If ``k`` is out of range, or the result holds no stable k and none is given.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import sbs, sparse_loadings
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))  # one factor behind features 0-2; 3-5 are noise
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> result = sbs(X, "pca", retain=0.5, n_resamples=200, random_state=0)
    >>> loadings = sparse_loadings(result)
    >>> loadings.shape
    (6, 1)
    >>> bool(np.all(np.abs(loadings[:3]) > 0.5)), bool(np.all(np.abs(loadings[3:]) < 0.1))
    (True, True)
    """
    if not isinstance(result, SbSResult):
        raise TypeError(f"result must be an SbSResult; got {type(result).__name__}.")
    idx = result.kept
    if k is None:
        if result.k is None:
            raise ValueError(
                "result.k is None (no stable submatrix met the criterion); pass k explicitly."
            )
        k = result.k
    k = check_int(k, "k", low=1, high=idx.size)
    sub = result.A[np.ix_(idx, idx)]
    _, V = scipy.linalg.eigh(sub, subset_by_index=[idx.size - k, idx.size - 1],
                             check_finite=False)
    V = V[:, ::-1]
    signs = np.where(V.sum(axis=0) < 0, -1.0, 1.0)
    out = np.zeros((result.A.shape[0], k))
    out[idx] = V * signs
    return out
