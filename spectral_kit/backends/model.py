"""The Q-α model of rows that live in Dask chunks or on a device: the row-chunked α- and
Q-steps that :func:`spectral_kit.q_alpha` hands to its one engine.

:func:`spectral_kit.qalpha.engine.alternate` runs the same alternation, stopping rule, starts
and bookkeeping on every array type; only the model differs (:class:`ScaledModel` here,
:class:`~spectral_kit.qalpha.models.StandardModel` for NumPy). This module knows arrays,
never the algorithm's entry points: it imports nothing from the algorithm packages.

* α-step (Sec. 3): ``G = Z Zᵀ`` with ``z_i = m_i ⊗ (MQ)_i``, so α is ``Z u / √λ`` for the
  leading eigenpair (λ, u) of the qk × qk matrix ``ZᵀZ``, summed over row chunks and solved
  exactly by a local ``eigh``; for the Laplacian (Def. 5) the same with ``t_i = vec(L_i Q)``.
  Two passes over M per α-step, however many Lanczos products the NumPy path would need.
* Q-step: ``A_α = Mᵀ diag(α) M`` (basic scheme) or ``A_α Q`` (power, Def. 2; Ritz, Def. 4),
  one pass each, q-sized.

α stays where M is (a persisted Dask array, or on M's device); Q, A_α and every
eigen-solve are q-sized: NumPy for Dask, M's namespace and device for the array API.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

from ..linalg import orthonormalize as np_orthonormalize
from . import kernels, small
from .inputs import prepare_rows
from .rows import ArrayRows, DaskRows

__all__ = ["SOLVER", "ScaledModel", "rows_of"]

#: The name results give the α-step of this package (exact, through the qk × qk Gram matrix).
SOLVER = "factored"


def rows_of(M: Any, preprocess: bool) -> ArrayRows | DaskRows:
    """Rows of M, centred and normalised when ``preprocess`` (as ``q_alpha`` does)."""
    return prepare_rows(M, center=preprocess, normalize=preprocess)


class ScaledModel:
    """:class:`~spectral_kit.qalpha.models.StandardModel` (or the Laplacian model) on rows that
    live in Dask chunks or on a device; same methods, same numbers."""

    def __init__(self, rows: ArrayRows | DaskRows, spectrum: str = "standard"):
        self.rows = rows
        self.sx = rows.small
        self.n_features, self.n_samples = rows.shape
        self.laplacian = spectrum == "laplacian"
        self.row_sums = rows.rowmap(kernels.row_sums_block) if self.laplacian else None
        self._last: tuple[Any, Any, float] | None = None

    # -- α-step ------------------------------------------------------------------------------
    def alpha_step(self, Q: Any, alpha_prev: Any) -> tuple[Any, float]:
        """The exact α-step: leading eigenvector of G (or F) for this Q, unit norm, Σα > 0."""
        sx, rows = self.sx, self.rows
        if not self.laplacian and self._last is not None and Q is self._last[1]:
            # The engine re-solves the last step "to full precision"; this one is exact.
            return self._last[0], self._last[2]
        d = self._shift(alpha_prev) if self.laplacian else 0.0
        vectors = (self.row_sums,) if self.laplacian else ()
        ZtZ, total = rows.reduce(kernels.alpha_gram_block, vectors, Q=Q, d=d)
        w, V = sx.linalg.eigh(small.symmetric(ZtZ))
        lam = float(w[-1])
        if not lam > 0:
            raise ValueError(
                "the α-step operator is zero: every row of M is zero after preprocessing."
            )
        u = V[:, -1] / math.sqrt(lam)
        # Σα = (Zᵀ1)ᵀu: the sign of fix_sign without a pass, unless Σα is at rounding level.
        s = float(sx.sum(total * u))
        unambiguous = abs(s) > 1e-12 * math.sqrt(self.n_features)
        if unambiguous and s < 0:
            u = -u
        U = sx.reshape(u, (self.n_samples, Q.shape[1]))
        alpha = rows.rowmap(kernels.alpha_rows_block, vectors, U=U, Q=Q, d=d)
        if not unambiguous:
            alpha = self._fix_sign(alpha, s)
        self._last = (alpha, Q, lam)
        return alpha, lam

    def _fix_sign(self, alpha: Any, total: float) -> Any:
        """:func:`spectral_kit.linalg.fix_sign` when Σα is too small to decide from the Gram."""
        (l1,) = self.rows.dots([(abs(alpha), self.rows.full(1.0))])
        if abs(total) > 1e-12 * l1:
            return alpha if total > 0 else self.rows.keep(-alpha)
        _, value = self.rows.abs_argmax(alpha)
        return alpha if value >= 0 else self.rows.keep(-alpha)

    # -- Laplacian pieces (Def. 5) ---------------------------------------------------------
    def _degrees(self, alpha: Any) -> tuple[Any, float]:
        deg, total = self.rows.reduce(kernels.degrees_block, (alpha, self.row_sums))
        return deg, float(total)

    def _shift(self, alpha: Any) -> float:
        deg, total = self._degrees(alpha)
        if abs(total) < 1e-300:
            return 0.0
        return float(self.sx.max(self.sx.abs(deg))) / total

    # -- Q-step ------------------------------------------------------------------------------
    def affinity_times(self, alpha: Any, Q: Any) -> Any:
        """``A_α Q = Mᵀ (α ∘ (MQ))`` (q × k), minus the Laplacian's degrees and shift."""
        AQ = self.rows.reduce(kernels.affinity_times_block, (alpha,), Q=Q)
        if self.laplacian:
            deg, total = self._degrees(alpha)
            shift = total * self._shift_from(deg, total)
            AQ = AQ - deg[:, None] * Q + shift * Q
        return AQ

    def _shift_from(self, deg: Any, total: float) -> float:
        if abs(total) < 1e-300:
            return 0.0
        return float(self.sx.max(self.sx.abs(deg))) / total

    def affinity(self, alpha: Any) -> Any:
        """``A_α = Mᵀ diag(α) M`` (q × q), or the Laplacian ``L_α``."""
        sx = self.sx
        A = small.symmetric(self.rows.reduce(kernels.weighted_gram_block, (alpha,)))
        if self.laplacian:
            deg, total = self._degrees(alpha)
            shift = total * self._shift_from(deg, total)
            A = A + sx.eye(self.n_samples, dtype=A.dtype, device=self.rows.device) * shift
            A = A - sx.eye(self.n_samples, dtype=A.dtype, device=self.rows.device) * deg[None, :]
        return A

    def leading_subspace(self, alpha: Any, k: int) -> Any:
        """The k leading eigenvectors of ``A_α`` (q × k, where the q-sized arrays live)."""
        return small.top_eigenvectors(self.sx, self.affinity(alpha), k)[1]

    def power_step(self, alpha: Any, Q: Any) -> Any:
        return small.orthonormalize(self.sx, self.affinity_times(alpha, Q))

    def eigen_step(self, alpha: Any, Q: Any) -> Any:
        return small.top_by_magnitude(self.sx, self.affinity(alpha), Q.shape[1])[1]

    def rayleigh_ritz(self, alpha: Any, Q: Any) -> Any:
        S = Q.T @ self.affinity_times(alpha, Q)
        return Q @ small.top_by_magnitude(self.sx, S, Q.shape[1])[1]

    # -- objective ---------------------------------------------------------------------------
    def objective(self, alpha: Any, Q: Any) -> float:
        """``trace(QᵀA_α²Q)``; right after an α-step for this Q it is that step's λ = αᵀGα."""
        if (not self.laplacian and self._last is not None and alpha is self._last[0]
                and Q is self._last[1]):
            return self._last[2]
        return float(self.sx.sum(self.affinity_times(alpha, Q) ** 2))

    def initial_alpha(self) -> Any:
        return self.rows.full(1.0 / math.sqrt(self.n_features))

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> Any:
        """Q⁽⁰⁾: the k leading right singular vectors of M, or a random orthonormal basis drawn
        exactly as the NumPy path draws it."""
        if kind == "pca":
            ones = self.rows.full(1.0)
            gram = self.rows.reduce(kernels.weighted_gram_block, (ones,))
            return small.top_eigenvectors(self.sx, gram, k)[1]
        return self.rows.as_small(np_orthonormalize(rng.standard_normal((self.n_samples, k))))
