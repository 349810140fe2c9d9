"""The branch-and-bound bounds of ESLDA never cut off the optimum (brute force, n ≤ 12).

Every bound in :mod:`spectral_kit.sparse_lda.bounds` claims to hold for all k-subsets S of a
node F ⊆ S ⊆ T. Here each is checked against the largest λ_max(A_S, B_S) over the node,
computed by enumerating every subset with stacked Cholesky/eigen-solves written in this file
(independent of the search code), on seeded random pairs: B = I and B ≠ I, rank-one, PSD and
indefinite A, and tie-heavy pairs (equicorrelated blocks, duplicated variables, equal
entries). Thousands of (pair, node) cases run in total; then the whole search is compared
with brute force and with the first search.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.linalg

from spectral_kit import sparse_lda as sl
from spectral_kit.bench._eslda_reference import _ReferenceESLDASearch
from spectral_kit.sparse_lda import bounds
from spectral_kit.sparse_lda._completions import completions_above
from spectral_kit.sparse_lda._numerics import (
    arrowhead_top_root,
    bordered_add_pairs_values,
    bordered_add_values,
)
from spectral_kit.sparse_lda.branch_bound import ESLDASearch, eslda_pair
from spectral_kit.sparse_lda.greedy import gslda_pair
from spectral_kit.sparse_lda.pair import check_pair

TOL = 1e-9
KINDS = ("rank_one", "psd", "sym", "equicorrelated", "duplicated", "integer")


# --------------------------------------------------------------------------- references


def random_case(rng: np.random.Generator, n: int, kind: str, identity_B: bool):
    """A pair (A, B) with B = I or an SPD B in unit-diagonal (correlation) scale."""
    if identity_B:
        B = np.eye(n)
    else:
        G = rng.standard_normal((n, n + 2))
        B = G @ G.T / (n + 2) + rng.uniform(0.01, 0.3) * np.eye(n)
        s = 1 / np.sqrt(np.diag(B))
        B = B * np.outer(s, s)
    if kind == "rank_one":
        d = rng.standard_normal(n)
        A = np.outer(d, d)
    elif kind == "psd":
        G = rng.standard_normal((n, rng.integers(1, n + 3)))
        A = G @ G.T
    elif kind == "sym":
        S = rng.standard_normal((n, n))
        A = S + S.T
    elif kind == "equicorrelated":  # two blocks of equal correlations: many exact ties
        A = np.full((n, n), 0.0)
        half = n // 2
        A[:half, :half] = 0.6
        A[half:, half:] = 0.6
        np.fill_diagonal(A, 1.0)
    elif kind == "duplicated":  # repeated variables: subsets with equal values
        G = rng.standard_normal((max(2, n // 2), n + 1))
        G = G[rng.integers(0, G.shape[0], n)]
        A = G @ G.T + 1e-3 * np.eye(n)
    else:  # small integers: equal entries and ties in every top-r selection
        S = rng.integers(-2, 3, (n, n)).astype(float)
        A = S + S.T
    return A, B


def all_values(A: np.ndarray, B: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Every k-subset of range(n) as a boolean mask and its λ_max(A_S, B_S)."""
    n = A.shape[0]
    combos = np.array(list(itertools.combinations(range(n), k)), dtype=np.intp)
    rows, cols = combos[:, :, None], combos[:, None, :]
    L = np.linalg.cholesky(B[rows, cols])
    X = np.linalg.solve(L, A[rows, cols])
    C = np.linalg.solve(L, np.swapaxes(X, 1, 2))
    values = np.linalg.eigvalsh(0.5 * (C + np.swapaxes(C, 1, 2)))[:, -1]
    masks = np.zeros((combos.shape[0], n), dtype=bool)
    np.put_along_axis(masks, combos, True, axis=1)
    return masks, values


def node_max(masks, values, F, T, exclude=None) -> float:
    """Largest value over the subsets S with F ⊆ S ⊆ T (and j ∉ S for ``exclude``)."""
    ok = np.all(masks[:, F], axis=1) & ~np.any(masks[:, ~T], axis=1)
    if exclude is not None:
        ok &= ~masks[:, exclude]
    return float(values[ok].max()) if ok.any() else -np.inf


def subset_f(A, B, idx) -> float:
    idx = list(idx)
    return float(scipy.linalg.eigh(A[np.ix_(idx, idx)], B[np.ix_(idx, idx)],
                                   eigvals_only=True)[-1])


def random_node(rng, n, k):
    """A node (F, T) with |F| < k < |T| (so that at least one choice is left both ways)."""
    m = int(rng.integers(k + 1, n + 1))
    T_idx = np.sort(rng.choice(n, m, replace=False))
    f = int(rng.integers(0, k))
    F_idx = rng.choice(T_idx, f, replace=False)
    T = np.zeros(n, dtype=bool)
    T[T_idx] = True
    F = np.zeros(n, dtype=bool)
    F[F_idx] = True
    return F, T


def cases(seed: int, count: int, *, n_range=(4, 11)):
    rng = np.random.default_rng(seed)
    for c in range(count):
        n = int(rng.integers(*n_range))
        kind = KINDS[c % len(KINDS)]
        A, B = random_case(rng, n, kind, identity_B=bool(rng.integers(0, 2)))
        k = int(rng.integers(1, n))
        yield rng, A, B, k


def tol(values) -> float:
    return TOL * max(1.0, float(np.abs(values).max()))


# --------------------------------------------------------------------------- removal bounds


@pytest.mark.parametrize("seed", range(4))
def test_removal_bounds_never_cut_off_the_optimum(seed):
    """e-th largest f(T∖j), and the per-variable exclusion bounds, over ~200 nodes each."""
    checked = 0
    for rng, A, B, k in cases(seed, 60):
        n = A.shape[0]
        masks, values = all_values(A, B, k)
        for _ in range(4):
            F, T = random_node(rng, n, k)
            T_idx = np.flatnonzero(T)
            e = T_idx.size - k
            free = np.flatnonzero(~F[T_idx])
            g = np.array([subset_f(A, B, np.delete(T_idx, j)) for j in range(T_idx.size)])
            best = node_max(masks, values, F, T)
            assert bounds.removal_bound(g[free], e) >= best - tol(values)
            excl = bounds.removal_exclusion_bounds(g[free], e)
            for pos, j in enumerate(free):
                assert excl[pos] >= node_max(masks, values, F, T, T_idx[j]) - tol(values)
            checked += 1
    assert checked == 240


