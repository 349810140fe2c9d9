"""ESLDA on several processes: the open nodes shared out in slices of bounded time.

The subtrees of the best-first search are independent once the incumbent is known, so the
open nodes can be expanded anywhere. The driver keeps the queue; an idle worker gets a
share off its top (about twice the nodes it expanded in its last slice) and a slice of time
(:data:`MIN_SLICE_SECONDS` to :data:`MAX_SLICE_SECONDS`), expands its share best first with
the incumbent it was given, and returns the best subset it found, the nodes still open and
how many it expanded. The driver merges what comes back into the queue, drops the nodes that
the new incumbent prunes, and hands the next share to the idle worker. A worker whose share
runs dry comes back early for more, and the incumbent found by one worker reaches the others
at their next slice.

The certificate is the serial one: a node leaves the search only when its bound cannot beat
the incumbent, whichever process bounded it; when the search stops early, the nodes still
open (every worker's leftovers) give the upper bound. Only the order of expansion differs,
so the node count varies from run to run, and among exact ties the support found may too.

The workers are joblib's reusable loky processes, with single-threaded BLAS and with SIGINT
ignored: an interrupt reaches the driver, which kills them.
"""

from __future__ import annotations

import heapq
import math
import pickle
import signal
import time
import uuid
from concurrent.futures import FIRST_COMPLETED, wait
from typing import Any

import numpy as np
from joblib import cpu_count
from joblib.externals.loky import get_reusable_executor

from ..validation import check_int

__all__ = ["available_cpus", "check_n_jobs", "parallel_advance", "start_workers"]

#: Seconds a worker spends on its share of the queue before it reports back: a fifth of
#: the time the workers have run so far, within these limits. Short slices at first share
#: the young tree out evenly; longer ones later send the queue back and forth less often.
MIN_SLICE_SECONDS = 0.25
MAX_SLICE_SECONDS = 2.0
#: A share holds this many times the nodes a worker expanded per second in its last full
#: slice, times the slice (at least :data:`MIN_SHARE`): enough that it rarely runs dry,
#: and the rest of the queue stays with the driver instead of travelling both ways.
SHARE_FACTOR = 2.0
MIN_SHARE = 256

