"""The dashboard as Voilà serves it to a student: it renders, shows no code, and every
explorer on it answers its slider."""

from __future__ import annotations

import pytest
from browser_harness import NOTEBOOKS, assert_clean, check_dashboard_in_voila, start_voila

pytestmark = pytest.mark.browser

DASHBOARD = NOTEBOOKS / "dashboard.ipynb"


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


def _model_not_found_only(findings) -> bool:
    problems = findings.problems()
    return bool(problems) and all(
        "model not found" in p or p.startswith("no dashboard") for p in problems)


def test_dashboard_in_voila(browser, voila_server):
    findings = check_dashboard_in_voila(browser, voila_server, DASHBOARD, "voila-dashboard")
    print(findings.summary())
    if _model_not_found_only(findings):
        # Seen once in three runs of the whole suite on two loaded cores, never alone: the
        # page asked for the dashboard's model before the kernel had sent it. A second visit
        # must be clean; the first one's findings stay in the output.
        print("first visit: widget model not found; visiting again")
        findings = check_dashboard_in_voila(browser, voila_server, DASHBOARD,
                                            "voila-dashboard")
        print(findings.summary())
    assert_clean(findings)
