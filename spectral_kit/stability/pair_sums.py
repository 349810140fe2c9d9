"""What one block of samples adds to the sums behind the bootstrap intervals.

Mavroeidis & Vazirgiannis (Sec. 4.1) bootstrap every covariance (PCA) and cosine (LSI) of a
pair of features. For a pair (r, c) with products ``Z_t = x_tr x_tc`` every quantity the
percentile and BCa intervals need is a sum over the samples t:

* the estimate, from ``S = Σₜ Zₜ``, and the B resampled values, from ``S_b = Σₜ w_bt Zₜ``
  (matrix products ``Z Wᵀ`` of batches of pairs, the products of a pair in a row);
* BCa's acceleration (Efron & Tibshirani 1993, eq. 14.15) from the n leave-one-out values
  θ₍ₜ₎, which are rank-one downdates of the full-sample sums. With ``eₜ`` equal to θ₍ₜ₎ up to
  a constant and a positive factor, the power sums ``Σeₜ, Σeₜ², Σeₜ³`` give its central
  moments. Covariance: ``eₜ = n/(n−1)·Z̃ₜ − (s_r x̃_tc + s_c x̃_tr)/(n−1)`` on the centred data.
  Cosine: ``θ₍ₜ₎ − θ = S·uₜ − vₜ`` with ``uₜ = ℓ_tr ℓ_tc − i_r i_c``, ``vₜ = Zₜ ℓ_tr ℓ_tc``,
  ``i = 1/‖x‖`` and ``ℓ_tr = 1/√(N_r − x_tr²)``. Each eₜ is formed before its powers are
  summed: for near-duplicate features S·uₜ and vₜ nearly cancel, and sums of ``u^a v^b``
  combined afterwards would keep no correct digit of ``Σ(θ₍ₜ₎ − θ)^j``. So an X in several
  blocks (Dask) takes a second pass for them (:func:`cosine_jackknife_sums`), once the
  full-sample S is known.

The kernels here return those sums for a block of samples, in the block's array namespace; the
layer below (:mod:`spectral_kit.backends.samples`) adds them over the blocks of X.

Sparse X (SciPy, e.g. a term–document matrix) is never densified: a sample where neither
feature of a pair occurs contributes nothing to ``Z``, and its leave-one-out value is the
full-sample one (cosine) or a constant (covariance, where the centring is applied
algebraically), so each sum runs over the co-occurrences of the pair plus per-feature sums
over each feature's own non-zeros.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..backends.samples import is_sparse, namespace_of

__all__ = [
    "column_scan",
    "cosine_jackknife_sums",
    "pair_runs",
    "pair_sums",
    "resample_moments",
    "sparse_column_sums",
]


def column_scan(Xb: Any) -> tuple[Any, Any, Any, Any]:
    """Column sums, maxima and minima of a block, and its count of NaN/inf entries."""
    if is_sparse(Xb):
        data = Xb.data
        return (np.asarray(Xb.sum(axis=0)).ravel(), Xb.max(axis=0).toarray().ravel(),
                Xb.min(axis=0).toarray().ravel(),
                np.array([data.size - np.count_nonzero(np.isfinite(data))]))
    xp = namespace_of(Xb)
    X = xp.asarray(Xb, dtype=xp.float64)
    bad = xp.sum(xp.asarray(~xp.isfinite(X), dtype=xp.float64))
    return xp.sum(X, axis=0), xp.max(X, axis=0), xp.min(X, axis=0), xp.reshape(bad, (1,))


def resample_moments(Xb: Any, Wb: Any, *, cosine: bool, scale: Any, mean: Any) -> tuple:
    """Per-feature sums every block of pairs needs, full sample and per resample.

    Covariance: ``Σ x̃`` and ``W x̃`` of the centred data ``x̃ = x·scale − mean``; cosine:
    ``Σ x²`` and ``W x²`` of the scaled data. Sparse X arrives scaled; its ``Σ x̃`` is
    centred algebraically and its ``W x`` is left uncentred, like the resampled sums of its
    pairs (:func:`pair_sums`).
    """
    if is_sparse(Xb):
        base = Xb.multiply(Xb) if cosine else Xb
        first = np.asarray(base.sum(axis=0)).ravel()
        resampled = (base.T.tocsr() @ Wb.T).T
        if not cosine:
            first = first - Xb.shape[0] * mean
        return first, resampled
    xp = namespace_of(Xb)
    X = xp.asarray(Xb, dtype=xp.float64) * _on(xp, scale, Wb)
    base = X * X if cosine else X - _on(xp, mean, Wb)
    return xp.sum(base, axis=0), Wb @ base


def sparse_column_sums(X: Any, *, cosine: bool) -> np.ndarray:
    """(3, p) sums over each column's non-zeros of ``Δ(x)^a`` (cosine, with
    ``Δ(x) = ℓ − i``) or ``x^a`` (covariance), a = 1, 2, 3: what a pair's samples where only
    one of its features occurs add up to."""
    cols = np.repeat(np.arange(X.shape[1]), np.diff(X.indptr))
    if cosine:
        N = np.bincount(cols, X.data * X.data, minlength=X.shape[1])
        base = _delta(np, X.data.copy(), N[cols])[0]
    else:
        base = X.data
    return np.stack([np.bincount(cols, base**a, minlength=X.shape[1]) for a in (1, 2, 3)])


def pair_sums(Xb: Any, Wb: Any, *, pairs: dict, cosine: bool, n: int,
              whole: bool = False) -> tuple:
    """``(S, S_b, sums)`` of the pairs ``pairs["r"], pairs["c"]`` over one block of samples.

    ``pairs`` holds the pairs' indices and the per-feature quantities of each side (``_r``,
    ``_c``): scale factors ``f`` and means ``mu`` (covariance), squared norms ``N`` and
    inverse norms ``i`` (cosine); for a dense X also the block's features ``feats`` (sorted),
    the position of each side in them (``pr``, ``pc``) and the same quantities per feature
    (``f``, ``mu``, ``N``, ``i``), so that the terms of one side are computed once per
    feature rather than once per pair. ``sums`` holds the power sums of the jackknife terms:
    ``(Σe, Σe², Σe³)``, or nothing for the cosine of a block that is not the whole sample
    (:func:`cosine_jackknife_sums` gives them; module notes). With ``whole=True`` (the block
    holds every sample) the terms are centred exactly first, so that ``Σe = 0``.
    """
    if is_sparse(Xb):
        return _sparse_pair_sums(Xb, Wb, pairs, cosine, n)
    xp = namespace_of(Xb)
    F, D, L = _feature_rows(xp, Xb, pairs, cosine, like=Wb)
    on_numpy = xp is np
    m = int(pairs["r"].size)
    # NumPy writes each run's products into a batch that goes to the product with W once
    # full; other namespaces join the runs and take one product.
    product = _Streamed(m, int(F.shape[1]), Wb) if on_numpy else None
    S: Any = np.empty(m) if on_numpy else []
    Z: list = []
    terms: list = []
    for a, b, r, cols in pair_runs(pairs["pr"], pairs["pc"], longest=BATCH_ROWS):
        z = _pair_rows(xp, F, r, cols, product.next_rows(b - a) if on_numpy else None)
        s = xp.sum(z, axis=1)
        if cosine and whole:
            e = _leave_one_out(xp, D, L, r, cols, pairs, z, s)
            run = _power_sums(xp, _minus(xp, e, xp.sum(e, axis=1)[:, None] / n), True)
        elif cosine:
            # θ₍ₜ₎ − θ needs the full sample's S: cosine_jackknife_sums, a second pass
            run = ()
        else:
            # The leave-one-out covariances are, up to a constant and a positive factor,
            # −Zₜ·n/(n−1) (the centred columns sum to zero).
            run = _scaled(_power_sums(xp, z - s[:, None] / n if whole else z, whole),
                          n / (n - 1))
        terms.append(run)
        if on_numpy:
            S[a:b] = s
            product.written(b - a)
        else:
            Z.append(z)
            S.append(s)
    sums = _joined(xp, terms)
    if on_numpy:
        return S, product.finish(), sums
    # (W Zᵀ) as the transpose of Z Wᵀ: each pair's B values lie together, for the sort.
    return xp.concat(S, axis=0), (xp.concat(Z, axis=0) @ Wb.T).T, sums


def cosine_jackknife_sums(Xb: Any, *, pairs: dict, n: int, S: np.ndarray) -> tuple:
    """``(Σe, Σe², Σe³)`` over one block of samples of ``eₜ = θ₍ₜ₎ − θ = S·uₜ − vₜ``, the
    cosine's leave-one-out deviations (module notes), for the pairs of ``pairs`` (dense X).

    The second pass over an X in several blocks, once the full-sample sums S of the pairs
    are known: each eₜ is then formed before it is raised to a power. Expanding the powers
    of ``S·u − v`` into the sums of ``u^a v^b`` instead loses every digit where the two
    nearly cancel, for near-duplicate features, whose cosines are close to 1.
    """
    xp = namespace_of(Xb)
    F, D, L = _feature_rows(xp, Xb, pairs, True)
    terms = []
    for a, b, r, cols in pair_runs(pairs["pr"], pairs["pc"], longest=BATCH_ROWS):
        z = _pair_rows(xp, F, r, cols)
        terms.append(_power_sums(xp, _leave_one_out(xp, D, L, r, cols, pairs, z,
                                                    _on(xp, S[a:b], z))))
    return _joined(xp, terms)


def _feature_rows(xp: Any, Xb: Any, pairs: dict, cosine: bool,
                  like: Any = None) -> tuple[Any, Any, Any]:
    """The block's scaled (and for the covariance centred) features as rows F, and for the
    cosine their Δ and ℓ (module notes), in the block's namespace."""
    P = {k: _on(xp, v, Xb if like is None else like) for k, v in pairs.items()
         if k in ("feats", "f", "mu", "N", "i")}
    X = xp.asarray(Xb, dtype=xp.float64)
    # Every per-sample term of a side of a pair depends on its feature alone: computed once
    # per feature of the block, features as rows, so that a run of pairs sharing their first
    # feature reads one row and a contiguous slice of rows instead of two gathered copies.
    F = xp.take(X, P["feats"], axis=1) * P["f"]
    if not cosine:
        return _rows_first(xp, _minus(xp, F, P["mu"])), None, None
    F = _rows_first(xp, F)
    D, L = _delta(xp, _copy(xp, F), P["N"][:, None], P["i"][:, None])
    return F, D, L