@pytest.mark.parametrize("seed", range(3))
def test_pair_exclusion_bounds_never_cut_off_the_optimum(seed):
    """Rank one: (e−1)-th largest f(T∖{i, j}) per variable and its e-th largest per node."""
    rng = np.random.default_rng(100 + seed)
    checked = 0
    for c in range(50):
        n = int(rng.integers(5, 11))
        A, B = random_case(rng, n, "rank_one", c % 2 == 0)
        if c % 5 == 0:  # ties: equal loadings
            d = np.repeat(rng.standard_normal(2), (n + 1) // 2)[:n]
            A = np.outer(d, d)
        k = int(rng.integers(1, n - 1))
        masks, values = all_values(A, B, k)
        for _ in range(4):
            F, T = random_node(rng, n, k)
            T_idx = np.flatnonzero(T)
            e = T_idx.size - k
            if e < 2:
                continue
            free = np.flatnonzero(~F[T_idx])
            H = np.full((free.size, free.size), -np.inf)
            for a, b in itertools.combinations(range(free.size), 2):
                H[a, b] = H[b, a] = subset_f(A, B, np.delete(T_idx, [free[a], free[b]]))
            excl = bounds.pair_exclusion_bounds(H, e)
            for pos, j in enumerate(free):
                assert excl[pos] >= node_max(masks, values, F, T, T_idx[j]) - tol(values)
            assert bounds.kth_largest(excl, e) >= node_max(masks, values, F, T) - tol(values)
            checked += 1
    assert checked > 100


# --------------------------------------------------------------------------- B = I bounds


@pytest.mark.parametrize("seed", range(4))
def test_row_sum_and_trace_frobenius_bounds(seed):
    """Gershgorin/Collatz row sums (w = 1, random w > 0, and the Perron weights of the
    nonlinear power iteration from a random start after 1 … 40 steps), Wolkowicz–Styan, the
    fixed-block and the soft-threshold (random level) bounds, B = I; divided by λ_min(B)
    they bound the generalized problem too."""
    checked = 0
    for rng, A, B, k in cases(1000 + seed, 80):
        n = A.shape[0]
        masks, values = all_values(A, B, k)
        masks_I, values_I = all_values(A, np.eye(n), k)
        lam_min_B = float(np.linalg.eigvalsh(B)[0])
        for _ in range(4):
            F, T = random_node(rng, n, k)
            T_idx = np.flatnonzero(T)
            in_F = F[T_idx]
            r = k - int(in_F.sum())
            A_T = A[np.ix_(T_idx, T_idx)]
            best_I = node_max(masks_I, values_I, F, T)
            w = rng.uniform(0.1, 2.0, T_idx.size)
            rows = bounds.collatz_rows(A_T, np.abs(A_T), in_F, r)
            weighted = bounds.collatz_row_bound(A_T, np.abs(A_T), in_F, r, w)
            ws = bounds.wolkowicz_styan_bound(A_T, in_F, r, k)
            F_idx = np.flatnonzero(in_F)
            lam_F = float(np.linalg.eigvalsh(A_T[np.ix_(F_idx, F_idx)])[-1]) if F_idx.size \
                else 0.0
            block = bounds.block_bound(lam_F, A_T, in_F, r)
            soft = bounds.soft_threshold_bound(A_T, rng.uniform(0, np.abs(A_T).max()), k)
            perron, w_perron = bounds.perron_rows_bound(
                A_T, np.abs(A_T), in_F, r, rng.uniform(0.01, 3.0, T_idx.size), -np.inf,
                int(rng.integers(1, 41)))
            assert np.all(w_perron > 0)
            for b in (rows.max(), weighted, ws, block, soft, perron):
                assert b >= best_I - tol(values_I)
            scaled = bounds.scaled_by_lambda_min(min(rows.max(), ws, perron), lam_min_B)
            assert scaled >= node_max(masks, values, F, T) - tol(values)
            checked += 1
    assert checked == 320


def test_perron_weights_make_the_row_sums_exact_on_a_block():
    """A strongly correlated block among weakly correlated variables: the unweighted row
    sums overshoot λ_max of the best block, the Perron weights close the gap (k = 4)."""
    rng = np.random.default_rng(0)
    n, k = 10, 4
    A = np.full((n, n), 0.05) + 0.01 * rng.uniform(size=(n, n))
    A = 0.5 * (A + A.T)
    A[:k, :k] = rng.uniform(0.6, 0.9, (k, k))
    A[:k, :k] = 0.5 * (A[:k, :k] + A[:k, :k].T)
    np.fill_diagonal(A, 1.0)
    in_F = np.zeros(n, dtype=bool)
    best = brute_best(A, np.eye(n), k)
    plain = float(bounds.collatz_rows(A, np.abs(A), in_F, k).max())
    perron, _ = bounds.perron_rows_bound(A, np.abs(A), in_F, k, np.ones(n), -np.inf, 200)
    assert perron >= best - 1e-12
    assert perron - best < 0.2 * (plain - best)


def test_perron_weights_stay_finite_on_a_zero_block():
    """A = 0 leaves nothing to reweight: the bound is 0 and the weights stay positive."""
    Z = np.zeros((6, 6))
    b, w = bounds.perron_rows_bound(Z, Z, np.zeros(6, dtype=bool), 3, np.ones(6), -np.inf, 20)
    assert b == 0.0
    assert np.all(np.isfinite(w)) and np.all(w > 0)


def test_trace_frobenius_bound_is_exact_on_an_equicorrelated_block():
    n, k, rho = 9, 4, 0.7
    A = np.full((n, n), rho)
    np.fill_diagonal(A, 1.0)
    in_F = np.zeros(n, dtype=bool)
    assert bounds.wolkowicz_styan_bound(A, in_F, k, k) == pytest.approx(1 + (k - 1) * rho)


@pytest.mark.parametrize("seed", range(3))
def test_entry_sum_bound(seed):
    rng = np.random.default_rng(2000 + seed)
    for c in range(150):
        m = int(rng.integers(3, 10))
        Q = rng.standard_normal((m, m)) if c % 3 else rng.integers(-2, 3, (m, m)) * 1.0
        Q = Q + Q.T
        k = int(rng.integers(1, m))
        in_F = np.zeros(m, dtype=bool)
        in_F[rng.choice(m, int(rng.integers(0, k)), replace=False)] = True
        r = k - int(in_F.sum())
        best = -np.inf
        for S in itertools.combinations(range(m), k):
            S = np.array(S)
            if in_F[~np.isin(np.arange(m), S)].any():
                continue
            best = max(best, float(Q[np.ix_(S, S)].sum()))
        assert bounds.entry_sum_bound(Q, in_F, r) >= best - 1e-9 * np.abs(Q).sum()


@pytest.mark.parametrize("seed", range(4))
def test_top_entries_bound(seed):
    """The generalized top-entries bound from the node's eigenpairs (q = 1 … 3)."""
    checked = 0
    for rng, A, B, k in cases(3000 + seed, 70):
        n = A.shape[0]
        masks, values = all_values(A, B, k)
        for _ in range(3):
            F, T = random_node(rng, n, k)
            T_idx = np.flatnonzero(T)
            in_F = F[T_idx]
            r = k - int(in_F.sum())
            A_T, B_T = A[np.ix_(T_idx, T_idx)], B[np.ix_(T_idx, T_idx)]
            lam, X = scipy.linalg.eigh(A_T, B_T)  # XᵀB_T X = I
            lam_desc, X = lam[::-1], X[:, ::-1]
            U = (B_T @ X)[:, :3]
            identity = np.array_equal(B_T, np.eye(T_idx.size))
            P = None if identity else np.linalg.inv(B_T)
            b = bounds.top_entries_bound(lam_desc, U, P, in_F, r)
            assert b >= node_max(masks, values, F, T) - tol(values)
            checked += 1
    assert checked == 210


# --------------------------------------------------------------------------- direct solves


@pytest.mark.parametrize("shared", [True, False])
def test_arrowhead_top_root_equals_the_eigenvalue(shared):
    """λ_max of [[diag(λ), w], [wᵀ, γ]] against eigvalsh: random, a repeated top λ, a zero
    border on the top λ, zero borders, corners far above λ; λ shared or one per column."""
    rng = np.random.default_rng(11)
    checked = 0
    for q in (1, 2, 5, 9):
        for case in ("random", "repeated", "zero_top", "zero", "big_corner"):
            lam = np.sort(rng.standard_normal(q))
            if case == "repeated" and q > 1:
                lam[-1] = lam[-2]
            w = rng.standard_normal((q, 7))
            gamma = rng.standard_normal(7)
            if case in ("zero_top", "repeated"):
                w[-1] = 0.0
            if case == "zero":
                w[:] = 0.0
            if case == "big_corner":
                gamma += 10.0
            lam_arg = lam if shared else np.repeat(lam[:, None], 7, axis=1)
            got = arrowhead_top_root(lam_arg, w * w, gamma)
            for j in range(7):
                M = np.diag(np.append(lam, gamma[j]))
                M[:q, q] = M[q, :q] = w[:, j]
                ref = np.linalg.eigvalsh(M)[-1]
                assert got[j] == pytest.approx(ref, rel=1e-12, abs=1e-12)
                checked += 1
    assert checked == 140


def direct_cases(seed: int, count: int, n_range=(4, 12)):
    """Pairs of :func:`cases` with a random non-empty F and the rest as candidates."""
    for rng, A, B, _ in cases(seed, count, n_range=n_range):
        n = A.shape[0]
        perm = rng.permutation(n)
        f = int(rng.integers(1, n - 1))
        yield rng, check_pair(A, B), np.sort(perm[:f]), np.sort(perm[f:])


@pytest.mark.parametrize("seed", range(2))
def test_bordered_add_values_equal_brute_force(seed):
    """f(F ∪ {j}) for every candidate, within the returned error bound, on random and
    tie-heavy pairs with B = I and B ≠ I (rank-one A through the general formulas too)."""
    checked = 0
    for _rng, pair, F, cand in direct_cases(300 + seed, 60):
        values, error = bordered_add_values(pair, F, cand)
        for j, v in zip(cand, values):
            ref = subset_f(pair.A, pair.B, np.append(F, j))
            assert abs(v - ref) <= error + 1e-10 * max(1.0, abs(ref))
            checked += 1
        empty, _ = bordered_add_values(pair, F[:0], cand)
        ref = [subset_f(pair.A, pair.B, [j]) for j in cand]
        np.testing.assert_allclose(empty, ref, rtol=1e-12, atol=1e-12)
    assert checked > 200


@pytest.mark.parametrize("seed", range(2))
def test_bordered_add_pairs_values_equal_brute_force(seed):
    """f(F ∪ {i, j}) for every pair i < j, in lexicographic order, within the error bound;
    with a floor, the values above it are kept and the others are −∞ or kept."""
    checked = 0
    for rng, pair, F, cand in direct_cases(400 + seed, 60):
        idx, values, error = bordered_add_pairs_values(pair, F, cand)
        assert [tuple(p) for p in idx] == list(itertools.combinations(range(cand.size), 2))
        for (a, b), v in zip(idx, values):
            ref = subset_f(pair.A, pair.B, np.append(F, cand[[a, b]]))
            assert abs(v - ref) <= error + 1e-10 * max(1.0, abs(ref))
            checked += 1
        if values.size:
            floor = float(np.quantile(values, rng.uniform()))
            _, cut, _ = bordered_add_pairs_values(pair, F, cand, floor)
            above = values > floor + error
            # (the stacked eigen-solve of fewer matrices may round differently)
            np.testing.assert_allclose(cut[above], values[above], rtol=1e-12)
            assert np.all((cut[~above] == -np.inf)
                          | np.isclose(cut[~above], values[~above], rtol=1e-12))
    assert checked > 400


@pytest.mark.parametrize("seed", range(3))
def test_completions_above_are_the_subsets_above_the_threshold(seed):
    """For r = 1 … 6 the subsets F ∪ R returned are, up to rounding, exactly those with
    f(F ∪ R) > μ, by brute force: μ at a random quantile of the values and exactly at one of
    them (ties), F empty or not, random and tie-heavy pairs, B = I and B ≠ I. ``None``
    only where f(F) or some f(F ∪ R'), |R'| < r, reaches μ."""
    decided = dict.fromkeys(range(1, 7), 0)
    undecided = 0
    for rng, pair, F, cand in direct_cases(700 + seed, 400, n_range=(6, 15)):
        if rng.random() < 0.2:
            F, cand = F[:0], np.sort(np.concatenate([F, cand]))
        r = int(rng.integers(1, min(6, cand.size) + 1))
        subsets = list(itertools.combinations(range(cand.size), r))
        values = np.array([subset_f(pair.A, pair.B, np.append(F, cand[list(R)]))
                           for R in subsets])
        scale = tol(values)
        mu = float(values[rng.integers(values.size)] if rng.random() < 0.4
                   else np.quantile(values, rng.uniform(0.9, 1.0)))
        rows = completions_above(pair, F, cand, r, mu)
        if rows is None:
            smaller = [subset_f(pair.A, pair.B, np.append(F, cand[list(R)]))
                       for q in range(r) for R in itertools.combinations(range(cand.size), q)
                       if q or F.size]
            assert max(smaller) >= mu - scale
            undecided += 1
            continue
        assert rows.shape[1] == r
        if r >= 4:  # out of chain steps: undecided, unless no chain was needed
            capped = completions_above(pair, F, cand, r, mu, max_steps=0)
            assert capped is None or (capped.shape[0] == 0 and rows.shape[0] == 0)
        got = {tuple(sorted(row)) for row in rows}
        assert len(got) == rows.shape[0]
        for R, v in zip(subsets, values):
            if v > mu + scale:
                assert R in got
            elif v < mu - scale:
                assert R not in got
        decided[r] += 1
    assert min(decided.values()) > 15 and undecided > 20


# --------------------------------------------------------------------------- whole search


@pytest.mark.parametrize("seed", range(2))
def test_children_that_keep_the_first_variable_solved_at_once(seed, monkeypatch):
    """General A: a node that keeps r more variables, r − 1 within the direct finishes,
    solves its children 1 … r as F ∪ {u_1} choosing r − 1 of the rest. Brute force agrees
    with both trees (tie-heavy pairs and Brownian pairs at n = 18), and the merged tree is
    the smaller one on some of them (so the path runs)."""
    from spectral_kit.sparse_lda.search import _Search

    # direct finishes up to three more variables: with the default (six) these small pairs
    # are mostly finished before any node branches
    monkeypatch.setattr(_Search, "GENERAL_DIRECT_R", 3)
    pairs = [check_pair(A, B) for _rng, A, B, _ in cases(5200 + seed, 12, n_range=(9, 13))]
    pairs += [check_pair(rp.A, rp.B) for rp in
              (sl.random_pair(18, kind="general", random_state=2 * seed + i) for i in (0, 1))]
    fewer = 0
    for pair in pairs:
        if pair.rank_one:
            continue
        path = gslda_pair(pair)
        for k in (4, 5, pair.n // 2):
            merged = eslda_pair(pair, k, init=path)
            with monkeypatch.context() as m:
                m.setattr(_Search, "solves_kept_directly", lambda self, r, free: False)
                queued = eslda_pair(pair, k, init=path)
            best = brute_best(pair.A, pair.B, k)
            assert merged.optimal and queued.optimal
            assert merged.value == pytest.approx(best, rel=1e-9, abs=1e-12)
            assert queued.value == pytest.approx(best, rel=1e-9, abs=1e-12)
            fewer += merged.nodes_expanded < queued.nodes_expanded
    assert fewer >= 2


def test_completions_above_gives_up_where_f_F_is_at_the_threshold():
    """μ within rounding of f(F) (μB_F − A_F nearly singular): undecided, not a guess, even
    where every f(F ∪ {j}) is below μ (here f(F ∪ R) = f(F): A couples nothing to F)."""
    rng = np.random.default_rng(0)
    X = rng.standard_normal((6, 4))
    A = np.zeros((10, 10))
    A[:4, :4] = X.T @ X
    f_F = float(np.linalg.eigvalsh(A[:4, :4])[-1])
    A[4:, 4:] = np.diag(rng.uniform(0.1, 0.2, 6) * f_F)
    pair = check_pair(A, np.eye(10))
    F, cand = np.arange(4), np.arange(4, 10)
    assert completions_above(pair, F, cand, 2, f_F * (1 + 1e-13)) is None
    assert completions_above(pair, F, cand, 2, f_F * (1 + 1e-3)).shape == (0, 2)


@pytest.mark.parametrize("seed", range(2))
def test_threshold_finishes_and_their_fallback_equal_brute_force(seed, monkeypatch):
    """General A: nodes that keep at most six more variables are settled by
    :func:`completions_above`; where it cannot decide (``None``) a node that keeps three or
    more is branched instead, and the children of a merged solve are queued. With the test
    made to give up on half of its r ≥ 3 calls, every search still certifies the
    brute-force optimum, and both paths run."""
    from spectral_kit.sparse_lda import finishes

    rng = np.random.default_rng(seed)
    calls = {"solved": 0, "gave_up": 0}

    def flaky(pair, F, cand, r, mu, max_steps=None):
        if r >= 3 and rng.random() < 0.5:
            calls["gave_up"] += 1
            return None
        calls["solved"] += r >= 3
        return completions_above(pair, F, cand, r, mu, max_steps)

    monkeypatch.setattr(finishes, "completions_above", flaky)
    pairs = [check_pair(A, B) for _rng, A, B, _ in cases(5300 + seed, 12, n_range=(10, 14))]
    pairs += [check_pair(rp.A, rp.B) for rp in
              (sl.random_pair(18, kind="general", random_state=7 + seed),)]
    for pair in pairs:
        if pair.rank_one:
            continue
        for k in (4, 6, pair.n // 2):
            result = eslda_pair(pair, k, init=gslda_pair(pair))
            assert result.optimal
            assert result.value == pytest.approx(brute_best(pair.A, pair.B, k),
                                                 rel=1e-9, abs=1e-12)
    assert calls["solved"] > 10 and calls["gave_up"] > 10


def brute_best(A, B, k) -> float:
    return float(all_values(A, B, k)[1].max())


@pytest.mark.parametrize("seed", range(3))
def test_search_equals_brute_force_and_the_first_search(seed):
    """Every k on small random and tie-heavy pairs: the certified value is the brute-force
    optimum, and the first search (inclusion bounds alone) certifies the same value."""
    for _rng, A, B, _ in cases(4000 + seed, 24, n_range=(5, 12)):
        n = A.shape[0]
        pair = check_pair(A, B)
        path = gslda_pair(pair)
        for k in range(1, n + 1):
            res = eslda_pair(pair, k, init=path)
            ref = eslda_pair(pair, k, init=path, _search_class=_ReferenceESLDASearch)
            best = brute_best(pair.A, pair.B, k)
            assert res.optimal and ref.optimal
            assert res.value == pytest.approx(best, rel=1e-9, abs=1e-12)
            assert res.value == pytest.approx(ref.value, rel=1e-9, abs=1e-12)
            assert subset_f(pair.A, pair.B, res.support) == pytest.approx(best, rel=1e-9,
                                                                          abs=1e-12)


@pytest.mark.parametrize("kind", ["rank_one", "general"])
def test_search_equals_first_search_on_random_pairs(kind):
    """Brownian-path pairs (the paper's Monte Carlo) at n = 20: the same certified optimum
    as the first search at every k it certifies."""
    rp = sl.random_pair(20, kind=kind, random_state=7)
    pair = check_pair(rp.A, rp.B)
    path = gslda_pair(pair)
    for k in (3, 7, 10, 14):
        ref = eslda_pair(pair, k, init=path, _search_class=_ReferenceESLDASearch,
                         max_seconds=5.0)
        res = eslda_pair(pair, k, init=path)
        assert res.optimal
        if ref.optimal:
            assert res.value == pytest.approx(ref.value, rel=1e-9)
            np.testing.assert_array_equal(res.support, ref.support)


def test_top_entries_bound_with_B_not_I_is_dropped_after_its_own_patience(monkeypatch):
    """With B ≠ I the top-entries bound is tried on at most TOP_PATIENCE_B nodes while it
    prunes none (here a general pair at n = 30, where it never prunes: a search of several
    hundred nodes with direct finishes of at most two variables), and the search certifies
    the same optimum as the first search; with B = I the general patience applies."""
    from spectral_kit.sparse_lda.search import _Search

    monkeypatch.setattr(_Search, "GENERAL_DIRECT_R", 2)
    rp = sl.random_pair(30, kind="general", random_state=0)
    pair = check_pair(rp.A, rp.B)
    support = gslda_pair(pair).support_at(10)
    search = ESLDASearch(pair, 10, support)
    search.advance()
    tries, prunes = search._search.stats["top_entries"]
    assert search.optimal and search.nodes > 2 * _Search.TOP_PATIENCE_B
    assert prunes > 0 or tries == _Search.TOP_PATIENCE_B
    ref = _ReferenceESLDASearch(pair, 10, support)
    ref.advance()
    assert search.value == pytest.approx(ref.value, rel=1e-9)
    identity = _Search(check_pair(rp.A, np.eye(30)), 10, support, -np.inf, 1e-10)
    assert identity.worth_trying("top_entries")
    identity.stats["top_entries"] = (_Search.TOP_PATIENCE_B, 0)
    assert identity.worth_trying("top_entries")
    identity.stats["top_entries"] = (_Search.PATIENCE, 0)
    assert not identity.worth_trying("top_entries")

def test_budget_returns_incumbent_and_a_valid_gap():
    """Anytime: a node budget gives an incumbent ≤ optimum ≤ upper bound, and resuming
    the same search reaches the certificate."""
    rp = sl.random_pair(24, kind="general", random_state=3)
    pair = check_pair(rp.A, rp.B)
    support = gslda_pair(pair).support_at(8)
    full = eslda_pair(pair, 8, init=support)
    search = ESLDASearch(pair, 8, support)
    assert search.advance(max_nodes=3) in ("max_nodes", "completed")
    assert search.value <= full.value * (1 + 1e-12)
    assert search.upper_bound >= full.value * (1 - 1e-12)
    while search.advance(max_nodes=search.nodes + 50) != "completed":
        assert search.value <= full.value * (1 + 1e-12) <= search.upper_bound * (1 + 2e-12)
    assert search.optimal and search.value == pytest.approx(full.value, rel=1e-12)
    ref = _ReferenceESLDASearch(pair, 8, support)
    ref.advance()
    assert ref.optimal and ref.value == pytest.approx(full.value, rel=1e-9)


def check_kept_form(masks, values, F, T, free, offset, psi, r, t):
    """A kept-side bound offset + Σ_{i∈K} ψ_i (K: the r free variables a subset keeps)
    against brute force: the node (top r of ψ), every subset leaving one free variable out,
    and the child that keeps free[1] and leaves free[0] out."""
    T_idx = np.flatnonzero(T)
    assert offset + np.sort(psi)[::-1][:r].sum() >= node_max(masks, values, F, T) - t
    for pos, j in enumerate(free):
        others = np.sort(np.delete(psi, pos))[::-1][:r].sum()
        assert offset + others >= node_max(masks, values, F, T, T_idx[j]) - t
    if free.size >= 3 and r >= 2:
        F3 = F.copy()
        F3[T_idx[free[1]]] = True
        T3 = T.copy()
        T3[T_idx[free[0]]] = False
        kept = psi[1] + np.sort(psi[2:])[::-1][: r - 1].sum()
        assert offset + kept >= node_max(masks, values, F3, T3) - t


@pytest.mark.parametrize("seed", range(3))
def test_schur_loss_bound_never_cuts_off_the_optimum(seed):
    """Rank one: f(T) − (e smallest φ) and its kept-side form f(T) − base + top_r(ψ), each
    per node, per excluded variable and per child; B = I and B ≠ I,
    smooth (Brownian) B with negative couplings in B⁻¹, and ties (equal loadings)."""
    rng = np.random.default_rng(300 + seed)
    checked = 0
    for c in range(60):
        n = int(rng.integers(5, 12))
        A, B = random_case(rng, n, "rank_one", c % 3 == 0)
        if c % 3 == 1:  # Brownian-type within-class covariance, unit diagonal
            s = np.arange(1, n + 1, dtype=float)
            B = np.minimum.outer(s, s) / np.sqrt(np.multiply.outer(s, s)) + 1e-3 * np.eye(n)
        d = rng.standard_normal(n)
        if c % 5 == 0:  # ties: equal loadings
            d = np.repeat(rng.standard_normal(2), (n + 1) // 2)[:n]
        A = np.outer(d, d)
        k = int(rng.integers(1, n - 1))
        masks, values = all_values(A, B, k)
        for _ in range(4):
            F, T = random_node(rng, n, k)
            T_idx = np.flatnonzero(T)
            e = T_idx.size - k
            free = np.flatnonzero(~F[T_idx])
            P = np.linalg.inv(B[np.ix_(T_idx, T_idx)])
            x = P @ d[T_idx]
            f_T = float(d[T_idx] @ x)
            phi, total = bounds.schur_loss_terms(P[np.ix_(free, free)], x[free], e)
            t = tol(values) * 10
            assert f_T - total >= node_max(masks, values, F, T) - t
            # the kept-side form: R' = the r free variables S keeps
            r = free.size - e
            P_ff, x_f = P[np.ix_(free, free)], x[free]
            # directions: t = x / diag(P) (default), P_ff⁻¹ x_f, and a random one
            for y in (None, np.linalg.solve(P_ff, x_f), rng.standard_normal(free.size)):
                base, psi = bounds.schur_kept_terms(P_ff, x_f, r, y)
                check_kept_form(masks, values, F, T, free, f_T - base, psi, r, t)
            losses = bounds.schur_exclusion_losses(phi, e)
            for pos, j in enumerate(free):
                assert f_T - losses[pos] >= node_max(masks, values, F, T, T_idx[j]) - t
            # child form: leave free[0] out, keep free[1], remove the rest from free[2:]
            if free.size >= 3 and e >= 1 and free.size - 2 >= e - 1:
                F2 = F.copy()
                F2[T_idx[free[1]]] = True
                T2 = T.copy()
                T2[T_idx[free[0]]] = False
                low = np.sort(phi[2:])[: e - 1].sum() if e >= 2 else 0.0
                assert f_T - phi[0] - low >= node_max(masks, values, F2, T2) - t
            checked += 1
    assert checked == 240


def test_schur_loss_bound_is_exact_for_identity_B():
    """B = I: f(T∖R) = f(T) − Σ_R d_i², and the bound attains it (c = 1 is on the grid)."""
    rng = np.random.default_rng(7)
    d = rng.standard_normal(9)
    _, total = bounds.schur_loss_terms(np.eye(9), d, 4)
    assert total == pytest.approx(np.sort(d * d)[:4].sum(), rel=1e-12)


@pytest.mark.parametrize(("label", "k"), [("Pitprops", 5), ("Pitprops", 10),
                                          ("Wine (correlation)", 5), ("Wine (covariance)", 10)])
def test_search_certifies_the_optima_published_by_optimal_spca(label, k):
    """Berk & Bertsimas (2019, Tables 6–7) certify these sparse PCA optima; ESLDA certifies
    the same values, and brute force agrees."""
    from spectral_kit.bench.sparse_lda import (
        OPTIMAL_SPCA_PUBLISHED,
        _wine,
        pitprops_correlation,
    )

    A = pitprops_correlation() if label == "Pitprops" else _wine(label.endswith("(correlation)"))
    res = sl.eslda(A, np.eye(13), k)
    published = OPTIMAL_SPCA_PUBLISHED[(label, k)]
    assert res.optimal
    assert res.value == pytest.approx(published, abs=10.0 ** (np.floor(np.log10(published)) - 5))
    assert res.value == pytest.approx(brute_best(A, np.eye(13), k), rel=1e-12)


@pytest.mark.parametrize("theta", [0.0, 10.0, 40.0])
def test_planted_general_pair_lifts_its_subset_above_theta(theta):
    """The benchmark's planted general pair: the noise pair itself at θ = 0, and every
    superset of the planted subset has λ_max(A_S, B_S) ≥ vᵀAv ≥ θ (vᵀBv = 1, A_S ⪰ 0)."""
    from spectral_kit.bench.sparse_lda import _planted_general

    pair, planted = _planted_general(theta)
    noise = sl.random_pair(60, kind="general", random_state=0)
    assert planted.size == 10 and np.unique(planted).size == 10
    np.testing.assert_array_equal(pair.B, noise.B)
    if theta == 0.0:
        np.testing.assert_array_equal(pair.A, noise.A)
    rng = np.random.default_rng(1)
    others = np.setdiff1d(np.arange(60), planted)
    for extra in (0, 5, 20):
        S = np.sort(np.concatenate([planted, rng.choice(others, extra, replace=False)]))
        top = scipy.linalg.eigh(pair.A[np.ix_(S, S)], pair.B[np.ix_(S, S)], eigvals_only=True)[-1]
        assert top >= theta


@pytest.mark.parametrize("r", [1, 2, 3])
def test_rank_one_subset_values_equal_direct_evaluation(r):
    """The bordered-Cholesky values of F ∪ R for every r-subset R (with and without F)
    against λ_max computed independently for each subset."""
    rng = np.random.default_rng(40 + r)
    for c in range(12):
        n = int(rng.integers(6, 12))
        A, B = random_case(rng, n, "rank_one", identity_B=c % 3 == 0)
        d = np.sqrt(np.diag(A)) * np.sign(A[0])  # A = d dᵀ (random_case draws d itself)
        pair = check_pair(d, B)
        perm = rng.permutation(n)
        f = int(rng.integers(0, n - r))
        F, cand = np.sort(perm[:f]), np.sort(perm[f:])
        from spectral_kit.sparse_lda._numerics import rank_one_add_subsets_values

        idx, values = rank_one_add_subsets_values(pair, F, cand, r)
        assert idx.shape == (len(list(itertools.combinations(range(cand.size), r))), r)
        for row, value in zip(idx, values):
            S = np.concatenate([F, cand[row]])
            assert value == pytest.approx(subset_f(pair.A, pair.B, S), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("r", [1, 2, 3])
def test_subset_gains_against_solves_and_singular_subsets(r):
    """ρ_Rᵀ C_RR⁻¹ ρ_R for every r-subset against a solve of each C_RR, and −∞ (never NaN)
    for the subsets whose C_RR is singular: two identical candidates, a zero variance."""
    from spectral_kit.sparse_lda._numerics import _combinations, subset_gains

    rng = np.random.default_rng(70 + r)
    for c in (r, r + 1, 9, 14):
        X = rng.standard_normal((c, c + 3))
        C = X @ X.T / (c + 3)
        rho = rng.standard_normal(c)
        gains = subset_gains(C, rho, r)
        idx = _combinations(c, r)
        assert gains.shape == (idx.shape[0],)
        for row, gain in zip(idx, gains):
            want = rho[row] @ np.linalg.solve(C[np.ix_(row, row)], rho[row])
            assert gain == pytest.approx(want, rel=1e-10)
    # candidate 1 repeats candidate 0 exactly; candidate 3 has no variance left
    X = rng.standard_normal((6, 9))
    C = X @ X.T
    C[1], C[:, 1] = C[0], C[:, 0]
    C[3], C[:, 3] = 0.0, 0.0
    rho = rng.standard_normal(6)
    gains = subset_gains(C, rho, r)
    idx = _combinations(6, r)
    singular = np.array([3 in row or (r > 1 and 0 in row and 1 in row) for row in idx])
    assert not np.isnan(gains).any()
    assert np.all(gains[singular] == -np.inf)
    for row, gain in zip(idx[~singular], gains[~singular]):
        want = rho[row] @ np.linalg.solve(C[np.ix_(row, row)], rho[row])
        assert gain == pytest.approx(want, rel=1e-8)


def test_pair_values_of_a_node_equal_direct_evaluation():
    """The two-removal values f(T ∖ {i, j}) that a rank-one node computes for a block of
    (rows, cols) on demand, against λ_max evaluated for each pair's subset; −∞ on i = j."""
    from spectral_kit.sparse_lda._numerics import submatrix
    from spectral_kit.sparse_lda.nodes import _PairValues

    rng = np.random.default_rng(11)
    for c in range(10):
        n = int(rng.integers(5, 11))
        A, B = random_case(rng, n, "rank_one", identity_B=c % 4 == 0)
        d = np.sqrt(np.diag(A)) * np.sign(A[0])
        T = np.sort(rng.choice(n, int(rng.integers(3, n + 1)), replace=False))
        P = np.linalg.inv(submatrix(B, T))
        assert np.array_equal(submatrix(B, T), B[np.ix_(T, T)])
        w = P @ d[T]
        H = _PairValues(P, w, float(d[T] @ w))
        rows = np.sort(rng.choice(T.size, int(rng.integers(1, T.size + 1)), replace=False))
        cols = np.sort(rng.choice(T.size, int(rng.integers(1, T.size + 1)), replace=False))
        block = H.block(rows, cols)
        for a, i in enumerate(rows):
            for b, j in enumerate(cols):
                if i == j:
                    assert block[a, b] == -np.inf
                else:
                    S = np.delete(T, [i, j])
                    expected = subset_f(A, B, S) if S.size else 0.0
                    assert block[a, b] == pytest.approx(expected, rel=1e-9, abs=1e-9)


@pytest.mark.parametrize("seed", range(2))
def test_pairs_at_threshold_bound_every_pair_and_find_the_dead_ones(seed):
    """General A: the two-removal bounds read off the inertia of A_T − μB_T at the
    threshold (:class:`~spectral_kit.sparse_lda.nodes._PairsAtThreshold`) are at
    least f(T ∖ {i, j}) for every pair, and are lowered to μ for every pair whose value is
    below μ (away from rounding): the inertia test is exact. Thresholds in the top three
    gaps of the node's spectrum; with three eigenvalues above μ the node has no such bounds.
    PSD, indefinite and tie-heavy A, B = I and B ≠ I."""
    from spectral_kit.sparse_lda.driver import DEFAULT_GAP
    from spectral_kit.sparse_lda.nodes import _PairsAtThreshold
    from spectral_kit.sparse_lda.search import _Search

    rng = np.random.default_rng(900 + seed)
    applied = dead = 0
    for c in range(40):
        n = int(rng.integers(5, 10))
        kind = ("psd", "sym", "duplicated", "integer", "equicorrelated")[c % 5]
        A, B = random_case(rng, n, kind, identity_B=c % 3 == 0)
        search = _Search(check_pair(A, B), 2, np.arange(2), subset_f(A, B, [0, 1]),
                         DEFAULT_GAP)
        if search.pair.rank_one:  # a PSD A of rank one: the rank-one pair values apply
            continue
        T = np.sort(rng.choice(n, int(rng.integers(3, n + 1)), replace=False))
        lam = scipy.linalg.eigh(A[np.ix_(T, T)], B[np.ix_(T, T)], eigvals_only=True)
        scale = max(1.0, float(np.abs(lam).max()))
        exact = np.full((T.size, T.size), -np.inf)
        for a, b in itertools.combinations(range(T.size), 2):
            exact[a, b] = exact[b, a] = subset_f(A, B, np.delete(T, [a, b]))
        for q in (1, 2, 3):
            if q >= lam.size or lam[-q] - lam[-q - 1] < 1e-6 * scale:
                continue
            search._threshold = lam[-q - 1] + rng.uniform(0.05, 0.95) * (lam[-q] - lam[-q - 1])
            H = search.node_info(T).H
            if q == 3:
                assert H is None
                continue
            assert isinstance(H, _PairsAtThreshold) and H.q == q and not H.exact
            every = np.arange(T.size)
            block = H.block(every, every)
            assert np.all(np.diag(block) == -np.inf)
            off = ~np.eye(T.size, dtype=bool)
            assert np.all(block[off] >= exact[off] - TOL * scale)
            below = off & (exact < H.mu - 1e-7 * scale)
            assert np.all(block[below] <= H.mu)
            applied += 1
            dead += int(below.sum())
    assert applied > 30 and dead > 100


def test_kept_terms_of_stacked_directions_equal_one_at_a_time():
    """Several directions in one pass give each direction's own base and ψ."""
    rng = np.random.default_rng(12)
    for _ in range(20):
        m = int(rng.integers(2, 15))
        G = rng.standard_normal((m, m + 3))
        P = G @ G.T / (m + 3) + 0.05 * np.eye(m)
        x = rng.standard_normal(m)
        r = int(rng.integers(0, m + 1))
        Y = np.stack([x / np.diag(P), np.linalg.solve(P, x), rng.standard_normal(m)])
        bases, psis = bounds.schur_kept_terms(P, x, r, Y)
        assert bases.shape == (3,) and psis.shape == (3, m)
        for y, base, psi in zip(Y, bases, psis):
            base1, psi1 = bounds.schur_kept_terms(P, x, r, y)
            assert base == pytest.approx(base1, rel=1e-12, abs=1e-12)
            np.testing.assert_allclose(psi, psi1, rtol=1e-12, atol=1e-12)


def check_children(pairs, *, exact_subsets=None, fixed_out=None, direct_r=None):
    """Run ESLDA on each (A, B, k) with every child bound checked against brute force;
    returns, per child-bounding node, whether any child had a subset and whether the node
    had perspective terms. ``exact_subsets = 0`` turns off the direct finishes of r ≥ 2
    (``direct_r`` caps those of a general A), so that small pairs reach the children's
    bounds near the leaves too. Every variable the
    search fixes out of a node is checked too (no subset of the node that keeps it beats
    the incumbent); ``fixed_out`` collects how many were fixed out at each node."""
    from spectral_kit.sparse_lda.search import _Search

    checked = []
    with_perspective = []
    if fixed_out is None:
        fixed_out = []

    class Checked(_Search):
        if exact_subsets is not None:
            EXACT_SUBSETS = EXACT_TRIPLES = exact_subsets
        if direct_r is not None:
            GENERAL_DIRECT_R = direct_r

        def expand(self, F_mask, T_mask, own=False):
            self._node = np.flatnonzero(T_mask)
            return super().expand(F_mask, T_mask, own)

        def child_bounds(self, info, u, h_sorted, r, e):
            fast = super().child_bounds(info, u, h_sorted, r, e)
            with_perspective.append(self._persp is not None and self._persp[0] is info)
            T_idx = self._node
            masks, values = self._all
            for i, bound in enumerate(fast):
                # every position of T outside u is fixed by now; child i keeps u_1 … u_i−1
                # and leaves u_i out
                F = np.zeros(self.n, dtype=bool)
                F[np.delete(T_idx, u)] = True
                F[T_idx[u[:i]]] = True
                T = np.zeros(self.n, dtype=bool)
                T[np.delete(T_idx, u[i])] = True
                best = node_max(masks, values, F, T)
                assert bound + info.margin >= best - tol(values)
                checked.append(best > -np.inf)
            return fast

        def excluded_free(self, info, free, r):
            out = super().excluded_free(info, free, r)
            T_idx = self._node
            masks, values = self._all
            T = np.zeros(self.n, dtype=bool)
            T[T_idx] = True
            for j in out:
                F = np.zeros(self.n, dtype=bool)
                F[np.delete(T_idx, free)] = True  # the node's F and the variables fixed in
                F[T_idx[j]] = True
                assert node_max(masks, values, F, T) <= self.threshold() + tol(values)
            fixed_out.append(out.size)
            return out

    class CheckedESLDA(ESLDASearch):
        _search_class = Checked

    for A, B, k in pairs:
        pair = check_pair(A, B)
        search = CheckedESLDA(pair, k, gslda_pair(pair).support_at(k))
        search._search._all = all_values(search._search.pair.A, search._search.pair.B, k)
        search.advance()
        assert search.optimal
    return checked, with_perspective


@pytest.mark.parametrize("seed", range(3))
def test_child_bounds_never_cut_off_a_child(seed):
    """Every child the search bounds (all r + 1 of a node at once, on (r + 1) × |u| arrays)
    gets a bound, plus the node's rounding margin, at least the brute-force best of its own
    subsets (−∞ only for a child with no subset), at every node of searches on random and
    tie-heavy pairs, rank-one and general, B = I and B ≠ I."""
    pairs = ((A, B, k) for _rng, A, B, k in cases(6000 + seed, 120, n_range=(9, 13)))
    # general nodes finished directly only when they keep at most two more variables: with
    # the default (six) these small pairs rarely branch
    checked, _ = check_children(pairs, direct_r=2)
    assert sum(checked) > 50


# --------------------------------------------------------------------------- perspective


def rank_one_cases(rng, count):
    """Rank-one pairs with B ≠ I: random SPD, Brownian-type (smooth: tiny λ_min, negative
    couplings in B⁻¹) and equal loadings (ties)."""
    for c in range(count):
        n = int(rng.integers(5, 12))
        _, B = random_case(rng, n, "rank_one", False)
        if c % 3 == 1:
            s = np.arange(1, n + 1, dtype=float)
            B = np.minimum.outer(s, s) / np.sqrt(np.multiply.outer(s, s)) + 1e-3 * np.eye(n)
        d = rng.standard_normal(n)
        if c % 4 == 0:
            d = np.repeat(rng.standard_normal(2), (n + 1) // 2)[:n]
        yield n, d, B


def node_arrays(B, d, F, T):
    T_idx = np.flatnonzero(T)
    free = np.flatnonzero(~F[T_idx])
    P = np.linalg.inv(B[np.ix_(T_idx, T_idx)])
    x = P @ d[T_idx]
    return free, P[np.ix_(free, free)], x[free], float(d[T_idx] @ x)


@pytest.mark.parametrize("seed", range(3))
def test_perspective_bound_never_cuts_off_the_optimum(seed):
    """Rank one, B ≠ I: f(T) − base + Σ_K ψ_i bounds every subset F ∪ K of a node, and the
    same sum bounds the subsets that leave one free variable out or keep one and leave
    another out (the search's fixing and children); with the default effort and with a
    single solve (a far-from-optimal y and D: still valid, only looser)."""
    from spectral_kit.sparse_lda.perspective import perspective_terms

    rng = np.random.default_rng(700 + seed)
    checked = 0
    for n, d, B in rank_one_cases(rng, 60):
        k = int(rng.integers(2, n - 1))
        masks, values = all_values(np.outer(d, d), B, k)
        t = tol(values) * 10
        for _ in range(4):
            F, T = random_node(rng, n, k)
            free, P_ff, x_f, f_T = node_arrays(B, d, F, T)
            r = k - int(F.sum())
            for effort in ({}, {"rounds": 0, "iters": 1}):
                terms = perspective_terms(P_ff, x_f, r, **effort)
                assert terms is not None
                base, psi = terms
                check_kept_form(masks, values, F, T, free, f_T - base, psi, r, t)
            checked += 1
    assert checked == 240


def test_perspective_rounds_past_the_give_up_only_tighten():
    """The search stops the perspective's rounds early (``give_up``) to save time, and
    never loses tightness it has found: a call that gives up returns exactly the first
    round's terms, and the terms are the best over all the steps taken, so running every
    round gives a node bound at most that one (and often below it). Both stay valid (the
    brute-force test above)."""
    from spectral_kit.sparse_lda.bounds import top_sums
    from spectral_kit.sparse_lda.perspective import perspective_terms

    rng = np.random.default_rng(770)
    tightened = 0
    for n, d, B in rank_one_cases(rng, 60):
        k = int(rng.integers(2, n - 1))
        F, T = random_node(rng, n, k)
        free, P_ff, x_f, f_T = node_arrays(B, d, F, T)
        r = k - int(F.sum())
        if r < 2 or r >= free.size:
            continue
        bound = {}
        # a stop the bound cannot reach: no early return, only the give-up ends the rounds
        for name, effort in (("first", {"rounds": 0}), ("given_up", {"give_up": 0.0}),
                             ("all", {"give_up": np.inf})):
            base, psi = perspective_terms(P_ff, x_f, r, iters=2, stop=-1e300, **effort)
            bound[name] = f_T - base + float(top_sums(psi, r))
        assert bound["given_up"] == bound["first"]
        t = 1e-12 * max(1.0, abs(f_T))
        assert bound["all"] <= bound["first"] + t
        tightened += bound["all"] < bound["first"] - t
    assert tightened > 10


@pytest.mark.parametrize("seed", range(2))
def test_children_with_perspective_terms_never_cut_off_a_child(seed):
    """Rank one, B ≠ I, with the direct finishes off: the children's bounds with the
    perspective terms (and those fixed since they were computed) against brute force."""
    rng = np.random.default_rng(750 + seed)
    pairs = []
    for n, d, B in rank_one_cases(rng, 450):
        if n >= 8:
            pairs.append((np.outer(d, d), B, int(rng.integers(3, n - 2))))
    fixed_out = []
    checked, with_perspective = check_children(pairs, exact_subsets=0, fixed_out=fixed_out)
    assert sum(checked) > 100
    assert sum(with_perspective) > 30
    # variables fixed out of nodes, each checked against brute force in check_children
    assert sum(fixed_out) > 40


@pytest.mark.parametrize("seed", range(2))
def test_split_terms_bound_every_subset_for_any_y_and_D(seed):
    """The lemma behind the perspective bound, for random y and random diagonal D ⪯ Q
    (not the ones the routine would pick): gain(K) ≤ c₀ + Σ_{i∈K} ψ_i for every K, with
    the gain d̃_Kᵀ Q_KK⁻¹ d̃_K evaluated directly; equality at y = x, D → 0 for K = all."""
    from spectral_kit.sparse_lda.perspective import split_terms

    rng = np.random.default_rng(800 + seed)
    for _ in range(200):
        m = int(rng.integers(1, 8))
        G = rng.standard_normal((m, m + 1))
        Q = G @ G.T + rng.uniform(0.01, 0.5) * np.eye(m)
        x = rng.standard_normal(m)
        d_res = Q @ x
        lam_min = np.linalg.eigvalsh(Q)[0]
        D = rng.uniform(0.05, 1.0, m) * lam_min  # diagonal ⪯ λ_min I ⪯ Q
        y = rng.standard_normal(m) * rng.choice([0.1, 1.0, 10.0])
        c0, psi = split_terms(Q, d_res, D, y)
        for size in range(1, m + 1):
            for K in itertools.combinations(range(m), size):
                K = list(K)
                gain = d_res[K] @ np.linalg.solve(Q[np.ix_(K, K)], d_res[K])
                assert gain <= c0 + psi[K].sum() + 1e-9 * max(1.0, abs(gain))
        c0, psi = split_terms(Q, d_res, 1e-12 * D, x)
        assert c0 + psi.sum() == pytest.approx(x @ d_res, rel=1e-6)


def test_capped_simplex_solves_its_problem():
    """z = argmin Σ a_i / z_i over 0 < z ≤ 1, Σz = r: feasible, the uncapped z_i are
    proportional to √a_i and the capped ones have the largest a_i (the Lagrange conditions,
    sufficient for this convex problem); and no random feasible z does better."""
    from spectral_kit.sparse_lda.perspective import capped_simplex

    rng = np.random.default_rng(9)
    for _ in range(3000):
        m = int(rng.integers(1, 12))
        r = int(rng.integers(1, m + 1))
        a = rng.exponential(size=m) * (rng.random(m) < 0.8)
        if rng.random() < 0.1:
            a[:] = np.round(a)  # ties and zeros
        z = capped_simplex(a, r)
        assert z.sum() == pytest.approx(r, rel=1e-12, abs=1e-10)  # z_i ≥ 1e-12: not 0
        assert np.all(z > 0) and np.all(z <= 1)
        pos = a > 0
        if pos.sum() <= r:
            np.testing.assert_allclose(z[pos], 1.0, rtol=1e-12)
            continue
        capped = z >= 1 - 1e-12
        free = ~capped & pos
        ratio = z[free] / np.sqrt(a[free])
        assert np.ptp(ratio) <= 1e-12 * ratio.max()
        assert np.all(np.sqrt(a[capped]) * ratio.max() >= 1 - 1e-12)
        value = (a / z).sum()
        for _ in range(5):  # random feasible points: a convex combination with r/m
            w = rng.dirichlet(np.ones(m)) * r
            if w.max() > 1:
                continue
            mix = 0.5 * z + 0.5 * w
            assert value <= (a / mix).sum() * (1 + 1e-12)


def test_perspective_terms_decline_what_they_cannot_certify():
    """No terms (None, so the search falls back on its other bounds) for a P_free that is
    not positive definite, or too ill-conditioned for D ⪯ Q to be certain in floating point."""
    from spectral_kit.sparse_lda.perspective import perspective_terms

    x = np.array([1.0, -2.0, 0.5])
    indefinite = np.array([[1.0, 2.0, 0.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0]])
    assert perspective_terms(indefinite, x, 2) is None
    U = np.linalg.qr(np.random.default_rng(0).standard_normal((3, 3)))[0]
    ill = U @ np.diag([1.0, 1e-8, 1e-15]) @ U.T
    assert perspective_terms(0.5 * (ill + ill.T), x, 2) is None
    base, psi = perspective_terms(np.eye(3), x, 2)  # B_T = I: exact, the top-2 of x²
    assert base - np.sort(psi)[::-1][:2].sum() == pytest.approx(np.sort(x * x)[0], abs=1e-6)


@pytest.mark.parametrize("m", [17, 300])  # 300: the free columns go through blocks
@pytest.mark.parametrize("seed", range(4))
def test_row_tops_are_each_rows_fixed_sum_and_largest_free_entries(seed, m):
    rng = np.random.default_rng(seed)
    r = 4
    M = rng.standard_normal((m, m))
    M = M + M.T
    in_F = np.zeros(m, dtype=bool)
    in_F[rng.choice(m, seed, replace=False)] = True
    w = rng.uniform(0.2, 1.0, m)
    for kind in ("plain", "weighted", "square"):
        V = np.abs(M) if kind != "square" else M * M
        if kind == "weighted":
            V = V * w[None, :]
        base, top = bounds._row_tops(np.abs(M) if kind != "square" else M, in_F, r,
                                     w if kind == "weighted" else None,
                                     square=kind == "square")
        for i in range(m):
            others = np.arange(m) != i
            assert base[i] == pytest.approx(V[i, in_F & others].sum(), rel=1e-12, abs=1e-12)
            # the row's own entry counts as 0 among the free columns
            free_values = np.where(others, V[i], 0.0)[~in_F]
            expected = np.sort(free_values)[::-1][:r]
            assert np.sort(top[i])[::-1] == pytest.approx(expected, rel=1e-12, abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_row_top_r_through_blocks_equals_a_full_partition(seed):
    """Widths with and without a remainder block, ties, rows of zeros and r up to the
    largest the blocks take: the values equal each row's r largest."""
    rng = np.random.default_rng(seed)
    for _ in range(20):
        m = int(rng.integers(1, 40))
        c = int(rng.integers(bounds.TOP_BLOCK_MIN, 1200))
        r = int(rng.integers(1, c // (2 * bounds.TOP_BLOCK) + 1))
        M = np.abs(rng.standard_normal((m, c)))
        if seed % 2:
            M = np.round(M, 1)  # ties
        M[:, rng.random(c) < 0.5] = 0.0
        M[rng.random(m) < 0.2] = 0.0
        expected = np.sort(M, axis=1)[:, ::-1][:, :r]
        for layout in ("C", "F"):
            got = np.sort(bounds._row_top_r(M.copy(order=layout), r), axis=1)[:, ::-1]
            assert got.shape == (m, r)
            np.testing.assert_array_equal(got, expected)


def test_soft_threshold_bound_is_dropped_once_idle_at_its_level(monkeypatch):
    """A soft-threshold bound that, at its best level, is never below the bound the node
    was queued under stops being tried after SOFT_IDLE such nodes (here made so by a large
    valid stand-in, Σ|a_ij| ≥ λ_max, on a weak spiked covariance that branches); without
    the rule it is tried on more nodes, and either way the search certifies the optimum of
    the first search."""
    from spectral_kit.bench.sparse_lda import _spiked
    from spectral_kit.sparse_lda.search import _Search

    monkeypatch.setattr(bounds, "soft_threshold_bound",
                        lambda A_T, c, k: float(np.abs(A_T).sum()))
    pair = check_pair(_spiked(30, 5, 1.0, 60, 1), np.eye(30))
    support = gslda_pair(pair).support_at(8)
    ref = _ReferenceESLDASearch(pair, 8, support)
    ref.advance()
    tries, rule = {}, _Search.SOFT_IDLE
    for idle in (rule, np.inf):
        monkeypatch.setattr(_Search, "SOFT_IDLE", idle)
        search = ESLDASearch(pair, 8, support)
        search.advance()
        assert search.optimal
        assert search.value == pytest.approx(ref.value, rel=1e-9)
        tries[idle] = search._search.stats.get("soft", (0, 0))
    assert tries[rule] == (rule + 1, 0)
    assert tries[np.inf][0] > 2 * (rule + 1)
