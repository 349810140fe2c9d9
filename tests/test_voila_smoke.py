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
