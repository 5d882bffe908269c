"""A warm sandbox worker: an interpreter that has imported a backend once and runs programs, each alone.

It runs inside bubblewrap (verifiers/isolation.py) with the folder that holds every program's working
folder mounted at SLOTS, and with CAP_SYS_ADMIN inside its user namespace, which it uses only to build each
program's view and then gives up.  For one request it forks a child that

- enters new mount, network, IPC and PID namespaces, binds its own folder at /sandbox/work, covers
  SLOTS with an empty read-only tmpfs (no other program's folder is reachable), and mounts a fresh /tmp,
  /dev/shm and /proc (it sees only its own processes: not the worker, not another program);
- forks PID 1 of that namespace, which mounts the namespace's /proc, drops every capability (bounding set
  included, no_new_privs set), and forks the program, so neither can undo any of that;
- the program then takes the request's environment, resource limits, a new session and death with its
  parent, reseeds the random generators it inherited, and runs the program file as ``__main__`` with the
  argv of ``python FILE ARGS``.

A forked child shares nothing writable with the worker or with another child (copy-on-write memory,
its own folder, /tmp, network and IPC), so no program can observe another.  Fork copies one thread only,
so the worker must not have started threads other than OpenBLAS's (whose fork handlers reset its pool):
the host preloads only libraries measured to start none (verifiers/warm_pool.py; netket's own import starts
sixteen, jax's none, so a netket worker preloads jax, flax, optax and numba but not netket).

Protocol (one JSON object per line): requests on stdin ``{"id", "slot", "argv", "env", "limits"}`` or
``{"kill": id}``; replies on stdout ``{"ready": true}`` once imports are done, then ``{"id", "status"}``
with the wait status as ``returncode`` semantics (negative: killed by that signal).
Usage: ``python -m physvec.verifiers.warm_zygote MODULE[,MODULE...]``.
"""

from __future__ import annotations

import builtins
import ctypes
import importlib
import importlib.machinery
import json
import os
import resource
import select
import signal
import sys
import traceback
import types
from typing import Any

from physvec.verifiers.sandbox_launch import apply_limits, die_with_parent

SLOTS = "/sandbox/slots"
WORKDIR = "/sandbox/work"
TMP_SIZE = "size=268435456"

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWPID, _CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_REC, _MS_PRIVATE = 1, 2, 4, 4096, 16384, 1 << 18
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 24, 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAPABILITY = 63

_libc = ctypes.CDLL(None, use_errno=True)


class IsolationFailed(OSError):
    """A step of building the program's view failed: the program must not run."""


def _check(result: int, what: str) -> None:
    if result != 0:
        errno = ctypes.get_errno()
        raise IsolationFailed(errno, f"{what}: {os.strerror(errno)}")


def _mount(source: str | None, target: str, kind: str | None, flags: int, data: str | None = None) -> None:
    encode = (lambda text: text.encode() if text is not None else None)
    _check(_libc.mount(encode(source), encode(target), encode(kind), flags, encode(data)), f"mount {target}")


def _own_view(slot: str) -> None:
    """New namespaces; this program's folder at WORKDIR; every other folder out of reach."""
    _check(_libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID), "unshare")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    folder = os.path.join(SLOTS, slot)
    if os.path.realpath(folder) != os.path.normpath(folder) or not os.path.isdir(folder):
        raise IsolationFailed(0, f"the working folder {slot!r} is not a plain folder under the slots")
    _mount(folder, WORKDIR, None, _MS_BIND | _MS_REC)
    _mount("tmpfs", SLOTS, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV, "size=4096")
    _mount("tmpfs", "/tmp", "tmpfs", _MS_NOSUID | _MS_NODEV, TMP_SIZE)
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", _MS_NOSUID | _MS_NODEV, TMP_SIZE)


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


def _drop_capabilities() -> None:
    """No capability left in any set, and none to be regained by exec."""
    for capability in range(_LAST_CAPABILITY + 1):
        _libc.prctl(_PR_CAPBSET_DROP, capability, 0, 0, 0)  # EINVAL past the kernel's last capability
    _libc.prctl(_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0)
    header, data = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0), (_CapData * 2)()
    _check(_libc.capset(ctypes.byref(header), data), "capset")
    _check(_libc.prctl(_PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), "no_new_privs")


