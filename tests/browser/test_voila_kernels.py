"""Voilà gives a closed tab's memory back: six visits to the dashboard, their tabs then
closed (half as a browser closes a tab -- Voilà then asks the server to shut the kernel
down --, half abandoned without a word, as a crashed browser or a dropped connection leaves
them), and at most one kernel is left 45 s later, with the kit's own culling settings
(spectral_kit/jupyter_config). The first visit uses a HiDPI screen: ipympl draws every
canvas with the screen's device pixel ratio, and the explorers still draw there."""

from __future__ import annotations

import time

import pytest
from browser_harness import (
    NOTEBOOKS,
    canvas_resolution,
    kernel_processes,
    screenshot_dir,
    start_voila,
)
from voila_visits import visit

pytestmark = pytest.mark.browser

TABS = 6
#: Seconds after the tabs closed by which at most one kernel may be alive.
FREED_WITHIN = 45


def test_closed_tabs_free_their_kernels(browser):
    server = start_voila(NOTEBOOKS / "dashboard.ipynb")
    try:
        tabs, hidpi = [], None
        for number in range(1, TABS + 1):
            result, context, page = visit(browser, server, moves=False,
                                          scale=2 if number == 1 else 1)
            assert not result.problems, f"visit {number}: {result.problems}"
            print(f"tab {number}: {result.row()}", flush=True)
            if number == 1:
                hidpi = canvas_resolution(page)
                page.screenshot(path=str(screenshot_dir() / "voila-dashboard-hidpi.png"))
            tabs.append((context, page))
        alive = set(kernel_processes(server))
        assert len(alive) == TABS, f"{len(alive)} kernels for {TABS} open tabs"
        log_start = server.log_size()
        closed_at = time.monotonic()
        for number, (context, page) in enumerate(tabs):
            page.close(run_before_unload=number % 2 == 0)
            context.close()
        freed: dict[int, float] = {}
        while len(freed) < len(alive) and time.monotonic() - closed_at < FREED_WITHIN + 30:
            now = set(kernel_processes(server))
            for pid in alive:
                if pid not in now and pid not in freed:
                    freed[pid] = time.monotonic() - closed_at
            time.sleep(0.5)
        log = server.log_text(log_start)
    finally:
        server.stop()
    times = sorted(freed.values())
    print(f"kernels freed after the tabs closed, in seconds: "
          f"{', '.join(f'{t:.1f}' for t in times)}; still alive: {len(alive) - len(freed)}")
    assert " 403 " not in log, f"the server refused a request:\n{log[-2000:]}"
    left = len(alive) - sum(t <= FREED_WITHIN for t in times)
    assert left <= 1, f"{left} kernels still alive {FREED_WITHIN} s after the tabs closed"
    # the tabs closed as a browser closes them: their kernels go at once, not at the cull
    assert sum(t <= 10 for t in times) >= TABS // 2, times
    # every explorer's canvas has twice the pixels it takes on the screen
    assert len(hidpi) == 5
    for canvas in hidpi:
        assert canvas["ratio"] == 2 and canvas["bitmap"] >= 1.95 * canvas["css"] > 0, hidpi
