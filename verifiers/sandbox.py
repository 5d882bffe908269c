"""The sandbox: the only place generated code runs.

Each program runs in its own process group and working directory, under wall-clock, CPU,
address-space and file-size limits, with a fixed share of BLAS/OpenMP threads, and isolated by
bubblewrap (verifiers/isolation.py: no network, no view of the task's sealed files, an allowlisted
environment, a private PID namespace); where bubblewrap cannot run, with the reduced isolation of a
scrubbed environment, which the run's verdict then has to accept explicitly.  On timeout the whole process
group is killed, children included.  Output goes to files in the working directory (no pipe can fill and
deadlock) and only a tail is kept in memory.

A ``python FILE ARGS`` program, warm or cold, runs under its provenance hook (verifiers/provenance.py); the
breaches its record names come back with its result, and the pool keeps every program's record so that a
verification stage can report what its programs looked at (``SandboxPool.provenance``).
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from physvec.verifiers.isolation import (
    bubblewrap_argv, probe, remove_cgroup, sandbox_environment, with_process_limit,
)
from physvec.verifiers.provenance import RECORD_BYTES, Breach, ProgramRecord, provenance_obligation, read_record
from physvec.verifiers.warm_pool import WarmSettings, WarmUnavailable, WarmWorkers, WorkerGone

if TYPE_CHECKING:
    from physvec.verifiers.certificate import Obligation

GiB = 1024**3

_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.IGNORECASE)
_SECRET_PREFIXES = ("OPENAI_", "ANTHROPIC_")
_THREAD_VARIABLES = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")
_MEMORY_SIGNS = ("MemoryError", "Unable to allocate", "std::bad_alloc", "Cannot allocate memory")


@dataclass(frozen=True)
class SandboxLimits:
    """Resource limits for one sandboxed program.

    ``cpu_s`` defaults to the wall-clock limit times the program's thread share, so a program using
    its threads fully is stopped by the wall clock, never by CPU time first.
    """

    wall_s: float = 600.0
    cpu_s: float | None = None
    memory_bytes: int = 6 * GiB
    file_bytes: int = 1 * GiB
    disk_bytes: int = 2 * GiB
    """all the program writes into its working folder together (file_bytes bounds one file)"""
    output_tail_bytes: int = 20_000

    def __post_init__(self) -> None:
        if self.wall_s <= 0 or (self.cpu_s is not None and self.cpu_s <= 0):
            raise ValueError("sandbox time limits must be positive")
        if min(self.memory_bytes, self.file_bytes, self.disk_bytes, self.output_tail_bytes) <= 0:
            raise ValueError("sandbox size limits must be positive")


@dataclass(frozen=True)
class SandboxResult:
    """What happened to one program: exit status, output tails, timing and which limit stopped it."""

    argv: tuple[str, ...]
    returncode: int
    stdout: str
    stderr: str
    wall_s: float
    timed_out: bool
    threads: int
    stdout_truncated: bool = False
    stderr_truncated: bool = False
    isolated: bool = False
    """the program ran under bubblewrap (verifiers/isolation.py), not with reduced isolation"""
    disk_exceeded: bool = False
    """killed for writing more than the disk quota into its working folder"""
    watched: bool = False
    """a provenance hook watched the program from its first line (``python FILE`` programs)"""
    breaches: tuple[Breach, ...] = ()
    """what its provenance record says it looked at (verifiers/provenance.py)"""

    @property
    def ok(self) -> bool:
        return self.returncode == 0 and not self.timed_out and not self.disk_exceeded

    @property
    def memory_exceeded(self) -> bool:
        """The program died of the address-space limit (as far as its last words tell)."""
        return self.returncode != 0 and any(sign in self.stderr for sign in _MEMORY_SIGNS)

    @property
    def cpu_exceeded(self) -> bool:
        """Killed by SIGXCPU or SIGKILL (the hard CPU limit); bubblewrap reports a child's signal as 128 + it."""
        signals = (signal.SIGXCPU, signal.SIGKILL)
        return self.returncode in (*(-s for s in signals), *(128 + s for s in signals)) and not self.timed_out

    def summary(self) -> str:
        """One line for transcripts and obligation messages."""
        if self.timed_out:
            return f"killed after the wall-clock limit ({self.wall_s:.1f} s)"
        if self.disk_exceeded:
            return "killed for writing more than the disk quota into its working folder"
        if self.memory_exceeded:
            return f"stopped by the memory limit (exit {self.returncode})"
        if self.cpu_exceeded:
            return f"stopped by the CPU-time limit (signal {-self.returncode})"
        return f"exit {self.returncode} after {self.wall_s:.2f} s"


