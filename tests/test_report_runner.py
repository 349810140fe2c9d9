"""``spectral-kit reproduce`` keeps finished work: per-section files, failures in their own
section, a partial report on Ctrl-C, ``--resume``, refusal of foreign folders, one-line errors;
and it touches nothing outside its folder (paths in a manifest are not trusted) and lets one
run write into a folder at a time."""

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
from spectral_kit.reproduce import REGISTRY, _folder, compare, reproduction
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


@pytest.mark.parametrize("case", ["unknown key", "empty key", "bare --only", "file",
                                  "unwritable", "bad option"])
def test_every_command_line_error_is_one_line_and_status_2(tmp_path, case, capsys,
                                                           monkeypatch):
    args = ["reproduce", "--quick", "--out", str(tmp_path / "out")]
    if case == "unknown key":
        args += ["--only", "nosuch"]
    elif case == "empty key":  # once a prefix of every key: it ran all 23 reproductions
        args += ["--only", ""]
    elif case == "bare --only":
        args += ["--only"]
    elif case == "file":
        (tmp_path / "out").write_text("")
    elif case == "unwritable":
        def refuse(*a, **k):
            raise PermissionError(13, "Permission denied")

        monkeypatch.setattr(_folder.tempfile, "mkstemp", refuse)
    else:
        args += ["--no-such-option"]
    with pytest.raises(SystemExit) if case == "bad option" else _nothing() as raised:
        status = cli.main(args)
    if raised is not None:
        status = raised.value.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "error:" in err and "Traceback" not in err
    assert {"unknown key": "nosuch", "empty key": "an empty key ('')",
            "bare --only": "no key given", "file": "is a file",
            "unwritable": "Permission denied", "bad option": "--no-such-option"}[case] in err
    if case in ("empty key", "bare --only"):
        assert "available: wolf-shashua-2005/positivity" in err
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
        # Runs FAKE_SLOW_SECONDS, or until the file FAKE_GATE appears.
        gate = os.environ.get("FAKE_GATE")
        deadline = time.monotonic() + float(os.environ.get("FAKE_SLOW_SECONDS", "0"))
        while time.monotonic() < deadline and not (gate and os.path.exists(gate)):
            time.sleep(0.05)
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


# -- a report touches nothing outside its folder ------------------------------------------------

STEM = "wolf-bileschi-2005__zz-fake-a"


def _hostile_report(tmp_path: Path, case: str) -> tuple[Path, Path]:
    """A finished report of fake A whose manifest (or folder) reaches outside; the victim."""
    out, victim = tmp_path / "report", tmp_path / "victim.txt"
    victim.write_text("the user's secret\n")
    assert cli.main(["reproduce", "--quick", "--out", str(out), "--only", PREFIX + "a"]) == 0
    manifest = _manifest(out)
    entry = manifest["sections"][PREFIX + "a"]
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    if case.startswith("file="):
        entry["file"] = case[len("file="):].replace("VICTIM", str(victim))
    elif case.startswith("figure="):
        entry["figure"] = case[len("figure="):].replace("VICTIM", str(victim))
    elif case == "key ../":
        manifest["sections"]["../../victim"] = manifest["sections"].pop(PREFIX + "a")
    elif case == "section is a link out":
        (out / "sections" / f"{STEM}.md").unlink()
        (out / "sections" / f"{STEM}.md").symlink_to(victim)
    elif case == "sections is a link out":
        (outside / f"{STEM}.md").write_text("elsewhere's file\n")
        for f in (out / "sections").iterdir():
            f.unlink()
        (out / "sections").rmdir()
        (out / "sections").symlink_to(outside, target_is_directory=True)
    elif case == "malformed entry":
        entry["seconds"] = "a while"
    elif case == "manifest is a link out":
        (outside / "manifest.json").write_text(json.dumps(manifest))
        (out / "manifest.json").unlink()
        (out / "manifest.json").symlink_to(outside / "manifest.json")
        return out, victim
    else:
        raise AssertionError(case)
    (out / "manifest.json").write_text(json.dumps(manifest))
    return out, victim


HOSTILE = [
    "file=VICTIM",  # absolute: a fresh run used to delete it
    "file=../victim.txt",
    "file=sections/../../victim.txt",
    "figure=VICTIM",
    r"file=C:\victim.txt",
    r"file=..\victim.txt",
    r"file=\\server\share\victim.txt",
    "file=sections/other.md",  # inside, but not a file the kit writes
    "key ../",
    "section is a link out",
    "sections is a link out",
    "manifest is a link out",
    "malformed entry",
]


