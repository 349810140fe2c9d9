"""Where the kit's notebooks are, for the command line and the notebook benchmark alike."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["notebooks_dir"]


def notebooks_dir(target: Path | None = None) -> Path:
    """Where the kit's notebooks are.

    In a source checkout (editable install) this is the repository's ``notebooks/``. From a
    wheel the notebooks ship inside the package; they are copied once to ``target`` (default
    ``./spectral_kit_notebooks``) so that students edit copies, never the installed files.
    """
    checkout = Path(__file__).resolve().parent.parent / "notebooks"
    if checkout.is_dir():
        return checkout
    packaged = Path(__file__).resolve().parent / "_notebooks"
    if not packaged.is_dir():
        raise FileNotFoundError("the kit's notebooks are not installed with this package")
    target = target or Path.cwd() / "spectral_kit_notebooks"
    if not target.exists():
        shutil.copytree(packaged, target)
    return target
