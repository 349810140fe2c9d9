"""Supervised Q-α (Wolf & Shashua 2005, Sec. 3.1, Def. 6).

With the samples of class l collected in ``Mˡ`` (n × qˡ) and
``A_α^{gh} = Σ_i α_i m_iᵍ m_iʰᵀ``, the criterion (Eq. 5) is

    Σ_l trace(Q^{ll}ᵀ A^{ll}ᵀ A^{ll} Q^{ll}) − γ Σ_{g≠h} trace(Q^{gh}ᵀ A^{gh}ᵀ A^{gh} Q^{gh}),

high cluster energy inside each class, low energy in the blocks between classes. For fixed
Q's it is ``αᵀ𝒢α`` with ``𝒢 = Σ_l G^{ll} − γ Σ_{g≠h} G^{gh}`` and
``G^{gh}_ij = (m_iᵍᵀm_jᵍ)(m_iʰᵀ Q^{gh} Q^{gh}ᵀ m_jʰ)`` -- one Hadamard-Gram term per pair of
classes, so the α-step is the same matrix-free operator as in unsupervised Q-α. For fixed α
each Q^{gh} holds the k^{gh} leading right singular vectors of A^{gh}.

What the rows mᵢˡ are is not fixed by Def. 6, and the choice decides what is selected
(the *readings* of :func:`q_alpha_supervised`). Energies of squared affinities cannot tell a
negative affinity from a positive one: a feature that moves the class means apart makes the
between-class blocks of a globally centred affinity large and *negative*, and Eq. 5 penalises
that exactly as it would penalise structure the classes share. Centring each class on its own
removes the class means, and with them the signal of every feature whose mean depends on the
class.

The reading ``"class-means"`` keeps the sign where it matters. Each unit-norm,
globally centred row is split into its class-mean part and its within-class part,
``mᵢ = bᵢ + wᵢ`` with ``‖bᵢ‖² + ‖wᵢ‖² = 1`` (B, n × c, holds in column l √qˡ × the class-l
mean of the rows, so bᵢ = Y Bᵢᵀ with Y the orthonormal class indicators). Every block
``A^{gh}`` of Eq. 5 then splits into a class-mean part, the constant block
``C_gh 11ᵀ/√(qᵍqʰ)`` with energy ``C_gh²``, and a within-class part
``W^{gh} = Σ α_i wᵢᵍ wᵢʰᵀ``; the terms that mix the two are dropped. The criterion is

    Σ_l tr(Q^{ll}ᵀW^{ll}ᵀW^{ll}Q^{ll}) − γ Σ_{g≠h} tr(Q^{gh}ᵀW^{gh}ᵀW^{gh}Q^{gh})
      + Σ_l C_ll² + ‖C‖_F²,        C = Bᵀ diag(α) B (the c × c class-mean affinity):

Eq. 5 on the within-class parts; the class-mean part of every within-class block rewarded as
Eq. 5 does (``Σ_l C_ll²``); and, in place of the penalty on the squared between-class mean
affinity -- which is where the classes' separation shows, as a negative number -- the energy of
the whole class-mean affinity rewarded (``‖C‖_F²``, Def. 1 on the c class means with all
c − 1 eigenvectors, which makes its Q constant). In Gram form the two mean terms add
``(BBᵀ)∘(BBᵀ) + (B∘B)(B∘B)ᵀ`` to 𝒢. The first term alone ties two features only when they
separate the same classes; the second ties every pair of mean-shifted features, as the
within-class blocks of a globally centred Def. 6 do.

The default reading ``"balanced"`` makes the same split and changes three things, each so that
Eq. 5 measures what Def. 6 asks of it -- affinity inside the classes, not between them -- and
not the size of a class or structure that has nothing to do with the labels:

1. *Every class counts equally.* A block's energy ``‖A^{gh}Q^{gh}‖²`` grows with qᵍqʰ: with
   classes of 180 and 20 samples the small class's within-class block weighs 1/81 of the large
   one's, and Eq. 5 is in effect unsupervised Q-α on the large class (a 90/10 mean shift put
   0.09 of the relevant features on top, ignoring the labels 0.21). Every sample of class l
   is weighted by ``√(q/(c·qˡ))`` and the rows are centred at the average of the class means
   (:func:`balanced_rows`), so every class carries the same total weight and every class
   mean counts the same in B.
2. *Structure that every class shares cancels.* Label-free clusters or correlated
   distractors put the same energy E into each of the c within-class and the c(c − 1)
   between-class blocks (once the classes weigh the same and every block keeps
   ``k^{gh} = k_within`` vectors), so Eq. 5 weighs them ``c·E·(1 − γ(c − 1))``; the paper's
   γ = 0.5 rewards them for two classes (20 correlated distractors beside a class
   separation of 2: 0.08 of the relevant features on top). γ = 1/(c − 1) makes the weight
   zero. For one feature the within-class terms then equal ``c²/(c − 1)`` × the variance
   over the classes of its within-class energies ‖wᵢˡ‖² (how its spread differs between
   the classes) and for a pair of features they measure how the pair's within-class
   covariance differs between the classes: what is left is structure the classes do *not*
   share, which is what XOR-like problems have.
3. *The within-class terms enter only when they see the classes.* Where the classes differ
   in their means alone, what is left of the within-class terms is sampling noise that the
   iteration fits, and on a weak or rare-class shift it outweighs the class-mean terms
   (fourth powers of a feature's between-class share). Their value after one power-embedded
   iteration from the PCA start is compared with the same value for ``n_permutations``
   relabellings that keep the class sizes (:func:`within_class_test`); they are kept when the
   observed value exceeds every relabelled one, a permutation test at level 1/20 for the
   default 19. Otherwise only the class-mean terms are left. For two classes they are rank
   one, ``1.5 ηηᵀ`` with ηᵢ = ‖Bᵢ‖² feature i's share of (class-balanced) variance between
   the classes, and their leading eigenvector is α ∝ η: the ranking of a two-sample t test
   with equal class weights, which is what a filter such as ``f_classif`` computes. With
   more classes their leading eigenvector keeps the features of one class only: features
   that raise different classes barely couple (their rows of B meet at
   ``cos² = 1/(c − 1)²``), so the eigenvector ranks the features of the other classes by
   chance (five classes with one rare: 0.86 of the relevant features on top, ``f_classif``
   0.98). Without within-class structure there is no group of features to find, and α ∝ η
   for any number of classes -- the two-class solution, each feature ranked by its own share
   of variance between the classes.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.linalg
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
from .engine import INNER_TOL_MAX, AlphaSolver, QAlphaResult, choose_solver
from .models import StandardModel
from .operators import HadamardGramOperator, HadamardTerm
from .standard import CRITERIA, check_run_options, resolve_method, run_model

__all__ = [
    "DEFAULT_READING",
    "N_PERMUTATIONS",
    "READINGS",
    "LabelSubspaceModel",
    "SupervisedModel",
    "WithinClassTest",
    "balanced_rows",
    "check_class_labels",
    "class_indicator_basis",
    "q_alpha_supervised",
    "within_class_test",
]

Block = tuple[int, int]

#: The readings of Def. 6 that :func:`q_alpha_supervised` offers.
READINGS = ("balanced", "class-means", "class", "global", "uncentred", "label-subspace")
#: The reading used when none is given (see :func:`q_alpha_supervised` for why).
DEFAULT_READING = "balanced"
#: Relabellings of the ``"balanced"`` reading's test when none is given: the within-class
#: terms are kept when they exceed all of them, a test at level 1/20.
N_PERMUTATIONS = 19


def _top_eigenvectors(S: np.ndarray, k: int) -> np.ndarray:
    """The k eigenvectors of the symmetric S with the largest eigenvalues, largest first."""
    m = S.shape[0]
    _w, V = scipy.linalg.eigh(S, subset_by_index=[m - k, m - 1])
    return V[:, ::-1]


def _top_right_singular(A: np.ndarray, k: int) -> np.ndarray:
    """The k leading right singular vectors of A (eigenvectors of AᵀA)."""
    return _top_eigenvectors(A.T @ A, k)


def check_class_labels(y: object, n_samples: int, name: str = "y") -> np.ndarray:
    """``y`` as class labels: 1-D, one per sample, at least two classes, not a measurement.

    A float ``y`` with non-integer values and more distinct values than half the samples is
    a continuous target (a regression response), not classes: reading it as labels would make
    almost every sample a class of its own, so it is rejected.
    """
    labels = check_labels(y, n_samples, name)
    if labels.dtype.kind == "f":
        n_unique = np.unique(labels).size
        if n_unique > max(2, n_samples // 2) and not np.all(labels == np.round(labels)):
            raise ValueError(
                f"{name} looks continuous ({n_unique} distinct float values among {n_samples} "
                "samples); supervised Q-α needs class labels. Bin it into classes first "
                f"(e.g. np.digitize({name}, bins)), or leave the labels out for unsupervised "
                "Q-α."
            )
    return labels


def class_indicator_basis(labels: np.ndarray) -> np.ndarray:
    """Orthonormal class indicators (q × c): column l is ``1_{y=l} / √qˡ``, classes sorted."""
    classes = np.unique(labels)
    Y = (labels[:, None] == classes[None, :]).astype(np.float64)
    return Y / np.sqrt(Y.sum(axis=0))


def _mean_energy(B: np.ndarray, alpha: np.ndarray) -> float:
    """``‖Bᵀdiag(α)B‖_F² + Σ_l (Bᵀdiag(α)B)_ll²``: the class-mean affinity's energy, plus the
    class-mean part of every within-class block of Eq. 5."""
    C = B.T @ (alpha[:, None] * B)
    return float(np.sum(C**2) + np.sum(np.diag(C) ** 2))


class SupervisedModel:
    """Def. 6 as a Q-α model: Q is a dict mapping each class pair (g, h) to Q^{gh}.

    Parameters
    ----------
    M : ndarray of shape (n, q)
        Preprocessed rows; the class blocks Mˡ are its columns of class l.
    y : ndarray of shape (q,)
        Class labels.
    k_within, k_between : int
        k^{ll} and k^{gh} (g ≠ h).
    gamma : float
        γ of Eq. 5.
    means : ndarray of shape (n, c), optional
        Class-mean matrix B of the ``"class-means"`` and ``"balanced"`` readings (M then
        holds the within-class parts): adds the rewarded ``‖C‖_F² + Σ_l C_ll²`` with
        ``C = Bᵀdiag(α)B``, i.e. ``(BBᵀ)∘(BBᵀ) + (B∘B)(B∘B)ᵀ`` in 𝒢 (module docstring).
        With c − 1 eigenvectors for the c × c block C (its rank when the rows are centred)
        its Q spans the whole block, so the term does not depend on Q.
    within : bool
        Whether Eq. 5's blocks of M enter 𝒢. Without them (only with ``means``) 𝒢 is the
        class-mean terms alone, Q is an empty dict and α their leading eigenvector.
    """

    def __init__(
        self, M: np.ndarray, y: np.ndarray, k_within: int, k_between: int, gamma: float,
        *, means: np.ndarray | None = None, within: bool = True,
    ):
        self.M = M
        self.n_features = M.shape[0]
        self.classes = np.unique(y)
        self.blocks = [np.ascontiguousarray(M[:, y == c]) for c in self.classes]
        self.k_within, self.k_between, self.gamma = k_within, k_between, gamma
        self.means = None if means is None else np.ascontiguousarray(means)
        if not within and means is None:
            raise ValueError("a model without its within-class blocks needs the class means")
        self.pairs: list[Block] = [
            (g, h) for g in range(len(self.blocks)) for h in range(len(self.blocks))
        ] if within else []
        self._gram_cache: dict[int, np.ndarray] = {}
        self._qr: dict[int, tuple[np.ndarray, np.ndarray]] = {}
        self._gram: dict[int, np.ndarray] = {}

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
        if self.means is not None:
            B = self.means
            terms.append(HadamardTerm(B, 1.0, L=B))
            terms.append(HadamardTerm(np.ones((self.n_features, 1)), 1.0, L=B**2))
        return HadamardGramOperator(terms, gram_cache=self._gram_cache)

    def alpha_from_eigenvector(self, u: np.ndarray) -> np.ndarray:
        return u

    # -- Q-step ------------------------------------------------------------------------------
    def _right_singular(self, alpha: np.ndarray, g: int, h: int) -> np.ndarray:
        """The k^{gh} leading right singular vectors of A^{gh}.

        When class h has more samples than there are features, ``A^{gh}ᵀA^{gh} =
        U (R D Kᵍ D Rᵀ) Uᵀ`` with ``Mʰᵀ = UR`` (thin QR, cached), ``Kᵍ = MᵍMᵍᵀ`` (cached)
        and D = diag(α), so the vectors come from an n × n eigenproblem instead of a
        qʰ × qʰ one.
        """
        k = self._k(g, h)
        n, q_h = self.blocks[h].shape
        if n >= q_h or k > n:
            return _top_right_singular(self._cross(alpha, g, h), k)
        if h not in self._qr:
            self._qr[h] = np.linalg.qr(self.blocks[h].T)
        if g not in self._gram:
            self._gram[g] = self.blocks[g] @ self.blocks[g].T
        U, R = self._qr[h]
        RD = R * alpha
        return U @ _top_eigenvectors(RD @ self._gram[g] @ RD.T, k)

    def eigen_step(self, alpha: np.ndarray, Q: dict[Block, np.ndarray]) -> dict:
        return {(g, h): self._right_singular(alpha, g, h) for g, h in self.pairs}

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
        """Eq. 5 for the current α and Q's (plus the class-mean energy, when given)."""
        total = 0.0
        for g, h in self.pairs:
            Mg, Mh = self.blocks[g], self.blocks[h]
            energy = float(np.sum((Mg.T @ (alpha[:, None] * (Mh @ Q[g, h]))) ** 2))
            total += self._weight(g, h) * energy
        if self.means is not None:
            total += _mean_energy(self.means, alpha)
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


