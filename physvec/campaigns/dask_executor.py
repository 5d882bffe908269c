"""Trials on a dask.distributed cluster: a LocalCluster sized to this machine, a running scheduler, or Slurm.

One Dask task per trial: a trial is minutes to hours of physics, so the scheduler's few milliseconds per
task are noise, and a worker lost mid-trial costs Dask one rerun of that trial alone (the scheduler
reschedules the tasks of a dead worker; ``distributed.scheduler.allowed-failures`` bounds how often).
Each worker runs one trial per thread and is started with one thread (``threads_per_worker=1``) and the
resource ``trial=1``, which every task asks for: a worker process runs one physics trial at a time on its
core share, with one BLAS thread (the nanny's default OMP/MKL/OPENBLAS_NUM_THREADS=1) unless the
trial's own sandbox grants more.  Results come back to the client as the task's return value, so the
client alone writes records, and a run directory a worker wrote on a disk the client cannot see is still
accounted for (docs/campaigns.md).
"""

from __future__ import annotations

import contextlib
import logging
import os
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

from distributed import Client, Future, LocalCluster, as_completed

from physvec.campaigns.executor import ExecutorUnavailable, Key, Outcome, Result, SchedulerUnreachable

TRIAL_RESOURCE = {"trial": 1}
"""What a trial asks of a worker; a worker offers one (LocalCluster here, the Slurm config's --resources)."""
CONNECT_TIMEOUT_S = 5.0
SLURM_PREFIX = "slurm:"


class DaskExecutor:
    """Submits one task per trial to ``client``'s cluster and yields each outcome as it completes."""

    def __init__(self, client: Client, resources: dict[str, float] | None) -> None:
        self.client = client
        self.dashboard_link: str | None = client.dashboard_link
        self._pending: set[str] = set()
        self._resources = resources

    def run(self, trial: Callable[[Key], Result], keys: Sequence[Key]) -> Iterator[Outcome[Key, Result]]:
        futures = {self.client.submit(trial, key, pure=False, resources=self._resources): key for key in keys}
        self._pending = {future.key for future in futures}
        try:
            for future in as_completed(futures):
                self._pending.discard(future.key)
                yield _outcome(futures[future], future)
        finally:  # a client that stops early leaves no trial queued on the cluster
            self.client.cancel([future for future in futures if not future.done()])
            self._pending = set()

    def running(self) -> int:
        pending = set(self._pending)
        if not pending:
            return 0
        processing = self.client.processing()
        return sum(key in pending for keys in processing.values() for key in keys)


def _outcome(key: Key, future: Future) -> Outcome[Key, Any]:
    """The trial's result, fetched now, or the error that ended it (its own, KilledWorker, CancelledError).

    A result that was lost with its worker before this fetch is computed again and waited for (the trial
    then ran twice, and is recorded once): so the future's status is not read, only its result."""
    try:
        return Outcome(key, future.result())
    except Exception as error:  # the trial's error is the outcome; the campaign re-raises the first
        return Outcome(key, error=error)


def _offer_trials(client: Client) -> bool:
    """Whether the cluster's workers offer the ``trial`` resource; a cluster whose workers were started
    without it (a plain `dask worker`) runs one trial per worker thread instead, rather than none at all."""
    workers = client.scheduler_info().get("workers", {}).values()
    return any("trial" in (worker.get("resources") or {}) for worker in workers)


@contextlib.contextmanager
def dask_executor(scheduler: str | None, workers: int) -> Iterator[DaskExecutor]:
    """A DaskExecutor on a new LocalCluster (``scheduler`` None; ``workers`` processes, 0 for one per core),
    on a SLURMCluster (``slurm:CONFIG``) or on the running scheduler at ``scheduler``."""
    with contextlib.ExitStack() as stack:
        if scheduler is None:
            cluster = stack.enter_context(local_cluster(workers or os.cpu_count() or 1))
            yield DaskExecutor(stack.enter_context(Client(cluster)), TRIAL_RESOURCE)
        elif scheduler.startswith(SLURM_PREFIX):
            from physvec.campaigns.slurm import SlurmConfigError, slurm_cluster

            try:
                cluster = stack.enter_context(slurm_cluster(Path(scheduler.removeprefix(SLURM_PREFIX))))
            except SlurmConfigError as error:
                raise ExecutorUnavailable(f"--scheduler {scheduler}: {error}") from None
            cluster.scale(n=workers or 1)
            yield DaskExecutor(stack.enter_context(Client(cluster)), TRIAL_RESOURCE)
        else:
            client = stack.enter_context(connect(scheduler))
            yield DaskExecutor(client, TRIAL_RESOURCE if _offer_trials(client) else None)


def local_cluster(workers: int) -> LocalCluster:
    """``workers`` processes of one thread each, each offering one trial slot."""
    return LocalCluster(n_workers=workers, threads_per_worker=1, processes=True, resources=TRIAL_RESOURCE,
                        silence_logs=logging.ERROR)


def connect(address: str, timeout_s: float = CONNECT_TIMEOUT_S) -> Client:
    """A client of the scheduler at ``address``.

    Raises:
        SchedulerUnreachable: nothing answered within ``timeout_s``, or the address is malformed.
    """
    try:
        return Client(address, timeout=timeout_s)
    except (OSError, TimeoutError, ValueError, TypeError) as error:
        raise SchedulerUnreachable(f"no Dask scheduler answered at {address} within {timeout_s:.0f} s "
                                   f"({type(error).__name__}: {str(error).splitlines()[0][:200]})") from None
