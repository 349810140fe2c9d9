"""The machinery of the research appendices: stored full runs, recomputation on request.

Each appendix shows the stored result of ``spectral-kit reproduce`` for every reproduction
(instantly), and recomputes it when asked: ``RECOMPUTE = "quick"`` (the small versions, seconds
to a minute each) or ``"full"`` (the paper's settings, minutes) in the notebook, or the
environment variable ``SPECTRAL_KIT_RECOMPUTE`` set to the same words before the kernel starts
(the test suite sets ``quick``).
"""

from __future__ import annotations

import os

from IPython.display import display

from spectral_kit.reproduce import REGISTRY, load_reference
from spectral_kit.reproduce.reference import MissingReference

__all__ = ["RECOMPUTE_ENV", "latest", "recompute", "recompute_mode", "show"]

RECOMPUTE_ENV = "SPECTRAL_KIT_RECOMPUTE"
MODES = ("no", "quick", "full")


def recompute_mode() -> str:
    """``SPECTRAL_KIT_RECOMPUTE`` ("no", "quick" or "full"; unset or "0" is "no", "1" "quick")."""
    value = os.environ.get(RECOMPUTE_ENV, "no").strip().lower()
    value = {"": "no", "0": "no", "1": "quick"}.get(value, value)
    if value not in MODES:
        raise ValueError(f"{RECOMPUTE_ENV} must be one of {MODES}; got {value!r}.")
    return value


def show(key: str):
    """The stored full run of reproduction ``key`` (instant), or how to compute it if none is."""
    try:
        return load_reference(key)
    except MissingReference as exc:
        print(f"No stored full run here: {exc}")
        return None


def recompute(key: str, mode: str, **kwargs):
    """Run reproduction ``key`` again when ``mode`` is "quick" or "full", show it, return it.

    With ``mode="no"`` nothing runs and None is returned: the stored full run shown above is
    the result.
    """
    if mode not in MODES:
        raise ValueError(f"mode must be one of {MODES}; got {mode!r}.")
    if mode == "no":
        print('Not recomputed: set RECOMPUTE = "quick" (or "full") at the top and run again.')
        return None
    if key not in REGISTRY:
        print(f"This version of the kit has no reproduction {key!r}.")
        return None
    result = REGISTRY[key].func(quick=mode == "quick", **kwargs)
    # The text is the comparison table itself (no timings), so a rerun shows the same text.
    bundle = {"text/plain": str(result)}
    for mime, method in (("text/html", "_repr_html_"), ("text/markdown", "_repr_markdown_")):
        if hasattr(result, method):
            bundle[mime] = getattr(result, method)()
            break
    display(bundle, raw=True)
    return result


def latest(key: str, recomputed=None):
    """The run whose raw numbers a picture needs: the recomputed one, else the stored one.

    Stored results keep the comparison table, not always the raw numbers behind it; when
    neither run has them this says how to get them and returns None.
    """
    if recomputed is not None:
        return recomputed
    stored = show(key) if key in REGISTRY else None
    if stored is not None and stored.data:
        return stored
    print('The picture needs the raw numbers of a run: set RECOMPUTE = "quick" at the top.')
    return None
