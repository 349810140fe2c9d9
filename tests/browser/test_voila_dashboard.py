"""The dashboard as Voilà serves it to a student: it renders, shows no code, every explorer
on it answers its slider, and it does so on every visit of a class on a loaded machine --
no reload, no "model not found" -- with a kernel small enough for a Binder session."""

from __future__ import annotations

import os
import signal
import time

import pytest
from browser_harness import (
    NOTEBOOKS,
    Server,
    assert_clean,
    check_dashboard_in_voila,
    kernel_processes,
    screenshot_dir,
    start_voila,
)
from voila_visits import Burner, visit

pytestmark = pytest.mark.browser

DASHBOARD = NOTEBOOKS / "dashboard.ipynb"
#: Visits in a row under a CPU burner, each of which must show the dashboard at once.
VISITS = 10
#: Seconds (median of the visits) until the page shows its title, captions and first card,
#: and until it shows all five pictures (stored or live).
FIRST_CARD_S = 5
ALL_PICTURES_S = 10
#: A dashboard kernel with all five explorers drawn (a Binder session has 1–2 GB).
KERNEL_MB = 250
KERNEL_REFINED_MB = 250
#: Seconds from a key press on a card's first slider to its canvas painted anew, on the
#: first visits (cold kernel, other cards possibly still refining).
FIRST_MOVE_S = 1.0


@pytest.fixture(scope="module")
def voila_server():
    server = start_voila(DASHBOARD)
    try:
        # Voilà serves the lab extensions it found; the canvas needs ipympl's.
        server.get("/voila/labextensions/jupyter-matplotlib/package.json")
    except OSError as exc:
        server.stop()
        pytest.fail(f"Voilà does not serve ipympl's front end (jupyter-matplotlib): {exc}",
                    pytrace=False)
    yield server
    server.stop()


def test_dashboard_in_voila(browser, voila_server):
    findings = check_dashboard_in_voila(browser, voila_server, DASHBOARD, "voila-dashboard")
    print(findings.summary())
    assert_clean(findings)


def test_every_visit_under_load_shows_the_dashboard(browser, voila_server):
    """Ten visits with a CPU burner beside them: each shows the five explorers, none says
    "model not found" (the page's widget manager gets the few widgets of the dashboard's
    cell at once; the explorers come once the dashboard is shown). Prints when the first
    card and every picture were on screen, the first slider moves and the kernel's size."""
    visits, problems = [], []
    with Burner():
        for number in range(1, VISITS + 1):
            result, context, page = visit(browser, voila_server, moves=number <= 2)
            visits.append(result)
            print(f"visit {number}: {result.row()}", flush=True)
            problems += [f"visit {number}: {p}" for p in result.problems]
            page.close(run_before_unload=True)
            context.close()
    assert not problems, "\n".join(problems)
    # First paint: the cards' preview comes with the page, before the kernel has run.
    firsts = sorted(v.shown for v in visits)
    everything = sorted(v.pictures for v in visits)
    assert firsts[len(firsts) // 2] < FIRST_CARD_S, (
        f"the first card was on screen after {firsts[len(firsts) // 2]:.1f} s (median of the "
        f"visits; goal < {FIRST_CARD_S} s)")
    assert everything[len(everything) // 2] < ALL_PICTURES_S, (
        f"the five pictures were on screen after {everything[len(everything) // 2]:.1f} s "
        f"(median of the visits; goal < {ALL_PICTURES_S} s)")
    slow = [(number, card, round(s, 2)) for number, v in enumerate(visits, 1)
            for card, s in enumerate(v.moves, 1) if s >= FIRST_MOVE_S]
    assert not slow, f"first slider moves of {FIRST_MOVE_S} s or more (visit, card, s): {slow}"
    sizes = sorted(mb for v in visits for mb in v.rss_mb)
    # Also once every explorer has finished refining: what a card keeps between moves is
    # bounded (a fully refined visit held 294 MB while the positivity card cached 64 MiB).
    assert sizes and sizes[len(sizes) // 2] <= KERNEL_MB, (
        f"a dashboard kernel holds {sizes[len(sizes) // 2]:.0f} MB (median of the visits) with "
        f"its five explorers drawn (at most {KERNEL_MB} MB)")
    assert sizes[-1] <= KERNEL_REFINED_MB, (
        f"a dashboard kernel holds {sizes[-1]:.0f} MB (at most {KERNEL_REFINED_MB} MB once its "
        "explorers are refined)")


