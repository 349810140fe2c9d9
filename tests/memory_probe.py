"""Peak memory of guarded calls against the estimates of their memory guard.

Every function whose memory grows with its arguments estimates its peak and calls
``check_memory`` before allocating. This module measures, in a fresh subprocess per case,
the peak resident memory a call adds above what its inputs already hold (the kernel's
``VmHWM``, reset just before the call through ``/proc/self/clear_refs``) and reads the
estimate through :data:`spectral_kit.memory.observer` (the first guard a call passes: the
whole call's estimate), under the default limit. glibc is told to return every large block
at once (``MALLOC_MMAP_THRESHOLD_``), so that a call's memory is not hidden in the heap
left by an earlier one.

``python tests/memory_probe.py`` prints the table: function, size, estimate, measured peak,
ratio.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

def _sparse(rows: int, density: float) -> str:
    """A sparse (rows × size) X of positive entries with no empty feature."""
    return (f"X = sp.random({rows}, size, density={density}, random_state=0, format='csc')\n"
            f"X = X + sp.csc_matrix((np.ones(size), (np.arange(size) % {rows}, "
            f"np.arange(size))), shape=({rows}, size))\n"
            "X.data += 1.0")


#: Each case: setup (imports), make (inputs for ``size``, the baseline), call (the guarded
#: call), three sizes and optionally the size of a first, unmeasured call (``warmup``; by
#: default the first size) that loads what the call imports lazily. Sizes keep every peak between tens and a few hundred MiB.
CASES: dict[str, dict] = {
    "q_alpha(solver='dense')": {
        "setup": "from spectral_kit import q_alpha",
        "make": "M = np.random.default_rng(0).standard_normal((size, 8))",
        "call": "result = q_alpha(M, 2, solver='dense', max_iter=3)",
        "sizes": [1500, 2500, 3500],
    },
    "kernel_q_alpha": {
        "setup": "from spectral_kit import kernel_q_alpha",
        "make": "M = np.random.default_rng(0).standard_normal((size, 8))",
        "call": "result = kernel_q_alpha(M, 2, kernel='rbf', max_iter=3)",
        "sizes": [1500, 2500, 3500],
    },
    "similarity_matrix": {
        "setup": "from spectral_kit.stability import similarity_matrix",
        "make": "X = np.random.default_rng(0).standard_normal((50, size))",
        "call": "result = similarity_matrix(X, 'covariance')",
        "sizes": [1500, 2500, 3500],
    },
    "similarity_matrix (sparse X)": {
        "setup": "import scipy.sparse as sp\n"
                 "from spectral_kit.stability import similarity_matrix",
        "make": _sparse(400, 0.02),
        "call": "result = similarity_matrix(X, 'cosine')",
        "sizes": [1500, 2500, 3500],
    },
    "resample_indices": {
        "setup": "from spectral_kit.stability import resample_indices",
        "make": "",
        "call": "result = resample_indices(size, 1000, 0)",
        "sizes": [5000, 10000, 20000],
    },
    "bootstrap_intervals (covariance)": {
        "setup": "from spectral_kit.stability import bootstrap_intervals",
        "make": "X = np.random.default_rng(0).standard_normal((200, size))",
        "call": "result = bootstrap_intervals(X, 'covariance', n_resamples=200, "
                "random_state=0, progress=False)",
        "sizes": [600, 1200, 1800],
    },
    "bootstrap_intervals (cosine, many samples)": {
        "setup": "from spectral_kit.stability import bootstrap_intervals",
        "make": "X = np.random.default_rng(0).lognormal(size=(size, 60))",
        "call": "result = bootstrap_intervals(X, 'cosine', n_resamples=1000, "
                "random_state=0, progress=False)",
        "sizes": [4000, 8000, 16000],
    },
    "bootstrap_intervals (wide, 5 samples)": {
        "setup": "from spectral_kit.stability import bootstrap_intervals",
        "make": "X = np.random.default_rng(0).standard_normal((5, size))",
        "call": "result = bootstrap_intervals(X, 'covariance', n_resamples=30, "
                "random_state=0, progress=False)",
        "sizes": [1000, 2000, 3000],
    },
    "bootstrap_intervals (sparse X)": {
        "setup": "import scipy.sparse as sp\n"
                 "from spectral_kit.stability import bootstrap_intervals",
        "make": _sparse(2000, 0.01),
        "call": "result = bootstrap_intervals(X, 'cosine', n_resamples=1000, "
                "random_state=0, progress=False)",
        "sizes": [1000, 2000, 3000],
    },
    "bootstrap_distribution": {
        "setup": "from spectral_kit.stability import bootstrap_distribution",
        "make": "X = np.random.default_rng(0).standard_normal((100, size))",
        "call": "result = bootstrap_distribution(X, 'covariance', 500, 0)",
        "sizes": [60, 100, 140],
    },
    "StableSparsePCA.fit (wide)": {
        "setup": "import warnings\n"
                 "from spectral_kit import StableSparsePCA\n"
                 "warnings.simplefilter('ignore')",
        "make": "X = np.random.default_rng(0).standard_normal((5, size))",
        "call": "result = StableSparsePCA(n_resamples=30, random_state=0, "
                "progress=False).fit(X)",
        "sizes": [1000, 2000, 3000],
    },
    "positivity_probability": {
        "setup": "from spectral_kit.theory import positivity_probability",
        "make": "",
        # a seed per size: each call starts with an empty eigenvector cache (a first call,
        # the one the guard must hold for), and none frees blocks cached at another size
        "call": "result = positivity_probability([size], 0.3, 1.0, trials=500, "
                "random_state=size)",
        "sizes": [60, 100, 140],
        "warmup": 20,
    },
    "positivity_probability (large n)": {
        "setup": "from spectral_kit.theory import positivity_probability",
        "make": "",
        "call": "result = positivity_probability([size], 0.3, 1.0, trials=2, random_state=0)",
        "sizes": [1500, 2500, 3500],
    },
    "triple_product_minimizer": {
        "setup": "from spectral_kit.theory import triple_product_minimizer",
        "make": "",
        # the three vectors are zeros until written: write them, as any use will
        "call": "result = triple_product_minimizer(size)\n"
                "for v in result:\n"
                "    v += 1.0",
        "sizes": [4_000_000, 8_000_000, 16_000_000],
        "warmup": 1000,
    },
    "triple_product_monte_carlo": {
        "setup": "from spectral_kit.theory import triple_product_monte_carlo",
        "make": "a = np.ones(50); b = np.arange(50.0) + 1",
        "call": "result = triple_product_monte_carlo(a, b, 2, samples=size, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "scatter_matrices": {
        "setup": "from spectral_kit.sparse_lda import scatter_matrices",
        "make": "X = np.random.default_rng(0).standard_normal((100, size))\n"
                "y = np.arange(100) % 3",
        "call": "result = scatter_matrices(X, y)",
        "sizes": [1500, 2500, 3500],
    },
    "fbm_covariance": {
        "setup": "from spectral_kit.sparse_lda import fbm_covariance",
        "make": "",
        "call": "result = fbm_covariance(size, 0.5)",
        "sizes": [1500, 2500, 3500],
    },
    "random_pair": {
        "setup": "from spectral_kit.sparse_lda import random_pair",
        "make": "",
        "call": "result = random_pair(size, random_state=0)",
        "sizes": [600, 1000, 1400],
    },
    "make_weston_linear": {
        "setup": "from spectral_kit.datasets import make_weston_linear",
        "make": "",
        "call": "result = make_weston_linear(size, random_state=0)",
        "sizes": [25000, 50000, 100000],
    },
    "make_multiclass_clusters": {
        "setup": "from spectral_kit.datasets import make_multiclass_clusters",
        "make": "",
        "call": "result = make_multiclass_clusters(3, n_points=200, n_irrelevant=size, "
                "random_state=0)",
        "sizes": [10000, 20000, 40000],
    },
    "make_ben_dor": {
        "setup": "from spectral_kit.datasets import make_ben_dor",
        "make": "",
        "call": "result = make_ben_dor(size, 100, 100, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_mean_shift": {
        "setup": "from spectral_kit.datasets.supervised_suite import make_mean_shift",
        "make": "",
        "call": "result = make_mean_shift(2, n_per_class=100, n_features=size, "
                "random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_permuted_gaussians": {
        "setup": "from spectral_kit.datasets import make_permuted_gaussians",
        "make": "",
        "call": "result = make_permuted_gaussians(2, 100, n_irrelevant=size, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_weston_nonlinear": {
        "setup": "from spectral_kit.datasets import make_weston_nonlinear",
        "make": "",
        "call": "result = make_weston_nonlinear(size, random_state=0)",
        "sizes": [25000, 50000, 100000],
    },
    "make_label_and_clusters": {
        "setup": "from spectral_kit.datasets.supervised_suite import make_label_and_clusters",
        "make": "",
        "call": "result = make_label_and_clusters(200, n_features=size, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_xor": {
        "setup": "from spectral_kit.datasets.supervised_suite import make_xor",
        "make": "",
        "call": "result = make_xor(200, n_features=size, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_wolf_bileschi_ideal": {
        "setup": "from spectral_kit.datasets import make_wolf_bileschi_ideal",
        "make": "",
        "call": "result = make_wolf_bileschi_ideal(3, size, 200, random_state=0)",
        "sizes": [20000, 40000, 80000],
    },
    "make_two_structures": {
        "setup": "from spectral_kit.datasets import make_two_structures",
        "make": "",
        "call": "result = make_two_structures(200, n_irrelevant=size, random_state=0)",
        "sizes": [10000, 20000, 40000],
    },
    "make_topographic": {
        "setup": "from spectral_kit.datasets import make_topographic",
        "make": "",
        "call": "result = make_topographic(200, n_irrelevant=size, random_state=0)",
        "sizes": [10000, 20000, 40000],
    },
    "make_hidden_sessions": {
        "setup": "from spectral_kit.datasets import make_hidden_sessions",
        "make": "",
        "call": "result = make_hidden_sessions(per_cluster=100, n_irrelevant=size, "
                "random_state=0)",
        "sizes": [10000, 20000, 40000],
    },
}

_RUNNER = r"""
import ctypes, gc, json, os, sys
os.environ.pop("SPECTRAL_KIT_MEMORY_LIMIT", None)
import numpy as np
libc = ctypes.CDLL("libc.so.6")

