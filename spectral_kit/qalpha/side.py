"""Q-α with side information (Shashua & Wolf 2004, Sec. 3, Def. 3).

Given main data M (n × q) and side data W (n × p) over the same n features, α maximises

    αᵀGα / αᵀ(D + λI)α            (Eq. 2)

with D = diag of the side rows' variances: features that organise the main data into k
coherent clusters *and* stay quiet in the side data. The α-step is the leading eigenvector of
``(D + λI)⁻¹G``; with ``S = (D + λI)^{-1/2}`` it is ``α ∝ S u`` for the leading eigenvector u
of the symmetric ``S G S`` (:class:`~spectral_kit.qalpha.operators.DiagonalScaledOperator`),
so the engine's α-step is reused unchanged and positivity is preserved (S is a positive
diagonal).

How the side rows are scaled. The main rows are centred and scaled to unit norm before G is
formed, so G does not see the units of a feature; the raw variances of W do. Three plausible
choices and what they do:

* raw ``var(w_i)`` -- D depends on each feature's units: a feature measured in larger units
  is suppressed whatever its structure, and rescaling one feature changes the answer;
* side rows normalised like the main rows (centred, unit norm) -- every ``var(w_i)`` is then
  ``1/p``, D is a multiple of I and the side information vanishes (α = plain Q-α);
* **the default, ``side_scale="main"``**: each side row is expressed in the units of its main
  row, ``D_ii = var(w_i) / var(m_i)``. This is the fraction of the feature's main-data variance
  that it also shows in the side data: 0 for a feature that is constant in the side data,
  about 1 for a feature that varies as much there (noise, or the nuisance structure). It is
  invariant to rescaling any feature (in M and W together) and λ is on a fixed scale: λ = 0.1
  halves the weight of a feature whose side variance is a tenth of its main variance.

``side_scale="raw"`` gives the literal variances for data whose features share one unit.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..preprocess import preprocess_rows, scaled_row_variances
from ..validation import (
    as_generator,
    check_array,
    check_choice,
    check_finite_scalar,
    unscale,
)
from .engine import QAlphaResult, check_warm_start, extend_result
from .models import StandardModel
from .operators import DiagonalScaledOperator
from .standard import (
    check_k,
    check_run_options,
    resolve_method,
    run_model,
)

__all__ = [
    "SIDE_SCALES",
    "ModelWrapper",
    "SideInformationModel",
    "SideInformationProblem",
    "SideQAlphaResult",
    "q_alpha_side",
    "side_variances",
]

SIDE_SCALES = ("main", "raw")

#: Side variances at or below this (relative to the largest) count as zero for λ = 0.
ZERO_VARIANCE_RTOL = 1e-12


class ModelWrapper:
    """Delegate every model method to ``base``; optionally start from a previous result.

    With ``start`` given, ``initial_subspace("warm", ...)`` returns its Q and
    ``initial_alpha()`` its α, so a run after a small change of λ or of the side data starts
    next to its answer (the warm start a slider needs).
    """

    def __init__(self, base: object, start: QAlphaResult | None = None):
        self.base = base
        self.n_features = base.n_features
        self.start = start

    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        return self.base.alpha_operator(Q, alpha)

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        return self.base.alpha_from_eigenvector(u)

    def power_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.base.power_step(alpha, Q)

    def eigen_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.base.eigen_step(alpha, Q)

    def rayleigh_ritz(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.base.rayleigh_ritz(alpha, Q)

    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float:
        return self.base.objective(alpha, Q)

    def initial_alpha(self) -> np.ndarray:
        if self.start is not None:
            return np.array(self.start.alpha, dtype=np.float64)
        return self.base.initial_alpha()

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
        if kind == "warm":
            return np.array(self.start.Q, dtype=np.float64)
        return self.base.initial_subspace(kind, k, rng)


class SideInformationModel(ModelWrapper):
    """Def. 3 as a wrapper: the α-step of ``base`` on ``(D + λI)⁻¹G``.

    Parameters
    ----------
    base : Q-α model
        Any model of the engine (standard, kernel, ...): its G is reweighted.
    d_plus_lam : ndarray of shape (n,)
        The positive diagonal of ``D + λI``.
    start : QAlphaResult, optional
        Warm start (see :class:`ModelWrapper`).
    """

    def __init__(self, base: object, d_plus_lam: np.ndarray, start: QAlphaResult | None = None):
        super().__init__(base, start)
        self.d_plus_lam = np.asarray(d_plus_lam, dtype=np.float64)
        self.scale = 1.0 / np.sqrt(self.d_plus_lam)

    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        """``S G S`` with ``S = (D + λI)^{-1/2}``; its leading eigenvector u gives α ∝ S u."""
        return DiagonalScaledOperator(self.base.alpha_operator(Q, alpha), self.scale)

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        return self.scale * self.base.alpha_from_eigenvector(u)

    def eigenvector_from_alpha(self, alpha: np.ndarray) -> np.ndarray:
        """The operator's eigenvector coordinates of α (``u = α / S``), for warm starts."""
        return alpha / self.scale

    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float:
        """Eq. 2: ``trace(QᵀA_α²Q) / αᵀ(D + λI)α``."""
        return self.base.objective(alpha, Q) / float(alpha @ (self.d_plus_lam * alpha))


