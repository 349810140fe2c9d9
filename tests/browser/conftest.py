"""Fixtures of the browser tests: the system Chromium driven by Playwright, throw-away
JupyterLab servers, and a check, before any browser test, that the widget front ends the
explorers need are installed."""

from __future__ import annotations

import pytest
from browser_harness import (
    CHROMIUM_ARGS,
    chromium_executable,
    copy_notebooks,
    installed_extensions_problem,
    missing_extensions,
    page_config,
    screenshot_dir,
    start_lab,
)


@pytest.fixture(scope="session", autouse=True)
def lab_extensions_installed() -> None:
    """Fail every browser test at once, with the fix, when a front end is missing."""
    problem = installed_extensions_problem()
    if problem:
        pytest.fail(problem, pytrace=False)


@pytest.fixture(scope="session")
def browser():
    """Debian's Chromium (or ``SPECTRAL_KIT_CHROMIUM``), headless, never a downloaded one."""
    executable = chromium_executable()
    if executable is None:
        pytest.fail("No Chromium found for the browser tests: install it (`sudo apt install "
                    "chromium` on Debian/Ubuntu; `python3 kit.py test` does so as root) or "
                    "point SPECTRAL_KIT_CHROMIUM at a Chromium executable.", pytrace=False)
    from playwright.sync_api import sync_playwright

    playwright = sync_playwright().start()
    try:
        chromium = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS,
                                              headless=True, chromium_sandbox=False,
                                              timeout=120_000)
    except Exception as exc:
        playwright.stop()
        pytest.fail(f"Chromium at {executable} did not start: {exc}", pytrace=False)
    print(f"browser screenshots: {screenshot_dir()}")
    yield chromium
    chromium.close()
    playwright.stop()


@pytest.fixture(scope="module")
def lab_server(tmp_path_factory):
    """JupyterLab serving a copy of the notebook folder (tests may add notebooks to
    ``lab_server.root``); one per test module and worker."""
    root = tmp_path_factory.mktemp("lab-root")
    copy_notebooks(root)
    server = start_lab(root)
    try:
        missing = missing_extensions(page_config(server.get("/lab", timeout=60).decode()))
        if missing:
            pytest.fail("JupyterLab does not load the front ends the explorers need: "
                        + ", ".join(missing), pytrace=False)
        yield server
    finally:
        server.stop()


def pytest_terminal_summary(terminalreporter) -> None:
    # Runs where this conftest is loaded by the controlling process (e.g. `pytest
    # tests/browser`); the CI command prints the same folder after the run.
    if any(terminalreporter.stats.get(k) for k in ("passed", "failed", "error")):
        terminalreporter.write_line(f"browser screenshots: {screenshot_dir()}")
