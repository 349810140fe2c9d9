"""Node bounds of the exact search: what prunes a node, fixes a variable or bounds a child.

One job: the hooks of :class:`.branching._Branching` that decide with bounds -- the cheap
cardinality bounds before any factorization (trace–Frobenius, row sums, Perron weights,
soft threshold; :mod:`.bounds`), the removal, Schur-loss, kept-side and perspective bounds
of a node (:mod:`.perspective`), the top-entries bound, and from them the per-variable
exclusion bounds and the children's bounds. Bounds that never prune are given up
(:meth:`_NodeBounds.worth_trying`).

Invariant: every bound returned is ≥ the value of every k-subset it stands for, with its
rounding slack included; cached terms (``_phi``, ``_kept``, ``_persp``) are read only at
the node (``info``) they were computed for.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np
import scipy.linalg

from . import bounds
from ._numerics import (
    submatrix,
)
from .nodes import _NodeInfo, _pairs_block
from .perspective import perspective_terms

_EPS = np.finfo(float).eps
_TINY = np.finfo(float).tiny


# LAPACK directly: the node matrices are small, and scipy.linalg's checks cost more than
# the factorizations themselves.
_potrf = scipy.linalg.lapack.dpotrf
_potri = scipy.linalg.lapack.dpotri
_trtri = scipy.linalg.lapack.dtrtri
_posv = scipy.linalg.lapack.dposv



class _NodeBounds:
    """Mixin of the search (:class:`.search._Search`): bounds at a node."""

    #: Eigenpairs tried by the top-entries bound of a general A.
    TOP_Q = 3
    #: Smallest n at which the top-entries bound is tried when B ≠ I.
    TOP_MIN_N = 24
    #: A bound that has not pruned a single node in this many tries is no longer computed.
    PATIENCE = 300
    #: ... and the top-entries bound when B ≠ I after this many: through P_SS ⪰ B_S⁻¹ it
    #: pruned no node of any benchmark pair with B ≠ I (rank one n = 60–80, general A
    #: n = 30–60, with and without a planted direction), at O(m³) a try.
    TOP_PATIENCE_B = 50
    #: Steps of the Perron weight iteration (:func:`.bounds.perron_rows_bound`) at a node
    #: and at the root.
    PERRON_ITERS = 10
    PERRON_ROOT_ITERS = 200
    #: The soft-threshold bound (three dense eigenvalue problems a node) is dropped once it
    #: has pruned nothing and cost more than this share of the search's time, after at
    #: least SOFT_MIN_SECONDS: at a few thousand variables a try costs a second, and on
    #: colon's 2,000 genes it pruned none of the first 23 nodes at k = 20.
    SOFT_SHARE = 0.1
    SOFT_MIN_SECONDS = 2.0
    #: ... and sooner, once it has pruned nothing and, at its best level (neither
    #: neighbouring level lower), been no lower than the bound the node was queued under
    #: this many times: on colon's 2,000 genes at k = 20 it settles at 18.60 on nodes
    #: queued under 18.53, and its tries took a tenth of the search.
    SOFT_IDLE = 2
    #: Rank one, B ≠ I: nodes keeping at least this many more free variables get the
    #: perspective bound (:func:`.perspective.perspective_terms`); below it the node is a
    #: few direct evaluations away from its leaves.
    PERSPECTIVE_MIN_R = 2
    #: ... with this many solves in its first round (later rounds take three), and no
    #: further rounds once its bound then exceeds the threshold by more than this fraction
    #: of f(T). A call that does not prune still tightens the terms that fix variables out
    #: and bound the children: on the random k = n/2 pairs at n = 60–80, going on up to 5 %
    #: above the threshold (instead of 1 %) leaves 25–58 % fewer nodes, and once later
    #: rounds follow, two first solves instead of six cost no nodes.
    PERSPECTIVE_FIRST_STEPS = 2
    PERSPECTIVE_GIVE_UP = 0.05

    # -- bounds -------------------------------------------------------------------------------
    def cheap_bound(self, T: np.ndarray, in_F: np.ndarray, r: int,
                    rows: bool = False, iters: int | None = None) -> Any:
        """Trace–Frobenius, row-sum, fixed-block and Perron-weighted row-sum bounds on A
        over the node (÷ λ_min(B) when B ≠ I); with ``rows``, also the unweighted row sums
        R_i (for the branching order). ``iters``: steps of the Perron weight iteration."""
        if iters is None:
            iters = self.PERRON_ITERS
        A_T = submatrix(self.pair.A, T)
        absA_T = submatrix(self.absA, T)
        b = bounds.wolkowicz_styan_bound(A_T, in_F, r, self.k)
        R = bounds.collatz_rows(A_T, absA_T, in_F, r)
        b = min(b, float(R.max()))
        if in_F.any() and self.worth_trying("block"):
            A_F = A_T[np.ix_(in_F, in_F)]
            lam_F = float(np.linalg.eigvalsh(A_F)[-1])
            block = bounds.block_bound(lam_F, A_T, in_F, r)
            self.record("block", block < b)
            b = min(b, block)
        # the threshold in units of A (bounds on A are divided by λ_min(B) below)
        target = (self.threshold() - self.cheap_margin(T.size)) * self.lambda_min_B
        if b > target and self.worth_trying("perron"):
            # weights warm-started from the last node's: neighbouring nodes share them
            perron, w = bounds.perron_rows_bound(A_T, absA_T, in_F, r, self.perron_w[T],
                                                 target, iters)
            self.perron_w[T] = w
            self.record("perron", perron <= target)
            b = min(b, perron)
        if not self.identity_B:
            b = bounds.scaled_by_lambda_min(b, self.lambda_min_B)
        return (b, R) if rows else b

    def cheap_margin(self, m: int) -> float:
        return 64.0 * m * self.k * _EPS * self.scale_A / self.lambda_min_B

    def prune_early(self, T: np.ndarray, in_F: np.ndarray, r: int) -> bool:
        if self.cheap:
            b = self.cheap_bound(T, in_F, r)
            if b + self.cheap_margin(T.size) <= self.threshold():
                self.pruned_early += 1
                return True
        return self.prune_soft(T)

    def prune_soft(self, T: np.ndarray) -> bool:
        """B = I: the soft-threshold bound at a few levels c around the last best one."""
        if not self.identity_B or not self.worth_trying("soft"):
            return False
        start = time.perf_counter()
        if self.stats.get("soft", (0, 0))[1] == 0 and (
                self.soft_idle >= self.SOFT_IDLE or self.soft_seconds > max(
                    self.SOFT_MIN_SECONDS, self.SOFT_SHARE * (start - self._started))):
            return False
        A_T = submatrix(self.pair.A, T)
        threshold = self.threshold() - self.cheap_margin(T.size) * T.size
        c0 = self.soft_c
        best, best_c = np.inf, c0
        for c in (c0, 0.8 * c0, 1.25 * c0):
            b = bounds.soft_threshold_bound(A_T, c, self.k)
            if b < best:
                best, best_c = b, c
            if best <= threshold:
                break
        self.soft_c = best_c
        self.soft_seconds += time.perf_counter() - start
        if best_c == c0 and best >= self.expanding_bound:
            self.soft_idle += 1
        return self.record("soft", best <= threshold)

    def prune_node(self, info: _NodeInfo, free: np.ndarray, in_F: np.ndarray,
                   e: int, r: int) -> bool:
        threshold = self.threshold() - info.margin
        h = self.exclusion_bounds(info, free, e)
        self._excl = (free, h)
        bound = min(info.f_T, bounds.kth_largest(h, e))
        if bound <= threshold:
            return True
        try_persp = self.use_perspective and e >= 2 and r >= self.PERSPECTIVE_MIN_R
        if try_persp:
            # first: where it applies it is the bound that prunes, and at every node it
            # prunes it saves the Schur terms below (the tree is the same in either order).
            # No patience: early in a search, under a weak incumbent, it may not prune for
            # hundreds of nodes, and its terms tighten fixing and children anyway.
            if self.perspective_bound(info, free, r) <= threshold:
                return self.record("perspective", True)
            self.record("perspective", False)
        if self.pair.rank_one and e >= 1:
            loss = self.schur_losses(info, free, e)
            if info.f_T - loss[1] + loss[2] <= threshold:
                return self.record("schur", True)
            self.record("schur", False)
            h = np.minimum(h, info.f_T - bounds.schur_exclusion_losses(loss[0], e) + loss[2])
            if self.kept_terms(info, free, r) <= threshold:
                return self.record("schur_kept", True)
            self.record("schur_kept", False)
            h = np.minimum(h, self.kept_exclusion(info, free, e))
            self._excl = self._order = (free, h)
            if try_persp:
                h = np.minimum(h, self._side_exclusion(self._persp, info, free, e))
                self._excl = (free, h)
        # The top-entries bound. With B ≠ I it goes through P_SS ⪰ B_S⁻¹, loose when S is
        # much smaller than T (and O(m³) a node): tried only on problems large enough to
        # amortize the tries, and dropped when it does not prune.
        patience = self.PATIENCE if self.identity_B else self.TOP_PATIENCE_B
        if not self.worth_trying("top_entries", patience) or (
                not self.identity_B and self.n < self.TOP_MIN_N):
            return False
        extra = info.extra
        if self.pair.rank_one:
            d, P = extra["d"], extra["P"]
            Q = P * np.multiply.outer(d, d)
            top = bounds.entry_sum_bound(Q, in_F, r)
            # rounding: the sums have ≤ k² terms of size ≤ max|Q|
            slack = 64.0 * self.k * self.k * _EPS * float(np.abs(Q).max())
        else:
            lam, V, L, L_inv = extra["lam"], extra["V"], extra["L"], extra["L_inv"]
            U = V[:, ::-1][:, : min(self.TOP_Q, lam.size)]
            P = None
            if L is not None:
                U = L @ U
                P = L_inv.T @ L_inv
            top = bounds.top_entries_bound(lam[::-1], U, P, in_F, r)
            scale = float(np.abs(lam).max()) * (1.0 if P is None else float(np.abs(P).max()))
            slack = 64.0 * self.k * self.k * _EPS * scale * float((U * U).sum())
        return self.record("top_entries", top + slack <= threshold)

    def schur_losses(self, info: _NodeInfo, free: np.ndarray,
                     e: int) -> tuple[np.ndarray, float, float]:
        """Rank one: the terms φ of :func:`.bounds.schur_loss_terms` over the free
        variables, their e-smallest sum and a rounding slack (kept for the node's fixing
        and children)."""
        extra = info.extra
        P = extra["P"]
        x = extra["w"]
        phi, total = bounds.schur_loss_terms(submatrix(P, free), x[free], e)
        # the terms are sums of ≤ m entries, each ≤ f(T) in size, computed from P and x
        slack = free.size * info.margin
        phi_T = np.full(info.g.size, np.nan)
        phi_T[free] = phi
        self._phi = (info, phi_T, slack)
        return phi, total, slack

    def kept_terms(self, info: _NodeInfo, free: np.ndarray, r: int) -> float:
        """Rank one: :func:`.bounds.schur_kept_terms` over the free variables; returns the
        node bound and keeps base, ψ (by position in T) and the slack for fixing and the
        children."""
        P, x = info.extra["P"], info.extra["w"]
        P_ff, x_f = submatrix(P, free), x[free]
        slack = free.size * info.margin
        t = x_f / P_ff.diagonal()
        # second direction: u = P_ff⁻¹ x_f, exact when nothing more is kept (any direction
        # is valid: an inexact solve costs tightness, not validity)
        failed = True
        if free.size > 1:
            _, u, failed = _posv(P_ff, x_f, lower=1)
        if failed:
            base, psi = bounds.schur_kept_terms(P_ff, x_f, r, t)
        else:
            bases, psis = bounds.schur_kept_terms(P_ff, x_f, r, np.array([t, u]))
            totals = bases - bounds.top_sums(psis, r)
            best = 1 if totals[1] > totals[0] else 0
            base, psi = float(bases[best]), psis[best]
            if best:
                # |Q_ij| ≤ max_i u_i² P_ii, which may exceed f(T) (along x / diag(P) it
                # cannot): the rounding slack grows with it
                amp = float((u * u * P_ff.diagonal()).max()) / max(abs(info.f_T), _EPS)
                slack *= max(1.0, amp)
        self._kept = self._side_state(info, free, base, psi, slack)
        return info.f_T - base + float(bounds.top_sums(psi, r)) + slack

    def perspective_bound(self, info: _NodeInfo, free: np.ndarray, r: int) -> float:
        """Rank one, B ≠ I: :func:`.perspective.perspective_terms` over the free variables;
        returns the node bound and keeps base, ψ and the slack (as :meth:`kept_terms`)."""
        self._persp = None
        slack = free.size * info.margin
        stop = self.threshold() - info.margin - info.f_T - slack
        terms = perspective_terms(submatrix(info.extra["P"], free), info.extra["w"][free], r,
                                  iters=self.PERSPECTIVE_FIRST_STEPS, stop=stop,
                                  give_up=self.PERSPECTIVE_GIVE_UP * abs(info.f_T))
        if terms is None:
            return np.inf
        base, psi = terms
        bound, slack = self.perspective_node_bound(info, free, r, base, psi)
        self._persp = self._side_state(info, free, base, psi, slack)
        return bound

    @staticmethod
    def perspective_node_bound(info: _NodeInfo, free: np.ndarray, r: int, base: float,
                               psi: np.ndarray) -> tuple[float, float]:
        """The node bound f(T) − base + top_r(ψ) + slack of perspective terms over the free
        variables, and its rounding slack."""
        top = float(bounds.top_sums(psi, r))
        # base and the ψ_i are differences of terms as large as themselves (and f(T)
        # itself): the rounding slack grows with them
        amp = (abs(base) + top) / max(abs(info.f_T), _EPS)
        slack = free.size * info.margin * max(1.0, amp)
        return info.f_T - base + top + slack, slack

    @staticmethod
    def _side_state(info: _NodeInfo, free: np.ndarray, base: float, psi: np.ndarray,
                    slack: float) -> tuple:
        """What :meth:`_kept_state` reads back: a kept-side bound f(T) − base + Σ ψ with ψ
        by position in T and the free set it was computed over."""
        psi_T = np.zeros(info.g.size)
        psi_T[free] = psi
        orig = np.zeros(info.g.size, dtype=bool)
        orig[free] = True
        return info, base, psi_T, orig, slack

    def _kept_state(self, info: _NodeInfo, free: np.ndarray, cached=None):
        """(base, ψ by position in T, the ψ of the variables fixed since, slack) of a
        kept-side bound (default the Schur kept terms) computed at this node, else None."""
        if cached is None:
            cached = self._kept
        if cached is None or cached[0] is not info:
            return None
        _, base, psi_T, orig, slack = cached
        # variables fixed since ψ was computed are kept by every subset: always in R'
        now = np.zeros(orig.size, dtype=bool)
        now[free] = True
        mandatory = float(np.add.reduce(psi_T[orig & ~now]))
        return base, psi_T, mandatory, slack

    def _kept_states(self, info: _NodeInfo, free: np.ndarray):
        """The kept-side states (:meth:`_kept_state`) this node has: the Schur kept terms,
        then the perspective terms."""
        for cached in (self._kept, self._persp):
            state = self._kept_state(info, free, cached)
            if state is not None:
                yield state

    def excluded_free(self, info: _NodeInfo, free: np.ndarray, r: int) -> np.ndarray:
        """Rank one: the free j whose kept-side bound on the subsets that keep j,
        f(T) − base + mandatory + ψ_j + (the r − 1 largest other ψ) + slack, does not beat
        the incumbent, for the Schur kept terms or the perspective terms of this node
        (fixing to zero: every improving subset leaves j out)."""
        bound = np.full(free.size, np.inf)
        for base, psi_T, mandatory, slack in self._kept_states(info, free):
            psi = psi_T[free]
            srt = -np.sort(-psi)
            # j among the r largest: the r largest; otherwise ψ_j and the r − 1 largest
            keeps = np.where(psi >= srt[r - 1], np.add.reduce(srt[:r]),
                             np.add.reduce(srt[: r - 1]) + psi)
            bound = np.minimum(bound, info.f_T - base + mandatory + keeps + slack)
        return free[bound + info.margin <= self.threshold()]

    def kept_exclusion(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        """For each free j, the kept-side bound on the subsets that leave j out: R' is
        the fixed-since variables plus r of the other free ones."""
        return self._side_exclusion(self._kept, info, free, e)

    def _side_exclusion(self, cached, info: _NodeInfo, free: np.ndarray,
                        e: int) -> np.ndarray:
        """:meth:`kept_exclusion` for the kept-side state ``cached``."""
        state = self._kept_state(info, free, cached)
        if state is None:
            return np.full(free.size, np.inf)
        base, psi_T, mandatory, slack = state
        r = free.size - e
        psi = psi_T[free]
        order = np.argsort(-psi, kind="stable")
        ranks = np.empty(psi.size, dtype=np.intp)
        ranks[order] = np.arange(psi.size)
        srt = psi[order]
        top_r = float(np.add.reduce(srt[:r]))
        others = np.where(ranks < r, top_r + srt[r] - psi, top_r) if r < psi.size else top_r
        return info.f_T - base + mandatory + others + slack

    def worth_trying(self, name: str, patience: int | None = None) -> bool:
        tries, prunes = self.stats.get(name, (0, 0))
        return prunes > 0 or tries < (self.PATIENCE if patience is None else patience)

    def record(self, name: str, pruned: bool) -> bool:
        tries, prunes = self.stats.get(name, (0, 0))
        self.stats[name] = (tries + 1, prunes + int(pruned))
        return pruned
    def exclusion_bounds(self, info: _NodeInfo, free: np.ndarray, e: int) -> np.ndarray:
        cached = getattr(self, "_excl", None)
        if cached is not None and cached[0] is free:
            return cached[1]
        if info.H is not None and e >= 2:
            h = bounds.pair_exclusion_bounds(_pairs_block(info.H, free, free), e)
        else:
            h = bounds.removal_exclusion_bounds(info.g[free], e)
        phi = getattr(self, "_phi", None)
        if phi is not None and phi[0] is info:
            # φ was computed over a larger free set: still valid (ρ took the top over more)
            h = np.minimum(h, info.f_T - bounds.schur_exclusion_losses(phi[1][free], e)
                           + phi[2])
            # after fixing: the kept-side terms afresh over the smaller free set (a smaller
            # r tightens every row's top_{r−1})
            self.kept_terms(info, free, free.size - e)
            h = np.minimum(h, self.kept_exclusion(info, free, e))
            self._order = (free, h)
            # the perspective terms stay those of the larger free set (valid, see
            # _kept_state): recomputing them would cost more than the fixing gains
            h = np.minimum(h, self._side_exclusion(self._persp, info, free, e))
        return h

    def branching_keys(self, free: np.ndarray, h: np.ndarray) -> np.ndarray:
        """The exclusion bounds without the perspective terms. Those are tighter but rank
        the variables differently, and on Brownian pairs sorting by them made the tree
        several times larger."""
        order = self._order
        return order[1] if order is not None and order[0] is free else h

    def child_bounds(self, info: _NodeInfo, u: np.ndarray, h_sorted: np.ndarray, r: int,
                     e: int) -> np.ndarray:
        """The children's bounds, all r + 1 at once on (r + 1) × |u| arrays (row i masks
        u_1 … u_i). Child i leaves u_i and e − 1 of u_{i+1}, … out and keeps u_1 … u_{i−1};
        its bound is the smallest of

        * u_i's exclusion bound, and the (e − 1)-th largest of (bounds on) f(T ∖ {u_i, j})
          where the node has them, else of f(T ∖ j), over the rest
          (:func:`.bounds.removal_bound`'s argument);
        * rank one: f(T) − φ_{u_i} − (the e − 1 smallest φ over the rest)
          (:func:`.bounds.schur_loss_terms`);
        * rank one: the kept-side bound with u_1 … u_{i−1} kept and the r − i + 1 largest ψ of
          the rest (:func:`.bounds.schur_kept_terms`).

        A row with too few variables left gives −∞: that child has no subset."""
        M = u.size
        rows = r + 1
        later = np.arange(M)[None, :] > np.arange(rows)[:, None]  # j > i: u_j is in "rest"
        bound = h_sorted[:rows].astype(float)
        if e >= 2:
            if info.H is not None:
                X = _pairs_block(info.H, u[:rows], u)
            else:
                X = np.broadcast_to(info.g[u], (rows, M))
            X = np.where(later, X, -np.inf)
            X.partition(M - (e - 1), axis=1)
            kth = X[:, M - (e - 1)]
            bound = np.minimum(bound, kth)
        if info.H is None or not self.pair.rank_one:
            return bound
        cached = getattr(self, "_phi", None)
        if cached is not None and cached[0] is info:
            phi_T, slack = cached[1], cached[2]
            low = np.zeros(rows)
            if e >= 2:
                Y = np.where(later, phi_T[u][None, :], np.inf)
                Y.partition(e - 2, axis=1)
                low = np.add.reduce(Y[:, : e - 1], axis=1)
            bound = np.minimum(bound, info.f_T - phi_T[u[:rows]] - low + slack)
        for base, psi_T, mandatory, slack in self._kept_states(info, u):
            psi = psi_T[u]
            prefix = np.concatenate([[0.0], np.add.accumulate(psi)])[:rows]
            Z = np.where(later, psi[None, :], -np.inf)
            Z = -np.sort(-Z, axis=1)  # each row's rest, largest first
            need = r - np.arange(rows)  # kept variables still to take from the rest
            top = np.add.accumulate(np.where(np.isfinite(Z), Z, 0.0), axis=1)
            have = M - 1 - np.arange(rows)
            chosen = np.where(
                need > 0, top[np.arange(rows), np.minimum(np.maximum(need - 1, 0), M - 1)], 0.0)
            kept = np.where(need <= have,
                            info.f_T - base + mandatory + prefix + chosen + slack, -np.inf)
            bound = np.minimum(bound, kept)
        return bound

