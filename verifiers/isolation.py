"""Isolation of sandboxed programs: what a generated program can see, reach and leave behind.

A script under test is written by an adversary who can read this repository.  Resource limits alone do
not stop it from reading the task's sealed values (``runs/<id>/inputs/assertions.json``, a task folder's
``reference.json``), writing into the run's certificates or the verifier's source tree, reading a
parent's environment through ``/proc``, opening sockets, or leaving a daemon behind.  So every program
runs under bubblewrap (Linux namespaces):

- a read-only view of the system (``/usr`` and its links, the few files of ``/etc`` the loader and the
  libraries read: ETC_ALLOWLIST), the interpreter's prefixes and site-packages, and physvec's code, wherever
  they are installed (a clone and venv under /tmp included), with benchmark data folders covered by empty
  read-only folders; its own working folder, mounted at a fixed neutral path (``/sandbox/work``) so a program
  cannot tell a check run from the main run by its folder name; a private, size-capped ``/tmp`` and
  ``/dev/shm``; a read-only root and ``/dev``;
- no capabilities in any set (bubblewrap run as root would otherwise leave them all, and a program could
  remount a read-only bind writable), no_new_privs;
- no network (a new network namespace), a new PID namespace (no other process is visible and the whole
  tree dies with the sandbox), a new session, death with the verifier (even on ``kill -9``);
- an environment built from an allowlist (no secret reaches it under any name);
- where the host allows it (root with a cgroup ``pids`` controller), a cap on the number of processes.

Warm workers (verifiers/warm_zygote.py) build the same view afresh for every program they fork, from
``read_only_binds`` and ``hidden_folders``.

When bubblewrap is missing or the kernel refuses namespaces, programs run with the old, reduced
isolation and ``probe()`` says why; a run can then be certified only when the user accepts it
(``reproduce --allow-reduced-isolation``).
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import site
import subprocess
import sys
import sysconfig
import uuid
from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from physvec.verifiers.certificate import Certificate, Obligation, Outcome

SANDBOX_WORKDIR = "/sandbox/work"
SYSTEM_FOLDERS = ("/usr", "/bin", "/sbin", "/lib", "/lib64", "/lib32", "/opt")
ETC_ALLOWLIST = ("ld.so.cache", "ld.so.conf", "ld.so.conf.d", "localtime", "alternatives", "fonts")
"""What of the host's /etc a program sees: the dynamic loader's cache and configuration, the time zone,
Debian's alternatives (the targets of links under /usr/bin) and fontconfig's configuration (matplotlib runs
``fc-list`` when it builds its font list, which a program's fresh /tmp makes it do).  Nothing else Python or
the libraries read there (measured with strace on the four reference scripts: ld.so.cache and localtime, and
git's optional gitconfig), and the rest names the host's users, services and keys."""
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
    """The folders a Python program of ours needs to read: the interpreter's prefixes, its standard library and
    site-packages, and physvec's code, wherever they are."""
    roots = {Path(sys.prefix), Path(sys.base_prefix), Path(sys.exec_prefix), Path(sys.base_exec_prefix),
             Path(sys.executable).resolve().parent.parent}
    paths = sysconfig.get_paths()
    roots.update(Path(paths[name]) for name in ("stdlib", "platstdlib", "purelib", "platlib"))
    roots.update(Path(folder) for folder in site.getsitepackages())
    if site.ENABLE_USER_SITE and site.getusersitepackages():
        roots.add(Path(site.getusersitepackages()))
    for package in ("physvec", "physvec.verifiers"):
        folder = _package_folder(package)
        if folder is not None:
            roots.add(folder)
    julia = Path(os.environ.get("JULIA_DEPOT_PATH", str(Path.home() / ".julia")).split(os.pathsep)[0])
    if julia.is_dir():
        roots.add(julia)
    return _outermost({root.resolve() for root in roots if root.exists()})


def _outermost(folders: set[Path]) -> list[Path]:
    """The folders not inside another one of them (binding a folder binds what is inside it)."""
    return sorted(folder for folder in folders if not any(other != folder and folder.is_relative_to(other)
                                                          for other in folders))


def read_only_binds() -> list[str]:
    """Every path a program sees read-only, in the order they are mounted: the system folders, /etc's
    allowlist, the interpreter's folders and physvec's code."""
    system = [folder for folder in SYSTEM_FOLDERS if Path(folder).exists()]
    etc = [f"/etc/{name}" for name in ETC_ALLOWLIST if os.path.lexists(f"/etc/{name}")]
    return system + etc + [str(root) for root in _readable_roots()]


def hidden_folders() -> list[str]:
    """The benchmark data folders inside physvec's code, each covered by an empty read-only folder."""
    return [str(folder) for folder in _hidden_folders()]


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
    """bubblewrap with everything but the working folder and the capabilities: namespaces, read-only system,
    hidden data, environment.  /tmp comes before the binds, so that a venv under /tmp is bound inside it."""
    wrapped = [shutil.which("bwrap") or "bwrap", "--unshare-all", "--die-with-parent", "--new-session", "--clearenv",
               "--dev", "/dev", "--size", str(TMP_BYTES), "--tmpfs", "/dev/shm", "--remount-ro", "/dev",
               "--proc", "/proc", "--size", str(TMP_BYTES), "--tmpfs", "/tmp", "--dir", "/etc"]
    for path in read_only_binds():
        wrapped += ["--ro-bind", path, path]
    for folder in hidden_folders():
        wrapped += ["--tmpfs", folder, "--remount-ro", folder]
    for name, value in environment.items():
        wrapped += ["--setenv", name, value]
    return wrapped


def bubblewrap_argv(argv: list[str], workdir: Path, environment: Mapping[str, str]) -> list[str]:
    """``argv`` wrapped in bubblewrap with physvec's isolation (see the module docstring), with no capability.
    The program is PID 1 of its namespace (``--as-pid-1``): bubblewrap's own process, whose command line names
    the host's folders, is not in it, and when the program ends every process it left ends with it."""
    return [*_sandbox_base(environment), "--cap-drop", "ALL", "--as-pid-1", "--bind", str(Path(workdir).resolve()),
            SANDBOX_WORKDIR, "--remount-ro", "/", "--chdir", SANDBOX_WORKDIR, "--", *argv]


SANDBOX_SLOTS = "/sandbox/slots"
"""Where a warm worker sees the folder holding its programs' folders (verifiers/warm_zygote.py); no program
sees it: each gets a root of its own with only its folder in it, at SANDBOX_WORKDIR."""
SANDBOX_NEW_ROOT = "/sandbox/root"
"""Where a warm worker's child builds its program's fresh root before pivoting into it."""
WORKER_CAPABILITIES = ("CAP_SYS_ADMIN", "CAP_SETPCAP")
"""All a warm worker keeps: to build each program's view (mounts, pivot_root) and to empty the program's
capability bounding set; the program itself keeps none."""


def warm_worker_argv(argv: list[str], root: Path, environment: Mapping[str, str]) -> list[str]:
    """``argv`` (the warm worker) in the same bubblewrap sandbox, with ``root`` at SANDBOX_SLOTS instead of one
    working folder, and the capabilities it needs to give each program its own view."""
    capabilities = [flag for capability in WORKER_CAPABILITIES for flag in ("--cap-add", capability)]
    return [*_sandbox_base(environment), "--cap-drop", "ALL", *capabilities, "--bind", str(Path(root).resolve()),
            SANDBOX_SLOTS, "--dir", SANDBOX_NEW_ROOT, "--remount-ro", "/", "--chdir", "/", "--", *argv]


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
