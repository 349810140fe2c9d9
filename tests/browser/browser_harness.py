"""The kit as a student meets it: JupyterLab and Voilà servers, a system Chromium, and the
checks a student would notice (tracebacks, red error areas, blank figures, dead sliders,
errors in the browser console).

Every check *collects* what went wrong into :class:`Findings` instead of stopping at the first
problem, so one failing notebook reports everything at once, and the test that shows the suite
catching a broken explorer can look at what was found.

Selectors, and why they hold across versions:

* ``.spectral-kit-explorer``, ``.spectral-kit-error``, ``.spectral-kit-dashboard`` — classes
  the kit itself puts on its boxes (``spectral_kit/widgets/base.py``, ``dashboard.py``).
* ``.jupyter-matplotlib-canvas-div`` — the element ipympl draws the figure into (a ``<canvas>``
  for the image and one above it for the zoom rectangle); the name has been stable since
  ipympl 0.5. Pictures are compared through the first ``<canvas>``'s own pixels
  (``toDataURL``), screenshots of the explorer boxes are saved for people.
* ``.jupyter-widgets-error-widget`` — the box ipywidgets 8 shows in place of a widget whose
  front end failed ("Click to show javascript error.").
* ``[role="slider"]`` — the ARIA role of a slider handle; ipywidgets 8 (noUiSlider) sets it,
  with ``aria-valuenow``/``aria-valuemin``/``aria-valuemax``, and moves it with the arrow keys.
* ``.jp-OutputArea-output > .jupyter-widgets`` — an output rendered by the widget manager
  holds the view's element, which ipywidgets (7 and 8) marks ``jupyter-widgets``; without the
  manager the output shows its picture or text fallback instead.
* ``.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.stderr"]`` — how Voilà
  (which reuses JupyterLab's output area) marks a traceback or other stderr output.
* ``window.jupyterapp`` — JupyterLab's application object, exposed by the documented
  ``LabApp.expose_app_in_browser`` option (the one JupyterLab's own UI tests use); the notebook
  is run through the stable command id ``notebook:run-all-cells`` and read through the cell
  models (outputs as nbformat JSON), not through rendered HTML.
"""

from __future__ import annotations

import base64
import contextlib
import io
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
from PIL import Image

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOKS = ROOT / "notebooks"

#: Front ends the explorers need, by lab extension name → the Python package that ships it.
REQUIRED_EXTENSIONS = {
    "@jupyter-widgets/jupyterlab-manager": "jupyterlab_widgets (the ipywidgets front end)",
    "jupyter-matplotlib": "ipympl (the matplotlib widget canvas)",
}

#: Chromium flags for a headless run as root on a machine without network: no sandbox (root),
#: no GPU, and none of the background fetches (QUIC, component updates, sync) that fail and
#: retry on a closed network. Playwright adds a fresh temporary ``--user-data-dir`` itself.
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

#: Console errors that are not the kit's, as (pattern, why it is harmless). Everything else
#: logged at the ``error`` level, and every uncaught exception on the page, fails the test.
#: Failed fetches of resources outside the test server are ignored separately (see
#: :class:`ConsoleLog`). ipympl's "Error setting state: Failed to execute 'drawImage' ...
#: 'broken' state" is deliberately *not* listed: it means the canvas never got its size and
#: the figure stays blank.
BENIGN_CONSOLE: list[tuple[re.Pattern, str]] = [
    (re.compile(r"Could not restore the debugger state: Canceled future for debug_request"),
     "JupyterLab's debugger asks a kernel for its state as the kernel is restarted or shut "
     "down; the request is dropped with the old kernel and nothing is shown to the student"),
]

#: The screen the checks use: a classroom laptop or projector, 1280 px wide.
VIEWPORT_WIDTH = 1280

#: Seconds to wait for the slow steps on a loaded two-core machine.
SERVER_TIMEOUT = 180.0
RUN_TIMEOUT = 420.0
CANVAS_TIMEOUT = 60.0
#: Seconds a picture must stay unchanged to count as the explorer's settled picture.
SETTLE_QUIET = 1.5
#: Share of the canvas pixels allowed to differ when a slider returns to its first value.
ROUND_TRIP_TOLERANCE = 0.002


# -- the browser -------------------------------------------------------------------------------
def chromium_executable() -> str | None:
    """The system Chromium: ``SPECTRAL_KIT_CHROMIUM``, else ``chromium`` on the PATH."""
    configured = os.environ.get("SPECTRAL_KIT_CHROMIUM")
    if configured:
        return configured if Path(configured).exists() else None
    for name in ("chromium", "chromium-browser"):
        found = shutil.which(name)
        if found:
            return found
    return None


def screenshot_dir() -> Path:
    """Where screenshots go (``artifacts/screenshots`` unless ``SPECTRAL_KIT_SCREENSHOTS``)."""
    configured = os.environ.get("SPECTRAL_KIT_SCREENSHOTS")
    path = Path(configured) if configured else ROOT / "artifacts" / "screenshots"
    path.mkdir(parents=True, exist_ok=True)
    return path


# -- servers ------------------------------------------------------------------------------------
def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _write_json(path: Path, content: dict) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(content, indent=1))


def throwaway_environment(home: Path) -> dict[str, str]:
    """The environment of a test server: Jupyter config, runtime, data and lab settings in
    ``home`` (so no user or machine configuration leaks in), the kit's own packages and lab
    extensions still found through the virtual environment's prefix."""
    env = {k: v for k, v in os.environ.items()
           # the test runner's headless backend and static-explorer switch must not reach
           # the kernel: a student's notebook gets neither
           if k not in ("MPLBACKEND", "SPECTRAL_KIT_STATIC_WIDGETS", "JUPYTER_TOKEN")}
    config = home / "config"
    env.update(
        JUPYTER_CONFIG_DIR=str(config),
        JUPYTER_RUNTIME_DIR=str(home / "runtime"),
        JUPYTER_DATA_DIR=str(home / "data"),
        JUPYTERLAB_SETTINGS_DIR=str(home / "lab-settings"),
        JUPYTERLAB_WORKSPACES_DIR=str(home / "lab-workspaces"),
        IPYTHONDIR=str(home / "ipython"),
        JUPYTER_PLATFORM_DIRS="0",
        PYDEVD_DISABLE_FILE_VALIDATION="1",
    )
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    # The kit's own Jupyter configuration, as `spectral-kit lab` and Binder use it (kernel
    # culling, widget state saved with notebooks).
    from spectral_kit.jupyter_config import environment

    env = environment(env)
    settings = home / "lab-settings"
    # No news or update checks (they call out to the internet), no autosave of the copies.
    _write_json(settings / "@jupyterlab" / "apputils-extension" /
                "notification.jupyterlab-settings",
                {"fetchNews": "false", "checkForUpdates": False})
    _write_json(settings / "@jupyterlab" / "docmanager-extension" / "plugin.jupyterlab-settings",
                {"autosave": False})
    return env


