"""Plot functions: each draws one idea onto a given Axes and returns its artists.

Widgets keep the returned artists and update them in place (``set_data``, ``set_height``,
...) instead of redrawing the figure. Topic modules in this package define the functions;
this package re-exports every name listed in their ``__all__``.

A topic module is imported when one of its names is first used: an explorer that draws
Q-α's bars does not load the stability or weighting modules (and the SciPy and
scikit-learn parts they need), which keeps a dashboard's kernel small and quick to start.
"""

from __future__ import annotations

import ast
import pkgutil
from pathlib import Path

from .._lazy import lazy_getattr


def _exported_names() -> dict[str, str]:
    """Each public name of the topic modules → its module, read from the modules' literal
    ``__all__`` without importing them."""
    names: dict[str, str] = {}
    for info in pkgutil.iter_modules(__path__):
        if info.name.startswith("_"):
            continue
        tree = ast.parse((Path(__file__).parent / f"{info.name}.py").read_text("utf-8"))
        for node in tree.body:
            targets = [node.target] if isinstance(node, ast.AnnAssign) else getattr(
                node, "targets", [])
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                for name in ast.literal_eval(node.value):
                    names[name] = f".{info.name}"
    return names


_NAMES = _exported_names()
__all__: list[str] = list(_NAMES)
__getattr__ = lazy_getattr(__name__, _NAMES)


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_NAMES))
