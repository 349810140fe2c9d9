"""Q-α with pairwise side information (Shashua & Wolf 2004, Sec. 5, Eq. 3).

The side information is a list of pairs of main-data points known to lie in different
clusters. For a pair (x, y) the weighted inner product ``(Σ_r α_r x_r y_r)² = αᵀFα`` with
``F = (x∘y)(x∘y)ᵀ`` should be small; summing over the pairs gives ``B = Σ F^{ij} = HHᵀ``, the
columns of H being the products ``x_i ∘ x_j``. The energy

    trace(QᵀA_αᵀA_αQ) − λ αᵀBα = αᵀ(G − λB)α

replaces step 2 of Q-α by "α is the leading eigenvector of G − λB"
(:class:`~spectral_kit.qalpha.operators.ShiftedOperator`). B is not diagonal, so unlike Def. 3
nothing guarantees a positive α; the paper's working assumption is that B is small next to
G. Every result says whether α stayed positive (``all_positive``).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..preprocess import preprocess_rows
from ..validation import (
    as_generator,
    check_finite_scalar,
)
from .engine import QAlphaResult, check_warm_start, extend_result
from .models import StandardModel
from .operators import ShiftedOperator
from .side import ModelWrapper
from .standard import (
    check_k,
    check_run_options,
    resolve_method,
    run_model,
)

__all__ = [
    "PairGramOperator",
    "PairwiseModel",
    "PairwiseQAlphaResult",
    "check_pairs",
    "q_alpha_pairwise",
]


class PairGramOperator(LinearOperator):
    """``B = HHᵀ`` (n × n) from the pair products H (n × P), applied as ``H(Hᵀv)``."""

    def __init__(self, H: np.ndarray):
        super().__init__(dtype=np.float64, shape=(H.shape[0], H.shape[0]))
        self.products = H

    def _matvec(self, v: np.ndarray) -> np.ndarray:
        return self.products @ (self.products.T @ np.ravel(v))

    def _matmat(self, V: np.ndarray) -> np.ndarray:
        return self.products @ (self.products.T @ V)

    def _adjoint(self) -> PairGramOperator:
        return self

    def dense(self) -> np.ndarray:
        return self.products @ self.products.T


class PairwiseModel(ModelWrapper):
    """Sec. 5 as a wrapper: the α-step of ``base`` on ``G − λB``."""

    def __init__(
        self, base: object, B: PairGramOperator, lam: float, start: QAlphaResult | None = None
    ):
        super().__init__(base, start)
        self.B, self.lam = B, float(lam)

    def alpha_operator(self, Q: np.ndarray, alpha: np.ndarray) -> LinearOperator:
        return ShiftedOperator(self.base.alpha_operator(Q, alpha), self.B, self.lam)

    def objective(self, alpha: np.ndarray, Q: np.ndarray) -> float:
        """Eq. 3: ``trace(QᵀA_α²Q) − λ αᵀBα``."""
        return self.base.objective(alpha, Q) - self.lam * float(alpha @ self.B.matvec(alpha))


@dataclass(frozen=True)
class PairwiseQAlphaResult(QAlphaResult):
    """:class:`~spectral_kit.qalpha.engine.QAlphaResult` of Q-α with pairwise side data.

    Additional attributes
    ---------------------
    lam : float
        The trade-off λ.
    n_pairs : int
        Number of "different-cluster" pairs in B.
    side_energy : float
        ``αᵀBα = Σ_pairs (Σ_r α_r x_r y_r)²`` at the returned α.
    """

    lam: float = 0.0
    n_pairs: int = 0
    side_energy: float = 0.0


def check_pairs(pairs: object, n_samples: int) -> np.ndarray:
    """``pairs`` as an int array of shape (P, 2), P ≥ 1, of distinct sample indices."""
    if pairs is None:
        raise TypeError("pairs must be a list of (i, j) sample-index pairs; got None.")
    arr = np.asarray(pairs)
    if arr.size == 0:
        raise ValueError(
            "pairs is empty: pairwise side information needs at least one (i, j) pair of "
            "samples known to lie in different clusters. Without pairs use q_alpha."
        )
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"pairs must have shape (n_pairs, 2), one (i, j) per row; got shape {arr.shape}."
        )
    if arr.dtype.kind not in "iu":
        if arr.dtype.kind == "f" and np.all(np.isfinite(arr)) and np.all(arr == np.round(arr)):
            arr = arr.astype(np.intp)
        else:
            raise TypeError(f"pairs must contain integer sample indices; got dtype {arr.dtype}.")
    arr = arr.astype(np.intp)
    if arr.min() < 0 or arr.max() >= n_samples:
        raise ValueError(
            f"pairs must index samples (columns of M) in [0, {n_samples - 1}]; got values "
            f"from {arr.min()} to {arr.max()}."
        )
    same = np.flatnonzero(arr[:, 0] == arr[:, 1])
    if same.size:
        raise ValueError(
            f"pairs row {same[0]} pairs sample {arr[same[0], 0]} with itself; each pair must "
            "join two different samples."
        )
    return arr


def q_alpha_pairwise(
    M: object,
    pairs: object,
    k: int,
    lam: float,
    *,
    method: str = "auto",
    init: str = "pca",
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    warm_start: QAlphaResult | None = None,
    random_state: object = None,
) -> PairwiseQAlphaResult:
    """Q-α with pairs of points known to lie in different clusters (Shashua & Wolf 2004,
    Sec. 5).

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Main data with **features as rows**; rows are centred and scaled to unit norm, and
        the pair products are taken on these rows, so B and G share one scale.
    pairs : array-like of int, shape (n_pairs, 2)
        Sample indices (columns of M) of the "different-cluster" pairs; at least one.
    k : int
        Number of clusters, ``1 ≤ k < n_samples``.
    lam : float
        λ ≥ 0, the weight of ``αᵀBα``. B is the plain sum over pairs, so its scale grows
        with the number of pairs.
    method, init, n_init, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha`.
    warm_start : QAlphaResult, optional
        A previous result on the same M and k to start from.

    Returns
    -------
    PairwiseQAlphaResult
        ``alpha`` (the eigenvector of the largest algebraic eigenvalue of G − λB, signed so
        that Σα > 0), ``all_positive``, ``side_energy`` and the usual diagnostics.

    Raises
    ------
    TypeError
        If ``pairs`` is None or holds non-integer indices.
    ValueError
        If ``pairs`` is empty, not of shape (n_pairs, 2), names a sample out of range or
        pairs a sample with itself; or ``k``, ``lam`` or an option is out of range.

    Examples
    --------
    Twenty "different-cluster" pairs taken from the labels; the relevant features still get
    the largest weights:

    >>> import numpy as np
    >>> from spectral_kit.datasets import make_multiclass_clusters
    >>> from spectral_kit.qalpha import q_alpha_pairwise
    >>> data = make_multiclass_clusters(random_state=0)
    >>> pairs = [(i, j) for i in range(40) for j in range(i + 1, 40)
    ...          if data.y[i] != data.y[j]][:20]
    >>> result = q_alpha_pairwise(data.M, pairs, k=3, lam=0.5, random_state=0)
    >>> sorted(result.top_features(5).tolist()) == np.flatnonzero(data.relevant).tolist()
    True
    """
    method, init, n_init, max_iter, tol, solver = check_run_options(
        method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver,
    )
    lam = check_finite_scalar(lam, "lam", low=0.0, hint="λ weighs the pair penalty and is ≥ 0.")
    Mp = preprocess_rows(M)
    k = check_k(k, Mp.shape[1])
    idx = check_pairs(pairs, Mp.shape[1])
    B = PairGramOperator(Mp[:, idx[:, 0]] * Mp[:, idx[:, 1]])
    method = resolve_method(method, Mp.shape[1])
    start = None
    if check_warm_start(warm_start) is not None and np.shape(warm_start.Q) == (Mp.shape[1], k):
        start, init, n_init = warm_start, "warm", 1
    model = PairwiseModel(StandardModel(Mp), B, lam, start=start)
    result = run_model(
        model, k, method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver, rng=as_generator(random_state), spectrum="standard", criterion="top",
    )
    side_energy = float(result.alpha @ B.matvec(result.alpha))
    return extend_result(
        result, PairwiseQAlphaResult, lam=lam, n_pairs=int(idx.shape[0]),
        side_energy=side_energy,
    )
