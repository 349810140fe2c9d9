"""The kit's Jupyter configuration, shared by ``spectral-kit lab``, Binder and Voilà.

This folder is a Jupyter configuration directory: put it on ``JUPYTER_CONFIG_PATH`` (as
:func:`environment` does) and JupyterLab, Jupyter Server and Voilà read it below the user's
own configuration, which still wins.

* ``jupyter_server_config.json`` and ``voila.json``: kernels that have been idle with no
  browser connected for 20 s are shut down (checked every 5 s). A closed or abandoned
  tab -- a Voilà dashboard visit, a notebook closed in JupyterLab -- then frees its
  kernel's memory within 30 s, which a Binder session (1–2 GB) needs before a student's
  reload starts another kernel. A kernel with an open tab is never culled, however long the
  student reads. ``voila.json`` also turns on Voilà's progressive rendering: the page
  shows at once and each output as it comes.
* ``voila.py``: sets the ``_xsrf`` cookie on Voilà's page, so that closing the tab shuts
  its kernel down at once (:mod:`.voila_hooks`).
* both also let a browser message reach 256 MiB (tornado's default is 10 MiB): a file upload
  travels in one message, and a file larger than the page accepts must reach the kernel to be
  refused with a message -- over the transport limit the connection would drop instead.
* ``labconfig/default_setting_overrides.json``: JupyterLab saves the widgets' state in the
  notebook, so an explorer saved with its notebook shows its last picture when the notebook
  is reopened without a kernel (instead of "Error displaying widget: model not found"); and
  it never asks about "Jupyter news" (a pop-up that covers the explorers' legends).
* ``jupyter_server_config.json`` also runs :func:`spectral_kit.widgets.saved_pictures.
  pre_save_hook` before every save, so the next save of a reopened notebook (autosave,
  Ctrl-S), which writes an empty widget state, keeps the explorers' models or their PNGs; it
  and ``jupyter_nbconvert_config.json`` export each explorer to HTML as its PNG, which shows
  offline.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path

__all__ = ["CONFIG_DIR", "environment"]

#: This folder.
CONFIG_DIR = Path(__file__).resolve().parent


def environment(base: Mapping[str, str] | None = None) -> dict[str, str]:
    """``base`` (default: ``os.environ``) with :data:`CONFIG_DIR` added to
    ``JUPYTER_CONFIG_PATH`` (after the folders already there)."""
    env = dict(os.environ if base is None else base)
    paths = [p for p in env.get("JUPYTER_CONFIG_PATH", "").split(os.pathsep) if p]
    if str(CONFIG_DIR) not in paths:
        paths.append(str(CONFIG_DIR))
    env["JUPYTER_CONFIG_PATH"] = os.pathsep.join(paths)
    return env
