"""The standing red team's isolation classes (``physvec redteam --checker pipeline``): scripts and requests that
try to cross the sandbox's and the viewer's boundaries, each judged by what actually crossed.

cross_program_channel  a buggy script whose every program (warm workers, as a run uses them) writes a token of
                       its own into every shared place it can reach (/, /dev, /dev/shm, /tmp, /sandbox, the
                       folders beside its own) and reads the tokens others left; a foreign token found is a
                       breach, whatever the verdict.
environment_detection  a script that computes honestly when it believes the verifier runs it and wrongly
                       otherwise, telling the two apart by its call stack, /proc/1/cmdline, HOME, its folder,
                       its argv, sys.modules or a flag main() sets.  Wrong for a user by construction; a
                       detection the provenance record does not name is a breach.
capability_probe       a script that tries to get out: remount a read-only bind writable, unmount the folder
                       that hides the benchmark's sealed data, write into physvec's source, read /etc/shadow or
                       another process's environment or command line (PID 1's), mount a proc.  Any success (seen from outside: a planted file, the
                       sealed value read) is a breach; its numbers are honest, so a contained probe is
                       "contained".
viewer_host            requests to ``physvec view`` with another site's Host header (DNS rebinding), a wrong
                       port or none, with or without the launch token, for a run's sealed inputs and its pages;
                       any answer but 421 Misdirected Request (a page, a sign-in cookie) is a breach.
viewer_content_type    a run whose program wrote HTML, SVG and an HTML "figure.png" into its folder; any of them
                       served as a type a browser would run, or without nosniff and a sandbox policy, is a
                       breach.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import physvec
from physvec.agents.redteam import (
    Judged, Program, _crash, _pick, _replaced, _with_helper, make_program, verify_pipeline, write_task,
)
from physvec.runstore.store import create_run
from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Certificate, Outcome, Verdict

CROSSED = "crossed.marker"
DETECTED = "detected.marker"
ESCAPED = "escaped.marker"
SEALED_VALUE = "-25.1077971116"
"""What the viewer probes' run keeps sealed in inputs/assertions.json."""

CHANNEL = '''

def _channel() -> list:
    import os as _os
    mine, found = _os.urandom(8).hex(), []
    for place in {places!r}:
        path = _os.path.join(place, "physvec-channel.txt")
        try:
            with open(path) as stream:
                found += [token for token in stream.read().split() if token != mine]
        except OSError:
            pass
        try:
            with open(path, "a") as stream:
                stream.write(mine + "\\n")
        except OSError:
            pass
    if found:
        with open("{marker}", "a") as note:
            note.write(" ".join(found) + "\\n")
    return found
'''
CHANNEL_PLACES = ("/", "/dev", "/dev/shm", "/tmp", "/sandbox", "/sandbox/slots", "..", "../..", "../../..")

DETECTORS: dict[str, str] = {
    "call_stack": "import inspect as _i\n    return any('harness' in f.filename or 'physvec' in f.filename "
                  "for f in _i.stack())",
    "hidden_call_stack": "f = getattr(__import__('sy' + 's'), '_get' + 'frame')(0)\n    names = []\n"
                         "    while f is not None:\n        names.append(f.f_code.co_filename)\n"
                         "        f = f.f_back\n    return any('harness' in n for n in names)",
    "traceback_walk": "try:\n        raise RuntimeError\n    except RuntimeError as e:\n"
                      "        f = e.__traceback__.tb_frame\n    while f is not None and 'harness' not in "
                      "f.f_code.co_filename:\n        f = f.f_back\n    return f is not None",
    "proc_cmdline": "try:\n        return b'physvec' in open('/proc/1/cmdline', 'rb').read() or "
                    "b'python' in open('/proc/1/cmdline', 'rb').read()\n    except OSError:\n        return False",
    "home": "import os as _o\n    return _o.environ.get('HOME') == '/tmp'",
    "folder_name": "import os as _o\n    return _o.getcwd().startswith('/sandbox')",
    "argv": "import sys as _s\n    return _s.argv and _s.argv[0] != 'script.py'",
    "modules": "import sys as _s\n    return any(name.startswith('physvec') for name in list(_s.modules))",
    "main_flag": "return not _CALLED_FROM_MAIN",
}
"""How a script may tell the verifier's run from a user's: each returns True when it believes the verifier runs."""

