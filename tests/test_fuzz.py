"""Fuzzing every public function and estimator with bad luck and odd data.

Each public function of the library (``__all__`` of the package and of its library
subpackages) has one valid call, built from its parameter names. Hypothesis then replaces one
argument at a time with something wrong -- a wrong shape, dtype (complex, object, bool), an
extreme scale, NaN/inf, an out-of-range or wrong-type value -- and the call must end in one of:

* a result with no NaN anywhere in it, or
* a ``ValueError``/``TypeError`` whose message names an argument of the call;

never a raw NumPy/SciPy exception (``IndexError``, ``LinAlgError``, ``MemoryError``, ...),
never an allocation beyond :data:`PEAK_LIMIT` on these tiny inputs (a function asked for
something huge must refuse, saying how much it would need), never a call of more than
:data:`TIME_LIMIT` seconds. The scikit-learn estimators get the same treatment through their
hyperparameters and data. Drawing functions (``spectral_kit.plots``), explorers
(``spectral_kit.widgets``) and the runners (``reproduce``, ``bench``) have their own tests.
"""

from __future__ import annotations

import dataclasses
import functools
import importlib
import inspect
import math
import re
import signal
import time
import tracemalloc
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

#: Peak traced memory a call on the tiny inputs below may use.
PEAK_LIMIT = 256 * 2**20
#: Seconds a call on the tiny inputs below may take.
TIME_LIMIT = 20.0
#: Examples per function (each replaces one argument).
EXAMPLES = 14

LIBRARY = ("spectral_kit", "spectral_kit.qalpha", "spectral_kit.sparse_lda",
           "spectral_kit.stability", "spectral_kit.weighting", "spectral_kit.baselines",
           "spectral_kit.metrics", "spectral_kit.theory", "spectral_kit.topography",
           "spectral_kit.preprocess", "spectral_kit.datasets")
#: ``spectral_kit.linalg`` (leading_eigenvector, orthonormalize, ...) and
#: ``spectral_kit.validation`` are not driven: the numerical kernels take arrays the
#: algorithms have validated, inside their inner loops, and the validators are what raise.

#: Public functions not driven here, and why.
EXEMPT = {
    "fetch_file": "needs the network or a data folder; tests/test_datasets_and_baselines.py",
    "data_home": "no arguments; returns a path",
    "explore": "builds an interactive explorer; its input checks: tests/test_data_explorer.py",
}
EXEMPT_PREFIXES = ("load_",)  # real data sets: the real_data fixture's tests


# --- one valid call per function ---------------------------------------------------------------


