"""Where a campaign's trials run: one interface, two engines.

A campaign hands an executor a trial function and the keys of the trials it lacks, and reads back each
outcome as it finishes; the campaign alone writes records (physvec.campaigns.trials), so an executor
never touches a record file.  ``local`` runs trials in threads of this process: each physics trial is a
subprocess or a sandboxed program of its own, so threads suffice, and this is the `--jobs N` every
campaign had before.  ``dask`` runs them on a dask.distributed cluster (physvec.campaigns.dask_executor),
imported only when asked for, so the default path needs no Dask installed.
"""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor, as_completed
from dataclasses import dataclass
from typing import Generic, Protocol, TypeVar

Key = TypeVar("Key")
Result = TypeVar("Result")
EXECUTORS = ("local", "dask")


class ExecutorUnavailable(RuntimeError):
    """The executor asked for cannot start (Dask not installed, a scheduler that does not answer, an
    unreadable cluster configuration); the message says what to do instead."""


class SchedulerUnreachable(ExecutorUnavailable):
    """The scheduler named by --scheduler does not answer (the message says which address and how long)."""


@dataclass(frozen=True)
class Outcome(Generic[Key, Result]):
    """How one trial ended: its result, or the error that ended it (never both)."""

    key: Key
    result: Result | None = None
    error: BaseException | None = None


class Executor(Protocol):
    """Runs trials somewhere and hands their outcomes back to the one process that records them."""

    dashboard_link: str | None
    """where to watch the workers (None when there is nothing to watch)"""

    def run(self, trial: Callable[[Key], Result], keys: Sequence[Key]) -> Iterator[Outcome[Key, Result]]:
        """``trial(key)`` for every key, each outcome yielded as it finishes (in finishing order)."""
        ...

    def running(self) -> int:
        """How many trials of the current ``run`` are executing now."""
        ...


class LocalExecutor:
    """``jobs`` trials at a time in threads of this process (today's `--jobs N`)."""

    dashboard_link = None

    def __init__(self, jobs: int) -> None:
        if jobs < 1:
            raise ValueError("jobs must be at least 1")
        self.jobs = jobs
        self._running = 0
        self._lock = threading.Lock()

    def run(self, trial: Callable[[Key], Result], keys: Sequence[Key]) -> Iterator[Outcome[Key, Result]]:
        pool = ThreadPoolExecutor(max_workers=self.jobs)
        try:
            futures = {pool.submit(self._counted, trial, key): key for key in keys}
            for future in as_completed(futures):
                error = future.exception()
                yield Outcome(futures[future], None if error else future.result(), error)
        finally:  # a campaign stopped early (Ctrl-C, a failed record) starts no further trial
            pool.shutdown(wait=True, cancel_futures=True)

    def running(self) -> int:
        return self._running

    def _counted(self, trial: Callable[[Key], Result], key: Key) -> Result:
        with self._lock:
            self._running += 1
        try:
            return trial(key)
        finally:
            with self._lock:
                self._running -= 1


@contextlib.contextmanager
def open_executor(kind: str, jobs: int, scheduler: str | None = None) -> Iterator[Executor]:
    """The executor a campaign's options ask for, closed (its cluster shut down) when the campaign ends.

    Args:
        kind: ``local`` or ``dask``.
        jobs: trials at once for ``local``; worker processes of the LocalCluster ``dask`` starts when
            no ``scheduler`` is given (0: one per core of this machine).
        scheduler: a running Dask scheduler's address, or ``slurm:CONFIG`` (physvec.campaigns.slurm).

    Raises:
        ExecutorUnavailable: Dask is not installed, ``scheduler`` answers nothing (SchedulerUnreachable),
            or its cluster configuration is unreadable.
        ValueError: an unknown ``kind``, or a ``scheduler`` for the local executor.
    """
    if kind == "local":
        if scheduler is not None:
            raise ValueError("--scheduler needs --executor dask")
        yield LocalExecutor(jobs)
        return
    if kind != "dask":
        raise ValueError(f"unknown executor {kind!r}; executors: {', '.join(EXECUTORS)}")
    try:
        from physvec.campaigns.dask_executor import dask_executor
    except ImportError as error:
        raise ExecutorUnavailable(f"--executor dask needs Dask ({error}): pip install 'physvec[dask]'") from None
    with dask_executor(scheduler, jobs) as executor:
        yield executor
