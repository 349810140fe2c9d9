"""Where exact sparse LDA spends its nodes, and how far its node bounds stand above the truth.

A diagnostic for rank-one searches that do not finish, not a registered benchmark
(``python -m spectral_kit.bench._eslda_profile --seed 2 --seconds 30``): the search of
:func:`.eslda` runs under a time budget while it counts what happens at each node (pruned by
its own bounds, branched, finished directly; children pruned when created), and samples
nodes that survive their own bounds with r = 3 or 4 variables still to choose. For each
sampled node the best subset it holds is found by enumerating every r-subset of its free
variables on the pair conditioned on the fixed ones (f(F) + ρ_Rᵀ C_RR⁻¹ ρ_R, the bordered
Cholesky step of the search's short finishes), and compared with two bounds:

* the node's bound, the smallest of f(T), the e-th largest exclusion bound, the two Schur
  loss bounds and (B ≠ I) the perspective bound, as :meth:`_Search.prune_node` computes
  them;
* the perspective relaxation with its split run far past the search's few steps
  (:data:`CONVERGED_STEPS`): about the best a diagonal split D ⪯ Q gives at that node. A
  node whose exact best is below the threshold while this bound is above it cannot be
  pruned by tuning the perspective bound, only by a stronger relaxation.
"""

from __future__ import annotations

import argparse
import math
import time
from dataclasses import dataclass, field

import numpy as np
from threadpoolctl import threadpool_limits

from ..sparse_lda import bounds, random_pair
from ..sparse_lda._numerics import _bordered, _combinations, submatrix
from ..sparse_lda.branch_bound import ESLDASearch
from ..sparse_lda.greedy import gslda_pair
from ..sparse_lda.nodes import _NodeInfo
from ..sparse_lda.pair import MatrixPair, check_pair
from ..sparse_lda.perspective import perspective_terms
from ..sparse_lda.search import _Search

__all__ = ["NodeSample", "SearchProfile", "profile_search"]

#: Most subsets enumerated for one sampled node.
MAX_SUBSETS = 200_000
#: Steps on the perspective split for :attr:`NodeSample.relaxation` (rounds, first-round
#: and later solves), against the search's 5, 6 and 3. At 25 nodes of a seed-1 search
#: (n = 80, k = 40), going from 60 to 200 rounds lowered the bound by at most 0.5 % of
#: the pruning threshold.
CONVERGED_STEPS = (200, 10, 5)


@dataclass
class NodeSample:
    """One node that survived its own bounds: its bound, the converged perspective bound
    (``relaxation``, ∞ where it does not apply), the best subset value it holds (exact),
    and the pruning threshold at the time."""

    r: int
    free: int
    bound: float
    exact: float
    threshold: float
    relaxation: float = np.inf


@dataclass
class SearchProfile:
    """What a budgeted search did, node by node (see the module docstring)."""

    nodes: int = 0
    pruned_by_own_bounds: int = 0
    branched: int = 0
    finished_directly: int = 0
    children: int = 0
    children_pruned_when_created: int = 0
    value: float = np.nan
    upper_bound: float = np.nan
    samples: list[NodeSample] = field(default_factory=list)

    def summary(self) -> str:
        lines = [
            f"nodes {self.nodes}: pruned by their own bounds {self.pruned_by_own_bounds}, "
            f"branched {self.branched}, finished directly {self.finished_directly}; "
            f"children {self.children}, pruned when created "
            f"{self.children_pruned_when_created}",
            f"incumbent {self.value:.6g}, upper bound {self.upper_bound:.6g}, gap "
            f"{(self.upper_bound - self.value) / self.value:.3%}",
        ]
        if self.samples:
            over = np.array([(s.bound - s.exact) / s.exact for s in self.samples])
            below = sum(s.exact <= s.threshold for s in self.samples)
            lines.append(
                f"{len(self.samples)} sampled nodes (r = 3–4): bound above the node's exact "
                f"best by {over.min():.1%}–{over.max():.1%} (median {np.median(over):.1%}); "
                f"exact best below the threshold in {below}")
            relaxed = [s for s in self.samples if np.isfinite(s.relaxation)]
            if relaxed:
                over = np.array([(s.relaxation - s.exact) / s.exact for s in relaxed])
                prunable = [s for s in relaxed if s.exact <= s.threshold]
                stuck = sum(s.relaxation > s.threshold for s in prunable)
                lines.append(
                    f"converged perspective relaxation: above the exact best by "
                    f"{over.min():.1%}–{over.max():.1%} (median {np.median(over):.1%}); "
                    f"above the threshold at {stuck} of the {len(prunable)} nodes whose "
                    f"exact best is below it")
        return "\n".join(lines)


