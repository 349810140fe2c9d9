"""DataExplorer headless: each view's artists against the library called directly (and
brute force / NumPy where one exists), the linked selection, the generated code re-run, bad
inputs named, DataFrame and sparse input, the screening of wide data."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import scipy.sparse as sp

import spectral_kit
from spectral_kit import q_alpha
from spectral_kit.sparse_lda import generalized_spectrum, gslda, scatter_matrices
from spectral_kit.stability import bootstrap_distribution, stability_report
from spectral_kit.weighting import parameter_free_weights
from spectral_kit.widgets import DataExplorer


def _data(n=90, p=30, seed=0):
    rng = np.random.default_rng(seed)
    y = np.repeat([0, 1], n // 2)
    X = rng.standard_normal((n, p))
    X[:, :4] += 1.2 * y[:, None]  # four informative features
    return X, y


@pytest.fixture
def labelled():
    X, y = _data()
    exp = spectral_kit.explore(X, y, n_candidates=10).finish()
    yield exp, X, y
    exp.close()


def _scale(values):
    top = float(np.max(values))
    return top if top > 0 else 1.0


def test_qalpha_view_shows_the_library_top_features(labelled):
    exp, X, _y = labelled
    for kc in (1, 2, 3):
        exp.update(n_clusters=kc)
        alpha = q_alpha(X.T, kc, random_state=0).alpha
        order = np.argsort(-alpha, kind="stable")[:len(exp.alpha_bars)]
        shown = [t.get_text() for t in exp.alpha_names]
        assert shown == [f"x{j}" for j in order]
        widths = [r.get_width() for r in exp.alpha_bars]
        np.testing.assert_allclose(widths, alpha[order] / alpha[order[0]], rtol=1e-9)


def test_sparse_view_equals_gslda_bounds_and_brute_force(labelled):
    exp, X, y = labelled
    for k, lam in [(2, 0.1), (3, 1.0), (4, 0.01)]:
        exp.update(k=k, lam=lam)
        cand = exp.candidates(exp.values["n_clusters"])
        sm = scatter_matrices(X[:, cand], y)
        spectrum = np.sort(generalized_spectrum(sm.A, sm.B, regularization=lam))
        scale = spectrum[-1]
        path = gslda(sm.A, sm.B, regularization=lam)
        np.testing.assert_allclose(exp.gslda_line.get_ydata(), path.values / scale, rtol=1e-9)
        # Eq. 8's band: λ_k(A, B) below, λ_n(A, B) above, at x = k / c
        verts = exp.band.get_paths()[0].vertices
        c = cand.size
        np.testing.assert_allclose(verts[:c, 1], spectrum[:c] / scale, rtol=1e-9)
        np.testing.assert_allclose(verts[c:2 * c, 1], 1.0, rtol=1e-9)
        # the finished exact search is the best k-subset by brute force
        B = sm.B + lam * np.eye(c)
        best = max(
            (np.linalg.eigvals(np.linalg.solve(B[np.ix_(s, s)], sm.A[np.ix_(s, s)])).real.max(),
             s) for s in itertools.combinations(range(c), k))
        assert "certified" in exp.sparse_text.get_text()
        np.testing.assert_allclose(exp.exact_point.get_ydata()[0], best[0] / scale,
                                   rtol=1e-7)
        assert sorted(exp.selected_features()) == sorted(f"x{cand[j]}" for j in best[1])
        # the GSLDA curve never lies outside the band
        assert np.all(path.values / scale <= 1 + 1e-9)
        assert np.all(path.values / scale >= spectrum[:c] / scale - 1e-9)


def test_sparse_pca_without_labels_uses_the_covariance():
    X, _ = _data()
    exp = DataExplorer(X, n_candidates=8, k=3)
    try:
        exp.finish()
        cand = exp.candidates(exp.values["n_clusters"])
        cov = np.cov(X[:, cand], rowvar=False)
        spectrum = np.linalg.eigvalsh(cov)
        path = gslda(cov, np.eye(cand.size), regularization=exp.values["lam"])
        np.testing.assert_allclose(exp.gslda_line.get_ydata(),
                                   path.values / _scale(path.values), rtol=1e-6)
        # with B = I the path ends at the largest eigenvalue of the covariance
        np.testing.assert_allclose(path.values[-1] * (1 + exp.values["lam"]), spectrum[-1],
                                   rtol=1e-9)
        assert exp.axes[0][1].get_title() == "sparse PCA"
    finally:
        exp.close()


def test_stability_view_equals_the_bootstrap_report(labelled):
    exp, X, _y = labelled
    for conf in (0.6, 0.95):
        exp.update(confidence=conf)
        cand = exp.candidates(exp.values["n_clusters"])
        rep = stability_report(bootstrap_distribution(X[:, cand], "covariance", 100, 0), conf)
        lam = np.sort(rep.eigenvalues)[::-1]
        gaps = -np.diff(lam) / lam[0]
        np.testing.assert_allclose([b.get_height() for b in exp.eigengaps.bars], gaps,
                                   rtol=1e-9)
        assert exp.gaps_text.get_text().startswith("stable k")
        # intervals of the selected features' entries, i ≤ j, ÷ max |A|
        pos = np.flatnonzero(np.isin(cand, exp.selection()))
        iu = np.triu_indices(pos.size)
        r, c = pos[iu[0]], pos[iu[1]]
        ref = np.abs(rep.intervals.estimate).max()
        segs = exp.intervals.get_segments()
        assert len(segs) == r.size
        np.testing.assert_allclose([s[0][1] for s in segs], rep.intervals.lower[r, c] / ref)
        np.testing.assert_allclose([s[1][1] for s in segs], rep.intervals.upper[r, c] / ref)
        # the covariance itself is NumPy's
        np.testing.assert_allclose(rep.intervals.estimate, np.cov(X[:, cand], rowvar=False),
                                   rtol=1e-6)
        assert "SbS prunes" in exp.int_text.get_text()


def test_weighting_view_equals_algorithm_2(labelled):
    exp, X, y = labelled
    w = parameter_free_weights(X.T).alpha
    np.testing.assert_allclose(exp.w_line.get_ydata(), np.sort(w)[::-1] / w.max(), rtol=1e-9)
    sel = exp.selection()
    np.testing.assert_allclose(np.sort(exp.w_marks.get_ydata()), np.sort(w[sel] / w.max()),
                               rtol=1e-9)
    pts = exp.after["points"]
    # coloured by class
    np.testing.assert_array_equal(np.asarray(pts.get_array()), y)
    assert np.abs(pts.get_offsets()).max() == pytest.approx(1.0)


def test_linked_selection_reaches_every_view(labelled):
    exp, _X, _y = labelled
    cand = exp.candidates(exp.values["n_clusters"])
    names = [f"x{cand[1]}", f"x{cand[4]}"]
    exp.select(names)
    assert exp.selected_features() == sorted(names, key=lambda s: int(s[1:]))
    np.testing.assert_array_equal(exp.strip.get_array()[2], np.isin(cand, [cand[1], cand[4]]))
    assert len(exp.w_marks.get_xdata()) == 2
    assert len(exp.intervals.get_segments()) == 3  # (1,1), (1,4), (4,4)
    red = [t.get_text() for t, r in zip(exp.alpha_names, exp.alpha_bars)
           if r.get_facecolor()[0] > 0.7 and r.get_facecolor()[2] < 0.3]
    assert set(red) <= set(names) and red
    exp.select(None)
    assert len(exp.selected_features()) == exp.values["k"]
    with pytest.raises(ValueError, match="not among"):
        exp.select(["nope"])


def test_code_reproduces_the_selection(labelled):
    exp, X, y = labelled
    exp.update(k=3, lam=0.5)
    scope = {"X": X, "y": y}
    exec(exp.code(), scope)
    assert sorted(scope["selected"]) == sorted(exp.selected_features())
    assert np.array_equal(scope["pruned"], exp.sbs_result(exp.candidates(2), 0.9).removed)


def test_first_picture_comes_before_qalpha_and_the_refinement_completes_it():
    X, y = _data()
    exp = DataExplorer(X, y, n_candidates=6)
    try:
        # the constructor draws from the screening variance; Q-α follows in a refinement step
        assert exp._qalpha == {} and "computing Q-α" in exp.alpha_text.get_text()
        variance_top = np.argsort(-X.var(axis=0), kind="stable")[:6]
        np.testing.assert_array_equal(exp._pair["candidates"], variance_top)
        exp.finish()
        assert "sparsity gap" in exp.alpha_text.get_text()
        np.testing.assert_array_equal(exp._pair["candidates"], exp.candidates(2))
        # a move to an unseen cluster count answers with the previous order, then refines
        exp.update(n_clusters=3, finish=False)
        assert "computing Q-α (k = 3)" in exp.alpha_text.get_text()
        exp.finish()
        np.testing.assert_array_equal(exp._pair["candidates"], exp.candidates(3))
    finally:
        exp.close()


def test_slider_moves_are_blitted(labelled):
    exp, _X, _y = labelled
    exp.update(k=2)
    full = []
    cid = exp.figure.canvas.mpl_connect("draw_event", full.append)
    for k in range(1, 6):
        exp.update(k=k)
    for lam in (0.01, 1.0, 10.0):
        exp.update(lam=lam)
    exp.figure.canvas.mpl_disconnect(cid)
    assert full == []


def test_dataframe_and_sparse_input():
    pd = pytest.importorskip("pandas")
    X, y = _data(p=12)
    df = pd.DataFrame(X, columns=[f"gene_{j}" for j in range(12)])
    exp = spectral_kit.explore(df, y, n_candidates=6).finish()
    try:
        assert all(s.startswith("gene_") for s in exp.selected_features())
        assert exp.alpha_names[0].get_text().startswith("gene_")
    finally:
        exp.close()
    rng = np.random.default_rng(1)
    S = sp.random(60, 40, density=0.2, random_state=rng, format="csr")
    exp = spectral_kit.explore(S, feature_names=[f"t{j}" for j in range(40)],
                               n_candidates=6).finish()
    try:
        assert exp.statistic == "cosine"
        cand = exp.candidates(exp.values["n_clusters"])
        q = q_alpha(S.toarray()[:, exp.columns].T, 2, random_state=0).alpha
        np.testing.assert_array_equal(cand, np.argsort(-q, kind="stable")[:6])
    finally:
        exp.close()


def test_inputs_are_not_modified():
    X, y = _data(p=10)
    X0, y0 = X.copy(), y.copy()
    exp = DataExplorer(X, y, n_candidates=5)
    exp.close()
    np.testing.assert_array_equal(X, X0)
    np.testing.assert_array_equal(y, y0)


@pytest.mark.parametrize(("make", "match"), [
    (lambda X, y: (np.where(np.eye(*X.shape) > 0, np.nan, X), y), "missing"),
    (lambda X, y: (X[:2], y[:2]), "at least 3 rows"),
    (lambda X, y: (X[:, :1], y), "at least 2 columns"),
    (lambda X, y: (X, np.zeros_like(y)), "y"),
    (lambda X, y: (X, y[:-1]), "labels"),
    (lambda X, y: (X, np.r_[y[:-1], 7]), "single sample"),
    (lambda X, y: (np.ones_like(X), y), "non-constant"),
    (lambda X, y: (X.astype(str), y), "numeric"),
])
def test_bad_inputs_are_named(make, match):
    X, y = _data(p=6)
    Xb, yb = make(X, y)
    with pytest.raises((ValueError, TypeError), match=match):
        DataExplorer(Xb, yb)


def test_non_numeric_dataframe_and_bad_names():
    pd = pytest.importorskip("pandas")
    X, y = _data(p=4)
    df = pd.DataFrame(X, columns=list("abcd")).assign(city=["x"] * len(X))
    with pytest.raises(TypeError, match="non-numeric columns \\(city\\)"):
        DataExplorer(df, y)
    with pytest.raises(ValueError, match="one name per column"):
        DataExplorer(X, y, feature_names=["a", "b"])
    with pytest.raises(ValueError, match="unique"):
        DataExplorer(X, y, feature_names=["a", "a", "b", "c"])


def test_wide_data_is_screened_and_too_big_refused():
    rng = np.random.default_rng(0)
    X = rng.standard_normal((40, 300)) * np.linspace(0.5, 2.0, 300)
    exp = DataExplorer(X, max_features=50, n_candidates=5)
    try:
        np.testing.assert_array_equal(exp.columns, np.sort(np.argsort(-X.var(axis=0))[:50]))
        assert "of largest variance" in exp.status.value
    finally:
        exp.close()
    with pytest.raises(ValueError, match=r"needs .* GB"):
        DataExplorer(X, memory_limit=1000)


def test_code_button_shows_the_script(labelled):
    exp, _, _ = labelled
    box = exp.widget
    button = next(w for w in box.children[1].children if getattr(w, "description", "") == "Code")
    shown = box.children[2]
    assert shown.value == ""
    button.click()
    assert "gslda(A, B, regularization=0.1)" in shown.value
    assert "stability_report(dist, 0.9)" in shown.value
