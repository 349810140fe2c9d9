"""The sparsity-gap explorer's side-information mode, headless: every slider swept, the bars
and the λ path checked against the library, the hysteresis of warm starts, errors surfaced."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.colors import to_hex

from spectral_kit import q_alpha
from spectral_kit.datasets.side_information import make_two_structures
from spectral_kit.qalpha.side import SideInformationProblem, q_alpha_side
from spectral_kit.widgets import SparsityGapExplorer
from spectral_kit.widgets.sparsity_gap import SideInformationExplorer, structure_shares

SEED = 0


@pytest.fixture(scope="module")
def data():
    return make_two_structures(random_state=SEED)


@pytest.fixture
def explorer():
    # Function scope: the suite closes every figure after each test.
    exp = SparsityGapExplorer(mode="side", random_state=SEED)
    yield exp
    exp.close()


def _heights(exp) -> np.ndarray:
    return np.array([patch.get_height() for patch in exp.bars.patches])


def _sweep_values(control, count: int = 5) -> list:
    if hasattr(control, "base"):  # log slider: min/max are exponents
        return [float(control.base**e) for e in np.linspace(control.min, control.max, count)]
    return [type(control.value)(v) for v in np.linspace(control.min, control.max, count)]


def test_mode_side_gives_the_side_information_explorer(explorer):
    assert type(explorer) is SideInformationExplorer
    assert isinstance(explorer, SparsityGapExplorer) and explorer.mode == "side"
    assert list(explorer.controls) == ["lam", "k"]
    lam = explorer.controls["lam"]
    assert lam.base == 10 and lam.description == "λ" and (lam.min, lam.max) == (-3.0, 3.0)
    assert (explorer.controls["k"].min, explorer.controls["k"].max) == (1, 6)
    assert repr(explorer).startswith("SideInformationExplorer(lam=")


def test_standard_mode_is_unchanged_and_modes_are_checked():
    exp = SparsityGapExplorer(mode="standard")
    try:
        assert type(exp) is SparsityGapExplorer
        assert set(exp.controls) == {"n_clusters", "k", "sigma", "n_irrelevant"}
    finally:
        exp.close()
    with pytest.raises(ValueError, match="mode must be one of 'standard', 'side'"):
        SparsityGapExplorer(mode="sideways")
    with pytest.raises(ValueError, match="SideInformationExplorer is the 'side' mode"):
        SideInformationExplorer(mode="standard")
    with pytest.raises(ValueError, match="random_state"):
        SideInformationExplorer(random_state=-1)


def test_every_slider_is_swept_without_errors(explorer, data):
    for name, control in explorer.controls.items():
        start = control.value
        for value in _sweep_values(control):
            before = len(explorer.latencies)
            explorer.update(**{name: value})
            assert len(explorer.latencies) == before + 1
            assert not explorer.errors, explorer.errors[-1]
            k, lam = int(explorer.values["k"]), float(explorer.values["lam"])
            expected = q_alpha_side(data.M, data.W, k, lam).alpha
            np.testing.assert_allclose(_heights(explorer), expected, atol=1e-12)
        explorer.update(**{name: start})
    assert not explorer.errors


@pytest.mark.parametrize(("k", "lam"), [(3, 0.01), (3, 100.0), (1, 0.01), (2, 1.0)])
def test_bars_show_the_library_answer(explorer, data, k, lam):
    explorer.update(k=k, lam=lam)
    reference = q_alpha_side(data.M, data.W, k, lam)
    np.testing.assert_allclose(_heights(explorer), reference.alpha, atol=1e-12)
    np.testing.assert_allclose(explorer.result.alpha, reference.alpha, atol=1e-12)
    shares = structure_shares(reference.alpha, {"target": data.target,
                                                 "nuisance": data.nuisance})
    assert explorer.state["shares"] == pytest.approx(shares)
    # The marker of the right panel sits at the current λ and shares.
    x, y = explorer.path_marker.get_data()
    np.testing.assert_allclose(x, [lam, lam])
    np.testing.assert_allclose(y, [shares["target"], shares["nuisance"]])
    np.testing.assert_allclose(explorer.lam_line.get_xdata(), [lam, lam])
    assert f"k = {k}" in explorer.status.value and f"$k = {k}$" in explorer.shares_text.get_text()


def test_bars_are_coloured_by_structure(explorer, data):
    colors = np.array([to_hex(p.get_facecolor()) for p in explorer.bars.patches])
    target, nuisance, other = (set(colors[data.target]), set(colors[data.nuisance]),
                               set(colors[data.irrelevant]))
    assert len(target) == len(nuisance) == len(other) == 1
    assert len(target | nuisance | other) == 3
    legend = explorer.ax_bars.get_legend()
    by_label = {t.get_text(): to_hex(h.get_facecolor())
                for t, h in zip(legend.get_texts(), legend.legend_handles)}
    assert by_label["target"] in target and by_label["nuisance"] in nuisance
    assert by_label["other"] in other


def test_lambda_and_k_move_alpha_between_structures(explorer, data):
    explorer.update(k=3, lam=0.01)
    assert explorer.state["shares"]["target"] > 0.9
    assert explorer.state["shares"]["nuisance"] < 0.05
    assert "on the target features" in explorer.status.value
    explorer.update(lam=1000.0)
    assert explorer.state["shares"]["nuisance"] > 0.9
    # λ → ∞ is plain Q-α (Def. 3: large λ ignores the side data).
    plain = q_alpha(data.M, 3).alpha
    assert abs(float(explorer.result.alpha @ plain)) > 0.999
    # One cluster direction: the two nuisance clusters win whatever λ.
    explorer.update(k=1, lam=0.01)
    assert explorer.state["shares"]["nuisance"] > 0.9


def test_path_panel_is_the_library_answer_over_lambda(explorer, data):
    explorer.update(k=2, lam=0.1)
    path = explorer.state["path"]
    assert not np.isnan(path["target"]).any()
    lines = {line.get_label(): line for line in explorer.path_lines}
    np.testing.assert_allclose(lines["target"].get_xdata(), path["lam"])
    np.testing.assert_allclose(lines["target"].get_ydata(), path["target"])
    np.testing.assert_allclose(lines["nuisance"].get_ydata(), path["nuisance"])
    groups = {"target": data.target, "nuisance": data.nuisance}
    for i in (0, 15, 30):
        lam = float(path["lam"][i])
        ref = structure_shares(q_alpha_side(data.M, data.W, 2, lam).alpha, groups)
        assert path["target"][i] == pytest.approx(ref["target"], abs=1e-12)
        assert path["nuisance"][i] == pytest.approx(ref["nuisance"], abs=1e-12)
    # Across the grid α moves from the target (small λ) to the nuisance (large λ).
    assert path["target"][0] > 0.9 and path["nuisance"][-1] > 0.9


def test_path_fills_in_progressively():
    exp = SideInformationExplorer(random_state=SEED)
    try:
        exp.update(k=5, lam=0.1, finish=False)
        # The first response draws the bars of the new state at once ...
        assert exp._pending is not None
        assert len(exp.latencies) == 2
        path = exp.path(5)
        assert np.isnan(path["target"]).any()
        i = int(np.argmin(np.abs(np.log10(path["lam"]) - (-1.0))))
        assert not np.isnan(path["target"][i])  # the current λ is on the grid
        # ... a slider move abandons the refinement, and the next one keeps what was done.
        done = len(exp._solutions)
        exp.update(lam=0.2, finish=False)
        assert len(exp._solutions) >= done
        exp.finish()
        assert exp._pending is None
        assert not np.isnan(exp.path(5)["target"]).any()
        line = {ln.get_label(): ln for ln in exp.path_lines}["target"]
        assert not np.isnan(line.get_ydata()).any()
    finally:
        exp.close()


def test_follow_keeps_the_previous_structure(data):
    """Warm starts only: coming down from large λ, α stays on the nuisance maximum where
    the PCA start finds the target (hysteresis); the curve keeps the PCA-start answer."""
    down = [1000.0, 100.0, 10.0, 1.0, 0.3, 0.1]
    exp = SideInformationExplorer(follow=True, random_state=SEED)
    try:
        for lam in down:
            exp.update(lam=lam)
        assert exp.state["shares"]["nuisance"] > 0.9
        cold = q_alpha_side(data.M, data.W, 3, 0.1)
        cold_shares = structure_shares(cold.alpha, {"target": data.target,
                                                    "nuisance": data.nuisance})
        assert cold_shares["target"] > 0.9
        i = int(np.argmin(np.abs(exp.state["path"]["lam"] - 0.1)))
        assert exp.state["path"]["target"][i] == pytest.approx(cold_shares["target"])
        # The warm branch is a lower local maximum of Eq. 2; the status says so.
        assert exp.result.objective[-1] < cold.objective[-1]
        assert "from the PCA start" in exp.status.value
        # The same chain of warm starts, run directly on the library.
        problem = SideInformationProblem(data.M, data.W)
        previous = problem.solve(3, 0.1)
        for lam in down:
            previous = problem.solve(3, lam, warm_start=previous, follow=True)
        np.testing.assert_allclose(_heights(exp), previous.alpha, atol=1e-12)
    finally:
        exp.close()


def test_structure_shares_closed_form():
    alpha = np.array([0.6, 0.3, -0.1, 0.0])
    groups = {"a": np.array([True, True, False, False]), "b": np.array([False, False, True, True])}
    shares = structure_shares(alpha, groups)
    assert shares == pytest.approx({"a": 0.9, "b": 0.0})
    with pytest.raises(ValueError, match="all zero"):
        structure_shares(np.zeros(4), groups)


def test_bad_values_and_errors_are_surfaced():
    exp = SideInformationExplorer(random_state=SEED)
    try:
        with pytest.raises(ValueError, match=r"lam must lie in \[0.001, 1000\]"):
            exp.update(lam=5000.0)
        with pytest.raises(ValueError, match=r"lam must lie in"):
            exp.update(lam=0.0)
        with pytest.raises(ValueError, match=r"lam must lie in"):
            exp.update(lam=True)
        exp.update(lam=np.float64(0.2))
        assert exp.controls["lam"].value == pytest.approx(0.2)
        with pytest.raises(ValueError, match="must lie in"):
            exp.update(k=7)
        with pytest.raises(ValueError, match="unknown control"):
            exp.update(sigma=0.1)

        def broken(*args, **kwargs):
            raise RuntimeError("deliberate failure")

        exp.problem.solve = broken
        exp.controls["lam"].value = 0.5  # as a browser would: through the observer
        assert exp.errors and "deliberate failure" in exp.errors[-1]
        assert exp.error_area.layout.display == "block"
        del exp.problem.solve
        exp.update(lam=0.2)
        assert exp.error_area.layout.display == "none"
    finally:
        exp.close()
    with pytest.raises(RuntimeError, match="closed"):
        exp.refresh()


def test_static_picture(explorer, monkeypatch):
    monkeypatch.setenv("SPECTRAL_KIT_STATIC_WIDGETS", "1")
    bundle = explorer._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" not in bundle
    assert explorer.snapshot().startswith(b"\x89PNG")