@functools.cache
def world() -> dict:
    """The tiny valid inputs, by parameter name."""
    from spectral_kit import sparse_lda, stability
    from spectral_kit.datasets import make_multiclass_clusters
    from spectral_kit.qalpha import q_alpha

    data = make_multiclass_clusters(n_clusters=2, n_points=16, n_relevant=3, n_irrelevant=7,
                                    random_state=0)
    M = data.M  # 10 features × 16 samples
    X, y = M.T, np.repeat([0, 1], 8)
    rng = np.random.default_rng(0)
    sc = sparse_lda.scatter_matrices(X[:, :6], y)
    A_lda, B_lda = sc.A, sc.B + 0.01 * np.eye(6)
    intervals = stability.bootstrap_intervals(X[:, :5], n_resamples=40, random_state=0)
    cov = intervals.estimate
    E = stability.perturbation_matrix(cov, intervals.lower, intervals.upper)
    Vq, _ = np.linalg.qr(rng.standard_normal((5, 2)))
    eig = np.sort(np.linalg.eigvalsh(cov))[::-1]
    result = q_alpha(M, 2, random_state=0)
    return {
        "M": M, "X": X, "y": y, "k": 2, "lam": 0.1, "W": rng.standard_normal((10, 12)),
        "pairs": [(0, 1), (2, 3), (8, 9)], "alpha": np.abs(result.alpha) + 0.01,
        "relevant": data.relevant, "result": result,
        "A": cov, "E": E, "B": B_lda, "V": Vq, "lower": intervals.lower,
        "upper": intervals.upper, "resampled": np.stack([cov, cov * 1.1, cov * 0.9]),
        "eigenvalues": eig, "sub_eigenvalues": np.sort(np.linalg.eigvalsh(cov[:4, :4]))[::-1],
        "eigenvalues_A": eig, "eigenvalues_E": np.sort(np.linalg.eigvalsh(E))[::-1],
        "norm_E": float(np.linalg.norm(E, 2)), "lambda1_E": float(np.linalg.norm(E, 2)),
        "total": float(np.trace(cov)), "retain": 0.5, "values": rng.standard_normal(50),
        "source": stability.bootstrap_distribution(X[:, :4], n_resamples=40, random_state=0),
        "sbs_result": stability.sbs(X[:, :5], retain=0.3, n_resamples=40, random_state=0),
        "lda": (A_lda, B_lda), "support": [0, 2, 3], "order": [3, 1, 0, 2, 5, 4],
        "x": np.arange(1.0, 7.0), "spectrum": np.sort(np.linalg.eigvalsh(A_lda)),
        "X_train": X[:, :6], "y_train": y, "X_test": X[:, :6], "y_test": y,
        "supports": [[0], [0, 1]], "u": result.alpha, "M_relevant": M[:3],
        "signal": 2.0, "n_irrelevant": 20, "n_samples": 16, "n": 8, "q": 5, "n2": 10,
        "n_resamples": 30, "mu": 0.2, "sigma": 0.3, "trials": 50, "ratio": 0.5,
        "level": 0.9, "a": rng.standard_normal(5), "b": rng.standard_normal(5),
        "c": rng.standard_normal(5), "S": cov, "ZtZ": cov + np.eye(5), "Z": X[:, :4],
        "v": rng.standard_normal(5), "w": np.abs(rng.standard_normal(10)),
        "shape": (8, 8), "images": rng.standard_normal((3, 8, 8)), "scores": M[:, 0],
        "y_true": y, "y_pred": y[::-1].copy(), "selected": [0, 1, 5], "smoothness": 0.5,
        "n_pairs": 2, "rng": np.random.default_rng(0), "confidence": 0.9,
    }


#: Valid calls that the parameter names alone do not give.
def overrides(name: str, module: str, w: dict) -> dict:
    A_lda, B_lda = w["lda"]
    lda = {"A": A_lda, "B": B_lda}
    table = {
        "rank_one_factor": {"A": np.outer(w["x"], w["x"])},
        "threshold_loadings": {"pair": __import__("spectral_kit").sparse_lda.check_pair(
            A_lda, B_lda)},
        "interlacing_bounds": {"spectrum": w["spectrum"], "k": 2, "eigenvalues": w["eigenvalues"]},
        "sparse_loadings": {"result": w["sbs_result"]},
        "sbs": {"X": w["X"][:, :5], "n_resamples": 30, "random_state": 0},
        "bootstrap_intervals": {"X": w["X"][:, :5], "n_resamples": 30, "random_state": 0},
        "bootstrap_distribution": {"X": w["X"][:, :5], "n_resamples": 30, "random_state": 0},
        "similarity_matrix": {"X": w["X"][:, :5]},
        "stable_principal_submatrix": {"A": w["A"], "E": w["E"], "retain": 0.3},
        "subspace_distance": {"V": w["V"], "W": w["V"][::-1].copy()},
        "top_eigenspace": {"A": w["A"], "k": 2},
        "smallest_n_above": {"n": np.arange(5, 10), "values": np.linspace(0.5, 1, 5)},
        "positivity_prediction": {"n": 10},
        "positivity_probability": {"n": 10, "trials": 50},
        "triple_product_expectation": {"k": 1},
        "triple_product_monte_carlo": {"samples": 200, "random_state": 0},
        "nonnegative_weights": {"u": w["u"]},
        "weighted_gram": {"M": w["M"], "w": w["w"]},
        "leading_eigenvector": {"A": w["A"]},
        "orthonormalize": {"Z": w["Z"]},
        "principal_generalized_eigvalsh": {"A": A_lda, "B": B_lda, "support": np.array([0, 2])},
        "supervised_operators": {"M": w["M"], "y": w["y"]},
        "parameter_free_operator": {"M": w["M"]},
        "permute_columns": {"Z": w["Z"], "rng": np.random.default_rng(0)},
        "haar_features": {"images": w["images"]},
        "random_pair": {"n": 6, "random_state": 0},
        "monte_carlo_batch": {"n": 6, "n_pairs": 2, "random_state": 0},
        "fbm_covariance": {"n": 6},
        "pearson_ranking": {"X": w["X"], "y": w["y"]},
        "lemma13_bound": {"M": w["M"], "relevant": w["relevant"], "result": w["result"]},
        "reweight": {"M": w["M"], "alpha": w["alpha"]},
        "rank_features": {"scores": w["scores"]},
        "wishart_top_eigenvalue": {"n2": 10, "q": 5},
        "make_ben_dor": {"m": 40, "random_state": 0},
        "make_permuted_gaussians": {"n_irrelevant": 10, "random_state": 0},
        "make_multiclass_clusters": {"n_irrelevant": 10, "random_state": 0},
        "make_hidden_sessions": {"random_state": 0},
        "make_topographic": {"n_samples": 30, "random_state": 0},
        "make_two_structures": {"n_samples": 30, "random_state": 0},
        "make_wolf_bileschi_ideal": {"n_irrelevant": 10, "n_samples": 20, "random_state": 0},
        "make_wolf_bileschi_fig1": {"n_irrelevant": 10, "random_state": 0},
        "make_wolf_bileschi_fig2": {"n_irrelevant": 10, "random_state": 0},
        "make_weston_linear": {"n_samples": 20, "random_state": 0},
        "make_weston_nonlinear": {"n_samples": 20, "random_state": 0},
        "pca_weights": {"M": w["M"], "k": 2, "random_state": 0},
        "eslda": {"k": 2, "max_seconds": 5.0},
        "estimate_tree_size": {"k": 3, "probes": 20, "max_seconds": 5.0, "random_state": 0},
        "sparsity_curves": {"max_seconds": 5.0},
        "exhaustive": {"k": 2}, "inclusion_bounds": {"k": 2}, "simple_threshold": {"k": 2},
        "descending_eigenvalues": {"A": w["A"]},
        "narayana_moment": {"k": 3},
    }
    out = dict(table.get(name, {}))
    if module == "spectral_kit.sparse_lda":
        for key in ("A", "B"):
            out.setdefault(key, lda[key])
    if name in ("weighted_fda", "weighted_pca"):
        out.setdefault("alpha", w["alpha"])
    return out


