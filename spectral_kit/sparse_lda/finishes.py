"""Direct finishes of the exact search: nodes a few variables from their leaves.

One job: solve a node that keeps r more of its free variables by evaluating (or testing)
the completions F ∪ R at once instead of growing a subtree -- rank one by bordered
Cholesky passes over all the r-subsets (r ≤ 3), general A by the threshold test of
:func:`._completions.completions_above` (r ≤ 6) -- and the *merged* solve of the children
that keep u_1 as one finish from F ∪ {u_1} (:meth:`_DirectFinishes.solves_kept_directly`).

Invariant: every completion that could beat the incumbent (value + margin > threshold) is
evaluated exactly and offered; a finish that cannot decide says so (returns False) and the
node is branched as any other.
"""

from __future__ import annotations

import math

import numpy as np

from ._completions import completions_above
from ._numerics import (
    batched_values,
    bordered_add_pairs_values,
    bordered_add_values,
    rank_one_add_subsets_values,
    rank_one_add_values,
)

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny


class _DirectFinishes:
    """Mixin of the search (:class:`.search._Search`): direct finishes and merged solves."""

    #: Most subsets a node may enumerate to finish directly (:meth:`exact_r`).
    EXACT_SUBSETS = 20_000
    #: Nodes keeping at most this many more variables are solved directly from F
    #: (:meth:`solve_direct`; rank one, general A), with this relative margin for near-ties.
    DIRECT_R = 3
    #: General A: six, measured on the noise-only pair at n = 50, k = 10 (certified in
    #: 13.0 / 7.8 / 6.3 / 10.8 s with 5 / 6 / 7 / 8) and at n = 60 (54 s with 6, 90 s with 7).
    GENERAL_DIRECT_R = 6
    #: General A: most candidate triples of a node finished directly, and most chain steps
    #: of one direct finish (:func:`._completions.completions_above`; past them the node is
    #: branched as any other).
    EXACT_TRIPLES = 40_000
    EXACT_STEPS = 5_000
    DIRECT_MARGIN = 1e-8

    def solve_direct(self, F_mask: np.ndarray, T_mask: np.ndarray) -> bool:
        """A node that keeps r more of its free variables, r ≤ :attr:`DIRECT_R` (rank one)
        or :attr:`GENERAL_DIRECT_R` (general A), is solved from F (:meth:`solve_small`)
        without factorizing B_T or computing a bound: near the leaves that costs less than
        the bounds. Returns whether the node was solved."""
        T = T_mask.nonzero()[0]
        in_F = F_mask[T]
        r = self.k - np.count_nonzero(in_F)
        free = T.size - (self.k - r)
        if not self.pair.rank_one:
            if not 1 <= r <= min(self.GENERAL_DIRECT_R, self.exact_r(free)) or free <= r:
                return False
            solved = self.solve_small(T[in_F], T[~in_F], r,
                                      self.DIRECT_MARGIN * max(abs(self.threshold()), _TINY))
            self.nodes += solved  # undecided: the node is expanded (and counted) as any other
            return solved
        if not 1 <= r <= min(self.DIRECT_R, self.exact_r(free)) or free <= r:
            return False
        self.nodes += 1
        # the values are compared with each other and with the incumbent only to choose
        # which subsets to evaluate exactly: a generous relative margin costs a few more
        # exact evaluations among near-ties, never a missed one
        margin = self.DIRECT_MARGIN * max(abs(self.threshold()), _TINY)
        self.solve_small(T[in_F], T[~in_F], r, margin)
        return True
    def exact_r(self, free: int) -> int:
        """Rank one: up to three more variables, by one bordered-Cholesky pass over all the
        subsets (:func:`._numerics.rank_one_add_subsets_values`), while there are at most
        :attr:`EXACT_SUBSETS`; general A: up to :attr:`GENERAL_DIRECT_R`, by the threshold
        test of :func:`._completions.completions_above`, while there are at most
        :attr:`EXACT_TRIPLES` triples of candidates (else two, by bordering F's whitened
        eigenproblem, :func:`._numerics.bordered_add_pairs_values`). They replace a subtree
        of up to ``free`` levels."""
        if not self.pair.rank_one:
            if math.comb(free, 3) <= self.EXACT_TRIPLES:
                return self.GENERAL_DIRECT_R
            return 2 if self.k >= 3 and math.comb(free, 2) <= self.EXACT_SUBSETS else 1
        for r in (3, 2):
            if math.comb(free, r) <= self.EXACT_SUBSETS:
                return r
        return 1

    def solves_kept_directly(self, r: int, free: int) -> bool:
        """General A, r ≤ :attr:`GENERAL_DIRECT_R` + 1: one direct solve from F ∪ {u_1}
        costs less than queuing a direct child and its own r − 1 … 1 siblings (rank one:
        no faster, so its trees stay as they were)."""
        if self.pair.rank_one:
            return False
        return 2 <= r <= self.GENERAL_DIRECT_R + 1 and r - 1 <= self.exact_r(free - 1) and free > r

    def solve_small(self, F_idx: np.ndarray, cand: np.ndarray, r: int, margin: float) -> bool:
        if not self.pair.rank_one:
            # the subsets that can beat the incumbent, by the sign of a Schur complement: near
            # the leaves, where the incumbent is rarely beaten, nothing is evaluated
            above = completions_above(self.pair, F_idx, cand, r, self.threshold() - margin,
                                      self.EXACT_STEPS)
            if above is not None:
                self.offer_rows(F_idx, cand, above, margin)
                return True
            if r >= 3 or (r == 2 and F_idx.size == 0):
                # pairs are bordered onto F's eigenproblem: with F empty (k = 2 at the
                # root) there is none, and the node is branched as any other
                return False
            if r == 1:
                idx = None
                values, error = bordered_add_values(self.pair, F_idx, cand)
            else:
                # below the floor a subset cannot be offered (value + margin ≤ threshold)
                idx, values, error = bordered_add_pairs_values(
                    self.pair, F_idx, cand, floor=self.threshold() - margin)
            self.offer_near_top(F_idx, cand, idx, values, max(margin, error))
            return True
        if r == 1:
            idx, values = None, rank_one_add_values(self.pair, F_idx, cand)
        else:
            idx, values = rank_one_add_subsets_values(self.pair, F_idx, cand, r)
        self.offer_near_top(F_idx, cand, idx, values, margin)
        return True

    def offer_rows(self, F_idx: np.ndarray, cand: np.ndarray, rows: np.ndarray,
                   margin: float) -> None:
        """Offer the subsets F ∪ cand[row] that may beat the incumbent: evaluated together,
        then exactly those near the top."""
        if rows.shape[0] == 0:
            return
        supports = np.concatenate(
            [np.broadcast_to(F_idx, (rows.shape[0], F_idx.size)), cand[rows]], axis=1)
        values = batched_values(self.pair, supports)
        self.offer_near_top(F_idx, cand, rows, values, margin)

    def offer_near_top(self, F_idx: np.ndarray, cand: np.ndarray, idx: np.ndarray | None,
                       values: np.ndarray, margin: float) -> None:
        """Evaluate exactly (:meth:`offer`) the subsets F ∪ cand[idx[i]] (F ∪ {cand[i]}
        without ``idx``) whose computed value, accurate to ``margin``, could be the best
        and beat the incumbent."""
        if values.size == 0:
            return
        top = float(np.maximum.reduce(values))
        # supports built only for the subsets near the top (they are evaluated exactly)
        for i in (values >= top - 2.0 * margin).nonzero()[0]:
            if values[i] + margin > self.threshold():
                chosen = cand[i : i + 1] if idx is None else cand[idx[i]]
                self.offer(np.concatenate([F_idx, chosen]))
