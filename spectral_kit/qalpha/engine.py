"""The alternating Q-α engine shared by every variant.

One loop (:func:`alternate`) interleaves an α-step -- the leading eigenvector of the model's
operator for the current Q -- with a Q-step:

* ``"basic"``: Q = the k leading eigenvectors of A_α (the basic scheme of Sec. 3);
* ``"power"``: one orthogonal-iteration step ``Q ← qr(A_α Q)`` (Def. 2, power-embedded);
* ``"ritz"``: the orthogonal-iteration step followed by a second α-step on the new basis and
  a Rayleigh–Ritz rotation (Def. 4).

Because G depends on Q only through QQᵀ, step 1 of a Ritz iteration equals step 5 of the
previous one; the engine reuses it, so a Ritz iteration costs one α-step, like a power one.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Protocol

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..linalg import fix_sign, leading_eigenvector
from ..validation import check_memory, scale_exponent, unscale

__all__ = [
    "AlphaSolver",
    "QAlphaResult",
    "alternate",
    "check_warm_start",
    "choose_solver",
    "extend_result",
    "scale_back",
    "scaled_down",
]

#: Largest number of features for which ``solver="auto"`` forms G explicitly.
DENSE_MAX_FEATURES = 500
#: Relative residual of the α-step that produces the returned α.
FINAL_TOL = 1e-12
#: Loosest relative residual allowed for intermediate α-steps.
INNER_TOL_MAX = 1e-4


class QAlphaModel(Protocol):  # pragma: no cover - structural type only
    n_features: int

    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator: ...
    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray: ...
    def power_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray: ...
    def eigen_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray: ...
    def rayleigh_ritz(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray: ...
    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float: ...
    def initial_alpha(self) -> np.ndarray: ...
    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray: ...


@dataclass(frozen=True)
class QAlphaResult:
    """Outcome of a Q-α run.

    Attributes
    ----------
    alpha : ndarray of shape (n_features,)
        The weight vector α, unit norm, signed so that Σα > 0.
    Q : ndarray of shape (n_samples, k)
        Orthonormal basis of the leading eigenvectors of A_α (or the model's equivalent).
    objective : ndarray of shape (n_iter,)
        ``trace(QᵀA_αᵀA_αQ)`` (or the chosen criterion) after every iteration. Prop. 3 makes
        it non-decreasing for the power-embedded and basic schemes with the standard spectrum
        and ``criterion="top"`` (up to the accuracy of the intermediate α-steps, which are
        solved only as accurately as α still moves). No such guarantee holds for the
        Laplacian spectrum on uncentred rows (``preprocess=False``), where the objective can
        fall by most of its value between iterations, nor for ``criterion="gap"``, whose G
        is indefinite.
    n_iter : int
        Number of iterations performed.
    converged : bool
        Whether the stopping rule was met before ``max_iter``.
    eigenvalue : float
        The leading eigenvalue of the last α-step's operator (``αᵀGα`` for standard Q-α).
    alpha_change : ndarray of shape (n_iter,)
        ``1 − |cos(α_r, α_{r−1})|`` per iteration, the quantity the stopping rule watches.
    method, spectrum, criterion, solver, init : str
        How the run was configured (solver is ``"dense"`` or ``"matrix-free"``).
    n_matvec : int
        Operator applications used by the α-steps (0 when every step was a dense LAPACK
        solve).
    extra : dict
        What a variant adds to the common result (empty for plain Q-α). Supervised Q-α stores
        ``"classes"``, ``"reading"`` and, when run, ``"within_class_test"`` here.
    array_type : str
        What ``alpha`` and ``Q`` are: ``"numpy"``; ``"dask"`` (α a Dask array chunked like M's
        rows, Q a NumPy array); or an array-API namespace such as ``"torch"`` or ``"cupy"``
        (both on M's device). See :mod:`spectral_kit.backends`.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import q_alpha
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> data = make_multiclass_clusters(random_state=0)  # 5 relevant features of 125
    >>> result = q_alpha(data.M, k=3, random_state=0)
    >>> result.converged, result.Q.shape
    (True, (60, 3))
    >>> bool(np.all(np.diff(result.objective) >= -1e-9))  # Prop. 3: non-decreasing
    True
    >>> sorted(result.top_features(5).tolist()) == np.flatnonzero(data.relevant).tolist()
    True
    """

    alpha: np.ndarray
    Q: np.ndarray
    objective: np.ndarray
    n_iter: int
    converged: bool
    eigenvalue: float
    alpha_change: np.ndarray
    method: str
    spectrum: str = "standard"
    criterion: str = "top"
    solver: str = "dense"
    init: str = "random"
    n_matvec: int = 0
    extra: dict = field(default_factory=dict, repr=False)
    array_type: str = "numpy"

    @property
    def ranking(self) -> np.ndarray:
        """Feature indices sorted by decreasing α."""
        if self.array_type != "numpy":
            from ..backends.results import top_indices

            return top_indices(self.alpha)
        return np.argsort(-self.alpha, kind="stable")

    def top_features(self, n_select: int) -> np.ndarray:
        """Indices of the ``n_select`` features with the largest α, in decreasing order."""
        if self.array_type != "numpy":  # NumPy indices without sorting all of α locally
            from ..backends.results import top_indices

            return top_indices(self.alpha, n_select)
        return self.ranking[:n_select]

    @property
    def all_positive(self) -> bool:
        """Whether every α_i > 0 (the positivity of Sec. 4.1)."""
        if self.array_type != "numpy":
            from ..backends.results import all_positive

            return all_positive(self.alpha)
        return bool(np.all(self.alpha > 0))


def check_warm_start(value: object, name: str = "warm_start") -> QAlphaResult | None:
    """``value`` if it is None or a result of an earlier Q-α call, else a TypeError."""
    if value is not None and not isinstance(value, QAlphaResult):
        raise TypeError(
            f"{name} must be the result of an earlier call on the same data (or None); got "
            f"{type(value).__name__}."
        )
    return value


def extend_result(result: QAlphaResult, cls: type, **extra: object) -> QAlphaResult:
    """Copy ``result`` into a :class:`QAlphaResult` subclass that carries extra fields."""
    return cls(**{f.name: getattr(result, f.name) for f in fields(QAlphaResult)}, **extra)


#: Data whose largest |entry| lies within 2^±SAFE_EXPONENT are used as they are.
SAFE_EXPONENT = 64


def scaled_down(M: np.ndarray) -> tuple[np.ndarray, int]:
    """``M / 2^e`` (exact) and ``e`` when M's scale would over- or underflow A_α's squares.

    α and Q do not depend on a common scale of the rows (A_α scales by its square, G by its
    fourth power), so a run on the rescaled data returns the same α and Q; only the
    objective and the eigenvalue need :func:`scale_back`.
    """
    e = scale_exponent(M)
    return (np.ldexp(M, -e), e) if abs(e) > SAFE_EXPONENT else (M, 0)


def scale_back(result: QAlphaResult, e: int, power: int = 4) -> QAlphaResult:
    """Objective and eigenvalue of a run on ``M / 2^e`` at the scale of M (× 2^(power·e)).

    Raises ValueError when they leave float64's range at M's scale.
    """
    if not e:
        return result
    hint = "α and Q do not depend on the scale; preprocess=True removes it."
    return replace(
        result,
        objective=unscale(result.objective, power * e, "the Q-α objective", hint=hint),
        eigenvalue=float(unscale(result.eigenvalue, power * e, "the α-step eigenvalue",
                                 hint=hint)),
    )


def choose_solver(n_features: int, solver: str) -> str:
    """Resolve ``solver="auto"``: dense G for small n, matrix-free Lanczos otherwise.

    ``solver="dense"`` forms an n × n matrix: refused, with the memory it would need, beyond
    the kit's memory limit.
    """
    if solver == "auto":
        return "dense" if n_features <= DENSE_MAX_FEATURES else "matrix-free"
    if solver == "dense":
        check_memory(3 * 8.0 * n_features**2,
                     f"the {n_features} × {n_features} matrix of solver='dense' (one row and "
                     "column per feature)", hint="Use solver='matrix-free' (or 'auto').")
    return solver


class AlphaSolver:
    """The α-step: leading eigenvector of the model's operator, warm-started.

    Parameters
    ----------
    model : QAlphaModel
    solver : {"dense", "matrix-free"}
    tol : float
        Relative residual tolerance of the Lanczos solver.
    """

    def __init__(self, model: QAlphaModel, solver: str, tol: float = FINAL_TOL):
        self.model, self.solver, self.tol = model, solver, tol
        self.n_matvec = 0

    def __call__(
        self, Q: np.ndarray, alpha_prev: np.ndarray, tol: float | None = None
    ) -> tuple[np.ndarray, float]:
        exact = getattr(self.model, "alpha_step", None)
        if exact is not None:  # Dask/array-API models solve it exactly in q·k dimensions
            return exact(Q, alpha_prev)
        op = self.model.alpha_operator(Q, alpha_prev)
        target = op.dense() if self.solver == "dense" else op
        # Models whose operator is a transform of G (side information) warm-start in its
        # own coordinates.
        to_u = getattr(self.model, "eigenvector_from_alpha", None)
        v0 = alpha_prev if to_u is None else to_u(alpha_prev)
        pair = leading_eigenvector(target, v0=v0, tol=self.tol if tol is None else tol)
        self.n_matvec += pair.n_matvec
        alpha = self.model.alpha_from_eigenvector(pair.vector)
        alpha = fix_sign(alpha / np.linalg.norm(alpha))
        return alpha, pair.value


def _alpha_change(a: np.ndarray, b: np.ndarray) -> float:
    return max(0.0, 1.0 - abs(float(a @ b)))


def alternate(
    model: QAlphaModel,
    Q0: np.ndarray,
    *,
    method: str,
    max_iter: int,
    tol: float,
    solver: str,
    alpha0: np.ndarray | None = None,
) -> dict:
    """Run the alternating optimisation from ``Q0``; return the raw pieces of a result.

    Each iteration is a Q-step followed by an α-step; intermediate α-steps are solved only as
    accurately as α is still moving, and the last one to full precision, so the returned α is
    the leading eigenvector of the operator built from the returned Q.

    Stopping rule: converged when, for two consecutive iterations, α moved by less than
    ``tol`` (``1 − |cos(α_r, α_{r−1})| < tol``) *and* the objective changed by less than
    ``tol`` relative to its value. On multi-cluster data the objective can sit on a plateau
    (relative changes near 1e-8) for a hundred iterations before rising again while α keeps
    drifting, and reaching 1e-14 takes 600–700 iterations; a tolerance near 1e-6 stops after
    tens of iterations with α within ~1e-3 (angle) of its limit.
    """
    step = AlphaSolver(model, solver)
    Q = Q0
    alpha, eigenvalue = step(Q, model.initial_alpha() if alpha0 is None else alpha0)
    if method == "ritz":
        Q = model.rayleigh_ritz(alpha, Q)
    objective: list[float] = []
    changes: list[float] = []
    converged = False
    quiet = 0
    inner_tol = INNER_TOL_MAX
    for it in range(max_iter):
        Q = model.eigen_step(alpha, Q) if method == "basic" else model.power_step(alpha, Q)
        new_alpha, eigenvalue = step(Q, alpha, inner_tol)
        changes.append(_alpha_change(new_alpha, alpha))
        objective.append(model.objective(new_alpha, Q))
        rise = (
            abs(objective[-1] - objective[-2]) / max(abs(objective[-1]), 1e-300)
            if len(objective) > 1
            else np.inf
        )
        quiet = quiet + 1 if (changes[-1] < tol and rise < tol) else 0
        converged = quiet >= 2
        if (converged or it == max_iter - 1) and inner_tol > FINAL_TOL:
            # The returned α must be the exact α-step of the returned Q.
            new_alpha, eigenvalue = step(Q, new_alpha, FINAL_TOL)
            objective[-1] = model.objective(new_alpha, Q)
        alpha = new_alpha
        if method == "ritz":
            Q = model.rayleigh_ritz(alpha, Q)
        if converged:
            break
        # Far from convergence an exact eigenvector is wasted work: solve the α-step only as
        # accurately as α is still moving (an inexact alternating ascent). A relative
        # residual r gives 1 − cos ≈ (r/gap)²/2, so r ∝ sqrt(change) keeps the α-step error
        # well below the step itself.
        inner_tol = float(np.clip(1e-2 * np.sqrt(changes[-1]), FINAL_TOL, INNER_TOL_MAX))
    return {
        "alpha": alpha,
        "Q": Q,
        "objective": np.asarray(objective),
        "alpha_change": np.asarray(changes),
        "n_iter": len(objective),
        "converged": converged,
        "eigenvalue": float(eigenvalue),
        "n_matvec": step.n_matvec,
    }
