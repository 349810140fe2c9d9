"""Plots of sparse LDA (Moghaddam, Weiss & Avidan 2006): bounds, paths, optimality, error.

Every ``plot_*`` function draws onto a given Axes and returns a dict of its artists; the
matching ``update_*`` function changes those artists in place (``set_data``, ``set_segments``,
``set_xy``) and rescales the axes, so a widget can redraw at slider speed without clearing the
figure. Inputs are library results or plain arrays; nothing here computes eigenvalues.

Method styles follow the paper's figures: ST blue squares, GSLDA red diamonds, ESLDA black
circles, Pearson correlation green stars.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import LineCollection
from matplotlib.lines import Line2D
from matplotlib.patches import Polygon

from ._checks import check_result, check_values

__all__ = [
    "METHOD_STYLES",
    "plot_error_vs_k",
    "plot_interlacing",
    "plot_lambda_vs_k",
    "plot_optimality_ratio",
    "update_error_vs_k",
    "update_interlacing",
    "update_lambda_vs_k",
    "update_optimality_ratio",
]

#: Colour and marker of each method, as in the paper's Figs. 1–4.
METHOD_STYLES: dict[str, dict[str, Any]] = {
    "ST": {"color": "tab:blue", "marker": "s"},
    "GSLDA": {"color": "tab:red", "marker": "D"},
    "ESLDA": {"color": "black", "marker": "o"},
    "Pearson": {"color": "tab:green", "marker": "*"},
    "forward": {"color": "tab:orange", "marker": ">"},
    "backward": {"color": "tab:purple", "marker": "<"},
    "exhaustive": {"color": "black", "marker": "o"},
}


def _style(name: str, index: int) -> dict[str, Any]:
    default = {"color": f"C{index % 10}", "marker": "."}
    return {**default, **METHOD_STYLES.get(name, {})}


def _limits(values: list[np.ndarray], pad: float = 0.05) -> tuple[float, float]:
    finite = np.concatenate([np.ravel(v)[np.isfinite(np.ravel(v))] for v in values] or [[0.0]])
    if finite.size == 0:
        return 0.0, 1.0
    lo, hi = float(finite.min()), float(finite.max())
    span = hi - lo if hi > lo else max(abs(hi), 1.0)
    return lo - pad * span, hi + pad * span


def _band_xy(x: np.ndarray, lower: np.ndarray, upper: np.ndarray) -> np.ndarray:
    """Vertices of the polygon between two curves over x (for ``Polygon.set_xy``)."""
    x = np.asarray(x, dtype=float)
    return np.column_stack(
        [np.concatenate([x, x[::-1]]), np.concatenate([lower, np.asarray(upper)[::-1]])]
    )


def _as_array(values: Any, size: int, name: str) -> np.ndarray:
    """``values`` as one value per k (a scalar is repeated), or a ValueError naming it."""
    arr = np.asarray(values, dtype=float)
    if arr.ndim == 0:
        return np.full(size, float(arr))
    if arr.shape != (size,):
        raise ValueError(f"{name} must hold one value per k ({size}); got shape {arr.shape}.")
    return arr


# --------------------------------------------------------------------------- interlacing


def plot_interlacing(ax: Axes, interlacing: Any, *, spacing: float = 1.0) -> dict[str, Any]:
    """The generalized spectrum of (A, B) and each sub-eigenvalue inside its bracket (Thm. 1).

    Column 0 shows λ_1(A, B) ≤ … ≤ λ_n(A, B); column i = 1, …, k shows λ_i(A_S, B_S) (a dot)
    on the segment [λ_i(A, B), λ_{i+n−k}(A, B)] of Eq. 7. The top bracket, i = k, is Eq. 8.

    Parameters
    ----------
    ax : matplotlib Axes
    interlacing : Interlacing
        From :func:`spectral_kit.sparse_lda.interlacing`.
    spacing : float
        Horizontal distance between columns: column i is drawn at x = i · spacing (e.g.
        ``1 / k`` puts the k columns on (0, 1] whatever k is).

    Returns
    -------
    dict
        ``"ax"``, ``"spectrum"`` (Line2D), ``"brackets"`` (LineCollection), ``"sub"`` (Line2D),
        ``"top"`` (Line2D marking λ_max(A_S, B_S)).

    Examples
    --------
    A random pair (A, B) of size 6 and the support {0, 2, 3}: the dots are the generalized
    eigenvalues of the 3 × 3 principal pair, as SciPy computes them.

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from scipy.linalg import eigh
    >>> from spectral_kit.plots import plot_interlacing
    >>> from spectral_kit.sparse_lda import interlacing
    >>> rng = np.random.default_rng(0)
    >>> X, Y = rng.standard_normal((40, 6)), rng.standard_normal((40, 6))
    >>> A, B = X.T @ X / 40, Y.T @ Y / 40 + np.eye(6)
    >>> fig, ax = plt.subplots()
    >>> artists = plot_interlacing(ax, interlacing(A, B, [0, 2, 3]))
    >>> len(artists["brackets"].get_segments()), np.round(artists["sub"].get_ydata(), 3)
    (3, array([0.367, 0.585, 0.673]))
    >>> S = np.ix_([0, 2, 3], [0, 2, 3])
    >>> np.round(eigh(A[S], B[S], eigvals_only=True), 3)
    array([0.367, 0.585, 0.673])
    >>> plt.close(fig)
    """
    artists = {
        "ax": ax,
        "spectrum": ax.plot([], [], linestyle="none", marker="_", markersize=14,
                            color="0.35", label=r"$\lambda_i(A, B)$")[0],
        "brackets": LineCollection([], colors="tab:blue", linewidths=2.0, alpha=0.45,
                                   label=r"bracket $[\lambda_i, \lambda_{i+n-k}]$"),
        "sub": ax.plot([], [], linestyle="none", marker="o", color="tab:blue",
                       label=r"$\lambda_i(A_S, B_S)$")[0],
        "top": ax.plot([], [], linestyle="none", marker="D", markersize=8, color="tab:red",
                       label=r"$\lambda_{\max}(A_S, B_S)$")[0],
    }
    ax.add_collection(artists["brackets"])
    ax.set_xlabel("eigenvalue index $i$ (0: the full pair)")
    ax.set_ylabel("generalized eigenvalue")
    ax.legend(loc="upper left")
    update_interlacing(artists, interlacing, spacing=spacing)
    return artists


def update_interlacing(
    artists: Mapping[str, Any],
    interlacing: Any,
    *,
    spacing: float = 1.0,
    rescale: bool = True,
) -> None:
    """Redraw :func:`plot_interlacing` for a new (A, B) or support, in place.

    With ``rescale=False`` the axes keep their limits (a caller that blits the artists over a
    cached background sets the limits itself).

    Parameters
    ----------
    artists : dict
        What :func:`plot_interlacing` returned.
    interlacing, spacing
        As in :func:`plot_interlacing`.
    rescale : bool
        Fit the axes to the new values.

    Examples
    --------
    With a diagonal A and B = I the sub-eigenvalues of a support are its diagonal entries;
    a support of two features is drawn at x = 0.5 and 1 (``spacing=1/k``):

    >>> import matplotlib.pyplot as plt
    >>> import numpy as np
    >>> from spectral_kit.plots import plot_interlacing, update_interlacing
    >>> from spectral_kit.sparse_lda import interlacing
    >>> A = np.diag([1.0, 2.0, 3.0, 4.0, 5.0, 6.0])
    >>> fig, ax = plt.subplots()
    >>> artists = plot_interlacing(ax, interlacing(A, np.eye(6), [0, 2, 3]))
    >>> update_interlacing(artists, interlacing(A, np.eye(6), [1, 4]), spacing=0.5)
    >>> artists["sub"].get_xdata().tolist(), artists["sub"].get_ydata().tolist()
    ([0.5, 1.0], [2.0, 5.0])
    >>> plt.close(fig)
    """
    check_result(interlacing, "interlacing", ("spectrum", "sub", "lower", "upper"),
                 "the result of spectral_kit.sparse_lda.interlacing")
    spectrum = check_values(interlacing.spectrum, "interlacing.spectrum")
    sub = check_values(interlacing.sub, "interlacing.sub")
    lower = check_values(interlacing.lower, "interlacing.lower")
    upper = check_values(interlacing.upper, "interlacing.upper")
    k = sub.size
    if lower.size != k or upper.size != k:
        raise ValueError(f"interlacing.lower and .upper must hold one bracket per "
                         f"sub-eigenvalue ({k}); got {lower.size} and {upper.size}.")
    idx = np.arange(1, k + 1) * spacing
    artists["spectrum"].set_data(np.zeros(spectrum.size), spectrum)
    artists["brackets"].set_segments([np.array([[i, lo], [i, hi]])
                                      for i, lo, hi in zip(idx, lower, upper)])
    artists["sub"].set_data(idx, sub)
    artists["top"].set_data([idx[-1]], [sub[-1]])
    if not rescale:
        return
    ax = artists["ax"]
    ax.set_xlim(-0.7 * spacing, (k + 0.7) * spacing)
    ax.set_ylim(*_limits([spectrum, sub]))


# --------------------------------------------------------------------------- λ_max vs k


def plot_lambda_vs_k(
    ax: Axes,
    ks: Any,
    curves: Mapping[str, Any],
    lower: Any,
    upper: Any,
) -> dict[str, Any]:
    """λ_max(A_S, B_S) against k for several methods, inside the band of Eq. 8.

    Parameters
    ----------
    ax : matplotlib Axes
    ks : array-like of int
        Cardinalities.
    curves : mapping of str to array-like
        Method name → value at each k (e.g. ``{"ST": ..., "GSLDA": ..., "ESLDA": ...}``).
    lower : array-like
        λ_k(A, B) at each k (the lower bound of Eq. 8).
    upper : float or array-like
        λ_n(A, B) (the upper bound, the same for every k).

    Returns
    -------
    dict
        ``"ax"``, ``"band"`` (Polygon), ``"lower"``, ``"upper"`` (Line2D) and ``"curves"``
        (name → Line2D).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_lambda_vs_k
    >>> fig, ax = plt.subplots()
    >>> artists = plot_lambda_vs_k(ax, [1, 2, 3],
    ...                            {"ST": [0.5, 0.6, 0.7], "GSLDA": [0.6, 0.7, 0.8]},
    ...                            lower=[0.30, 0.33, 0.40], upper=0.84)
    >>> sorted(artists["curves"]), artists["upper"].get_ydata().tolist()
    (['GSLDA', 'ST'], [0.84, 0.84, 0.84])
    >>> plt.close(fig)
    """
    artists: dict[str, Any] = {
        "ax": ax,
        "band": ax.add_patch(Polygon(np.zeros((1, 2)), closed=True, facecolor="0.85",
                                     edgecolor="none", label="inclusion bounds (Eq. 8)")),
        "lower": ax.plot([], [], color="0.45", linestyle="--", linewidth=1)[0],
        "upper": ax.plot([], [], color="0.45", linestyle="--", linewidth=1)[0],
        "curves": {},
    }
    ax.set_xlabel("cardinality $k$")
    ax.set_ylabel(r"$\lambda_{\max}(A_k, B_k)$")
    update_lambda_vs_k(artists, ks, curves, lower, upper)
    ax.legend(loc="lower right")
    return artists


def update_lambda_vs_k(
    artists: dict[str, Any],
    ks: Any,
    curves: Mapping[str, Any],
    lower: Any,
    upper: Any,
    *,
    rescale: bool = True,
) -> None:
    """Redraw :func:`plot_lambda_vs_k` in place (new curves get new lines; absent ones hide).

    With ``rescale=False`` the axes keep their limits.

    Parameters
    ----------
    artists : dict
        What :func:`plot_lambda_vs_k` returned.
    ks, curves, lower, upper
        As in :func:`plot_lambda_vs_k`; a curve left out is hidden.
    rescale : bool
        Fit the axes to the new values.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_lambda_vs_k, update_lambda_vs_k
    >>> fig, ax = plt.subplots()
    >>> artists = plot_lambda_vs_k(ax, [1, 2, 3], {"ST": [0.5, 0.6, 0.7]},
    ...                            lower=[0.30, 0.33, 0.40], upper=0.84)
    >>> update_lambda_vs_k(artists, [1, 2, 3], {"ESLDA": [0.6, 0.72, 0.8]},
    ...                    lower=[0.30, 0.33, 0.40], upper=0.84)
    >>> {name: line.get_visible() for name, line in artists["curves"].items()}
    {'ST': False, 'ESLDA': True}
    >>> plt.close(fig)
    """
    ks = check_values(ks, "ks")
    lower = _as_array(lower, ks.size, "lower")
    upper = _as_array(upper, ks.size, "upper")
    artists["band"].set_xy(_band_xy(ks, lower, upper))
    artists["lower"].set_data(ks, lower)
    artists["upper"].set_data(ks, upper)
    ax = artists["ax"]
    _update_curves(ax, artists["curves"], ks, curves)
    if not rescale:
        return
    ax.set_xlim(ks.min() - 0.5, ks.max() + 0.5)
    ax.set_ylim(*_limits([lower, upper, *[np.asarray(v, float) for v in curves.values()]]))


def _update_curves(
    ax: Axes, lines: dict[str, Line2D], ks: np.ndarray, curves: Mapping[str, Any],
    what: str = "curves",
) -> None:
    """One line per entry of ``curves`` (called ``what`` in messages), over ``ks``."""
    if not isinstance(curves, Mapping):
        raise TypeError(f"{what} must map a method's name to its values; got "
                        f"{type(curves).__name__}.")
    # checked before any line moves: a bad entry must not leave half a figure redrawn
    values = {name: _as_array(v, ks.size, f"{what}[{name!r}]") for name, v in curves.items()}
    for i, (name, curve) in enumerate(values.items()):
        if name not in lines:
            lines[name] = ax.plot([], [], label=name, markersize=5, linewidth=1.3,
                                  **_style(name, i))[0]
        lines[name].set_data(ks, curve)
        lines[name].set_visible(True)
    for name, line in lines.items():
        if name not in curves:
            line.set_visible(False)


# --------------------------------------------------------------------------- optimality ratio


def plot_optimality_ratio(
    ax: Axes, ks: Any, ratios: Mapping[str, Any], *, reference: float | None = 0.9
) -> dict[str, Any]:
    """Mean captured-to-optimal Rayleigh quotient against k (Fig. 1b).

    Parameters
    ----------
    ax : matplotlib Axes
    ks : array-like of int
    ratios : mapping of str to array-like
        Method name → mean of value / optimal value at each k.
    reference : float or None
        Horizontal reference line (the paper: GSLDA ≥ 0.90 at every k).

    Returns
    -------
    dict
        ``"ax"``, ``"curves"`` (name → Line2D) and ``"reference"`` (Line2D or None).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_optimality_ratio
    >>> fig, ax = plt.subplots()
    >>> artists = plot_optimality_ratio(ax, [2, 3, 4], {"GSLDA": [1.0, 0.98, 0.97],
    ...                                                 "ST": [0.9, 0.85, 0.8]})
    >>> sorted(artists["curves"]), artists["reference"].get_ydata()
    (['GSLDA', 'ST'], [0.9, 0.9])
    >>> plt.close(fig)
    """
    artists: dict[str, Any] = {"ax": ax, "curves": {}, "reference": None}
    if reference is not None:
        artists["reference"] = ax.axhline(reference, color="0.5", linestyle=":", linewidth=1,
                                          label=f"{reference:g}")
    ax.set_xlabel("cardinality $k$")
    ax.set_ylabel("optimality ratio")
    update_optimality_ratio(artists, ks, ratios)
    ax.legend(loc="lower left")
    return artists


def update_optimality_ratio(artists: dict[str, Any], ks: Any, ratios: Mapping[str, Any]) -> None:
    """Redraw :func:`plot_optimality_ratio` in place.

    Parameters
    ----------
    artists : dict
        What :func:`plot_optimality_ratio` returned.
    ks, ratios
        As in :func:`plot_optimality_ratio`.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_optimality_ratio, update_optimality_ratio
    >>> fig, ax = plt.subplots()
    >>> artists = plot_optimality_ratio(ax, [2, 3, 4], {"ST": [0.9, 0.85, 0.8]})
    >>> update_optimality_ratio(artists, [2, 3, 4], {"ST": [0.95, 0.9, 0.7]})
    >>> artists["curves"]["ST"].get_ydata().tolist(), round(float(ax.get_ylim()[0]), 2)
    ([0.95, 0.9, 0.7], 0.69)
    >>> plt.close(fig)
    """
    ks = check_values(ks, "ks")
    ax = artists["ax"]
    _update_curves(ax, artists["curves"], ks, ratios, "ratios")
    lo, _ = _limits([np.asarray(v, float) for v in ratios.values()])
    ax.set_xlim(ks.min() - 0.5, ks.max() + 0.5)
    ax.set_ylim(min(lo, 0.85), 1.02)


# --------------------------------------------------------------------------- error vs k


def plot_error_vs_k(
    ax: Axes,
    ks: Any,
    errors: Mapping[str, Any],
    spread: Mapping[str, Any] | None = None,
    *,
    published: Mapping[str, tuple[Any, Any]] | None = None,
) -> dict[str, Any]:
    """Test error against cardinality for several selection methods (Figs. 2–4).

    Parameters
    ----------
    ax : matplotlib Axes
    ks : array-like of int
    errors : mapping of str to array-like
        Method name → mean error at each k.
    spread : mapping of str to array-like, optional
        Method name → half-width of a shaded band (e.g. the standard deviation over CV runs).
    published : mapping of str to (ks, values), optional
        Published points drawn as open markers beside ours.

    Returns
    -------
    dict
        ``"ax"``, ``"curves"`` (name → Line2D), ``"bands"`` (name → Polygon), ``"published"``
        (name → Line2D).

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_error_vs_k
    >>> fig, ax = plt.subplots()
    >>> artists = plot_error_vs_k(ax, [1, 2, 3], {"GSLDA": [0.30, 0.20, 0.15]},
    ...                           {"GSLDA": [0.05, 0.04, 0.03]},
    ...                           published={"GSLDA": ([1, 3], [0.32, 0.16])})
    >>> sorted(artists["bands"]), artists["published"]["GSLDA"].get_xdata().tolist()
    (['GSLDA'], [1.0, 3.0])
    >>> plt.close(fig)
    """
    artists: dict[str, Any] = {"ax": ax, "curves": {}, "bands": {}, "published": {}}
    ax.set_xlabel("cardinality $k$")
    ax.set_ylabel("test error")
    update_error_vs_k(artists, ks, errors, spread, published=published)
    ax.legend(loc="upper right")
    return artists


def update_error_vs_k(
    artists: dict[str, Any],
    ks: Any,
    errors: Mapping[str, Any],
    spread: Mapping[str, Any] | None = None,
    *,
    published: Mapping[str, tuple[Any, Any]] | None = None,
) -> None:
    """Redraw :func:`plot_error_vs_k` in place.

    Parameters
    ----------
    artists : dict
        What :func:`plot_error_vs_k` returned.
    ks, errors, spread, published
        As in :func:`plot_error_vs_k`; a method without a spread hides its band.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from spectral_kit.plots import plot_error_vs_k, update_error_vs_k
    >>> fig, ax = plt.subplots()
    >>> artists = plot_error_vs_k(ax, [1, 2, 3], {"GSLDA": [0.30, 0.20, 0.15]},
    ...                           {"GSLDA": [0.05, 0.04, 0.03]})
    >>> update_error_vs_k(artists, [1, 2, 3], {"GSLDA": [0.28, 0.20, 0.10],
    ...                                        "Pearson": [0.35, 0.30, 0.25]})
    >>> sorted(artists["curves"]), artists["bands"]["GSLDA"].get_visible()
    (['GSLDA', 'Pearson'], False)
    >>> plt.close(fig)
    """
    ax = artists["ax"]
    ks = check_values(ks, "ks")
    _update_curves(ax, artists["curves"], ks, errors, "errors")
    spread = spread or {}
    for i, (name, values) in enumerate(errors.items()):
        if name not in spread:
            if name in artists["bands"]:
                artists["bands"][name].set_visible(False)
            continue
        mean = np.asarray(values, dtype=float)
        half = np.asarray(spread[name], dtype=float)
        if name not in artists["bands"]:
            color = _style(name, i)["color"]
            artists["bands"][name] = ax.add_patch(
                Polygon(np.zeros((1, 2)), closed=True, facecolor=color, alpha=0.15,
                        edgecolor="none")
            )
        artists["bands"][name].set_xy(_band_xy(ks, mean - half, mean + half))
        artists["bands"][name].set_visible(True)
    for i, (name, (pk, pv)) in enumerate((published or {}).items()):
        if name not in artists["published"]:
            style = _style(name, i)
            artists["published"][name] = ax.plot(
                [], [], linestyle="none", marker=style["marker"], markerfacecolor="none",
                color=style["color"], markersize=9, label=f"{name} (published)"
            )[0]
        artists["published"][name].set_data(np.asarray(pk, float), np.asarray(pv, float))
    values = [np.asarray(v, float) for v in errors.values()]
    values += [np.asarray(v, float) + np.asarray(s, float) for s, v in
               ((spread[n], errors[n]) for n in errors if n in spread)]
    values += [np.asarray(pv, float) for _, pv in (published or {}).values()]
    ax.set_xlim(ks.min() - 0.5, ks.max() + 0.5)
    _, hi = _limits(values)
    ax.set_ylim(0.0, max(hi, 0.05))
