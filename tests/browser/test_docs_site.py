"""The documentation site: built with warnings as errors, every internal link resolving, every
public name on a page, every notebook page showing its stored pictures -- and, in Chromium, the
search box, a notebook page with its picture and typeset maths, and a link from a notebook to
the API page of the function it names.

The site is built once per test run into a temporary folder (the same command as
``python3 kit.py docs``); the build time is printed, not asserted.
"""

from __future__ import annotations

import functools
import http.server
import json
import re
import subprocess
import sys
import threading
import time
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote, urlsplit

import pytest
from browser_harness import ROOT, VIEWPORT_WIDTH, screenshot_dir

DOCS = ROOT / "docs"
NOTEBOOKS = ROOT / "notebooks"


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("site") / "html"
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-j", "auto",
         "-q", str(DOCS), str(out)],
        cwd=ROOT, capture_output=True, text=True, timeout=900,
    )
    seconds = time.perf_counter() - start
    pages = len(list(out.rglob("*.html")))
    print(f"documentation site built in {seconds:.0f} s: {pages} pages")
    if proc.returncode != 0:
        warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line
                    or "ERROR" in line]
        pytest.fail(f"the site does not build with -W ({len(warnings)} warnings):\n"
                    + "\n".join(warnings[:40]), pytrace=False)
    return out


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.links: list[str] = []
        self.ids: set[str] = set()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if values.get("id"):
            self.ids.add(values["id"])
        for name in ("href", "src"):
            if values.get(name) and not (tag == "link" and values.get("rel") == "preload"):
                self.links.append(values[name])


def _parse(path: Path) -> _Links:
    parser = _Links()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def test_every_internal_link_resolves(site: Path) -> None:
    # _static/ holds the theme's assets, among them a Jinja macro file named .html
    # (pydata-sphinx-theme's webpack-macros.html) that is no page and is linked from none.
    parsed = {p: _parse(p) for p in site.rglob("*.html")
              if "_static" not in p.relative_to(site).parts}
    broken = []
    for page, links in parsed.items():
        for link in links.links:
            parts = urlsplit(link)
            if parts.scheme or link.startswith(("//", "mailto:", "javascript:", "data:")):
                continue
            target = (page.parent / unquote(parts.path)).resolve() if parts.path else page
            if target.is_dir():
                target = target / "index.html"
            if not target.exists():
                broken.append(f"{page.relative_to(site)} → {link}")
            elif parts.fragment and target.suffix == ".html":
                ids = parsed[target].ids if target in parsed else _parse(target).ids
                if parts.fragment not in ids:
                    broken.append(f"{page.relative_to(site)} → {link} (no such anchor)")
    assert not broken, f"{len(broken)} broken internal link(s):\n" + "\n".join(broken[:30])


def test_every_public_name_has_a_reference_page(site: Path) -> None:
    import importlib

    import spectral_kit

    sys.path.insert(0, str(DOCS / "_ext"))
    from kit_docs import SUBPACKAGES, canonical_targets

    targets = canonical_targets()
    missing = []
    for name in spectral_kit.__all__:
        if name not in targets:
            missing.append(f"spectral_kit.{name} (in no subpackage's __all__)")
    for sub in SUBPACKAGES:
        module = importlib.import_module(f"spectral_kit.{sub}")
        page = (site / "api" / f"{sub}.html").read_text(encoding="utf-8")
        for name in module.__all__:
            dotted = f"spectral_kit.{sub}.{name}"
            own = site / "api" / "generated" / f"{dotted}.html"
            if not own.exists() and f'id="{dotted}"' not in page:
                missing.append(dotted)
    assert not missing, "public names without a reference page: " + ", ".join(missing)


def _stored_pictures(notebook: Path) -> int:
    nb = json.loads(notebook.read_text(encoding="utf-8"))
    return sum("image/png" in out.get("data", {}) for cell in nb["cells"]
               for out in cell.get("outputs", []))


@pytest.mark.parametrize("notebook", sorted(NOTEBOOKS.glob("*.ipynb"))
                         + sorted((NOTEBOOKS / "appendix").glob("*.ipynb")),
                         ids=lambda p: p.stem)
def test_notebook_pages_show_their_stored_pictures(site: Path, notebook: Path) -> None:
    relative = notebook.relative_to(NOTEBOOKS).with_suffix(".html")
    page = (site / "notebooks" / relative).read_text(encoding="utf-8")
    shown = len(re.findall(r"<img [^>]*src=\"[^\"]*_images/", page)) + page.count(
        'src="data:image/png')
    assert shown >= _stored_pictures(notebook), (
        f"{relative}: {shown} pictures shown, {_stored_pictures(notebook)} stored")
    assert "Launch on Binder" in page
    assert re.search(rf'href="[^"]*_downloads/[^"]*/{notebook.name}"', page), "no download link"


# -- in the browser ------------------------------------------------------------------------------
_MATH = """() => ({
    typeset: document.querySelectorAll('.MathJax, mjx-container').length,
    raw: Array.from(document.querySelectorAll('span.math, div.math'))
        .filter((el) => /\\\\[(\\[]/.test(el.innerText)).length,
})"""


def _typeset(page, timeout: float = 60.0) -> dict:
    """How many formulas MathJax typeset, and how many maths nodes still show raw TeX."""
    deadline = time.monotonic() + timeout
    while True:
        found = page.evaluate(_MATH)
        if (found["typeset"] and not found["raw"]) or time.monotonic() > deadline:
            return found
        time.sleep(0.5)

@pytest.fixture(scope="module")
def served(site: Path):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(site))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    httpd.RequestHandlerClass.log_message = lambda *args: None
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


@pytest.mark.browser
def test_search_a_notebook_and_an_api_link_in_chromium(browser, served: str) -> None:
    context = browser.new_context(viewport={"width": VIEWPORT_WIDTH, "height": 800})
    context.set_default_timeout(60_000)
    page = context.new_page()
    shots = screenshot_dir()
    try:
        page.goto(f"{served}/index.html")
        page.screenshot(path=str(shots / "docs-index.png"))
        # The search box (Sphinx's own index, no server needed).
        page.goto(f"{served}/search.html?q=q_alpha")
        result = page.locator("#search-results a[href*='spectral_kit.qalpha.q_alpha.html']")
        result.first.wait_for(timeout=60_000)
        page.screenshot(path=str(shots / "docs-search-q_alpha.png"))
        # A notebook page: its stored explorer picture and typeset maths.
        page.goto(f"{served}/notebooks/01_q_alpha.html")
        pictures = page.locator(".cell_output img")
        pictures.first.wait_for()
        loaded = page.evaluate(
            "() => Array.from(document.querySelectorAll('.cell_output img'))"
            ".filter(img => img.complete && img.naturalWidth > 0).length")
        assert loaded >= 3, f"{loaded} stored pictures drawn on the notebook page"
        maths = _typeset(page)
        assert maths["typeset"] > 20 and not maths["raw"], maths
        page.screenshot(path=str(shots / "docs-notebook-01.png"), full_page=False)
        # From the notebook to the reference page of a function it names.
        link = page.locator("a[href*='api/generated/spectral_kit.qalpha.q_alpha.html']").first
        link.click()
        page.wait_for_url(re.compile(r".*spectral_kit\.qalpha\.q_alpha\.html.*"))
        assert page.locator("dt.sig", has_text="q_alpha").count() > 0
        page.screenshot(path=str(shots / "docs-api-q_alpha.png"))
    finally:
        context.close()
