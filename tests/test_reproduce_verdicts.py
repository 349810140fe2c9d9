"""Quick mode never flips a verdict: every quick reproduction against the stored full run.

A quick row either carries the stored full-mode verdict (it is computed exactly as the full
run computes it) or is "provisional (quick)"; it never shows a verdict of its own that the
full run contradicts. Its kind, quoted words, place and test are those of the stored row. The stored tables come from ``python -m spectral_kit.reproduce.reference``.
"""

from __future__ import annotations

import pytest

from spectral_kit.reproduce import REGISTRY, load_reference
from spectral_kit.reproduce.reference import reference_path

pytestmark = pytest.mark.slow

KEYS = [k for k in REGISTRY if not k.startswith("test/")]


def test_every_reproduction_has_a_stored_full_run():
    missing = [k for k in KEYS if not reference_path(k).exists()]
    assert not missing, (
        f"no stored full-mode result for {missing}; run "
        f"`python -m spectral_kit.reproduce.reference --only {' '.join(missing)}`"
    )


@pytest.mark.parametrize("key", KEYS)
def test_quick_verdicts_agree_with_the_stored_full_run(key):
    if not reference_path(key).exists():
        pytest.fail(f"no stored full-mode result for {key}")
    full = load_reference(key)
    try:
        quick = REGISTRY[key].func(quick=True)
    except OSError as exc:  # a real data set that is not reachable here
        pytest.skip(f"data unavailable: {exc}")
    stored = {c.quantity: c for c in full.comparisons}
    assert len(stored) == len(full.comparisons), "row names must be unique"
    for c in quick.comparisons:
        assert c.quantity in stored, f"quick row {c.quantity!r} is not a row of the full run"
        want = stored[c.quantity]
        # The code is the source of the rows' words: a stored table that quotes, places or
        # tests differently is stale.
        assert (c.kind, c.quote, c.source, c.test) == (
            want.kind, want.quote, want.source, want.test
        ), f"{c.quantity!r}: the stored row's words differ from the code's; regenerate {key}"
        if c.verdict == "provisional (quick)":
            assert c.leaning and want.verdict != "not published"
            continue
        if c.verdict == "not published":
            assert want.verdict == "not published", c.quantity
            continue
        assert c.final_in_quick, f"{c.quantity!r}: a quick verdict must be final or provisional"
        assert c.verdict == want.verdict, (
            f"{c.quantity!r}: quick says {c.verdict}, the full run says {want.verdict}"
        )