# per worker process: the search state of the current run (keyed by the run's token)
_WORKER: dict[str, Any] = {}
# the search's LAPACK calls are on matrices of at most n × n: BLAS threads only slow them
_SINGLE_THREADED = dict.fromkeys(
    ("OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "BLIS_NUM_THREADS"), "1")


def available_cpus() -> int:
    """CPUs this process may use: joblib's count, which heeds the affinity mask and a
    container's CPU quota (a Binder pod reports the host's CPUs but may use one or two)."""
    return max(1, cpu_count())


def check_n_jobs(n_jobs: Any) -> int:
    """Worker processes for ``n_jobs`` as in scikit-learn: None → 1, −1 → every available
    CPU, −2 → all but one, and so on (at least 1)."""
    if n_jobs is None:
        return 1
    n_jobs = check_int(n_jobs, "n_jobs", hint="Use a positive count, or -1 for every CPU.")
    if n_jobs == 0:
        raise ValueError("n_jobs must not be 0; use 1 for one process or -1 for every CPU.")
    return n_jobs if n_jobs > 0 else max(1, available_cpus() + 1 + n_jobs)


def _executor(n_jobs: int) -> Any:
    """joblib's reusable loky executor: its workers outlive one search (a second search
    starts at once), it does not re-import a script's ``__main__`` (no ``if __name__``
    guard needed) and it runs beside the threads of a Jupyter kernel."""
    return get_reusable_executor(
        max_workers=n_jobs, initializer=_init_worker, env=_SINGLE_THREADED)


def start_workers(n_jobs: int) -> None:
    """Start ``n_jobs`` workers without waiting for them: each imports NumPy, SciPy and the
    kit (most of a second on an idle machine) while the search goes on here."""
    executor = _executor(n_jobs)
    for _ in range(n_jobs):
        executor.submit(_ready)


def _ready() -> bool:
    return True


def _init_worker() -> None:
    # an interrupt is the driver's to handle: it kills the workers
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _run_slice(token: str, payload: bytes | None, nodes: list, value: float,
               support: np.ndarray, seconds: float, max_nodes: int | None) -> tuple | None:
    """Expand ``nodes`` (heap entries) best first for at most ``seconds`` under the
    incumbent (``support``, ``value``); return the best support found and its value, the
    entries still open and the number of nodes expanded. The search state (``payload``)
    is sent with a worker's first slice of a run only: a worker that has not seen the run
    returns None, and the share comes back with the state."""
    search = _WORKER.get(token)
    if search is None:
        if payload is None:
            return None
        _WORKER.clear()  # an earlier run's state
        search = _WORKER[token] = pickle.loads(payload)
    search.set_incumbent(support, value)
    search.heap = nodes
    heapq.heapify(search.heap)
    search.nodes = 0
    search.advance(time.perf_counter() + seconds, max_nodes, at_least_one=True)
    return search.best_value, search.best_support, search.heap, search.nodes


def _shares(heap: list, parts: int, size: int | None, threshold: float) -> list[list]:
    """Pop up to ``parts`` shares of at most ``size`` nodes each (None: all of them) off the
    top of ``heap``, dealt out in turn so that each share gets some of the most promising
    nodes. Nodes that the incumbent (``threshold``) prunes are dropped on the way: the heap
    pops in order of bound, so the first of them ends the queue."""
    want = len(heap) if size is None else parts * size
    taken: list = []
    while heap and len(taken) < want:
        entry = heapq.heappop(heap)
        if -entry[0] <= threshold:
            heap.clear()
            break
        taken.append(entry)
    return [taken[i::parts] for i in range(parts) if taken[i::parts]]


def parallel_advance(search: Any, n_jobs: int, deadline: float | None = None,
                     max_nodes: int | None = None) -> str:
    """Run ``search`` (a :class:`.search._Search`, modified in place) on ``n_jobs``
    worker processes until it is certified, has expanded ``max_nodes`` nodes in all or
    ``time.perf_counter()`` passes ``deadline``; returns why it stopped, as
    :meth:`~.driver._Driver.advance` does. The open nodes are back in
    ``search.heap`` when it returns."""
    token = uuid.uuid4().hex
    payload = pickle.dumps(search, protocol=pickle.HIGHEST_PROTOCOL)
    executor = _executor(n_jobs)
    running: dict = {}  # future → (share, seconds, node budget)
    unsent: list[list] = []  # shares taken off the queue, not yet handed to a worker
    start = time.perf_counter()
    # the state (the pair and the bounds' caches, O(n²)) goes with the first slices only
    with_state = n_jobs
    rate = None  # nodes a worker expands per second, from its last full slice
    heapq.heapify(search.heap)

    def submit(share: list, state: bool, seconds: float, budget: int | None) -> None:
        future = executor.submit(
            _run_slice, token, payload if state else None, share, search.best_value,
            search.best_support, seconds, budget)
        running[future] = (share, seconds, budget)

    try:
        while True:
            threshold = search.threshold()
            now = time.perf_counter()
            spent = ((deadline is not None and now >= deadline)
                     or (max_nodes is not None and search.nodes >= max_nodes))
            if not spent and search.heap and len(running) < n_jobs:
                seconds = min(MAX_SLICE_SECONDS,
                              max(MIN_SLICE_SECONDS, 0.2 * (now - start)))
                if deadline is not None:
                    seconds = min(seconds, deadline - now)
                budget = None if max_nodes is None else math.ceil(
                    (max_nodes - search.nodes) / n_jobs)
                # a share of about what a worker expands in its slice, not the whole
                # queue: the rest waits here rather than travel there and back
                size = None if rate is None else max(MIN_SHARE, math.ceil(
                    SHARE_FACTOR * rate * seconds))
                unsent = _shares(search.heap, n_jobs - len(running), size, threshold)
                while unsent:
                    submit(unsent[0], with_state > 0, seconds, budget)
                    del unsent[0]
                    with_state -= 1
            if not running:
                break
            done, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in done:
                # a share leaves ``running`` only once what came back is merged: an
                # interrupt meanwhile returns it to the queue (below)
                share, seconds, budget = running[future]
                result = future.result()
                if result is None:  # a worker new to this run: again, with the state
                    if deadline is not None and time.perf_counter() >= deadline:
                        for entry in share:
                            heapq.heappush(search.heap, entry)
                    else:
                        submit(share, True, seconds, budget)
                    del running[future]
                    continue
                value, support, open_nodes, expanded = result
                search.set_incumbent(support, value)
                for entry in open_nodes:
                    heapq.heappush(search.heap, entry)
                del running[future]
                search.nodes += expanded
                if open_nodes:  # it ran its whole slice: its pace sizes the next shares
                    rate = expanded / seconds
    except BaseException:
        # an interrupt or a failed worker: no slice may go on running in the background,
        # and the shares out with the workers come back to the queue (their slices' work
        # is lost, not their nodes), so that a resumed search still certifies its result
        executor.shutdown(wait=False, kill_workers=True)
        for share in [*(s for s, _, _ in running.values()), *unsent]:
            for entry in share:
                heapq.heappush(search.heap, entry)
        raise
    # still a heap: certified once its top cannot beat the incumbent
    if search.heap and -search.heap[0][0] <= search.threshold():
        search.heap.clear()
    if not search.heap:
        return "completed"
    if max_nodes is not None and search.nodes >= max_nodes:
        return "max_nodes"
    return "max_seconds"
