"""One process at a time per run: an exclusive advisory lock on ``run.lock`` in the run folder.

Two resumes of one run at once wrote duplicate sequence numbers, a model call twice and two opposite
``run_finished`` events.  The lock is ``flock`` on an open file: the kernel drops it when its process dies,
however it dies, so a lock is never stale, and "is anyone running this run?" has an exact answer.  The
file holds the holder's pid, host and start time, so the refusal can name who holds it.
"""

from __future__ import annotations

import fcntl
import json
import os
import socket
import time
from pathlib import Path
from types import TracebackType

LOCK_NAME = "run.lock"


class RunBusy(RuntimeError):
    """Another live process holds the run."""


class RunLock:
    """Held from ``acquire`` (or ``with``) until ``release`` or the process's death."""

    def __init__(self, run_dir: Path, name: str = LOCK_NAME) -> None:
        self.path = Path(run_dir) / name
        self._descriptor: int | None = None

    def acquire(self) -> RunLock:
        descriptor = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(descriptor, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(descriptor)
            raise RunBusy(f"{self.path.parent} is in use by {describe_holder(self.path)}") from None
        holder = {"pid": os.getpid(), "host": socket.gethostname(), "since": time.time()}
        os.ftruncate(descriptor, 0)
        os.pwrite(descriptor, json.dumps(holder).encode(), 0)
        self._descriptor = descriptor
        return self

    def release(self) -> None:
        if self._descriptor is not None:
            os.close(self._descriptor)  # closing the descriptor drops the flock
            self._descriptor = None

    def __enter__(self) -> RunLock:
        return self.acquire()

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.release()


def is_held(run_dir: Path, name: str = LOCK_NAME) -> bool:
    """Whether a live process holds the run (probing takes the lock for an instant, never blocks)."""
    path = Path(run_dir) / name
    if not path.is_file():
        return False
    descriptor = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(descriptor, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(descriptor)
    return False


def describe_holder(lock_file: Path) -> str:
    """'process 1234 on host since 12:00:01', as the lock file says."""
    try:
        holder = json.loads(Path(lock_file).read_text() or "{}")
    except (OSError, ValueError):
        holder = {}
    if not holder:
        return "another process"
    since = time.strftime("%H:%M:%S", time.localtime(holder.get("since", 0)))
    return f"process {holder.get('pid', '?')} on {holder.get('host', '?')} since {since}"
