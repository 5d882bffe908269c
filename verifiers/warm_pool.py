"""Warm sandbox workers: a backend imported once per worker, not once per program.

A unit test of an element function runs for milliseconds after its interpreter has spent 1.5 s (tenpy) to
5.5 s (netket/jax) importing the backend.  A warm worker (verifiers/warm_zygote.py) is a sandboxed
interpreter that has imported the backend and gives each program a fresh, isolated copy of itself: a
forked child with a fresh root of its own (its folder, /tmp, /dev), network, IPC and PID namespaces and no
capabilities, under the program's own limits and its provenance hook, whose record the worker sends back
with the program's status.  Fork copies only the calling thread, so a worker preloads only what starts no thread
(measured, and asserted by tests/verifiers/test_warm_pool.py): all of tenpy, qiskit and pyscf, but for
netket only its dependencies (jax, flax, optax, numba: 10 of its 15 s on a busy machine), since netket's
own import starts sixteen threads.

The host side (this module) keeps the protocol with a worker: wall-clock and disk-quota watching as the
cold sandbox does (verifiers/sandbox.py), a kill request when a limit is passed, and a replacement when a
worker dies, so that a crashing or hanging program costs that program only.  Each worker runs one program
at a time and sits in its own pids cgroup, so the process-count limit stays per program.
"""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physvec.verifiers.isolation import (
    hidden_folders, read_only_binds, remove_cgroup, sandbox_environment, warm_worker_argv, with_process_limit,
)
from physvec.verifiers.library import BACKEND_MODULES

READY_TIMEOUT_S = 300.0
"""How long a worker may take to import its backend before it is given up (jax on a busy machine: ~20 s)."""
KILL_GRACE_S = 10.0
"""After a kill request, how long to wait for the worker's report before the worker itself is killed."""

VERIFIER_PRELOAD = ("matplotlib", "matplotlib.pyplot", "physvec.verifiers.programming.harness",
                    "physvec.verifiers.library", "physvec.verifiers.library.plots")
"""What every program of a verification imports besides the backend: the harness of unit tests, integration and
override runs, the background library's core, and pyplot, which a cold program pays 0.7 s for (its font list is
built afresh in the program's empty /tmp).  Measured on the Qiskit reference script (2 Dec 2026): a unit test of a
trivial function took 1.8 s in a worker that had imported Qiskit only."""


def _background(backend: str) -> str:
    """The backend's module of the background library, which its unit tests import."""
    return f"physvec.verifiers.library.{BACKEND_MODULES[backend]}"


BACKEND_PRELOAD: dict[str, tuple[str, ...]] = {
    "tenpy": ("numpy", "scipy.linalg", "tenpy", *VERIFIER_PRELOAD, _background("tenpy")),
    "qiskit": ("numpy", "qiskit", "qiskit_aer", *VERIFIER_PRELOAD, _background("qiskit")),
    "pyscf": ("numpy", "scipy.linalg", "pyscf.gto", "pyscf.scf", *VERIFIER_PRELOAD, _background("pyscf")),
    "netket": ("numpy", "scipy.linalg", "scipy.sparse", "jax", "jax.numpy", "flax", "optax", "numba", "equinox",
               "igraph", "sparse", "plum", *VERIFIER_PRELOAD),
    "numpy": ("numpy", "scipy.linalg", *VERIFIER_PRELOAD),
}
"""What a worker imports for a backend before its first program (the program's own imports then cost nothing).
Nothing here may start a thread at import (OpenBLAS's pool excepted): netket itself, and with it its background
module, is left out for that."""


@dataclass(frozen=True)
class WarmSettings:
    """Which programs go to warm workers: those whose folder lies under ``root``, with ``preload`` imported."""

    root: Path
    preload: tuple[str, ...]

    @classmethod
    def for_backend(cls, root: Path, backend: str) -> WarmSettings:
        """``root`` as the verifier names it (absolute, links not resolved: a link below it must stay visible)."""
        return cls(Path(os.path.abspath(root)), BACKEND_PRELOAD.get(backend, BACKEND_PRELOAD["numpy"]))


