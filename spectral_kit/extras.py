"""Optional extras a notebook needs, and what it does where they are missing.

Notebook 06 runs the kit on Dask arrays, a Zarr store and a Dask cluster: the ``scale``
extra, which Binder and ``kit.py lab`` do not install (a class session has 1-2 GB of memory).
Its first code cell calls :func:`needs`. Where the extra is installed, nothing happens. Where
it is missing, :func:`needs` prints one line saying so and how to install it, and every later
cell of the notebook shows the outputs stored with the kit's copy of the notebook instead of
running (and raising ``ModuleNotFoundError`` in each of them).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

__all__ = ["EXTRAS", "missing_modules", "needs"]

#: The modules each optional extra of ``pyproject.toml`` provides (import names).
EXTRAS: dict[str, tuple[str, ...]] = {
    "scale": ("dask.array", "distributed", "zarr"),
}


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be imported here (imported to find out)."""
    if extra not in EXTRAS:
        raise ValueError(f"extra must be one of {sorted(EXTRAS)}; got {extra!r}.")
    missing = []
    for module in EXTRAS[extra]:
        try:
            importlib.import_module(module)
        except ImportError:
            missing.append(module)
    return missing


def _stored_outputs(notebook: str) -> dict[str, list[dict]]:
    """Code-cell source → stored outputs, from the kit's copy of ``notebook``."""
    import json

    from .notebook_files import notebooks_dir

    try:
        path = notebooks_dir() / notebook
        cells = json.loads(Path(path).read_text(encoding="utf-8"))["cells"]
    except Exception:  # no stored copy: the cells are skipped without outputs
        return {}
    return {"".join(c["source"]).strip(): c.get("outputs", []) for c in cells
            if c.get("cell_type") == "code"}


_REPLAY: dict[str, list[dict]] = {}


def _replay(source: str) -> None:
    """Show the stored outputs of the cell whose source is ``source``."""
    from IPython.display import publish_display_data

    for output in _REPLAY.get(source.strip(), []):
        kind = output.get("output_type")
        if kind == "stream":
            stream = sys.stderr if output.get("name") == "stderr" else sys.stdout
            stream.write("".join(output.get("text", "")))
            stream.flush()
        elif kind in ("display_data", "execute_result"):
            data = {k: "".join(v) if isinstance(v, list) else v
                    for k, v in output.get("data", {}).items()}
            publish_display_data(data, output.get("metadata", {}))


def _replaying(lines: Iterable[str]) -> list[str]:
    """IPython input transformer: a cell becomes the replay of its stored outputs."""
    source = "".join(lines)
    return [f"__import__('spectral_kit.extras').extras._replay({source!r})\n"]


def needs(extra: str, notebook: str | None = None) -> None:
    """Say, in one line, when ``extra`` is not installed; then show stored outputs.

    Parameters
    ----------
    extra : str
        A key of :data:`EXTRAS` (``"scale"``).
    notebook : str, optional
        The file name of the calling notebook among the kit's notebooks. Where the extra is
        missing and this runs in IPython, every later cell shows that notebook's stored
        outputs instead of running (restart the kernel after installing the extra).
    """
    missing = missing_modules(extra)
    if not missing:
        return
    print(f"Not installed here: {', '.join(missing)} (pip install 'spectral-kit[{extra}]'); "
          "the cells below show the outputs stored with the notebook.")
    shell = _shell()
    if shell is None or notebook is None:
        return
    _REPLAY.clear()
    _REPLAY.update(_stored_outputs(notebook))
    # first of the clean-up transformers: it sees the cell as stored (magics included)
    if _replaying not in shell.input_transformers_cleanup:
        shell.input_transformers_cleanup.insert(0, _replaying)


def _shell() -> Any:
    try:
        from IPython import get_ipython
    except ImportError:
        return None
    return get_ipython()