@dataclass
class Server:
    """A JupyterLab or Voilà process serving on 127.0.0.1."""

    kind: str
    url: str
    process: subprocess.Popen
    log: Path
    home: Path
    root: Path | None = None
    #: Kernels :meth:`shutdown_kernels` shut down (a late socket to one is not the kit's error).
    shut_down: set[str] = field(default_factory=set)

    def log_text(self, start: int = 0) -> str:
        return self.log.read_bytes()[start:].decode("utf-8", "replace")

    def log_size(self) -> int:
        return self.log.stat().st_size

    def get(self, path: str, timeout: float = 10.0) -> bytes:
        with urllib.request.urlopen(self.url + path, timeout=timeout) as response:
            return response.read()

    def shutdown_kernels(self) -> None:
        """Stop every kernel of a JupyterLab server (a finished notebook's kernel keeps its
        explorers' memory and may keep refining them)."""
        try:
            sessions = json.loads(self.get("/api/sessions"))
        except (OSError, ValueError):
            return
        for session in sessions:
            kernel = session.get("kernel") or {}
            if kernel.get("id"):
                self.shut_down.add(kernel["id"])
            request = urllib.request.Request(f"{self.url}/api/sessions/{session['id']}",
                                             method="DELETE")
            with contextlib.suppress(OSError):
                urllib.request.urlopen(request, timeout=30).close()

    def stop(self) -> None:
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        shutil.rmtree(self.home, ignore_errors=True)


def _start(kind: str, command_for_port, cwd: Path, home: Path, ready_path: str) -> Server:
    env = throwaway_environment(home)
    log = home / f"{kind}.log"
    last_error = ""
    # Up to three starts: another process may take the free port before the server binds it.
    for _attempt in range(3):
        port = _free_port()
        with open(log, "ab") as sink:
            process = subprocess.Popen(command_for_port(port), cwd=cwd, env=env, stdout=sink,
                                       stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        server = Server(kind, f"http://127.0.0.1:{port}", process, log, home)
        deadline = time.monotonic() + SERVER_TIMEOUT
        while time.monotonic() < deadline and process.poll() is None:
            try:
                server.get(ready_path, timeout=5)
            except (OSError, urllib.error.HTTPError):
                time.sleep(0.3)
                continue
            time.sleep(0.5)  # the answer came from this server, not one that had the port
            if process.poll() is None:
                return server
        if process.poll() is None:
            process.kill()
            process.wait()
            last_error = f"{kind} did not answer within {SERVER_TIMEOUT:.0f} s"
            break
        last_error = f"{kind} exited with status {process.returncode}"
    tail = log.read_text(errors="replace")[-4000:] if log.exists() else ""
    shutil.rmtree(home, ignore_errors=True)
    raise RuntimeError(f"{last_error}; its log ends with:\n{tail}")


def start_lab(root: Path) -> Server:
    """JupyterLab on a free port of 127.0.0.1 serving ``root``, without token or password,
    allowed to run as root (CI), with ``window.jupyterapp`` exposed for the tests."""
    home = Path(tempfile.mkdtemp(prefix="spectral-kit-lab-"))
    _write_json(home / "config" / "jupyter_server_config.json", {
        "IdentityProvider": {"token": ""},
        "ServerApp": {"password": "", "open_browser": False, "allow_root": True,
                      "root_dir": str(root), "port_retries": 0},
        "LabApp": {"expose_app_in_browser": True, "news_url": None,
                   "check_for_updates_class": "jupyterlab.NeverCheckForUpdate"},
        "LanguageServerManager": {"autodetect": False},
        # Kernels talk over Unix sockets: with TCP, the kernels of parallel test processes
        # race for the same free ports ("Address already in use" in a heartbeat thread).
        "KernelManager": {"transport": "ipc"},
    })

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
                f"--port={port}", "--allow-root"]

    server = _start("jupyterlab", command, root, home, "/api/status")
    server.root = root
    return server


def start_voila(notebook: Path, extra: Iterable[str] = ()) -> Server:
    """Voilà serving one notebook on a free port of 127.0.0.1 (no token), with tracebacks
    shown so that a failing cell says why; ``extra`` command-line options are added."""
    home = Path(tempfile.mkdtemp(prefix="spectral-kit-voila-"))

    def command(port: int) -> list[str]:
        return [sys.executable, "-m", "voila", str(notebook), "--no-browser",
                "--Voila.ip=127.0.0.1", f"--port={port}", "--Voila.port_retries=0",
                "--show_tracebacks=True", "--KernelManager.transport=ipc", *extra]

    # Ready when it serves the widget manager's front end (rendering "/" would run the
    # notebook once more just to find out).
    return _start("voila", command, notebook.parent, home,
                  "/voila/labextensions/@jupyter-widgets/jupyterlab-manager/package.json")


def page_config(html: str) -> dict:
    """The ``jupyter-config-data`` JSON that JupyterLab and Voilà pages start from."""
    match = re.search(r'<script id="jupyter-config-data" type="application/json">(.*?)</script>',
                      html, re.S)
    return json.loads(match.group(1)) if match else {}


def missing_extensions(config: dict) -> list[str]:
    """Required lab extensions absent from (or disabled in) a page's configuration."""
    loaded = {ext.get("name") for ext in config.get("federated_extensions", [])}
    disabled = config.get("disabledExtensions", [])
    disabled = set(disabled.keys() if isinstance(disabled, dict) else disabled)
    return [f"{name} (from {package})" for name, package in REQUIRED_EXTENSIONS.items()
            if name not in loaded or name in disabled]


