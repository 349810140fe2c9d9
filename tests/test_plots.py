"""Smoke test: every plot function of the kit draws and returns its artists."""

from __future__ import annotations

import inspect

import matplotlib.pyplot as plt
import numpy as np

import spectral_kit.plots as plots
from spectral_kit import q_alpha
from spectral_kit.datasets import make_multiclass_clusters
from spectral_kit.theory import lemma13_bound, positivity_probability


def test_q_alpha_plots_draw_and_update():
    data = make_multiclass_clusters(3, random_state=0)
    res = q_alpha(data.M, 3)
    fig, axes = plt.subplots(1, 4)
    pos = plots.plot_positivity_curve(axes[0], positivity_probability([3, 10, 30], 0.2, 0.3,
                                                                      trials=50), current_n=10)
    bars = plots.plot_alpha_bars(axes[1], res.alpha, data.relevant, gap=20.0,
                                 bound=lemma13_bound(data.M, data.relevant, res))
    vec = plots.plot_eigenvector_entries(axes[2], np.array([0.5, -0.1, 0.3]))
    lines = plots.plot_objective_trace(axes[3], res)
    fig.canvas.draw()
    assert pos.marker.get_xdata()[0] == 10
    assert len(bars.bars.get_segments()) == res.alpha.size
    assert "Lemma 13" in bars.text.get_text()
    assert "1 of 3 entries negative" in vec.label.get_text()
    assert len(lines[0].get_xdata()) == res.n_iter


def test_every_exported_plot_function_is_documented():
    names = [n for n in plots.__all__ if n.startswith("plot_")]
    assert len(names) >= 4
    for name in names:
        func = getattr(plots, name)
        assert inspect.getdoc(func), name
        assert "ax" in inspect.signature(func).parameters or "fig" in str(
            inspect.signature(func)), name