def _leave_one_out(xp: Any, D: Any, L: Any, r: int, cols: Any, pairs: dict, z: Any,
                   s: Any) -> Any:
    """``θ₍ₜ₎ − θ = S·uₜ − vₜ`` of the cosines of a run of pairs (module notes), with
    ``uₜ = ℓ_r ℓ_c − i_r i_c = Δ_r ℓ_c + i_r Δ_c`` and ``vₜ = Zₜ ℓ_r ℓ_c``."""
    u = _pair_rows(xp, D, r, cols, B=L)  # Δ_r ℓ_c
    u = _plus(xp, u, _take_rows(xp, D, cols) * float(pairs["i"][r]))
    v = _times(xp, _pair_rows(xp, L, r, cols), z)
    return _minus(xp, _times(xp, u, s[:, None]), v)


def _joined(xp: Any, terms: list) -> tuple:
    """The runs' sums, each joined over the runs."""
    return tuple(_join(xp, [t[j] for t in terms]) for j in range(len(terms[0])))


#: Rows of products (pairs) gathered before each matrix product with W.
BATCH_ROWS = 512


class _Streamed:
    """``S_b`` of a block's pairs from their products, a batch of rows at a time (NumPy).

    Runs of pairs write their products into the batch in order; once it holds
    :data:`BATCH_ROWS` rows they go to the product with W, so a block never holds more than
    a batch of products, whatever its number of pairs.
    """

    def __init__(self, m: int, nb: int, W: np.ndarray):
        self.W = W
        # pairs in rows, each pair's B values together (for the sort)
        self.Sb = np.empty((m, W.shape[0]))
        self.Z = np.empty((min(2 * BATCH_ROWS, m), nb))
        self.done = self.k = 0

    def next_rows(self, rows: int) -> np.ndarray:
        """Room for the products of the next ``rows`` pairs (at most :data:`BATCH_ROWS`)."""
        if self.k + rows > self.Z.shape[0]:
            self._flush()
        return self.Z[self.k : self.k + rows]

    def written(self, rows: int) -> None:
        self.k += rows
        if self.k >= BATCH_ROWS:
            self._flush()

    def _flush(self) -> None:
        if self.k:
            np.matmul(self.Z[: self.k], self.W.T, out=self.Sb[self.done : self.done + self.k])
            self.done += self.k
            self.k = 0

    def finish(self) -> np.ndarray:
        """``S_b`` as (B × m), once the last rows have gone to the product."""
        self._flush()
        return self.Sb.T


