"""Everything the perturbation argument says about A at one confidence level, in one call.

For an interactive view: keep a :class:`BootstrapDistribution` (the expensive part) and call
:func:`stability_report` whenever the confidence level or the method changes; it costs new
quantiles and a few p × p eigendecompositions. The subspace distances observed across the
resamples do not depend on the confidence level: compute them once per distribution with
:func:`resample_subspace_distances`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..validation import check_choice
from .bootstrap import METHODS, BootstrapDistribution, BootstrapIntervals
from .interlacing import descending_eigenvalues, lemma1_distance_bound, lemma1_stable_ks
from .perturbation import StewartBound, perturbation_matrix, stewart_bounds

__all__ = ["StabilityReport", "stability_report"]


@dataclass(frozen=True)
class StabilityReport:
    """A, its intervals, E, Lemma 1's stable k and Stewart's theorem for every k.

    Attributes
    ----------
    intervals : BootstrapIntervals
    E : ndarray of shape (p, p)
        The perturbation matrix of Example 2.
    eigenvalues : ndarray of shape (p,)
        λ₁ ≥ … ≥ λ_p of A.
    eigenvalues_E : ndarray of shape (p,)
        Eigenvalues of E, descending.
    threshold : float
        ``4·λ₁(E)``, the eigengap Lemma 1 asks for.
    stable_ks : tuple of int
        The k of Lemma 1.
    stewart : tuple of StewartBound
        Theorem 1 for k = 1 … p − 1 (falsy where its conditions fail).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_distribution, stability_report
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> dist = bootstrap_distribution(X, n_resamples=200, random_state=0)
    >>> report = stability_report(dist, confidence=0.9)
    >>> report.stable_ks, report.ks
    ((1,), array([1, 2, 3, 4, 5]))
    >>> bool(report.eigengaps[0] > report.threshold), bool(report.stewart[0])
    (True, True)
    """

    intervals: BootstrapIntervals
    E: np.ndarray
    eigenvalues: np.ndarray
    eigenvalues_E: np.ndarray
    threshold: float
    stable_ks: tuple[int, ...]
    stewart: tuple[StewartBound, ...]

    @property
    def eigengaps(self) -> np.ndarray:
        """``λₖ − λₖ₊₁`` for k = 1 … p − 1."""
        return -np.diff(self.eigenvalues)

    @property
    def ks(self) -> np.ndarray:
        return np.arange(1, self.eigenvalues.size)

    @property
    def bounds(self) -> np.ndarray:
        """Stewart's distance bound per k for the perturbation E itself, NaN where the
        theorem does not apply."""
        return np.array([np.nan if b.bound is None else b.bound for b in self.stewart])

    @property
    def uniform_bounds(self) -> np.ndarray:
        """Per k, the bound ``2λ₁(E)/(λ_k − λ_{k+1} − 2λ₁(E))`` that holds for every
        perturbation of norm at most ‖E‖₂ -- in particular every matrix inside all the
        intervals, and the resamples whose perturbation is that small. NaN where
        Lemma 1 does not apply."""
        eps = max(float(self.eigenvalues_E[0]), 0.0)
        values = [lemma1_distance_bound(self.eigenvalues, eps, int(k)) for k in self.ks]
        return np.array([np.nan if v is None else v for v in values])


def stability_report(
    source: BootstrapDistribution | BootstrapIntervals,
    confidence: float = 0.9,
    method: str = "bca",
) -> StabilityReport:
    """Intervals → E → eigenvalues → Lemma 1 and Stewart's bound for every k.

    The chain of Mavroeidis & Vazirgiannis (2007): bootstrap intervals (Sec. 4.1), the
    perturbation E (Example 2), Lemma 1's stable k and Stewart's theorem (Theorem 1) for each
    k. This is what an explorer recomputes when the confidence level moves.

    Parameters
    ----------
    source : BootstrapDistribution or BootstrapIntervals
        A stored distribution (intervals are recomputed at ``confidence`` with ``method``)
        or intervals already computed (``confidence`` and ``method`` are then not used).
    confidence : float, default 0.9
        Coverage of each interval, in (0, 1).
    method : {"bca", "percentile"}
        Interval method.

    Returns
    -------
    StabilityReport
        The intervals, E, the eigenvalues of A and E, Lemma 1's threshold and stable k, and
        Stewart's bound per k.

    Raises
    ------
    TypeError
        If ``source`` is neither a distribution nor intervals.
    ValueError
        If ``confidence`` or ``method`` is invalid.

    Examples
    --------
    A lower confidence narrows the intervals, so E, and the threshold of Lemma 1, shrink:

    >>> import numpy as np
    >>> from spectral_kit.stability import bootstrap_distribution, stability_report
    >>> rng = np.random.default_rng(0)
    >>> z = rng.standard_normal((200, 1))
    >>> X = np.hstack([3 * z + 0.3 * rng.standard_normal((200, 3)),
    ...                rng.standard_normal((200, 3))])
    >>> dist = bootstrap_distribution(X, n_resamples=200, random_state=0)
    >>> high, low = stability_report(dist, 0.99), stability_report(dist, 0.5)
    >>> bool(low.threshold < high.threshold)
    True
    """
    if isinstance(source, BootstrapDistribution):
        method = check_choice(method, "method", METHODS)
        intervals = source.intervals(confidence, method)
    elif isinstance(source, BootstrapIntervals):
        intervals = source
    else:
        raise TypeError(
            "source must be a BootstrapDistribution or BootstrapIntervals; got "
            f"{type(source).__name__}."
        )
    A = intervals.estimate
    E = perturbation_matrix(A, intervals.lower, intervals.upper)
    lam = descending_eigenvalues(A)
    lam_E = descending_eigenvalues(E, "E")
    return StabilityReport(
        intervals, E, lam, lam_E, 4 * float(lam_E[0]), lemma1_stable_ks(lam, lam_E[0]),
        stewart_bounds(A, E) if A.shape[0] > 1 else (),
    )
