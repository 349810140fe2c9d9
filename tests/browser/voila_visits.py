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
# that are not the background), and the page's own "model not found" errors; and what the
# page shows before the dashboard's cell has run, its preview of the cards (title, what to
# notice, the stored first picture).
_STATE = """() => {
    const visible = (el) => !!el && el.getBoundingClientRect().height > 0;
    const loadedImage = (img) => img.complete && img.naturalWidth > 0 && visible(img);
    const dash = document.querySelector('.spectral-kit-dashboard');
    const shown = visible(dash);
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
        card.querySelectorAll('img.spectral-kit-stored-picture')).some(loadedImage));
    const preview = Array.from(document.querySelectorAll(
        '.spectral-kit-preview .spectral-kit-preview-card')).map(
            (card) => visible(card) && Array.from(card.querySelectorAll('img')).some(loadedImage)
                && !!card.querySelector('h3') && !!card.querySelector('p'));
    const text = document.body ? document.body.innerText : '';
    return {shown, cards: cards.length, drawn, pictured, preview,
            loaded: document.readyState === 'complete',
            missing: text.includes('model not found'),
            errors: document.querySelectorAll('.jupyter-widgets-error-widget').length};
}"""


# When each canvas was last painted and when a key was last pressed, on the page's own clock:
# a slider move's latency is from the key press to the first paint of its explorer's canvas
# after it (the canvas was settled before the press, so that paint is the move's answer),
# not to when a poll of the canvas' pixels, itself a PNG encode of the bitmap, next
# noticed it (a quarter to half a second later on a loaded machine).
_PAINT_CLOCK = """(() => {
    const draw = CanvasRenderingContext2D.prototype.drawImage;
    CanvasRenderingContext2D.prototype.drawImage = function (...args) {
        const canvas = this.canvas;
        if (canvas) {
            const times = canvas.__spectralKitPaints || (canvas.__spectralKitPaints = []);
            times.push(performance.now());
            if (times.length > 100) times.shift();
        }
        return draw.apply(this, args);
    };
    document.addEventListener('keydown', () => { window.__spectralKitKey = performance.now(); },
                              true);
})();"""

_MOVE_LATENCY = """(div) => {
    const canvas = div.querySelector('canvas');
    const pressed = window.__spectralKitKey;
    const paints = (canvas.__spectralKitPaints || []).filter((t) => t > pressed);
    return paints.length ? (paints[0] - pressed) / 1000 : null;
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
    #: The same moves as a poll of the canvas' pixels first saw them (an upper bound).
    moves_polled: list[float] = field(default_factory=list)
    rss_mb: list[float] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)

    def row(self) -> str:
        def s(x: float | None) -> str:
            return "—" if x is None else f"{x:.1f} s"

        moves = ", ".join(f"{m:.2f}" for m in self.moves) or "—"
        polled = ", ".join(f"{m:.2f}" for m in self.moves_polled) or "—"
        rss = ", ".join(f"{m:.0f}" for m in self.rss_mb) or "—"
        return (f"load {s(self.load)} | first card {s(self.shown)} | five pictures (stored "
                f"or live) {s(self.pictures)} | first live card {s(self.first_card)} | all "
                f"live {s(self.all_drawn)} | first moves "
                f"[{moves}] s (polled [{polled}] s) | kernel RSS [{rss}] MB")


def kernel_rss_mb(server: Server, exclude: set[int] = frozenset()) -> list[float]:
    """Resident memory of the server's kernels (``ps``'s RSS), less those in ``exclude``."""
    import psutil

    sizes = []
    for pid in set(kernel_processes(server)) - set(exclude):
        with contextlib.suppress(psutil.Error):
            sizes.append(psutil.Process(pid).memory_info().rss / 2**20)
    return sizes


def visit(browser, server: Server, *, moves: bool = True, scale: float = 1,
          timeout: float = RUN_TIMEOUT, path: str = "/"):
    """Open the dashboard (``path`` on the server: standalone Voilà serves it at ``/``) in a
    fresh browser context; returns ``(visit, context, page)``
    with the page still open. Problems (no dashboard, "model not found", widget errors) are
    recorded in ``visit.problems``, never retried."""
    result = Visit()
    context, page = _new_page(browser, height=1000, scale=scale)
    page.add_init_script(_PAINT_CLOCK)
    # the kernels of earlier visits, which the culling may not have shut down yet
    earlier = set(kernel_processes(server))
    start = time.monotonic()
    # Watched from the first byte: Voilà streams the page, whose preview of the cards shows
    # before the page's "load" event.
    page.goto(server.url + path, timeout=timeout * 1000, wait_until="commit")
    deadline = start + timeout
    state: dict = {}
    while time.monotonic() < deadline:
        with contextlib.suppress(Exception):  # the page's context is replaced while it loads
            state = page.evaluate(_STATE)
        now = time.monotonic() - start
        if not state:
            page.wait_for_timeout(50)
            continue
        if state["loaded"] and result.load is None:
            result.load = now
        if state["missing"] or state["errors"]:
            break
        # the first card: the preview's (title, what to notice, picture) or the dashboard's
        first = (state["preview"][:1] == [True]
                 or (state["shown"] and state["pictured"][:1] == [True]))
        if first and result.shown is None:
            result.shown = now
        every = ((len(state["preview"]) == CARDS and all(state["preview"]))
                 or (state["cards"] == CARDS and all(state["pictured"])))
        if every and result.pictures is None:
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
            polled = time.monotonic() - moved_at
            painted = canvas.evaluate(_MOVE_LATENCY)
            result.moves_polled.append(polled)
            result.moves.append(polled if painted is None else painted)
    return result, context, page


class Burner:
    """A CPU burner beside the measurement: one busy process (a shared Binder node)."""

    def __enter__(self) -> Burner:
        self.process = subprocess.Popen([sys.executable, "-c", "while True: pass"])
        return self

    def __exit__(self, *exc) -> None:
        self.process.kill()
        self.process.wait()
