"""Standard Q-α on a SciPy sparse M (term–document data) without densifying it.

The preprocessed rows (Wolf & Shashua 2005, Sec. 2.1: centred, unit norm) of a sparse S are
dense, but they are S plus a rank-one term: with ``m`` the row means and ``D`` the diagonal of
inverse row norms after centring,

    M_c = D (S − m 1ᵀ),

so every product the engine needs is a sparse product and a rank-one correction:

* ``M_c X = D (S X − m (1ᵀX))`` and ``M_cᵀ Y = Sᵀ(DY) − 1 (mᵀDY)``;
* the α-step operator ``G v = rowsum((M_c M_cᵀ (P ∘ v)) ∘ P)`` with ``P = M_c Q`` (Sec. 3),
  O(nnz·k + (n + q)·k) per product;
* ``A_α = M_cᵀ diag(α) M_c = Sᵀ W S − Sᵀ(w∘m) 1ᵀ − 1 (w∘m)ᵀ S + (Σ w m²) 11ᵀ`` with
  ``w = α d²`` (q × q, as on the dense path).

Memory beyond S is O(nnz + (n + q)·k + q²), never n × q.
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from scipy.sparse.linalg import LinearOperator

from ..linalg import orthonormalize, top_eigenvectors
from ..preprocess import refuse_zero_norm_rows
from ..validation import check_array, scale_exponent
from .engine import SAFE_EXPONENT
from .models import StandardModel

__all__ = ["SparseModel", "is_sparse", "sparse_rows"]


def is_sparse(M: object) -> bool:
    """Whether M is a SciPy sparse matrix or array (any format)."""
    return sp.issparse(M)


def sparse_rows(M: object, *, preprocess: bool = True) -> tuple[SparseModel, int]:
    """Validate a sparse M (n features × q samples); its :class:`SparseModel` and the binary
    exponent e its raw rows were scaled down by (as :func:`~.engine.scaled_down`; 0 when
    ``preprocess``, whose rows have unit norm).

    The checks and messages are those of the dense path (:func:`~spectral_kit.validation.
    check_array` and :func:`~spectral_kit.preprocess.preprocess_rows`): complex or non-finite
    entries, fewer than 2 samples, and rows of zero norm after centring are refused the same
    way. M is never modified: a CSR copy of its nonzeros is taken.
    """
    if M.ndim != 2:  # type: ignore[attr-defined]
        raise ValueError(f"M must be a 2-D array; got shape {M.shape}.")  # type: ignore[attr-defined]
    n, q = M.shape  # type: ignore[attr-defined]
    if n < 1:
        raise ValueError(f"M must have at least 1 features (rows); got shape {(n, q)}.")
    if q < 2:
        raise ValueError(f"M must have at least 2 samples (columns); got shape {(n, q)}.")
    S = sp.csr_array(M, copy=True)  # a copy: summing duplicates below must not touch M
    data = check_array(S.data, "M", ndim=1, min_rows=0)  # complex / NaN: the dense messages
    S = sp.csr_array((np.array(data, dtype=np.float64), S.indices.copy(), S.indptr.copy()),
                     shape=(n, q))
    S.sum_duplicates()
    check_array(S.data, "M", ndim=1, min_rows=0)  # duplicates summed to inf
    e = 0
    if not preprocess and S.nnz:
        e = scale_exponent(S.data)
        if abs(e) > SAFE_EXPONENT:  # raw rows of any scale: α does not depend on it
            S.data = np.ldexp(S.data, -e)
        else:
            e = 0
    return SparseModel(S, preprocess=preprocess), e


def _row_max_abs(S: sp.csr_array) -> np.ndarray:
    counts = np.diff(S.indptr)
    out = np.zeros(S.shape[0])
    nonempty = counts > 0
    if S.nnz:
        out[nonempty] = np.maximum.reduceat(np.abs(S.data), S.indptr[:-1][nonempty])
    return out


class SparseModel(StandardModel):
    """:class:`~spectral_kit.qalpha.models.StandardModel` ("top" criterion) on the rows of a
    sparse S, preprocessed algebraically (``M_c = D (S − m1ᵀ)``); same methods, same numbers.

    Parameters
    ----------
    S : scipy.sparse.csr_array of shape (n, q)
        Finite float64 entries, duplicates summed (see :func:`sparse_rows`).
    preprocess : bool
        Centre rows and scale them to unit norm (Sec. 2.1); otherwise use S as it is.
    """

    def __init__(self, S: sp.csr_array, preprocess: bool = True):
        n, q = S.shape
        self.S = S
        self.St = S.T.tocsr()  # Sᵀ products row-major too
        self.criterion = "top"
        self.n_features, self.n_samples = n, q
        self._gram_cache: dict[int, np.ndarray] = {}
        if not preprocess:
            self.mean = np.zeros(n)
            self.scale = np.ones(n)
            return
        # Each row divided by a power of two near its max |entry| first (exact), as
        # preprocess_rows does, so the zero-norm test reads the same numbers.
        top = _row_max_abs(S)
        p = np.ldexp(1.0, -np.frexp(np.where(top > 0, top, 1.0))[1])
        counts = np.diff(S.indptr)
        row_of = np.repeat(np.arange(n), counts)
        sums = np.bincount(row_of, weights=S.data, minlength=n) * p
        mean = sums / q  # of the scaled rows
        dev = S.data * p[row_of] - mean[row_of]
        # ‖s_i − m_i 1‖² from the stored entries plus the (q − nnz_i) implicit zeros.
        sq = np.bincount(row_of, weights=dev * dev, minlength=n) + (q - counts) * mean**2
        norms = np.sqrt(sq)
        refuse_zero_norm_rows(np.flatnonzero((top == 0) | (norms <= 1e-12)))
        # Back at S's scale: M_c = diag(scale) (S − mean 1ᵀ).
        self.mean = mean / p
        self.scale = p / norms

    # -- products with M_c -------------------------------------------------------------------
    def times(self, X: np.ndarray) -> np.ndarray:
        """``M_c X`` (n × b) for X of shape (q, b)."""
        return self.scale[:, None] * (self.S @ X - np.outer(self.mean, X.sum(axis=0)))

    def times_t(self, Y: np.ndarray) -> np.ndarray:
        """``M_cᵀ Y`` (q × b) for Y of shape (n, b)."""
        DY = self.scale[:, None] * Y
        return self.St @ DY - (self.mean @ DY)[None, :]

    # -- α-step ------------------------------------------------------------------------------
    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        """G for the current Q, matrix-free (``dense()`` forms it for small n)."""
        return SparseGramOperator(self, self.times(Q))

    # -- Q-step ------------------------------------------------------------------------------
    def affinity_times(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        """``A_α Q = M_cᵀ (α ∘ (M_c Q))``."""
        return self.times_t(alpha[:, None] * self.times(Q))

    def affinity(self, alpha: np.ndarray) -> np.ndarray:
        """``A_α = M_cᵀ diag(α) M_c`` (q × q), from ``SᵀWS`` and rank-one corrections."""
        w = alpha * self.scale**2
        wm = w * self.mean
        A = np.asarray((self.St @ (w[:, None] * self.S)).toarray()) if self.S.nnz else \
            np.zeros((self.n_samples, self.n_samples))
        c = self.St @ wm
        A -= c[:, None]
        A -= c[None, :]
        A += float(wm @ self.mean)
        return 0.5 * (A + A.T)

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
        """Q⁽⁰⁾: ``"pca"`` (leading right singular vectors of M_c) or ``"random"``."""
        if kind == "pca":
            return top_eigenvectors(self.affinity(np.ones(self.n_features)), k)[1]
        return orthonormalize(rng.standard_normal((self.n_samples, k)))


class SparseGramOperator(LinearOperator):
    """``G = (M_c M_cᵀ) ∘ (PPᵀ)`` with ``P = M_c Q`` (Sec. 3), through sparse products."""

    def __init__(self, model: SparseModel, P: np.ndarray):
        n = model.n_features
        super().__init__(dtype=np.float64, shape=(n, n))
        self.model = model
        self.P = P

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        return self._matmat(v.reshape(-1, 1)).ravel()

    def _matmat(self, V: np.ndarray) -> np.ndarray:
        n, k = self.P.shape
        b = V.shape[1]
        W = self.model.times_t((self.P[:, :, None] * V[:, None, :]).reshape(n, k * b))
        MW = self.model.times(W).reshape(n, k, b)
        return np.einsum("nkb,nk->nb", MW, self.P)

    def _adjoint(self) -> SparseGramOperator:
        return self

    def dense(self) -> np.ndarray:
        """G as an explicit n × n matrix (the engine asks for it only for small n)."""
        m = self.model
        key = id(m)
        C = m._gram_cache.get(key)
        if C is None:
            SSt = (m.S @ m.St).toarray() if m.S.nnz else np.zeros((m.n_features,) * 2)
            r = np.asarray(m.S.sum(axis=1)).ravel()
            C = SSt - np.outer(r, m.mean) - np.outer(m.mean, r) + m.n_samples * np.outer(
                m.mean, m.mean)
            C = m.scale[:, None] * C * m.scale[None, :]
            m._gram_cache[key] = C
        return C * (self.P @ self.P.T)
