"""Isolation of sandboxed programs: what a generated program can see, reach and leave behind.

A script under test is written by an adversary who can read this repository.  Resource limits alone do
not stop it from reading the task's sealed values (``runs/<id>/inputs/assertions.json``, a task folder's
``reference.json``), writing into the run's certificates or the verifier's source tree, reading a
parent's environment through ``/proc``, opening sockets, or leaving a daemon behind.  So every program
runs under bubblewrap (Linux namespaces):

- a read-only view of the system and the Python installation only (``/usr``, ``/etc``, the interpreter's
  prefixes, the physvec code it imports), with benchmark data folders hidden; its own working folder,
  mounted at a fixed neutral path (``/sandbox/work``) so a program cannot tell a check run from the main
  run by its folder name; a private ``/tmp``;
- no network (a new network namespace), a new PID namespace (no other process is visible and the whole
  tree dies with the sandbox), a new session, death with the verifier (even on ``kill -9``);
- an environment built from an allowlist (no secret reaches it under any name);
- where the host allows it (root with a cgroup ``pids`` controller), a cap on the number of processes.

When bubblewrap is missing or the kernel refuses namespaces, programs run with the old, reduced
isolation and ``probe()`` says why; a run can then be certified only when the user accepts it
(``reproduce --allow-reduced-isolation``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from physvec.verifiers.certificate import Certificate, Obligation, Outcome

SANDBOX_WORKDIR = "/sandbox/work"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/etc", "/opt")
ENVIRONMENT_ALLOWLIST = ("PATH", "LANG", "LC_ALL", "LC_CTYPE", "TZ", "TERM", "MPLBACKEND", "JAX_PLATFORMS",
                         "JAX_ENABLE_X64", "XLA_FLAGS", "JULIA_NUM_THREADS", "PYTHONHASHSEED")
"""Variables a program may inherit by name; every other variable (keys, tokens, URLs with passwords) is dropped."""
HIDDEN_DATA = (("physvec.qmp_bench", "tasks"), ("physvec.qmp_bench", "upstream"))
"""Benchmark data shipped with physvec (reference values, expected values, upstream truths), hidden from programs."""
PIDS_CGROUP = Path("/sys/fs/cgroup/pids")
MAX_PROCESSES = 256


@dataclass(frozen=True)
class Isolation:
    """Whether programs run fully isolated, and if not, what is missing."""

    full: bool
    missing: tuple[str, ...] = ()
    process_limit: bool = False

    def describe(self) -> str:
        if self.full:
            limit = "a process-count limit" if self.process_limit else "no process-count limit (no writable cgroup)"
            return f"bubblewrap: no network, private PID namespace, read-only system, private folder; {limit}"
        return "reduced isolation: " + "; ".join(self.missing)


def _package_folder(package: str) -> Path | None:
    spec = importlib.util.find_spec(package)
    return Path(next(iter(spec.submodule_search_locations))) if spec and spec.submodule_search_locations else None


def _readable_roots() -> list[Path]:
    """The folders a Python program of ours needs to read: the interpreter's prefixes and physvec's code."""
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.executable).resolve().parent.parent}
    for package in ("physvec", "physvec.verifiers"):
        folder = _package_folder(package)
        if folder is not None:
            roots.add(folder)
    julia = Path(os.environ.get("JULIA_DEPOT_PATH", str(Path.home() / ".julia")).split(os.pathsep)[0])
    if julia.is_dir():
        roots.add(julia)
    return sorted({root.resolve() for root in roots if root.exists()})


def _hidden_folders() -> list[Path]:
    folders = []
    for package, name in HIDDEN_DATA:
        folder = _package_folder(package)
        if folder is not None and (folder / name).is_dir():
            folders.append((folder / name).resolve())
    return folders


def sandbox_environment(environ: Mapping[str, str], threads: int, extra: Mapping[str, str]) -> dict[str, str]:
    """The program's whole environment: allowlisted names only, a fixed thread share, headless plots."""
    environment = {name: environ[name] for name in ENVIRONMENT_ALLOWLIST if name in environ}
    environment.update({name: str(threads) for name in
                        ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "NUMBA_NUM_THREADS")})
    environment.update(MPLBACKEND="Agg", PYTHONDONTWRITEBYTECODE="1", PYTHONUNBUFFERED="1", HOME="/tmp",
                       MPLCONFIGDIR="/tmp/matplotlib", XDG_CACHE_HOME="/tmp/cache")
    environment.update(extra)
    return environment


TMP_BYTES = 256 * 1024 * 1024
"""The program's private /tmp is a tmpfs of this size: memory the address-space limit does not count."""


def _sandbox_base(environment: Mapping[str, str]) -> list[str]:
    """bubblewrap with everything but the working folder: namespaces, read-only system, hidden data, environment."""
    wrapped = ["bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
               "--dev", "/dev", "--proc", "/proc", "--size", str(TMP_BYTES), "--tmpfs", "/tmp"]
    for folder in SYSTEM_FOLDERS:
        if Path(folder).exists():
            wrapped += ["--ro-bind", folder, folder]
    for root in _readable_roots():
        wrapped += ["--ro-bind", str(root), str(root)]
    for folder in _hidden_folders():
        wrapped += ["--tmpfs", str(folder)]
    for name, value in environment.items():
        wrapped += ["--setenv", name, value]
    return wrapped