@pytest.mark.parametrize("mode", ["fresh", "--force", "--resume"])
@pytest.mark.parametrize("case", HOSTILE)
def test_a_manifest_that_reaches_outside_is_refused_and_nothing_is_touched(
        tmp_path, fakes, capsys, case, mode):
    out, victim = _hostile_report(tmp_path, case)
    before = {p: (p.read_bytes() if p.is_file() else None) for p in tmp_path.rglob("*")}
    capsys.readouterr()
    args = ["reproduce", "--quick", "--out", str(out), "--only", PREFIX + "b"]
    status = cli.main(args + ([] if mode == "fresh" else [mode]))
    err = capsys.readouterr().err
    assert status == 2, err
    assert err.count("\n") == 1 and "Traceback" not in err
    assert "cannot be trusted" in err or "outside the report folder" in err, err
    assert "nothing was read or deleted" in err or "remove the link" in err, err
    assert victim.read_text() == "the user's secret\n"
    after = {p: (p.read_bytes() if p.is_file() else None) for p in tmp_path.rglob("*")}
    assert after == before  # not a byte changed, inside the folder or out
    assert "secret" not in (out / "README.md").read_text()


def test_force_keeps_a_linked_readme_as_a_link_and_never_writes_through_it(
        tmp_path, fakes, capsys):
    out, victim = tmp_path / "folder", tmp_path / "victim.txt"
    out.mkdir()
    victim.write_text("the user's secret\n")
    (out / "README.md").symlink_to(victim)
    (out / "README.md.orig").symlink_to(victim)  # taken already: the next name is used
    (out / "notes.txt").write_text("mine\n")
    assert cli.main(["reproduce", "--out", str(out), "--only", PREFIX + "a"]) == 2
    assert cli.main(["reproduce", "--out", str(out), "--only", PREFIX + "a", "--force"]) == 0
    assert victim.read_text() == "the user's secret\n"
    assert os.readlink(out / "README.md.orig1") == str(victim)
    assert not (out / "README.md").is_symlink()
    assert (out / "README.md").read_text().startswith("# spectral_kit")


def test_old_manifests_with_list_rows_still_count_their_verdicts(tmp_path, fakes):
    report_module.write_report(tmp_path, keys=[PREFIX + "a"])
    manifest = _manifest(tmp_path)
    entry = manifest["sections"][PREFIX + "a"]
    entry["comparisons"] = [["one", 1.0, 1.0, "reproduced", ""], ["junk"], {"verdict": "x"}]
    (tmp_path / "manifest.json").write_text(json.dumps(manifest))
    report_module.write_report(tmp_path, keys=[PREFIX + "c"], resume=True)
    readme = (tmp_path / "README.md").read_text()
    line = next(x for x in readme.splitlines() if x.startswith("Verdicts: "))
    assert "differs: 1," in line and line.endswith("reproduced: 1.")


# -- a read-only sections/ and other write failures ------------------------------------------------

def test_an_unwritable_sections_folder_is_refused_before_the_report_changes(
        tmp_path, fakes, capsys, monkeypatch):
    assert cli.main(["reproduce", "--quick", "--out", str(tmp_path), "--only", PREFIX]) == 0
    before = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
    real = _folder.tempfile.mkstemp

    def read_only_sections(*args, **kwargs):  # chmod cannot stop root: refuse as EROFS does
        if Path(kwargs.get("dir", "")).name == "sections":
            raise OSError(30, "Read-only file system")
        return real(*args, **kwargs)

    monkeypatch.setattr(_folder.tempfile, "mkstemp", read_only_sections)
    capsys.readouterr()
    assert cli.main(["reproduce", "--quick", "--out", str(tmp_path), "--only", PREFIX]) == 2
    err = capsys.readouterr().err
    assert f"cannot write in {tmp_path.resolve() / 'sections'} (Read-only file system)" in err
    assert "left as it was" in err and err.count("\n") == 1
    assert {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()} == before


def test_a_write_failure_mid_run_leaves_a_readme_that_says_what_stopped_it(
        tmp_path, fakes, capsys, monkeypatch):
    real = report_module.write_atomic

    def full_disk(path, text):
        if path.name == "wolf-bileschi-2005__zz-fake-b.md":
            raise OSError(28, "No space left on device")
        return real(path, text)

    monkeypatch.setattr(report_module, "write_atomic", full_disk)
    assert cli.main(["reproduce", "--quick", "--out", str(tmp_path), "--only", PREFIX]) == 2
    assert "No space left on device" in capsys.readouterr().err
    readme = (tmp_path / "README.md").read_text()
    assert "**Partial report** (stopped by OSError: [Errno 28] No space left on device)" in readme
    assert f"Written: `{PREFIX}a`." in readme and "### Fake A" in readme
    assert _manifest(tmp_path)["status"] == "partial"