def _node_best(pair: MatrixPair, F: np.ndarray, cand: np.ndarray, r: int) -> float:
    """max over r-subsets R of ``cand`` of f(F ∪ R), by enumeration (rank one)."""
    base, rho, Lc = _bordered(pair, F, cand)
    C = submatrix(pair.B, cand)
    if Lc is not None:
        C = C - Lc.T @ Lc
    idx = _combinations(cand.size, r)
    C_R = C[idx[:, :, None], idx[:, None, :]]
    rho_R = rho[idx]
    gains = np.einsum("ij,ij->i", rho_R, np.linalg.solve(C_R, rho_R[..., None])[..., 0])
    return base + float(gains.max())


def _converged_perspective(info: _NodeInfo, free: np.ndarray, r: int) -> float:
    """The node bound of :meth:`_Search.perspective_bound` (same rounding slack) with
    :data:`CONVERGED_STEPS` steps on the split and no early stop."""
    rounds, iters, inner = CONVERGED_STEPS
    terms = perspective_terms(submatrix(info.extra["P"], free), info.extra["w"][free], r,
                              rounds=rounds, iters=iters, inner=inner)
    if terms is None:
        return np.inf
    return _Search.perspective_node_bound(info, free, r, *terms)[0]


class _ProfiledSearch(_Search):
    """The search with counters and node sampling."""

    profile = SearchProfile()
    max_samples = 0
    sample_rate = 0.0
    rng = np.random.default_rng(0)

    def node_info(self, T):
        self._T = T
        return super().node_info(T)

    def prune_node(self, info, free, in_F, e, r):
        pruned = super().prune_node(info, free, in_F, e, r)
        self.profile.pruned_by_own_bounds += int(pruned)
        profile = self.profile
        if (not pruned and 3 <= r <= 4 and len(profile.samples) < self.max_samples
                and math.comb(free.size, r) <= MAX_SUBSETS
                and self.rng.random() < self.sample_rate):
            bound = min(info.f_T, bounds.kth_largest(self._excl[1], e))
            _, total, slack = self.schur_losses(info, free, e)
            bound = min(bound, info.f_T - total + slack, self.kept_terms(info, free, r))
            relaxation = np.inf
            if self.use_perspective and e >= 2 and r >= self.PERSPECTIVE_MIN_R:
                persp = self._persp  # the terms prune_node computed at this node
                if persp is not None and persp[0] is info:
                    base, psi_T = persp[1], persp[2]
                    bound = min(bound, self.perspective_node_bound(info, free, r, base,
                                                                   psi_T[free])[0])
                relaxation = _converged_perspective(info, free, r)
            T = self._T
            exact = _node_best(self.pair, T[in_F], T[free], r)
            profile.samples.append(NodeSample(r, free.size, bound, exact, self.threshold(),
                                              relaxation))
        return pruned

    def solve_small(self, F_idx, cand, r, margin):
        self.profile.finished_directly += 1
        return super().solve_small(F_idx, cand, r, margin)

    def child_bounds(self, info, u, h_sorted, r, e):
        b = super().child_bounds(info, u, h_sorted, r, e)
        self.profile.branched += 1
        self.profile.children += r + 1
        self.profile.children_pruned_when_created += int(
            (b + info.margin <= self.threshold()).sum())
        return b


class _ProfiledESLDASearch(ESLDASearch):
    _search_class = _ProfiledSearch


def profile_search(pair: MatrixPair, k: int, seconds: float, *, max_samples: int = 40,
                   sample_rate: float = 0.05, random_state: int = 0) -> SearchProfile:
    """Run ESLDA on a rank-one ``pair`` for ``seconds`` and profile it (module docstring);
    each node eligible for sampling is taken with probability ``sample_rate``, up to
    ``max_samples``."""
    if not pair.rank_one:
        raise ValueError("pair must be rank one (A = d dᵀ): the node sampling enumerates "
                         "rank-one subsets; pass the vector d.")
    profile = SearchProfile()
    with threadpool_limits(1):
        search = _ProfiledESLDASearch(pair, k, gslda_pair(pair).support_at(k))
        inner = search._search
        inner.profile, inner.max_samples = profile, max_samples
        inner.sample_rate = sample_rate
        inner.rng = np.random.default_rng(random_state)
        search.advance(time.perf_counter() + seconds)
    profile.nodes = search.nodes
    profile.value, profile.upper_bound = search.value, search.upper_bound
    return profile


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=80)
    parser.add_argument("--k", type=int, default=40)
    parser.add_argument("--seed", type=int, default=2)
    parser.add_argument("--seconds", type=float, default=30.0)
    args = parser.parse_args(argv)
    p = random_pair(args.n, random_state=args.seed)
    print(profile_search(check_pair(p.d, p.B), args.k, args.seconds).summary())


if __name__ == "__main__":
    main()