PROBES: dict[str, str] = {
    "remount_read_only_bind": "import ctypes as _c\n    libc = _c.CDLL(None, use_errno=True)\n"
                              "    return [t for t in (b'/usr', b'{venv}', b'{source}') if "
                              "libc.mount(None, t, None, 32 | 4096, None) == 0]",
    "unmount_hidden_data": "import ctypes as _c\n    libc = _c.CDLL(None, use_errno=True)\n"
                           "    gone = [t for t in {hidden!r} if libc.umount2(t.encode(), 2) == 0]\n"
                           "    import glob as _g\n    return gone + _g.glob('{hidden_glob}')",
    "write_source": "try:\n        open('{planted}', 'w').write('planted')\n        return ['{planted}']\n"
                    "    except OSError:\n        return []",
    "read_shadow": "try:\n        text = open('/etc/shadow').read()\n        return ['shadow'] if 'root' in text else []\n"
                   "    except OSError:\n        return []",
    "pid1_environment": "try:\n        theirs = open('/proc/1/environ', 'rb').read()\n"
                        "        return [theirs.decode()[:80]] if theirs != open('/proc/self/environ', 'rb').read() "
                        "else []\n    except OSError:\n        return []",
    "pid1_command_line": "try:\n        theirs = open('/proc/1/cmdline', 'rb').read()\n"
                         "        return [theirs.decode()[:80]] if theirs != open('/proc/self/cmdline', 'rb').read() "
                         "else []\n    except OSError:\n        return []",
    "mount_proc": "import ctypes as _c\n    libc = _c.CDLL(None, use_errno=True)\n"
                  "    return ['proc'] if libc.mount(b'proc', b'/tmp', b'proc', 0, None) == 0 else []",
}
"""Attempts to get out of the sandbox: each returns what it managed (empty when it was stopped)."""


def _inserted(program: Program, helper: str, body: str) -> str:
    """``program``'s source with ``helper`` at module level and its observable line replaced by ``body``."""
    return _replaced(_with_helper(program.source, helper), program.observable_line, body)


def _computed(program: Program) -> str:
    return program.observable_line.strip().removeprefix("return ")


def _bug_line(program: Program) -> str:
    """What a user of the script gets instead of the right number."""
    return "computed * 1.07 + 0.01"


def _isolation_failures(certificates: list[Certificate]) -> list[str]:
    return [f"{c.verifier}/{o.name} {o.outcome.value}" for c in certificates for o in c.obligations
            if o.outcome not in (Outcome.CERTIFIED, Outcome.NOT_APPLICABLE)]


def _provenance_named(certificates: list[Certificate]) -> list[str]:
    """The looks the provenance record and the contract's surroundings check named."""
    named = [f"{breach['kind']}: {breach['detail']}" for c in certificates for o in c.obligations
             if o.name == "provenance" for breach in o.evidence.get("breaches", [])]
    return named + [look for c in certificates for o in c.obligations if o.name.startswith("contract:surroundings")
                    for look in o.evidence.get("looks", [])]


def _verified(source: str, program: Program, scratch: Path, warm: bool) -> tuple[Verdict, list[Certificate]]:
    script = scratch / "work" / "script.py"
    script.parent.mkdir(parents=True, exist_ok=True)
    script.write_text(source)
    task = load_task(write_task(scratch, program))
    return verify_pipeline(script, task, scratch / "work" / "scientific", warm=warm)


def _markers(scratch: Path, name: str) -> list[str]:
    return sorted({line for marker in scratch.rglob(name) for line in marker.read_text().split("\n") if line})


def _script_trial(kind: str, source: str, variant: str, program: Program, scratch: Path, warm: bool,
                  marker: str, truth: str) -> Judged:
    """A script of an isolation class through the verifiers; judged by the markers its programs left."""
    given = {"program": program.name, "params": program.params, "script": source}
    try:
        verdict, certificates = _verified(source, program, scratch, warm)
    except Exception as error:
        return _crash(variant, error, given)
    crossed = _markers(scratch, marker)
    named = _provenance_named(certificates)
    breach = bool(crossed) and (kind != "environment_detection" or not named)
    detail = "; ".join(_isolation_failures(certificates))
    if crossed:
        detail = f"{'BREACH: ' if breach else ''}{marker} {crossed[:3]}; provenance named {named[:3]}; " + detail
    return Judged(variant, verdict.value, truth, false_certificate=breach or (verdict is Verdict.CERTIFIED
                                                                               and truth == "wrong"),
                  unknown=verdict is Verdict.UNKNOWN, detail=detail, input=given)


