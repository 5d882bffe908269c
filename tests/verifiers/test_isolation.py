"""Isolation of generated programs: no sealed file, no source tree, no network, no parent's environment, no
survivor, a bounded number of processes; and where isolation cannot be had, it says why."""

from __future__ import annotations

import json
import socket
import sys
import threading
from pathlib import Path

import pytest

import physvec
from physvec.verifiers import isolation
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, run_program

FULL = isolation.probe().full
needs_isolation = pytest.mark.skipif(not FULL, reason=f"no full isolation here: {isolation.probe().describe()}")


def _run(tmp_path: Path, code: str, **limits) -> dict:
    result = run_program(SandboxJob([sys.executable, "-c", code], tmp_path / "work", SandboxLimits(**limits)))
    assert result.ok, result.stderr
    return json.loads(result.stdout)


@needs_isolation
def test_a_sealed_file_beside_the_working_folder_cannot_be_read(tmp_path):
    sealed = tmp_path / "inputs" / "assertions.json"
    sealed.parent.mkdir()
    sealed.write_text('{"expected": -25.1077971116}')
    code = ("import json, os\nfound = []\n"
            f"for path in [{str(sealed)!r}, '../inputs/assertions.json', os.path.expanduser('~/.bashrc')]:\n"
            "    try:\n        found.append(open(path).read())\n    except OSError:\n        pass\n"
            "print(json.dumps(found))\n")
    assert _run(tmp_path, code) == []


@needs_isolation
def test_benchmark_reference_data_shipped_with_physvec_is_hidden(tmp_path):
    import physvec.qmp_bench

    reference = Path(physvec.qmp_bench.__file__).parent / "tasks" / "dmrg" / "white1992-heisenberg-chain" / "reference.json"
    assert reference.is_file()
    code = (f"import json, os\ntry:\n    text = open({str(reference)!r}).read()\nexcept OSError:\n    text = None\n"
            "print(json.dumps(text))\n")
    assert _run(tmp_path, code) is None


@needs_isolation
def test_the_verifier_s_source_tree_is_read_only(tmp_path):
    target = Path(physvec.__file__).parent / "taskfiles" / "planted.py"
    code = (f"import json\ntry:\n    open({str(target)!r}, 'w').write('x')\n    print(json.dumps('written'))\n"
            "except OSError as error:\n    print(json.dumps(type(error).__name__))\n")
    assert _run(tmp_path, code) != "written" and not target.exists()


@needs_isolation
def test_no_socket_reaches_a_listener_on_the_host(tmp_path):
    listener = socket.create_server(("127.0.0.1", 0))
    port, received = listener.getsockname()[1], []
    thread = threading.Thread(target=lambda: received.append(listener.accept()), daemon=True)
    thread.start()
    code = ("import json, socket\ntry:\n"
            f"    socket.create_connection(('127.0.0.1', {port}), timeout=2).sendall(b'secret')\n"
            "    print(json.dumps('sent'))\nexcept OSError as error:\n    print(json.dumps(type(error).__name__))\n")
    assert _run(tmp_path, code) != "sent"
    thread.join(timeout=0.5)
    listener.close()
    assert received == []


@needs_isolation
def test_no_process_environment_outside_the_sandbox_is_visible(tmp_path, monkeypatch):
    monkeypatch.setenv("PHYSVEC_PARENT_SECRET", "do-not-leak")
    code = ("import glob, json\nleaks = []\nfor path in glob.glob('/proc/*/environ'):\n    try:\n"
            "        if b'do-not-leak' in open(path, 'rb').read():\n            leaks.append(path)\n"
            "    except OSError:\n        pass\nprint(json.dumps(leaks))\n")
    assert _run(tmp_path, code) == []


@pytest.mark.skipif(not (FULL and isolation.probe().process_limit), reason="no writable pids cgroup here")
def test_a_fork_bomb_meets_the_process_limit(tmp_path):
    code = ("import json, subprocess, sys\nstarted = 0\nchildren = []\ntry:\n"
            f"    for _ in range({isolation.MAX_PROCESSES + 50}):\n"
            "        children.append(subprocess.Popen(['sleep', '30']))\n        started += 1\n"
            "except OSError:\n    pass\nprint(json.dumps(started))\n")
    assert _run(tmp_path, code, wall_s=60) < isolation.MAX_PROCESSES


def test_without_bubblewrap_isolation_is_reported_as_reduced(monkeypatch):
    monkeypatch.setattr(isolation.shutil, "which", lambda name: None)
    reduced = isolation.probe.__wrapped__()
    assert not reduced.full and "bubblewrap is not installed" in reduced.describe()


