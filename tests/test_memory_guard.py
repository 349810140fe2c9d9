"""The memory guard: the limit read from the environment, and estimates that hold.

Each guarded function's estimate is compared with the peak memory it really adds, measured
in a subprocess at three sizes (``tests/memory_probe.py``, which also prints the table).
"""

from __future__ import annotations

import numpy as np
import pytest
from memory_probe import CASES, measure

from spectral_kit.memory import MEMORY_LIMIT, check_memory, memory_limit, parse_bytes
from spectral_kit.validation import check_data_size


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1073741824", 2**30),
        ("4G", 4 * 2**30),
        ("4g", 4 * 2**30),
        ("512M", 512 * 2**20),
        ("1.5GiB", 1.5 * 2**30),
        ("800 MB", 800e6),
        ("2 KiB", 2048),
        ("1e9", 1e9),
        (" 64K ", 64 * 1024),
    ],
)
def test_sizes_with_units_are_read(text, expected):
    assert parse_bytes(text) == expected


@pytest.mark.parametrize("text", ["", "nan", "NaN", "inf", "-1", "0", "0.5", "4X", "four G",
                                  "1e999", "--4G", "4 G B"])
def test_nonsense_limits_are_refused_with_a_named_error(text):
    with pytest.raises(ValueError, match=r"SPECTRAL_KIT_MEMORY_LIMIT=.*(4G|positive)"):
        parse_bytes(text)


def test_the_environment_sets_the_limit(monkeypatch):
    monkeypatch.delenv("SPECTRAL_KIT_MEMORY_LIMIT", raising=False)
    assert memory_limit() == MEMORY_LIMIT == 2**30
    check_memory(0.9 * 2**30, "a call")
    with pytest.raises(ValueError, match=r"a call would need 1.5 GiB, more than the kit's "
                                         r"limit of 1.0 GiB \(set SPECTRAL_KIT_MEMORY_LIMIT"):
        check_memory(1.5 * 2**30, "a call")
    monkeypatch.setenv("SPECTRAL_KIT_MEMORY_LIMIT", "4G")
    check_memory(3 * 2**30, "a call")
    monkeypatch.setenv("SPECTRAL_KIT_MEMORY_LIMIT", "1K")
    with pytest.raises(ValueError, match=r"limit of 1.0 KiB"):
        check_memory(2048, "a call")


@pytest.mark.parametrize("text", ["nan", "-1", "4X"])
def test_a_bad_limit_never_disables_the_guard(monkeypatch, text):
    monkeypatch.setenv("SPECTRAL_KIT_MEMORY_LIMIT", text)
    with pytest.raises(ValueError, match="SPECTRAL_KIT_MEMORY_LIMIT"):
        check_memory(1.0, "a call")
    with pytest.raises(ValueError, match="SPECTRAL_KIT_MEMORY_LIMIT"):
        check_data_size(10, 10, "n")


def test_guarded_calls_refuse_before_allocating(monkeypatch):
    from spectral_kit.stability import bootstrap_intervals

    monkeypatch.setenv("SPECTRAL_KIT_MEMORY_LIMIT", "1M")
    X = np.random.default_rng(0).standard_normal((50, 400))
    with pytest.raises(ValueError, match=r"bootstrap_intervals of X's 400 features .* would "
                                         r"need \d+\.\d MiB"):
        bootstrap_intervals(X, n_resamples=100)


@pytest.mark.slow
@pytest.mark.parametrize("name", list(CASES))
def test_estimate_is_within_one_and_a_half_of_the_measured_peak(name):
    rows = measure(name)
    assert len(rows) == 3
    for row in rows:
        assert row.estimate is not None, f"{name} passed no memory guard"
        assert row.peak > 2**20 * 8, f"{name} at {row.size}: peak too small to measure"
        assert 1 / 1.5 <= row.ratio <= 1.5, (
            f"{name} at size {row.size}: estimate {row.estimate / 2**20:.1f} MiB, measured "
            f"peak {row.peak / 2**20:.1f} MiB (ratio {row.ratio:.2f})"
        )
