"""Q-α out of core: M in a Zarr store on disk, computed by a ``distributed.LocalCluster``.

* the full run writes M with n = 2·10⁷ features, q = 100 samples in float32 (8 GB) to a
  Zarr store, opens it with ``dask.array.from_zarr`` and runs Q-α (basic scheme, k = 3)
  through a LocalCluster of 2 single-threaded workers limited to 2 GB each;
* the baseline is the in-memory NumPy path at n = 10⁶ (400 MB in float32), a size both can
  run; the same cluster also runs that store, so the table shows the cost per byte of M.

Reported: seconds per iteration (wall time ÷ (iterations + 1): the start -- PCA Q⁽⁰⁾ and
the first α-step -- costs the same three passes over M as one iteration), the peak resident
memory of every process (VmHWM; each worker against its 2 GB limit) and the slowdown
per byte of M against memory (goal ≤ 2×). The out-of-core run does one iteration after the
start (six passes over 8 GB), the others three. Quick mode: 2·10⁵ features out of core, 10⁵ in
memory. ``SPECTRAL_KIT_SCRATCH`` picks the folder for the stores (default: the temp folder);
a complete store left there by an earlier run is reused, and with ``SPECTRAL_KIT_KEEP_STORE=1``
the stores are kept for the next run.
"""

from __future__ import annotations

import os
import resource
import shutil
import tempfile
import time

import numpy as np

from ._core import BenchResult, benchmark

__all__ = ["run", "write_zarr"]

Q_SAMPLES = 100
K = 3
ITERATIONS = 3
#: Iterations of the out-of-core run (each reads the 8 GB store three times).
ITERATIONS_OUT_OF_CORE = 1
WORKERS = 2
WORKER_LIMIT = 2 * 10**9
#: Rows per chunk of the store: 100 MB of float32 at q = 100.
CHUNK_ROWS = 250_000
#: Share of features carrying the cluster structure.
RELEVANT_SHARE = 0.01


def write_zarr(path: str, n: int, q: int = Q_SAMPLES, *, chunk_rows: int = CHUNK_ROWS,
               random_state: int = 0) -> str:
    """Write an n × q float32 M chunk by chunk (never whole in memory): Gaussian noise, with
    the first 1 % of rows separating k = 3 clusters of samples."""
    import zarr

    try:
        done = zarr.open_array(path, mode="r")
        if (done.shape == (n, q) and done.attrs.get("complete")
                and done.attrs.get("random_state") == random_state):
            return path
    except (FileNotFoundError, ValueError, KeyError):
        pass
    rng = np.random.default_rng(random_state)
    # Uncompressed: Gaussian noise does not compress, and the read rate is what is measured.
    arr = zarr.create_array(path, shape=(n, q), chunks=(min(chunk_rows, n), q),
                            dtype="float32", compressors=None, overwrite=True)
    labels = np.arange(q) % K
    centres = rng.standard_normal((int(RELEVANT_SHARE * n) + 1, K)).astype(np.float32)
    n_relevant = int(RELEVANT_SHARE * n)
    for start in range(0, n, chunk_rows):
        stop = min(start + chunk_rows, n)
        block = rng.standard_normal((stop - start, q), dtype=np.float32)
        rel = np.arange(start, min(stop, n_relevant))
        if rel.size:
            block[: rel.size] += 3.0 * centres[rel][:, labels]
        arr[start:stop] = block
    arr.attrs.update({"complete": True, "random_state": random_state})
    return path


def _maxrss_bytes() -> int:
    """Peak resident memory of this process: VmHWM, which a fork-and-exec starts afresh
    (``getrusage`` would carry over the parent's peak into a spawned worker)."""
    try:
        with open("/proc/self/status") as fh:
            for line in fh:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
    except OSError:
        pass
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def _per_iteration(seconds: float, n_iter: int) -> float:
    return seconds / (n_iter + 1)


def _run_cluster(path: str, max_iter: int) -> tuple[float, object]:
    import dask.array as da

    from ..qalpha import q_alpha

    M = da.from_zarr(path)
    start = time.perf_counter()
    res = q_alpha(M, K, method="basic", max_iter=max_iter, tol=1e-300)
    return time.perf_counter() - start, res


def _relevant_hits(res: object, n: int) -> str:
    import dask.array as da

    n_rel = int(RELEVANT_SHARE * n)
    top = da.argtopk(res.alpha, n_rel).compute()
    return f"{int(np.sum(top < n_rel))}/{n_rel}"