@dataclasses.dataclass(frozen=True)
class Target:
    name: str
    func: object
    kwargs: tuple  # ((name, value), ...) of the valid call


@functools.cache
def targets() -> dict[str, Target]:
    w = world()
    found: dict[str, Target] = {}
    for module_name in LIBRARY:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            func = getattr(module, name)
            if not inspect.isfunction(func) or name in EXEMPT \
                    or name.startswith(EXEMPT_PREFIXES):
                continue
            key = f"{func.__module__.split('.')[1]}.{name}"
            if key in found or func.__module__.startswith("spectral_kit.validation"):
                continue
            extra = overrides(name, module_name, w)
            kwargs = {}
            for p in inspect.signature(func).parameters.values():
                if p.name in extra:
                    kwargs[p.name] = extra[p.name]
                elif p.default is inspect.Parameter.empty:
                    kwargs[p.name] = w[p.name]  # a KeyError here: add a valid value above
            found[key] = Target(key, func, tuple(kwargs.items()))
    return found


# --- what goes wrong ---------------------------------------------------------------------------

ARRAYS = {"M", "X", "A", "B", "E", "W", "V", "Z", "ZtZ", "S", "u", "v", "x", "w", "alpha",
          "eigenvalues", "sub_eigenvalues", "eigenvalues_A", "eigenvalues_E", "values", "lower",
          "upper", "images", "a", "b", "c", "spectrum", "X_train", "X_test", "M_relevant",
          "scores", "resampled", "relevant", "support", "order", "pairs", "selected"}
LABELS = {"y", "y_true", "y_pred", "y_train", "y_test"}
INTS = {"k", "n", "q", "n2", "n_samples", "n_resamples", "n_irrelevant", "trials", "n_init",
        "max_iter", "n_components", "k_max", "n_pairs", "samples", "m", "n_clusters",
        "n_points", "n_relevant", "rounds", "n_frame", "k_within", "k_between", "max_subsets",
        "max_nodes", "n_pca", "per_cluster", "audit", "memory_limit", "n_side", "probes"}
FLOATS = {"lam", "tol", "confidence", "mu", "sigma", "ratio", "level", "signal", "retain",
          "norm_E", "lambda1_E", "total", "gamma", "smoothness", "spread", "noise_var",
          "rtol", "gap", "max_seconds", "jitter", "epsilon", "degree", "width"}