def pair_runs(pr: np.ndarray, pc: np.ndarray,
              longest: int | None = None) -> list[tuple[int, int, int, Any]]:
    """``(a, b, r, cols)`` for each run ``a:b`` of pairs (pr, pc) that share their first
    feature r, with their second features (a slice where they are consecutive, as in the
    row-major order of the upper triangle); runs longer than ``longest`` are cut."""
    pr, pc = np.asarray(pr), np.asarray(pc)
    cut = np.flatnonzero(np.diff(pr)) + 1
    starts, ends = np.r_[0, cut], np.r_[cut, pr.size]
    if longest is not None:
        pieces = [np.arange(a, b, longest) for a, b in zip(starts.tolist(), ends.tolist())]
        starts = np.concatenate(pieces) if pieces else starts
        ends = np.r_[starts[1:], pr.size]
    out = []
    for a, b in zip(starts.tolist(), ends.tolist()):
        c0, c1 = int(pc[a]), int(pc[b - 1])
        consecutive = c1 - c0 == b - a - 1 and bool(np.all(np.diff(pc[a:b]) == 1))
        out.append((a, b, int(pr[a]), slice(c0, c1 + 1) if consecutive else pc[a:b]))
    return out


def _rows_first(xp: Any, A: Any) -> Any:
    """Aᵀ, C-contiguous for NumPy."""
    return np.ascontiguousarray(A.T) if xp is np else xp.permute_dims(A, (1, 0))


