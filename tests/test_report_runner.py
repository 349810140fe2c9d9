"""``spectral-kit reproduce`` keeps finished work: per-section files, failures in their own
section, a partial report on Ctrl-C, ``--resume``, refusal of foreign folders, one-line errors."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from spectral_kit import cli
from spectral_kit.reproduce import REGISTRY, compare, reproduction
from spectral_kit.reproduce import report as report_module

ROOT = Path(__file__).resolve().parent.parent
PREFIX = "wolf-bileschi-2005/zz-fake-"


@pytest.fixture
def fakes():
    """Three tiny registered reproductions (the second can be told to fail); removed after."""
    saved = dict(REGISTRY)
    calls: list[str] = []
    behaviour = {"fail": False}

    @reproduction(PREFIX + "a", "wolf-bileschi-2005", "Fake A — a reproduced number")
    def fake_a(*, quick=False, random_state=0):
        calls.append("a")
        return [compare("one", 1.0, 1.0)], {}, {"n": 1}

    @reproduction(PREFIX + "b", "wolf-bileschi-2005", "Fake B — may fail")
    def fake_b(*, quick=False, random_state=0):
        calls.append("b")
        if behaviour["fail"]:
            raise OSError("sonar.csv does not match the published sha256")
        return [compare("two", 2.5, 2.0), compare("odd verdict", 1.0, None)], {}, {}

    @reproduction(PREFIX + "c", "mavroeidis-vazirgiannis", "Fake C — another paper")
    def fake_c(*, quick=False, random_state=0):
        calls.append("c")
        return [compare("three", 3.0, 30.0)], {}, {}

    yield calls, behaviour
    REGISTRY.clear()
    REGISTRY.update(saved)


def _manifest(folder: Path) -> dict:
    return json.loads((folder / "manifest.json").read_text())


def test_a_failing_reproduction_gets_its_own_section_and_the_rest_go_on(tmp_path, fakes, capsys):
    calls, behaviour = fakes
    behaviour["fail"] = True
    assert cli.main(["reproduce", "--quick", "--out", str(tmp_path), "--only", PREFIX]) == 1
    err = capsys.readouterr().err
    assert "1 reproduction(s) failed" in err and PREFIX + "b" in err
    assert calls == ["a", "b", "c"]
    manifest = _manifest(tmp_path)
    assert manifest["status"] == "complete"
    assert {k: e["status"] for k, e in manifest["sections"].items()} == {
        PREFIX + "a": "done", PREFIX + "b": "failed", PREFIX + "c": "done"}
    readme = (tmp_path / "README.md").read_text()
    assert "Fake B — may fail — failed" in readme
    assert "**Cause:** `OSError`: sonar.csv does not match the published sha256" in readme
    assert "spectral-kit data" in readme and "--resume --only " + PREFIX + "b" in readme
    assert "Partial report" not in readme and "1 reproduction(s) failed" in readme
    assert (tmp_path / "sections" / "wolf-bileschi-2005__zz-fake-b.traceback.txt").read_text(
    ).startswith("Traceback")
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        "wolf-bileschi-2005__zz-fake-a.png", "wolf-bileschi-2005__zz-fake-c.png"]
    # each section under its paper's citation
    assert readme.index("## L. Wolf and S. Bileschi") < readme.index("Fake A") < readme.index(
        "## D. Mavroeidis") < readme.index("Fake C")


def test_resume_skips_complete_sections_of_the_same_settings(tmp_path, fakes, capsys):
    calls, behaviour = fakes
    behaviour["fail"] = True
    report_module.write_report(tmp_path, quick=True, keys=[PREFIX])
    behaviour["fail"] = False
    calls.clear()
    report_module.write_report(tmp_path, quick=True, keys=[PREFIX], resume=True)
    assert calls == ["b"]  # only the failed one runs again
    assert all(e["status"] == "done" for e in _manifest(tmp_path)["sections"].values())
    calls.clear()
    report_module.write_report(tmp_path, quick=False, keys=[PREFIX], resume=True)
    assert calls == ["a", "b", "c"]  # other settings: nothing is complete
    calls.clear()
    report_module.write_report(tmp_path, quick=False, keys=[PREFIX + "a"], resume=True)
    assert calls == []
    # resuming a subset keeps the other finished sections in the report
    assert "Fake C" in (tmp_path / "README.md").read_text()
    calls.clear()
    report_module.write_report(tmp_path, quick=False, keys=[PREFIX + "a"])
    assert calls == ["a"] and "Fake C" not in (tmp_path / "README.md").read_text()
    # a fresh report leaves none of the earlier run's files behind
    assert sorted(p.name for p in (tmp_path / "figures").iterdir()) == [
        "wolf-bileschi-2005__zz-fake-a.png"]
    assert sorted(p.name for p in (tmp_path / "sections").iterdir()) == [
        "wolf-bileschi-2005__zz-fake-a.md"]


def test_unknown_verdicts_and_verdict_rules_reach_the_header(tmp_path, fakes, monkeypatch):
    import spectral_kit.reproduce as package

    @reproduction(PREFIX + "d", "wolf-bileschi-2005", "Fake D — a new verdict")
    def fake_d(*, quick=False, random_state=0):
        from spectral_kit.reproduce import Comparison

        return [Comparison("x", 1.0, 2.0, "inconclusive")], {}, {}

    monkeypatch.setattr(package, "VERDICT_RULES", "**Verdict rules.** A test paragraph.",
                        raising=False)
    monkeypatch.setattr(package, "verdict_counts",
                        lambda results: {"counted": sum(len(r.comparisons) for r in results)},
                        raising=False)
    report_module.write_report(tmp_path, quick=True, keys=[PREFIX + "d", PREFIX + "a"])
    readme = (tmp_path / "README.md").read_text()
    assert "**Verdict rules.** A test paragraph." in readme
    assert "Verdicts: counted: 2." in readme
    assert (tmp_path / "figures" / "wolf-bileschi-2005__zz-fake-d.png").stat().st_size > 0


def test_a_folder_that_is_not_a_report_is_refused_unless_forced(tmp_path, fakes, capsys):
    (tmp_path / "README.md").write_text("my own notes\n")
    (tmp_path / "data.csv").write_text("1,2\n")
    assert cli.main(["reproduce", "--out", str(tmp_path), "--only", PREFIX + "a"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "--force" in err and "not a report of the kit" in err
    assert (tmp_path / "README.md").read_text() == "my own notes\n"
    assert not (tmp_path / "figures").exists()
    assert cli.main(["reproduce", "--out", str(tmp_path), "--only", PREFIX + "a",
                     "--force"]) == 0
    assert (tmp_path / "README.md.orig").read_text() == "my own notes\n"
    assert (tmp_path / "README.md").read_text().startswith("# spectral_kit")
    # from now on the folder is a report of the kit: no --force needed
    assert cli.main(["reproduce", "--out", str(tmp_path), "--only", PREFIX + "a"]) == 0


@pytest.mark.parametrize("case", ["unknown key", "file", "unwritable", "bad option"])
def test_every_command_line_error_is_one_line_and_status_2(tmp_path, case, capsys,
                                                           monkeypatch):
    args = ["reproduce", "--quick", "--out", str(tmp_path / "out")]
    if case == "unknown key":
        args += ["--only", "nosuch"]
    elif case == "file":
        (tmp_path / "out").write_text("")
    elif case == "unwritable":
        def refuse(*a, **k):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(report_module.tempfile, "mkstemp", refuse)
    else:
        args += ["--no-such-option"]
    with pytest.raises(SystemExit) if case == "bad option" else _nothing() as raised:
        status = cli.main(args)
    if raised is not None:
        status = raised.value.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "Traceback" not in err
    assert {"unknown key": "nosuch", "file": "is a file", "unwritable": "Permission denied",
            "bad option": "--no-such-option"}[case] in err
    assert not (tmp_path / "out" / "figures").exists()


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


SCRIPT = textwrap.dedent('''
    import os, signal, sys, time
    # As in a terminal: a process started from a test worker may inherit an ignored SIGINT.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    from spectral_kit import cli
    from spectral_kit.reproduce import compare, reproduction

    P = "wolf-bileschi-2005/zz-fake-"
    for name in ("a", "b"):
        @reproduction(P + name, "wolf-bileschi-2005", "Fake " + name)
        def fast(*, quick=False, random_state=0, name=name):
            return [compare(name, 1.0, 1.0)], {}, {}

    @reproduction(P + "slow", "wolf-bileschi-2005", "Fake slow")
    def slow(*, quick=False, random_state=0):
        time.sleep(float(os.environ["FAKE_SLOW_SECONDS"]))
        return [compare("slow", 1.0, 1.0)], {}, {}

    sys.exit(cli.main(["reproduce", "--quick", "--out", sys.argv[1], "--only", P]
                      + sys.argv[2:]))
''')


@pytest.mark.skipif(os.name == "nt", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_leaves_a_usable_partial_report(tmp_path):
    script = tmp_path / "run.py"
    script.write_text(SCRIPT)
    out = tmp_path / "report"
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
           "FAKE_SLOW_SECONDS": "120"}
    child = subprocess.Popen([sys.executable, str(script), str(out)], env=env,
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 180  # two fake sections, on a loaded machine
    try:
        while time.monotonic() < deadline:
            try:
                done = [e for e in _manifest(out)["sections"].values()
                        if e["status"] == "done"]
            except (OSError, ValueError):
                done = []
            if len(done) == 2:
                break
            assert child.poll() is None, child.communicate()
            time.sleep(0.1)
        time.sleep(0.3)  # the slow one has started
        child.send_signal(signal.SIGINT)
        _, stderr = child.communicate(timeout=150)
    finally:
        if child.poll() is None:
            child.kill()
    assert child.returncode == 130, stderr
    assert "Traceback" not in stderr and stderr.count("\n") == 1 and "partial" in stderr
    manifest = _manifest(out)
    assert manifest["status"] == "partial"
    assert sorted(manifest["sections"]) == [PREFIX + "a", PREFIX + "b"]
    readme = (out / "README.md").read_text()
    assert "**Partial report** (interrupted)" in readme
    assert f"Written: `{PREFIX}a`, `{PREFIX}b`." in readme
    assert f"Not run: `{PREFIX}slow`." in readme
    assert "### Fake a" in readme and "### Fake b" in readme
    assert sorted(p.name for p in (out / "figures").iterdir()) == [
        "wolf-bileschi-2005__zz-fake-a.png", "wolf-bileschi-2005__zz-fake-b.png"]
    for name in ("a", "b"):
        assert (out / "figures" / f"wolf-bileschi-2005__zz-fake-{name}.png").stat().st_size > 0
    assert not list(out.rglob("*.tmp"))
    # --resume finishes the report, running only the missing reproduction
    env["FAKE_SLOW_SECONDS"] = "0"
    done = subprocess.run([sys.executable, str(script), str(out), "--resume"], env=env,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert "2 section(s) already complete" in done.stdout
    assert "1/1 " + PREFIX + "slow" in done.stdout
    assert _manifest(out)["status"] == "complete"
    assert "Partial report" not in (out / "README.md").read_text()