def bubblewrap_argv(argv: list[str], workdir: Path, environment: Mapping[str, str]) -> list[str]:
    """``argv`` wrapped in bubblewrap with physvec's isolation (see the module docstring)."""
    return [*_sandbox_base(environment), "--bind", str(Path(workdir).resolve()), SANDBOX_WORKDIR,
            "--chdir", SANDBOX_WORKDIR, "--", *argv]


SANDBOX_SLOTS = "/sandbox/slots"
"""Where a warm worker sees the folder holding its programs' folders (verifiers/warm_zygote.py); each program
sees only its own, at SANDBOX_WORKDIR."""
WORKER_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETPCAP")
"""What a warm worker keeps inside its user namespace to build each program's view (mounts) and to empty the
program's capability bounding set; the program itself keeps none."""


def warm_worker_argv(argv: list[str], root: Path, environment: Mapping[str, str]) -> list[str]:
    """``argv`` (the warm worker) in the same bubblewrap sandbox, with ``root`` at SANDBOX_SLOTS instead of one
    working folder, and the capabilities it needs to give each program its own view."""
    capabilities = [flag for capability in WORKER_CAPABILITIES for flag in ("--cap-add", capability)]
    return [*_sandbox_base(environment), *capabilities, "--bind", str(Path(root).resolve()), SANDBOX_SLOTS,
            "--dir", SANDBOX_WORKDIR, "--chdir", "/", "--", *argv]


def with_process_limit(argv: list[str]) -> tuple[list[str], Path | None]:
    """``argv`` joined to a fresh pids cgroup (its own processes and every descendant), where the host allows it;
    the cgroup to remove afterwards."""
    if not _cgroup_writable():
        return argv, None
    group = PIDS_CGROUP / f"physvec-{uuid.uuid4().hex[:12]}"
    group.mkdir()
    (group / "pids.max").write_text(str(MAX_PROCESSES))
    return ["/bin/sh", "-c", f'echo $$ > "{group}/cgroup.procs" && exec "$@"', "sh", *argv], group


def remove_cgroup(group: Path | None) -> None:
    if group is not None:
        try:
            group.rmdir()
        except OSError:
            pass


def _cgroup_writable() -> bool:
    return PIDS_CGROUP.is_dir() and os.access(PIDS_CGROUP, os.W_OK)


@cache
def probe() -> Isolation:
    """Can programs run under bubblewrap here?  Tried once per process with a real sandboxed command."""
    if shutil.which("bwrap") is None:
        return Isolation(False, ("bubblewrap is not installed (Debian: apt-get install bubblewrap)",))
    workdir = Path(os.environ.get("TMPDIR", "/tmp")) / f"physvec-probe-{uuid.uuid4().hex[:8]}"
    workdir.mkdir(parents=True)
    try:
        argv = bubblewrap_argv([sys.executable, "-c", "import os; print(os.getcwd())"], workdir,
                               sandbox_environment(os.environ, 1, {}))
        result = subprocess.run(argv, capture_output=True, text=True, timeout=30, check=False)
    except (OSError, subprocess.TimeoutExpired) as error:
        return Isolation(False, (f"bubblewrap could not start: {error}",))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    if result.returncode != 0 or result.stdout.strip() != SANDBOX_WORKDIR:
        return Isolation(False, (f"bubblewrap refused: {result.stderr.strip()[-300:] or result.returncode}",))
    return Isolation(True, process_limit=_cgroup_writable())


ALLOW_REDUCED_VARIABLE = "PHYSVEC_ALLOW_REDUCED_ISOLATION"
"""The user's standing acceptance of reduced isolation (as --allow-reduced-isolation), for a machine without
bubblewrap; generated programs never see the verifier's environment, so they cannot set it."""


def isolation_certificate(allow_reduced: bool) -> Certificate:
    """The run's isolation as a certificate for the final judge: full isolation certifies; reduced isolation is
    an error (the run cannot be certified) unless the user accepted it, which the message records."""
    allow_reduced = allow_reduced or os.environ.get(ALLOW_REDUCED_VARIABLE) == "1"
    state = probe()
    if state.full:
        obligation = Obligation(name="sandbox:isolation", category="isolation", outcome=Outcome.CERTIFIED,
                                message=state.describe())
    elif allow_reduced:
        obligation = Obligation(name="sandbox:isolation", category="isolation", outcome=Outcome.CERTIFIED,
                                message=f"{state.describe()}; accepted by --allow-reduced-isolation")
    else:
        obligation = Obligation(name="sandbox:isolation", category="isolation", outcome=Outcome.ERROR,
                                message=f"{state.describe()}; generated code could read sealed values, so the run "
                                        "cannot be certified (install bubblewrap, or accept this with "
                                        "--allow-reduced-isolation)")
    return Certificate(verifier="isolation", subject_digest="sandbox", obligations=(obligation,))
