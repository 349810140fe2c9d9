"""Synthetic generators, the real-data loader and the filter baselines."""

from __future__ import annotations

import hashlib
import threading
from functools import partial
from http.server import HTTPServer, SimpleHTTPRequestHandler

import numpy as np
import pytest
import scipy.stats

from spectral_kit.baselines import fisher_score, ks_score, pearson_score, rank_features
from spectral_kit.datasets import (
    make_ben_dor,
    make_multiclass_clusters,
    make_weston_linear,
    make_weston_nonlinear,
)
from spectral_kit.datasets.real import DataFile, fetch_file


def test_generators_shapes_and_relevance():
    lin = make_weston_linear(40, random_state=0)
    assert lin.X.shape == (40, 202) and lin.relevant.sum() == 6 and lin.relevant[:6].all()
    assert set(np.unique(lin.y)) <= {-1, 1} and lin.M.shape == (202, 40)
    non = make_weston_nonlinear(40, random_state=0)
    assert non.X.shape == (40, 52) and non.relevant.sum() == 2
    fig3b = make_multiclass_clusters(7, random_state=0)
    assert fig3b.X.shape == (63, 125) and np.bincount(fig3b.y).tolist() == [9] * 7
    bd = make_ben_dor(random_state=0)
    assert bd.X.shape == (72, 600) and bd.relevant.sum() == 168
    assert np.bincount(bd.y).tolist() == [25, 47]


def test_generators_are_deterministic_and_structured():
    a = make_multiclass_clusters(3, random_state=5)
    b = make_multiclass_clusters(3, random_state=5)
    np.testing.assert_array_equal(a.X, b.X)
    # Permuted coordinates keep their marginal but lose the cluster structure.
    within = [a.X[a.y == c, :5].var(axis=0).mean() for c in range(3)]
    assert max(within) < a.X[:, :5].var(axis=0).mean()
    lin = make_weston_linear(2000, random_state=1)
    corr = [abs(np.corrcoef(lin.X[:, j], lin.y)[0, 1]) for j in range(8)]
    assert min(corr[:6]) > 0.2 and max(corr[6:]) < 0.1


def test_filters_match_scipy():
    data = make_weston_linear(80, random_state=2)
    X, y = data.X[:, :10], data.y
    pearson = [abs(scipy.stats.pearsonr(X[:, j], y).statistic) for j in range(10)]
    np.testing.assert_allclose(pearson_score(X, y), pearson, rtol=1e-10)
    ks = [scipy.stats.ks_2samp(X[y == -1, j], X[y == 1, j]).statistic for j in range(10)]
    np.testing.assert_allclose(ks_score(X, y), ks, rtol=1e-12)
    f = fisher_score(X, y)
    j = 3
    a, b = X[y == -1, j], X[y == 1, j]
    mu = X[:, j].mean()
    expected = (a.size * (a.mean() - mu) ** 2 + b.size * (b.mean() - mu) ** 2) / (
        a.size * a.var() + b.size * b.var())
    assert f[j] == pytest.approx(expected)
    assert set(rank_features(fisher_score(data.X, y))[:6]) & set(range(6))


def test_filters_reject_bad_labels():
    with pytest.raises(ValueError, match="at least 2 classes"):
        pearson_score(np.ones((4, 2)) + np.arange(4)[:, None], np.zeros(4))


def test_real_loader_reads_local_copies(real_data):
    sonar = real_data("sonar")
    assert sonar.X.shape == (208, 60) and np.bincount(sonar.y).tolist() == [111, 97]
    colon = real_data("colon")
    assert colon.X.shape == (62, 2000) and np.bincount(colon.y).tolist() == [22, 40]


def _serve(directory):
    handler = partial(SimpleHTTPRequestHandler, directory=str(directory))
    handler.log_message = lambda *a, **k: None
    server = HTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


def test_fetch_downloads_verifies_and_caches(tmp_path, monkeypatch):
    payload = b"1,2,3\n"
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "good.data").write_bytes(payload)
    (tmp_path / "www" / "bad.data").write_bytes(b"tampered\n")
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("SPECTRAL_KIT_DATA", raising=False)
    server = _serve(tmp_path / "www")
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        spec = DataFile("toy", "toy.data", hashlib.sha256(payload).hexdigest(),
                        (f"{base}/bad.data", f"{base}/good.data"))
        path = fetch_file(spec)
        assert path.read_bytes() == payload and path.parent.name == "toy"
        server.shutdown()
        assert fetch_file(spec) == path  # served from the cache now
        wrong = DataFile("toy", "other.data", "0" * 64, (f"{base}/good.data",))
        with pytest.raises(OSError, match=r"could not obtain other\.data"):
            fetch_file(wrong)
    finally:
        server.server_close()


def test_local_copy_with_wrong_hash_is_refused(tmp_path, monkeypatch):
    (tmp_path / "toy").mkdir()
    (tmp_path / "toy" / "toy.data").write_bytes(b"x")
    monkeypatch.setenv("SPECTRAL_KIT_DATA", str(tmp_path))
    with pytest.raises(OSError, match="does not match the published sha256"):
        fetch_file(DataFile("toy", "toy.data", "0" * 64, ()))


def test_a_corrupted_cached_copy_is_reported_replaced_and_leaves_no_temp_files(
        tmp_path, monkeypatch):
    payload = b"4,5,6\n"
    (tmp_path / "www").mkdir()
    (tmp_path / "www" / "good.data").write_bytes(payload)
    cache = tmp_path / "cache"
    (cache / "toy").mkdir(parents=True)
    (cache / "toy" / "toy.data").write_bytes(payload[:3])  # a truncated earlier download
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(cache))
    monkeypatch.delenv("SPECTRAL_KIT_DATA", raising=False)
    spec_off = DataFile("toy", "toy.data", hashlib.sha256(payload).hexdigest(), ())
    with pytest.warns(UserWarning, match="did not match the published sha256"), \
            pytest.raises(OSError, match="was removed"):
        fetch_file(spec_off)
    (cache / "toy" / "toy.data").write_bytes(payload[:3])
    server = _serve(tmp_path / "www")
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        spec = DataFile("toy", "toy.data", hashlib.sha256(payload).hexdigest(),
                        (f"{base}/missing.data", "http://127.0.0.1:9/refused",
                         f"{base}/good.data"))
        with pytest.warns(UserWarning, match="fetching it again"):
            assert fetch_file(spec).read_bytes() == payload
    finally:
        server.shutdown()
        server.server_close()
    # failed and refused downloads leave nothing behind
    assert sorted(p.name for p in (cache / "toy").iterdir()) == ["toy.data"]
