"""Random-matrix facts behind the papers' claims, as functions a student can check.

Wishart moments and top eigenvalue (Wolf & Shashua 2005, Sec. 4.2; Wolf & Bileschi 2005,
Sec. 2). More of the theory (positivity of the leading eigenvector, Props. 7–9, Lemma 13) is
added alongside.
"""

from __future__ import annotations

from math import comb

import numpy as np

from .validation import check_finite_scalar, check_int

__all__ = [
    "narayana_moment",
    "wishart_second_moment",
    "wishart_top_eigenvalue",
    "wishart_top_eigenvalue_as_printed",
]


def narayana_moment(k: int, ratio: float) -> float:
    """k-th moment of the Marchenko–Pastur law: ``m_k = Σ_{j<k} c^j/(j+1) C(k,j) C(k−1,j)``.

    For ``W = (1/q) M Mᵀ`` with M an n × q matrix of independent zero-mean, unit-variance
    entries, ``(1/n) E trace(W^k) → m_k`` with ``c = n/q`` (Wolf & Shashua 2005, Sec. 4.2,
    the Narayana polynomials).

    Parameters
    ----------
    k : int
        Order of the moment, k ≥ 1.
    ratio : float
        c = n / q > 0.
    """
    k = check_int(k, "k", low=1)
    c = check_finite_scalar(ratio, "ratio", low=0.0, low_inclusive=False)
    return float(sum(c**j / (j + 1) * comb(k, j) * comb(k - 1, j) for j in range(k)))


def wishart_second_moment(n: int, q: int) -> float:
    """``(1/n) E trace(W²) ≈ 1 + n/q`` for ``W = (1/q) M Mᵀ`` (Sec. 4.2)."""
    n = check_int(n, "n", low=1)
    q = check_int(q, "q", low=1)
    return narayana_moment(2, n / q)


def wishart_top_eigenvalue(n2: int, q: int, *, variance: float | None = None) -> float:
    """Mean top eigenvalue of ``A₂ = M₂ᵀM₂`` for an n₂ × q matrix M₂ of i.i.d. noise.

    The Marchenko–Pastur edge ``σ² (√n₂ + √q)²`` (Geman 1980; Johnstone 2001), with entry
    variance ``σ² = 1/q`` by default -- the setting of Wolf & Bileschi (2005, Sec. 2), where
    every irrelevant feature has expected squared norm 1.

    Notes
    -----
    The report prints this mean as ``n₂/q² (√n₂ + √q)²``, which is the expression above
    times n₂/q; the same factor appears in its ``n₁ + n₂/q²`` for ``v₁ᵀAv₁`` (the top-left
    entry of A₂ is a sum of n₂ squares of variance 1/q, whose mean is n₂/q). Simulation
    agrees with the Marchenko–Pastur value; :func:`wishart_top_eigenvalue_as_printed`
    returns the printed expression for comparison.
    """
    n2 = check_int(n2, "n2", low=1)
    q = check_int(q, "q", low=1)
    s2 = 1.0 / q if variance is None else check_finite_scalar(
        variance, "variance", low=0.0, low_inclusive=False
    )
    return float(s2 * (np.sqrt(n2) + np.sqrt(q)) ** 2)


def wishart_top_eigenvalue_as_printed(n2: int, q: int) -> float:
    """The expression ``n₂/q² (√n₂ + √q)²`` exactly as printed in Wolf & Bileschi (2005)."""
    n2 = check_int(n2, "n2", low=1)
    q = check_int(q, "q", low=1)
    return float(n2 / q**2 * (np.sqrt(n2) + np.sqrt(q)) ** 2)