@dataclass(frozen=True)
class SandboxJob:
    """One program for the pool: its command line, working directory and limits."""

    argv: Sequence[str]
    workdir: Path
    limits: SandboxLimits = field(default_factory=SandboxLimits)
    extra_env: Mapping[str, str] = field(default_factory=dict)


def scrubbed_environment(environ: Mapping[str, str], threads: int) -> dict[str, str]:
    """The environment a sandboxed program sees: no secrets, a fixed thread share, headless plots."""
    clean = {
        name: value
        for name, value in environ.items()
        if not _SECRET_NAME.search(name) and not name.upper().startswith(_SECRET_PREFIXES)
    }
    clean.update({name: str(threads) for name in _THREAD_VARIABLES})
    clean["MPLBACKEND"] = "Agg"
    clean["PYTHONDONTWRITEBYTECODE"] = "1"
    clean["PYTHONUNBUFFERED"] = "1"
    return clean


def _tail(path: Path, limit: int) -> tuple[str, bool]:
    size = path.stat().st_size
    with path.open("rb") as stream:
        if size > limit:
            stream.seek(size - limit)
        data = stream.read()
    return data.decode("utf-8", errors="replace"), size > limit


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _launch_limits(limits: SandboxLimits, threads: int) -> dict[str, int]:
    cpu_s = limits.cpu_s if limits.cpu_s is not None else limits.wall_s * threads
    return {"cpu_s": max(1, int(cpu_s)), "memory_bytes": limits.memory_bytes, "file_bytes": limits.file_bytes}