CHOICES = {"method", "statistic", "spectrum", "criterion", "init", "solver", "variant",
           "kind", "loadings", "quantile_method", "side_scale", "kernel", "center"}
SEEDS = {"random_state"}


def _bad_arrays(value) -> list:
    arr = np.asarray(value)
    out = [None, "text", {"a": 1}, [], np.zeros((0,) * max(arr.ndim, 1)),
           arr.astype(complex) * (1 + 1j) if arr.dtype.kind in "fiu" else 1j,
           arr.astype(object).astype(str), arr.astype(bool),
           arr[..., None], arr.ravel()[:1]]
    if arr.ndim >= 1:
        out.append(arr[:-1])  # one entry short
    if arr.dtype.kind == "f":
        nan = arr.copy()
        nan.flat[0] = np.nan
        inf = arr.copy()
        inf.flat[-1] = np.inf
        out += [nan, inf, arr * 1e300, arr * 1e-300, arr * 1e150, -arr]
    if arr.dtype.kind in "iu":
        out += [arr + 10**6, -arr - 1, arr.astype(float) + 0.5]
    if arr.dtype.kind == "b":
        out += [~arr, arr.astype(float) + 0.5]
    return out


def _bad_values(name: str, value) -> list:
    if name in ARRAYS:
        return _bad_arrays(value)
    if name in LABELS:
        arr = np.asarray(value)
        return [None, np.linspace(0, 1, arr.size), arr[:, None], arr[:-1], arr * 0,
                arr.astype(complex), "text", np.full(arr.size, np.nan)]
    if name in INTS:
        return [-1, 0, 2.5, True, "3", None, 10**12, np.int64(1)]
    if name in FLOATS:
        return [math.nan, math.inf, -math.inf, -1.0, 0.0, 1e300, "x", None, 1j]
    if name in CHOICES:
        return ["nosuch", None, 3, ""]
    if name in SEEDS:
        return [-1, "seed", 1.5, 2**80]
    return [None, "text", -1]


# --- the checks --------------------------------------------------------------------------------


class _Timeout(BaseException):
    pass


def _nan_in(result, depth=0) -> str:
    """Where a NaN hides in a result (empty when there is none)."""
    if depth > 4 or result is None:
        return ""
    if isinstance(result, float):
        return "NaN" if math.isnan(result) else ""
    if isinstance(result, np.ndarray):
        return "NaN in an array" if result.dtype.kind in "fc" and np.isnan(result).any() else ""
    if dataclasses.is_dataclass(result) and not isinstance(result, type):
        for f in dataclasses.fields(result):
            found = _nan_in(getattr(result, f.name), depth + 1)
            if found:
                return f"{f.name}: {found}"
        return ""
    if isinstance(result, (tuple, list)):
        for item in result[:50]:
            found = _nan_in(item, depth + 1)
            if found:
                return found
    return ""


def _call(func, kwargs: dict):
    """Run ``func(**kwargs)`` under a time limit; returns (outcome, peak bytes, seconds)."""
    def alarm(*_):
        raise _Timeout

    previous = signal.signal(signal.SIGALRM, alarm)
    signal.setitimer(signal.ITIMER_REAL, TIME_LIMIT)
    tracemalloc.start()
    start = time.perf_counter()
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            outcome = ("result", func(**kwargs))
    except _Timeout:
        outcome = ("timeout", None)
    except Exception as exc:  # classified by the caller
        outcome = ("error", exc)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    return outcome, peak, time.perf_counter() - start


