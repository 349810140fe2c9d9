"""The kit on array-API arrays (PyTorch, array-api-strict) on the CPU: results in the
input's namespace and on its device, equal to the NumPy path."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

pytest.importorskip("array_api_compat", reason='needs the extra: pip install "spectral-kit[scale]"')
xps = pytest.importorskip("array_api_strict")

from spectral_kit import q_alpha  # noqa: E402
from spectral_kit.backends.operators import g_matvec  # noqa: E402
from spectral_kit.datasets import make_multiclass_clusters  # noqa: E402
from spectral_kit.stability import bootstrap_intervals  # noqa: E402
from spectral_kit.weighting import parameter_free_weights, pca_weights  # noqa: E402

TOL = 1e-10


@pytest.fixture(scope="module")
def M():
    return make_multiclass_clusters(n_clusters=3, random_state=0).M


def _torch():
    return pytest.importorskip("torch")


def _namespaces():
    out = [("array_api_strict", xps.asarray, lambda a: np.asarray(a))]
    try:
        import torch
    except ImportError:  # pragma: no cover - the extra's tests install it
        return out
    out.append(("torch", torch.asarray, lambda a: a.numpy()))
    return out


NAMESPACES = _namespaces()


@pytest.mark.parametrize(("name", "to_xp", "to_np"), NAMESPACES, ids=[n for n, *_ in NAMESPACES])
@pytest.mark.parametrize("method", ["basic", "power", "ritz"])
@pytest.mark.parametrize("spectrum", ["standard", "laplacian"])
def test_q_alpha_in_the_input_namespace(M, name, to_xp, to_np, method, spectrum):
    data = M - M.min() if spectrum == "laplacian" else M
    kw = {"method": method, "spectrum": spectrum, "preprocess": spectrum == "standard"}
    ref = q_alpha(data, 3, **kw)
    X = to_xp(data)
    res = q_alpha(X, 3, **kw)
    assert res.array_type == name
    assert type(res.alpha) is type(X) and type(res.Q) is type(X)
    assert np.abs(to_np(res.alpha) - ref.alpha).max() < TOL
    Q = to_np(res.Q)
    assert np.abs(Q @ Q.T - ref.Q @ ref.Q.T).max() < TOL
    assert res.n_iter == ref.n_iter
    np.testing.assert_allclose(res.objective, ref.objective, rtol=TOL)
    if method == "basic":
        np.testing.assert_array_equal(res.top_features(10), ref.top_features(10))
        assert res.all_positive == ref.all_positive


@pytest.mark.parametrize(("name", "to_xp", "to_np"), NAMESPACES, ids=[n for n, *_ in NAMESPACES])
def test_algo2_and_algo1_in_the_input_namespace(M, name, to_xp, to_np):
    ref = parameter_free_weights(M)
    res = parameter_free_weights(to_xp(M))
    assert type(res.alpha) is type(to_xp(M))
    assert np.abs(to_np(res.alpha) - ref.alpha).max() < TOL
    assert res.eigenvalue == pytest.approx(ref.eigenvalue, rel=TOL)
    ref1 = pca_weights(M, 3)
    res1 = pca_weights(to_xp(M), 3)
    assert np.abs(to_np(res1.alpha) - ref1.alpha).max() < TOL


def test_torch_stays_on_its_device_and_dtype(M):
    torch = _torch()
    X = torch.asarray(M, dtype=torch.float32)
    before = X.clone()
    res = q_alpha(X, 3)
    assert res.alpha.device == X.device and res.Q.device == X.device
    assert res.alpha.dtype == torch.float32
    assert torch.equal(X, before)  # the input is not modified
    assert abs(float(res.alpha.double() @ torch.asarray(q_alpha(M, 3).alpha))) > 1 - 1e-6
    w = parameter_free_weights(X)
    assert w.alpha.device == X.device and w.alpha.dtype == torch.float32


def test_mixed_namespaces_are_rejected(M):
    torch = _torch()
    X = torch.asarray(M)
    Q = np.linalg.qr(np.ones((M.shape[1], 2)) + np.eye(M.shape[1], 2))[0]
    with pytest.raises(TypeError, match=r"Q is a numpy.ndarray but M is a torch.Tensor"):
        g_matvec(X, torch.ones(M.shape[0], dtype=X.dtype), Q)


@pytest.mark.parametrize(("name", "to_xp", "to_np"), NAMESPACES, ids=[n for n, *_ in NAMESPACES])
@pytest.mark.parametrize("statistic", ["covariance", "cosine"])
@pytest.mark.parametrize("method", ["bca", "percentile"])
def test_bootstrap_intervals_in_the_input_namespace_equal_numpy(M, name, to_xp, to_np,
                                                                 statistic, method):
    X = M.T[:, :7] - (M.T[:, :7].min() if statistic == "cosine" else 0.0)
    kw = {"n_resamples": 150, "random_state": 2}
    ref = bootstrap_intervals(X, statistic, method, **kw)
    # A small memory_limit splits the pairs into several blocks.
    res = bootstrap_intervals(to_xp(X), statistic, method, memory_limit=30_000, **kw)
    for a, b in ((res.lower, ref.lower), (res.upper, ref.upper),
                 (res.estimate, ref.estimate)):
        assert isinstance(a, np.ndarray)
        assert np.abs(a - b).max() < TOL * np.abs(b).max()
    assert res.n_fallback == ref.n_fallback


def test_functions_without_a_device_path_say_so(M):
    torch = _torch()
    from spectral_kit.qalpha import q_alpha_supervised

    with pytest.raises(TypeError, match=r"M is a torch.Tensor.*M.cpu\(\).numpy\(\)"):
        q_alpha_supervised(torch.asarray(M), np.arange(M.shape[1]) % 3)
    with pytest.raises(ValueError, match="criterion='gap' has no path"):
        q_alpha(xps.asarray(M), 3, criterion="gap")


def test_import_spectral_kit_loads_no_scale_package():
    code = (
        "import sys, numpy as np, spectral_kit\n"
        "from spectral_kit import q_alpha\n"
        "from spectral_kit.weighting import parameter_free_weights\n"
        "from spectral_kit.stability import bootstrap_intervals\n"
        "M = np.random.default_rng(0).standard_normal((40, 12))\n"
        "q_alpha(M, 2); parameter_free_weights(M); bootstrap_intervals(M.T[:, :4], n_resamples=20)\n"
        "heavy = ('dask', 'distributed', 'zarr', 'array_api_compat', 'array_api_strict', "
        "'torch', 'cupy')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in heavy))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True)
    assert out.stdout.strip() == "[]"
