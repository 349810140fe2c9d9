"""What Voilà runs in its server process when a dashboard page is requested.

Closing a Voilà tab sends ``POST voila/api/shutdown/<kernel>`` (a ``beforeunload`` beacon)
with the ``_xsrf`` cookie's value as form field. Voilà's page never asks the server for
that token, so a browser that has not opened JupyterLab first has no such cookie, the
server refuses the request (``403 '_xsrf' argument missing``) and the kernel lives until it
is culled. Reading the handler's ``xsrf_token`` before the page streams makes Tornado set
the cookie on the page's own response.
"""

from __future__ import annotations

import os
from typing import Any

__all__ = ["SERVER_ENV", "prelaunch_hook"]

#: Told to the dashboard's kernel: ``"voila"`` (standalone Voilà) or ``"jupyter"`` (the
#: ``voila/render`` pages of a Jupyter server), which decides where its links point.
SERVER_ENV = "SPECTRAL_KIT_VOILA_SERVER"


def prelaunch_hook(handler: Any, notebook: Any = None, cwd: str | None = None) -> None:
    """Set the ``_xsrf`` cookie of the page being rendered and tell kernels which server
    started them; the notebook is left as it is (``None`` is returned)."""
    handler.xsrf_token  # noqa: B018 -- reading it sets the cookie (tornado.web)
    # Voilà builds a kernel's environment from this process' environment after the hook;
    # the value is the same for every request of a server, so the shared variable is safe.
    standalone = "serverapp" not in handler.settings
    os.environ[SERVER_ENV] = "voila" if standalone else "jupyter"