def run_program(job: SandboxJob, threads: int = 1, running: set[int] | None = None) -> SandboxResult:
    """Run one program in the sandbox and wait for it.

    Args:
        job: command line, working directory (created if missing) and limits.
        threads: the BLAS/OpenMP thread share given to this program.
        running: where the program's process-group id is kept while it runs, so a caller that is
            interrupted can kill it.

    Returns:
        The result; a program that outlives ``wall_s`` is killed with its whole process group.
    """
    limits = job.limits
    workdir = Path(job.workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    isolation, group = probe(), None
    watched = is_python_file(job)
    record_read, record_write = os.pipe() if watched else (-1, -1)
    program = list(job.argv)
    if watched:
        program = [sys.executable, "-m", "physvec.verifiers.program_main", "--record-fd", str(record_write),
                   *(["--read-only"] if isolation.full else []), "--", *job.argv[1:]]
    argv = [sys.executable, "-m", "physvec.verifiers.sandbox_launch", json.dumps(_launch_limits(limits, threads)),
            "--", *program]
    if isolation.full:
        argv = bubblewrap_argv(argv, workdir, sandbox_environment(os.environ, threads, job.extra_env))
        argv, group = with_process_limit(argv)
        env = {}  # bubblewrap is named by its full path; the program's environment is built by --setenv
    else:
        env = scrubbed_environment(os.environ, threads)
        env.update(job.extra_env)
    stdout_path, stderr_path = workdir / "stdout.txt", workdir / "stderr.txt"
    started = time.monotonic()
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        try:
            process = subprocess.Popen(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True, pass_fds=(record_write,) if watched else (),
            )
        finally:
            if watched:
                os.close(record_write)
        if running is not None:
            running.add(process.pid)
        returncode, timed_out, disk_exceeded = _watch(process, workdir, limits, started)
        _kill_group(process.pid)  # leftovers the program started in the background
        remove_cgroup(group)
        if running is not None:
            running.discard(process.pid)
    record = _drain(record_read) if watched else b""
    return _result(job, returncode, time.monotonic() - started, timed_out, disk_exceeded, threads, isolation.full,
                   record if watched else None)


def is_python_file(job: SandboxJob) -> bool:
    """Whether ``job`` is ``python FILE ARGS`` with FILE in its own folder: the programs a provenance hook
    watches (and warm workers serve)."""
    argv = list(job.argv)
    return (len(argv) >= 2 and argv[0] == sys.executable and "/" not in argv[1] and not argv[1].startswith("-")
            and (Path(job.workdir) / argv[1]).is_file())


def _drain(descriptor: int) -> bytes:
    """What a finished program's record pipe holds (its writers are gone, or killed with its process group)."""
    os.set_blocking(descriptor, False)
    data = bytearray()
    try:
        while len(data) < RECORD_BYTES:
            try:
                chunk = os.read(descriptor, 65536)
            except BlockingIOError:
                break
            if not chunk:
                break
            data += chunk
    finally:
        os.close(descriptor)
    return bytes(data[:RECORD_BYTES])


def _result(job: SandboxJob, returncode: int, wall: float, timed_out: bool, disk_exceeded: bool, threads: int,
            isolated: bool, record: bytes | None) -> SandboxResult:
    """The result of a finished program; ``record`` is its provenance record, None when no hook watched it."""
    limit = job.limits.output_tail_bytes
    stdout, stdout_cut = _tail(Path(job.workdir) / "stdout.txt", limit)
    stderr, stderr_cut = _tail(Path(job.workdir) / "stderr.txt", limit)
    return SandboxResult(
        argv=tuple(job.argv), returncode=returncode, stdout=stdout, stderr=stderr, wall_s=wall,
        timed_out=timed_out, threads=threads, stdout_truncated=stdout_cut, stderr_truncated=stderr_cut,
        isolated=isolated, disk_exceeded=disk_exceeded, watched=record is not None,
        breaches=read_record(record, returncode) if record is not None else (),
    )


def planted_link(folder: Path, root: Path) -> bool | None:
    """Whether ``folder``, below ``root``, is reached through a symbolic link: one that a program, which can
    write only in its own folder, may have planted where a later program's folder goes, to have that folder
    bound to the run's sealed inputs.  None when ``folder`` is not below ``root``."""
    folder = Path(os.path.abspath(folder))
    if not folder.is_relative_to(root) or folder == root:
        return None
    current = root
    for part in folder.relative_to(root).parts:
        current = current / part
        if current.is_symlink():
            return True
    return False


def warm_slot(job: SandboxJob, settings: WarmSettings) -> str | None:
    """Where ``job`` runs in a warm worker (its folder relative to the workers' root), or None when it must run
    cold: not ``python FILE ...`` with FILE in its own folder, not plainly under the root, or not isolated."""
    if not is_python_file(job) or planted_link(job.workdir, settings.root) is not False:
        return None
    return str(Path(os.path.abspath(job.workdir)).relative_to(settings.root)) if probe().full else None


def refused(job: SandboxJob, threads: int, reason: str) -> SandboxResult:
    """A program that is not run at all, and why (nothing is written into its folder)."""
    return SandboxResult(argv=tuple(job.argv), returncode=126, stdout="", stderr=f"physvec sandbox: {reason}\n",
                         wall_s=0.0, timed_out=False, threads=threads, isolated=probe().full,
                         watched=True)  # nothing ran, so nothing looked


def run_warm(job: SandboxJob, slot: str, workers: WarmWorkers, settings: WarmSettings, threads: int,
             running: set[int] | None = None) -> SandboxResult:
    """Run one program in a warm worker (verifiers/warm_pool.py), watched as a cold one is; a worker that dies
    under it costs this program (reported as killed) and is replaced.  WarmUnavailable, before the program
    starts, when no worker can serve here."""
    workdir = Path(job.workdir)
    worker = workers.borrow(settings, threads, dict(job.extra_env))
    if running is not None:
        running.add(worker.process.pid)  # an interrupt kills it even while it is still importing
    try:
        worker.wait_ready()
    except WarmUnavailable:
        if running is not None:
            running.discard(worker.process.pid)
        workers.give_back(worker, threads, dict(job.extra_env))
        raise
    for name in ("stdout.txt", "stderr.txt"):
        (workdir / name).write_bytes(b"")
    environment = sandbox_environment(os.environ, threads, job.extra_env)

    def watch(elapsed: float) -> str | None:
        if elapsed >= job.limits.wall_s:
            return "timeout"
        return "disk" if folder_bytes(workdir, job.limits.disk_bytes) > job.limits.disk_bytes else None

    try:
        started = time.monotonic()
        outcome = worker.run(slot, list(job.argv[1:]), environment, _launch_limits(job.limits, threads), watch)
        returncode, timed_out, disk_exceeded = outcome.returncode, outcome.timed_out, outcome.disk_exceeded
        record = outcome.record
    except WorkerGone as gone:
        worker.close()
        with (workdir / "stderr.txt").open("a") as stream:
            stream.write(f"\nphysvec sandbox: {gone}\n")
        started, returncode, timed_out, disk_exceeded, record = time.monotonic(), -9, False, False, b""
    finally:
        if running is not None:
            running.discard(worker.process.pid)
    wall = time.monotonic() - started
    workers.give_back(worker, threads, dict(job.extra_env))
    return _result(job, returncode, wall, timed_out, disk_exceeded, threads, True, record)


WATCH_INTERVAL_S = 0.5


def _watch(process: subprocess.Popen, workdir: Path, limits: SandboxLimits, started: float) -> tuple[int, bool, bool]:
    """Wait for the program, killing its process group at the wall-clock limit or when its working folder
    outgrows the disk quota (checked every WATCH_INTERVAL_S); (returncode, timed out, disk exceeded)."""
    while True:
        left = limits.wall_s - (time.monotonic() - started)
        try:
            return process.wait(timeout=max(0.0, min(WATCH_INTERVAL_S, left))), False, False
        except subprocess.TimeoutExpired:
            pass
        timed_out = time.monotonic() - started >= limits.wall_s
        if timed_out or folder_bytes(workdir, limits.disk_bytes) > limits.disk_bytes:
            _kill_group(process.pid)
            return process.wait(), timed_out, not timed_out


def folder_bytes(folder: Path, stop_above: int) -> int:
    """Bytes in the files under ``folder`` (links not followed), counting stopped once above ``stop_above``."""
    total, pending = 0, [folder]
    while pending and total <= stop_above:
        try:
            entries = list(os.scandir(pending.pop()))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.is_dir(follow_symlinks=False):
                    pending.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    total += entry.stat(follow_symlinks=False).st_blocks * 512
            except OSError:
                continue
    return total


BACKEND_THREAD_CAP: dict[str, int] = {"tenpy": 1}
"""DMRG works on many small matrices: a second BLAS thread made it slower, not faster (../BACKENDS.md: 4x on an
idle machine; here a 2 x 32 Hubbard ladder at chi 400 given two threads took longer than with one), so a
TeNPy program gets one thread even when it runs alone.  Dense products (PySCF, JAX) keep the whole share."""


class SandboxPool:
    """Runs independent programs in parallel, at most one per core, sharing the cores' threads.

    With warm settings (``warm_for``), programs whose folder lies under the settings' root run in warm workers
    that have imported the backend once (verifiers/warm_pool.py); every other program runs cold.
    """

    def __init__(self, cores: int | None = None) -> None:
        self.cores = max(1, cores or os.cpu_count() or 1)
        self.warm: WarmSettings | None = None
        self.work_root: Path | None = None
        """programs below it run only in folders reached without a symbolic link"""
        self.warm_unavailable = ""
        """why programs went cold after warm workers were asked for ("" when they were not refused)"""
        self.thread_cap: int | None = None
        """the most BLAS threads one program of this backend gets, however many cores are free"""
        self._workers = WarmWorkers()
        self._records: list[ProgramRecord] = []
        self._records_lock = threading.Lock()
        self.program_seconds = 0.0
        """The wall seconds of every program this pool ran, summed: the work a check needs, whatever its schedule
        (divided by ``cores``, the least wall time any schedule of those programs could take)."""

    def warm_for(self, root: Path, backend: str) -> SandboxPool:
        """Send the programs under ``root`` to warm workers that have imported ``backend``, and refuse any program
        whose folder below ``root`` is reached through a symbolic link."""
        root.mkdir(parents=True, exist_ok=True)
        self.warm = WarmSettings.for_backend(root, backend)
        self.work_root = self.warm.root
        self.thread_cap = BACKEND_THREAD_CAP.get(backend)
        return self

    def prestart(self, extra_env: dict[str, str] | None = None, wait: bool = False) -> None:
        """Start one warm worker per core now for a parallel batch (one thread each) whose programs get
        ``extra_env``, so that their backend imports overlap with the caller's next step (a run's Author call);
        ``wait``: return once they are ready.  Nothing happens without warm settings or full isolation, where
        programs run cold anyway."""
        if self.warm is None or not probe().full:
            return
        self._workers.prestart(self.warm, self.threads_per_program(self.cores), extra_env or {}, self.cores, wait)

    def close(self) -> None:
        """Stop the warm workers (they would also end with this process)."""
        self._workers.close()

    def busy_worker_pids(self) -> list[int]:
        """Process ids of the warm workers running a program now (what an interrupt must kill)."""
        return self._workers.busy_pids()

    def threads_per_program(self, n_programs: int) -> int:
        """Each concurrent program's thread share (oversubscribed BLAS ran DMRG 3x slower here), at most the
        backend's cap."""
        concurrent = max(1, min(n_programs, self.cores))
        return max(1, min(self.cores // concurrent, self.thread_cap or self.cores))

    def provenance(self, folder: Path) -> Obligation:
        """What the programs this pool ran below ``folder`` looked at, as one obligation (a stage's)."""
        folder = Path(os.path.abspath(folder))
        with self._records_lock:
            records = [record for record in self._records if Path(record.folder).is_relative_to(folder)]
        return provenance_obligation([ProgramRecord(os.path.relpath(record.folder, folder), record.recorded,
                                                    record.breaches) for record in records])

    def adopt(self, folder: Path, result: SandboxResult) -> None:
        """Count a finished program's record again under ``folder``: a call reused there from an earlier run of the
        same program (verifiers/scientific/override_runs.py) answers for what that program looked at."""
        with self._records_lock:
            self._records.append(ProgramRecord(os.path.abspath(folder), result.watched, result.breaches))

    def _run(self, job: SandboxJob, threads: int, running: set[int], stop: threading.Event) -> SandboxResult:
        result = self._run_once(job, threads, running, stop)
        self.adopt(job.workdir, result)
        with self._records_lock:
            self.program_seconds += result.wall_s
        return result

    def _run_once(self, job: SandboxJob, threads: int, running: set[int], stop: threading.Event) -> SandboxResult:
        if stop.is_set():
            return refused(job, threads, "not run: the verifier was interrupted")
        if self.work_root is not None and planted_link(job.workdir, self.work_root):
            return refused(job, threads, "the working folder is reached through a symbolic link inside the run's "
                                         "work folder (a program may have planted it): not run")
        slot = warm_slot(job, self.warm) if self.warm is not None else None
        if slot is not None:
            try:
                return run_warm(job, slot, self._workers, self.warm, threads, running)
            except WarmUnavailable as unavailable:
                if stop.is_set():
                    return refused(job, threads, "not run: the verifier was interrupted")
                self.warm_unavailable = str(unavailable)
                self.warm = None
        return run_program(job, threads, running)

    def run_all(self, jobs: Sequence[SandboxJob]) -> list[SandboxResult]:
        """Run every job; results come back in the order of ``jobs``.

        If the caller is interrupted (Ctrl-C), every running program is killed at once rather than
        left to reach its wall-clock limit.
        """
        if not jobs:
            return []
        threads = self.threads_per_program(len(jobs))
        running: set[int] = set()
        stop = threading.Event()
        executor = ThreadPoolExecutor(max_workers=min(len(jobs), self.cores))
        try:
            return list(executor.map(lambda job: self._run(job, threads, running, stop), jobs))
        except BaseException:
            stop.set()
            for pid in list(running):
                _kill_group(pid)
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
