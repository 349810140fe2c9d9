"""Names a package exports without importing their modules until first use (PEP 562)."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_getattr(package: str, names: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__`` that imports ``names[name]`` (a module relative to
    ``package``) when ``name`` is first asked for and returns its attribute ``name``.

    Keeps ``import spectral_kit`` light: matplotlib, ipywidgets and the papers' modules load
    only when their names are used.
    """

    def __getattr__(name: str) -> Any:
        if name in names:
            return getattr(importlib.import_module(names[name], package), name)
        raise AttributeError(f"module {package!r} has no attribute {name!r}")

    return __getattr__