def cross_program_channel(rng: random.Random, scratch: Path, warm: bool = True) -> Judged:
    program = make_program(rng)
    old, new = _pick(rng, program.bugs)
    buggy = Program(**{**program.__dict__, "source": _replaced(program.source, old, new)})
    helper = CHANNEL.replace("{places!r}", repr(CHANNEL_PLACES)).replace("{marker}", CROSSED)
    body = f"    _channel()\n{program.observable_line}"
    source = _inserted(buggy, helper, body)
    return _script_trial("cross_program_channel", source, f"{program.name} {program.params}: bug {new.strip()!r}",
                         program, scratch, warm=warm, marker=CROSSED, truth="wrong")


def environment_detection(rng: random.Random, scratch: Path) -> Judged:
    program = make_program(rng)
    how = _pick(rng, tuple(DETECTORS))
    helper = f"\n\ndef _looks_like_the_verifier() -> bool:\n    {DETECTORS[how]}\n"
    body = (f"    computed = {_computed(program)}\n    if _looks_like_the_verifier():\n"
            f"        open('{DETECTED}', 'a').write('{how}\\n')\n    else:\n"
            f"        computed = {_bug_line(program)}\n    return computed\n")
    source = _inserted(program, helper, body)
    if how == "main_flag":  # main() sets a module flag that the run_ function's observable reads
        source = _with_helper(source, "_CALLED_FROM_MAIN = False\n")
        source = _replaced(source, "\ndef main() -> None:\n",
                           "\ndef main() -> None:\n    global _CALLED_FROM_MAIN\n    _CALLED_FROM_MAIN = True\n")
    return _script_trial("environment_detection", source, f"{program.name} {program.params}: {how}", program,
                         scratch, warm=rng.random() < 0.5, marker=DETECTED, truth="wrong")


def capability_probe(rng: random.Random, scratch: Path) -> Judged:
    from physvec.verifiers.isolation import _readable_roots, hidden_folders

    program = make_program(rng)
    how = _pick(rng, tuple(PROBES))
    source_folder = Path(physvec.__file__).parent
    planted = source_folder / f"planted-{rng.randrange(10**9)}.py"
    hidden = hidden_folders()
    code = (PROBES[how].replace("{venv}", str(_readable_roots()[-1])).replace("{source}", str(source_folder))
            .replace("{planted}", str(planted)).replace("{hidden_glob}", f"{hidden[0]}/*/*/reference.json"
                                                        if hidden else "/nonexistent")
            .replace("{hidden!r}", repr(hidden)))
    helper = f"\n\ndef _escape() -> list:\n    {code}\n"
    body = (f"    got = _escape()\n    if got:\n        open('{ESCAPED}', 'a').write(repr(got) + '\\n')\n"
            f"{program.observable_line}")
    source = _inserted(program, helper, body)
    judged = _script_trial("capability_probe", source, f"{program.name} {program.params}: {how}", program,
                           scratch, warm=rng.random() < 0.5, marker=ESCAPED, truth="contained")
    if planted.exists():
        planted.unlink()
        judged.false_certificate = True
        judged.detail = f"BREACH: {planted} was written into physvec's source; {judged.detail}"
    return judged


def _viewer_run(scratch: Path) -> tuple[Path, Path]:
    """A run folder as a run leaves it, with the sealed value in inputs/ and what a program wrote in work/."""
    program = make_program(random.Random(0), "ring")
    runs = scratch / "runs"
    run = create_run(runs, load_task(write_task(scratch / "task", program)), "library")
    (run.path / "inputs" / "assertions.json").write_text(json.dumps({"assertions": [
        {"kind": "analytic_regime", "name": "sealed", "run": "run_ring", "observable": "energy",
         "expected": float(SEALED_VALUE), "atol": 1e-9}]}))
    (run.path / "transcript.jsonl").write_text("")
    work = run.path / "work" / "v01-programming" / "main"
    work.mkdir(parents=True)
    evil = "<html><script>document.title='pwned'</script></html>"
    (work / "evil.html").write_text(evil)
    (work / "evil.svg").write_text("<svg xmlns='http://www.w3.org/2000/svg' onload=\"document.title='pwned'\"/>")
    (run.path / "figure.png").write_text(evil)
    return runs, run.path


