"""Kernel Q-α (Wolf & Shashua 2005, Sec. 5.1, Def. 14 = Shashua & Wolf 2004, Def. 2).

The feature rows m_i are mapped to φ(m_i) in a space endowed with a kernel
``k(m_i, m_j) = φ(m_i)ᵀφ(m_j)``. Neither the mapped data Φ (rows φ(m_i)ᵀ), nor
``A_α = Φᵀ diag(α) Φ``, nor its eigenvectors can be formed; everything is written with the
n × n kernel matrix ``V = ΦΦᵀ`` and a coefficient matrix E with ``Q = ΦᵀE``:

* ``G = V ∘ (VE)(VE)ᵀ`` (``G_ij = k(m_i, m_j) v_iᵀEEᵀv_j``), a :class:`HadamardTerm` with an
  explicit C = V, so the α-step is the engine's usual one;
* ``Z = A_α Q = Φᵀ D_α V E`` cannot be formed but ``ZᵀZ = (VE)ᵀ D_α V D_α (VE)`` can, and
  kernel Gram–Schmidt gives R, R⁻¹ of ``Z = QR`` from it
  (:func:`~spectral_kit.linalg.kernel_gram_schmidt`).

The E-update. Since ``Q_new = Z R⁻¹ = Φᵀ (D_α V E R⁻¹)``, the coefficients of the new basis
are ``E ← D_α V E R⁻¹``. Both papers print step 5 as ``E ← E R⁻¹``, which keeps span(ΦᵀE)
fixed (it only re-orthonormalises the old basis), so Q would never move; the text above the
definition derives ``Q = Z R⁻¹ = Mᵀ D_α V E R⁻¹`` and we follow that derivation. The tests
check the result against Q-α run on an explicitly mapped data matrix.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import LinearOperator

from ..linalg import kernel_gram_schmidt
from ..preprocess import preprocess_rows
from ..validation import (
    as_generator,
    check_choice,
    check_finite_scalar,
    check_int,
    check_memory,
    check_symmetric,
)
from .engine import QAlphaResult, extend_result
from .models import top_by_magnitude
from .operators import HadamardGramOperator, HadamardTerm
from .standard import check_run_options, run_model

__all__ = [
    "KERNELS",
    "KernelModel",
    "KernelQAlphaResult",
    "kernel_matrix",
    "kernel_q_alpha",
    "linear_kernel",
    "polynomial_kernel",
    "rbf_kernel",
    "sectioned_polynomial_kernel",
]

KERNELS = ("linear", "polynomial", "rbf", "sections")

#: Eigenvalues of V below this fraction of the largest are treated as zero (rank of V).
RANK_RTOL = 1e-10


# -- kernels on feature rows ---------------------------------------------------------------
def linear_kernel(M: np.ndarray) -> np.ndarray:
    """``V = MMᵀ``: φ is the identity and kernel Q-α is standard Q-α."""
    V = M @ M.T
    return 0.5 * (V + V.T)


def polynomial_kernel(M: np.ndarray, *, degree: int = 2, coef0: float = 1.0) -> np.ndarray:
    """``V_ij = (m_iᵀm_j + c)^d`` (Wolf & Shashua 2005, Sec. 5)."""
    return (linear_kernel(M) + coef0) ** degree


def rbf_kernel(M: np.ndarray, *, sigma: float = 1.0) -> np.ndarray:
    """``V_ij = exp(−‖m_i − m_j‖² / (2σ²))`` (Sec. 5)."""
    sq = np.einsum("ij,ij->i", M, M)
    dist = np.maximum(sq[:, None] + sq[None, :] - 2.0 * linear_kernel(M), 0.0)
    return np.exp(-dist / (2.0 * sigma**2))


def sectioned_polynomial_kernel(
    M: np.ndarray, *, section: int = 8, degree: int = 2
) -> np.ndarray:
    """``V_ij = Σ_s (m_iˢᵀ m_jˢ)^d`` over sections of ``section`` consecutive samples.

    The kernel of the hidden-session experiment (Wolf & Shashua 2005, Sec. 6, "Kernel Q-α
    experiments"), with d = 2 and sections of 8 entries: within a session the hidden sign of a
    feature is constant, so every term is blind to it. A last, shorter section takes the
    remaining entries when q is not a multiple of ``section``.
    """
    V = np.zeros((M.shape[0], M.shape[0]))
    for s in range(0, M.shape[1], section):
        V += linear_kernel(M[:, s : s + section]) ** degree
    return V


def kernel_matrix(
    M: np.ndarray,
    kernel: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "linear",
    *,
    degree: int = 2,
    coef0: float = 1.0,
    sigma: float = 1.0,
    section: int = 8,
) -> np.ndarray:
    """The n × n kernel matrix ``V_ij = k(m_i, m_j)`` of the feature rows of M.

    Parameters
    ----------
    M : ndarray of shape (n_features, n_samples)
        Feature rows (the papers' M).
    kernel : {"linear", "polynomial", "rbf", "sections"} or callable
        A callable is called as ``kernel(M, M)`` and must return a symmetric n × n matrix
        (the convention of :mod:`sklearn.metrics.pairwise` kernels, so those can be passed).
    degree, coef0 : polynomial and sectioned-polynomial parameters (d, c).
    sigma : RBF width σ.
    section : length of the sections of the "sections" kernel (the paper: 8).
    """
    if callable(kernel):
        V = np.asarray(kernel(M, M), dtype=np.float64)
        n = M.shape[0]
        if V.shape != (n, n):
            raise ValueError(
                f"kernel(M, M) must return an array of shape ({n}, {n}) for M with {n} "
                f"feature rows; got shape {V.shape}."
            )
        if not np.isfinite(V).all():
            raise ValueError("kernel(M, M) returned NaN or infinite values.")
        check_symmetric(V, "kernel(M, M)")
        return 0.5 * (V + V.T)
    kernel = check_choice(kernel, "kernel", KERNELS)
    if kernel == "linear":
        return linear_kernel(M)
    if kernel == "polynomial":
        return polynomial_kernel(M, degree=degree, coef0=coef0)
    if kernel == "rbf":
        return rbf_kernel(M, sigma=sigma)
    return sectioned_polynomial_kernel(M, section=section, degree=degree)


# -- the model ------------------------------------------------------------------------------
class KernelModel:
    """Def. 14 as a Q-α model: the engine's "Q" is the coefficient matrix E (n × k).

    Parameters
    ----------
    V : ndarray of shape (n, n)
        Symmetric positive semi-definite kernel matrix of the feature rows.
    """

    def __init__(self, V: np.ndarray):
        self.V = V
        self.n_features = V.shape[0]
        self._spectrum: tuple[np.ndarray, np.ndarray] | None = None

    def spectrum(self) -> tuple[np.ndarray, np.ndarray]:
        """Positive eigenpairs ``V = U S Uᵀ`` (descending), cached.

        ``Ψ = U S^{1/2}`` is an explicit n × r representation of Φ up to an orthogonal map of
        the feature space; it is used for the starting basis and the basic Q-step only.
        """
        if self._spectrum is None:
            s, U = scipy.linalg.eigh(self.V, check_finite=False)
            s, U = s[::-1], U[:, ::-1]
            if s[-1] < -1e-8 * max(s[0], 1e-300):
                raise ValueError(
                    f"the kernel matrix is not positive semi-definite (smallest eigenvalue "
                    f"{s[-1]:.3g}, largest {s[0]:.3g}); use a positive definite kernel."
                )
            keep = s > RANK_RTOL * max(s[0], 1e-300)
            self._spectrum = (s[keep], U[:, keep])
        return self._spectrum

    @property
    def rank(self) -> int:
        """Numerical rank of V: the dimension of span{φ(m_i)}."""
        return int(self.spectrum()[0].size)

    # -- α-step ------------------------------------------------------------------------------
    def alpha_operator(self, E: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        """``G = V ∘ (VE)(VE)ᵀ`` (Def. 14, step 1)."""
        return HadamardGramOperator([HadamardTerm(self.V @ E, 1.0, C=self.V)])

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        return u

    # -- Q-step ------------------------------------------------------------------------------
    def z_gram(self, alpha: np.ndarray, E: np.ndarray) -> np.ndarray:
        """``ZᵀZ`` for ``Z = A_α ΦᵀE = Φᵀ D_α V E`` (Def. 14, step 3), a k × k matrix."""
        DP = alpha[:, None] * (self.V @ E)
        return DP.T @ (self.V @ DP)

    def power_step(self, alpha: np.ndarray, E: np.ndarray) -> np.ndarray:
        """Kernel orthogonal iteration: R from ZᵀZ, then ``E ← D_α V E R⁻¹`` (steps 3–5)."""
        _R, R_inv = kernel_gram_schmidt(self.z_gram(alpha, E))
        return (alpha[:, None] * (self.V @ E)) @ R_inv

    def eigen_step(self, alpha: np.ndarray, E: np.ndarray) -> np.ndarray:
        """E of the k eigenvectors of A_α with largest |λ| (the basic scheme).

        With ``Φ = Ψ Wᵀ`` (``Ψ = U S^{1/2}``, W orthonormal), ``A_α = W (Ψᵀ D_α Ψ) Wᵀ``; its
        eigenvectors are ``W y`` and ``E = U S^{-1/2} y`` represents them (``ΦᵀE = W y``).
        """
        s, U = self.spectrum()
        Psi = U * np.sqrt(s)
        _w, Y = top_by_magnitude(Psi.T @ (alpha[:, None] * Psi), E.shape[1])
        return (U / np.sqrt(s)) @ Y

    def rayleigh_ritz(self, alpha: np.ndarray, E: np.ndarray) -> np.ndarray:
        """Rotate E to the Ritz vectors of A_α in span(ΦᵀE): ``QᵀA_αQ = (VE)ᵀ D_α (VE)``."""
        P = self.V @ E
        S = P.T @ (alpha[:, None] * P)
        return E @ top_by_magnitude(0.5 * (S + S.T), E.shape[1])[1]

    # -- objective ---------------------------------------------------------------------------
    def objective(self, alpha: np.ndarray, E: np.ndarray) -> float:
        """``trace(QᵀA_αᵀA_αQ) = trace(ZᵀZ)``."""
        return float(np.trace(self.z_gram(alpha, E)))

    def initial_alpha(self) -> np.ndarray:
        return np.full(self.n_features, 1.0 / np.sqrt(self.n_features))

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
        """E⁽⁰⁾ with ``E⁽⁰⁾ᵀ V E⁽⁰⁾ = I`` (ΦᵀE⁽⁰⁾ orthonormal).

        ``"pca"``: kernel PCA of the uniform weights, ``E = U_k S_k^{-1/2}`` -- the same Q⁽⁰⁾
        as standard Q-α's "pca" start when the kernel is linear. ``"random"``: a Gaussian E
        made orthonormal in feature space by kernel Gram–Schmidt.
        """
        s, U = self.spectrum()
        if k > s.size:
            raise ValueError(
                f"k={k} exceeds the rank {s.size} of the kernel matrix (the dimension spanned "
                f"by the mapped features); use k ≤ {s.size}."
            )
        if kind == "pca":
            return U[:, :k] / np.sqrt(s[:k])
        E = rng.standard_normal((self.n_features, k))
        _R, R_inv = kernel_gram_schmidt(E.T @ self.V @ E)
        return E @ R_inv


@dataclass(frozen=True)
class KernelQAlphaResult(QAlphaResult):
    """:class:`~spectral_kit.qalpha.engine.QAlphaResult` of kernel Q-α.

    ``Q`` cannot be formed in feature space; the ``Q`` field holds the coefficient matrix E
    (n_features × k) with ``Q = ΦᵀE``, also available as ``E``.

    Additional attributes
    ---------------------
    V : ndarray of shape (n_features, n_features)
        The kernel matrix the run used.
    kernel : str
        Name of the kernel ("callable" for a user function).
    """

    V: np.ndarray | None = None
    kernel: str = "linear"

    @property
    def E(self) -> np.ndarray:
        """Coefficients of the feature-space basis, ``Q = ΦᵀE``."""
        return self.Q

    def G(self) -> np.ndarray:
        """The design matrix ``G = V ∘ (VE)(VE)ᵀ`` of the final iteration."""
        P = self.V @ self.Q
        return self.V * (P @ P.T)


def kernel_q_alpha(
    M: object,
    k: int,
    kernel: str | Callable[[np.ndarray, np.ndarray], np.ndarray] = "linear",
    *,
    degree: int = 2,
    coef0: float = 1.0,
    sigma: float = 1.0,
    section: int = 8,
    method: str = "power",
    init: str = "pca",
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    preprocess: bool = True,
    random_state: object = None,
) -> KernelQAlphaResult:
    """Kernel Q-α (Wolf & Shashua 2005, Def. 14; Shashua & Wolf 2004, Def. 2).

    Maximises ``trace(QᵀA_αᵀA_αQ)`` with ``A_α = Σ α_i φ(m_i)φ(m_i)ᵀ`` using the kernel
    matrix only: G, R and R⁻¹ come from V and E, never from the mapped data.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with **features as rows**; the kernel is applied to the rows (after
        preprocessing, see ``preprocess``).
    k : int
        Number of leading eigenvectors (clusters), at most the rank of the kernel matrix.
    kernel : {"linear", "polynomial", "rbf", "sections"} or callable
        ``"linear"``: ``m_iᵀm_j`` (standard Q-α); ``"polynomial"``: ``(m_iᵀm_j + coef0)^degree``;
        ``"rbf"``: ``exp(−‖m_i − m_j‖²/(2 sigma²))``; ``"sections"``: the paper's sum of
        ``(m_iˢᵀm_jˢ)^degree`` over sections of ``section`` consecutive entries; a callable
        ``kernel(M, M)`` returning the n × n kernel matrix.
    degree, coef0, sigma, section
        Kernel parameters (defaults: d = 2, c = 1, σ = 1, sections of 8).
    method : {"power", "basic", "ritz", "auto"}
        ``"power"`` (default) is Def. 14: kernel orthogonal iteration with R from ZᵀZ.
        ``"basic"`` takes the k leading eigenvectors of A_α in the span of the mapped rows
        (an r × r eigenproblem, r = rank V); ``"ritz"`` adds a Rayleigh–Ritz rotation.
        ``"auto"`` means "power".
    init : {"pca", "random"}
        E⁽⁰⁾: kernel PCA of the unweighted rows (default) or a random basis.
    n_init, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha`.
    preprocess : bool
        Centre the rows of M and scale them to unit norm before applying the kernel, as
        standard Q-α does; with the linear kernel the two then coincide.

    Returns
    -------
    KernelQAlphaResult
        ``alpha``, the objective history, ``V``, and ``E`` (stored in ``Q``).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import kernel_q_alpha, q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> data = make_multiclass_clusters(3, random_state=0)
    >>> a = kernel_q_alpha(data.M, 3, kernel="linear").alpha
    >>> b = q_alpha(data.M, 3, method="power").alpha
    >>> bool(abs(a @ b) > 0.9999)
    True
    """
    method, init, n_init, max_iter, tol, solver = check_run_options(
        method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver,
    )
    degree = check_int(degree, "degree", low=1)
    coef0 = check_finite_scalar(coef0, "coef0", low=0.0)
    sigma = check_finite_scalar(sigma, "sigma", low=0.0, low_inclusive=False)
    section = check_int(section, "section", low=1)
    if not callable(kernel):
        check_choice(kernel, "kernel", KERNELS)
    Mp = preprocess_rows(M) if preprocess else preprocess_rows(M, center=False, normalize=False)
    n = Mp.shape[0]
    if n < 2:
        raise ValueError(f"M must have at least 2 feature rows; got shape {Mp.shape}.")
    k = check_int(k, "k", low=1, high=n - 1,
                  hint=f"k must be smaller than the number of features n={n}.")
    check_memory(3 * 8.0 * n * n, f"the {n} × {n} kernel matrix V of M's {n} features",
                 hint="Kernel Q-α needs V; select fewer features of M first.")
    V = kernel_matrix(Mp, kernel, degree=degree, coef0=coef0, sigma=sigma, section=section)
    model = KernelModel(V)
    result = run_model(
        model, k, method="power" if method == "auto" else method, init=init, n_init=n_init,
        max_iter=max_iter, tol=tol, solver=solver, rng=as_generator(random_state),
        spectrum="standard", criterion="top",
    )
    name = "callable" if callable(kernel) else kernel
    return extend_result(result, KernelQAlphaResult, V=V, kernel=name)
