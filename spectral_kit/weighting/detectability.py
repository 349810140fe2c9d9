"""When does the relevant signal drown in the Wishart bulk? (Wolf & Bileschi 2005, Sec. 2)

The kernel of the data is ``A = MᵀM = A₁ + A₂``: A₁ from the n₁ relevant features, A₂ from
the n₂ irrelevant ones. In the paper's ideal case the relevant data form two tight clusters,
so ``A₁ = θ v₁v₁ᵀ`` with θ = n₁, and the irrelevant entries are i.i.d. with variance 1/q,
so A₂ is a Wishart matrix whose top eigenvalue concentrates at the Marchenko–Pastur edge
``(1/q)(√n₂ + √q)²`` (:func:`spectral_kit.theory.wishart_top_eigenvalue`).

The paper compares ``v₁ᵀAv₁ ≈ θ + n₂/q`` with that edge: when the first is much smaller, v₁
is indistinguishable from A₂'s own top eigenvector and every rotation-invariant method
(PCA, kernel methods) fails. The exact large-(n₂, q) answer is a phase transition for an
additive rank-one perturbation of a Wishart matrix (Benaych-Georges & Nadakuditi 2011):
with ``c = n₂/q``, A₂'s Stieltjes transform at the edge is ``1/(√c + 1)``, so

* the signal is **detectable** -- A's top eigenvalue leaves the bulk and its eigenvector
  correlates with v₁ -- iff ``θ > 1 + √c``;
* then the top eigenvalue is ``θ + cθ/(θ − 1)`` and ``cos²(u₁, v₁) = 1 − c/(θ − 1)²``;
* otherwise the top eigenvalue sticks to the edge ``(1 + √c)²`` and ``cos² → 0``.

The paper's comparison ``θ + c = (1 + √c)²`` puts the threshold at ``1 + 2√c``: the same
√(n₂/q) law, with a constant twice as large, because the top eigenvalue of A exceeds
``v₁ᵀAv₁``. The number of irrelevant features a signal θ survives is ``q (θ − 1)²``.
These are asymptotic statements (n₂ and q large, n₂/q fixed); the reproduction
``wolf-bileschi-2005/wishart`` checks them against simulation.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg

from ..preprocess import preprocess_rows
from ..theory import wishart_top_eigenvalue
from ..validation import check_finite_scalar, check_int

__all__ = [
    "Detectability",
    "critical_irrelevant",
    "detectability",
    "detectability_threshold",
    "relevant_signal",
]


@dataclass(frozen=True)
class Detectability:
    """The Sec. 2 comparison of a relevant signal with the Wishart bulk of the noise.

    Attributes
    ----------
    signal : float
        θ, the eigenvalue of the relevant kernel A₁ along the cluster direction v₁ (n₁ in
        the ideal case).
    n_irrelevant, n_samples : int
        n₂ and q.
    bulk_edge : float
        Mean top eigenvalue of A₂, ``(1/q)(√n₂ + √q)²``.
    signal_energy : float
        Mean of ``v₁ᵀAv₁ = θ + n₂/q`` (the paper's left-hand side).
    threshold : float
        ``1 + √(n₂/q)``: the smallest θ that emerges from the bulk.
    detectable : bool
        ``θ > threshold``.
    top_eigenvalue : float
        Predicted top eigenvalue of A: ``θ + cθ/(θ − 1)`` when detectable, else the edge.
    overlap : float
        Predicted ``cos²`` between A's top eigenvector and v₁: ``1 − c/(θ − 1)²`` or 0.

    Examples
    --------
    >>> from spectral_kit.weighting import detectability
    >>> d = detectability(3.0, n_irrelevant=200, n_samples=100)
    >>> d.detectable, round(d.threshold, 4), round(d.overlap, 3)
    (True, 2.4142, 0.5)
    """

    signal: float
    n_irrelevant: int
    n_samples: int
    bulk_edge: float
    signal_energy: float
    threshold: float
    detectable: bool
    top_eigenvalue: float
    overlap: float

    @property
    def paper_ratio(self) -> float:
        """``(θ + n₂/q) / bulk_edge``: the paper's comparison; ≪ 1 means PCA fails."""
        return self.signal_energy / self.bulk_edge

    @property
    def paper_threshold(self) -> float:
        """θ at which ``θ + n₂/q`` equals the bulk edge: ``1 + 2√(n₂/q)``."""
        return 1.0 + 2.0 * np.sqrt(self.n_irrelevant / self.n_samples)


def detectability_threshold(n_irrelevant: int, n_samples: int) -> float:
    """``1 + √(n₂/q)``: the weakest relevant signal θ that emerges from the Wishart bulk.

    Wolf & Bileschi (2005), Sec. 2: above this signal strength the top eigenvector of all n₁ + n₂
    features still overlaps the relevant direction (the spiked-covariance transition); below
    it, it is noise.

    Parameters
    ----------
    n_irrelevant : int
        n₂ ≥ 0, the number of irrelevant features.
    n_samples : int
        q ≥ 1, the number of samples.

    Returns
    -------
    float
        The threshold on θ.

    Raises
    ------
    ValueError
        If a count is negative (or ``n_samples`` is 0).

    Examples
    --------
    >>> from spectral_kit.weighting import detectability_threshold
    >>> detectability_threshold(400, 100)  # 1 + √4
    3.0
    """
    n2 = check_int(n_irrelevant, "n_irrelevant", low=0)
    q = check_int(n_samples, "n_samples", low=1)
    return 1.0 + float(np.sqrt(n2 / q))


def critical_irrelevant(signal: float, n_samples: int) -> float:
    """``q (θ − 1)²``: the number of irrelevant features at which a signal θ drowns.

    Wolf & Bileschi (2005), Sec. 2, solved for n₂: below it the top principal direction of all
    features still follows the relevant structure; above it, it is noise. Zero when θ ≤ 1.

    Parameters
    ----------
    signal : float
        θ ≥ 0, the relevant signal (see :func:`relevant_signal`).
    n_samples : int
        q ≥ 1.

    Returns
    -------
    float
        The critical n₂.

    Raises
    ------
    ValueError
        If ``signal`` is negative or not finite, ``n_samples`` < 1, or the result overflows
        float64.

    Examples
    --------
    >>> from spectral_kit.weighting import critical_irrelevant, detectability_threshold
    >>> critical_irrelevant(3.0, 100)
    400.0
    >>> detectability_threshold(400, 100)  # the same boundary, read the other way
    3.0
    """
    theta = check_finite_scalar(signal, "signal", low=0.0)
    q = check_int(n_samples, "n_samples", low=1)
    with np.errstate(over="ignore"):
        value = float(q * np.float64(max(theta - 1.0, 0.0)) ** 2)
    if not np.isfinite(value):
        raise ValueError(f"n_samples·(signal − 1)² overflows float64 for signal={theta:g}, "
                         f"n_samples={q}.")
    return value


def detectability(signal: float, n_irrelevant: int, n_samples: int) -> Detectability:
    """Is a relevant signal θ visible above n₂ irrelevant features on q samples? (Sec. 2)

    Parameters
    ----------
    signal : float
        θ ≥ 0: the eigenvalue of the relevant kernel A₁ along the cluster direction; n₁ for
        the paper's ideal clusters, :func:`relevant_signal` for data.
    n_irrelevant : int
        n₂ ≥ 0, the number of irrelevant features (unit-norm rows of i.i.d. noise).
    n_samples : int
        q ≥ 1.

    Returns
    -------
    Detectability
        The bulk edge (via :func:`spectral_kit.theory.wishart_top_eigenvalue`), the paper's
        ``θ + n₂/q``, the threshold ``1 + √(n₂/q)`` and the predicted top eigenvalue and
        eigenvector overlap (see the module docstring).

    Examples
    --------
    >>> from spectral_kit.weighting import detectability
    >>> detectability(3.0, 200, 100).detectable      # 3 tight relevant features of 203
    True
    >>> detectability(2.0, 200, 100).detectable
    False
    """
    theta = check_finite_scalar(signal, "signal", low=0.0)
    n2 = check_int(n_irrelevant, "n_irrelevant", low=0)
    q = check_int(n_samples, "n_samples", low=1)
    c = n2 / q
    threshold = 1.0 + np.sqrt(c)
    edge = wishart_top_eigenvalue(n2, q) if n2 else 0.0
    detectable = bool(theta > threshold)
    if detectable:
        top = theta + c * theta / (theta - 1.0)
        overlap = 1.0 - (c / (theta - 1.0)) / (theta - 1.0)  # no square to overflow
    else:
        top, overlap = max(edge, theta), 0.0
    return Detectability(
        signal=theta, n_irrelevant=n2, n_samples=q, bulk_edge=float(edge),
        signal_energy=theta + c, threshold=float(threshold), detectable=detectable,
        top_eigenvalue=float(top), overlap=float(overlap),
    )


def relevant_signal(M_relevant: object) -> float:
    """θ of data: the top eigenvalue of ``A₁ = M₁ᵀM₁`` for centred, unit-norm relevant rows.

    Parameters
    ----------
    M_relevant : array-like of shape (n_relevant, n_samples)
        The relevant feature rows (raw; they are centred and normalised here, as the
        irrelevant rows are in the Sec. 2 model).

    Returns
    -------
    float
        θ = λ₁(A₁) (n₁ when the relevant rows are identical up to scale and offset).

    Raises
    ------
    ValueError
        If the rows are not finite or one is constant (it cannot be normalised).

    Examples
    --------
    Three copies of one feature give the ideal θ = n₁ = 3:

    >>> import numpy as np
    >>> from spectral_kit.weighting import relevant_signal
    >>> round(relevant_signal(np.vstack([np.arange(10.0)] * 3)), 10)
    3.0
    """
    M1 = preprocess_rows(M_relevant, name="M_relevant")
    s = scipy.linalg.svdvals(M1, check_finite=False)
    return float(s[0] ** 2)
