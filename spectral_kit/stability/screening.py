"""Algorithm 1 on wide data: the same removal path, screened by bounds instead of Proposition 1.

Algorithm 1 (Mavroeidis & Vazirgiannis, Sec. 4.3) removes, one at a time, the feature whose
row of E′ has the largest norm, and stops at the first principal submatrix A′ with a stable
top-k space (Lemma 1: ``λ_k(A′) − λ_{k+1}(A′) > 4·λ₁(E′)``) that retains the fraction asked
for. Proposition 1 saves eigendecompositions, but each one it cannot save still costs the
full spectra of A′ and E′: O(p³) each, about p times, O(p⁴) in all -- minutes at p = 1,000.

This path visits the same submatrices and decides each one with certificates that cost far
less, computing an eigenvalue only where they cannot decide:

* **E′, from below.** For any vector v, ``vᵀE′v / vᵀv ≤ λ₁(E′)`` (Rayleigh). With v the Perron
  vector of the last E′ whose λ₁ was computed, restricted to the remaining features, the
  quotient is kept up to date in O(p) per removal, and so are the row norms of E′.
* **A′, from above.** After k removals from a submatrix with eigenvalues λ (the last one
  eigendecomposed), every eigengap of A′ is at most ``λᵢ − λᵢ₊ₖ₊₁`` (Corollary 1).
* When ``max gap ≤ 4·(Rayleigh quotient)``, Lemma 1 fails for A′ (counted as ruled out).
  Otherwise the eigenvalues of A′ are computed -- from the n × n Gram matrix of its features
  when the data have fewer samples than A′ has features -- and only if a gap still exceeds
  the bound is λ₁(E′) computed (Lanczos, warm-started from v).

The path, the stable k and the outcome are those of Algorithm 1; only the bookkeeping of
what was computed differs. Row norms within :data:`TIE` of each other (relative to the
largest of the full E) count as tied, and the tie goes to the lowest feature index, in both:
otherwise rounding -- the incremental updates here, or the scale of the data -- would decide
between features whose rows are equal.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

import numpy as np
import scipy.linalg

from ..linalg import leading_eigenvector
from .interlacing import lemma1_stable_ks
from .sbs_result import SbSResult, SbSStep, retained_fraction

__all__ = ["screened_path"]

_TINY = float(np.finfo(float).tiny)


def screened_path(
    A: np.ndarray,
    E: np.ndarray,
    retain: float,
    criterion: str,
    total: float,
    *,
    full_trajectory: bool = False,
    gram: Callable[[np.ndarray], np.ndarray] | None = None,
    n_samples: int | None = None,
    tick: Callable[[], None] | None = None,
    onward: bool = False,
) -> SbSResult:
    """Algorithm 1 on symmetric A, E (of a moderate scale), screened (module notes).

    Parameters
    ----------
    onward : bool
        When the path stops because ``retain`` is out of reach before Lemma 1 held anywhere,
        go on down the same path (retain ignored) to the first submatrix with a stable k and
        record it as the result's ``onward`` -- what a smaller ``retain`` would find. The
        removals, the trajectory and the outcome are those of Algorithm 1 up to the stop;
        the continuation only adds ``onward``.
    gram : callable, optional
        ``gram(idx)`` returns an ``n_samples × n_samples`` matrix whose eigenvalues are the
        non-zero eigenvalues of ``A[idx][:, idx]`` (the Gram matrix ``F_S F_Sᵀ`` of a factor
        with ``A = FᵀF``), used when it is the smaller one.
    tick : callable, optional
        Called after every removal (progress and time budget).
    """
    p = A.shape[0]
    kept = np.ones(p, dtype=bool)
    removed: list[int] = []
    steps: list[SbSStep] = []
    n_eig = n_ruled = 0
    row_sq = np.einsum("ij,ij->i", E, E)
    tie = TIE * float(row_sq.max(initial=0.0))
    diag = np.diagonal(A).copy()
    trace = float(diag.sum())

    def spectrum(idx: np.ndarray) -> np.ndarray:
        m = idx.size
        if gram is not None and n_samples is not None and n_samples < m:
            top = _descending(gram(idx))
            return np.concatenate([top, np.zeros(m - top.size)])
        return _descending(A[np.ix_(idx, idx)])

    lam_full = spectrum(np.arange(p))
    psd = bool(np.all(diag >= 0)) and lam_full[-1] >= -1e-10 * max(abs(total), 1e-300)
    # The first step is the full matrix: its spectrum is the one just computed.
    lam_first: np.ndarray | None = lam_full

    def retained_best(t: float) -> float:
        best = t / total
        return float(np.sqrt(max(best, 0.0))) if criterion == "frobenius" else best

    v = np.zeros(p)
    Ev = np.zeros(p)
    lam_ref: np.ndarray | None = None
    since = 0
    removed_feature: int | None = None
    closest = 0.0
    seen_stable = False
    # Set when retain was out of reach before Lemma 1 held anywhere and ``onward`` asks to
    # go on: the result of Algorithm 1, to be returned with the first stable submatrix below.
    stopped_at: SbSResult | None = None

    def finish(found: bool, stopped: str, k: int | None = None, frac: float | None = None,
               stable: tuple[int, ...] = ()) -> SbSResult:
        if stopped_at is not None:
            # Further down the path: the first stable submatrix (or the last feature).
            kept_now = np.flatnonzero(kept)
            if not found:
                value = retained_best(float(diag[kept_now].sum()))
                return replace(stopped_at, onward=(kept_now, None, value, ()))
            return replace(stopped_at, onward=(kept_now, k, frac, stable))
        return SbSResult(
            found, np.flatnonzero(kept), np.array(removed, dtype=np.intp), stable, k, frac,
            stopped, tuple(steps), n_eig, n_ruled, retain, criterion, total, A, E,
            closest_gap=closest,
        )

    while True:
        idx = np.flatnonzero(kept)
        m = idx.size
        vk = v[idx]
        norm2 = float(vk @ vk)
        rayleigh = float(vk @ Ev[idx]) / norm2 if norm2 > 0 else 0.0
        decided = False
        if lam_ref is not None:
            spans = lam_ref[: lam_ref.size - since - 1] - lam_ref[since + 1 :]
            decided = spans.size == 0 or float(spans.max()) <= 4 * rayleigh
        lam_A = None
        stable: tuple[int, ...] = ()
        if m < p:
            lam_first = None
        if not decided:
            lam_A = spectrum(idx) if lam_first is None else lam_first
            lam_ref, since = lam_A, 0
            decided = m > 1 and float(np.max(lam_A[:-1] - lam_A[1:])) <= 4 * rayleigh
        if decided:
            n_ruled += 1
            if stopped_at is None:
                steps.append(_ruled_out_step(A, E, idx, removed_feature, lam_A, total,
                                             criterion, full_trajectory))
        else:
            sub = E if m == p else E[np.ix_(idx, idx)]
            pair = leading_eigenvector(sub, v0=vk if norm2 > 0 else None, random_state=0)
            del sub
            n_eig += 1
            lam1 = max(pair.value, 0.0)
            v = np.zeros(p)
            v[idx] = pair.vector
            Ev = pair.vector @ E[idx]  # E v, by symmetry from E's rows
            stable = lemma1_stable_ks(lam_A, lam1)
            fractions = retained_fraction(lam_A, total, criterion)
            if m > 1 and lam1 > 0:
                closest = max(closest, float(np.max(lam_A[:-1] - lam_A[1:])) / (4 * lam1))
            if stopped_at is None:
                steps.append(SbSStep(m, removed_feature, lam_A, 4 * lam1, stable, fractions,
                                     False, True))
            seen_stable = seen_stable or bool(stable)
            # Past the stop, any stable k (first_stable's tiny retain in sbs).
            floor = retain if stopped_at is None else _TINY
            meeting = [k for k in stable if fractions[k - 1] >= floor]
            if meeting:
                return finish(True, "criteria met", meeting[0],
                              float(fractions[meeting[0] - 1]), stable)
        if m == 1:
            return finish(False, "one feature left", stable=stable)
        if stopped_at is None and psd and retained_best(trace) < retain:
            result = finish(False, "retain unreachable", stable=stable)
            if not onward or seen_stable:
                return result
            stopped_at = result
        worst = least_accurate(np.where(kept, row_sq, -np.inf), tie)
        kept[worst] = False
        removed.append(worst)
        removed_feature = worst
        row = E[worst]  # = E[:, worst]: E is symmetric, and its rows are contiguous
        row_sq -= row * row
        Ev -= row * v[worst]
        v[worst] = 0.0
        trace -= float(diag[worst])
        since += 1
        if tick is not None:
            tick()


#: Squared row norms of E within this fraction of the largest one (of the full E) are tied.
TIE = 1e-9


def least_accurate(row_sq: np.ndarray, tie: float) -> int:
    """The position of the largest squared row norm, the lowest one among those within
    ``tie`` of it (Algorithm 1's "least accurate" feature, ties broken by index).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability.screening import least_accurate
    >>> least_accurate(np.array([1.0, 3.0, 3.0 + 1e-15, 2.0]), 1e-9)
    1
    """
    return int(np.flatnonzero(row_sq >= row_sq.max() - tie)[0])


def _ruled_out_step(A: np.ndarray, E: np.ndarray, idx: np.ndarray, removed_feature: int | None,
                    lam_A: np.ndarray | None, total: float, criterion: str,
                    record: bool) -> SbSStep:
    if not record:
        fractions = None if lam_A is None else retained_fraction(lam_A, total, criterion)
        return SbSStep(idx.size, removed_feature, lam_A, None, (), fractions, True, False)
    if lam_A is None:
        lam_A = _descending(A[np.ix_(idx, idx)])
    lam_E = _descending(E[np.ix_(idx, idx)])
    return SbSStep(idx.size, removed_feature, lam_A, 4 * float(lam_E[0]),
                   lemma1_stable_ks(lam_A, lam_E[0]), retained_fraction(lam_A, total, criterion),
                   True, False)


def _descending(M: np.ndarray) -> np.ndarray:
    return scipy.linalg.eigvalsh(M, check_finite=False)[::-1].copy()
