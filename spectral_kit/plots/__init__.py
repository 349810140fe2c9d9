"""Plot functions: each draws one idea onto a given Axes and returns its artists.

Widgets keep the returned artists and update them in place (``set_data``, ``set_height``,
...) instead of redrawing the figure. Topic modules in this package define the functions;
this package re-exports every name listed in their ``__all__``.
"""

from __future__ import annotations

import importlib
import pkgutil

__all__: list[str] = []

for _info in pkgutil.iter_modules(__path__):
    if _info.name.startswith("_"):
        continue
    _module = importlib.import_module(f"{__name__}.{_info.name}")
    for _name in getattr(_module, "__all__", ()):
        globals()[_name] = getattr(_module, _name)
        __all__.append(_name)