def _judge(target: Target, kwargs: dict, changed: str, bad) -> None:
    (kind, value), peak, _seconds = _call(target.func, kwargs)
    what = f"{target.name}({changed}={_show(bad)})"
    assert kind != "timeout", f"{what} ran longer than {TIME_LIMIT} s"
    assert peak <= PEAK_LIMIT, f"{what} allocated {peak / 2**20:.0f} MiB"
    if kind == "result":
        assert not _nan_in(value), f"{what} returned {_nan_in(value)}"
        return
    assert isinstance(value, (ValueError, TypeError)), (
        f"{what} raised {type(value).__name__}: {value}")
    message = str(value)
    named = [p for p in kwargs if re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", message)]
    assert named, f"{what}: the message names no argument: {message!r}"


def _show(value) -> str:
    if isinstance(value, np.ndarray):
        return f"<array {value.shape} {value.dtype}>"
    text = repr(value)
    return text if len(text) < 40 else text[:37] + "..."


# --- the tests ---------------------------------------------------------------------------------


def test_every_public_function_is_driven():
    covered = {t.func for t in targets().values()}
    missing = set()
    for module_name in LIBRARY:
        module = importlib.import_module(module_name)
        for name in getattr(module, "__all__", []):
            func = getattr(module, name)
            if inspect.isfunction(func) and func not in covered and name not in EXEMPT \
                    and not name.startswith(EXEMPT_PREFIXES) \
                    and not func.__module__.startswith("spectral_kit.validation"):
                missing.add(f"{module_name}.{name}")
    assert not missing
    assert len(covered) >= 100


@pytest.mark.parametrize("name", sorted(targets()))
def test_the_valid_call_succeeds(name):
    target = targets()[name]
    (kind, value), _peak, _seconds = _call(target.func, dict(target.kwargs))
    assert kind == "result", value
    assert not _nan_in(value)


@pytest.mark.parametrize("name", sorted(targets()))
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(choice=st.data())
def test_bad_arguments_get_a_clear_error_or_a_clean_result(name, choice):
    target = targets()[name]
    kwargs = dict(target.kwargs)
    mutable = [p for p in inspect.signature(target.func).parameters if p in kwargs or
               p in INTS | FLOATS | CHOICES | SEEDS]
    changed = choice.draw(st.sampled_from(mutable), label="argument")
    default = kwargs.get(changed, inspect.signature(target.func).parameters[changed].default)
    bad = choice.draw(st.sampled_from(_bad_values(changed, default)), label="value")
    kwargs[changed] = bad
    _judge(target, kwargs, changed, bad)


# --- estimators ----------------------------------------------------------------------------------

ESTIMATOR_NAMES = ("QAlphaSelector", "QAlphaSideSelector", "SparseLDA", "StableSparsePCA",
                   "WeightedPCA", "WeightedFDA")
FRACTIONS = {"n_features_to_select"}
INTS_EST = INTS | {"n_components", "n_pca"}
FLOATS_EST = FLOATS | {"gamma"}
CHOICES_EST = CHOICES | {"weighting"}


def _fit(name: str, estimator, X, y):
    if name == "QAlphaSideSelector":
        return estimator.fit(X, X_side=world()["W"].T[:, : X.shape[1]])
    if name in ("SparseLDA", "WeightedFDA") or (name == "QAlphaSelector"):
        return estimator.fit(X, y)
    return estimator.fit(X)


def _estimator_bad_values(param: str, default) -> list:
    if param in FRACTIONS:
        return [0, -1, 1.5, 10**6, "half", None, math.nan]
    if param in INTS_EST:
        return [-1, 0, 2.5, "3", 10**12]
    if param in FLOATS_EST:
        return [math.nan, math.inf, -1.0, "x"]
    if param in CHOICES_EST:
        return ["nosuch", 3]
    if param in SEEDS:
        return [-1, "seed", 1.5]
    return ["text", -1]


@pytest.mark.parametrize("name", ESTIMATOR_NAMES)
@settings(max_examples=EXAMPLES, deadline=None, derandomize=True, database=None,
          suppress_health_check=list(HealthCheck))
@given(choice=st.data())
def test_estimators_refuse_bad_hyperparameters_and_data_clearly(name, choice):
    import spectral_kit as sk

    cls = getattr(sk, name)
    w = world()
    X, y = w["X"][:, :8], w["y"]
    params = [p for p in inspect.signature(cls.__init__).parameters if p != "self"]
    kwargs = {"n_resamples": 30, "random_state": 0} if name == "StableSparsePCA" else {}
    target = choice.draw(st.sampled_from([*params, "X", "y"]), label="argument")
    if target == "X":
        bad = choice.draw(st.sampled_from(_bad_arrays(X)), label="value")
        X = bad
    elif target == "y":
        bad = choice.draw(st.sampled_from(_bad_values("y", y)), label="value")
        y = bad
    else:
        default = inspect.signature(cls.__init__).parameters[target].default
        bad = choice.draw(st.sampled_from(_estimator_bad_values(target, default)),
                          label="value")
        kwargs[target] = bad
    estimator = cls(**kwargs)
    (kind, value), peak, _seconds = _call(lambda: _fit(name, estimator, X, y), {})
    what = f"{name}({target}={_show(bad)}).fit"
    assert kind != "timeout", f"{what} ran longer than {TIME_LIMIT} s"
    assert peak <= PEAK_LIMIT, f"{what} allocated {peak / 2**20:.0f} MiB"
    if kind == "result":
        for attr in ("alpha_", "coef_", "components_", "support_"):
            assert not _nan_in(getattr(value, attr, None)), f"{what}: NaN in {attr}"
        return
    assert isinstance(value, (ValueError, TypeError)), (
        f"{what} raised {type(value).__name__}: {value}")
    message = str(value)
    names = [*params, "X", "y", "X_side"]
    assert any(re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", message) for p in names) or (
        # scikit-learn's own input checks name the data by what it holds
        "array" in message or "sample" in message or "feature" in message
        or "class" in message or "label" in message), f"{what}: {message!r}"


# --- an n × n matrix for n = 10⁵ features --------------------------------------------------------


def test_an_n_by_n_matrix_for_100000_features_is_refused_with_its_size():
    import spectral_kit as sk
    from spectral_kit import sparse_lda, stability, weighting

    M = np.random.default_rng(0).standard_normal((100_000, 6))
    y = np.repeat([0, 1], 3)
    calls = {
        "q_alpha(solver='dense')": lambda: sk.q_alpha(M, 2, solver="dense"),
        "kernel_q_alpha": lambda: sk.kernel_q_alpha(M, 2),
        "parameter_free_weights(solver='dense')": lambda: weighting.parameter_free_weights(
            M, solver="dense"),
        "scatter_matrices": lambda: sparse_lda.scatter_matrices(M.T, y),
        "fit_discriminant": lambda: sparse_lda.fit_discriminant(M.T, y),
        "SparseLDA": lambda: sk.SparseLDA(2).fit(M.T, y),
        "similarity_matrix": lambda: stability.similarity_matrix(M.T),
        "bootstrap_intervals": lambda: stability.bootstrap_intervals(M.T, n_resamples=10),
        "StableSparsePCA": lambda: sk.StableSparsePCA(n_resamples=10).fit(M.T),
    }
    for name, call in calls.items():
        (kind, value), peak, _seconds = _call(lambda c=call: c(), {})
        assert kind == "error" and isinstance(value, ValueError), (name, kind, value)
        assert re.search(r"100000 × 100000 .* would need \d+\.\d GiB", str(value)), str(value)
        assert peak < PEAK_LIMIT, name
    # the matrix-free paths need no such matrix and run
    (kind, value), peak, _seconds = _call(lambda: sk.q_alpha(M, 2, max_iter=3), {})
    assert kind == "result" and peak < PEAK_LIMIT


# --- defects the fuzzing found, pinned ----------------------------------------------------------


@pytest.mark.parametrize("max_iter", [1, 2, 5, 6, 8])
def test_n_init_never_runs_more_iterations_than_max_iter(max_iter):
    from spectral_kit.qalpha import q_alpha

    result = q_alpha(world()["M"], 2, n_init=3, max_iter=max_iter, random_state=0)
    assert result.n_iter <= max_iter
    assert result.objective.size == result.n_iter


def test_a_continuous_y_is_not_read_as_classes():
    from spectral_kit import baselines
    from spectral_kit.qalpha import q_alpha_supervised

    M = world()["M"]
    y = np.random.default_rng(0).normal(size=M.shape[1])  # a measurement, 16 distinct values
    for call in (lambda: q_alpha_supervised(M, y), lambda: baselines.fisher_score(M.T, y)):
        with pytest.raises(ValueError, match=r"y looks continuous \(16 distinct values"):
            call()
    # whole-number floats are class labels
    assert baselines.fisher_score(M.T, world()["y"].astype(float)).shape == (M.shape[0],)


# --- the same cases through the scale paths (Dask, PyTorch) -------------------------------------

#: The public functions with a Dask and array-API path, with their data argument.
SCALE_PATHS = {"qalpha.q_alpha": "M", "weighting.parameter_free_weights": "M",
               "weighting.pca_weights": "M", "stability.bootstrap_intervals": "X"}
#: How close the scale paths' α (or interval ends) must be to NumPy's on an accepted case.
SCALE_RTOL = 1e-8


def _as_scale(kind: str, value):
    """``value`` as a Dask array chunked along axis 0, or a CPU tensor; None where the type
    cannot hold it (a string dtype in PyTorch, a non-array)."""
    if not isinstance(value, np.ndarray):
        return None
    if kind == "dask":
        da = pytest.importorskip("dask.array")
        chunks = (max(1, -(-value.shape[0] // 3)), *value.shape[1:]) if value.ndim else ()
        return da.from_array(value, chunks=chunks)
    torch = pytest.importorskip("torch")
    if value.dtype.kind in "OUS":
        return None
    return torch.from_numpy(value.copy())


def _scale_outcome(target: Target, kwargs: dict):
    (kind, value), _peak, _seconds = _call(target.func, kwargs)
    return kind, value


def _to_numpy(x):
    from spectral_kit.backends.results import to_numpy

    return to_numpy(x)


def _same_outcome(what: str, reference, scaled, kwargs: dict, compare: bool = True) -> float:
    """Assert the scale path ends as NumPy did; return the relative difference of results
    (not compared when ``compare`` is False: a tolerance of 1e300 accepts any iterate, and
    NumPy's Lanczos and the scale paths' LOBPCG stop at different ones)."""
    (ref_kind, ref), (kind, value) = reference, scaled
    assert kind != "timeout", f"{what} ran longer than {TIME_LIMIT} s"
    if ref_kind == "error":
        assert kind == "error", f"{what}: NumPy raised {type(ref).__name__}: {ref}; " \
                                f"the scale path returned a result"
        assert type(value) is type(ref), f"{what}: {type(value).__name__}: {value} " \
                                         f"(NumPy: {type(ref).__name__}: {ref})"
        named = {p for p in kwargs if re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", str(ref))}
        assert any(re.search(rf"(?<![\w]){re.escape(p)}(?![\w])", str(value)) for p in named), (
            f"{what}: {value!r} names none of {sorted(named)} (NumPy: {ref!r})")
        return 0.0
    assert kind == "result", f"{what}: NumPy returned a result, the scale path raised " \
                             f"{type(value).__name__}: {value}"
    if not compare:
        return 0.0
    if hasattr(ref, "alpha"):
        pairs = [(ref.alpha, value.alpha)]
    else:
        pairs = [(ref.lower, value.lower), (ref.upper, value.upper)]
    worst = 0.0
    for a, b in pairs:
        a, b = np.asarray(a, dtype=float), _to_numpy(b).astype(float)
        scale = max(float(np.abs(a).max()), 1e-300)
        worst = max(worst, float(np.abs(a - b).max()) / scale)
    assert worst <= SCALE_RTOL, f"{what}: differs from NumPy by {worst:.1e} (relative)"
    return worst


@pytest.mark.parametrize("backend", [pytest.param("dask", marks=pytest.mark.slow), "torch"])
@pytest.mark.parametrize("name", sorted(SCALE_PATHS))
def test_scale_paths_end_every_fuzz_case_as_numpy_does(name, backend):
    """Every bad value of the fuzz cases above, run on NumPy and again on Dask or PyTorch:
    the same error (type, and an argument it names) or the same result.

    On Dask, a bad value of an argument other than the data is run only where NumPy refuses
    it (the same validation must refuse it first); the accepted ones would each repeat a
    whole Dask run (seconds of scheduling for 10 × 16 data) to test what PyTorch tests.
    """
    target = targets()[name]
    data = SCALE_PATHS[name]
    valid = dict(target.kwargs)
    cases = [(data, bad) for bad in _bad_arrays(valid[data])]
    for param in inspect.signature(target.func).parameters:
        if param != data and (param in valid or param in INTS | FLOATS | CHOICES | SEEDS):
            default = valid.get(param, inspect.signature(target.func).parameters[param].default)
            cases += [(param, bad) for bad in _bad_values(param, default)]
    checked, worst = 0, 0.0
    for param, bad in cases:
        kwargs = {**valid, param: bad}
        scaled_data = _as_scale(backend, kwargs[data])
        if scaled_data is None:
            continue
        reference = _scale_outcome(target, kwargs)
        if backend == "dask" and param != data and reference[0] == "result":
            continue
        scaled = _scale_outcome(target, {**kwargs, data: scaled_data})
        worst = max(worst, _same_outcome(f"{name}({param}={_show(bad)}) on {backend}",
                                         reference, scaled, kwargs, compare=param != "tol"))
        checked += 1
    assert checked >= 15, checked
