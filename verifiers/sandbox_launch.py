"""Applies the sandbox's resource limits to itself, then becomes the program to run.

Limits are set here, in a fresh interpreter, rather than in a ``preexec_fn``: forking a
multi-threaded verifier and running Python before ``exec`` can deadlock, an exec'd launcher cannot.
Usage: ``python -m physvec.verifiers.sandbox_launch LIMITS_JSON -- PROGRAM [ARGS...]``.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys

_PR_SET_PDEATHSIG = 1


def die_with_parent() -> None:
    """Ask Linux to kill this process if the process that started it dies (e.g. SIGKILL)."""
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
    except (OSError, AttributeError):
        pass


def apply_limits(limits: dict[str, int]) -> None:
    """The sandbox's per-program limits on this process: CPU seconds, address space, file size, no core."""
    cpu = limits["cpu_s"]
    resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 5))
    resource.setrlimit(resource.RLIMIT_AS, (limits["memory_bytes"], limits["memory_bytes"]))
    resource.setrlimit(resource.RLIMIT_FSIZE, (limits["file_bytes"], limits["file_bytes"]))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def main(argv: list[str]) -> None:
    limits_json, separator, *program = argv
    if separator != "--" or not program:
        raise SystemExit("usage: python -m physvec.verifiers.sandbox_launch LIMITS_JSON -- PROGRAM [ARGS...]")
    die_with_parent()
    apply_limits(json.loads(limits_json))
    os.execvp(program[0], program)


if __name__ == "__main__":
    main(sys.argv[1:])