# -- one writer at a time ---------------------------------------------------------------------

def _start(script: Path, out: Path, *extra: str, gate: Path | None = None,
           seconds: str = "0") -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "MPLBACKEND": "Agg",
           "FAKE_SLOW_SECONDS": seconds, "FAKE_GATE": str(gate or "")}
    return subprocess.Popen([sys.executable, str(script), str(out), *extra], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _holder(out: Path, child: subprocess.Popen, timeout: float = 120) -> dict:
    """The lock record of ``child`` once it holds the folder and runs the slow reproduction."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            holder = json.loads((out / _folder.LOCK).read_text())
            running = _manifest(out)["status"] == "running"
        except (OSError, ValueError, KeyError):
            holder, running = {}, False
        if holder.get("pid") == child.pid and running:
            return holder
        assert child.poll() is None, child.communicate()
        time.sleep(0.05)
    raise AssertionError("the first run never took the lock")


@pytest.mark.slow  # real processes: about 10 s each on a loaded machine
@pytest.mark.skipif(os.name != "posix", reason="flock and SIGKILL are POSIX")
@pytest.mark.parametrize("second", [["--only", PREFIX + "a"], ["--resume"]])
def test_a_second_run_into_a_folder_being_written_is_refused(tmp_path, second):
    script, out, gate = tmp_path / "run.py", tmp_path / "report", tmp_path / "gate"
    script.write_text(SCRIPT)
    first = _start(script, out, *(["--resume"] if "--resume" in second else []), gate=gate,
                   seconds="120")
    try:
        holder = _holder(out, first)
        assert holder["host"] and holder["started"]
        other = _start(script, out, *second)
        _, err = other.communicate(timeout=120)
        assert other.returncode == 2, err
        assert err.count("\n") == 1 and "Traceback" not in err
        assert f"being written by another spectral-kit reproduce (pid {first.pid} on " in err
        assert f"kill {first.pid}" in err and "--resume" in err
        gate.write_text("")  # let the first run finish
        _, err = first.communicate(timeout=120)
        assert first.returncode == 0, err
    finally:
        if first.poll() is None:
            first.kill()
    manifest = _manifest(out)
    assert manifest["status"] == "complete"
    assert sorted(manifest["sections"]) == [PREFIX + "a", PREFIX + "b", PREFIX + "slow"]
    assert not (out / _folder.LOCK).exists()
    # the refused run can now go ahead
    done = _start(script, out, *second)
    assert done.wait(timeout=120) == 0


@pytest.mark.slow  # real processes: about 10 s each on a loaded machine
@pytest.mark.skipif(os.name != "posix", reason="flock and SIGKILL are POSIX")
def test_the_lock_of_a_killed_run_is_taken_over_with_a_message(tmp_path):
    script, out = tmp_path / "run.py", tmp_path / "report"
    script.write_text(SCRIPT)
    killed = _start(script, out, seconds="120")
    try:
        holder = _holder(out, killed)
    finally:
        killed.send_signal(signal.SIGKILL)
        killed.communicate(timeout=60)
    assert json.loads((out / _folder.LOCK).read_text()) == holder  # left behind, stale
    resumed = _start(script, out, "--resume")
    _, err = resumed.communicate(timeout=120)
    assert resumed.returncode == 0, err
    assert (f"taking over the lock of {out}: the run that left it (pid {killed.pid} on "
            f"{holder['host']}, started {holder['started']}) is no longer running") in err
    assert _manifest(out)["status"] == "complete" and not (out / _folder.LOCK).exists()


def test_the_lock_records_its_holder_and_refuses_a_second_holder(tmp_path):
    import socket

    with _folder.report_lock(tmp_path) as record:
        assert json.loads((tmp_path / _folder.LOCK).read_text()) == record
        assert record["pid"] == os.getpid() and record["host"] == socket.gethostname()
        with (pytest.raises(report_module.ReportError, match=f"pid {os.getpid()} on"),
              _folder.report_lock(tmp_path)):
            pass
        assert (tmp_path / _folder.LOCK).exists()  # the refused one left the lock alone
    assert not (tmp_path / _folder.LOCK).exists()
    (tmp_path / _folder.LOCK).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(report_module.ReportError, match="is a link"), _folder.report_lock(tmp_path):
        pass
