"""Result types of sparse LDA: one sparse discriminant, a path over k, a branch-and-bound run."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import NamedTuple

import numpy as np

__all__ = [
    "ESLDAResult",
    "GSLDAPath",
    "InclusionBounds",
    "Interlacing",
    "NestedPath",
    "SparseDiscriminant",
    "SparsePath",
    "TreeSizeEstimate",
]


class InclusionBounds(NamedTuple):
    """Eq. 8: ``λ_k(A, B) ≤ λ_max(A_k, B_k) ≤ λ_n(A, B)`` for every k-subset.

    Parameters
    ----------
    lower : float
        λ_k(A, B), the k-th smallest generalized eigenvalue.
    upper : float
        λ_n(A, B), the largest.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> sl.inclusion_bounds(A, np.eye(4), 2)
    InclusionBounds(lower=1.0, upper=3.0)
    """

    lower: float
    upper: float


@dataclass(frozen=True)
class Interlacing:
    """The generalized inclusion principle (Thm. 1, Eq. 7) for one principal subproblem.

    Attributes
    ----------
    support : ndarray of int, shape (k,)
        Sorted indices S of the subproblem (A_S, B_S).
    spectrum : ndarray of shape (n,)
        λ_1(A, B) ≤ … ≤ λ_n(A, B), ascending (the paper ranks eigenvalues in increasing order).
    sub : ndarray of shape (k,)
        λ_1(A_S, B_S) ≤ … ≤ λ_k(A_S, B_S).
    lower, upper : ndarray of shape (k,)
        ``lower[i] = λ_i(A, B)`` and ``upper[i] = λ_{i+n−k}(A, B)`` (1-based i in the paper).
    epsilon : float
        Regularization added to B.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> il = sl.interlacing(A, np.eye(4), [0, 1])
    >>> il.sub.tolist(), il.lower.tolist(), il.upper.tolist()
    ([1.0, 3.0], [0.5, 1.0], [1.0, 3.0])
    """

    support: np.ndarray
    spectrum: np.ndarray
    sub: np.ndarray
    lower: np.ndarray
    upper: np.ndarray
    epsilon: float = 0.0

    def violation(self) -> float:
        """Largest amount by which a sub-eigenvalue leaves its bracket, relative to the
        largest ``|λ|`` of (A, B) (≤ 0 up to rounding when Thm. 1 holds)."""
        scale = max(float(np.abs(self.spectrum).max()), np.finfo(float).tiny)
        below = self.lower - self.sub
        above = self.sub - self.upper
        return float(np.max(np.maximum(below, above))) / scale


@dataclass(frozen=True)
class SparseDiscriminant:
    """A sparse discriminant: a support S and its renormalized factor (Prop. 1–2, Eq. 6).

    Attributes
    ----------
    support : ndarray of int, shape (k,)
        Sorted indices of the non-zero entries.
    value : float
        λ_max(A_S, B_S), the generalized Rayleigh quotient of x.
    x : ndarray of shape (n,)
        The principal generalized eigenvector of (A_S, B_S) on S, zero elsewhere, scaled so
        that ``xᵀ B x = 1`` (the constraint of Eq. 2) and signed so that its entries sum > 0.
    epsilon : float
        Regularization ε added to B (B ← B + εI).
    method : str
        What produced the support ("renormalize", "threshold", "exhaustive", ...).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> res = sl.exhaustive(A, np.eye(4), 2)
    >>> res.support.tolist(), round(res.value, 9)
    ([0, 1], 3.0)
    """

    support: np.ndarray
    value: float
    x: np.ndarray = field(repr=False)
    epsilon: float = 0.0
    method: str = ""

    @property
    def k(self) -> int:
        """Cardinality of the support."""
        return int(self.support.size)


@dataclass(frozen=True)
class TreeSizeEstimate:
    """Knuth's estimate of an exact search's tree (:func:`.tree_size.estimate_tree_size`).

    Attributes
    ----------
    nodes : float
        Estimated nodes the search expands to certify, with the incumbent of ``value``.
    standard_error : float
        Standard error of ``nodes`` over the probes.
    probes : int
        Root-to-leaf walks averaged.
    value : float
        The incumbent's value (the threshold the tree was estimated for).

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> est = sl.estimate_tree_size(A, np.eye(4), 2, [0, 2], probes=10, random_state=0)
    >>> est.nodes >= 1
    True
    """

    nodes: float
    standard_error: float
    probes: int
    value: float

    def seconds_at(self, nodes_per_second: float) -> float:
        """The time the search would take at a measured node rate."""
        return self.nodes / nodes_per_second


@dataclass(frozen=True)
class ESLDAResult:
    """Outcome of exact branch-and-bound sparse LDA (Sec. 2.3).

    Attributes
    ----------
    support, value, x, epsilon
        As in :class:`SparseDiscriminant`, for the best support found (the incumbent).
    upper_bound : float
        A certified upper bound on the optimal value: no k-subset has a larger λ_max. Equal to
        ``value`` (within ``gap``) when the search completed.
    optimal : bool
        Whether the search completed, certifying ``value`` optimal within the relative ``gap``.
    nodes_expanded : int
        Branch-and-bound nodes whose bounds were computed and children generated.
    seconds : float
        Wall time of the search (excluding the greedy initialisation).
    initial_value : float
        Value of the initial incumbent (GSLDA's solution at k, or the given ``init``).
    gap : float
        The relative optimality gap the search was asked to close.
    stopped_by : str
        ``"completed"``, ``"max_seconds"`` or ``"max_nodes"``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> res = sl.eslda(A, np.eye(4), 2)
    >>> res.support.tolist(), round(res.value, 9), res.optimal
    ([0, 1], 3.0, True)
    """

    support: np.ndarray
    value: float
    x: np.ndarray = field(repr=False)
    epsilon: float
    upper_bound: float
    optimal: bool
    nodes_expanded: int
    seconds: float
    initial_value: float
    gap: float
    stopped_by: str

    @property
    def k(self) -> int:
        """Cardinality of the support."""
        return int(self.support.size)

    @property
    def relative_gap(self) -> float:
        """``(upper_bound − value) / |value|``: how far from optimal the incumbent may be."""
        return (self.upper_bound - self.value) / max(abs(self.value), np.finfo(float).tiny)


class _PathAccess:
    """Accessors shared by the path results (k is 1-based: position k−1)."""

    values: np.ndarray

    @property
    def ks(self) -> np.ndarray:
        """The cardinalities 1, …, len(values)."""
        return np.arange(1, self.values.size + 1)

    def value_at(self, k: int) -> float:
        """λ_max of the cardinality-k solution."""
        return float(self.values[self._pos(k)])

    def support_at(self, k: int) -> np.ndarray:
        """Sorted support of the cardinality-k solution."""
        return self.supports[self._pos(k)]  # type: ignore[attr-defined]

    def _pos(self, k: int) -> int:
        if not 1 <= int(k) <= self.values.size:
            raise ValueError(f"k must be an integer in [1, {self.values.size}]; got k={k}.")
        return int(k) - 1


@dataclass(frozen=True)
class NestedPath(_PathAccess):
    """Solutions for k = 1, …, K whose supports are nested: S_k = the first k of ``order``.

    Greedy forward selection adds, greedy backward elimination removes, thresholding and
    correlation ranking keep the top of a fixed ranking: all give nested supports.

    Attributes
    ----------
    order : ndarray of int
        Features in the order they enter the support (for backward elimination: the reverse
        of the order of removal, so S_k is still ``order[:k]``).
    values : ndarray of shape (K,)
        ``values[k−1] = λ_max(A_{S_k}, B_{S_k})`` (renormalized, Prop. 2).
    epsilon : float
    method : str

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.greedy_forward(A, np.eye(4))
    >>> path.order.tolist(), path.values.round(9).tolist()
    ([0, 1, 2, 3], [2.0, 3.0, 3.0, 3.0])
    """

    order: np.ndarray
    values: np.ndarray
    epsilon: float = 0.0
    method: str = ""

    @cached_property
    def supports(self) -> tuple[np.ndarray, ...]:
        """``supports[k−1]`` = sorted S_k."""
        return tuple(np.sort(self.order[:k]) for k in range(1, self.values.size + 1))


@dataclass(frozen=True)
class SparsePath(_PathAccess):
    """Solutions for k = 1, …, K with unrelated supports (e.g. exhaustive search).

    Attributes
    ----------
    supports : tuple of ndarray of int
        ``supports[k−1]`` = sorted support of cardinality k.
    values : ndarray of shape (K,)
    epsilon : float
    method : str

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.exhaustive_path(A, np.eye(4))
    >>> [s.tolist() for s in path.supports][:2]
    [[0], [0, 1]]
    """

    supports: tuple[np.ndarray, ...]
    values: np.ndarray
    epsilon: float = 0.0
    method: str = ""


@dataclass(frozen=True)
class GSLDAPath(_PathAccess):
    """Greedy sparse LDA: the better of a forward and a backward pass at every k (Sec. 2.3).

    Attributes
    ----------
    values : ndarray of shape (n,)
        ``values[k−1]`` = max(forward, backward) λ_max at cardinality k.
    forward, backward : NestedPath
        The two passes.
    source : ndarray of str, shape (n,)
        ``"forward"`` or ``"backward"``: the pass that won at each k (forward on ties).
    epsilon : float
    method : str
        ``"gslda"``.

    Examples
    --------
    >>> import numpy as np
    >>> from spectral_kit import sparse_lda as sl
    >>> A = np.array([[2.0, 1, 0, 0], [1, 2, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0.5]])
    >>> path = sl.gslda(A, np.eye(4))
    >>> path.values.round(9).tolist(), str(path.source[1])
    ([2.0, 3.0, 3.0, 3.0], 'forward')
    """

    values: np.ndarray
    forward: NestedPath
    backward: NestedPath
    source: np.ndarray
    epsilon: float = 0.0
    method: str = "gslda"

    @cached_property
    def supports(self) -> tuple[np.ndarray, ...]:
        """``supports[k−1]`` = sorted support of the winning pass at k."""
        fwd, bwd = self.forward.supports, self.backward.supports
        return tuple(
            fwd[i] if self.source[i] == "forward" else bwd[i] for i in range(self.values.size)
        )