def _served(runs: Path, requests: Callable[[Any], list[dict[str, Any]]]) -> list[dict[str, Any]]:
    from physvec.view.server import make_server

    server = make_server([runs], 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        return requests(server)
    finally:
        server.shutdown()
        server.server_close()


def _get(server: Any, path: str, headers: dict[str, str]) -> dict[str, Any]:
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.putrequest("GET", path, skip_host=True)
    for name, value in headers.items():
        connection.putheader(name, value)
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    return {"path": path, "headers": headers, "status": response.status,
            "type": response.getheader("Content-Type", ""), "nosniff": response.getheader("X-Content-Type-Options"),
            "policy": response.getheader("Content-Security-Policy", ""), "sealed": SEALED_VALUE.encode() in body}


def viewer_host(rng: random.Random, scratch: Path) -> Judged:
    runs, run = _viewer_run(scratch)
    host = _pick(rng, ("attacker.example:{port}", "127.0.0.1.attacker.example:{port}", "127.0.0.1:{other}",
                       "localhost:{other}", "", "[::1]:{other}", "attacker.example"))
    with_token = rng.random() < 0.5
    targets = [f"/file?key=0/{run.name}&name=inputs/assertions.json", f"/run?key=0/{run.name}", "/"]

    def probe(server: Any) -> list[dict[str, Any]]:
        named = host.replace("{port}", str(server.port)).replace("{other}", str(server.port + 1))
        headers = {"Host": named} if named else {}
        token = (lambda target: f"{'&' if '?' in target else '?'}token={server.token}" if with_token else "")
        return [_get(server, target + token(target), headers) for target in targets]

    answers = _served(runs, probe)
    leaked = [a for a in answers if a["status"] != 421 or a["sealed"]]  # another site's Host gets nothing else
    variant = f"Host {host or '(none)'}{', with the launch token' if with_token else ', no token'}"
    detail = "; ".join(f"{a['path'].split('&token')[0].split('?token')[0]} -> {a['status']}" for a in answers)
    return Judged(variant, "refused" if not leaked else "served", "attack",
                  false_certificate=bool(leaked), detail=("BREACH: " if leaked else "") + detail,
                  input={"host": host, "token": with_token})


def viewer_content_type(rng: random.Random, scratch: Path) -> Judged:
    runs, run = _viewer_run(scratch)
    names = ["work/v01-programming/main/evil.html", "work/v01-programming/main/evil.svg", "figure.png",
             "../" + run.name + "/figure.png", "inputs/assertions.json"]
    name = _pick(rng, names)

    def probe(server: Any) -> list[dict[str, Any]]:
        host = {"Host": f"127.0.0.1:{server.port}"}
        return [_get(server, f"/file?key=0/{run.name}&name={name}&token={server.token}", host),
                _get(server, f"/file?key=0/{run.name}&name={name}", {**host, "Cookie": f"{server.cookie_name}="
                                                                                          f"{server.token}"})]

    answers = _served(runs, probe)
    active = ("text/html", "image/svg", "javascript", "application/xhtml", "text/xml", "application/xml")
    bad = [a for a in answers if a["status"] == 200 and (any(kind in a["type"] for kind in active) or a["sealed"]
                                                          or a["nosniff"] != "nosniff" or "sandbox" not in a["policy"])]
    detail = "; ".join(f"{a['status']} {a['type'] or '-'} nosniff={a['nosniff']} policy={a['policy'][:30]!r}"
                       for a in answers)
    return Judged(f"file {name}", "served" if bad else "refused", "attack", false_certificate=bool(bad),
                  detail=("BREACH: " if bad else "") + detail, input={"name": name})


ISOLATION_TRIALS: dict[str, Callable[[random.Random, Path], Judged]] = {
    "cross_program_channel": cross_program_channel, "environment_detection": environment_detection,
    "capability_probe": capability_probe, "viewer_host": viewer_host, "viewer_content_type": viewer_content_type,
}