def _take_rows(xp: Any, A: Any, rows: Any) -> Any:
    if isinstance(rows, slice):
        return A[rows, ...]
    return xp.take(A, rows if xp is np else _on(xp, np.asarray(rows), A), axis=0)


def _pair_rows(xp: Any, A: Any, r: int, cols: Any, out: Any = None, B: Any = None) -> Any:
    """``A[r] * (B or A)[cols]``: one run of pairs' products, samples along the rows."""
    other = _take_rows(xp, A if B is None else B, cols)
    if xp is np:
        return np.multiply(A[r], other, out=out)
    return A[r, ...] * other


def _copy(xp: Any, A: Any) -> Any:
    return A.copy() if xp is np else A


def _join(xp: Any, parts: list) -> Any:
    return np.concatenate(parts) if xp is np else xp.concat(parts, axis=0)


def _sparse_pair_sums(X: Any, W: Any, pairs: dict, cosine: bool, n: int) -> tuple:
    """:func:`pair_sums` for a sparse X (CSC, scaled, no stored zeros)."""
    r, c = pairs["r"], pairs["c"]
    m = r.size
    Xr, Xc = X[:, r], X[:, c]
    Z = Xr.multiply(Xc).tocsc()
    Z.sort_indices()
    zr, zc = _at_pattern(Xr, Xc, Z), _at_pattern(Xc, Xr, Z)
    z = Z.data
    k = np.repeat(np.arange(m), np.diff(Z.indptr))  # the pair of each co-occurrence
    S = np.bincount(k, z, minlength=m)
    Sb = (Z.T.tocsr() @ W.T).T

    def co(values: np.ndarray) -> np.ndarray:
        return np.bincount(k, values, minlength=m)

    if not cosine:
        C_r, C_c = pairs["C_r"], pairs["C_c"]  # (3, m) one-feature sums of each side
        mu_r, mu_c = pairs["mu_r"], pairs["mu_c"]
        # δₜ = x̃_r x̃_c − μ_r μ_c vanishes where neither feature occurs; e = n/(n−1)·δ.
        d = z - mu_c[k] * zr - mu_r[k] * zc
        sums = tuple(
            (n / (n - 1)) ** a * (co(d**a) + (-mu_c) ** a * (C_r[a - 1] - co(zr**a))
                                  + (-mu_r) ** a * (C_c[a - 1] - co(zc**a)))
            for a in (1, 2, 3)
        )
        # S_b stays uncentred: with the uncentred W x of resample_moments it gives the
        # same resampled covariances, Σw x_r x_c − (Σw x_r)(Σw x_c)/n, as centred sums do.
        return S - n * mu_r * mu_c, Sb, sums
    i_r, i_c = pairs["i_r"], pairs["i_c"]
    dr, lr = _delta(np, zr, pairs["N_r"][k], i_r[k])
    dc, lc = _delta(np, zc, pairs["N_c"][k], i_c[k])
    # θ₍ₜ₎ − θ = S·uₜ − vₜ formed at each co-occurrence before any power of it is taken
    e = S[k] * (dr * lc + i_r[k] * dc) - z * lr * lc
    sums = [co(e**a) for a in (1, 2, 3)]
    # Where only one feature occurs, u = Δ·i of the other side and v = 0 (where neither,
    # e = 0). A side's sums over all its non-zeros less those over the co-occurrences are
    # exact but for their rounding, which is more than the whole of Σeᵃ for near-duplicate
    # features: where the difference keeps fewer than ~10 digits, the side's samples are
    # summed over themselves instead.
    for A, C, d, N, i_own, i_other in ((Xr, pairs["C_r"], dr, pairs["N_r"], i_r, i_c),
                                       (Xc, pairs["C_c"], dc, pairs["N_c"], i_c, i_r)):
        rest = [C[a - 1] - co(d**a) for a in (1, 2, 3)]
        direct = np.flatnonzero(rest[1] < ALONE_DIGITS * C[1])
        if direct.size:
            values, j = _alone(A[:, direct], Z[:, direct])
            own = direct[j]
            t = _delta(np, values, N[own], i_own[own])[0]
            for a in (1, 2, 3):
                rest[a - 1][direct] = np.bincount(j, t**a, minlength=direct.size)
        for a in (1, 2, 3):
            sums[a - 1] += (S * i_other) ** a * rest[a - 1]
    return S, Sb, tuple(sums)


