"""The sandbox: the only place generated code runs.

Each program runs in its own process group and working directory, under wall-clock, CPU,
address-space and file-size limits, with a fixed share of BLAS/OpenMP threads, and isolated by
bubblewrap (verifiers/isolation.py: no network, no view of the task's sealed files, an allowlisted
environment, a private PID namespace); where bubblewrap cannot run, with the reduced isolation of a
scrubbed environment, which the run's verdict then has to accept explicitly.  On timeout the whole process group is killed, children included.  Output goes
to files in the working directory (no pipe can fill and deadlock) and only a tail is kept in memory.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from physvec.verifiers.isolation import (
    bubblewrap_argv, probe, remove_cgroup, sandbox_environment, with_process_limit,
)

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
    cpu_s = limits.cpu_s if limits.cpu_s is not None else limits.wall_s * threads
    launch_limits = {
        "cpu_s": max(1, int(cpu_s)),
        "memory_bytes": limits.memory_bytes,
        "file_bytes": limits.file_bytes,
    }
    argv = [sys.executable, "-m", "physvec.verifiers.sandbox_launch", json.dumps(launch_limits), "--", *job.argv]
    isolation, group = probe(), None
    if isolation.full:
        argv = bubblewrap_argv(argv, workdir, sandbox_environment(os.environ, threads, job.extra_env))
        argv, group = with_process_limit(argv)
        env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    else:
        env = scrubbed_environment(os.environ, threads)
        env.update(job.extra_env)
    stdout_path, stderr_path = workdir / "stdout.txt", workdir / "stderr.txt"
    started = time.monotonic()
    with stdout_path.open("wb") as out, stderr_path.open("wb") as err:
        process = subprocess.Popen(
            argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
            start_new_session=True,
        )
        if running is not None:
            running.add(process.pid)
        returncode, timed_out, disk_exceeded = _watch(process, workdir, limits, started)
        _kill_group(process.pid)  # leftovers the program started in the background
        remove_cgroup(group)
        if running is not None:
            running.discard(process.pid)
    wall = time.monotonic() - started
    stdout, stdout_cut = _tail(stdout_path, limits.output_tail_bytes)
    stderr, stderr_cut = _tail(stderr_path, limits.output_tail_bytes)
    return SandboxResult(
        argv=tuple(job.argv), returncode=returncode, stdout=stdout, stderr=stderr, wall_s=wall,
        timed_out=timed_out, threads=threads, stdout_truncated=stdout_cut, stderr_truncated=stderr_cut,
        isolated=isolation.full, disk_exceeded=disk_exceeded,
    )


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


class SandboxPool:
    """Runs independent programs in parallel, at most one per core, sharing the cores' threads."""

    def __init__(self, cores: int | None = None) -> None:
        self.cores = max(1, cores or os.cpu_count() or 1)

    def threads_per_program(self, n_programs: int) -> int:
        """Each concurrent program's thread share: oversubscribed BLAS ran DMRG 3x slower here."""
        concurrent = max(1, min(n_programs, self.cores))
        return max(1, self.cores // concurrent)

    def run_all(self, jobs: Sequence[SandboxJob]) -> list[SandboxResult]:
        """Run every job; results come back in the order of ``jobs``.

        If the caller is interrupted (Ctrl-C), every running program is killed at once rather than
        left to reach its wall-clock limit.
        """
        if not jobs:
            return []
        threads = self.threads_per_program(len(jobs))
        running: set[int] = set()
        executor = ThreadPoolExecutor(max_workers=min(len(jobs), self.cores))
        try:
            return list(executor.map(lambda job: run_program(job, threads, running), jobs))
        except BaseException:
            for pid in list(running):
                _kill_group(pid)
            raise
        finally:
            executor.shutdown(wait=True, cancel_futures=True)
