"""Row-block kernels of Q-α and Algo. 2, written once against the array API.

Each kernel takes a block of feature rows ``Mb`` (b × q) -- a Dask chunk or a slice of an
in-memory array on any device -- plus q-sized arguments, and returns either a q-sized partial
sum (to be added over blocks) or one value per row. They compute in the namespace and on the
device of ``Mb`` (array-api-compat); large products run in the data's floating dtype and every
q-sized sum is accumulated in float64.

Notation (Wolf & Shashua 2005): ``P = MQ``; ``z_i = m_i ⊗ p_i`` (qk entries, index a·k + l) so
that ``G = Z Zᵀ``; for the Laplacian of Def. 5, ``t_i = vec(L_i Q)`` with
``L_i Q = m_i p_iᵀ − s_i diag(m_i) Q + d Q`` so that ``F = T Tᵀ``.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "affinity_times_block",
    "alpha_gram_block",
    "alpha_rows_block",
    "degrees_block",
    "h_rows_block",
    "preprocess_block",
    "row_sums_block",
    "weighted_gram_block",
]

#: Entries of a (rows × qk) temporary per sub-block: keeps it near 32 MB in float64 on the
#: CPU; a GPU gets 16 times larger products (fewer, fuller kernel launches).
SUB_BLOCK_ENTRIES = 2**22
GPU_SUB_BLOCK_ENTRIES = 2**26


def namespace(x: Any) -> Any:
    from array_api_compat import array_namespace

    return array_namespace(x)


def _device(x: Any) -> Any:
    from array_api_compat import device

    return device(x)


def _small(xp: Any, a: Any, like: Any) -> Any:
    """A q-sized argument as an array of ``like``'s namespace, device and dtype."""
    if a is None:
        return None
    return xp.asarray(a, dtype=like.dtype, device=_device(like))


def _f64(xp: Any, a: Any) -> Any:
    return xp.astype(a, xp.float64)