def _stdio() -> None:
    """stdin from /dev/null, stdout and stderr into the folder's files (as the cold sandbox does); nothing
    else of the worker's stays open (its request and reply pipes above all)."""
    null = os.open("/dev/null", os.O_RDONLY)
    out = os.open(os.path.join(WORKDIR, "stdout.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(os.path.join(WORKDIR, "stderr.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for source, target in ((null, 0), (out, 1), (err, 2)):
        os.dup2(source, target)
    os.closerange(3, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


def _reseed() -> None:
    """A cold interpreter draws fresh entropy; a forked one would repeat the worker's random streams."""
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed()


def _recreate_config_folder() -> None:
    """matplotlib, imported by the worker, made its config and cache folder in the worker's /tmp and will not
    make it again: the program's fresh /tmp gets it, as a cold program's import would have made it."""
    folder = os.environ.get("MPLCONFIGDIR")
    if folder and "matplotlib" in sys.modules:
        os.makedirs(folder, exist_ok=True)


def _program_frames(tb: Any, program: str) -> Any:
    """The traceback from the program's own first frame on: what ``python FILE`` would print."""
    while tb is not None and tb.tb_frame.f_code.co_filename != program:
        tb = tb.tb_next
    return tb


def _exit_code(code: Any) -> int:
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


def _run_program(argv: list[str]) -> int:
    """``python FILE ARGS`` in this interpreter: the same sys.argv, sys.path[0], ``__main__`` module (file name
    absolute, as Python 3.9+ makes it) and exit status."""
    program = os.path.join(WORKDIR, argv[0])
    sys.argv = list(argv)
    sys.path[0] = WORKDIR
    main = types.ModuleType("__main__")
    main.__file__ = program
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", program)
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    try:
        with open(program, "rb") as source:
            code = compile(source.read(), program, "exec")
        exec(code, main.__dict__)
    except SystemExit as stop:
        return _exit_code(stop.code)
    except BaseException as error:  # the program's own failure, printed as the interpreter would
        traceback.print_exception(type(error), error, _program_frames(error.__traceback__, program))
        return 1
    return 0


def _become_program(request: dict[str, Any]) -> None:
    """Everything after the view is built, in the process that becomes the program; never returns."""
    code = 1
    try:
        die_with_parent()
        _drop_capabilities()  # PID 1 dropped them already; this one cannot be undone by the program either
        os.setsid()
        _stdio()
        os.chdir(WORKDIR)
        os.environ.clear()
        os.environ.update(request["env"])
        _recreate_config_folder()
        apply_limits(request["limits"])
        _reseed()
        code = _run_program(request["argv"])
    except BaseException:  # noqa: BLE001 - the program's process ends here whatever happened
        traceback.print_exc()
    finally:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
    os._exit(code)


def _exit_status(status: int) -> int:
    """A wait status as an exit code, a signal as 128 + it (as bubblewrap reports a program's signal)."""
    return os.WEXITSTATUS(status) if os.WIFEXITED(status) else 128 + os.WTERMSIG(status)


def _reap(program: int) -> int:
    """PID 1's duty: reap every orphan until the program itself ends; its status."""
    while True:
        pid, status = os.wait()
        if pid == program:
            return _exit_status(status)


def _namespace_init(request: dict[str, Any]) -> None:
    """PID 1 of the program's namespace: its own /proc, no capabilities, the program as its child; never
    returns.  When it dies (the worker's kill, or the worker's death) the kernel kills the whole namespace."""
    code = 125
    try:
        die_with_parent()
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV)
        _drop_capabilities()
        program = os.fork()
        if program == 0:
            _become_program(request)
        code = _reap(program)
    except BaseException as error:  # noqa: BLE001 - PID 1 ends here whatever happened
        print(f"physvec warm worker: {error}", file=sys.stderr)
    os._exit(code)


def _forked_run(request: dict[str, Any]) -> None:
    """The worker's child: build the view, start the namespace's PID 1, exit with the program's status;
    never returns."""
    die_with_parent()
    try:
        _own_view(request["slot"])
    except OSError as error:
        print(f"physvec warm worker: {error}", file=sys.stderr)
        os._exit(125)
    init = os.fork()
    if init == 0:
        _namespace_init(request)
    _, status = os.waitpid(init, 0)
    os._exit(_exit_status(status))


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def _serve_forks() -> None:
    """Requests in, one forked child per program, statuses out, kills on request; until stdin closes."""
    running: dict[int, str] = {}
    requests = sys.stdin.buffer
    while True:
        readable, _, _ = select.select([requests], [], [], 0.05)
        if readable:
            line = requests.readline()
            if not line:
                break
            request = json.loads(line)
            if "kill" in request:
                for pid, name in running.items():
                    if name == request["kill"]:
                        os.kill(pid, signal.SIGKILL)
                continue
            pid = os.fork()
            if pid == 0:
                _forked_run(request)
            running[pid] = request["id"]
        for pid in list(running):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                _reply({"id": running.pop(pid), "status": os.waitstatus_to_exitcode(status)})
    for pid in running:
        os.kill(pid, signal.SIGKILL)


BLAS_MODULES = ("numpy", "scipy.linalg")
"""Imported first: their OpenBLAS thread pools (reset by OpenBLAS's own fork handlers) are the only threads a
worker may hold when it forks, so the threads counted after them are the baseline."""


def _import_quietly(module: str) -> None:
    try:
        importlib.import_module(module)
    except ImportError:  # not installed here: the program's own import will say so, as a cold one's does
        pass


def _threads() -> int:
    return len(os.listdir("/proc/self/task"))


def main(argv: list[str]) -> None:
    (modules,) = argv
    for module in BLAS_MODULES:
        _import_quietly(module)
    baseline = _threads()
    for module in filter(None, modules.split(",")):
        _import_quietly(module)
    _reply({"ready": True, "extra_threads": _threads() - baseline})
    _serve_forks()


if __name__ == "__main__":
    main(sys.argv[1:])
