"""The matrix pair (A, B) of sparse LDA: validation, structure and within-class regularization.

Moghaddam, Weiss & Avidan (2006), Sec. 2: A is the between-class and B the within-class
covariance, both symmetric, B positive definite. Sec. 3.2: "all rank-deficient within-class
covariance matrices B were automatically regularized: B ← B + αI with α set smaller than
λ_min(B) by O(10³)". Here that α is called ε and is always explicit: every algorithm takes a
``regularization`` argument and reports the ε it used.

Two-class LDA has a rank-one A = d dᵀ (d ∝ the difference of the class means); then
λ_max(A_S, B_S) = d_Sᵀ B_S⁻¹ d_S (Sec. 4) and the algorithms use Cholesky up/down-dates
instead of eigen-solves. The structure is detected automatically, or A can be given as the
vector d itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np
import scipy.linalg

from ..validation import check_array, check_finite_scalar, check_int, check_symmetric

__all__ = [
    "AUTO_FACTOR",
    "AUTO_FLOOR_MARGIN",
    "MatrixPair",
    "auto_epsilon",
    "check_k",
    "check_pair",
    "rank_one_factor",
    "regularize",
    "resolve_epsilon",
]

#: ε = AUTO_FACTOR · (smallest positive eigenvalue of B) for ``regularization="auto"``:
#: "α set smaller than λ_min(B) by O(10³)" (Sec. 3.2).
AUTO_FACTOR = 1e-3

#: Relative size of ``A − d dᵀ`` below which A is treated as rank one.
RANK_ONE_RTOL = 1e-10


@dataclass(frozen=True)
class MatrixPair:
    """A validated pair (A, B) with B positive definite (after regularization).

    Attributes
    ----------
    A : ndarray of shape (n, n)
        Symmetric between-class matrix (a new array; the caller's is never modified).
    B : ndarray of shape (n, n)
        Symmetric positive definite within-class matrix, ``B_input + epsilon·I``.
    d : ndarray of shape (n,) or None
        When A = d dᵀ (rank one, positive semidefinite), the factor d; otherwise None.
    epsilon : float
        The regularization ε added to the diagonal of B (0 when none was needed or asked).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> pair = sl.check_pair(np.diag([2.0, 1.0]), np.eye(2))
    >>> pair.n, pair.rank_one
    (2, False)
    """

    A: np.ndarray
    B: np.ndarray
    d: np.ndarray | None
    epsilon: float

    @property
    def n(self) -> int:
        """Number of features (variables)."""
        return self.B.shape[0]

    @property
    def rank_one(self) -> bool:
        """Whether A = d dᵀ, so that λ_max(A_S, B_S) = d_Sᵀ B_S⁻¹ d_S."""
        return self.d is not None


def rank_one_factor(A: np.ndarray, *, rtol: float = RANK_ONE_RTOL) -> np.ndarray | None:
    """The vector d with A = d dᵀ, or None when A is not (numerically) rank one and PSD.

    The column of A with the largest diagonal entry, divided by the square root of that entry,
    is d up to sign when A = d dᵀ; one comparison ``‖A − d dᵀ‖_max ≤ rtol·‖A‖_max`` confirms it.

    Parameters
    ----------
    A : array-like of shape (n, n)
        Symmetric matrix.
    rtol : float
        Relative tolerance of the rank-one test, against ``max|A|``.

    Returns
    -------
    ndarray of shape (n,) or None
        d (a copy) with A = d dᵀ within ``rtol``, or None.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> d = np.array([1.0, -2.0, 2.0])
    >>> np.abs(sl.rank_one_factor(np.outer(d, d))).tolist()
    [1.0, 2.0, 2.0]
    >>> sl.rank_one_factor(np.eye(3)) is None
    True
    """
    A = check_array(A, "A")
    if A.shape[0] != A.shape[1]:
        raise ValueError(f"A must be a square matrix; got shape {A.shape}.")
    rtol = check_finite_scalar(rtol, "rtol", low=0.0)
    diag = np.diag(A)
    j = int(np.argmax(diag))
    if diag[j] <= 0.0:
        return None
    d = A[:, j] / np.sqrt(diag[j])
    scale = float(np.abs(A).max())
    if float(np.abs(A - np.outer(d, d)).max()) <= rtol * scale:
        return d.copy()
    return None


#: ``regularization="auto"`` gives at least this multiple of the rounding floor of
#: :func:`_is_numerically_pd`, so that ``B + εI`` always passes the kit's own check.
AUTO_FLOOR_MARGIN = 100.0


def _pd_floor(B: np.ndarray) -> float:
    """Smallest Cholesky pivot that is not rounding noise: ``10·n·eps·max(diag B)``."""
    n = B.shape[0]
    return 10 * n * np.finfo(float).eps * max(float(np.max(np.diag(B))), np.finfo(float).tiny)


def _is_numerically_pd(B: np.ndarray) -> tuple[bool, np.ndarray | None]:
    """Cholesky succeeds and no pivot is at rounding level relative to B's diagonal."""
    try:
        L = scipy.linalg.cholesky(B, lower=True, check_finite=False)
    except (np.linalg.LinAlgError, ValueError):
        return False, None
    pivots = np.diag(L) ** 2
    return bool(np.isfinite(pivots).all() and pivots.min() > _pd_floor(B)), L


def _pd_once_equilibrated(B: np.ndarray) -> bool:
    """Whether ``D B D`` with ``D = diag(B)^(-1/2)`` passes :func:`_is_numerically_pd`: a B
    that is positive definite but fails the check only because its features' scales are
    far apart."""
    diag = np.diag(B)
    if not np.all(diag > 0):
        return False
    D = 1.0 / np.sqrt(diag)
    return _is_numerically_pd(B * np.outer(D, D))[0]


def auto_epsilon(B: Any, *, A: Any = None) -> float:
    """The regularization ε of Sec. 3.2 for a within-class matrix B.

    0 when B is numerically positive definite; otherwise ``AUTO_FACTOR`` times the smallest
    eigenvalue of B above the rounding threshold ``n·eps·λ_max(B)`` (the paper's "α smaller than
    λ_min(B) by O(10³)", where λ_min is read as the smallest *non-zero* eigenvalue, since a
    rank-deficient B has λ_min = 0). When B has no such eigenvalue (B = 0: every feature is
    constant within each class), ε = AUTO_FACTOR · mean(diag(A)), or AUTO_FACTOR if that is 0.

    Whatever the rule gives, ε is raised where needed to at least
    :data:`AUTO_FLOOR_MARGIN` times the rounding floor ``10·n·eps·max(diag B)`` of the kit's
    positive-definiteness check (plus any rounding-level negative eigenvalue of B), and
    further by factors of 10 until ``B + εI`` passes that check. So ``"auto"`` always yields
    a pair the algorithms accept -- for zero-variance features and for B of any condition
    number -- at the price, in those extreme cases, of an ε above the paper's
    ``10⁻³ λ_min``. The result depends on B only through its scale-free shape: ε scales
    with B.

    Parameters
    ----------
    B : array-like of shape (n, n)
        Symmetric positive semidefinite within-class covariance.
    A : array-like of shape (n, n), optional
        Between-class matrix, only used for the scale of the degenerate case B = 0.

    Returns
    -------
    float
        ε ≥ 0 (0 when B is numerically positive definite).

    Raises
    ------
    ValueError
        If B has a clearly negative eigenvalue (it is not a covariance matrix).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> sl.auto_epsilon(np.eye(3))
    0.0
    >>> sl.auto_epsilon(np.diag([1.0, 1.0, 0.0])) > 0
    True
    """
    B = check_array(B, "B")
    check_symmetric(B, "B")
    n = B.shape[0]
    if A is not None:
        A = check_array(A, "A", ndim=1 if np.ndim(A) == 1 else 2)
        if A.shape not in ((n,), (n, n)):
            raise ValueError(
                f"A must be the vector d of A = d dᵀ (length {n}) or an {n} × {n} matrix like "
                f"B; got shape {A.shape}."
            )
    B = 0.5 * B + 0.5 * B.T
    pd, _ = _is_numerically_pd(B)
    if pd:
        return 0.0
    w = scipy.linalg.eigvalsh(B, check_finite=False)
    tol = n * np.finfo(float).eps * max(float(np.abs(w).max()), np.finfo(float).tiny)
    if w[0] < -1e3 * tol:
        raise ValueError(
            f"B has a negative eigenvalue ({w[0]:.3g}); a within-class covariance is positive "
            "semidefinite. Check how B was computed."
        )
    positive = w[w > tol]
    if positive.size:
        eps = float(AUTO_FACTOR * positive.min())
    else:
        scale = 0.0
        if A is not None:
            diag = A * A if A.ndim == 1 else np.diag(A)
            scale = float(np.mean(diag))
        eps = float(AUTO_FACTOR * (scale if scale > 0 else 1.0))
    eps = max(eps, AUTO_FLOOR_MARGIN * _pd_floor(B) + max(0.0, -float(w[0])))
    shifted = B.copy()
    diagonal = np.diag_indices_from(shifted)
    for _ in range(40):
        shifted[diagonal] = np.diag(B) + eps
        if _is_numerically_pd(shifted)[0]:
            return eps
        eps *= 10.0
    raise ValueError(  # pragma: no cover - ε is by then far above every eigenvalue of B
        "regularization='auto' found no ε that makes B positive definite; check B."
    )


def resolve_epsilon(regularization: Any, B: np.ndarray, A: np.ndarray | None = None) -> float:
    """The ε that ``regularization`` (None, a float ε ≥ 0 or "auto") means for this B."""
    if regularization is None:
        return 0.0
    if isinstance(regularization, str):
        if regularization != "auto":
            raise ValueError(
                f"regularization must be None, a float ε ≥ 0 or 'auto'; got {regularization!r}."
            )
        return auto_epsilon(B, A=A)
    return check_finite_scalar(
        regularization, "regularization", low=0.0,
        hint="Use a small positive ε (B ← B + εI), 0/None for none, or 'auto'.",
    )


def regularize(B: Any, regularization: Any = "auto", *, A: Any = None) -> tuple[np.ndarray, float]:
    """``(B + εI, ε)``: the within-class regularization of Sec. 3.2, explicit.

    Parameters
    ----------
    B : array-like of shape (n, n)
        Symmetric within-class covariance. Not modified.
    regularization : None, float or "auto"
        None or 0: no change; a float ε ≥ 0: add εI; ``"auto"``: ε from :func:`auto_epsilon`
        (0 when B is already positive definite).
    A : array-like, optional
        Between-class matrix, used only by ``"auto"`` when B = 0.

    Returns
    -------
    B_reg : ndarray of shape (n, n)
        A new symmetric array.
    epsilon : float

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> B, eps = sl.regularize(np.diag([1.0, 0.0]), 0.5)
    >>> B.tolist(), eps
    ([[1.5, 0.0], [0.0, 0.5]], 0.5)
    """
    B_arr = check_array(B, "B")
    check_symmetric(B_arr, "B")
    eps = resolve_epsilon(regularization, B_arr, A)
    out = 0.5 * (B_arr + B_arr.T)
    if eps:
        out[np.diag_indices_from(out)] += eps
    return out, eps


def check_k(k: Any, n: int, name: str = "k") -> int:
    """Cardinality k of a sparse solution: an integer in [1, n]."""
    return check_int(
        k, name, low=1, high=n,
        hint=f"The cardinality must be between 1 and the number of features n={n}.",
    )


def check_pair(A: Any, B: Any, regularization: Any = None) -> MatrixPair:
    """Validate (A, B) and return a :class:`MatrixPair` with B positive definite.

    Parameters
    ----------
    A : array-like of shape (n, n) or (n,)
        Symmetric between-class matrix, or a vector d standing for the rank-one A = d dᵀ.
    B : array-like of shape (n, n)
        Symmetric within-class matrix.
    regularization : None, float or "auto"
        See :func:`regularize`. Without it, B must be positive definite.

    Returns
    -------
    MatrixPair
        Symmetrized copies of A and B (B regularized if asked), d for a rank-one A, and ε.

    Raises
    ------
    ValueError
        On non-square, non-symmetric or mismatched matrices, NaN/inf, or a B that is not
        positive definite when no regularization was asked for.
    TypeError
        On non-numeric input.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> pair = sl.check_pair(np.array([1.0, 2.0]), np.eye(2))
    >>> pair.n, pair.rank_one, pair.epsilon
    (2, True, 0.0)
    """
    A_arr = np.asarray(A) if not hasattr(A, "toarray") else A
    if isinstance(A_arr, np.ndarray) and A_arr.ndim == 1:
        d = check_array(A_arr, "A", ndim=1, rows_label="entries").copy()
        A_full = np.outer(d, d)
    else:
        A_full = check_array(A, "A")
        check_symmetric(A_full, "A")
        A_full = 0.5 * (A_full + A_full.T)
        d = None
    B_arr = check_array(B, "B")
    check_symmetric(B_arr, "B")
    if A_full.shape != B_arr.shape:
        raise ValueError(
            f"A has shape {A_full.shape} but B has shape {B_arr.shape}; A and B must be "
            "n × n matrices over the same n features."
        )
    B_reg, eps = regularize(B_arr, regularization, A=A_full)
    pd, _ = _is_numerically_pd(B_reg)
    if not pd:
        try:
            lam_min = float(scipy.linalg.eigvalsh(B_reg, subset_by_index=[0, 0])[0])
        except (np.linalg.LinAlgError, ValueError):  # pragma: no cover - defensive
            lam_min = float("nan")
        if eps == 0 and _pd_once_equilibrated(B_reg):
            spread = float(np.max(np.diag(B_reg)) / np.min(np.diag(B_reg)))
            raise ValueError(
                f"B is positive definite, but its features' scales are too far apart for the "
                f"kit's numerics (the diagonal of B spans a factor of {spread:.2g}). Put the "
                "features on comparable scales first: divide each column of the data by its "
                "within-class standard deviation, or for a pair, with D = diag(B)^(-1/2), pass "
                "D A D and D B D (for a vector A = d, pass D d). The generalized eigenvalues "
                "of every subset, and so the best subsets, are unchanged; a loading vector w "
                "of the scaled pair is D w in the original units."
            )
        if regularization is None or (not isinstance(regularization, str) and eps == 0):
            advice = ("A rank-deficient within-class covariance needs regularization "
                      "B ← B + εI: pass regularization='auto' (ε = 10⁻³ × the smallest "
                      "non-zero eigenvalue of B, Moghaddam et al. 2006, Sec. 3.2) or a float "
                      "ε > 0.")
        else:
            advice = (f"ε={eps:g} is too small for this B: pass a larger float ε, or "
                      "regularization='auto', which chooses one that passes this check.")
        raise ValueError(
            f"B is not positive definite (smallest eigenvalue {lam_min:.3g}"
            + (f" after adding ε={eps:g}" if eps else "") + "). " + advice
        )
    if d is None:
        d = rank_one_factor(A_full)
    return MatrixPair(A_full, B_reg, d, eps)
