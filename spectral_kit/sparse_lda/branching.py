"""Branching of the exact search: one node, from its bounds to its children.

One job: :meth:`_Branching.expand` -- fix the variables every improving subset keeps (or
leaves out), finish nodes one or two removals from a leaf, and otherwise queue the
Narendra–Fukunaga children (child i leaves u_i out and keeps u_1 … u_{i−1}), each under
its bound. The bounds and the direct finishes come from hooks (:mod:`.node_bounds`,
:mod:`.finishes`).

Invariant: the children partition the node's k-subsets minus those proven unable to beat
the incumbent by more than the gap (bound plus margin ≤ threshold).
"""

from __future__ import annotations

import numpy as np

from .driver import _Driver
from .nodes import _NodeInfo, _pairs_block, _pairs_exact


class _Branching(_Driver):
    """The driver with :meth:`expand`: fixing, leaves and Narendra–Fukunaga children."""

    # -- hooks (:mod:`.nodes`, :mod:`.node_bounds`, :mod:`.finishes`) -----------------------
    def node_info(self, T: np.ndarray) -> _NodeInfo:
        """f(T), the removal values and the margin of the node with variables T."""
        raise NotImplementedError

    def prune_early(self, T: np.ndarray, in_F: np.ndarray, r: int) -> bool:
        """Whether a bound computed without factorizing B_T already prunes the node."""
        raise NotImplementedError

    def prune_node(self, info: _NodeInfo, free: np.ndarray, in_F: np.ndarray,
                   e: int, r: int) -> bool:
        """Whether a node bound beyond f(T) prunes the node."""
        raise NotImplementedError

    def excluded_free(self, info: _NodeInfo, free: np.ndarray, r: int) -> np.ndarray:
        """Free variables (positions in T) that no improving subset of the node keeps."""
        raise NotImplementedError

    def exclusion_bounds(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        """For each free j, a bound on the node's subsets that leave j out."""
        raise NotImplementedError

    def branching_keys(self, free: np.ndarray, h: np.ndarray) -> np.ndarray:
        """What the free variables are sorted by for branching (increasing)."""
        raise NotImplementedError

    def child_bounds(self, info: _NodeInfo, u: np.ndarray, h_sorted: np.ndarray, r: int,
                     e: int) -> np.ndarray:
        """Bounds of the Narendra–Fukunaga children 0 … r."""
        raise NotImplementedError

    def exact_r(self, free: int) -> int:
        """Nodes with at most this many free variables still to choose are solved directly."""
        raise NotImplementedError

    def solves_kept_directly(self, r: int, free: int) -> bool:
        """Whether the children that keep u_1 (1 … r) are solved at once, as F ∪ {u_1}
        choosing r − 1 of the other free variables, instead of being queued."""
        raise NotImplementedError

    def solve_small(self, F_idx: np.ndarray, cand: np.ndarray, r: int, margin: float) -> bool:
        """Offer the best S = F ∪ R over the r-subsets R of ``cand`` (r ≤ :meth:`exact_r`);
        whether it could (if not, the node is branched as any other)."""
        raise NotImplementedError

    # -- one node ---------------------------------------------------------------------------
    def expand(self, F_mask: np.ndarray, T_mask: np.ndarray, own: bool = False) -> None:
        """Expand one node (``own``: its queued bound was computed for it, see :meth:`push`)."""
        k = self.k
        T = T_mask.nonzero()[0]
        in_F = F_mask[T]
        e, r = T.size - k, k - np.count_nonzero(in_F)
        if e == 0:
            self.offer(T)
            return
        if r == 0:
            self.offer(T[in_F])
            return
        self.nodes += 1
        if not own and self.prune_early(T, in_F, r):
            return
        info = self.node_info(T)
        margin, g, H = info.margin, info.g, info.H
        use_pairs = H is not None and e >= 2
        free = (~in_F).nonzero()[0]
        fixed = list(in_F.nonzero()[0])
        if self.prune_node(info, free, in_F, e, r):
            return

        while True:  # fixing: variables that every improving subset must contain
            h = self.exclusion_bounds(info, free, e)
            forced = h + margin <= self.threshold()
            if not forced.any():
                break
            fixed.extend(free[forced])
            free = free[~forced]
            r = k - len(fixed)
            if r < 0:
                return
            if r == 0:
                self.offer(T[np.array(fixed, dtype=np.intp)])
                return
        if np.maximum.reduce(h) + margin <= self.threshold():
            return
        out = self.excluded_free(info, free, r) if e >= 2 and r >= 2 else free[:0]
        if out.size:  # no improving subset keeps them: the node again, without them
            if out.size > e:
                return
            child_F = F_mask.copy()
            child_F[T[np.array(fixed, dtype=np.intp)]] = True
            child_T = T_mask.copy()
            child_T[T[out]] = False
            self.expand(child_F, child_T)
            return
        F_pos = np.array(fixed, dtype=np.intp)
        if e == 1:  # S = T∖u for one free u
            self.offer_best([np.delete(T, u) for u in free], g[free], margin)
            return
        if use_pairs and e == 2 and _pairs_exact(H):  # S = T∖{u, v}
            sub = _pairs_block(H, free, free)
            iu, ju = np.triu_indices(free.size, 1)
            supports = [np.delete(T, [free[a], free[b]]) for a, b in zip(iu, ju)]
            self.offer_best(supports, sub[iu, ju], margin)
            return
        if r <= self.exact_r(free.size) and self.solve_small(T[F_pos], T[free], r, margin):
            return  # S = F ∪ R for r free variables R: solved directly
        order = np.argsort(self.branching_keys(free, h), kind="stable")
        u = free[order]
        h_sorted = h[order]
        depth = int(T_mask.size - T.size) + len(fixed)
        child_bounds = self.child_bounds(info, u, h_sorted, r, e)
        merged = self.solves_kept_directly(r, free.size)
        for i in range(r + 1):
            if i and self.interrupted():
                # the children not yet queued keep u_1 … u_i: one node, under their bounds
                rest_F = F_mask.copy()
                rest_F[T[u[:i]]] = True
                rest_F[T[F_pos]] = True
                rest = float(np.maximum.reduce(child_bounds[i:])) + margin
                _Driver.push(self, min(rest, self.expanding_bound), depth + i, rest_F,
                             T_mask.copy())
                return
            bound = float(child_bounds[i])
            if merged and i == 1:  # children 1 … r keep u_1 and r − 1 of the rest
                if float(np.maximum.reduce(child_bounds[1:])) + margin <= self.threshold():
                    break
                if self.solve_small(np.append(T[F_pos], T[u[0]]), T[u[1:]], r - 1, margin):
                    self.nodes += 1
                    break
                merged = False  # not solvable at once: queued as the other children
            if bound + margin <= self.threshold():
                continue
            if i == r:  # includes u_1..u_r: the subset is complete
                self.offer(np.concatenate([T[F_pos], T[u[:r]]]))
                continue
            child_F = F_mask.copy()
            child_F[T[u[:i]]] = True
            child_F[T[F_pos]] = True
            child_T = T_mask.copy()
            child_T[T[u[i]]] = False
            self.push(bound + margin, depth + i + 1, child_F, child_T)