#: A side's share of its squared Δ outside the co-occurrences below which it is summed
#: directly rather than as a difference of two sums (about 10 of 16 digits kept).
ALONE_DIGITS = 1e-6


def _alone(A: Any, Z: Any) -> tuple[np.ndarray, np.ndarray]:
    """The entries of A (CSC, one column per pair) where the pair's other feature does not
    occur -- those of A's pattern outside the co-occurrences Z -- and their columns."""
    A = A.tocsc()
    A.sort_indices()
    Z = Z.tocsc()
    Z.sort_indices()
    n = A.shape[0]
    cols_a = np.repeat(np.arange(A.shape[1], dtype=np.int64), np.diff(A.indptr))
    keys = cols_a * n + A.indices  # sorted: columns in order, rows sorted within each
    cols_z = np.repeat(np.arange(Z.shape[1], dtype=np.int64), np.diff(Z.indptr))
    keep = np.ones(keys.size, dtype=bool)
    keep[np.searchsorted(keys, cols_z * n + Z.indices)] = False
    return A.data[keep], cols_a[keep]


def _at_pattern(A: Any, B: Any, Z: Any) -> np.ndarray:
    """The entries of A at the stored positions of Z = A ∘ B, in Z's order."""
    pattern = B.copy()
    pattern.data = np.ones_like(pattern.data)
    out = A.multiply(pattern).tocsc()
    out.sort_indices()
    if out.nnz == Z.nnz and np.array_equal(out.indices, Z.indices) and np.array_equal(
            out.indptr, Z.indptr):
        return out.data
    # A product that underflowed to 0 left Z: read A entry by entry instead.
    rows = Z.indices
    cols = np.repeat(np.arange(Z.shape[1]), np.diff(Z.indptr))
    return np.asarray(A[rows, cols]).ravel()


