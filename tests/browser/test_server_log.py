"""The server-log check fails on the kit's tracebacks and lets through only jupyter_server's
own kernel-list race, whose three log blocks and the browser's 500 it records as ignored, and
the server's refusal of a late socket to a kernel the harness itself shut down."""

from __future__ import annotations

from pathlib import Path

from browser_harness import ConsoleLog, Findings, Server, check_server_log, record_console

RACE = """\
[I 2026-11-27 06:56:46.020 ServerApp] Kernel started: 0b5e
[E 2026-11-27 06:56:46.243 ServerApp] Uncaught exception GET /api/kernels?1795762606031 (127.0.0.1)
    HTTPServerRequest(protocol='http', host='127.0.0.1:50635', method='GET', uri='/api/kernels?1795762606031', version='HTTP/1.1', remote_ip='127.0.0.1')
    Traceback (most recent call last):
      File "traitlets/traitlets.py", line 652, in get
        value = obj._trait_values[self.name]
    KeyError: 'last_activity'

    During handling of the above exception, another exception occurred:

    Traceback (most recent call last):
      File "jupyter_server/services/kernels/handlers.py", line 41, in get
        kernels = await ensure_async(km.list_kernels())
      File "jupyter_server/services/kernels/kernelmanager.py", line 558, in list_kernels
        model = self.kernel_model(kernel_id)
      File "jupyter_server/services/kernels/kernelmanager.py", line 544, in kernel_model
        "last_activity": isoformat(kernel.last_activity),
    traitlets.traitlets.TraitError: No default value found for last_activity trait
[E 2026-11-27 06:56:46.390 ServerApp] {
      "Host": "127.0.0.1:50635",
      "Accept": "*/*"
    }
[E 2026-11-27 06:56:46.391 ServerApp] 500 GET /api/kernels?1795762606031 (u@127.0.0.1) 218.54ms
"""

KIT_ERROR = """\
[IPKernelApp] ERROR | Exception in widget callback
    Traceback (most recent call last):
      File "spectral_kit/widgets/base.py", line 10, in _render
    RuntimeError: deliberately broken update
"""


def _server(tmp_path: Path, text: str) -> Server:
    log = tmp_path / "server.log"
    log.write_text(text)
    return Server("jupyterlab", "http://127.0.0.1:1", None, log, tmp_path)


def test_the_kernel_list_race_is_recorded_as_ignored(tmp_path):
    findings = Findings("race")
    assert check_server_log(_server(tmp_path, RACE), 0, findings)
    assert findings.server == []
    assert len(findings.ignored_console) == 3


def test_other_errors_still_fail_beside_the_race(tmp_path):
    findings = Findings("race and a kit error")
    assert check_server_log(_server(tmp_path, RACE + KIT_ERROR), 0, findings)
    assert len(findings.server) == 1 and "deliberately broken update" in findings.server[0]


def test_a_500_on_the_kernel_list_without_the_race_still_fails(tmp_path):
    alone = RACE.split("[E 2026-11-27 06:56:46.390")[0].replace("'last_activity'", "'name'")
    alone = alone.replace("last_activity", "name") + (
        "[E 2026-11-27 06:56:46.391 ServerApp] 500 GET /api/kernels?1 (u@127.0.0.1) 2ms\n")
    findings = Findings("another kernel-list error")
    assert not check_server_log(_server(tmp_path, alone), 0, findings)
    assert len(findings.server) == 2


def test_the_browsers_500_is_ignored_only_with_the_race():
    console = ConsoleLog("http://127.0.0.1:1")
    console.problems = [
        "console error: Failed to load resource: the server responded with a status of 500 "
        "(Internal Server Error) (at http://127.0.0.1:1/api/kernels?17957)",
        "console error: Failed to load resource: the server responded with a status of 500 "
        "(Internal Server Error) (at http://127.0.0.1:1/api/contents/x.ipynb)",
    ]
    with_race, without = Findings("with"), Findings("without")
    record_console(with_race, console, race=True)
    record_console(without, console, race=False)
    assert with_race.console == console.problems[1:] and len(with_race.ignored_console) == 1
    assert without.console == console.problems


LATE_SOCKET = """\
[E 2026-11-29 07:53:31.737 ServerApp] Uncaught exception GET /api/kernels/9004d1c5-4af5-485a-bf20-53cfac37d4ae/channels?session_id=e88d (127.0.0.1)
    HTTPServerRequest(protocol='http', host='127.0.0.1:45073', method='GET', uri='/api/kernels/9004d1c5-4af5-485a-bf20-53cfac37d4ae/channels?session_id=e88d', version='HTTP/1.1', remote_ip='127.0.0.1')
    Traceback (most recent call last):
      File "jupyter_server/services/kernels/connection/channels.py", line 351, in prepare
        raise TimeoutError(msg)
    TimeoutError: Kernel never reached an 'alive' state.
[E 2026-11-29 07:53:31.828 ServerApp] {
      "Host": "127.0.0.1:45073",
      "User-Agent": "Mozilla/5.0 (X11; Linux x86_64)"
    }
[E 2026-11-29 07:53:31.829 ServerApp] 500 GET /api/kernels/9004d1c5-4af5-485a-bf20-53cfac37d4ae/channels?session_id=e88d (u@127.0.0.1) 61471.04ms referer=None
"""


def test_a_late_socket_to_a_kernel_the_harness_shut_down_is_recorded_as_ignored(tmp_path):
    server = _server(tmp_path, LATE_SOCKET + KIT_ERROR)
    server.shut_down.add("9004d1c5-4af5-485a-bf20-53cfac37d4ae")
    findings = Findings("late socket")
    check_server_log(server, 0, findings)
    assert len(findings.ignored_console) == 3
    assert len(findings.server) == 1 and "deliberately broken update" in findings.server[0]


def test_the_same_refusal_for_a_kernel_still_in_use_fails(tmp_path):
    findings = Findings("a student's kernel")
    check_server_log(_server(tmp_path, LATE_SOCKET), 0, findings)
    assert len(findings.server) == 3 and findings.ignored_console == []
