"""Where real data come from: an empty cache variable, partial downloads, a bad mirror copy.

Downloads are served by a local HTTP server; nothing here touches the network.
"""

from __future__ import annotations

import hashlib
import os
import socket
import subprocess
import sys
import threading
import time
import types
from functools import partial
from http.server import HTTPServer, SimpleHTTPRequestHandler

import pytest

from spectral_kit.datasets import real
from spectral_kit.datasets.real import DataFile, data_home, fetch_file

PAYLOAD = b"1,2,3\n4,5,6\n"
SHA = hashlib.sha256(PAYLOAD).hexdigest()


class _Handler(SimpleHTTPRequestHandler):
    def log_message(self, *args, **kwargs):
        pass

    def do_GET(self):
        if self.path != "/cut.data":
            return super().do_GET()
        # A connection that drops halfway: fewer bytes than announced.
        self.send_response(200)
        self.send_header("Content-Length", str(len(PAYLOAD) * 10))
        self.end_headers()
        self.wfile.write(PAYLOAD[:3])
        self.wfile.flush()
        self.close_connection = True
        return None


@pytest.fixture
def server(tmp_path):
    """A local web server: ``good.data`` (the payload), ``cut.data`` (dropped halfway)."""
    www = tmp_path / "www"
    www.mkdir()
    (www / "good.data").write_bytes(PAYLOAD)
    httpd = HTTPServer(("127.0.0.1", 0), partial(_Handler, directory=str(www)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_port}"
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def home(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.delenv("SPECTRAL_KIT_DATA", raising=False)
    return home


@pytest.mark.parametrize("value", ["", "   "])
def test_an_empty_cache_variable_is_unset_and_never_the_current_directory(
        tmp_path, home, server, monkeypatch, value):
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", value)
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    assert data_home() == home / ".cache" / "spectral_kit"
    path = fetch_file(DataFile("toy", "toy.data", SHA, (f"{server}/good.data",)))
    assert path == home / ".cache" / "spectral_kit" / "toy" / "toy.data"
    assert path.read_bytes() == PAYLOAD and list(cwd.iterdir()) == []


def test_a_set_cache_variable_is_used_with_its_tilde(home, monkeypatch):
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", "~/data-cache")
    assert data_home() == home / "data-cache"


def test_a_download_cut_halfway_is_an_oserror_and_leaves_no_part_file(
        tmp_path, home, server, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(cache))
    with pytest.raises(OSError, match=r"cut\.data: (sha256 mismatch|IncompleteRead)"):
        fetch_file(DataFile("toy", "toy.data", SHA, (f"{server}/cut.data",)))
    assert list((cache / "toy").iterdir()) == []
    # the next mirror is tried after a cut one
    spec = DataFile("toy", "toy.data", SHA, (f"{server}/cut.data", f"{server}/good.data"))
    assert fetch_file(spec).read_bytes() == PAYLOAD
    assert [p.name for p in (cache / "toy").iterdir()] == ["toy.data"]


def test_an_interrupted_download_leaves_no_part_file(tmp_path, home, server, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(cache))

    def halfway(source, target):
        target.write(source.read(3))
        raise KeyboardInterrupt

    # only the loader's copy is interrupted, not the server's
    monkeypatch.setattr(real, "shutil", types.SimpleNamespace(copyfileobj=halfway))
    with pytest.raises(KeyboardInterrupt):
        fetch_file(DataFile("toy", "toy.data", SHA, (f"{server}/good.data",)))
    assert list((cache / "toy").iterdir()) == []


def _dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_part_files_of_killed_downloads_are_removed_by_the_next_attempt(
        tmp_path, home, server, monkeypatch):
    cache = tmp_path / "cache"
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(cache))
    folder = cache / "toy"
    folder.mkdir(parents=True)
    host = socket.gethostname()
    old = time.time() - real.STALE_PART_SECONDS - 60
    parts = {
        "dead here": folder / f".toy.data.{_dead_pid()}.{host}.abc123.part",
        "live here": folder / f".toy.data.{os.getppid()}.{host}.def456.part",
        "other host": folder / f".toy.data.{_dead_pid()}.elsewhere.example.org.gh78.part",
        "other host, idle": folder / ".toy.data.1.elsewhere.example.org.ij90.part",
        "old name, idle": folder / ".toy.data.kl12.part",
        "old name, recent": folder / ".toy.data.mn34.part",
        "another file's": folder / f".other.data.{_dead_pid()}.{host}.op56.part",
    }
    for name, path in parts.items():
        path.write_bytes(b"partial")
        if "idle" in name:
            os.utime(path, (old, old))
    assert fetch_file(DataFile("toy", "toy.data", SHA, (f"{server}/good.data",))).is_file()
    left = {name for name, path in parts.items() if path.exists()}
    assert left == {"live here", "other host", "old name, recent", "another file's"}


def test_a_bad_mirror_copy_falls_back_to_the_verified_cache_and_names_both_sha256(
        tmp_path, home, monkeypatch):
    mirror, cache = tmp_path / "mirror", tmp_path / "cache"
    (mirror / "toy").mkdir(parents=True)
    (mirror / "toy" / "toy.data").write_bytes(b"tampered\n")
    bad = hashlib.sha256(b"tampered\n").hexdigest()
    monkeypatch.setenv("SPECTRAL_KIT_DATA", str(mirror))
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(cache))

    def no_download(*args, **kwargs):
        raise AssertionError("a bad mirror copy must not lead to a download")

    monkeypatch.setattr(real.urllib.request, "urlopen", no_download)
    spec = DataFile("toy", "toy.data", SHA, ("http://127.0.0.1:9/never",))
    with pytest.raises(OSError, match=f"sha256 {bad}, the published one is {SHA}"):
        fetch_file(spec)  # no verified copy anywhere: refused, nothing fetched
    (cache / "toy").mkdir(parents=True)
    (cache / "toy" / "toy.data").write_bytes(PAYLOAD)
    with pytest.warns(UserWarning, match="using the verified cached copy") as caught:
        assert fetch_file(spec) == cache / "toy" / "toy.data"
    message = str(caught[0].message)
    assert str(mirror / "toy" / "toy.data") in message
    assert bad in message and SHA in message and "using the verified cached copy" in message
    (cache / "toy" / "toy.data").write_bytes(b"also bad\n")
    with pytest.raises(OSError, match="does not match the published sha256"):
        fetch_file(spec)  # a bad cached copy is no fallback
    assert (mirror / "toy" / "toy.data").read_bytes() == b"tampered\n"  # never touched