def _sub_blocks(n: int, width: int, on_cpu: bool = True):
    entries = SUB_BLOCK_ENTRIES if on_cpu else GPU_SUB_BLOCK_ENTRIES
    step = max(256, entries // max(width, 1))
    for start in range(0, n, step):
        yield slice(start, min(start + step, n))


def preprocess_block(
    Mb: Any, *, center: bool, normalize: bool, offset: int = 0, name: str = "M"
) -> Any:
    """Centre rows and scale them to unit norm (Wolf & Shashua 2005, Sec. 2.1).

    The same rule as :func:`spectral_kit.preprocess.preprocess_rows`, including the error on a
    constant (or all-zero) row, whose index is reported as ``offset`` + its index in the block.
    """
    xp = namespace(Mb)
    if not xp.isdtype(Mb.dtype, "real floating"):
        Mb = xp.astype(Mb, xp.float64)
    if not bool(xp.all(xp.isfinite(Mb))):
        raise ValueError(
            f"{name} contains NaN or infinite values (in rows {offset}–"
            f"{offset + Mb.shape[0] - 1}); remove or impute them first."
        )
    if not normalize:
        return Mb - xp.mean(Mb, axis=1, keepdims=True) if center else Mb
    # As preprocess_rows: each row is first rescaled by the power of two just above its
    # max |entry| (exact), so neither its mean nor the squares of its norm over- or
    # underflow, at 1e±300 as at 1.
    scale = xp.max(xp.abs(Mb), axis=1)
    safe = xp.where(scale > 0, scale, xp.ones_like(scale))
    exponents = xp.floor(xp.log2(safe)) + 1.0
    Mb = Mb * (2.0 ** (-exponents))[:, None]
    out = Mb - xp.mean(Mb, axis=1, keepdims=True) if center else Mb
    norms = xp.sqrt(xp.sum(out * out, axis=1))
    eps = max(1e-12, 10 * float(xp.finfo(Mb.dtype).eps))
    bad = (scale == 0) | (norms <= eps)
    if bool(xp.any(bad)):
        idx = [offset + int(i) for i in xp.nonzero(bad)[0][:10]]
        what = "constant" if center else "all-zero"
        raise ValueError(
            f"{name} has {what} feature row(s) (row index {', '.join(map(str, idx))}): their "
            f"norm is zero{' after centring' if center else ''}, so they cannot be scaled to "
            "unit norm. Remove them first."
        )
    return out / norms[:, None]


def row_sums_block(Mb: Any) -> Any:
    """``s_i = m_iᵀ1`` per row (the degrees' weights of the Laplacian, Def. 5)."""
    xp = namespace(Mb)
    return xp.sum(Mb, axis=1)


def weighted_gram_block(Mb: Any, wb: Any) -> Any:
    """Partial ``Mᵀ diag(w) M`` (q × q), the affinity A_α of Sec. 2.1."""
    xp = namespace(Mb)
    wb = xp.astype(wb, Mb.dtype)
    return _f64(xp, Mb.T @ (wb[:, None] * Mb))


def affinity_times_block(Mb: Any, ab: Any, *, Q: Any) -> Any:
    """Partial ``Mᵀ (α ∘ (MQ))`` (q × k): A_α Q without forming A_α."""
    xp = namespace(Mb)
    Qd = _small(xp, Q, Mb)
    ab = xp.astype(ab, Mb.dtype)
    return _f64(xp, Mb.T @ (ab[:, None] * (Mb @ Qd)))


def degrees_block(Mb: Any, ab: Any, sb: Any) -> tuple[Any, Any]:
    """Partial ``Mᵀ (α ∘ s)`` (the degrees D_α 1 of A_α, q) and ``Σα``."""
    xp = namespace(Mb)
    ab = xp.astype(ab, Mb.dtype)
    return _f64(xp, Mb.T @ (ab * sb)), xp.sum(_f64(xp, ab))


def alpha_gram_block(Mb: Any, sb: Any = None, *, Q: Any, d: float = 0.0) -> tuple[Any, Any]:
    """Partial ``ZᵀZ`` (qk × qk) and ``Zᵀ1`` (qk) of the α-step.

    Standard spectrum (``sb`` None): ``z_i = m_i ⊗ p_i``, so ``ZᵀZ = Σ (m_i m_iᵀ) ⊗ (p_i p_iᵀ)``
    and G = ZZᵀ (Sec. 3). Laplacian (``sb`` the row sums): ``t_i = vec(L_i Q)`` of Def. 5.
    ``Zᵀ1`` gives ``Σα = (Zᵀ1)ᵀu`` for the sign of α without another pass.
    """
    xp = namespace(Mb)
    Qd = _small(xp, Q, Mb)
    q, k = Qd.shape
    dev = _device(Mb)
    G = xp.zeros((q * k, q * k), dtype=xp.float64, device=dev)
    total = xp.zeros((q * k,), dtype=xp.float64, device=dev)
    on_cpu = "cpu" in str(dev).lower()
    for blk in _sub_blocks(Mb.shape[0], q * k, on_cpu):
        M_ = Mb[blk, :]
        Z = M_[:, :, None] * (M_ @ Qd)[:, None, :]
        if sb is not None:
            Z = Z - (sb[blk][:, None] * M_)[:, :, None] * Qd[None, :, :] + d * Qd[None, :, :]
        Z = xp.reshape(Z, (M_.shape[0], q * k))
        G += _f64(xp, Z.T @ Z)
        total += _f64(xp, xp.sum(Z, axis=0))
    return G, total


def alpha_rows_block(Mb: Any, sb: Any = None, *, U: Any, Q: Any, d: float = 0.0) -> Any:
    """``α_i = z_iᵀ vec(U)`` for the rows of the block (``T vec(U)`` for the Laplacian)."""
    xp = namespace(Mb)
    Ud, Qd = _small(xp, U, Mb), _small(xp, Q, Mb)
    out = xp.sum((Mb @ Ud) * (Mb @ Qd), axis=1)
    if sb is not None:
        UQ = Ud * Qd
        out = out - sb * (Mb @ xp.sum(UQ, axis=1)) + d * xp.sum(UQ)
    return out


def h_rows_block(Mb: Any, *, W: Any) -> Any:
    """``m_iᵀ W m_i`` per row: ``H v`` of Algo. 2 once ``W = Mᵀ diag(v) M`` is known."""
    xp = namespace(Mb)
    Wd = _small(xp, W, Mb)
    return xp.sum((Mb @ Wd) * Mb, axis=1)


def g_rows_block(Mb: Any, *, W: Any, Q: Any) -> Any:
    """``(𝒢a)_i = m_iᵀ W (MQ)_iᵀ`` per row, once ``W = Mᵀ diag(a) M Q`` (q × k) is known."""
    xp = namespace(Mb)
    Wd, Qd = _small(xp, W, Mb), _small(xp, Q, Mb)
    return xp.sum((Mb @ Wd) * (Mb @ Qd), axis=1)


def unprepared_block(Mb: Any, *, atol: float) -> Any:
    """How many rows of the block are not centred with unit norm (to ``atol``)."""
    xp = namespace(Mb)
    norms = xp.sqrt(xp.sum(Mb * Mb, axis=1))
    means = xp.mean(Mb, axis=1)
    bad = (xp.abs(norms - 1.0) > atol) | (xp.abs(means) > atol)
    return xp.sum(xp.astype(bad, xp.float64))
