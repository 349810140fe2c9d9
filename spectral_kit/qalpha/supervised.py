"""Supervised Q-α (Wolf & Shashua 2005, Sec. 3.1, Def. 6).

With the samples of class l collected in ``Mˡ`` (n × qˡ) and
``A_α^{gh} = Σ_i α_i m_iᵍ m_iʰᵀ``, the criterion (Eq. 5) is

    Σ_l trace(Q^{ll}ᵀ A^{ll}ᵀ A^{ll} Q^{ll}) − γ Σ_{g≠h} trace(Q^{gh}ᵀ A^{gh}ᵀ A^{gh} Q^{gh}),

high cluster energy inside each class, low energy in the blocks between classes. For fixed
Q's it is ``αᵀ𝒢α`` with ``𝒢 = Σ_l G^{ll} − γ Σ_{g≠h} G^{gh}`` and
``G^{gh}_ij = (m_iᵍᵀm_jᵍ)(m_iʰᵀ Q^{gh} Q^{gh}ᵀ m_jʰ)`` -- one Hadamard-Gram term per pair of
classes, so the α-step is the same matrix-free operator as in unsupervised Q-α. For fixed α
each Q^{gh} holds the k^{gh} leading right singular vectors of A^{gh}.
"""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import LinearOperator

from ..linalg import orthonormalize, weighted_gram
from ..preprocess import preprocess_rows
from ..validation import (
    as_generator,
    check_choice,
    check_finite_scalar,
    check_int,
    check_labels,
)
from .engine import QAlphaResult
from .operators import HadamardGramOperator, HadamardTerm
from .standard import CRITERIA, check_run_options, resolve_method, run_model

__all__ = ["SupervisedModel", "q_alpha_supervised"]

Block = tuple[int, int]


def _top_right_singular(A: np.ndarray, k: int) -> np.ndarray:
    """The k leading right singular vectors of A (eigenvectors of AᵀA)."""
    _w, V = np.linalg.eigh(A.T @ A)
    return V[:, ::-1][:, :k]


class SupervisedModel:
    """Def. 6 as a Q-α model: Q is a dict mapping each class pair (g, h) to Q^{gh}."""

    def __init__(
        self, M: np.ndarray, y: np.ndarray, k_within: int, k_between: int, gamma: float
    ):
        self.M = M
        self.n_features = M.shape[0]
        self.classes = np.unique(y)
        self.blocks = [np.ascontiguousarray(M[:, y == c]) for c in self.classes]
        self.k_within, self.k_between, self.gamma = k_within, k_between, gamma
        self.pairs: list[Block] = [
            (g, h) for g in range(len(self.blocks)) for h in range(len(self.blocks))
        ]
        self._gram_cache: dict[int, np.ndarray] = {}

    def _k(self, g: int, h: int) -> int:
        k = self.k_within if g == h else self.k_between
        return min(k, self.blocks[h].shape[1])

    def _weight(self, g: int, h: int) -> float:
        return 1.0 if g == h else -self.gamma

    def _cross(self, alpha: np.ndarray, g: int, h: int) -> np.ndarray:
        """``A^{gh}_α = Mᵍᵀ diag(α) Mʰ`` (qᵍ × qʰ)."""
        if g == h:
            return weighted_gram(self.blocks[g], alpha)
        return (self.blocks[g] * alpha[:, None]).T @ self.blocks[h]

    # -- α-step ------------------------------------------------------------------------------
    def alpha_operator(self, Q: dict[Block, np.ndarray], alpha: np.ndarray) -> LinearOperator:
        terms = [
            HadamardTerm(self.blocks[h] @ Q[g, h], self._weight(g, h), L=self.blocks[g])
            for g, h in self.pairs
        ]
        return HadamardGramOperator(terms, gram_cache=self._gram_cache)

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        return u

    # -- Q-step ------------------------------------------------------------------------------
    def eigen_step(self, alpha: np.ndarray, Q: dict[Block, np.ndarray]) -> dict:
        return {
            (g, h): _top_right_singular(self._cross(alpha, g, h), self._k(g, h))
            for g, h in self.pairs
        }

    def power_step(self, alpha: np.ndarray, Q: dict[Block, np.ndarray]) -> dict:
        """One orthogonal-iteration step on ``A^{gh}ᵀA^{gh}`` for every block."""
        out = {}
        for g, h in self.pairs:
            Mg, Mh = self.blocks[g], self.blocks[h]
            Z = Mg.T @ (alpha[:, None] * (Mh @ Q[g, h]))
            out[g, h] = orthonormalize(Mh.T @ (alpha[:, None] * (Mg @ Z)))
        return out

    def rayleigh_ritz(self, alpha: np.ndarray, Q: dict[Block, np.ndarray]) -> dict:
        out = {}
        for g, h in self.pairs:
            Z = self._cross(alpha, g, h) @ Q[g, h]
            _w, U = np.linalg.eigh(Z.T @ Z)
            out[g, h] = Q[g, h] @ U[:, ::-1]
        return out

    def objective(self, alpha: np.ndarray, Q: dict[Block, np.ndarray]) -> float:
        """Eq. 5 for the current α and Q's."""
        total = 0.0
        for g, h in self.pairs:
            Mg, Mh = self.blocks[g], self.blocks[h]
            energy = float(np.sum((Mg.T @ (alpha[:, None] * (Mh @ Q[g, h]))) ** 2))
            total += self._weight(g, h) * energy
        return total

    def initial_alpha(self) -> np.ndarray:
        return np.full(self.n_features, 1.0 / np.sqrt(self.n_features))

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> dict:
        if kind == "pca":
            return self.eigen_step(self.initial_alpha(), {})
        return {
            (g, h): orthonormalize(rng.standard_normal((self.blocks[h].shape[1], self._k(g, h))))
            for g, h in self.pairs
        }


