"""Q-α models: what the α-step maximises and what the Q-step iterates on.

A model binds a preprocessed data matrix to one spectrum of the affinity matrix:

* :class:`StandardModel` -- ``A_α = Σ α_i m_i m_iᵀ = Mᵀ diag(α) M`` (Wolf & Shashua 2005,
  Sec. 2.1), with the "top" criterion ``trace(QᵀA_α²Q)`` or the spectral-gap criterion
  ``Σ_{i≤k} λ_i² − Σ_{j>k} λ_j²``;
* :class:`LaplacianModel` -- ``L_α = A_α − D_α + (Σα) d I`` (Sec. 2.2, Def. 5).

The alternating engine (:mod:`spectral_kit.qalpha.engine`) only talks to the methods below, so
variants (side information, pairwise constraints, supervision, kernels) are new models or
wrappers around these, not copies of the loop.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..linalg import orthonormalize, top_eigenvectors, weighted_gram
from .operators import HadamardGramOperator, HadamardTerm, LaplacianOperator

__all__ = ["LaplacianModel", "StandardModel", "pca_start", "top_by_magnitude"]


def top_by_magnitude(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Eigenpairs of symmetric S with the k largest |λ| (they maximise trace(QᵀS²Q))."""
    w, V = np.linalg.eigh(S)
    order = np.argsort(-np.abs(w), kind="stable")[:k]
    return w[order], V[:, order]


class StandardModel:
    """Standard-spectrum Q-α on a preprocessed ``M`` (n features × q samples).

    Parameters
    ----------
    M : ndarray of shape (n, q)
        Rows already centred and scaled to unit norm.
    criterion : {"top", "gap"}
        "top" maximises ``trace(QᵀA_αᵀA_αQ) = αᵀGα`` (Eq. 1); "gap" maximises
        ``Σ_{i≤k}λ_i² − Σ_{j>k}λ_j² = αᵀ(2G − Ĝ)α`` with ``Ĝ = (MMᵀ)∘(MMᵀ)``, using
        ``trace(Q₂ᵀA²Q₂) = ‖A‖_F² − trace(Q₁ᵀA²Q₁)``.
    """

    def __init__(self, M: np.ndarray, criterion: str = "top"):
        self.M = M
        self.criterion = criterion
        self.n_features, self.n_samples = M.shape
        self._gram_cache: dict[int, np.ndarray] = {}

    # -- α-step ------------------------------------------------------------------------------
    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        """G (or 2G − Ĝ for the gap criterion) for the current Q.

        ``alpha`` (the previous weights) is unused here; spectra whose operator depends on
        it, such as the Laplacian's shift d, read it.
        """
        P = self.M @ Q
        if self.criterion == "gap":
            terms = [HadamardTerm(P, 2.0, L=self.M), HadamardTerm(self.M, -1.0, L=self.M)]
        else:
            terms = [HadamardTerm(P, 1.0, L=self.M)]
        return HadamardGramOperator(terms, gram_cache=self._gram_cache)

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        """Map the operator's leading eigenvector to α (identity for symmetric G)."""
        return u

    # -- Q-step ------------------------------------------------------------------------------
    def affinity_times(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """``A_α Q = Mᵀ (α ∘ (MQ))`` without forming the q × q matrix A_α."""
        return self.M.T @ (alpha[:, None] * (self.M @ Q))

    def affinity(self, alpha: np.ndarray) -> np.ndarray:
        """``A_α = Mᵀ diag(α) M`` as an explicit q × q matrix.

        Accumulated over blocks of rows so that no temporary of the size of M is created.
        """
        return weighted_gram(self.M, alpha)

    def leading_subspace(self, alpha: np.ndarray, k: int) -> np.ndarray:
        """The k leading eigenvectors of ``A_α`` (for α ≥ 0 A_α is PSD, so also the k
        largest in magnitude: what the basic eigen-step returns)."""
        return top_eigenvectors(self.affinity(alpha), k)[1]

    def power_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Orthogonal-iteration step ``Q ← qr(A_α Q)`` (Def. 2, steps 3–5)."""
        return orthonormalize(self.affinity_times(alpha, Q))

    def eigen_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Q = the k eigenvectors of A_α with largest |λ| (the basic scheme, Sec. 3)."""
        return top_by_magnitude(self.affinity(alpha), Q.shape[1])[1]

    def rayleigh_ritz(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """Rotate Q to the Ritz vectors of A_α in span(Q) (Def. 4, steps 6–8)."""
        S = Q.T @ self.affinity_times(alpha, Q)
        return Q @ top_by_magnitude(0.5 * (S + S.T), Q.shape[1])[1]

    # -- objective ---------------------------------------------------------------------------
    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float:
        """``trace(QᵀA_αᵀA_αQ)``, or the gap ``2 trace(QᵀA_α²Q) − ‖A_α‖_F²``."""
        top = float(np.sum(self.affinity_times(alpha, Q) ** 2))
        if self.criterion == "gap":
            return 2.0 * top - float(np.sum(self.affinity(alpha) ** 2))
        return top

    def initial_alpha(self) -> np.ndarray:
        """Uniform weights, the warm start of the first α-step."""
        return np.full(self.n_features, 1.0 / np.sqrt(self.n_features))

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
        """Q⁽⁰⁾: ``"pca"`` (leading right singular vectors of M) or ``"random"``."""
        if kind == "pca":
            return pca_start(self.M, k)
        return orthonormalize(rng.standard_normal((self.n_samples, k)))


class LaplacianModel(StandardModel):
    """Laplacian-spectrum Q-α (Wolf & Shashua 2005, Sec. 2.2 and Def. 5).

    ``L_α = A_α − D_α + (Σα_i) d I`` with ``D_α = diag(A_α 1)``. The scalar d is computed
    from the current α as ``d = max|D_α| / Σα_i`` (Def. 5, step 3) so that ``(Σα) d``
    dominates the degrees, as Sec. 2.2 requires of d_max. With row-centred data every
    degree is zero (``m_iᵀ1 = 0``), d = 0 and L_α = A_α: the Laplacian differs from the
    standard spectrum only on uncentred rows.
    """

    def __init__(self, M: np.ndarray):
        super().__init__(M, criterion="top")
        self.row_sums = M.sum(axis=1)

    def _degrees(self, alpha: np.ndarray) -> np.ndarray:
        return self.M.T @ (alpha * self.row_sums)

    def _shift(self, alpha: np.ndarray) -> float:
        total = float(alpha.sum())
        if abs(total) < 1e-300:
            return 0.0
        return float(np.abs(self._degrees(alpha)).max()) / total

    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        """F of Def. 5 step 1, with L_i built from the shift d of the previous α."""
        return LaplacianOperator(self.M, Q, self._shift(alpha), self.row_sums)

    def affinity_times(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        shift = float(alpha.sum()) * self._shift(alpha)
        return super().affinity_times(alpha, Q) - self._degrees(alpha)[:, None] * Q + shift * Q

    def affinity(self, alpha: np.ndarray) -> np.ndarray:
        L = super().affinity(alpha)
        shift = float(alpha.sum()) * self._shift(alpha)
        L[np.diag_indices_from(L)] += shift - self._degrees(alpha)
        return L

    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float:
        return float(np.sum(self.affinity_times(alpha, Q) ** 2))


def pca_start(M: np.ndarray, k: int) -> np.ndarray:
    """The k leading right singular vectors of M: Q⁽⁰⁾ for uniform weights α ∝ 1."""
    return top_eigenvectors(weighted_gram(M, np.ones(M.shape[0])), k)[1]
