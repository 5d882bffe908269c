"""Runtime provenance: every look a sandboxed program takes at its surroundings, recorded where it cannot reach.

A script that can tell the verifier's run from a user's can compute honestly for one and wrongly for the
other: by its call stack (did main() call it?), its folder name, HOME, its argv, /proc/1/cmdline.  The
sandbox gives every program the same view, but it cannot make that view a user's shell.  So the interpreter
that runs a program carries an audit hook (PEP 578, verifiers/audit_hook.py), installed before the program's
first line, that records each such look as a breach of one of KINDS:

- files: opening or listing a file outside the program's folder, its /tmp and the interpreter's own files;
- proc: reading /proc;
- environment: reading an environment variable other than the thread settings, or listing them;
- argv: reading its argv; path: reading its working folder or sys.path;
- frames: inspecting call frames (sys._getframe, inspect's and traceback's stack walks, a traceback's,
  generator's or coroutine's frame, tracing, profiling);
- processes: starting one; network: connecting, binding or sending;
- tampering: ctypes, the garbage collector's object lists, another audit hook, importing a module made for
  looking at the interpreter or the machine, making or replacing code under a name it does not own.

*Who* looked decides.  Libraries read /proc, spawn ``uname`` and walk frames for their own reasons, so an
event is the program's when, walking the stack outwards from where it was raised and passing over the
standard library, the first frame met is the program's own code (a file of its folder, or code it compiled)
rather than a library's (site-packages, physvec's source, the import system).  Where CPython raises no
event (os.environ, sys.argv, os.getcwd), watched stand-ins raise one (verifiers/watched.py).

The record is a pipe the host (or the warm worker) reads; the program holds only its write end, at
RECORD_FD.  Only the hook writes to it, so every line is a breach, and bytes the hook did not write are one
too.  A program that closes or replaces the descriptor is stopped with RECORD_LOST by the hook's next write,
before the look it was about to record happens.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from physvec.verifiers.certificate import Obligation

RECORD_FD = 3
"""The descriptor of the record pipe in the program (the cold launcher and the warm worker put it there)."""
RECORD_LOST = 87
"""The exit status of a program whose record was closed or replaced under its hook."""
MAX_LINES = 80
"""Distinct breaches written per program: at most ~730 bytes each, they fit a pipe's 64 KiB, so the hook never
waits for its reader."""
RECORD_BYTES = 60_000
"""The most of a record its reader keeps."""
DETAIL_CHARS = 160
READ_EVENT = "physvec.read"
"""The audit event the watched stand-ins raise."""
THREAD_SETTINGS = frozenset({"OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS"})
"""Environment variables a program may read: the thread share it was given."""
KINDS = ("files", "proc", "environment", "argv", "path", "frames", "processes", "network", "tampering")
INSPECTION_MODULES = frozenset({"inspect", "traceback", "pdb", "bdb", "trace", "cProfile", "profile"})
"""Standard modules that reach for frames on behalf of whoever called them; other standard modules (warnings,
typing, enum, collections.namedtuple) read a frame for their own bookkeeping."""
FORBIDDEN_IMPORTS = frozenset({
    "inspect", "traceback", "ctypes", "_ctypes", "gc", "subprocess", "_posixsubprocess", "multiprocessing", "pty",
    "marshal", "posix", "pwd", "grp", "getpass", "psutil", "importlib", "sysconfig", "site", "faulthandler",
    "tracemalloc", "dis", "pdb", "bdb", "socket", "_socket"})
"""Modules a program's own code may not import: each is made for looking at the interpreter, the process or the
machine.  (physvec itself is not among them: the verifier's own launchers in a program's folder import its
harness; the script contract forbids a script to.)"""
PROVENANCE = "provenance"


@dataclass(frozen=True)
class Breach:
    """One look at its surroundings that a program took, as its record says."""

    kind: str
    event: str
    detail: str
    where: str

    def describe(self) -> str:
        where = f" at {self.where}" if self.where else ""
        return f"{self.kind} ({self.event}): {self.detail}{where}"


FORGED = Breach("tampering", "record", "the record holds bytes the hook did not write", "")
LOST = Breach("tampering", "record", "the program closed or replaced its record (stopped by its hook)", "")


def read_record(data: bytes, returncode: int | None = None) -> tuple[Breach, ...]:
    """The breaches in what a record pipe held (and the program's exit status, which tells a lost record)."""
    breaches: list[Breach] = []
    for line in data.splitlines():
        try:
            entry = json.loads(line)
            if not isinstance(entry, dict) or set(entry) != {"kind", "event", "detail", "where"}:
                raise ValueError(line)
            breaches.append(Breach(**{name: str(value) for name, value in entry.items()}))
        except ValueError:
            breaches.append(FORGED)
            break
    if returncode == RECORD_LOST:
        breaches.append(LOST)
    return tuple(breaches)


@dataclass(frozen=True)
class ProgramRecord:
    """What one program's record says: where it ran, whether a hook watched it, and its breaches."""

    folder: str
    recorded: bool
    breaches: tuple[Breach, ...] = ()


def provenance_obligation(records: list[ProgramRecord]) -> Obligation:
    """One guard obligation for a verification stage's programs (it can fail a stage, never certify it): failed,
    naming every breach and the program it was in, whatever the numbers said; certified when every program was
    watched and none breached; unknown when a program ran without a hook (a Julia program, or a program that
    is not ``python FILE``)."""
    from physvec.verifiers.certificate import Obligation, Outcome  # pydantic: not in a sandboxed program

    breaches = [(record.folder, breach) for record in records for breach in record.breaches]
    unwatched = sorted(record.folder for record in records if not record.recorded)
    evidence = {"programs": len(records), "unwatched": unwatched,
                "breaches": [{"program": folder, "kind": b.kind, "event": b.event, "detail": b.detail,
                              "where": b.where} for folder, b in breaches]}
    if breaches:
        shown = "; ".join(f"{b.describe()} in {folder}" for folder, b in breaches[:5])
        more = f" (and {len(breaches) - 5} more)" if len(breaches) > 5 else ""
        outcome, message = Outcome.FAILED, (f"the script looked at its surroundings, which a user's run would "
                                            f"not show it: {shown}{more}. Compute from the parameters only")
    elif not records:
        outcome, message = Outcome.NOT_APPLICABLE, "no program ran in this stage"
    elif unwatched:
        outcome, message = Outcome.UNKNOWN, f"{len(unwatched)} of {len(records)} programs ran without a provenance hook"
    else:
        outcome, message = Outcome.CERTIFIED, (f"{len(records)} programs watched from their first line: none "
                                               "looked at its surroundings")
    return Obligation(name=PROVENANCE, category=PROVENANCE, outcome=outcome, message=message, evidence=evidence,
                      guard=True)
