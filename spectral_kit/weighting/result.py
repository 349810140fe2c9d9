"""The outcome of a variable weighting (Wolf & Bileschi 2005, Algos. 1–3).

Every weighting returns α, the element-wise *squares* of the per-variable scales (footnote 3:
the reweighted data are ``M̃ = diag(√α) M``), so α must be non-negative. The leading
eigenvector an algorithm produces may have a few negative entries -- rarely for Algo. 1,
never for Algo. 2 (H is entry-wise non-negative, so Perron–Frobenius applies), and often for
the indefinite H − λG of Algo. 3 -- so :func:`nonnegative_weights` projects it onto the
non-negative orthant (sets the negative entries to zero, the closest non-negative vector)
and rescales to unit norm. The result keeps the raw eigenvector and how much was removed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from ..backends import array_kind
from ..linalg import fix_sign
from ..validation import check_array

__all__ = ["WeightingResult", "nonnegative_weights"]


@dataclass(frozen=True)
class WeightingResult:
    """A variable weighting α for dimensionality reduction.

    Attributes
    ----------
    alpha : ndarray of shape (n_features,)
        The weights: non-negative, unit L2 norm. Reweight the data by ``√α``.
    eigenvector : ndarray of shape (n_features,)
        The leading eigenvector the algorithm produced, unit norm, signed so that its entries
        sum to a positive number; ``alpha`` is its non-negative part, renormalised.
    eigenvalue : float
        Its eigenvalue (``αᵀGα`` of the last Q-α step, ``αᵀHα`` for Algo. 2, the largest
        algebraic eigenvalue of H − λG for Algo. 3).
    negative_mass : float
        Share of the eigenvector's squared norm in negative entries, removed to form
        ``alpha`` (0 when the eigenvector was already non-negative).
    algorithm : str
        ``"q-alpha"`` (Algo. 1), ``"parameter-free"`` (Algo. 2) or ``"supervised"`` (Algo. 3).
    solver : str
        ``"dense"`` (the n × n matrix was formed) or ``"matrix-free"``.
    n_matvec : int
        Operator applications used by the eigen-solver(s); 0 for a direct LAPACK solve.
    details : object, optional
        The underlying run when there is one: the :class:`~spectral_kit.qalpha.QAlphaResult`
        of Algo. 1 (its ``Q``, ``objective``, ``n_iter``, ``converged``).

    Examples
    --------
    >>> from spectral_kit.weighting import pca_weights
    >>> from spectral_kit.datasets.wolf_bileschi import make_wolf_bileschi_fig1
    >>> data = make_wolf_bileschi_fig1(sigma=0.1, random_state=0)  # 3 relevant of 203
    >>> result = pca_weights(data.M, k=2, random_state=0)
    >>> result.algorithm, result.alpha.shape
    ('q-alpha', (203,))
    >>> sorted(result.top_features(3).tolist()) == sorted(data.relevant.nonzero()[0].tolist())
    True
    """

    alpha: np.ndarray
    eigenvector: np.ndarray
    eigenvalue: float
    negative_mass: float
    algorithm: str
    solver: str
    n_matvec: int = 0
    details: Any = None

    @property
    def weights(self) -> np.ndarray:
        """The per-variable scales ``√α`` of ``M̃ = diag(√α) M`` (Sec. 3)."""
        return np.sqrt(self.alpha)

    @property
    def ranking(self) -> np.ndarray:
        """Feature indices sorted by decreasing α."""
        if array_kind(self.alpha) is not None:  # Dask or device α: spectral_kit.backends
            from ..backends.results import top_indices

            return top_indices(self.alpha)
        return np.argsort(-self.alpha, kind="stable")

    def top_features(self, n_select: int) -> np.ndarray:
        """Indices of the ``n_select`` features with the largest α, in decreasing order."""
        if array_kind(self.alpha) is not None:
            from ..backends.results import top_indices

            return top_indices(self.alpha, n_select)
        return self.ranking[:n_select]


def nonnegative_weights(u: np.ndarray) -> tuple[np.ndarray, np.ndarray, float]:
    """Project a leading eigenvector onto unit-norm non-negative weights.

    Parameters
    ----------
    u : ndarray of shape (n,)
        An eigenvector (any scale or sign).

    Returns
    -------
    alpha : ndarray
        ``max(u, 0) / ‖max(u, 0)‖`` after signing u so that ``Σu > 0``.
    eigenvector : ndarray
        u at unit norm with that sign.
    negative_mass : float
        ``‖min(u, 0)‖² / ‖u‖²``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit.weighting import nonnegative_weights
    >>> alpha, u, negative_mass = nonnegative_weights(np.array([-3.0, -4.0, 0.5]))
    >>> alpha, round(negative_mass, 4)
    (array([0.6, 0.8, 0. ]), 0.0099)
    """
    u = check_array(u, "u", ndim=1)
    scale = float(np.abs(u).max())
    if scale == 0:
        raise ValueError("u is the zero vector; an eigenvector is non-zero.")
    if not 1e-150 < scale < 1e150:  # rescaled first, so that its norm cannot over/underflow
        u = u / scale
    norm_u = float(np.linalg.norm(u))
    # an eigenvector already at unit norm is kept bit for bit (dividing by 1 ± eps is not)
    u = fix_sign(u if abs(norm_u - 1.0) <= 4 * np.finfo(float).eps else u / norm_u)
    positive = np.maximum(u, 0.0)
    norm = float(np.linalg.norm(positive))
    # fix_sign guarantees Σu > 0 (or a positive largest entry), so some entry is positive.
    alpha = positive / norm
    negative_mass = float(np.sum(np.minimum(u, 0.0) ** 2))
    return alpha, u, negative_mass
