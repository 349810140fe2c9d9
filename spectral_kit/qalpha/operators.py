"""The symmetric operators whose leading eigenvector is α.

Every α-step of the Q-α family maximises ``αᵀ 𝒢 α`` over unit vectors, where 𝒢 is a weighted
sum of Hadamard products of Gram matrices,

    𝒢 = Σ_t w_t (L_t L_tᵀ) ∘ (P_t P_tᵀ),

* standard Q-α (Wolf & Shashua 2005, Sec. 3): one term, L = M, P = MQ, so
  G_ij = (m_iᵀm_j)(m_iᵀQQᵀm_j);
* supervised Q-α (Def. 6): one term per pair of classes (g, h), L = Mᵍ, P = Mʰ Q^{gh},
  weight 1 on the diagonal blocks and −γ off it;
* the spectral-gap criterion (end of Sec. 2.1): 2G − Ĝ with Ĝ = (MMᵀ)∘(MMᵀ), i.e. a second
  term with L = P = M and weight −1;
* kernel Q-α (Def. 14): L Lᵀ replaced by the kernel matrix V, P = VE;
* Wolf & Bileschi's H = (MMᵀ)^∘2 (Algo. 2): L = P = M.

The product with one term never forms an n × n matrix:
``((LLᵀ)∘(PPᵀ)) v = rowsum((L (Lᵀ (P ∘ v))) ∘ P)``, which costs O(n·q·k). :meth:`dense`
forms the matrix explicitly, which is faster for small n and is the reference the tests use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..linalg import ROW_BLOCK

__all__ = [
    "DiagonalScaledOperator",
    "HadamardGramOperator",
    "HadamardTerm",
    "LaplacianOperator",
    "ShiftedOperator",
]


@dataclass(frozen=True)
class HadamardTerm:
    """One term ``weight · (C ∘ PPᵀ)`` with ``C = LLᵀ`` given by its factor or explicitly.

    Attributes
    ----------
    P : ndarray of shape (n, k)
    weight : float
    L : ndarray of shape (n, q), optional
        Factor of C. Give either ``L`` or ``C``.
    C : ndarray of shape (n, n), optional
        C itself, for kernels whose feature map cannot be formed.
    """

    P: np.ndarray
    weight: float = 1.0
    L: np.ndarray | None = None
    C: np.ndarray | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        if (self.L is None) == (self.C is None):
            raise ValueError("give exactly one of L (a factor of C) or C")

    def matmat(self, V: np.ndarray) -> np.ndarray:
        """``(C ∘ PPᵀ) V`` for a block V of shape (n, b).

        With a factor L: ``W = Lᵀ (P ∘ V)`` (q × kb) is accumulated over row blocks, then
        ``out_i = Σ_l p_il (L W)_il``, block by block, so temporaries stay at
        ``ROW_BLOCK × k·b`` however large n is.
        """
        n, k = self.P.shape
        b = V.shape[1]
        if self.C is not None:
            CPV = self.C @ (self.P[:, :, None] * V[:, None, :]).reshape(n, k * b)
            return np.einsum("nkb,nk->nb", CPV.reshape(n, k, b), self.P)
        L, P = self.L, self.P
        W = np.zeros((L.shape[1], k * b))
        for s in range(0, n, ROW_BLOCK):
            blk = slice(s, s + ROW_BLOCK)
            W += L[blk].T @ (P[blk, :, None] * V[blk, None, :]).reshape(-1, k * b)
        out = np.empty((n, b))
        for s in range(0, n, ROW_BLOCK):
            blk = slice(s, s + ROW_BLOCK)
            LW = (L[blk] @ W).reshape(-1, k, b)
            out[blk] = np.einsum("nkb,nk->nb", LW, P[blk])
        return out

    def gram(self) -> np.ndarray:
        """C as an explicit n × n matrix."""
        return self.C if self.C is not None else self.L @ self.L.T


class HadamardGramOperator(LinearOperator):
    """``Σ_t w_t (L_t L_tᵀ) ∘ (P_t P_tᵀ)`` as a matrix-free symmetric operator.

    Parameters
    ----------
    terms : sequence of HadamardTerm
    gram_cache : dict, optional
        Maps ``id(L)`` to an already formed ``LLᵀ``; lets :meth:`dense` reuse MMᵀ across the
        iterations of Q-α, where M is fixed and only P changes.
    """

    def __init__(self, terms: Sequence[HadamardTerm], gram_cache: dict | None = None):
        n = terms[0].P.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.terms = tuple(terms)
        self._gram_cache = gram_cache if gram_cache is not None else {}

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        return self._matmat(v.reshape(-1, 1)).ravel()

    def _matmat(self, V: np.ndarray) -> np.ndarray:
        out = np.zeros((self.shape[0], V.shape[1]))
        for term in self.terms:
            out += term.weight * term.matmat(V)
        return out

    def _adjoint(self) -> HadamardGramOperator:
        return self

    def dense(self) -> np.ndarray:
        """The operator as an explicit symmetric n × n matrix."""
        out = np.zeros(self.shape)
        for term in self.terms:
            if term.C is not None:
                C = term.C
            else:
                key = id(term.L)
                C = self._gram_cache.get(key)
                if C is None:
                    C = term.gram()
                    self._gram_cache[key] = C
            out += term.weight * (C * (term.P @ term.P.T))
        return out


class LaplacianOperator(LinearOperator):
    """F of the Laplacian power-embedded Q-α (Wolf & Shashua 2005, Def. 5).

    ``F_ij = trace(Qᵀ L_iᵀ L_j Q)`` with ``L_i = m_i m_iᵀ − s_i diag(m_i) + d I`` and
    ``s_i = m_iᵀ 1``. Writing ``t_i = vec(L_i Q)``, F = T Tᵀ, and both ``Tᵀv`` (a q × k
    matrix W) and ``T vec(W)`` cost one pass over M, so F v costs O(n·q·k).
    """

    def __init__(self, M: np.ndarray, Q: np.ndarray, d: float, row_sums: np.ndarray):
        n = M.shape[0]
        super().__init__(dtype=np.float64, shape=(n, n))
        self.M, self.Q, self.d, self.s = M, Q, float(d), row_sums
        self.P = M @ Q

    def _transpose_times(self, v: np.ndarray) -> np.ndarray:
        """W = Tᵀ v = Mᵀ diag(v) P − diag(Mᵀ(v∘s)) Q + d (Σv) Q."""
        M, Q = self.M, self.Q
        return (
            M.T @ (self.P * v[:, None])
            - (M.T @ (v * self.s))[:, None] * Q
            + self.d * v.sum() * Q
        )

    def _times(self, W: np.ndarray) -> np.ndarray:
        """T vec(W): ⟨t_i, W⟩ for every i."""
        QW = self.Q * W
        return (
            np.einsum("nk,nk->n", self.M @ W, self.P)
            - self.s * (self.M @ QW.sum(axis=1))
            + self.d * QW.sum()
        )

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        return self._times(self._transpose_times(np.ravel(v)))

    def _adjoint(self) -> LaplacianOperator:
        return self

    def dense(self) -> np.ndarray:
        M, Q = self.M, self.Q
        T = (
            M[:, :, None] * self.P[:, None, :]
            - (self.s[:, None] * M)[:, :, None] * Q[None, :, :]
            + self.d * Q[None, :, :]
        ).reshape(M.shape[0], -1)
        return T @ T.T


class DiagonalScaledOperator(LinearOperator):
    """``S A S`` for a positive diagonal ``S = diag(scale)``.

    Turns the non-symmetric eigenproblem ``(D + λI)⁻¹ G α = μ α`` of Q-α with side
    information into the symmetric one ``S G S u = μ u`` with ``S = (D + λI)^{-1/2}`` and
    ``α ∝ S u``.
    """

    def __init__(self, op: LinearOperator, scale: np.ndarray):
        super().__init__(dtype=np.float64, shape=op.shape)
        self.op, self.scale = op, np.asarray(scale, dtype=np.float64)

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        return self.scale * self.op.matvec(self.scale * np.ravel(v))

    def _matmat(self, V: np.ndarray) -> np.ndarray:
        return self.scale[:, None] * self.op.matmat(self.scale[:, None] * V)

    def _adjoint(self) -> DiagonalScaledOperator:
        return self

    def dense(self) -> np.ndarray:
        return self.scale[:, None] * _dense(self.op) * self.scale[None, :]


class ShiftedOperator(LinearOperator):
    """``A − λ B`` for symmetric A, B (pairwise side information, Shashua & Wolf 2004, Sec. 5;
    the supervised weighting H − λG of Wolf & Bileschi 2005, Algo. 3)."""

    def __init__(self, A: LinearOperator, B: LinearOperator | np.ndarray, lam: float):
        super().__init__(dtype=np.float64, shape=A.shape)
        self.A, self.B, self.lam = A, B, float(lam)

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        v = np.ravel(v)
        return np.ravel(self.A.matvec(v)) - self.lam * np.ravel(self.B @ v)

    def _matmat(self, V: np.ndarray) -> np.ndarray:
        return self.A.matmat(V) - self.lam * (self.B @ V)

    def _adjoint(self) -> ShiftedOperator:
        return self

    def dense(self) -> np.ndarray:
        return _dense(self.A) - self.lam * _dense(self.B)


def _dense(op: LinearOperator | np.ndarray) -> np.ndarray:
    if isinstance(op, np.ndarray):
        return op
    if hasattr(op, "dense"):
        return op.dense()
    return op.matmat(np.eye(op.shape[0]))
