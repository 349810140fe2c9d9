"""One visit to Voilà's dashboard, timed as a class meets it: when the page loads, when the
dashboard with its first card is on screen, when every picture is drawn, how long each
card's first slider move takes, and how much memory the visit's kernel holds."""

from __future__ import annotations

import contextlib
import subprocess
import sys
import time
from dataclasses import dataclass, field

from browser_harness import (
    CANVAS_TIMEOUT,
    RUN_TIMEOUT,
    Server,
    _new_page,
    _wait_for_change,
    kernel_processes,
    screenshot_dir,
    settled_canvas,
)

#: Cards of the dashboard (spectral_kit.widgets.dashboard.CARDS).
CARDS = 5

# Per card, in page order: whether its ipympl canvas holds a picture yet (sampled pixels
# that are not the background), and the page's own "model not found" errors.
_STATE = """() => {
    const dash = document.querySelector('.spectral-kit-dashboard');
    const shown = !!dash && dash.getBoundingClientRect().height > 0;
    const cards = dash ? Array.from(dash.querySelectorAll('.spectral-kit-card')) : [];
    const drawn = cards.map((card) => {
        const canvas = card.querySelector('.jupyter-matplotlib-canvas-div canvas');
        if (!canvas || canvas.width < 10 || canvas.height < 10) return false;
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width,
                                                          canvas.height).data;
        let ink = 0;
        for (let i = 0; i < data.length; i += 4 * 97) {
            if (data[i + 3] > 0 && (data[i] < 200 || data[i + 1] < 200 || data[i + 2] < 200)) ink++;
        }
        return ink > 20;
    });
    // a stored first picture counts as shown until the live canvas replaces it
    const pictured = cards.map((card, i) => drawn[i] || Array.from(
        card.querySelectorAll('img.spectral-kit-stored-picture')).some(
            (img) => img.complete && img.naturalWidth > 0));
    const text = document.body ? document.body.innerText : '';
    return {shown, cards: cards.length, drawn, pictured,
            missing: text.includes('model not found'),
            errors: document.querySelectorAll('.jupyter-widgets-error-widget').length};
}"""


@dataclass
class Visit:
    """What one visit measured (seconds from the request)."""

    load: float | None = None
    shown: float | None = None
    first_card: float | None = None
    pictures: float | None = None
    all_drawn: float | None = None
    moves: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def row(self) -> str:
        def s(x: float | None) -> str:
            return "—" if x is None else f"{x:.1f} s"

        moves = ", ".join(f"{m:.2f}" for m in self.moves) or "—"
        rss = ", ".join(f"{m:.0f}" for m in self.rss_mb) or "—"
        return (f"load {s(self.load)} | dashboard {s(self.shown)} | five pictures (stored "
                f"or live) {s(self.pictures)} | first live card {s(self.first_card)} | all "
                f"live {s(self.all_drawn)} | first moves "
                f"[{moves}] s | kernel RSS [{rss}] MB")


def kernel_rss_mb(server: Server, exclude: set[int] = frozenset()) -> list[float]:
    """Resident memory of the server's kernels (``ps``'s RSS), less those in ``exclude``."""
    import psutil

    sizes = []
    for pid in set(kernel_processes(server)) - set(exclude):
        with contextlib.suppress(psutil.Error):
            sizes.append(psutil.Process(pid).memory_info().rss / 2**20)
    return sizes


def visit(browser, server: Server, *, moves: bool = True, scale: float = 1,
          timeout: float = RUN_TIMEOUT):
    """Open the dashboard in a fresh browser context; returns ``(visit, context, page)``
    with the page still open. Problems (no dashboard, "model not found", widget errors) are
    recorded in ``visit.problems``, never retried."""
    result = Visit()
    context, page = _new_page(browser, height=1000, scale=scale)
    # the kernels of earlier visits, which the culling may not have shut down yet
    earlier = set(kernel_processes(server))
    start = time.monotonic()
    page.goto(server.url + "/", timeout=timeout * 1000, wait_until="load")
    result.load = time.monotonic() - start
    deadline = start + timeout
    state: dict = {}
    while time.monotonic() < deadline:
        state = page.evaluate(_STATE)
        now = time.monotonic() - start
        if state["missing"] or state["errors"]:
            break
        if state["shown"] and result.shown is None:
            result.shown = now
        if (state["cards"] == CARDS and all(state["pictured"])
                and result.pictures is None):
            result.pictures = now
        if state["drawn"][:1] == [True] and result.first_card is None:
            result.first_card = now
        if state["cards"] == CARDS and all(state["drawn"]):
            result.all_drawn = now
            result.pictures = result.pictures or now
            break
        page.wait_for_timeout(100)
    if state.get("missing"):
        result.problems.append("the page shows 'Error displaying widget: model not found'")
    if state.get("errors"):
        result.problems.append(f"{state['errors']} widget error view(s) on the page")
    if result.all_drawn is None and not result.problems:
        result.problems.append(f"not every picture drawn within {timeout:.0f} s: {state}")
    if result.problems:
        page.screenshot(path=str(screenshot_dir() / "voila-visit-problem.png"), full_page=True)
        return result, context, page
    result.rss_mb = kernel_rss_mb(server, exclude=earlier)
    if moves:
        explorers = page.locator(".spectral-kit-explorer")
        for i in range(explorers.count()):
            explorer = explorers.nth(i)
            explorer.scroll_into_view_if_needed()
            canvas = explorer.locator(".jupyter-matplotlib-canvas-div").first
            before, why = settled_canvas(canvas, CANVAS_TIMEOUT, quiet=0.5, interval=0.2)
            if before is None:
                result.problems.append(f"card {i + 1}: {why}")
                continue
            handle = explorer.locator('[role="slider"]').first
            value = handle.get_attribute("aria-valuenow")
            key = "ArrowLeft" if value == handle.get_attribute("aria-valuemax") else "ArrowRight"
            handle.focus()
            moved_at = time.monotonic()
            page.keyboard.press(key)
            if not _wait_for_change(canvas, explorer, before):
                result.problems.append(f"card {i + 1}: its first slider changed nothing")
                continue
            result.moves.append(time.monotonic() - moved_at)
    return result, context, page


class Burner:
    """A CPU burner beside the measurement: one busy process (a shared Binder node)."""

    def __enter__(self) -> Burner:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.wait()
