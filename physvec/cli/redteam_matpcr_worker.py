"""`matpcr check --json` on request, in a process of its own, for the MatPCR red team (agents/redteam_matpcr.py).

It lives with the commands because it runs one: the red team names it only in the worker's command line, as
a black box it starts, so no module below the command line imports a command.

One JSON line in (the command's arguments), one JSON line out: the exit status, what the command printed, the
traceback of an exception that escaped it, and its seconds.  The red team kills this process when a call
outlives its bound, which is how a hang is recorded without blocking the campaign; the address-space limit
turns a runaway allocation into a MemoryError the reply reports, instead of the machine swapping.  Only the
standard library is imported before the command itself, so the process starts fast.

    python -m physvec.cli.redteam_matpcr_worker MEMORY_BYTES
"""

from __future__ import annotations

import contextlib
import io
import json
import os
import resource
import sys
import time
import traceback
from collections.abc import Callable
from typing import Any


def call(main: Callable[[list[str]], int], argv: list[str]) -> dict[str, Any]:
    """Run the command once, capturing its output; an argparse exit is a status, any other exception a traceback."""
    out, err = io.StringIO(), io.StringIO()
    status, escaped = None, ""
    started = time.monotonic()
    try:
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            status = main(argv)
    except SystemExit as error:
        status = error.code if isinstance(error.code, int) else 2
    except BaseException:  # noqa: BLE001 - whatever escapes the command is what the red team records
        escaped = traceback.format_exc()[-4000:]
    return {"status": status, "stdout": out.getvalue(), "stderr": err.getvalue()[-4000:], "traceback": escaped,
            "seconds": time.monotonic() - started}


def serve(memory_bytes: int) -> None:
    """Answer requests on stdin until it closes; replies go to the original stdout, which nothing else can reach."""
    hard = resource.getrlimit(resource.RLIMIT_AS)[1]
    limit = memory_bytes if hard == resource.RLIM_INFINITY else min(memory_bytes, hard)
    resource.setrlimit(resource.RLIMIT_AS, (limit, hard))
    replies = os.fdopen(os.dup(1), "w")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    from physvec.cli.matpcr import main

    replies.write(json.dumps({"ready": True}) + "\n")
    replies.flush()
    for line in sys.stdin:
        replies.write(json.dumps(call(main, json.loads(line))) + "\n")
        replies.flush()


if __name__ == "__main__":
    serve(int(sys.argv[1]))