class WorkerGone(RuntimeError):
    """The worker died or stopped answering; the program it was running is lost and the worker replaced."""


class WarmUnavailable(RuntimeError):
    """No worker could be made ready here (bubblewrap refused the capabilities, an import failed, or the imports
    started threads fork cannot copy): programs run cold instead."""


@dataclass
class ProgramOutcome:
    returncode: int
    timed_out: bool
    disk_exceeded: bool
    record: bytes = b""
    """what the program's provenance hook wrote (verifiers/provenance.py)"""


def worker_config(settings: WarmSettings) -> str:
    """The worker's argument: what it imports, and the view it builds for every program it forks."""
    return json.dumps({"preload": list(settings.preload), "binds": read_only_binds(), "hidden": hidden_folders()})


class WarmWorker:
    """One sandboxed worker process and the conversation with it."""

    def __init__(self, settings: WarmSettings, environment: dict[str, str]) -> None:
        self.settings = settings
        self.environment = environment
        argv = warm_worker_argv([sys.executable, "-m", "physvec.verifiers.warm_zygote", worker_config(settings)],
                                settings.root, environment)
        argv, self._group = with_process_limit(argv)
        self._log = tempfile.NamedTemporaryFile(prefix="physvec-worker-", suffix=".log", delete=False)
        self.process = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._log,
                                        env={},  # bubblewrap by its full path; --setenv builds the worker's
                                        start_new_session=True)
        self._buffer = b""
        self._ready = False

    @property
    def alive(self) -> bool:
        return self.process.poll() is None

    def _line(self, timeout: float) -> dict[str, Any] | None:
        """The next reply, None when none came within ``timeout``; WorkerGone at end of stream."""
        deadline = time.monotonic() + timeout
        while b"\n" not in self._buffer:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            readable, _, _ = select.select([self.process.stdout], [], [], left)
            if readable:
                chunk = os.read(self.process.stdout.fileno(), 65536)
                if not chunk:
                    raise WorkerGone(f"the warm worker ended (exit {self.process.poll()})")
                self._buffer += chunk
        line, self._buffer = self._buffer.split(b"\n", 1)
        return json.loads(line)

    def wait_ready(self) -> None:
        """Wait for the worker's imports; WarmUnavailable when it cannot serve (and it is then closed)."""
        if self._ready:
            return
        try:
            ready = self._line(READY_TIMEOUT_S)
        except WorkerGone as gone:
            ready = {"failed": str(gone)}
        if ready is None or "failed" in ready or ready.get("extra_threads", 1) != 0:
            self.close()
            raise WarmUnavailable(f"no warm worker: {ready or 'imports did not finish in time'} "
                                  f"(log: {self._log.name})")
        self._ready = True

    def _send(self, message: dict[str, Any]) -> None:
        try:
            self.process.stdin.write((json.dumps(message) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, ValueError) as error:
            raise WorkerGone(f"the warm worker is gone: {error}") from None

    def run(self, slot: str, argv: list[str], environment: dict[str, str], limits: dict[str, int],
            watch: Any) -> ProgramOutcome:
        """Run one program and wait for it; ``watch(elapsed)`` says "timeout", "disk" or None."""
        self.wait_ready()
        name = uuid.uuid4().hex
        self._send({"id": name, "slot": slot, "argv": argv, "env": environment, "limits": limits})
        started, stopped = time.monotonic(), None
        while True:
            verdict = stopped or watch(time.monotonic() - started)
            if verdict and stopped is None:
                stopped = verdict
                self._kill_program(name)
                deadline = time.monotonic() + KILL_GRACE_S
            reply = self._status(name, min(0.5, KILL_GRACE_S))
            if reply is not None:
                return ProgramOutcome(reply["status"], stopped == "timeout", stopped == "disk",
                                      reply.get("record", "").encode())
            if stopped and time.monotonic() > deadline:
                self.close()
                raise WorkerGone("the warm worker did not report a killed program")

    def _status(self, name: str, timeout: float) -> dict[str, Any] | None:
        reply = self._line(timeout)
        if reply is not None and reply.get("id") != name:
            raise WorkerGone(f"the warm worker answered for another program: {reply}")
        return reply

    def _kill_program(self, name: str) -> None:
        self._send({"kill": name})

    def close(self) -> None:
        """Kill the worker and everything it started; remove its cgroup and log."""
        try:
            os.killpg(self.process.pid, 9)
        except (ProcessLookupError, PermissionError):
            pass
        self.process.wait()
        for stream in (self.process.stdin, self.process.stdout):
            try:
                stream.close()
            except (OSError, ValueError):
                pass
        remove_cgroup(self._group)
        self._log.close()
        Path(self._log.name).unlink(missing_ok=True)


class _Spawner:
    """Starts workers from one long-lived thread.  bubblewrap's --die-with-parent (PR_SET_PDEATHSIG) fires when
    the *thread* that started it ends: a worker started from a pool thread would die with that thread."""

    def __init__(self) -> None:
        self._requests: queue.Queue = queue.Queue()
        threading.Thread(target=self._serve, name="physvec-warm-spawner", daemon=True).start()

    def _serve(self) -> None:
        while True:
            settings, environment, result = self._requests.get()
            try:
                result.set_result(WarmWorker(settings, environment))
            except BaseException as error:  # noqa: BLE001 - handed to the caller
                result.set_exception(error)

    def start(self, settings: WarmSettings, environment: dict[str, str]) -> WarmWorker:
        result: Future = Future()
        self._requests.put((settings, environment, result))
        return result.result()


class WarmWorkers:
    """Idle workers by (settings, thread share, extra environment); one program per worker at a time."""

    def __init__(self) -> None:
        self._idle: dict[tuple, list[WarmWorker]] = {}
        self._busy: set[WarmWorker] = set()
        self._lock = threading.Lock()
        self._spawner: _Spawner | None = None

    def busy_pids(self) -> list[int]:
        """Process ids of the workers running a program now."""
        with self._lock:
            return [worker.process.pid for worker in self._busy]

    def _start(self, settings: WarmSettings, environment: dict[str, str]) -> WarmWorker:
        with self._lock:
            if self._spawner is None:
                self._spawner = _Spawner()
        return self._spawner.start(settings, environment)

    def borrow(self, settings: WarmSettings, threads: int, extra_env: dict[str, str]) -> WarmWorker:
        key = (settings, threads, tuple(sorted(extra_env.items())))
        with self._lock:
            idle = self._idle.setdefault(key, [])
            while idle:
                worker = idle.pop()
                if worker.alive:
                    self._busy.add(worker)
                    return worker
                worker.close()
        worker = self._start(settings, sandbox_environment(os.environ, threads, extra_env))
        with self._lock:
            self._busy.add(worker)
        return worker

    def prestart(self, settings: WarmSettings, threads: int, extra_env: dict[str, str], count: int,
                 wait: bool = False) -> None:
        """Start ``count`` workers now and shelve them idle: their imports overlap with whatever the caller does
        next, and the first borrow waits only for what is left of them (``wait``: until they are ready; one
        that cannot start is left to the borrow, which runs its program cold)."""
        key = (settings, threads, tuple(sorted(extra_env.items())))
        started = [self._start(settings, sandbox_environment(os.environ, threads, extra_env)) for _ in range(count)]
        with self._lock:
            self._idle.setdefault(key, []).extend(started)
        for worker in started if wait else []:
            try:
                worker.wait_ready()
            except WarmUnavailable:
                continue

    def give_back(self, worker: WarmWorker, threads: int, extra_env: dict[str, str]) -> None:
        """An idle worker goes back to its shelf; a dead one is dropped (the next borrow starts a fresh one)."""
        key = (worker.settings, threads, tuple(sorted(extra_env.items())))
        with self._lock:
            self._busy.discard(worker)
        if not worker.alive:
            worker.close()
            return
        with self._lock:
            self._idle.setdefault(key, []).append(worker)

    def close(self) -> None:
        """Kill every worker, idle or busy (a busy one's program is lost: the caller is stopping)."""
        with self._lock:
            workers = [worker for shelf in self._idle.values() for worker in shelf] + list(self._busy)
            self._idle.clear()
            self._busy.clear()
        for worker in workers:
            worker.close()