CENTERINGS = ("class", "global")


def _preprocess(M: object, y: object, center: str) -> tuple[np.ndarray, np.ndarray]:
    """Centre feature rows per class block (or globally), then scale them to unit norm."""
    raw = preprocess_rows(M, center=False, normalize=False)
    labels = check_labels(y, raw.shape[1], "y")
    if center == "class":
        for c in np.unique(labels):
            cols = labels == c
            raw[:, cols] -= raw[:, cols].mean(axis=1, keepdims=True)
        return preprocess_rows(raw, center=False), labels
    return preprocess_rows(raw), labels


def q_alpha_supervised(
    M: object,
    y: object,
    *,
    k_within: int = 2,
    k_between: int = 1,
    gamma: float = 0.5,
    center: str = "class",
    method: str = "auto",
    init: str = "pca",
    n_init: int = 1,
    max_iter: int = 300,
    tol: float = 1e-6,
    solver: str = "auto",
    random_state: object = None,
) -> QAlphaResult:
    """Supervised Q-α for any number of classes (Wolf & Shashua 2005, Def. 6).

    Parameters
    ----------
    M : array-like of shape (n_features, n_samples)
        Data with features as rows; rows are centred and scaled to unit norm first.
    y : array-like of shape (n_samples,)
        Class label of every sample (column of M); at least two classes.
    k_within, k_between : int
        k^{ll} and k^{gh} (g ≠ h): eigenvectors kept inside a class and between two classes.
        The paper's typical choice is 2 and 1 (clipped to the class sizes).
    gamma : float
        Weight γ ≥ 0 of the between-class energy (the paper: 0.5).
    center : {"class", "global"}
        ``"class"`` (default) reads each class matrix Mˡ of Def. 6 as a data matrix of its
        own and centres its rows (Sec. 2.1) before all rows are scaled to unit norm;
        ``"global"`` centres each row over all samples. Squared affinities cannot tell a
        class offset (``+c`` in one class, ``−c`` in the other) from a large between-class
        affinity, so with global centring the criterion penalises exactly the discriminative
        features: on Weston's linear problem (n = 100, 6 seeds) the top 6 α hold 1.7
        relevant features on average with global centring and 4.3 with class centring.
        Class centring removes class means, so a feature that is constant inside every
        class carries no signal here (and is rejected as constant).
    method, init, n_init, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha`.

    Returns
    -------
    QAlphaResult
        ``Q`` is a dict mapping each ordered pair of class indices (g, h) to Q^{gh}; the
        classes are ``result.extra["classes"]`` in sorted order. 𝒢 is indefinite, so α is
        the eigenvector of its largest algebraic eigenvalue.
    """
    method, init, n_init, max_iter, tol, solver = check_run_options(
        method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver,
    )
    k_within = check_int(k_within, "k_within", low=1)
    k_between = check_int(k_between, "k_between", low=1)
    gamma = check_finite_scalar(gamma, "gamma", low=0.0)
    center = check_choice(center, "center", CENTERINGS)
    Mp, labels = _preprocess(M, y, center)
    model = SupervisedModel(Mp, labels, k_within, k_between, gamma)
    method = resolve_method(method, max(b.shape[1] for b in model.blocks))
    result = run_model(
        model, k_within, method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver, rng=as_generator(random_state), spectrum="standard",
        criterion=CRITERIA[0],
    )
    result.extra["classes"] = model.classes
    return result
