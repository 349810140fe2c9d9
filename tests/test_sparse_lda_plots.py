"""Plots of sparse LDA: artists are returned and updated in place."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np

from spectral_kit import plots
from spectral_kit import sparse_lda as sl


def test_interlacing_plot_updates_in_place():
    rp = sl.random_pair(10, kind="general", random_state=0)
    fig, ax = plt.subplots()
    first = sl.interlacing(rp.A, rp.B, [1, 4, 7])
    artists = plots.plot_interlacing(ax, first)
    assert len(artists["brackets"].get_segments()) == 3
    np.testing.assert_allclose(artists["spectrum"].get_ydata(), first.spectrum)
    second = sl.interlacing(rp.A, rp.B, [0, 2, 3, 5, 8])
    sub_line = artists["sub"]
    plots.update_interlacing(artists, second)
    assert artists["sub"] is sub_line
    np.testing.assert_allclose(sub_line.get_ydata(), second.sub)
    segments = artists["brackets"].get_segments()
    assert len(segments) == 5
    for seg, lo, hi, val in zip(segments, second.lower, second.upper, second.sub):
        assert seg[0, 1] == lo
        assert seg[1, 1] == hi
        assert lo - 1e-9 <= val <= hi + 1e-9
    plt.close(fig)


def test_lambda_curves_ratio_and_error_plots():
    rp = sl.random_pair(8, random_state=1)
    lam = sl.generalized_spectrum(rp.A, rp.B)
    g, st = sl.gslda(rp.A, rp.B), sl.simple_threshold_path(rp.A, rp.B)
    ex = sl.exhaustive_path(rp.A, rp.B)
    ks = np.arange(1, 9)
    fig, axes = plt.subplots(1, 3)
    a = plots.plot_lambda_vs_k(axes[0], ks, {"ST": st.values, "GSLDA": g.values}, lam, lam[-1])
    np.testing.assert_allclose(a["curves"]["GSLDA"].get_ydata(), g.values)
    plots.update_lambda_vs_k(a, ks, {"GSLDA": g.values, "ESLDA": ex.values}, lam, lam[-1])
    assert not a["curves"]["ST"].get_visible()
    np.testing.assert_allclose(a["curves"]["ESLDA"].get_ydata(), ex.values)
    assert a["band"].get_xy().shape[0] >= 2 * ks.size
    r = plots.plot_optimality_ratio(axes[1], ks, {"GSLDA": g.values / ex.values})
    plots.update_optimality_ratio(r, ks, {"GSLDA": np.ones(8)})
    np.testing.assert_allclose(r["curves"]["GSLDA"].get_ydata(), 1.0)
    e = plots.plot_error_vs_k(axes[2], ks, {"GSLDA": np.linspace(0.3, 0.1, 8)},
                              {"GSLDA": np.full(8, 0.02)}, published={"GSLDA": ([4], [0.1])})
    line = e["curves"]["GSLDA"]
    plots.update_error_vs_k(e, ks, {"GSLDA": np.full(8, 0.2)}, {"GSLDA": np.full(8, 0.01)})
    assert e["curves"]["GSLDA"] is line
    np.testing.assert_allclose(line.get_ydata(), 0.2)
    plt.close(fig)