def installed_extensions_problem() -> str | None:
    """Ask ``jupyter labextension list`` (in a throw-away configuration) whether the required
    front ends are installed and enabled; ``None`` when they are, else the message to show."""
    home = Path(tempfile.mkdtemp(prefix="spectral-kit-ext-"))
    try:
        done = subprocess.run([sys.executable, "-m", "jupyter", "labextension", "list"],
                              capture_output=True, text=True, timeout=180,
                              env=throwaway_environment(home))
    finally:
        shutil.rmtree(home, ignore_errors=True)
    listing = re.sub(r"\x1b\[[0-9;]*m", "", done.stdout + done.stderr)
    absent = []
    for name, package in REQUIRED_EXTENSIONS.items():
        line = next((ln for ln in listing.splitlines() if ln.strip().startswith(name + " ")), "")
        if "enabled" not in line or "OK" not in line:
            absent.append(f"{name} (from {package}): {line.strip() or 'not installed'}")
    if not absent:
        return None
    return ("The JupyterLab front ends the explorers need are missing or disabled, so every "
            "explorer would show as a static picture or as text:\n  " + "\n  ".join(absent) +
            "\nReinstall the kit's environment (python3 kit.py test rebuilds .venv from "
            "binder/requirements.txt), or `pip install jupyterlab_widgets ipympl` at the pinned "
            "versions.\n`jupyter labextension list` said:\n" + listing)


def _clip(text: str, limit: int = 600) -> str:
    """Messages can hold whole images as data URLs: keep the start and the end."""
    return text if len(text) <= limit else f"{text[:limit - 100]} … {text[-90:]}"


# -- what the browser shows ---------------------------------------------------------------------
@dataclass
class ConsoleLog:
    """Console messages and uncaught page errors of one page."""

    base_url: str
    problems: list[str] = field(default_factory=list)
    ignored: list[str] = field(default_factory=list)

    def attach(self, page) -> ConsoleLog:
        page.on("console", self._on_console)
        page.on("pageerror",
                lambda error: self.problems.append(_clip(f"uncaught error: {error}")))
        return self

    def _on_console(self, message) -> None:
        if message.type != "error":
            return
        text = message.text
        url = (message.location or {}).get("url", "")
        for pattern, _why in BENIGN_CONSOLE:
            if pattern.search(text):
                self.ignored.append(text)
                return
        if text.startswith("Failed to load resource") and url and not url.startswith(
                self.base_url):
            # this closed network answers every outside fetch (web fonts, CDNs) with an
            # error; what the kit needs is served by the test server, whose failures count
            self.ignored.append(_clip(f"{text} ({url})"))
            return
        self.problems.append(_clip(f"console error: {text}" + (f" (at {url})" if url else "")))


@dataclass
class SliderMove:
    explorer: int
    label: str
    before: str
    after: str
    changed_pixels: int
    seconds: float


@dataclass
class Findings:
    """Everything a check saw go wrong, by kind."""

    what: str
    cells: list[str] = field(default_factory=list)
    widgets: list[str] = field(default_factory=list)
    explorers: list[str] = field(default_factory=list)
    console: list[str] = field(default_factory=list)
    server: list[str] = field(default_factory=list)
    code: list[str] = field(default_factory=list)
    explorer_count: int = 0
    moves: list[SliderMove] = field(default_factory=list)
    ignored_console: list[str] = field(default_factory=list)
    screenshots: list[Path] = field(default_factory=list)
    seconds: dict[str, float] = field(default_factory=dict)
    #: The server's log lines on its kernels' lives during the check (started, restarted,
    #: died, culled, shut down), shown with the problems: why a kernel went away.
    kernel_log: list[str] = field(default_factory=list)

    def problems(self) -> list[str]:
        return [*self.cells, *self.widgets, *self.explorers, *self.console, *self.server,
                *self.code]

    def summary(self) -> str:
        lines = [f"{self.what}: {self.explorer_count} explorer(s)"]
        if self.seconds:
            lines.append("  seconds: " + ", ".join(f"{k} {v:.1f}" for k, v in
                                                    self.seconds.items()))
        lines += [f"  explorer {m.explorer} slider {m.label!r} {m.before} → {m.after}: "
                  f"{m.changed_pixels} canvas pixels changed after {m.seconds:.1f} s"
                  for m in self.moves]
        lines += [f"  ignored console message: {m}" for m in self.ignored_console]
        if self.screenshots:
            lines.append(f"  screenshots in {self.screenshots[0].parent}")
        if self.problems() and self.kernel_log:
            lines.append("  the server's kernels meanwhile:")
            lines += [f"    {line}" for line in self.kernel_log]
        return "\n".join(lines)


def assert_clean(findings: Findings) -> None:
    """Fail with every problem found, one per line."""
    problems = findings.problems()
    if problems:
        details = "\n".join(f"- {p}" for p in problems)
        raise AssertionError(f"{findings.what}: {len(problems)} problem(s) a student would "
                             f"see:\n{details}\n{findings.summary()}")


def _png(data: bytes) -> np.ndarray:
    """RGB pixels of a PNG as the page shows them: transparent parts over white."""
    image = Image.open(io.BytesIO(data)).convert("RGBA")
    white = Image.new("RGBA", image.size, (255, 255, 255, 255))
    return np.asarray(Image.alpha_composite(white, image).convert("RGB"), dtype=np.int16)


def changed_pixels(before: bytes, after: bytes) -> int:
    """How many pixels differ between two screenshots (all of them when the size changed)."""
    a, b = _png(before), _png(after)
    if a.shape != b.shape:
        return max(a.shape[0] * a.shape[1], b.shape[0] * b.shape[1])
    return int(np.any(a != b, axis=-1).sum())


def looks_drawn(data: bytes) -> bool:
    """Whether a canvas screenshot holds a picture: not one flat colour, and at least 0.5 % of
    the pixels differ from the most common (background) colour."""
    pixels = _png(data).reshape(-1, 3)
    if pixels.shape[0] == 0:
        return False
    colours, counts = np.unique(pixels, axis=0, return_counts=True)
    return len(colours) >= 3 and 1 - counts.max() / pixels.shape[0] >= 0.005


