"""Leading eigenpair of a symmetric operator whose vectors live where M lives.

Block-size-one LOBPCG (Knyazev 2001): Rayleigh–Ritz on span{x, r, p} each iteration, one
operator product per iteration, every inner product gathered in one computation. Used for
Algo. 2's ``H = (MMᵀ)^∘2``, whose products need a q × q matrix per pass but whose Gram
``Σ (m_i m_iᵀ) ⊗ (m_i m_iᵀ)`` would be q² × q². Only the 3 × 3 Rayleigh–Ritz problems are
solved locally (NumPy); n-vectors stay on M's device or in Dask's workers.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["RowEigenPair", "leading_eigenpair", "nonnegative_part"]

#: Directions of the search space whose Gram eigenvalue falls below this share are dropped.
_DROP = 1e-10


@dataclass(frozen=True)
class RowEigenPair:
    value: float
    vector: Any
    n_matvec: int
    converged: bool


def _combine(vectors: list[Any], coef: np.ndarray) -> Any:
    out = vectors[0] * float(coef[0])
    for v, c in zip(vectors[1:], coef[1:]):
        out = out + v * float(c)
    return out


def leading_eigenpair(
    rows: Any, matvec: Callable[[Any], Any], x0: Any, *, tol: float, maxiter: int = 300
) -> RowEigenPair:
    """Largest eigenvalue and unit eigenvector of the symmetric ``matvec``, from ``x0``.

    Stops when ``‖Ax − λx‖ ≤ tol·|λ|``, the residual rule of
    :func:`spectral_kit.linalg.leading_eigenvector`, checked on an explicitly recomputed Ax.
    The tolerance is raised to 10 ulp of M's dtype (float32 data cannot do better).
    """
    tol = max(tol, 10 * float(np.finfo(np.dtype(str(rows.dtype).split(".")[-1])).eps))
    (nrm,) = rows.dots([(x0, x0)])
    x = rows.keep(x0 * (1.0 / math.sqrt(nrm)))
    Ax = matvec(x)
    n_matvec = 1
    p = Ap = None
    converged = False
    for _ in range(maxiter):
        (lam,) = rows.dots([(x, Ax)])
        r = rows.keep(Ax - x * lam)
        (rn2,) = rows.dots([(r, r)])
        if math.sqrt(rn2) <= tol * abs(lam):
            Ax_true = matvec(x)
            n_matvec += 1
            (lam_true,) = rows.dots([(x, Ax_true)])
            (res2,) = rows.dots([(Ax_true - x * lam_true,) * 2])
            Ax = Ax_true
            if math.sqrt(res2) <= tol * abs(lam_true):
                lam, converged = lam_true, True
                break
            continue
        r = rows.keep(r * (1.0 / math.sqrt(rn2)))
        Ar = matvec(r)
        n_matvec += 1
        S, AS = [x, r], [Ax, Ar]
        if p is not None:
            S.append(p)
            AS.append(Ap)
        m = len(S)
        pairs = [(S[i], S[j]) for i in range(m) for j in range(m)]
        pairs += [(S[i], AS[j]) for i in range(m) for j in range(m)]
        values = np.array(rows.dots(pairs))
        gram = values[: m * m].reshape(m, m)
        sab = values[m * m :].reshape(m, m)
        gram, sab = 0.5 * (gram + gram.T), 0.5 * (sab + sab.T)
        w, V = np.linalg.eigh(gram)
        keep = w > _DROP * w.max()
        T = V[:, keep] / np.sqrt(w[keep])
        _, Y = np.linalg.eigh(T.T @ sab @ T)
        c = T @ Y[:, -1]
        x_new, Ax_new = _combine(S, c), _combine(AS, c)
        cp = c.copy()
        cp[0] = 0.0
        p_norm2 = float(cp @ gram @ cp)
        if p_norm2 > 0:
            scale = 1.0 / math.sqrt(p_norm2)
            p, Ap = rows.keep(_combine(S, cp * scale)), rows.keep(_combine(AS, cp * scale))
        x, Ax = rows.keep(x_new), rows.keep(Ax_new)
    return RowEigenPair(float(lam), x, n_matvec, converged)


def nonnegative_part(rows: Any, u: Any) -> tuple[Any, Any, float]:
    """:func:`spectral_kit.weighting.result.nonnegative_weights` for a vector that lives
    where M's rows live: ``(max(u, 0)/‖max(u, 0)‖, u/‖u‖, ‖min(u, 0)‖²)`` with Σu > 0."""
    (u2, total) = rows.dots([(u, u), (u, rows.full(1.0))])
    u = u * (1.0 / math.sqrt(u2))
    if total < 0:
        u = -u
    u = rows.keep(u)
    # (u + |u|)/2 is max(u, 0) exactly, in every namespace and for Dask.
    positive = (u + abs(u)) * 0.5
    negative = (u - abs(u)) * 0.5
    pos2, neg2 = rows.dots([(positive, positive), (negative, negative)])
    return rows.keep(positive * (1.0 / math.sqrt(pos2))), u, float(neg2)
