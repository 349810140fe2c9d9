"""Q-α on a GPU through the array API, against the NumPy path on all CPU cores.

Runs where PyTorch (or CuPy) sees a CUDA device: M (n × q = 100, float32, k = 3) is made on
the device, and :func:`spectral_kit.q_alpha` (basic scheme) runs on it in the same process as
the NumPy path on the same data with every CPU core given to BLAS. Reported: seconds per
iteration at n = 10⁶ and 10⁷ (goal: ≥ 20× at 10⁶) and |cos| between the two α. Quick mode:
n = 10⁵ and 10⁶. Without a GPU the table says so in one line and nothing is timed.
"""

from __future__ import annotations

import os
import time

import numpy as np

from ._core import BenchResult, benchmark

__all__ = ["find_gpu", "run"]

Q_SAMPLES = 100
K = 3
ITERATIONS = 3


def find_gpu() -> tuple[str, object] | None:
    """``("torch", device)`` or ``("cupy", None)`` for the first CUDA device, else None."""
    try:
        import torch

        if torch.cuda.is_available():
            return "torch", torch.device("cuda")
    except ImportError:
        pass
    try:
        import cupy

        if cupy.cuda.runtime.getDeviceCount() > 0:
            return "cupy", None
    except Exception:  # ImportError, or CUDA missing at run time
        pass
    return None


def _data(n: int, random_state: int = 0) -> np.ndarray:
    rng = np.random.default_rng(random_state)
    M = rng.standard_normal((n, Q_SAMPLES), dtype=np.float32)
    n_rel = max(3, n // 100)
    labels = np.arange(Q_SAMPLES) % K
    M[:n_rel] += 3.0 * rng.standard_normal((n_rel, K)).astype(np.float32)[:, labels]
    return M


def _timed_run(M: object, sync: object) -> tuple[float, object]:
    from ..qalpha import q_alpha

    sync()
    start = time.perf_counter()
    res = q_alpha(M, K, method="basic", max_iter=ITERATIONS, tol=1e-300)
    sync()
    return (time.perf_counter() - start) / (res.n_iter + 1), res


@benchmark("gpu")
def run(quick: bool = False) -> list[BenchResult]:
    """Q-α on the GPU vs NumPy on all cores at n = 10⁶ and 10⁷ (10⁵, 10⁶ when quick)."""
    gpu = find_gpu()
    if gpu is None:
        return [BenchResult(
            "no GPU here: neither PyTorch nor CuPy sees a CUDA device, nothing was timed",
            float("nan"), goal="≥ 20× at n=10⁶ (run on a machine with a GPU)",
        )]
    from threadpoolctl import threadpool_limits

    library, device = gpu
    if library == "torch":
        import torch

        def to_gpu(a: np.ndarray) -> object:
            return torch.asarray(a, device=device)

        def to_host(a: object) -> np.ndarray:
            return a.double().cpu().numpy()

        def sync() -> None:
            torch.cuda.synchronize()

        name = torch.cuda.get_device_name(0)
    else:
        import cupy

        to_gpu, to_host = cupy.asarray, cupy.asnumpy

        def sync() -> None:
            cupy.cuda.Device().synchronize()

        name = cupy.cuda.runtime.getDeviceProperties(0)["name"].decode()
    cores = os.cpu_count() or 1
    results = []
    for n in (10**5, 10**6) if quick else (10**6, 10**7):
        M = _data(n)
        _timed_run(to_gpu(M[: min(n, 10**5)]), sync)  # warm-up: kernels, cuBLAS handles
        t_gpu, res = _timed_run(to_gpu(M), sync)
        with threadpool_limits(limits=cores):
            t_cpu, ref = _timed_run(M, lambda: None)
        cos = abs(float(to_host(res.alpha) @ ref.alpha))
        results.append(BenchResult(
            f"Q-α per iteration on {name} via {library} (n={n:,}, q={Q_SAMPLES}, float32)",
            t_gpu, f"NumPy path, {cores} CPU threads", t_cpu, goal="≥ 20× at n=10⁶",
            extra={"|cos| to NumPy α": round(cos, 6), "iterations": res.n_iter},
        ))
    return results
