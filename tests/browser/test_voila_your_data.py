"""The "your data" page as Voilà serves it: a CSV uploaded through the page's file input
brings the explorer (its picture drawn, its status naming the selection), and a file with
missing values gets its message in the page while the explorer stays. Screenshots at 1280 px."""

from __future__ import annotations

import time

import numpy as np
import pytest
from browser_harness import (
    NOTEBOOKS,
    Findings,
    _shot,
    _watched_page,
    assert_clean,
    looks_drawn,
    screenshot_dir,
    start_voila,
)

pytestmark = pytest.mark.browser

PAGE = NOTEBOOKS / "your_data.ipynb"


@pytest.fixture(scope="module")
def voila_server():
    server = start_voila(PAGE)
    yield server
    server.stop()


def _good_csv(path):
    rng = np.random.default_rng(0)
    y = np.repeat(["mine", "rock"], 40)
    X = rng.standard_normal((80, 8))
    X[:, :3] += 1.5 * (y == "mine")[:, None]
    lines = [",".join([f"band{j}" for j in range(8)] + ["class"])]
    lines += [",".join([f"{v:.4f}" for v in row] + [label]) for row, label in zip(X, y)]
    path.write_text("\n".join(lines) + "\n")
    return path


def _upload(page, path) -> None:
    """Choose ``path`` in the file dialog that the page's upload button opens."""
    with page.expect_file_chooser(timeout=60_000) as chooser:
        page.locator(".spectral-kit-data-page .widget-upload").first.click()
    chooser.value.set_files(str(path))


def _wait_text(locator, words: str, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    text = ""
    while time.monotonic() < deadline:
        text = locator.inner_text() if locator.count() else ""
        if words in text:
            return text
        time.sleep(0.5)
    return text


def test_upload_a_csv_then_a_bad_file(browser, voila_server, tmp_path):
    findings = Findings("your_data.ipynb in Voilà")
    with _watched_page(browser, voila_server, findings, height=1100) as page:
        page.goto(voila_server.url + "/", timeout=420_000, wait_until="load")
        page.wait_for_selector(".spectral-kit-data-page", state="visible", timeout=120_000)
        _upload(page, _good_csv(tmp_path / "sonar_like.csv"))
        message = page.locator(".spectral-kit-data-message")
        said = _wait_text(message, "80 samples × 8 features", 180)
        assert "80 samples × 8 features, 2 classes" in said, said
        page.wait_for_selector(".spectral-kit-explorer .jupyter-matplotlib-canvas-div",
                               state="visible", timeout=120_000)
        explorer = page.locator(".spectral-kit-explorer").first
        status = _wait_text(explorer, "certified", 120)
        assert "Selected" in status and "band" in status, status
        canvas = explorer.locator(".jupyter-matplotlib-canvas-div").first
        page.wait_for_timeout(1500)
        assert looks_drawn(_shot(canvas)), "the explorer's figure is blank"
        shots = screenshot_dir()
        page.screenshot(path=str(shots / "voila-your-data-upload.png"), full_page=True)

        bad = tmp_path / "gaps.csv"
        bad.write_text("a,b,c,class\n1,2,3,x\n4,,6,y\n7,8,NA,x\n1,1,1,y\n")
        _upload(page, bad)
        said = _wait_text(message, "missing value", 60)
        assert "gaps.csv" in said and "2 missing value(s)" in said, said
        # the explorer of the good file is still there
        assert page.locator(".spectral-kit-explorer").count() == 1
        page.screenshot(path=str(shots / "voila-your-data-bad-file.png"), full_page=True)

        # 30 MB: over the page's limit and over tornado's default message size (10 MiB),
        # which the kit's Voilà configuration raises so that the kernel can refuse the file.
        # (200 MB is refused headless, tests/test_data_page.py: Playwright's driver runs out
        # of memory handing a file that large to the browser.)
        huge = tmp_path / "huge.csv"
        with huge.open("wb") as out:
            out.write(b"a,b,class\n")
            block = b"1.5,2.5,x\n" * 100_000
            while out.tell() < 30 * 1024**2:
                out.write(block)
        _upload(page, huge)
        said = _wait_text(message, "huge.csv", 240)
        assert "up to 20 MB" in said and "MB" in said, said
        assert page.locator(".spectral-kit-explorer").count() == 1
        page.screenshot(path=str(shots / "voila-your-data-too-big.png"), full_page=True)
    print(findings.summary())
    assert_clean(findings)