#: What the culling does to a kernel: the server shuts it down (here through Voilà's own
#: shutdown request, which takes the page's _xsrf cookie).
_SHUT_DOWN = r"""async () => {
    const config = JSON.parse(document.getElementById('jupyter-config-data').textContent);
    const form = new FormData();
    const xsrf = document.cookie.match(/\b_xsrf=([^;]*)\b/);
    form.append('_xsrf', xsrf ? xsrf[1] : '');
    const reply = await fetch(`${config.baseUrl}voila/api/shutdown/${config.kernelId}`,
                              {method: 'POST', body: form, credentials: 'same-origin'});
    return reply.status;
}"""


def test_a_kernel_shut_down_under_the_page_says_reload(browser, voila_server):
    """A kernel the server shut down under an open page (culled) leaves a message to reload
    and the sliders greyed out, not a page that silently stopped answering."""
    result, context, page = visit(browser, voila_server, moves=False)
    try:
        assert not result.problems, result.problems
        assert len(kernel_processes(voila_server)) == 1
        assert page.evaluate(_SHUT_DOWN) == 204
        start = time.monotonic()
        banner = page.locator(".spectral-kit-kernel-gone")
        banner.wait_for(state="visible", timeout=30_000)
        print(f"'reload' message {time.monotonic() - start:.1f} s after the kernel was shut down")
        assert "Reload the page" in banner.inner_text()
        page.screenshot(path=str(screenshot_dir() / "voila-dashboard-kernel-gone.png"))
    finally:
        page.close(run_before_unload=True)
        context.close()


#: Seconds within which a page whose kernel was killed must say so.
KILLED_NOTICED_WITHIN = 10


#: Seconds within which the kernel a killed one was replaced by is gone once the page closes.
FREED_WITHIN = 30


def _kill_kernel_under_the_page(browser, server: Server, path: str) -> tuple[float, float]:
    """Open the dashboard, kill its kernel as the out-of-memory handler does (SIGKILL), and
    wait for the page's "reload" message; then close the page. Returns the seconds until the
    message and the seconds from closing the page until no kernel process is left (the
    server restarts a killed kernel, empty: the page's closing must free it)."""
    result, context, page = visit(browser, server, moves=False, path=path)
    closed = False
    try:
        assert not result.problems, result.problems
        kernels = kernel_processes(server)
        assert len(kernels) == 1, kernels
        os.kill(kernels[0], signal.SIGKILL)
        start = time.monotonic()
        banner = page.locator(".spectral-kit-kernel-gone")
        banner.wait_for(state="visible", timeout=30_000)
        noticed = time.monotonic() - start
        assert "Reload the page" in banner.inner_text()
        opacity = page.evaluate(
            "() => getComputedStyle(document.querySelector('.spectral-kit-dashboard')).opacity")
        assert float(opacity) < 1, "the frozen sliders are not greyed out"
        page.screenshot(path=str(screenshot_dir() / "voila-dashboard-kernel-killed.png"))
        page.close(run_before_unload=True)
        context.close()
        closed = True
        start = time.monotonic()
        while kernel_processes(server) and time.monotonic() - start < FREED_WITHIN + 15:
            time.sleep(0.5)
        return noticed, time.monotonic() - start
    finally:
        if not closed:
            page.close(run_before_unload=True)
            context.close()


def test_a_killed_kernel_says_reload(browser, voila_server):
    """A kernel killed for memory under an open page (SIGKILL) leaves a message to reload
    within 10 s, and the empty kernel the server started in its place is shut down within
    30 s of the tab closing."""
    noticed, freed = _kill_kernel_under_the_page(browser, voila_server, "/")
    print(f"'reload' message {noticed:.1f} s after the kernel was killed; no kernel left "
          f"{freed:.1f} s after the tab closed")
    assert noticed <= KILLED_NOTICED_WITHIN, f"the page said 'reload' after {noticed:.1f} s"
    assert freed <= FREED_WITHIN, f"a kernel was still alive {freed:.0f} s after the tab closed"


def test_a_killed_kernel_says_reload_under_jupyter_server(browser, lab_server):
    """The same on Binder's page, voila/render of a Jupyter server: the page hears
    "restarting" on its own kernel connection and says reload within 10 s."""
    noticed, freed = _kill_kernel_under_the_page(browser, lab_server,
                                                 "/voila/render/dashboard.ipynb")
    print(f"voila/render: 'reload' message {noticed:.1f} s after the kernel was killed; no "
          f"kernel left {freed:.1f} s after the tab closed")
    assert noticed <= KILLED_NOTICED_WITHIN, f"the page said 'reload' after {noticed:.1f} s"
    assert freed <= FREED_WITHIN, f"a kernel was still alive {freed:.0f} s after the tab closed"
