"""The spectral-kit command: lab, bench and reproduce, without starting servers."""

from __future__ import annotations

import subprocess

import pytest

from spectral_kit import cli


def test_lab_builds_the_jupyterlab_command(monkeypatch):
    seen = {}
    monkeypatch.setattr(subprocess, "call",
                        lambda cmd, env=None: seen.update(cmd=cmd, env=env) or 0)
    assert cli.main(["lab", "--no-browser", "--port=8890"]) == 0
    cmd = seen["cmd"]
    # the kit's Jupyter configuration (kernel culling, widget state saved) is on the path
    from spectral_kit.jupyter_config import CONFIG_DIR

    assert str(CONFIG_DIR) in seen["env"]["JUPYTER_CONFIG_PATH"].split(":")
    assert cmd[1:3] == ["-m", "jupyterlab"]
    assert any(c.startswith("--notebook-dir=") and c.endswith("notebooks") for c in cmd)
    assert cmd[-1] == "--port=8890" and "--no-browser" in cmd
    assert any(c.endswith("00_tour.ipynb") for c in cmd)


def test_notebooks_dir_is_the_checkout():
    assert (cli.notebooks_dir() / "01_q_alpha.ipynb").exists()


def test_unknown_benchmark_and_arguments(capsys):
    assert cli.main(["bench", "no-such-bench"]) == 2
    assert "available:" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        cli.main(["bench", "--port=1"])


def test_every_benchmark_and_reproduction_is_registered():
    from spectral_kit.bench import BENCHMARKS
    from spectral_kit.reproduce import PAPERS, REGISTRY

    assert {"qalpha", "explorers", "notebooks", "sparse-lda", "stability", "weighting"} <= set(
        BENCHMARKS)
    assert {spec.paper for spec in REGISTRY.values()} == set(PAPERS)


def test_reproduce_writes_a_report(tmp_path):
    assert cli.main(["reproduce", "--quick", "--out", str(tmp_path),
                     "--only", "wolf-shashua-2005/ben-dor"]) == 0
    text = (tmp_path / "README.md").read_text()
    assert "| quantity | ours | published | verdict | note |" in text
    assert "Ben-Dor" in text
    assert list((tmp_path / "figures").glob("*.png"))


def test_data_refuses_a_corrupted_copy_and_unknown_names(tmp_path, monkeypatch, capsys):
    import hashlib

    from spectral_kit.datasets import real

    spec = real.DATA_FILES["sonar"][0]
    (tmp_path / spec.folder).mkdir()
    payload = b"not the published file"
    (tmp_path / spec.folder / spec.name).write_bytes(payload)
    assert hashlib.sha256(payload).hexdigest() != spec.sha256
    monkeypatch.setenv("SPECTRAL_KIT_DATA", str(tmp_path))
    monkeypatch.setenv("SPECTRAL_KIT_CACHE", str(tmp_path / "cache"))

    def no_download(*args, **kwargs):
        raise AssertionError("a corrupted local copy must not lead to a download")

    monkeypatch.setattr(real.urllib.request, "urlopen", no_download)
    assert cli.main(["data", "sonar"]) == 1
    assert "does not match the published sha256" in capsys.readouterr().err
    assert cli.main(["data", "no-such-set"]) == 2
    assert "available:" in capsys.readouterr().err
