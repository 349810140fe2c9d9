"""q-sized linear algebra in any array-API namespace: the eigen-solves and QR steps of Q-α.

The counterparts of :func:`spectral_kit.linalg.orthonormalize`,
:func:`spectral_kit.linalg.top_eigenvectors` and
:func:`spectral_kit.qalpha.models.top_by_magnitude` for arrays that stay on their device.
"""

from __future__ import annotations

from typing import Any

__all__ = ["orthonormalize", "top_by_magnitude", "top_eigenvectors"]


def orthonormalize(xp: Any, Z: Any) -> Any:
    """Thin QR of Z with diag(R) ≥ 0, so the basis is unique (as in ``linalg.orthonormalize``)."""
    Q, R = xp.linalg.qr(Z)
    signs = xp.sign(xp.linalg.diagonal(R))
    signs = xp.where(signs == 0, xp.ones_like(signs), signs)
    return Q * signs[None, :]


def symmetric(S: Any) -> Any:
    return 0.5 * (S + S.T)


def top_eigenvectors(xp: Any, S: Any, k: int) -> tuple[Any, Any]:
    """The k largest eigenvalues (descending) of symmetric S and their eigenvectors."""
    w, V = xp.linalg.eigh(symmetric(S))
    n = S.shape[0]
    order = xp.arange(n - 1, n - 1 - k, -1, device=_device(w))
    return xp.take(w, order), xp.take(V, order, axis=1)


def top_by_magnitude(xp: Any, S: Any, k: int) -> tuple[Any, Any]:
    """Eigenpairs of symmetric S with the k largest |λ| (they maximise trace(QᵀS²Q))."""
    w, V = xp.linalg.eigh(symmetric(S))
    order = xp.argsort(-xp.abs(w), stable=True)[:k]
    return xp.take(w, order), xp.take(V, order, axis=1)


def _device(x: Any) -> Any:
    from array_api_compat import device

    return device(x)