class LabelSubspaceModel(StandardModel):
    """Def. 1 with Q fixed to the class-indicator subspace (the ``"label-subspace"`` reading).

    The relevance ``trace(QᵀA_αᵀA_αQ)`` of Sec. 2.1 scores a feature subset by the cluster
    energy of its affinity along Q, the leading eigenvectors of A_α. With labels the clusters
    are known, so Q is set to the orthonormal class indicators (the leading eigenvectors of
    the label affinity ``W_ij = 1/qˡ`` when samples i, j are both in class l, the graph of
    supervised spectral filters: SPEC, Zhao & Liu, ICML 2007, and the Laplacian score of He,
    Cai & Niyogi, NIPS 2005, which on this graph becomes Fisher's score). Only α is
    optimised: ``G_ij = (m_iᵀm_j)(m_iᵀQQᵀm_j)``; ``G_ii = ‖Qᵀmᵢ‖²`` is the share of
    feature i's variance between the classes, the off-diagonal couples features that are
    both correlated and discriminative.
    """

    def __init__(self, M: np.ndarray, y: np.ndarray):
        super().__init__(M)
        self.Y = class_indicator_basis(y)

    def eigen_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.Y

    def power_step(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.Y

    def rayleigh_ritz(self, alpha: np.ndarray, Q: np.ndarray) -> np.ndarray:
        return self.Y

    def initial_subspace(self, kind: str, k: int, rng: np.random.Generator) -> np.ndarray:
        return self.Y


def _split(Mp: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Within-class parts ``Mp − BYᵀ`` and class-mean matrix ``B = Mp Y`` of the rows."""
    Y = class_indicator_basis(labels)
    means = Mp @ Y
    return Mp - means @ Y.T, means


def balanced_rows(M_global: np.ndarray, labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Rows of the ``"balanced"`` reading, split into within-class parts and class means.

    Every sample of class l is weighted by ``√(q / (c·qˡ))``, so that each class carries the
    same total weight q/c whatever its size; the rows are centred at the average of the
    class means (the weighted mean), scaled to unit norm, and split as in the
    ``"class-means"`` reading: ``wᵢ = m̃ᵢ − bᵢ`` and B (n × c) with column l equal to
    ``√(q/c)`` × the class-l mean of the weighted rows.

    Parameters
    ----------
    M_global : ndarray of shape (n, q)
        Rows already centred and scaled to unit norm (``preprocess_rows``), so that the
        weighting works on numbers of order one whatever the data's scale.
    labels : ndarray of shape (q,)

    Returns
    -------
    within : ndarray of shape (n, q)
    means : ndarray of shape (n, c)
    """
    classes, index, counts = np.unique(labels, return_inverse=True, return_counts=True)
    q, c = labels.shape[0], classes.size
    Y = class_indicator_basis(labels)
    class_means = (M_global @ Y) / np.sqrt(counts)
    weights = np.sqrt(q / (c * counts))[index]
    rows = (M_global - class_means.mean(axis=1, keepdims=True)) * weights
    # A non-constant row stays non-zero: the weights are positive and the centre is a constant.
    rows /= np.linalg.norm(rows, axis=1, keepdims=True)
    return _split(rows, labels)


def _rows(
    M: object, y: object, reading: str
) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
    """Rows, labels and (for ``"class-means"`` and ``"balanced"``) the class-mean matrix B.

    Every reading first rejects constant features (by centring and normalising over all
    samples), so a constant feature is reported as constant whatever the reading. For
    ``"class-means"`` the rows returned are the within-class parts ``wᵢ = mᵢ − bᵢ`` of the
    unit-norm, globally centred rows, and B holds their class-mean parts; ``"balanced"``
    does the same on the class-weighted rows of :func:`balanced_rows`.
    """
    M_global = preprocess_rows(M)
    labels = check_class_labels(y, M_global.shape[1], "y")
    if reading in ("global", "label-subspace"):
        return M_global, labels, None
    if reading == "uncentred":
        return preprocess_rows(M, center=False), labels, None
    if reading == "balanced":
        within, means = balanced_rows(M_global, labels)
        return within, labels, means
    within, means = _split(M_global, labels)
    if reading == "class-means":
        return within, labels, means
    # "class": each class block is a data matrix of its own, centred and renormalised.
    norms = np.linalg.norm(within, axis=1)
    flat = np.flatnonzero(norms <= 1e-12)
    if flat.size:
        listed = ", ".join(str(i) for i in flat[:10]) + (" ..." if flat.size > 10 else "")
        raise ValueError(
            f"M has {flat.size} feature row(s) that are constant within every class (row "
            f"index {listed}): they separate the classes perfectly, but reading='class' "
            "removes the class means and leaves nothing to scale. Use reading='class-means' "
            "or 'balanced' (the default), which keep the class means."
        )
    return within / norms[:, None], labels, None


def _preprocess(M: object, y: object, reading: str) -> tuple[np.ndarray, np.ndarray]:
    """Rows for Def. 6 under ``reading`` (see :func:`q_alpha_supervised`), and the labels."""
    Mp, labels, _means = _rows(M, y, reading)
    return Mp, labels


@dataclass(frozen=True)
class WithinClassTest:
    """Outcome of :func:`within_class_test`.

    Attributes
    ----------
    statistic : float
        Eq. 5 from the within-class parts of the ``"balanced"`` rows alone (no class-mean
        terms) after one power-embedded iteration (Def. 2) from the PCA start (uniform α,
        each Q^{gh} the leading right singular vectors of A^{gh}).
    null : ndarray of shape (n_permutations,)
        The same number for relabellings of the samples that keep every class's size.
    p_value : float
        ``(1 + #{null ≥ statistic}) / (1 + n_permutations)``.
    kept : bool
        Whether the statistic exceeds every relabelled value (``p_value = 1/(1 + P)``), i.e.
        whether the within-class terms enter the run.
    """

    statistic: float
    null: np.ndarray
    p_value: float
    kept: bool


def _first_iteration_value(model: SupervisedModel, solver: str) -> float:
    """Eq. 5 after one power-embedded iteration (Def. 2) from the PCA start.

    The α-steps are solved to the engine's intermediate accuracy: a test statistic needs
    the value to a few digits, not α to the last one.
    """
    step = AlphaSolver(model, solver, tol=INNER_TOL_MAX)
    Q = model.initial_subspace("pca", model.k_within, None)
    alpha, _value = step(Q, model.initial_alpha())
    Q = model.power_step(alpha, Q)
    alpha, _value = step(Q, alpha)
    return model.objective(alpha, Q)


def within_class_test(
    M_global: np.ndarray,
    labels: np.ndarray,
    *,
    k_within: int,
    k_between: int,
    gamma: float,
    n_permutations: int,
    rng: np.random.Generator,
    solver: str = "auto",
) -> WithinClassTest:
    """Permutation test: do the within-class terms of Eq. 5 see the classes beyond chance?

    The statistic is Eq. 5 on the within-class parts of the ``"balanced"`` rows alone (no
    class-mean terms) after one power-embedded iteration from the PCA start. Under
    labels that say nothing about the features, every relabelling that keeps the class sizes
    is as likely as the observed one, so the observed value exceeds all ``n_permutations``
    relabelled values with probability at most ``1/(1 + n_permutations)``.

    Parameters
    ----------
    M_global : ndarray of shape (n, q)
        Rows centred and scaled to unit norm.
    labels : ndarray of shape (q,)
    k_within, k_between, gamma
        As in :func:`q_alpha_supervised`.
    n_permutations : int
        Number of relabellings (≥ 1).
    rng : numpy.random.Generator
    solver : {"auto", "dense", "matrix-free"}
    """
    solver = choose_solver(M_global.shape[0], solver)

    def value(y: np.ndarray) -> float:
        within, _means = balanced_rows(M_global, y)
        model = SupervisedModel(within, y, k_within, k_between, gamma)
        return _first_iteration_value(model, solver)

    statistic = value(labels)
    null = np.array([value(rng.permutation(labels)) for _ in range(n_permutations)])
    exceeded = int(np.sum(null >= statistic))
    return WithinClassTest(
        statistic=statistic, null=null, p_value=(1 + exceeded) / (1 + n_permutations),
        kept=exceeded == 0,
    )


def _between_class_share(model: SupervisedModel) -> QAlphaResult:
    """α ∝ η, ηᵢ = ‖Bᵢ‖² (feature i's share of variance between the classes), for a model
    with the class-mean terms alone: their leading eigenvector for two classes (where they
    are ``1.5 ηηᵀ``), and the same ranking for any number of classes (module docstring).

    It is reported as one iteration from the uniform start: a single α-step, with no Q to
    update and nothing left to iterate."""
    share = np.sum(model.means**2, axis=1)
    norm = np.linalg.norm(share)
    start = model.initial_alpha()
    # Class means that agree on every feature carry no ranking: every feature weighs the same.
    alpha = share / norm if norm > 0 else start
    value = model.objective(alpha, {})
    return QAlphaResult(
        alpha=alpha, Q={}, objective=np.array([value]), n_iter=1, converged=True,
        eigenvalue=value, alpha_change=np.array([1.0 - abs(float(alpha @ start))]),
        method="between-class share", init="none",
    )


def q_alpha_supervised(
    M: object,
    y: object,
    *,
    reading: str = DEFAULT_READING,
    k_within: int = 2,
    k_between: int | None = None,
    gamma: float | None = None,
    n_permutations: int = N_PERMUTATIONS,
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
        Data with features as rows. Constant features are rejected (they carry nothing).
    y : array-like of shape (n_samples,)
        Class label of every sample (column of M); at least two classes. A float y with
        many distinct non-integer values (a regression target) is rejected.
    reading : {"balanced", "class-means", "class", "global", "uncentred", "label-subspace"}
        What the rows mᵢˡ of the class matrices Mˡ are (and, for ``"balanced"``, how the
        blocks of Eq. 5 are weighed). Measured on the suite of labelled problems of
        :mod:`spectral_kit.datasets.supervised_suite` and its held-out variants
        (reproduction ``wolf-shashua-2005/supervised-suite``: share of the relevant features
        among the top-``|relevant|`` α, mean over 20 seeds per problem, 12 problems and 10
        held-out variants; ignoring y scores 0.40 / 0.30 on the two, ``f_classif``
        0.75 / 0.80, mutual information 0.74 / 0.70):

        * ``"balanced"`` (default): every class weighted equally, γ = 1/(c − 1) and
          ``k^{gh} = k_within`` so that structure all classes share cancels, and the
          within-class terms kept only when a permutation test finds class information in
          them; else α is each feature's share of variance between the classes (module
          docstring, :func:`within_class_test`). Mean share 0.93 over the suite and 0.92
          over the held-out variants, nowhere behind ignoring y. Where the classes differ in
          their means it is level with the best filter within two standard errors on every
          problem (90/10: 0.89 against ``f_classif``'s 0.91, 95/5: 1.00, 20 correlated
          label-free distractors: 1.00; the furthest behind, held out, four classes of which
          two rare: 0.86 ± 0.04 against 0.91 ± 0.02); on XOR-like and Weston's non-linear
          problems it finds all (1.00), where the filters find 0.05–0.53. It cannot win where
          the classes differ in spread only: 0.35 (held out 0.42) against mutual
          information's 0.78 (0.97) -- use a filter there. On Weston's linear problem it
          stays at the filters' 0.90, behind ``"class-means"`` (0.95). The test costs
          ``n_permutations`` extra runs of one iteration each.
        * ``"class-means"`` (the default before ``"balanced"``): rows centred over all
          samples and scaled to unit norm, then split into class-mean and within-class
          parts; Eq. 5 on the within-class parts (γ = 0.5) plus the class-mean energies
          (module docstring): 0.69 / 0.58. It finds features that move the class means of
          balanced classes and features whose joint within-class structure differs between
          the classes (XOR-like 1.00), but a small class hardly counts in it (90/10: 0.09,
          ignoring y 0.21) and label-free structure is rewarded (20 correlated distractors:
          0.08).
        * ``"class"``: each Mˡ centred as a data matrix of its own (Sec. 2.1), rows then
          scaled to unit norm: 0.29 / 0.22. Removing the class means hides every feature
          whose mean alone depends on the class (two-class mean shift: 0.11), and structure
          the classes share wins instead. Use it only when mean differences must not count.
        * ``"global"``: rows centred and scaled over all samples, Def. 6 as printed on the
          data as preprocessed in Sec. 2.1: 0.43 / 0.37. Squared affinities penalise the
          (negative) affinity between separated classes like shared structure (Weston
          linear: 0.07); it is kept to study Def. 6 as printed.
        * ``"uncentred"``: rows scaled to unit norm without centring: 0.55 / 0.54; what it
          finds depends on where each feature's origin lies. It is kept for comparison.
        * ``"label-subspace"``: Def. 1 with Q fixed to the class indicators
          (:class:`LabelSubspaceModel`), a supervised spectral filter in the manner of SPEC:
          one eigenvector, no iteration: 0.67 / 0.71. It sees only class means (XOR-like:
          0.09) and, α being sparse, keeps one group of mutually correlated discriminative
          features (four classes: 0.68).
    k_within, k_between : int
        k^{ll} and k^{gh} (g ≠ h): eigenvectors kept inside a class and between two classes
        (clipped to the class sizes). The paper's typical choice is 2 and 1; ``k_between``
        None means 1, except for ``"balanced"``, where it means ``k_within`` (the
        cancellation of shared structure needs the same k in every block). Unused by
        ``"label-subspace"``.
    gamma : float, optional
        Weight γ ≥ 0 of the between-class energy. None means the paper's 0.5, except for
        ``"balanced"``, where it means 1/(c − 1) for c classes. Unused by
        ``"label-subspace"``.
    n_permutations : int
        Relabellings in the ``"balanced"`` reading's test of the within-class terms
        (:func:`within_class_test`); they are kept when their value exceeds every
        relabelled one (level 1/(1 + n_permutations); the default 19 gives 1/20). 0 keeps
        them without a test. Unused by the other readings.
    method : {"auto", "basic", "power", "ritz"}
        As in :func:`spectral_kit.q_alpha`, except that ``"auto"`` means ``"power"`` for the
        Def. 6 readings: the basic scheme sets every Q^{gh} to the leading singular vectors
        of A^{gh}, which for the between-class blocks (weight −γ) lowers the criterion, and
        the iteration can cycle between two α's -- on Sonar's training folds it ran 300
        iterations without converging, α moving by 0.04–0.17 (1 − cos) each time, where the
        power-embedded scheme converges in 7–31 iterations.
    init, n_init, max_iter, tol, solver, random_state
        As in :func:`spectral_kit.q_alpha`.

    Returns
    -------
    QAlphaResult
        For the Def. 6 readings ``Q`` is a dict mapping each ordered pair of class indices
        (g, h) to Q^{gh}; for ``"label-subspace"`` it is the q × c class-indicator basis.
        The classes are ``result.extra["classes"]`` in sorted order and the reading is
        ``result.extra["reading"]``. 𝒢 is indefinite, so α is the eigenvector of its
        largest algebraic eigenvalue. The ``"balanced"`` reading's test is
        ``result.extra["within_class_test"]`` (a :class:`WithinClassTest`); when it drops
        the within-class terms, α is the between-class share η/‖η‖, found in one α-step
        from the uniform start: ``Q`` is an empty dict, ``n_iter`` 1 and ``objective`` and
        ``eigenvalue`` αᵀ𝒢α.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import q_alpha_supervised
    >>> from spectral_kit.datasets import make_mean_shift
    >>> data = make_mean_shift(2, random_state=0)   # features 0-4 move with the class
    >>> res = q_alpha_supervised(data.M, data.y, random_state=0)
    >>> sorted(res.top_features(5).tolist())
    [0, 1, 2, 3, 4]
    """
    method, init, n_init, max_iter, tol, solver = check_run_options(
        method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver,
    )
    reading = check_choice(reading, "reading", READINGS)
    balanced = reading == "balanced"
    k_within = check_int(k_within, "k_within", low=1)
    if k_between is not None:
        k_between = check_int(k_between, "k_between", low=1)
    if gamma is not None:
        gamma = check_finite_scalar(gamma, "gamma", low=0.0)
    n_permutations = check_int(
        n_permutations, "n_permutations", low=0,
        hint="19 relabellings test at level 1/20; 0 keeps the within-class terms untested.",
    )
    Mp, labels, means = _rows(M, y, reading)
    n_classes = np.unique(labels).size
    if gamma is None:
        gamma = 1.0 / (n_classes - 1) if balanced else 0.5
    if k_between is None:
        k_between = k_within if balanced else 1
    rng = as_generator(random_state)
    test = None
    if balanced and n_permutations:
        test = within_class_test(
            preprocess_rows(M), labels, k_within=k_within, k_between=k_between, gamma=gamma,
            n_permutations=n_permutations, rng=rng, solver=solver,
        )
    if test is not None and not test.kept:
        result = _between_class_share(
            SupervisedModel(Mp, labels, k_within, k_between, gamma, means=means, within=False))
        result.extra.update(classes=np.unique(labels), reading=reading, within_class_test=test)
        return result
    if reading == "label-subspace":
        model: SupervisedModel | LabelSubspaceModel = LabelSubspaceModel(Mp, labels)
        k = model.Y.shape[1]
        method = resolve_method(method, Mp.shape[1])
    else:
        model = SupervisedModel(Mp, labels, k_within, k_between, gamma, means=means,
                                within=test is None or test.kept)
        k = k_within
        # The between-class blocks enter Eq. 5 with weight −γ, so jumping each Q^{gh} to the
        # leading singular vectors of A^{gh} (the basic scheme) is not an ascent step and
        # can cycle; the power-embedded step moves Q gradually and settles.
        method = "power" if method == "auto" else method
    result = run_model(
        model, k, method=method, init=init, n_init=n_init, max_iter=max_iter, tol=tol,
        solver=solver, rng=rng, spectrum="standard", criterion=CRITERIA[0],
    )
    result.extra["classes"] = np.unique(labels)
    result.extra["reading"] = reading
    if test is not None:
        result.extra["within_class_test"] = test
    return result