@dataclass(frozen=True)
class SideQAlphaResult(QAlphaResult):
    """:class:`~spectral_kit.qalpha.engine.QAlphaResult` of Q-α with side information.

    Additional attributes
    ---------------------
    D : ndarray of shape (n_features,)
        The diagonal of D (side variances, scaled as ``side_scale`` says).
    lam : float
        The trade-off λ.
    side_scale : str
    """

    D: np.ndarray | None = None
    lam: float = 0.0
    side_scale: str = "main"


def side_variances(M: object, W: object, side_scale: str = "main") -> np.ndarray:
    """The diagonal of D in Def. 3: variances of the side rows, scaled to the main rows.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Main data, features as rows (raw, not preprocessed).
    W : array-like of shape (n_features, n_side)
        Side data over the same features, features as rows.
    side_scale : {"main", "raw"}
        ``"main"``: ``var(w_i) / var(m_i)`` (see the module docstring); ``"raw"``:
        ``var(w_i)``.

    Returns
    -------
    ndarray of shape (n_features,)
    """
    side_scale = check_choice(side_scale, "side_scale", SIDE_SCALES)
    Mv = check_array(M, "M", rows_label="features (rows)", cols_label="samples (columns)",
                     min_cols=2)
    Wv = check_side(W, Mv.shape[0])
    # each row rescaled by a power of two first: variances of rows near 1e±200 neither
    # overflow nor underflow, and their ratio is exact
    d, e_side = scaled_row_variances(Wv)
    if side_scale == "raw":
        return unscale(d, 2 * e_side, "the variances of W's rows (side_scale='raw')")
    main, e_main = scaled_row_variances(Mv)
    bad = np.flatnonzero(main <= 0.0)
    if bad.size:
        raise ValueError(
            f"M has constant feature row(s) (index {', '.join(map(str, bad[:10]))}); their "
            "main-data variance is zero, so side_scale='main' cannot scale them. Remove them."
        )
    return unscale(d / main, 2 * (e_side - e_main), "var(w_i) / var(m_i) of the rows of W and M")


def check_side(W: object, n_features: int) -> np.ndarray:
    """W as a finite float array with ``n_features`` rows and at least two side samples."""
    Wv = check_array(W, "W", rows_label="features (rows)", cols_label="side samples (columns)",
                     min_cols=2)
    if Wv.shape[0] != n_features:
        raise ValueError(
            f"W must have one row per feature of M ({n_features} rows, features as rows); "
            f"got W with shape {Wv.shape}. If your side data are samples × features, pass "
            "its transpose."
        )
    return Wv


def check_lam(lam: object, D: np.ndarray) -> float:
    """λ ≥ 0, and λ = 0 only when no side variance vanishes (Sec. 3)."""
    lam = check_finite_scalar(
        lam, "lam", low=0.0, hint="λ trades the main data against the side data and is ≥ 0."
    )
    if lam == 0.0:
        variances = np.asarray(D)
        tiny = ZERO_VARIANCE_RTOL * max(float(variances.max(initial=0.0)), 1e-300)
        zero = np.flatnonzero(variances <= tiny)
        if zero.size:
            listed = ", ".join(str(i) for i in zero[:10]) + (" ..." if zero.size > 10 else "")
            raise ValueError(
                f"lam=0 needs every side variance to be positive, but W has {zero.size} "
                f"constant feature row(s) (index {listed}), so D + λI is singular. Use lam > 0."
            )
    return lam


