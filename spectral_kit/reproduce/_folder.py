"""A report folder, trusted no further than itself: safe paths, one writer at a time.

A report folder may come from a colleague or an archive, so nothing in it is trusted:

* every path the report code reads, writes or deletes is resolved (links followed) and must
  lie inside the folder (:func:`inside`); ``sections/`` and ``figures/`` must be folders of
  the report itself (:func:`subfolder`);
* ``manifest.json`` names only the files the kit itself writes for each section
  (``sections/<stem>.md``, ``figures/<stem>.png``); anything else -- an absolute path, a
  ``..``, a Windows drive or UNC path, a link out of the folder -- rejects the whole manifest
  with :class:`UnsafeManifest` before anything is deleted or read (:func:`check_manifest`);
* one ``reproduce`` writes into a folder at a time (:func:`report_lock`): a lock file records
  the writer's pid, host and start time; a second run is refused with a message naming them,
  and a lock left by a run that died (its pid no longer holds it) is taken over, saying so.
"""

from __future__ import annotations

import contextlib
import datetime as _dt
import errno
import json
import os
import re
import socket
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

try:  # POSIX: the kernel releases the lock of a process that dies, however it dies
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

__all__ = [
    "LOCK",
    "ReportError",
    "UnsafeManifest",
    "check_manifest",
    "inside",
    "probe_writable",
    "report_lock",
    "section_files",
    "stem",
    "subfolder",
]

#: The lock file of a report folder (a dot file: it does not make the folder look foreign).
LOCK = ".spectral-kit-reproduce.lock"

#: A registry key: words of letters, digits, ".", "_" or "-" joined by "/", none starting
#: with a dot (so no "..", no absolute or drive path, no backslash).
_KEY = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*(?:/[A-Za-z0-9][A-Za-z0-9._-]*)*")


class ReportError(ValueError):
    """A report cannot be written where or how it was asked (one line, for the command)."""


class UnsafeManifest(ReportError):
    """``manifest.json`` names a path outside its report folder, or is malformed."""


def stem(key: str) -> str:
    """The file name stem of a reproduction's section and figure."""
    return key.replace("/", "__")


def section_files(key: str) -> dict[str, str]:
    """The files the kit writes for section ``key``, relative to the report folder."""
    s = stem(key)
    return {"file": f"sections/{s}.md", "figure": f"figures/{s}.png",
            "traceback": f"sections/{s}.traceback.txt"}


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def inside(out: Path, name: str) -> Path:
    """``out / name`` after checking that it lies inside ``out`` with every link followed.

    Raises
    ------
    UnsafeManifest
        For an absolute, drive (``C:``), UNC or backslashed path, a ``..`` or empty part, or a
        path whose links lead out of ``out``.
    """
    if (not isinstance(name, str) or not name or "\\" in name or "\0" in name
            or name.startswith("/") or re.match(r"[A-Za-z]:", name)
            or any(part in ("", ".", "..") for part in name.split("/"))):
        raise UnsafeManifest(f"{name!r} is not a path inside the report folder")
    root = _real(out)
    real = _real(out / name)
    if real != root and root not in real.parents:
        raise UnsafeManifest(f"{name!r} leads out of the report folder (to {real})")
    return out / name


def subfolder(out: Path, name: str) -> Path:
    """``out / name`` as a folder of the report: created if missing, refused if it is a file
    or a link out of the report folder."""
    path = out / name
    try:
        inside(out, name)
    except UnsafeManifest:
        raise ReportError(
            f"--out: {path} is a link to {_real(path)}, outside the report folder; a report "
            "writes only inside its folder: remove the link or choose another --out"
        ) from None
    if path.exists() and not path.is_dir():
        raise ReportError(f"--out: {path} is a file, not a folder; move it away or choose "
                          "another --out")
    path.mkdir(exist_ok=True)
    return path


def probe_writable(folder: Path) -> None:
    """A real write in ``folder`` (permissions, read-only file systems and quotas show here).

    Raises
    ------
    ReportError
        Naming the folder, the reason and the fix; nothing of the report has been changed.
    """
    try:
        fd, probe = tempfile.mkstemp(dir=folder, prefix=".write-probe.")
        os.close(fd)
        os.unlink(probe)
    except OSError as exc:
        raise ReportError(
            f"--out: cannot write in {folder} ({exc.strerror or exc}); make it writable or "
            "choose another folder -- the report there was left as it was"
        ) from None


