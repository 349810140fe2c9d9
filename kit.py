#!/usr/bin/env python3
"""Set up spectral_kit in a local virtual environment and open it or test it.

    python3 kit.py lab     # open JupyterLab on the notebooks (the kit's main job)
    python3 kit.py test    # ruff, then every test: library, doctests, notebooks (nbval), browser
    python3 kit.py docs    # build the documentation site into docs/_build/html [--open]

Needs only Python ≥ 3.10 with venv. The environment lives in ``.venv`` next to this file and
is reused; it is rebuilt when ``pyproject.toml`` or ``binder/requirements.txt`` change.
Versions are pinned by ``binder/requirements.txt``, the same pins Binder uses.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = Path(os.environ.get("SPECTRAL_KIT_VENV", ROOT / ".venv"))
PINS = ROOT / "binder" / "requirements.txt"
TEST_PINS = ROOT / ".ci" / "test-constraints.txt"
STAMP = VENV / ".kit-installed"


def _python() -> Path:
    return VENV / ("Scripts/python.exe" if os.name == "nt" else "bin/python")


#: What each command installs beyond the kit: the classroom (lab) never gets the optional
#: "scale" extra (Dask, Zarr, the array API); the tests run its paths, PyTorch's on the CPU.
LAB_EXTRAS, LAB_PACKAGES = ("test",), ()
TEST_EXTRAS, TEST_PACKAGES = ("test", "scale", "docs", "data"), ("torch",)
DOCS_EXTRAS = ("docs",)


def _fingerprint(extras: tuple[str, ...] = LAB_EXTRAS, packages: tuple[str, ...] = ()) -> str:
    digest = hashlib.sha256()
    for path in (ROOT / "pyproject.toml", PINS, TEST_PINS):
        digest.update(path.read_bytes())
    digest.update(",".join((*extras, *packages)).encode())
    return digest.hexdigest()


def _run(cmd: list[str], **kwargs) -> None:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    subprocess.run([str(c) for c in cmd], check=True, **kwargs)


def ensure_environment(
    extras: tuple[str, ...] = LAB_EXTRAS, packages: tuple[str, ...] = LAB_PACKAGES
) -> Path:
    """Create or refresh ``.venv`` with the kit, its test tools and ``extras`` (plus
    ``packages``) at the pinned versions."""
    if sys.version_info < (3, 10):  # noqa: UP036 - kit.py may run under an older python3
        sys.exit(f"spectral_kit needs Python ≥ 3.10; this is {sys.version.split()[0]}.")
    fingerprint = _fingerprint(extras, packages)
    # An environment built for the tests holds everything the lab needs too.
    accepted = {fingerprint, _fingerprint(TEST_EXTRAS, TEST_PACKAGES)}
    if STAMP.exists() and STAMP.read_text() in accepted:
        return _python()
    if not _python().exists():
        print(f"Creating a virtual environment in {VENV} ...", flush=True)
        venv.EnvBuilder(with_pip=True).create(VENV)
    python = _python()
    _run([python, "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
    # binder/requirements.txt pins every direct dependency and installs the kit itself ("."):
    # use its pins, and those of the test tools, as constraints for an editable install.
    pins = [line for path in (PINS, TEST_PINS) for line in path.read_text().splitlines()
            if line.strip() and not line.startswith(("#", ".", "-e"))]
    with tempfile.NamedTemporaryFile("w", suffix=".txt", delete=False) as fh:
        fh.write("\n".join(pins) + "\n")
        constraints = fh.name
    try:
        _run([python, "-m", "pip", "install", "--quiet", "-c", constraints, "-e",
              f"{ROOT}[{','.join(extras)}]", *packages])
    finally:
        os.unlink(constraints)
    STAMP.write_text(fingerprint)
    return python


def lab(extra: list[str]) -> int:
    python = ensure_environment()
    return subprocess.call([str(python), "-m", "spectral_kit.cli", "lab", *extra])


def ensure_chromium() -> None:
    """The browser tests drive the system Chromium (no browser is ever downloaded).

    On Debian/Ubuntu as root it is installed with apt; otherwise the command to run is printed
    and the browser tests report the missing browser.
    """
    if any(shutil.which(name) for name in ("chromium", "chromium-browser")):
        return
    apt = shutil.which("apt-get")
    if apt and hasattr(os, "geteuid") and os.geteuid() == 0:
        print("Installing Chromium for the browser tests (Debian package) ...", flush=True)
        env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
        subprocess.run([apt, "update", "-qq"], check=False, env=env)
        subprocess.run([apt, "install", "-y", "-qq", "--no-install-recommends", "chromium",
                        "fonts-dejavu-core"], check=False, env=env)
    if not any(shutil.which(name) for name in ("chromium", "chromium-browser")):
        print("Chromium is not installed: the browser tests will fail. Install it with "
              "`sudo apt install chromium` (Debian/Ubuntu) or set SPECTRAL_KIT_CHROMIUM to a "
              "Chromium executable.", flush=True)


def test(extra: list[str]) -> int:
    python = ensure_environment(TEST_EXTRAS, TEST_PACKAGES)
    if not os.environ.get("SPECTRAL_KIT_CHROMIUM"):
        ensure_chromium()
    env = dict(os.environ)
    # Many small eigenproblems in parallel test processes: one BLAS thread each.
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("MPLBACKEND", "Agg")
    # The research appendices recompute every reproduction (quick mode) under nbval.
    env.setdefault("SPECTRAL_KIT_RECOMPUTE", "quick")
    screenshots = env.setdefault("SPECTRAL_KIT_SCREENSHOTS",
                                 str(ROOT / "artifacts" / "screenshots"))
    bindir = python.parent
    _run([bindir / "ruff", "check", ROOT], cwd=ROOT)
    cmd = [python, "-m", "pytest", "--nbval-lax", "--nbval-current-env", "-n", "auto",
           "--dist", "loadscope", "--nbval-sanitize-with", ROOT / "tests" / "nbval_sanitize.cfg",
           *extra]
    print("+", " ".join(str(c) for c in cmd), flush=True)
    status = subprocess.call([str(c) for c in cmd], cwd=ROOT, env=env)
    print(f"browser screenshots (notebooks in JupyterLab, dashboard in Voila): {screenshots}",
          flush=True)
    return status


def build_docs(python: Path, out: Path | None = None) -> int:
    """Build the site with warnings as errors (stored notebook outputs, nothing executed)."""
    out = out or ROOT / "docs" / "_build" / "html"
    cmd = [python, "-m", "sphinx", "-b", "html", "-W", "--keep-going", "-j", "auto",
           ROOT / "docs", out]
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.call([str(c) for c in cmd], cwd=ROOT)


def docs(extra: list[str]) -> int:
    python = ensure_environment(DOCS_EXTRAS)
    status = build_docs(python)
    index = ROOT / "docs" / "_build" / "html" / "index.html"
    if status == 0:
        print(f"documentation site: {index}", flush=True)
        if "--open" in extra:
            import webbrowser

            webbrowser.open(index.as_uri())
    return status


def main(argv: list[str]) -> int:
    commands = {"lab": lab, "test": test, "docs": docs}
    if not argv or argv[0] not in commands:
        print(__doc__.strip())
        return 2
    return commands[argv[0]](argv[1:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