def _delta(xp: Any, x: Any, N: Any, i: Any = None) -> tuple[Any, Any]:
    """``Δ = ℓ − i`` and ``ℓ = 1/√(N − x²)`` (0 when x holds all of N), without cancellation:
    ``Δ = x²·i·ℓ / (√N + √(N − x²))``. Overwrites a NumPy x."""
    if i is None:
        i = 1.0 / xp.sqrt(N)
    sq = _times(xp, x, x)
    rest = N - sq
    positive = rest > 0
    if xp is np:
        np.sqrt(np.maximum(rest, 0.0, out=rest), out=rest)
        ell = np.divide(1.0, rest, out=np.zeros_like(rest), where=positive)
        rest += 1.0 / i
        sq *= ell
        sq *= i
        sq /= rest
        np.copyto(sq, -np.broadcast_to(i, sq.shape), where=~positive)
        return sq, ell
    root = xp.sqrt(xp.where(positive, rest, xp.ones_like(rest)))
    ell = xp.where(positive, 1.0 / root, xp.zeros_like(rest))
    delta = xp.where(positive, sq * i * ell / (1.0 / i + root), -i * xp.ones_like(rest))
    return delta, ell


def _power_sums(xp: Any, e: Any, centred: bool = False) -> tuple[Any, Any, Any]:
    """``(Σe, Σe², Σe³)`` of each row of e (one pair per row)."""
    if xp is np:
        first = np.zeros(e.shape[0]) if centred else e.sum(axis=1)
        return (first, np.einsum("ij,ij->i", e, e), np.einsum("ij,ij,ij->i", e, e, e))
    e2 = e * e
    first = xp.zeros_like(e2[:, 0]) if centred else xp.sum(e, axis=1)
    return first, xp.sum(e2, axis=1), xp.sum(e2 * e, axis=1)


def _scaled(sums: tuple, factor: float) -> tuple:
    """Power sums of ``factor·e`` from those of e."""
    return tuple(s * factor**a for a, s in enumerate(sums, start=1))


def _times(xp: Any, a: Any, b: Any) -> Any:
    """``a * b``, in a's buffer for NumPy (the kernels' temporaries are their own)."""
    if xp is np:
        a *= b
        return a
    return a * b


def _plus(xp: Any, a: Any, b: Any) -> Any:
    if xp is np:
        a += b
        return a
    return a + b


def _minus(xp: Any, a: Any, b: Any) -> Any:
    if xp is np:
        a -= b
        return a
    return a - b


def _on(xp: Any, a: Any, like: Any) -> Any:
    """A small NumPy argument in ``like``'s namespace and on its device."""
    if xp is np or a is None or not isinstance(a, np.ndarray):
        return a
    from array_api_compat import device

    return xp.asarray(a, device=device(like))
