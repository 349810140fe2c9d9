"""Voilà cleans up after its visitors: five visits to the dashboard, tabs then closed (some
as a browser closes a tab, some abandoned without a word, as a crashed browser or a dropped
connection leaves them), and at most one kernel is left alive once the kit's kernel culling
has had its time. The first visit uses a HiDPI screen: ipympl draws every canvas with the
screen's device pixel ratio, and the explorers still draw there."""

from __future__ import annotations

import time

import pytest
from browser_harness import (
    NOTEBOOKS,
    WidgetModelMissing,
    canvas_resolution,
    kernel_processes,
    open_dashboard,
    screenshot_dir,
    start_voila,
)

pytestmark = pytest.mark.browser

#: The culling of the kit's configuration (spectral_kit/jupyter_config), with test-sized
#: times: a kernel idle for this long with no tab connected is shut down.
CULL_IDLE = 45
CULL_INTERVAL = 5
VISITS = 5


def test_five_visits_leave_at_most_one_kernel(browser):
    server = start_voila(NOTEBOOKS / "dashboard.ipynb", extra=[
        f"--MappingKernelManager.cull_idle_timeout={CULL_IDLE}",
        f"--MappingKernelManager.cull_interval={CULL_INTERVAL}",
    ])
    try:
        while_open, hidpi, seconds, missing = [], None, [], []
        for visit in range(VISITS):
            start, log_start = time.monotonic(), server.log_size()
            try:
                try:
                    context, page = open_dashboard(browser, server,
                                                   scale=2 if visit == 0 else 1)
                except WidgetModelMissing as exc:
                    # The known open defect of the dashboard under Voilà (seen on loaded
                    # machines only): a student reloads, and so does this visit -- once. The
                    # tab is abandoned, so its kernel must still be culled below.
                    missing.append(visit + 1)
                    print(f"visit {visit + 1}: {exc}; reloading")
                    context, page = open_dashboard(browser, server,
                                                   scale=2 if visit == 0 else 1)
            except Exception as exc:
                pytest.fail(f"visit {visit + 1} did not show the dashboard ({exc}); kernels "
                            f"{len(kernel_processes(server))}; Voilà's log:\n"
                            f"{server.log_text(log_start)[-3000:]}", pytrace=False)
            seconds.append(round(time.monotonic() - start))
            page.wait_for_timeout(2000)
            if visit == 0:
                hidpi = canvas_resolution(page)
                page.screenshot(path=str(screenshot_dir() / "voila-dashboard-hidpi.png"))
            while_open.append(len(kernel_processes(server)))
            # A browser closing a tab runs the page's "beforeunload" (Voilà then asks the
            # server to shut the kernel down); an abandoned tab never says goodbye.
            page.close(run_before_unload=visit % 2 == 0)
            context.close()
        closed_at = time.monotonic()
        after_close = len(kernel_processes(server))
        deadline = closed_at + CULL_IDLE + 2 * CULL_INTERVAL + 60
        alive = kernel_processes(server)
        while len(alive) > 1 and time.monotonic() < deadline:
            time.sleep(1)
            alive = kernel_processes(server)
        waited = time.monotonic() - closed_at
    finally:
        server.stop()
    print(f"seconds to show the dashboard, per visit: {seconds}; visits reloaded after "
          f"'model not found': {missing or 'none'}")
    print(f"kernels alive with each visit open: {while_open}; right after the tabs closed: "
          f"{after_close}; {waited:.0f} s later: {len(alive)}")
    print(f"canvases at device pixel ratio 2: {hidpi}")
    assert len(alive) <= 1, f"{len(alive)} kernels still alive {waited:.0f} s after the tabs closed"
    # every explorer's canvas has twice the pixels it takes on the screen
    assert len(hidpi) == 5
    for canvas in hidpi:
        assert canvas["ratio"] == 2 and canvas["bitmap"] >= 1.95 * canvas["css"] > 0, hidpi