def status(field):
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field):
                return int(line.split()[1]) * 1024

def settle():
    gc.collect()
    libc.malloc_trim(0)

import spectral_kit.memory as memory
seen = []
memory.observer = lambda n_bytes, what: seen.append(n_bytes)
case = json.loads(sys.argv[1])
ns = {"np": np}
exec(case["setup"], ns)
rows = []
for i, size in enumerate([case.get("warmup", case["sizes"][0])] + case["sizes"]):
    ns["size"] = size
    exec(case["make"], ns)
    ns.pop("result", None)
    settle()
    base = status("VmRSS:")
    with open("/proc/self/clear_refs", "w") as f:
        f.write("5")
    seen.clear()
    exec(case["call"], ns)
    peak = status("VmHWM:") - base
    estimate = seen[0] if seen else None  # the outermost guard: the whole call's estimate
    ns.pop("result", None)
    settle()
    if i:  # the first run only loads what the call imports lazily
        rows.append([size, estimate, peak])
print(json.dumps(rows))
"""


@dataclass(frozen=True)
class Row:
    function: str
    size: int
    estimate: float | None
    peak: float

    @property
    def ratio(self) -> float | None:
        return None if self.estimate is None else self.estimate / max(self.peak, 1.0)


def measure(name: str) -> list[Row]:
    """Estimate and measured peak of ``CASES[name]`` at its three sizes (a subprocess)."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "OPENBLAS_NUM_THREADS": "1",
           "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1", "MALLOC_MMAP_THRESHOLD_": "65536",
           "MALLOC_TRIM_THRESHOLD_": "65536"}
    out = subprocess.run([sys.executable, "-c", _RUNNER, json.dumps(CASES[name])],
                         capture_output=True, text=True, env=env, check=True, timeout=600)
    return [Row(name, *row) for row in json.loads(out.stdout.strip().splitlines()[-1])]


def _mib(n: float | None) -> str:
    return "—" if n is None else f"{n / 2**20:.1f}"


if __name__ == "__main__":  # pragma: no cover - the table for the record
    names = sys.argv[1:] or list(CASES)
    print("| function | size | estimate (MiB) | measured peak (MiB) | ratio |")
    print("|---|---:|---:|---:|---:|")
    for name in names:
        try:
            rows = measure(name)
        except subprocess.CalledProcessError as exc:
            print(f"| {name} | failed: {exc.stderr.strip().splitlines()[-1]} |", flush=True)
            continue
        for row in rows:
            ratio = "—" if row.ratio is None else f"{row.ratio:.2f}"
            print(f"| {row.function} | {row.size} | {_mib(row.estimate)} | {_mib(row.peak)} "
                  f"| {ratio} |", flush=True)

