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

from dataclasses import dataclass, replace

import numpy as np
import scipy.linalg

from ..preprocess import row_norms
from ..validation import (
    check_array,
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
#: ``"variance"``: Σ_{i≤k} μᵢ(A′) / trace(A) (PCA's variance; LSI's squared Frobenius norm);
#: ``"frobenius"``: its square root, ‖U_kᵀ D′‖_F / ‖D‖_F for the data D with A = DDᵀ.
CRITERIA = ("variance", "frobenius")
_DEFAULT_CRITERION = {"lsi": "variance", "pca": "variance"}


@dataclass(frozen=True)
class SbSStep:
    """One principal submatrix visited by Algorithm 1.

    Attributes
    ----------
    n_features : int
        Order of the submatrix A′.
    removed_feature : int or None
        Original index of the feature whose removal led here (None at the start).
    eigenvalues : ndarray or None
        λ₁ ≥ … of A′ (None when not recorded: Prop. 1 ruled A′ out and the full trajectory
        was not requested).
    threshold : float or None
        ``4·λ₁(E′)``, the eigengap Lemma 1 requires.
    stable_ks : tuple of int
        The k whose top-k space is stable by Lemma 1.
    retained : ndarray or None
        Termination measure for k = 1 … n_features (fraction of variance or of the
        Frobenius norm of the original matrix).
    ruled_out : bool
        Proposition 1 excluded A′ before any eigendecomposition.
    eigendecomposed : bool
        Algorithm 1 computed the eigenvalues of A′ (steps that were not ruled out).
    """

    n_features: int
    removed_feature: int | None
    eigenvalues: np.ndarray | None
    threshold: float | None
    stable_ks: tuple[int, ...]
    retained: np.ndarray | None
    ruled_out: bool
    eigendecomposed: bool

    @property
    def eigengaps(self) -> np.ndarray | None:
        """``λᵢ − λᵢ₊₁`` of A′, i = 1 … n_features − 1."""
        return None if self.eigenvalues is None else -np.diff(self.eigenvalues)


@dataclass(frozen=True)
class SbSResult:
    """Outcome of Algorithm 1.

    Attributes
    ----------
    found : bool
        A stable principal submatrix meeting the termination criterion was found.
    kept : ndarray of int
        Original indices of the features of the final submatrix, ascending.
    removed : ndarray of int
        Original indices of the removed features, in removal order.
    stable_ks : tuple of int
        Stable k of the final submatrix (Lemma 1).
    k : int or None
        The smallest stable k that meets the termination criterion.
    retained : float or None
        The termination measure at that k.
    stopped : str
        ``"criteria met"``, ``"one feature left"`` or ``"retain unreachable"`` (even all
        remaining features hold less than ``retain``; removing more only lowers it).
    trajectory : tuple of SbSStep
        Every submatrix visited, in order.
    n_eigendecompositions : int
        Submatrices Algorithm 1 had to eigendecompose (each: the eigenvalues of A′ and E′).
    n_ruled_out : int
        Submatrices Proposition 1 excluded without an eigendecomposition.
    retain : float
    criterion : str
    total : float
        The denominator of the termination measure: trace of the original A.
    A, E : ndarray
        The full similarity/covariance and perturbation matrices.
    intervals : BootstrapIntervals or None
        The intervals E was built from (when :func:`sbs` computed them).
    """

    found: bool
    kept: np.ndarray
    removed: np.ndarray
    stable_ks: tuple[int, ...]
    k: int | None
    retained: float | None
    stopped: str
    trajectory: tuple[SbSStep, ...]
    n_eigendecompositions: int
    n_ruled_out: int
    retain: float
    criterion: str
    total: float
    A: np.ndarray
    E: np.ndarray
    intervals: BootstrapIntervals | None = None

    @property
    def n_removed(self) -> int:
        return int(self.removed.size)


def retained_fraction(
    eigenvalues: object, total: float, criterion: str = "variance"
) -> np.ndarray:
    """Termination measure for k = 1 … n: ``Σ_{i≤k} μᵢ / total``, or its square root.

    ``"variance"`` is PCA's fraction of the original variance (Sec. 4.3, with A′ a principal
    submatrix of the covariance matrix and ``total`` = trace of the full one) and, for LSI,
    the fraction of the squared Frobenius norm of the (unit-norm) term vectors kept by the
    projection onto k eigenvectors. ``"frobenius"`` is its square root,
    ``‖U_kᵀD′‖_F / ‖D‖_F`` where A = DDᵀ.
    """
    criterion = check_choice(criterion, "criterion", CRITERIA)
    total = check_finite_scalar(total, "total", low=0.0, low_inclusive=False)
    mu = np.sort(check_array(eigenvalues, "eigenvalues", ndim=1))[::-1]
    fraction = np.cumsum(mu) / total
    return np.sqrt(np.maximum(fraction, 0.0)) if criterion == "frobenius" else fraction


def stable_principal_submatrix(
    A: object,
    E: object,
    retain: float,
    *,
    criterion: str = "variance",
    total: float | None = None,
    prune: bool = True,
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
    prune : bool
        Use Proposition 1 to skip eigendecompositions. The result is the same either way;
        only the number of eigendecompositions changes.
    full_trajectory : bool
        Also record the eigenvalues of submatrices that Proposition 1 ruled out (for plots
        and teaching; not counted in ``n_eigendecompositions``).

    Returns
    -------
    SbSResult
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
    if total is None:
        total = float(np.trace(A))
    total = check_finite_scalar(
        total, "total", low=0.0, low_inclusive=False,
        hint="The termination measure divides by it (trace(A) by default).",
    )
    A = 0.5 * A + 0.5 * A.T
    E = 0.5 * E + 0.5 * E.T
    # Algorithm 1 is invariant to a common scale of A, E and the total: it runs on them
    # divided by a power of two (exact), so that no eigenvalue, norm or sum over- or
    # underflows, and the recorded eigenvalues are scaled back.
    e = max(scale_exponent(A), scale_exponent(E), int(np.frexp(total)[1]))
    result = _algorithm1(np.ldexp(A, -e), np.ldexp(E, -e), retain, criterion,
                         float(np.ldexp(total, -e)), prune, full_trajectory)
    steps = tuple(
        replace(step,
                eigenvalues=None if step.eigenvalues is None else unscale(
                    step.eigenvalues, e, "the eigenvalues of A"),
                threshold=None if step.threshold is None else float(unscale(
                    step.threshold, e, "4·λ₁(E)")))
        for step in result.trajectory
    )
    return replace(result, trajectory=steps, total=total, A=A, E=E)


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
            worst = int(np.argmax(row_norms(E_sub)))
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
    prune: bool = True,
    full_trajectory: bool = True,
    memory_limit: int | None = None,
) -> SbSResult:
    """SbS-LSI / SbS-PCA (Algorithm 1) on data X (samples × features).

    Builds A (cosine similarities for ``"lsi"``, covariances for ``"pca"``), their bootstrap
    intervals (Sec. 4.1), E (Example 2), and runs :func:`stable_principal_submatrix`.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        Raw data (LSI uses the uncentred columns; PCA's covariance centres them). Not
        modified.
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
        See :func:`stable_principal_submatrix`.

    Returns
    -------
    SbSResult
        With ``intervals`` set.
    """
    variant = check_choice(variant, "variant", tuple(VARIANTS))
    statistic = VARIANTS[variant]
    if criterion is None:
        criterion = _DEFAULT_CRITERION[variant]
    if intervals is None:
        intervals = bootstrap_intervals(
            X, statistic, method, n_resamples, confidence, random_state,
            resamples=resamples, memory_limit=memory_limit,
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
    E = perturbation_matrix(intervals.estimate, intervals.lower, intervals.upper)
    result = stable_principal_submatrix(
        intervals.estimate, E, retain, criterion=criterion, prune=prune,
        full_trajectory=full_trajectory,
    )
    return replace(result, intervals=intervals)


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
