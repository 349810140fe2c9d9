"""Voilà renders the dashboard from the command line, with every explorer and no error.

Voilà executes the notebook on the server before it sends the page, so the HTML it returns
holds the cell outputs: a traceback there means the dashboard is broken, and one widget view
per explorer means it was built. The browser tests check that the widgets then respond.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DASHBOARD = ROOT / "notebooks" / "dashboard.ipynb"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_voila_renders_the_dashboard(tmp_path):
    port = _free_port()
    env = {**os.environ, "JUPYTER_CONFIG_DIR": str(tmp_path / "config"),
           "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"), "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "voila", str(DASHBOARD), "--no-browser", f"--port={port}",
           "--Voila.ip=127.0.0.1", "--show_tracebacks=True"]
    server = subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.STDOUT, text=True)
    try:
        html = None
        deadline = time.monotonic() + 240
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=200) as r:
                    html = r.read().decode("utf-8", "replace")
                break
            except OSError:
                time.sleep(1)
        assert html is not None, "Voilà did not answer:\n" + (server.stdout.read()
                                                              if server.poll() is not None
                                                              else "")
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()
    assert "Traceback" not in html, "a cell of the dashboard raised"
    assert "There was an error" not in html, "a cell of the dashboard raised"
    assert "spectral_kit.widgets import Dashboard" not in html, "Voilà shows the code"
    views = re.findall(r"application/vnd\.jupyter\.widget-view\+json", html)
    assert views, "the dashboard produced no widget"


def test_the_kits_jupyter_configuration_culls_and_saves_widget_state():
    import json

    from jupyter_core.paths import jupyter_config_path
    from traitlets.config.loader import JSONFileConfigLoader

    from spectral_kit.jupyter_config import CONFIG_DIR, environment

    for name in ("jupyter_server_config.json", "voila.json"):
        config = JSONFileConfigLoader(name, path=str(CONFIG_DIR)).load_config()
        culling = config.MappingKernelManager
        # a closed tab's kernel is gone within 30 s: idle limit plus one check
        assert culling.cull_idle_timeout + culling.cull_interval <= 30
        assert culling.cull_idle_timeout >= 10 and culling.cull_interval > 0
        # a kernel with an open tab is kept, however long the student reads; one left
        # alone without a tab is culled
        assert culling.cull_connected is False and culling.cull_busy is False
    overrides = json.loads((CONFIG_DIR / "labconfig" / "default_setting_overrides.json")
                           .read_text())
    assert overrides["@jupyter-widgets/jupyterlab-manager:plugin"]["saveState"] is True
    # the folder is found where Jupyter looks, after what the user already configured
    env = environment({"JUPYTER_CONFIG_PATH": "/somewhere"})
    assert env["JUPYTER_CONFIG_PATH"].split(os.pathsep) == ["/somewhere", str(CONFIG_DIR)]
    old = os.environ.get("JUPYTER_CONFIG_PATH")
    os.environ["JUPYTER_CONFIG_PATH"] = environment()["JUPYTER_CONFIG_PATH"]
    try:
        assert str(CONFIG_DIR) in jupyter_config_path()
    finally:
        if old is None:
            del os.environ["JUPYTER_CONFIG_PATH"]
        else:
            os.environ["JUPYTER_CONFIG_PATH"] = old


def test_binder_uses_the_kits_configuration():
    start = (ROOT / "binder" / "start").read_text()
    assert "spectral_kit.jupyter_config" in start and "JUPYTER_CONFIG_PATH" in start
    assert start.rstrip().endswith('exec "$@"')
    assert os.access(ROOT / "binder" / "start", os.X_OK)


def test_voilas_page_gets_the_token_its_closing_request_needs():
    """Closing a tab posts ``voila/api/shutdown`` with the ``_xsrf`` cookie: the kit's Voilà
    configuration sets that cookie on the dashboard's page, and tells the kernel which
    server started it."""
    from traitlets.config.loader import PyFileConfigLoader

    from spectral_kit.jupyter_config import CONFIG_DIR
    from spectral_kit.jupyter_config.voila_hooks import SERVER_ENV, prelaunch_hook

    config = PyFileConfigLoader("voila.py", path=str(CONFIG_DIR)).load_config()
    assert config.VoilaConfiguration.prelaunch_hook is prelaunch_hook
    from spectral_kit.jupyter_config import voila_hooks

    class Handler:  # what the hook uses of a Tornado request handler
        def __init__(self, settings):
            self.settings, self.reads = settings, 0

        @property
        def xsrf_token(self):
            self.reads += 1
            return b"token"

    old = os.environ.get(SERVER_ENV)
    try:
        for settings, server in (({"voila": object()}, "voila"),
                                 ({"serverapp": object()}, "jupyter")):
            handler = Handler(settings)
            assert voila_hooks.prelaunch_hook(handler, notebook=None, cwd=".") is None
            assert handler.reads == 1 and os.environ[SERVER_ENV] == server
    finally:
        if old is None:
            os.environ.pop(SERVER_ENV, None)
        else:
            os.environ[SERVER_ENV] = old