class SideInformationProblem:
    """Main and side data prepared once, solved for any k and λ.

    Preprocessing M, the Gram matrix MMᵀ (cached by the standard model) and D do not depend
    on λ or k, so a sweep over λ, or a slider, pays for them once; ``warm_start`` continues
    from a previous answer.

    Warm starts and hysteresis. Plain Q-α and Q-α-SI often have one local maximum per
    structure. Started from the answer at a small λ, the α-steps stay on that structure's
    maximum even at λ = 1000, where a cold start finds the other one: a sweep that only
    follows its warm start shows hysteresis. :meth:`solve` therefore, by default, also runs
    the cold start and keeps whichever reaches the higher Eq. 2 objective (about 1.5× the
    cost of a cold run alone); ``follow=True`` keeps the warm branch (to show the
    hysteresis on purpose).

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Main data, features as rows; rows are centred and scaled to unit norm for G.
    W : array-like of shape (n_features, n_side)
        Side data, features as rows.
    side_scale : {"main", "raw"}
        How D is formed (:func:`side_variances`).
    """

    def __init__(self, M: object, W: object, *, side_scale: str = "main"):
        self.side_scale = check_choice(side_scale, "side_scale", SIDE_SCALES)
        self.D = side_variances(M, W, side_scale)
        self.M = preprocess_rows(M)
        self.base = StandardModel(self.M)

    @property
    def n_features(self) -> int:
        return self.M.shape[0]

    def solve(
        self,
        k: int,
        lam: float = 0.1,
        *,
        method: str = "auto",
        init: str = "pca",
        n_init: int = 1,
        max_iter: int = 300,
        tol: float = 1e-6,
        solver: str = "auto",
        warm_start: QAlphaResult | None = None,
        follow: bool = False,
        random_state: object = None,
    ) -> SideQAlphaResult:
        """Run Def. 3 for one (k, λ); see :func:`q_alpha_side` for the parameters.

        ``warm_start`` is a previous result on the same data with the same k (ignored when
        its Q does not fit k). With ``follow=False`` (default) the warm run and the run from
        ``init`` are both made and the one with the higher objective is returned; with
        ``follow=True`` only the warm run.
        """
        method, init, n_init, max_iter, tol, solver = check_run_options(
            method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
            solver=solver,
        )
        k = check_k(k, self.M.shape[1])
        lam = check_lam(lam, self.D)
        method = resolve_method(method, self.M.shape[1])
        rng = as_generator(random_state)
        start = warm_start if _fits(warm_start, self.M.shape, k) else None
        runs = []
        if start is not None:
            runs.append(("warm", 1, SideInformationModel(self.base, self.D + lam, start)))
        if start is None or not follow:
            runs.append((init, n_init, SideInformationModel(self.base, self.D + lam)))
        results = [
            run_model(
                model, k, method=method, init=kind, n_init=count, max_iter=max_iter, tol=tol,
                solver=solver, rng=rng, spectrum="standard", criterion="top",
            )
            for kind, count, model in runs
        ]
        result = max(results, key=lambda r: r.objective[-1])
        return extend_result(
            result, SideQAlphaResult, D=self.D, lam=lam, side_scale=self.side_scale
        )


def _fits(start: QAlphaResult | None, shape: tuple[int, int], k: int) -> bool:
    if check_warm_start(start) is None:
        return False
    Q = np.asarray(start.Q) if isinstance(start.Q, np.ndarray) else None
    return (
        Q is not None
        and Q.shape == (shape[1], k)
        and np.asarray(start.alpha).shape == (shape[0],)
    )


def q_alpha_side(
    M: object,
    W: object,
    k: int,
    lam: float = 0.1,
    *,
    side_scale: str = "main",
    method: str = "auto",
    init: str = "pca",
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    warm_start: QAlphaResult | None = None,
    follow: bool = False,
    random_state: object = None,
) -> SideQAlphaResult:
    """Q-α with side information (Shashua & Wolf 2004, Def. 3).

    α is the leading eigenvector of ``(D + λI)⁻¹G``: features that give the main data k
    coherent clusters while varying little in the side data.

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Main data with **features as rows** (raw; rows are centred and scaled to unit norm).
    W : array-like of shape (n_features, n_side)
        Side data over the same features, **features as rows**, at least two side samples:
        samples that show only the structure to be suppressed.
    k : int
        Number of clusters of the main data, ``1 ≤ k < n_samples``.
    lam : float
        λ ≥ 0, the weight of the main data against the side data (the paper: 0.1). Large λ
        gives plain Q-α; λ = 0 is allowed when no side variance vanishes.
    side_scale : {"main", "raw"}
        How the side variances are scaled against the main rows (see the module docstring):
        ``"main"`` (default) ``D_ii = var(w_i)/var(m_i)``; ``"raw"`` ``D_ii = var(w_i)``.
    method, init, n_init, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha`.
    warm_start : QAlphaResult, optional
        A previous result on the same M and k to start from (for sweeps and sliders).
        For many runs on the same data build a :class:`SideInformationProblem` once.
    follow : bool
        With a warm start: return the warm run only (``True``), or the better of the warm
        and the cold run (``False``, default; see :class:`SideInformationProblem`).

    Returns
    -------
    SideQAlphaResult
        ``alpha`` and the usual diagnostics, plus ``D``, ``lam`` and ``side_scale``.

    Examples
    --------
    >>> from spectral_kit import q_alpha, q_alpha_side
    >>> from spectral_kit.datasets.side_information import make_two_structures
    >>> data = make_two_structures(random_state=0)
    >>> plain = q_alpha(data.M, 3).alpha
    >>> side = q_alpha_side(data.M, data.W, 3, lam=0.1).alpha
    >>> bool(plain[data.nuisance].sum() > plain[data.target].sum())
    True
    >>> bool(side[data.target].sum() > side[data.nuisance].sum())
    True
    """
    problem = SideInformationProblem(M, W, side_scale=side_scale)
    return problem.solve(
        k, lam, method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver, warm_start=warm_start, follow=follow, random_state=random_state,
    )
