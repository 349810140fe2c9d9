"""Numerical building blocks shared by the algorithms.

* :func:`leading_eigenvector` -- the α-step of every Q-α variant: the eigenvector of the
  largest (algebraic) eigenvalue of a symmetric matrix or matrix-free operator, with warm
  start and the sign fixed so that Σα > 0 (Wolf & Shashua 2005, Sec. 3).
* :func:`orthonormalize` -- the QR step of orthogonal iteration with a deterministic sign.
* :func:`kernel_gram_schmidt` -- R and R⁻¹ of ``Z = QR`` from the Gram matrix ``ZᵀZ`` alone,
  used when Z lives in a kernel feature space and cannot be formed (Def. 14).
* :func:`principal_generalized_eigvalsh` -- λ(A_S, B_S) of principal submatrices
  (Moghaddam et al. 2006, Thm. 1).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from scipy.sparse.linalg import ArpackNoConvergence, LinearOperator, eigsh, lobpcg

from .validation import as_generator

__all__ = [
    "EigenPair",
    "fix_sign",
    "kernel_gram_schmidt",
    "leading_eigenvector",
    "orthonormalize",
    "principal_generalized_eigvalsh",
    "top_eigenvectors",
    "weighted_gram",
]

#: Rows per block when a product would otherwise need a temporary as large as M.
ROW_BLOCK = 32768

#: Below this size a dense symmetric matrix is solved exactly by LAPACK rather than by Lanczos.
DENSE_EXACT_MAX = 300


@dataclass(frozen=True)
class EigenPair:
    """The leading eigenpair of a symmetric operator.

    Attributes
    ----------
    value : float
        The largest algebraic eigenvalue.
    vector : ndarray of shape (n,)
        Its unit eigenvector, signed so that ``vector.sum() > 0``.
    n_matvec : int
        Number of operator applications used (0 for a direct LAPACK solve).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import leading_eigenvector
    >>> pair = leading_eigenvector(np.diag([1.0, 3.0, 2.0]))
    >>> pair.value, pair.vector, pair.n_matvec
    (3.0, array([0., 1., 0.]), 0)
    """

    value: float
    vector: np.ndarray
    n_matvec: int


def fix_sign(v: np.ndarray) -> np.ndarray:
    """Return ``v`` or ``-v`` so that its entries sum to a positive number.

    An eigenvector is defined up to sign; Q-α fixes it so that Σα > 0 (Wolf & Shashua 2005,
    Sec. 3, where the weights of the relevant features come out positive). When the sum is zero
    to rounding (a vector with no preferred sign), the entry of largest magnitude is made
    positive instead, so the choice stays deterministic.

    Parameters
    ----------
    v : ndarray of shape (n,)
        The vector.

    Returns
    -------
    ndarray of shape (n,)
        ``v`` itself or ``-v`` (a new array).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import fix_sign
    >>> fix_sign(np.array([-0.6, -0.8]))
    array([0.6, 0.8])
    >>> fix_sign(np.array([1.0, -3.0, 2.0]))  # sums to 0: the largest entry becomes positive
    array([-1.,  3., -2.])
    """
    total = float(v.sum())
    if abs(total) > 1e-12 * float(np.abs(v).sum()):
        return v if total > 0 else -v
    return v if v[int(np.argmax(np.abs(v)))] >= 0 else -v


class CountingOperator(LinearOperator):
    """Wrap a LinearOperator and count its applications (matvecs; a matmat counts its columns)."""

    def __init__(self, op: LinearOperator):
        super().__init__(dtype=np.float64, shape=op.shape)
        self._op = op
        self.count = 0

    def _matvec(self, x: np.ndarray) -> np.ndarray:
        self.count += 1
        return self._op.matvec(x)

    def _matmat(self, X: np.ndarray) -> np.ndarray:
        self.count += X.shape[1]
        return self._op.matmat(X)


def leading_eigenvector(
    A: np.ndarray | LinearOperator,
    *,
    v0: np.ndarray | None = None,
    tol: float = 1e-12,
    maxiter: int | None = None,
    ncv: int | None = None,
    random_state: object = None,
) -> EigenPair:
    """Leading eigenpair of a symmetric matrix or matrix-free operator.

    This is the α-step of every Q-α variant (Wolf & Shashua 2005, Sec. 3, Eq. 7: α is the
    leading eigenvector of G).

    Parameters
    ----------
    A : ndarray of shape (n, n) or LinearOperator
        Symmetric. Indefinite operators are allowed (the supervised 𝒢 of Def. 6, the gap
        criterion, G − λB): "leading" means the largest *algebraic* eigenvalue.
    v0 : ndarray of shape (n,), optional
        Warm start, typically the previous α. Ignored by the direct dense solver.
    tol : float
        Relative residual tolerance passed to ARPACK (``‖Av − λv‖ ≤ tol·|λ|``).
    maxiter : int, optional
        Maximum number of ARPACK restarts.
    ncv : int, optional
        Number of Lanczos vectors; ARPACK's default when ``None``.
    random_state : None, int or Generator
        Seeds the start vector when ``v0`` is not given, so results are reproducible.

    Returns
    -------
    EigenPair
        Eigenvalue, unit eigenvector with ``Σ v > 0`` and the number of operator applications.

    Raises
    ------
    ValueError
        If ``A`` is not square.

    Notes
    -----
    Dense matrices up to :data:`DENSE_EXACT_MAX` rows are solved by LAPACK (``eigh`` with a
    one-index subset); larger ones and every ``LinearOperator`` use implicitly restarted
    Lanczos (ARPACK via :func:`scipy.sparse.linalg.eigsh`), warm-started from ``v0``.

    Examples
    --------
    The same eigenpair from the dense matrix and from a matrix-free operator:

    >>> import numpy as np
    >>> from scipy.sparse.linalg import aslinearoperator
    >>> from spectral_kit.linalg import leading_eigenvector
    >>> rng = np.random.default_rng(0)
    >>> B = rng.standard_normal((400, 400))
    >>> A = B + B.T
    >>> dense = leading_eigenvector(A)
    >>> free = leading_eigenvector(aslinearoperator(A), random_state=0)
    >>> bool(np.isclose(dense.value, np.linalg.eigvalsh(A)[-1]))
    True
    >>> bool(np.allclose(dense.vector, free.vector, atol=1e-8)), free.n_matvec > 0
    (True, True)
    """
    n = A.shape[0]
    if A.shape != (n, n):
        raise ValueError(f"A must be square; got shape {A.shape}.")
    if n == 1:
        value = float(A[0, 0]) if isinstance(A, np.ndarray) else float(A.matvec(np.ones(1))[0])
        return EigenPair(value, np.ones(1), 0)
    if isinstance(A, np.ndarray) and n <= DENSE_EXACT_MAX:
        w, V = scipy.linalg.eigh(A, subset_by_index=[n - 1, n - 1], check_finite=False)
        return EigenPair(float(w[0]), fix_sign(V[:, 0].copy()), 0)

    op = CountingOperator(A if isinstance(A, LinearOperator) else _dense_operator(A))
    if n <= 2:
        dense = op.matmat(np.eye(n))
        return leading_eigenvector(0.5 * (dense + dense.T))
    warm = v0 is not None and bool(np.any(v0))
    if warm and n > 50:
        pair = _warm_lobpcg(op, np.asarray(v0, dtype=np.float64), tol)
        if pair is not None:
            return pair
    if not warm:
        v0 = as_generator(random_state).standard_normal(n)
    try:
        w, V = eigsh(
            op, k=1, which="LA", v0=np.asarray(v0, dtype=np.float64), tol=tol,
            maxiter=maxiter, ncv=ncv,
        )
    except ArpackNoConvergence as exc:  # pragma: no cover - rare; keep best estimate
        if len(exc.eigenvalues) == 0:
            raise
        w, V = exc.eigenvalues, exc.eigenvectors
    v = V[:, -1]
    v = v / np.linalg.norm(v)
    return EigenPair(float(w[-1]), fix_sign(v), op.count)


def _warm_lobpcg(op: CountingOperator, v0: np.ndarray, tol: float) -> EigenPair | None:
    """LOBPCG from a warm start; ``None`` when it does not reach the requested residual.

    ARPACK always builds at least ``ncv`` (20) Lanczos vectors, however good the start.
    Between Q-α iterations α changes little, and LOBPCG started at the previous α needs only
    a few operator applications -- about 4× fewer in the α-step benchmarks.
    """
    x = v0 / np.linalg.norm(v0)
    scale = abs(float(x @ op.matvec(x))) or 1.0
    # The residual target is relative; keep it above rounding noise of the operator.
    target = max(tol, 1e-13) * scale
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        w, X, history = lobpcg(
            op, x[:, None].copy(), tol=target, maxiter=60, largest=True,
            retResidualNormsHistory=True,
        )
    if not history or float(np.ravel(history[-1])[0]) > 10 * target:
        return None
    v = X[:, 0] / np.linalg.norm(X[:, 0])
    return EigenPair(float(w[0]), fix_sign(v), op.count)


def _dense_operator(A: np.ndarray) -> LinearOperator:
    return LinearOperator(A.shape, matvec=A.dot, matmat=A.dot, dtype=np.float64)


def top_eigenvectors(S: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """The ``k`` largest eigenvalues (descending) and eigenvectors of a small symmetric matrix.

    Parameters
    ----------
    S : ndarray of shape (n, n)
        Symmetric matrix.
    k : int
        Number of eigenpairs, ``1 <= k <= n``.

    Returns
    -------
    values : ndarray of shape (k,)
        The ``k`` largest eigenvalues, in descending order.
    vectors : ndarray of shape (n, k)
        The matching orthonormal eigenvectors, as columns.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import top_eigenvectors
    >>> values, vectors = top_eigenvectors(np.diag([1.0, 4.0, 2.0]), 2)
    >>> values
    array([4., 2.])
    >>> np.abs(vectors)
    array([[0., 0.],
           [1., 0.],
           [0., 1.]])
    """
    n = S.shape[0]
    w, V = scipy.linalg.eigh(S, subset_by_index=[n - k, n - 1], check_finite=False)
    return w[::-1].copy(), V[:, ::-1].copy()


def orthonormalize(Z: np.ndarray) -> np.ndarray:
    """Orthonormal basis of the columns of ``Z`` by thin QR, with diag(R) ≥ 0.

    Fixing the sign of R makes the QR factorisation unique, so orthogonal iteration (the
    Q-step of Q-α, Wolf & Shashua 2005, Sec. 3) produces the same Q on every platform
    (Golub & Van Loan, Sec. 5.2).

    Parameters
    ----------
    Z : ndarray of shape (n, k)
        Columns to orthonormalise, ``k <= n``.

    Returns
    -------
    ndarray of shape (n, k)
        Q with orthonormal columns spanning those of ``Z`` and ``Qᵀ Z`` upper triangular with a
        non-negative diagonal.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import orthonormalize
    >>> Z = np.array([[3.0, 1.0], [4.0, 2.0], [0.0, 1.0]])
    >>> Q = orthonormalize(Z)
    >>> bool(np.allclose(Q.T @ Q, np.eye(2))), Q[:, 0]
    (True, array([0.6, 0.8, 0. ]))
    """
    Q, R = np.linalg.qr(Z)
    signs = np.sign(np.diag(R))
    signs[signs == 0] = 1.0
    return Q * signs


def kernel_gram_schmidt(ZtZ: np.ndarray, *, jitter: float = 0.0) -> tuple[np.ndarray, np.ndarray]:
    """R and R⁻¹ of the QR factorisation ``Z = QR`` computed from ``ZᵀZ`` only.

    For ``Z = QR`` with orthonormal Q, ``ZᵀZ = RᵀR``: R is the upper Cholesky factor of the
    Gram matrix (the kernel Gram–Schmidt of Wolf & Shashua 2003, used by kernel Q-α, Def. 14
    of Wolf & Shashua 2005). ``Q = Z R⁻¹`` is then orthonormal without ever forming Z.

    Parameters
    ----------
    ZtZ : ndarray of shape (k, k)
        Symmetric positive definite Gram matrix of the columns of Z.
    jitter : float
        Added to the diagonal, relative to its mean, when ZᵀZ is numerically singular.

    Returns
    -------
    R, R_inv : ndarray of shape (k, k)
        Upper triangular R with positive diagonal, and its inverse.

    Raises
    ------
    ValueError
        If ``ZᵀZ`` (plus jitter) is not positive definite: the columns of Z are dependent.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import kernel_gram_schmidt, orthonormalize
    >>> Z = np.random.default_rng(0).standard_normal((6, 3))
    >>> R, R_inv = kernel_gram_schmidt(Z.T @ Z)
    >>> bool(np.allclose(Z @ R_inv, orthonormalize(Z)))
    True
    """
    G = 0.5 * (ZtZ + ZtZ.T)
    if jitter:
        G = G + jitter * float(np.mean(np.diag(G))) * np.eye(G.shape[0])
    try:
        R = scipy.linalg.cholesky(G, lower=False, check_finite=False)
    except np.linalg.LinAlgError as exc:
        raise ValueError(
            "Z'Z is not positive definite: the columns of Z are linearly dependent. "
            "Use a smaller k or pass jitter > 0."
        ) from exc
    R_inv = scipy.linalg.solve_triangular(R, np.eye(R.shape[0]), lower=False)
    return R, R_inv


def principal_generalized_eigvalsh(
    A: np.ndarray, B: np.ndarray, support: np.ndarray
) -> np.ndarray:
    """Generalized eigenvalues of the principal pair ``(A_S, B_S)``, in ascending order.

    The eigenvalues of ``A_S v = λ B_S v`` for the rows and columns ``S`` of a symmetric A and
    a positive definite B: the quantity that sparse LDA and sparse PCA maximise over supports
    (Moghaddam et al. 2006, Thm. 1, where its inclusion principle bounds them).

    Parameters
    ----------
    A : ndarray of shape (n, n)
        Symmetric matrix.
    B : ndarray of shape (n, n)
        Symmetric positive definite matrix.
    support : array-like of int
        The indices ``S`` of the principal submatrices.

    Returns
    -------
    ndarray of shape (len(support),)
        The generalized eigenvalues, ascending.

    Raises
    ------
    numpy.linalg.LinAlgError
        If ``B_S`` is not positive definite.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import principal_generalized_eigvalsh
    >>> A = np.diag([4.0, 9.0, 1.0])
    >>> B = np.diag([2.0, 3.0, 1.0])
    >>> principal_generalized_eigvalsh(A, B, [0, 1])
    array([2., 3.])
    """
    idx = np.asarray(support, dtype=np.intp)
    sub = np.ix_(idx, idx)
    return scipy.linalg.eigh(A[sub], B[sub], eigvals_only=True, check_finite=False)


def weighted_gram(M: np.ndarray, w: np.ndarray) -> np.ndarray:
    """``Mᵀ diag(w) M`` (q × q), accumulated over blocks of :data:`ROW_BLOCK` rows.

    With features as rows and ``w = α²`` this is the weighted affinity ``A_α = Σᵢ αᵢ² mᵢ mᵢᵀ``
    of Q-α (Wolf & Shashua 2005, Eq. 3). Blocking keeps the temporary ``diag(w) M`` small, so
    the memory cost stays O(q²) beyond M itself even for 10⁶ rows.

    Parameters
    ----------
    M : ndarray of shape (n, q)
        Features as rows.
    w : ndarray of shape (n,)
        One weight per row.

    Returns
    -------
    ndarray of shape (q, q)
        The symmetric weighted Gram matrix.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.linalg import weighted_gram
    >>> M = np.random.default_rng(0).standard_normal((5, 3))
    >>> w = np.arange(5.0)
    >>> bool(np.allclose(weighted_gram(M, w), M.T @ np.diag(w) @ M))
    True
    """
    q = M.shape[1]
    out = np.zeros((q, q))
    for start in range(0, M.shape[0], ROW_BLOCK):
        block = M[start : start + ROW_BLOCK]
        out += (block * w[start : start + ROW_BLOCK, None]).T @ block
    return 0.5 * (out + out.T)
