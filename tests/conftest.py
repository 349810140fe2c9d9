"""Shared fixtures: a headless matplotlib, hypothesis profiles and the real-data switch."""

from __future__ import annotations

import os
from pathlib import Path

import matplotlib
import pytest
from threadpoolctl import threadpool_limits

matplotlib.use("Agg")

# --doctest-modules collects every module under the test paths; the two conftest files share a
# module name, so collecting them as doctest modules clashes (they hold no examples).
collect_ignore = ["conftest.py", "browser/conftest.py"]

# Tests solve many small eigenproblems; with several test processes on few cores, BLAS
# threads fight over the cores and a 100 × 100 eigh slows down a hundredfold.
_BLAS_LIMIT = threadpool_limits(limits=int(os.environ.get("SPECTRAL_KIT_TEST_THREADS", "1")))

try:
    from hypothesis import HealthCheck, settings

    settings.register_profile(
        "ci", max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow]
    )
    settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))
except ImportError:  # pragma: no cover - hypothesis is a test dependency
    pass


def _local_data_dir() -> Path | None:
    configured = os.environ.get("SPECTRAL_KIT_DATA")
    if configured:
        return Path(configured)
    return None


@pytest.fixture(scope="session")
def real_data():
    """Load a real data set by name, or skip with the reason when no copy is reachable.

    The kit downloads data on first use; offline machines (and CI) point
    ``SPECTRAL_KIT_DATA`` at a directory of verified copies instead.
    """
    from spectral_kit.datasets import load_dataset

    def load(name: str, **kwargs):
        try:
            return load_dataset(name, **kwargs)
        except OSError as exc:
            where = _local_data_dir()
            pytest.skip(
                f"data set {name!r} unavailable (SPECTRAL_KIT_DATA={where}, no network): {exc}"
            )

    return load


@pytest.fixture(autouse=True)
def _close_figures():
    yield
    import matplotlib.pyplot as plt

    plt.close("all")