def _shot(canvas_div) -> bytes:
    """The picture ipympl shows: the pixels of its image ``<canvas>`` (the first of the two
    in the canvas element; the second only holds the zoom rectangle), as PNG bytes. Reading
    the bitmap rather than screenshotting the element keeps the comparison free of scroll
    offsets, focus rings and anything drawn over the figure."""
    url = canvas_div.evaluate("(div) => div.querySelector('canvas').toDataURL('image/png')")
    return base64.b64decode(url.split(",", 1)[1])


def canvas_size(canvas, timeout: float) -> tuple[float, float] | None:
    """The canvas element's size once ipympl has sized it (it is 0 × 0 until the first
    frame and the figure size arrive), or ``None`` after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        box = canvas.bounding_box()
        if box and box["width"] >= 10 and box["height"] >= 10:
            return box["width"], box["height"]
        if time.monotonic() > deadline:
            return None
        time.sleep(0.3)


def _refining(explorer) -> bool:
    """Whether the explorer says its picture is still being refined (its status line carries
    ``spectral-kit-refining`` until the last refinement step is drawn)."""
    return explorer is not None and explorer.locator(".spectral-kit-refining").count() > 0


def settled_canvas(canvas, timeout: float, quiet: float = SETTLE_QUIET,
                   interval: float = 0.5, explorer=None) -> tuple[bytes | None, str]:
    """Wait until the canvas shows a picture that stays the same for ``quiet`` seconds
    and, given the ``explorer``, until it no longer says it is refining (its steps can pause
    for longer than ``quiet`` on a loaded machine with other explorers refining beside it).
    Returns the picture, or ``None`` and why not."""
    deadline = time.monotonic() + timeout
    previous, since = None, time.monotonic()
    while time.monotonic() < deadline:
        current = _shot(canvas)
        now = time.monotonic()
        if current != previous or not looks_drawn(current) or _refining(explorer):
            previous, since = current, now
        elif now - since >= quiet:
            return current, ""
        time.sleep(interval)
    if previous is None or not looks_drawn(previous):
        return None, f"the canvas stayed blank for {timeout:.0f} s"
    return None, f"the canvas kept changing for {timeout:.0f} s"


_SLIDER_STATE = """(handle) => ({
    now: handle.getAttribute('aria-valuenow'),
    min: handle.getAttribute('aria-valuemin'),
    max: handle.getAttribute('aria-valuemax'),
    label: (handle.closest('.widget-slider')?.querySelector('.widget-label')?.textContent
            || '').trim(),
})"""


def _visible_error(explorer) -> str | None:
    area = explorer.locator(".spectral-kit-error")
    for i in range(area.count()):
        if area.nth(i).is_visible():
            return area.nth(i).inner_text().strip() or "(empty error area)"
    return None


def check_explorers(page, findings: Findings, prefix: str, keys: int = 3) -> None:
    """For each explorer on the page: no red error area, an ipympl canvas with a picture, its
    first slider moved with the keyboard changes that picture without an error, and moved
    back it brings the first picture back. Screenshots of each explorer before, after and
    back go to :func:`screenshot_dir`."""
    explorers = page.locator(".spectral-kit-explorer")
    findings.explorer_count = explorers.count()
    for i in range(findings.explorer_count):
        start = time.monotonic()
        _check_explorer(page, explorers.nth(i), i + 1, findings, prefix, keys)
        findings.seconds[f"explorer {i + 1}"] = time.monotonic() - start


# Parts of an explorer (controls, figure) that stick out of the page or of the notebook's
# panel (JupyterLab with its file browser open leaves the notebook about 950 px).
_OVERFLOW = """(explorer) => {
    const panel = explorer.closest('.jp-Notebook');
    const right = Math.min(window.innerWidth,
                           panel ? panel.getBoundingClientRect().right : window.innerWidth);
    const parts = [explorer.querySelector('.jupyter-matplotlib-canvas-div'),
                   explorer.querySelector('.widget-hbox')];
    return parts.filter((el) => el && el.getBoundingClientRect().right > right + 1)
        .map((el) => `${el.className.split(' ')[0]} ends at ` +
             `${Math.round(el.getBoundingClientRect().right)} px, the page at ` +
             `${Math.round(right)} px`).join('; ');
}"""


def _check_explorer(page, explorer, number: int, findings: Findings, prefix: str,
                    keys: int) -> None:
    def report(text: str) -> None:
        findings.explorers.append(f"explorer {number}: {text}")

    def save(stage: str) -> None:
        findings.screenshots.append(_save(explorer, f"{prefix}-explorer{number}-{stage}.png"))

    explorer.scroll_into_view_if_needed(timeout=60_000)
    overflow = explorer.evaluate(_OVERFLOW)
    if overflow:
        report(f"does not fit a {VIEWPORT_WIDTH} px screen: {overflow}")
    error = _visible_error(explorer)
    if error:
        report(f"shows an error before any slider moved: {error}")
    # The picture: the slider is still moved when it is missing, since an update can fail
    # on its own.
    canvases = explorer.locator(".jupyter-matplotlib-canvas-div")
    canvas, before = (canvases.first if canvases.count() else None), None
    if canvas is None:
        report("has no ipympl canvas (the jupyter-matplotlib front end did not render it)")
    elif not canvas_size(canvas, CANVAS_TIMEOUT / 2):
        report(f"the ipympl canvas stayed empty (0 × 0 px) for {CANVAS_TIMEOUT / 2:.0f} s: "
               "the figure never reached the page")
    else:
        before, why = settled_canvas(canvas, CANVAS_TIMEOUT, explorer=explorer)
        if before is None:
            report(why)
    save("before")

    handles = explorer.locator('[role="slider"]')
    if handles.count() == 0:
        report("has no slider")
        return
    handle = handles.first
    state = handle.evaluate(_SLIDER_STATE)
    label = state["label"] or "1"
    key = "ArrowLeft" if state["now"] == state["max"] else "ArrowRight"
    start = time.monotonic()
    if not _press(page, handle, key, keys, state["now"]):
        report(f"slider {label!r} did not move with {key} (value stayed {state['now']})")
        return
    moved = handle.evaluate(_SLIDER_STATE)["now"]
    move = f"slider {label!r} {state['now']} → {moved}"
    if before is not None:
        _wait_for_change(canvas, explorer, before)
    else:
        page.wait_for_timeout(3000)  # time for a failing update to show its error
    seconds = time.monotonic() - start
    # What counts is the picture the explorer settles on, not a frame on the way there.
    after = (settled_canvas(canvas, CANVAS_TIMEOUT / 2, explorer=explorer)[0]
             if before is not None else None)
    error = _visible_error(explorer)
    save("after")
    if error:
        report(f"after moving {move} it shows an error: {error}")
        return
    if before is None:
        return
    changed = changed_pixels(before, after if after is not None else _shot(canvas))
    if not changed:
        report(f"moving {move} left the picture unchanged ({seconds:.0f} s)")
        return
    findings.moves.append(SliderMove(number, label, state["now"], moved, changed, seconds))

    # Back to the first value: the explorers are deterministic (fixed seeds, caches), so the
    # first picture must come back. It does not when the first picture was incomplete (e.g.
    # artists missing until the first slider move).
    back_key = "ArrowRight" if key == "ArrowLeft" else "ArrowLeft"
    if not _press(page, handle, back_key, keys, moved) or (
            handle.evaluate(_SLIDER_STATE)["now"] != state["now"]):
        report(f"slider {label!r} did not return to {state['now']} with {back_key}")
        return
    if after is not None:
        _wait_for_change(canvas, explorer, after)
    back, why = settled_canvas(canvas, CANVAS_TIMEOUT / 2, explorer=explorer)
    save("back")
    error = _visible_error(explorer)
    if error:
        report(f"after moving slider {label!r} back to {state['now']} it shows an error: "
               f"{error}")
    elif back is None:
        report(f"slider {label!r} back at {state['now']}: {why}")
    else:
        differ = changed_pixels(before, back)
        total = _png(before).shape[0] * _png(before).shape[1]
        if differ > ROUND_TRIP_TOLERANCE * total:
            report(f"slider {label!r} back at {state['now']} shows another picture than at "
                   f"first ({differ} of {total} px differ): the first picture was "
                   f"incomplete or the explorer is not deterministic (compare "
                   f"{prefix}-explorer{number}-before.png with -back.png)")


def _press(page, handle, key: str, times: int, start_value: str) -> bool:
    """Focus a slider handle and press ``key`` ``times`` times; whether its value moved."""
    handle.focus()
    for _ in range(times):
        page.keyboard.press(key)
        page.wait_for_timeout(120)
    return handle.evaluate(_SLIDER_STATE)["now"] != start_value


def _save(locator, name: str) -> Path:
    path = screenshot_dir() / name
    locator.screenshot(path=str(path), animations="disabled", caret="hide")
    return path


def _wait_for_change(canvas, explorer, reference: bytes) -> int:
    """Pixels changed once the canvas differs from ``reference`` (0 if it never does within
    the timeout, or if the explorer shows an error first)."""
    deadline = time.monotonic() + CANVAS_TIMEOUT
    while time.monotonic() < deadline:
        changed = changed_pixels(reference, _shot(canvas))
        if changed or _visible_error(explorer):
            return changed
        time.sleep(0.25)
    return 0


def _kernel_list_race(block: str) -> bool:
    """Whether a server log block belongs to a race inside jupyter_server, not the kit's:
    JupyterLab polls ``GET /api/kernels`` while a kernel is starting, the server lists that
    kernel before it has set its ``last_activity``, and that one poll answers 500 (the next
    poll succeeds; nothing shows on the page). The server logs the traceback, the request's
    headers and the 500 line as three blocks."""
    if "Traceback (most recent call last)" in block:
        return "list_kernels" in block and "'last_activity'" in block
    return bool(re.search(r"\b500 GET /api/kernels\?", block)) or (
        bool(re.match(r"\[E [^\]]*\] \{", block)) and '"Host"' in block)


def _shut_down_kernel_socket(block: str, shut_down: set[str]) -> str | None:
    """The id of a kernel this harness shut down (:meth:`Server.shutdown_kernels`, after an
    earlier check) if ``block`` is the server's refusal of a websocket to it: the server
    waits a minute for that kernel to come alive, then logs the timeout, the request's
    headers and the 500 line as three blocks (no student's kernel is involved)."""
    found = re.search(r"/api/kernels/([0-9a-f-]{36})/channels", block)
    if found and found.group(1) in shut_down and (
            "Kernel never reached an 'alive' state" in block
            or re.search(r"\b500 GET /api/kernels/[0-9a-f-]{36}/channels", block)):
        return found.group(1)
    return None


def check_server_log(server: Server, start: int, findings: Findings) -> bool:
    """Tracebacks the kernel or server printed while the page was checked (an exception in a
    widget callback that never reaches the page ends up there); whether the log shows the
    server's kernel-list race (:func:`_kernel_list_race`), which is recorded as ignored."""
    text = server.log_text(start)
    race = False
    refused = None
    for block in re.split(r"\n(?=\[[A-Z] |\[IPKernelApp\])", text):
        if "Traceback (most recent call last)" in block or re.match(r"\[E ", block):
            kernel = _shut_down_kernel_socket(block, server.shut_down)
            headers = bool(re.match(r"\[E [^\]]*\] \{", block)) and '"Host"' in block
            if kernel or (refused and headers):
                refused = kernel or refused
                findings.ignored_console.append(
                    f"{server.kind} log (a socket to kernel {refused}, shut down by the "
                    f"harness after an earlier check): {block.strip().splitlines()[0][:200]}")
                continue
            refused = None
            if _kernel_list_race(block) and (race or "Traceback" in block):
                race = True
                findings.ignored_console.append(
                    f"{server.kind} log (jupyter_server's kernel-list race): "
                    f"{block.strip().splitlines()[0][:200]}")
                continue
            findings.server.append(f"{server.kind} log: {block.strip()[:1500]}")
    return race


def _new_page(browser, height: int, scale: float = 1):
    """A fresh browser context (no cookies, storage or cache from other tests) and page,
    :data:`VIEWPORT_WIDTH` wide; ``scale`` is the screen's device pixel ratio."""
    context = browser.new_context(viewport={"width": VIEWPORT_WIDTH, "height": height},
                                  device_scale_factor=scale)
    context.set_default_timeout(60_000)
    return context, context.new_page()


# -- JupyterLab -----------------------------------------------------------------------------
_PANEL = """(path) => {
    const app = window.jupyterapp;
    if (!app || !app.shell) return null;
    for (const widget of app.shell.widgets('main')) {
        if (widget.context && widget.context.path === path && widget.sessionContext) {
            return widget;
        }
    }
    return null;
}"""

_START_RUN_ALL = f"""async (path) => {{
    const panel = ({_PANEL})(path);
    const app = window.jupyterapp;
    app.shell.activateById(panel.id);
    await panel.context.ready;
    await panel.sessionContext.ready;
    window.__spectralKitRun = {{done: false, ok: null, error: null}};
    app.commands.execute('notebook:run-all-cells').then(
        (ok) => {{ window.__spectralKitRun.ok = ok; window.__spectralKitRun.done = true; }},
        (err) => {{ window.__spectralKitRun.error = String(err);
                    window.__spectralKitRun.done = true; }});
}}"""

_KERNEL_IDLE = f"""(path) => {{
    const panel = ({_PANEL})(path);
    const kernel = panel && panel.sessionContext.session && panel.sessionContext.session.kernel;
    return !!kernel && kernel.status === 'idle';
}}"""

_CELLS = f"""(path) => {{
    const panel = ({_PANEL})(path);
    return panel.content.widgets.map((cell, index) => {{
        const model = cell.model;
        if (model.type !== 'code') return null;
        const source = model.sharedModel ? model.sharedModel.getSource() : model.value.text;
        const outputs = model.outputs.toJSON().map((o) => ({{
            type: o.output_type, name: o.name || null, ename: o.ename || null,
            evalue: o.evalue || null,
            text: Array.isArray(o.text) ? o.text.join('') : (o.text || ''),
            traceback: (o.traceback || []).join('\\n'),
            mimes: Object.keys(o.data || {{}}),
        }}));
        return {{index, count: model.executionCount, source: source.slice(0, 120), outputs}};
    }}).filter((cell) => cell !== null);
}}"""

_RENDERED_WIDGETS = """() => document.querySelectorAll(
    '.jp-OutputArea-output > .jupyter-widgets').length"""

_ANSI = re.compile(r"\x1b\[[0-9;]*m")


def _widget_errors(page) -> list[str]:
    """Widget views that failed to render. ipywidgets 8 puts an error view in their place
    (class ``jupyter-widgets-error-widget``, "Click to show javascript error."); older
    versions wrote "Error displaying widget"."""
    broken = page.locator(".jupyter-widgets-error-widget").count()
    found = [f"{broken} widget(s) failed to render (ipywidgets shows its error box in their "
             "place)"] if broken else []
    # textContent, not innerText: cells scrolled out of view are not rendered
    texts = page.evaluate("() => Array.from(document.querySelectorAll('.jp-OutputArea-output'))"
                          ".map((el) => el.textContent)")
    for text in texts:
        for marker in ("Error displaying widget", "Error rendering widget"):
            if marker in text:
                found.append(f"a widget did not render: {text.strip()[:300]}")
                break
    return found


def open_and_run(page, server: Server, name: str, findings: Findings) -> bool:
    """Open ``name`` in JupyterLab, run all cells, wait until the kernel is idle, and record
    error outputs and cells that did not run. False when the notebook could not be run."""
    page.goto(lab_url(server, name), timeout=120_000)
    page.wait_for_function(f"(path) => !!({_PANEL})(path)", arg=name, timeout=120_000)
    page.evaluate(_START_RUN_ALL, name)
    try:
        page.wait_for_function("() => window.__spectralKitRun.done",
                               timeout=RUN_TIMEOUT * 1000, polling=500)
    except Exception:
        findings.cells.append(f"running all cells did not finish within {RUN_TIMEOUT:.0f} s")
        return False
    run = page.evaluate("() => window.__spectralKitRun")
    if run["error"]:
        findings.cells.append(f"run all cells failed: {run['error']}")
    page.wait_for_function(_KERNEL_IDLE, arg=name, timeout=120_000, polling=250)
    cells = page.evaluate(_CELLS, name)
    widget_outputs = 0
    for cell in cells:
        where = f"cell {cell['index'] + 1} ({cell['source'].splitlines()[0][:60] if cell['source'] else ''!r})"
        if cell["source"].strip() and cell["count"] is None:
            findings.cells.append(f"{where} did not run")
        for output in cell["outputs"]:
            if output["type"] == "error":
                trace = _ANSI.sub("", output["traceback"])[-1500:]
                findings.cells.append(f"{where} raised {output['ename']}: {output['evalue']}"
                                      f"\n{trace}")
            elif output["type"] == "stream" and "Traceback (most recent call last)" in (
                    output["text"]):
                findings.cells.append(f"{where} printed a traceback:\n{output['text'][-1500:]}")
            if "application/vnd.jupyter.widget-view+json" in output["mimes"]:
                widget_outputs += 1
    if not run["ok"] and not run["error"] and not findings.cells:
        findings.cells.append("run all cells reported a failure")
    # Each widget output must be rendered as a widget, not as its picture or text fallback
    # (which is what a missing widget front end looks like).
    rendered = page.evaluate(_RENDERED_WIDGETS)
    if rendered != widget_outputs:
        findings.widgets.append(f"{widget_outputs} widget output(s) in the notebook but "
                                f"{rendered} rendered as widgets")
    findings.widgets += _widget_errors(page)
    return True


def record_console(findings: Findings, console: ConsoleLog, race: bool) -> None:
    """A page's console messages into ``findings``; with ``race`` (the server log shows its
    kernel-list race) the browser's side of it, the poll's 500, is ignored too."""
    for problem in console.problems:
        if race and "status of 500" in problem and "/api/kernels?" in problem:
            findings.ignored_console.append(problem)
        else:
            findings.console.append(problem)
    findings.ignored_console += console.ignored


@contextlib.contextmanager
def _watched_page(browser, server: Server, findings: Findings, height: int):
    """A fresh page whose console errors and the server log lines written meanwhile end up
    in ``findings``."""
    context, page = _new_page(browser, height=height)
    console = ConsoleLog(server.url).attach(page)
    log_start = server.log_size()
    try:
        yield page
    finally:
        record_console(findings, console, check_server_log(server, log_start, findings))
        findings.kernel_log = kernel_log_lines(server.log_text(log_start))
        context.close()


#: Log lines of a Jupyter server about a kernel's life.
_KERNEL_LIFE = re.compile(r"Kernel started|Kernel shutdown|Kernel restarted|restarting kernel|"
                          r"Culling|died|restart failed|Starting buffering|Discarding \d+ buffered|"
                          r"Kernel is dead|WebSocket ping timeout|Websocket closed")


def kernel_log_lines(text: str) -> list[str]:
    """The lines of a server log that tell what happened to its kernels."""
    return [line.strip()[:300] for line in text.splitlines() if _KERNEL_LIFE.search(line)]


def lab_url(server: Server, name: str) -> str:
    """JupyterLab's page for notebook ``name`` in a workspace of its own: the default
    workspace would reopen every notebook an earlier check of this server opened, each
    with a new kernel that nothing uses (a student's own JupyterLab does restore them)."""
    return (f"{server.url}/lab/workspaces/check-{uuid.uuid4().hex[:12]}/tree/"
            f"{urllib.parse.quote(name)}")


def check_notebook_in_lab(browser, server: Server, name: str, prefix: str) -> Findings:
    """Everything a student would notice in notebook ``name`` (relative to the server root)."""
    findings = Findings(f"{name} in JupyterLab")
    start = time.monotonic()
    try:
        with _watched_page(browser, server, findings, height=1000) as page:
            ran = open_and_run(page, server, name, findings)
            findings.seconds["open and run all"] = time.monotonic() - start
            if ran:
                # the dashboard's preview of its cards is for Voilà's page only
                previews = page.locator(".spectral-kit-preview")
                if any(previews.nth(i).is_visible() for i in range(previews.count())):
                    findings.widgets.append("the dashboard's preview (for Voilà only) shows")
                check_explorers(page, findings, prefix)
                page.wait_for_timeout(500)  # errors raised by the last redraw reach the console
                findings.seconds["explorers"] = time.monotonic() - start - findings.seconds[
                    "open and run all"]
            path = screenshot_dir() / f"{prefix}-page.png"
            page.screenshot(path=str(path))
            findings.screenshots.append(path)
    finally:
        server.shutdown_kernels()
    return findings


# -- Voilà --------------------------------------------------------------------------------------
def code_lines(notebook: Path) -> list[str]:
    """The distinctive lines of a notebook's code cells (to check none is shown)."""
    cells = json.loads(notebook.read_text())["cells"]
    lines = []
    for cell in cells:
        if cell["cell_type"] == "code":
            source = "".join(cell["source"])
            lines += [ln.strip() for ln in source.splitlines() if len(ln.strip()) >= 8]
    return lines


_STDERR = ".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']"

# The page's visible text without error outputs (a traceback quotes code on purpose).
_TEXT_WITHOUT_ERRORS = """(stderr) => {
    let text = document.body.innerText;
    for (const el of document.querySelectorAll(stderr)) text = text.replace(el.innerText, '');
    return text;
}"""


def check_dashboard_in_voila(browser, server: Server, notebook: Path,
                             prefix: str) -> Findings:
    """The dashboard as Voilà serves it: it renders without error output, shows no code, and
    every explorer in it has a picture that its first slider changes."""
    findings = Findings(f"{notebook.name} in Voilà")
    # tall enough for the whole dashboard in one screenshot
    with _watched_page(browser, server, findings, height=2600) as page:
        start = time.monotonic()
        # Voilà streams the page while the kernel runs the cells: "load" comes after the last.
        page.goto(server.url + "/", timeout=RUN_TIMEOUT * 1000, wait_until="load")
        findings.seconds["render"] = time.monotonic() - start
        errors = page.locator(_STDERR)
        for text in errors.all_inner_texts():
            if "Traceback" in text or "Error" in text:
                findings.cells.append(f"error output: {_ANSI.sub('', text)[-1500:]}")
        if "There was an error when executing cell" in page.locator("body").inner_text():
            findings.cells.append("Voilà reports an error while executing a cell")
        try:
            page.wait_for_selector(".spectral-kit-dashboard", state="visible",
                                   timeout=30_000 if findings.cells else 120_000)
        except Exception:
            findings.widgets.append("no dashboard (.spectral-kit-dashboard) on the page")
        shown = page.evaluate(_TEXT_WITHOUT_ERRORS, _STDERR)
        for line in code_lines(notebook):
            if line in shown:
                findings.code.append(f"code is visible: {line!r}")
        for selector in (".jp-CodeCell .jp-InputArea", ".jp-CodeMirrorEditor", ".cm-editor",
                         ".CodeMirror"):
            visible = [el for el in page.locator(selector).all() if el.is_visible()]
            if visible:
                findings.code.append(f"{len(visible)} visible code area(s) ({selector})")
        findings.widgets += _widget_errors(page)
        dashboard = page.locator(".spectral-kit-dashboard")
        if dashboard.count():
            cards = dashboard.first.locator(".spectral-kit-card").count()
            # The dashboard builds its explorers once it is shown, one card after the other.
            with contextlib.suppress(Exception):
                page.wait_for_function(
                    "() => !document.querySelector('.spectral-kit-placeholder')",
                    timeout=RUN_TIMEOUT * 1000)
            checks = time.monotonic()
            check_explorers(page, findings, prefix)
            findings.seconds["explorers"] = time.monotonic() - checks
            if findings.explorer_count == 0 or findings.explorer_count != cards:
                findings.widgets.append(f"the dashboard has {cards} card(s) but "
                                        f"{findings.explorer_count} explorer(s) rendered")
            page.wait_for_timeout(500)
        path = screenshot_dir() / f"{prefix}.png"
        page.screenshot(path=str(path), full_page=True)
        findings.screenshots.append(path)
    return findings


def notebooks(directory: Path = NOTEBOOKS) -> list[Path]:
    """The kit's notebooks, in name order."""
    return sorted(p for p in directory.glob("*.ipynb") if not p.name.startswith("."))


def copy_notebooks(target: Path, sources: Iterable[Path] = ()) -> None:
    """Copy the notebook folder into ``target`` (the server's root): the server runs and may
    write the copies, never the committed files."""
    shutil.copytree(NOTEBOOKS, target, dirs_exist_ok=True,
                    ignore=shutil.ignore_patterns(".ipynb_checkpoints"))
    for source in sources:
        shutil.copy(source, target / source.name)


# -- kernels, saved notebooks, typeset maths ----------------------------------------------------
def kernel_processes(server: Server) -> list[int]:
    """Process ids of the kernels a server has started (its ``ipykernel_launcher``
    children): what holds a kernel's memory, whatever the server's API shows."""
    import psutil

    found = []
    try:
        children = psutil.Process(server.process.pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []
    for child in children:
        with contextlib.suppress(psutil.Error):
            if "ipykernel_launcher" in " ".join(child.cmdline()):
                found.append(child.pid)
    return found


def canvas_resolution(page) -> list[dict]:
    """Bitmap and on-screen (CSS) widths of every ipympl canvas: a canvas that honours the
    screen's device pixel ratio has ``bitmap == ratio × css``."""
    return page.evaluate("""() => Array.from(
        document.querySelectorAll('.jupyter-matplotlib-canvas-div canvas:first-child'))
        .map((c) => ({bitmap: c.width, css: c.getBoundingClientRect().width,
                      ratio: window.devicePixelRatio}))""")


_SAVE = f"""async (path) => {{
    const panel = ({_PANEL})(path);
    await window.jupyterapp.commands.execute('docmanager:save');
    return panel.context.model.dirty;
}}"""


def run_and_save(page, server: Server, name: str, findings: Findings) -> bool:
    """Open ``name`` in JupyterLab, run all cells, wait for the explorers to draw, and save
    the notebook as a student would (Ctrl-S)."""
    if not open_and_run(page, server, name, findings):
        return False
    for explorer in page.locator(".spectral-kit-explorer").all():
        canvas = explorer.locator(".jupyter-matplotlib-canvas-div").first
        if canvas.count() and canvas_size(canvas, CANVAS_TIMEOUT / 2):
            settled_canvas(canvas, CANVAS_TIMEOUT, explorer=explorer)
    explorers = page.locator(".spectral-kit-explorer")
    findings.explorer_count = explorers.count()
    for i in range(findings.explorer_count):
        error = _visible_error(explorers.nth(i))
        if error:
            findings.explorers.append(f"explorer {i + 1} shows an error: {error}")
    dirty = page.evaluate(_SAVE, name)
    if dirty:
        findings.cells.append("the notebook was not saved")
    return not dirty


_MATH = r"""() => ({
    typeset: document.querySelectorAll('mjx-container, .MathJax, .katex').length,
    raw: Array.from(document.querySelectorAll('.jp-MarkdownOutput'))
        .filter((el) => /\$[^$]+\$/.test(el.innerText)).length,
})"""


def typeset_maths(page, timeout: float = 60.0) -> dict:
    """How many typeset formulas (MathJax 3 ``mjx-container``, MathJax 2 ``.MathJax``, KaTeX)
    the page shows, and how many rendered Markdown cells still show a raw ``$…$``."""
    deadline = time.monotonic() + timeout
    while True:
        found = page.evaluate(_MATH)
        if (found["typeset"] and not found["raw"]) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)


def reopen_without_running(browser, server: Server, name: str, prefix: str) -> Findings:
    """Open a saved notebook in a fresh page without running a cell (its new kernel knows
    none of the widgets): every widget output must show its saved picture, none may say
    "model not found"."""
    findings = Findings(f"{name} reopened in JupyterLab")
    with _watched_page(browser, server, findings, height=1000) as page:
        page.goto(lab_url(server, name), timeout=120_000)
        page.wait_for_function(f"(path) => !!({_PANEL})(path)", arg=name, timeout=120_000)
        page.wait_for_selector(".jp-OutputArea-output", timeout=120_000)
        page.wait_for_timeout(3000)  # the widget manager restores the saved state
        findings.widgets += _widget_errors(page)
        outputs = page.evaluate(_CELLS, name)
        widget_outputs = sum("application/vnd.jupyter.widget-view+json" in o["mimes"]
                             for cell in outputs for o in cell["outputs"])
        findings.explorer_count = page.locator(".spectral-kit-explorer").count()
        if findings.explorer_count != widget_outputs:
            findings.widgets.append(f"{widget_outputs} widget output(s) but "
                                    f"{findings.explorer_count} explorer(s) shown")
        for i, explorer in enumerate(page.locator(".spectral-kit-explorer").all()):
            error = _visible_error(explorer)
            if error:
                findings.explorers.append(f"explorer {i + 1} shows an error: {error}")
            overflow = explorer.evaluate(_OVERFLOW)
            if overflow:
                findings.explorers.append(f"explorer {i + 1} does not fit a {VIEWPORT_WIDTH} "
                                          f"px screen: {overflow}")
        for i, canvas in enumerate(page.locator(".jupyter-matplotlib-canvas-div").all()):
            canvas.scroll_into_view_if_needed()
            if not canvas_size(canvas, CANVAS_TIMEOUT / 2):
                findings.explorers.append(f"explorer {i + 1}: its canvas has no size")
                continue
            picture, why = settled_canvas(canvas, CANVAS_TIMEOUT / 2)
            if picture is None:
                findings.explorers.append(f"explorer {i + 1}: {why}")
            findings.screenshots.append(_save(canvas, f"{prefix}-explorer{i + 1}.png"))
        path = screenshot_dir() / f"{prefix}-page.png"
        page.screenshot(path=str(path))
        findings.screenshots.append(path)
    server.shutdown_kernels()
    return findings