def check_manifest(out: Path, manifest: dict) -> dict:
    """The manifest's sections, each checked: only the files the kit writes, inside ``out``.

    Raises
    ------
    UnsafeManifest
        Naming the section and the offending entry; nothing has been read or deleted.
    """
    where = f"{out / 'manifest.json'}"
    sections = manifest.get("sections", {})
    if not isinstance(sections, dict):
        raise UnsafeManifest(f"--out: {where} is malformed ('sections' is not a mapping); "
                             f"{_FIX.format(manifest=where)}")
    for key, entry in sections.items():
        try:
            if not isinstance(key, str) or not _KEY.fullmatch(key):
                raise UnsafeManifest(f"the section name {key!r} is not a reproduction key")
            if not isinstance(entry, dict):
                raise UnsafeManifest("its entry is not a mapping")
            expected = section_files(key)
            for field in ("file", "figure"):
                value = entry.get(field)
                if value is None and field == "figure":
                    continue
                if value != expected[field]:
                    raise UnsafeManifest(f"{field} {value!r} is not the kit's "
                                         f"{expected[field]!r}")
            for name in expected.values():
                inside(out, name)
            if not isinstance(entry.get("comparisons", []), list):
                raise UnsafeManifest("its comparisons are not a list")
            seconds = entry.get("seconds", 0.0)
            if isinstance(seconds, bool) or not isinstance(seconds, (int, float)):
                raise UnsafeManifest(f"seconds {seconds!r} is not a number")
            for field in ("status", "paper", "title"):
                if not isinstance(entry.get(field, ""), str):
                    raise UnsafeManifest(f"{field} {entry[field]!r} is not text")
        except UnsafeManifest as exc:
            raise UnsafeManifest(
                f"--out: {where} cannot be trusted: section {key!r}: {exc}; nothing was read "
                f"or deleted. {_FIX.format(manifest=where)}"
            ) from None
    return sections


_FIX = ("A report folder never points outside itself: delete {manifest} to start the report "
        "afresh, or choose another --out")


# -- one writer at a time ---------------------------------------------------------------------

def _holder_text() -> str:
    return json.dumps({
        "pid": os.getpid(), "host": socket.gethostname(),
        "started": _dt.datetime.now().isoformat(timespec="seconds"),
        "command": " ".join(sys.argv[:1] + sys.argv[1:])[:300],
    })


def _read_holder(fd: int) -> dict:
    os.lseek(fd, 0, os.SEEK_SET)
    raw = os.read(fd, 4096).decode("utf-8", "replace").strip()
    if not raw:
        return {}
    try:
        holder = json.loads(raw)
    except ValueError:
        return {"pid": "?", "host": "?", "started": "?"}
    return holder if isinstance(holder, dict) else {}


def _pid_alive(pid: object) -> bool | None:
    """Whether ``pid`` runs on this machine (None where that cannot be asked safely)."""
    if os.name != "posix" or not isinstance(pid, int) or pid <= 0:
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process
        return True
    return True


def _describe(holder: dict) -> str:
    return (f"pid {holder.get('pid', '?')} on {holder.get('host', '?')}, started "
            f"{holder.get('started', '?')}")


def _refuse(out: Path, holder: dict) -> ReportError:
    pid = holder.get("pid", "?")
    return ReportError(
        f"--out: {out} is being written by another spectral-kit reproduce "
        f"({_describe(holder)}); two runs into one folder would each overwrite the other's "
        f"report. Wait for it to finish (or stop it: kill {pid}), then rerun with --resume "
        "to add what is missing, or choose another --out"
    )


@contextlib.contextmanager
def report_lock(out: Path, *, stream=None) -> Iterator[dict]:
    """Hold the report folder's lock while the block runs; yield the holder record.

    The lock is an exclusive ``flock`` on :data:`LOCK`, which holds the writer's pid, host
    and start time. The kernel releases it when its process ends, however it ends, so a lock
    file found with a record but free is stale: it is taken over with a message on
    ``stream`` (default stderr). A lock held by a live run raises :class:`ReportError` naming
    that run. Where ``flock`` is missing (Windows) the lock file is created exclusively and a
    leftover one is reported with the way to remove it.
    """
    stream = stream or sys.stderr
    path = out / LOCK
    if path.is_symlink():
        raise ReportError(f"--out: {path} is a link; a lock file is the kit's own: remove it")
    fd = _acquire(out, path, stream)
    try:
        record = _holder_text()
        os.ftruncate(fd, 0)
        os.lseek(fd, 0, os.SEEK_SET)
        os.write(fd, record.encode())
        os.fsync(fd)
        yield json.loads(record)
    finally:
        # Unlink while still holding the lock, then release: a run that opened the old file
        # notices (its inode is no longer the path's) and opens the path again.
        with contextlib.suppress(OSError):
            os.unlink(path)
        os.close(fd)


def _acquire(out: Path, path: Path, stream) -> int:
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    if fcntl is None:  # pragma: no cover - Windows
        try:
            return os.open(path, flags | os.O_EXCL, 0o644)
        except FileExistsError:
            fd = os.open(path, os.O_RDONLY)
            try:
                holder = _read_holder(fd)
            finally:
                os.close(fd)
            raise ReportError(
                f"{_refuse(out, holder)}; if no such run is active any more, delete {path}"
            ) from None
    for _ in range(20):
        fd = os.open(path, flags, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = _read_holder(fd)
            os.close(fd)
            if exc.errno in (errno.EWOULDBLOCK, errno.EAGAIN, errno.EACCES):
                raise _refuse(out, holder) from None
            raise
        try:
            same = os.fstat(fd).st_ino == os.stat(path, follow_symlinks=False).st_ino
        except FileNotFoundError:
            same = False
        if not same:  # the previous holder removed the file as we opened it: open it again
            os.close(fd)
            continue
        stale = _read_holder(fd)
        if stale:
            here = stale.get("host") == socket.gethostname()
            gone = here and _pid_alive(stale.get("pid")) is False
            state = "is no longer running" if gone else "no longer holds it"
            print(f"spectral-kit reproduce: taking over the lock of {out}: the run that left "
                  f"it ({_describe(stale)}) {state}", file=stream, flush=True)
        return fd
    raise ReportError(f"--out: could not take the lock {path}; try again")