def test_the_program_environment_is_an_allowlist():
    environment = isolation.sandbox_environment({"PATH": "/bin", "DATABASE_URL": "postgres://u:p@h", "LANG": "C"},
                                                threads=2, extra={"JULIA_PROJECT": "/x"})
    assert environment["PATH"] == "/bin" and environment["LANG"] == "C" and "DATABASE_URL" not in environment
    assert environment["OMP_NUM_THREADS"] == "2" and environment["JULIA_PROJECT"] == "/x"


def test_a_run_with_reduced_isolation_is_not_certified_unless_the_user_accepts_it(monkeypatch):
    from physvec.verifiers.certificate import Certificate, Obligation, Outcome, Verdict
    from physvec.verifiers.final_judge import judge_run

    monkeypatch.delenv(isolation.ALLOW_REDUCED_VARIABLE, raising=False)
    passed = Certificate(verifier="scientific", subject_digest="x", obligations=(
        Obligation(name="assertion:a", category="limiting_case", outcome=Outcome.CERTIFIED),))
    monkeypatch.setattr(isolation, "probe", lambda: isolation.Isolation(False, ("bubblewrap is not installed",)))
    refused = isolation.isolation_certificate(allow_reduced=False)
    assert judge_run([passed, refused]) is Verdict.UNKNOWN
    assert "--allow-reduced-isolation" in refused.obligations[0].message
    assert judge_run([passed, isolation.isolation_certificate(allow_reduced=True)]) is Verdict.CERTIFIED
    monkeypatch.setattr(isolation, "probe", lambda: isolation.Isolation(True))
    assert judge_run([passed, isolation.isolation_certificate(allow_reduced=False)]) is Verdict.CERTIFIED


CAPABILITIES_AND_REMOUNT = """import ctypes, json
libc = ctypes.CDLL(None, use_errno=True)
MS_RDONLY, MS_REMOUNT, MS_BIND = 1, 32, 4096
tries = {}
for target in (b"/usr", b"/tmp", b"/"):
    tries[target.decode()] = libc.mount(None, target, None, MS_REMOUNT | MS_BIND, None) == 0
print(json.dumps({"capabilities": [line.split()[1] for line in open("/proc/self/status") if line.startswith("Cap")],
                  "no_new_privs": [line.split()[1] for line in open("/proc/self/status") if line.startswith("NoNewPrivs")],
                  "remounted": tries, "unmounted": libc.umount2(b"/tmp", 2) == 0}))
"""


@needs_isolation
def test_a_cold_program_has_no_capability_and_cannot_remount_a_read_only_bind_writable(tmp_path):
    seen = _run(tmp_path, CAPABILITIES_AND_REMOUNT)
    assert set(seen["capabilities"]) == {"0000000000000000"}, "every capability set is empty, bounding included"
    assert seen["no_new_privs"] == ["1"]
    assert seen["remounted"] == {"/usr": False, "/tmp": False, "/": False} and not seen["unmounted"]


@needs_isolation
def test_etc_holds_only_what_the_loader_and_the_libraries_need(tmp_path):
    code = "import json, os\nprint(json.dumps(sorted(os.listdir('/etc'))))\n"
    expected = sorted(name for name in isolation.ETC_ALLOWLIST if Path("/etc", name).exists())
    assert _run(tmp_path, code) == expected
    assert "passwd" not in expected and "shadow" not in expected


@needs_isolation
def test_the_root_and_dev_are_read_only_and_dev_shm_is_private(tmp_path):
    code = ("import json\nwritten = []\nfor path in ('/planted', '/dev/planted', '/sandbox/planted', "
            "'/dev/shm/ok', '/tmp/ok'):\n    try:\n        open(path, 'w').write('x')\n        written.append(path)\n"
            "    except OSError:\n        pass\nprint(json.dumps(written))\n")
    assert _run(tmp_path, code) == ["/dev/shm/ok", "/tmp/ok"]


def test_interpreter_folders_are_bound_wherever_they_are_a_venv_under_tmp_included(monkeypatch, tmp_path):
    venv = tmp_path / "clone" / ".venv"
    (venv / "lib").mkdir(parents=True)
    monkeypatch.setattr(isolation.sys, "prefix", str(venv))
    binds = isolation.read_only_binds()
    assert str(venv.resolve()) in binds
    argv = isolation.bubblewrap_argv(["true"], tmp_path / "work", {})
    assert argv.index("/tmp") < argv.index(str(venv.resolve())), "/tmp is mounted first, the venv inside it"


@needs_isolation
def test_a_cold_program_is_pid_1_and_no_process_of_the_host_is_in_its_namespace(tmp_path):
    code = ("import json, os\nprint(json.dumps({'pids': sorted(int(p) for p in os.listdir('/proc') if p.isdigit()),"
            " 'same': open('/proc/1/cmdline', 'rb').read() == open('/proc/self/cmdline', 'rb').read()}))\n")
    seen = _run(tmp_path, code)
    assert seen == {"pids": [1], "same": True}, "bubblewrap's process, whose command line names host folders, is out"