@benchmark("scale")
def run(quick: bool = False) -> list[BenchResult]:
    """Q-α on an 8 GB Zarr store through a 2 × 2 GB LocalCluster (80 MB when quick)."""
    try:
        import dask  # noqa: F401
        import zarr
        from distributed import Client, LocalCluster
    except ImportError:
        return [BenchResult('bench scale needs the extra: pip install "spectral-kit[scale]"',
                            float("nan"))]
    from ..qalpha import q_alpha

    n_big, n_small = (2 * 10**5, 10**5) if quick else (2 * 10**7, 10**6)
    scratch = os.environ.get("SPECTRAL_KIT_SCRATCH", tempfile.gettempdir())
    need = 4 * Q_SAMPLES * (n_big + n_small)
    free = shutil.disk_usage(scratch).free
    if free < 1.2 * need:
        return [BenchResult(
            f"not enough disk in {scratch}: {free / 1e9:.1f} GB free, {need / 1e9:.1f} GB "
            "needed (set SPECTRAL_KIT_SCRATCH)", float("nan"))]
    folder = os.path.join(scratch, "spectral-kit-scale")
    os.makedirs(folder, exist_ok=True)
    results = []
    try:
        big = write_zarr(os.path.join(folder, "big.zarr"), n_big)
        small = write_zarr(os.path.join(folder, "small.zarr"), n_small, random_state=1)
        # The in-memory baseline first, before the cluster exists.
        import zarr

        M_small = zarr.open_array(small, mode="r")[:]
        start = time.perf_counter()
        ref = q_alpha(M_small, K, method="basic", max_iter=ITERATIONS, tol=1e-300)
        t_mem = _per_iteration(time.perf_counter() - start, ref.n_iter)
        del M_small
        client_peak_before = _maxrss_bytes()
        with LocalCluster(n_workers=WORKERS, threads_per_worker=1, memory_limit=WORKER_LIMIT,
                          processes=True, dashboard_address=":0") as cluster, \
                Client(cluster) as client:
            seconds, res_small = _run_cluster(small, ITERATIONS)
            t_small = _per_iteration(seconds, res_small.n_iter)
            cos = abs(float(res_small.alpha.compute() @ ref.alpha))
            seconds, res_big = _run_cluster(big, 3 if quick else ITERATIONS_OUT_OF_CORE)
            t_big = _per_iteration(seconds, res_big.n_iter)
            hits = _relevant_hits(res_big, n_big)
            worker_peaks = client.run(_maxrss_bytes)
        client_peak = _maxrss_bytes()
        limit_gb = WORKER_LIMIT / 1e9
        peaks = {f"worker {i} peak GB": round(v / 1e9, 2)
                 for i, v in enumerate(worker_peaks.values())}
        over = [k for k, v in peaks.items() if v > limit_gb]
        bytes_big, bytes_small = 4 * Q_SAMPLES * n_big, 4 * Q_SAMPLES * n_small
        results.append(BenchResult(
            f"Q-α per iteration, Dask on Zarr (n={n_small:,}, q={Q_SAMPLES}, float32, "
            f"{bytes_small / 1e9:.2g} GB)", t_small,
            "in-memory NumPy path, same data", t_mem, goal="≤ 2× slower per byte",
            extra={"|cos| to NumPy α": round(cos, 8), "iterations": res_small.n_iter},
        ))
        results.append(BenchResult(
            f"Q-α per iteration, Dask on Zarr out of core (n={n_big:,}, q={Q_SAMPLES}, "
            f"float32, {bytes_big / 1e9:.2g} GB)", t_big,
            f"in-memory NumPy path at n={n_small:,}, scaled per byte",
            t_mem * bytes_big / bytes_small, goal="≤ 2× slower per byte",
            extra={
                **peaks,
                "worker limit GB": limit_gb,
                "any worker over its limit": bool(over),
                "client (+scheduler, nannies) peak GB": round(client_peak / 1e9, 2),
                "client peak before cluster GB": round(client_peak_before / 1e9, 2),
                "GB read per s": round(3 * bytes_big / 1e9 / t_big, 2),
                "relevant in top 1 %": hits,
                "iterations": res_big.n_iter,
            },
        ))
    finally:
        if not os.environ.get("SPECTRAL_KIT_KEEP_STORE"):
            shutil.rmtree(folder, ignore_errors=True)
    return results
