"""A warm sandbox worker: an interpreter that has imported a backend once and runs programs, each alone.

It runs inside bubblewrap (verifiers/isolation.py) with the folder that holds every program's working
folder mounted at SLOTS, and with CAP_SYS_ADMIN and CAP_SETPCAP only, which it uses to build each program's
view and then gives up.  For one request it forks a child that

- enters new mount, network, IPC and PID namespaces and builds the program a root of its own: a fresh, empty,
  read-only tmpfs holding the same read-only binds as the cold sandbox (the system folders, /etc's allowlist,
  the interpreter, physvec's code; data folders covered), a fresh /tmp and /dev/shm, a fresh read-only /dev
  with the usual device nodes, and the program's own folder at /sandbox/work; it pivots into that root, so
  nothing any earlier program wrote (in /, /dev, /sandbox or /tmp) and no other program's folder is there;
- forks PID 1 of that namespace, which mounts the namespace's /proc, drops every capability (bounding set
  included, no_new_privs set) and becomes the program, which cannot undo any of that: no process of the
  worker's (whose command line names the host's folders) is in its namespace;
- the program then takes the request's environment, resource limits, a new session and death with its
  parent, reseeds the random generators it inherited, and runs the program file as ``__main__`` with the
  argv of ``python FILE ARGS``, watched by its provenance hook (verifiers/program_main.py), whose record goes
  into a pipe the worker reads.

A forked child shares nothing writable with the worker or with another child (copy-on-write memory,
its own root, folder, /tmp, network and IPC), so no program can observe another.  Fork copies one thread
only, so the worker must not have started threads other than OpenBLAS's (whose fork handlers reset its pool):
the host preloads only libraries measured to start none (verifiers/warm_pool.py; netket's own import starts
sixteen, jax's none, so a netket worker preloads jax, flax, optax and numba but not netket).

Protocol (one JSON object per line): requests on stdin ``{"id", "slot", "argv", "env", "limits"}`` or
``{"kill": id}``; replies on stdout ``{"ready": true}`` once imports are done, then ``{"id", "status",
"record"}`` with the wait status as ``returncode`` semantics (negative: killed by that signal) and the text of
the program's provenance record.
Usage: ``python -m physvec.verifiers.warm_zygote CONFIG_JSON`` with CONFIG ``{"preload": [MODULE, ...], "binds":
[PATH, ...], "hidden": [PATH, ...]}``.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import platform
import resource
import select
import signal
import sys
import traceback
from typing import Any

from physvec.verifiers.program_main import run_watched
from physvec.verifiers.provenance import RECORD_BYTES, RECORD_FD
from physvec.verifiers.sandbox_launch import apply_limits, die_with_parent

SLOTS = "/sandbox/slots"
WORKDIR = "/sandbox/work"
NEW_ROOT = "/sandbox/root"
TMP_SIZE = "size=268435456"
ROOT_SIZE = "size=1048576,mode=755"
"""The program's root holds only mount points (a few KiB); it is read-only once built."""
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
DEVICE_LINKS = (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                ("stderr", "/proc/self/fd/2"))

_CLONE_NEWNS, _CLONE_NEWIPC, _CLONE_NEWPID, _CLONE_NEWNET = 0x00020000, 0x08000000, 0x20000000, 0x40000000
_MS_RDONLY, _MS_NOSUID, _MS_NODEV, _MS_NOEXEC, _MS_REMOUNT = 1, 2, 4, 8, 32
_MS_BIND, _MS_REC, _MS_PRIVATE = 4096, 16384, 1 << 18
_MNT_DETACH = 2
_PR_CAPBSET_DROP, _PR_SET_NO_NEW_PRIVS = 24, 38
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_CLEAR_ALL = 47, 4
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
_LAST_CAPABILITY = 63
_SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41}.get(platform.machine())

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


def _read_only(target: str, flags: int = _MS_NOSUID | _MS_NODEV) -> None:
    _mount(None, target, None, _MS_REMOUNT | _MS_BIND | _MS_RDONLY | flags)


def _mount_point(path: str, like: str) -> str:
    """An empty folder or file at ``path`` (inside the new root) to mount ``like`` on."""
    if os.path.isdir(like):
        os.makedirs(path, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(path), exist_ok=True)
        if not os.path.lexists(path):
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o644))
    return path


def _fresh_dev(root: str) -> None:
    """/dev of the new root: its own tmpfs with the device nodes bound in, the usual links and a /dev/shm."""
    dev = os.path.join(root, "dev")
    os.makedirs(dev)
    _mount("tmpfs", dev, "tmpfs", _MS_NOSUID | _MS_NOEXEC, "size=65536,mode=755")
    for name in DEVICES:
        if os.path.exists(f"/dev/{name}"):
            _mount(f"/dev/{name}", _mount_point(os.path.join(dev, name), f"/dev/{name}"), None, _MS_BIND)
    for name, target in DEVICE_LINKS:
        os.symlink(target, os.path.join(dev, name))
    os.mkdir(os.path.join(dev, "shm"))
    _mount("tmpfs", os.path.join(dev, "shm"), "tmpfs", _MS_NOSUID | _MS_NODEV, TMP_SIZE)


def _pivot_into(root: str) -> None:
    """Make ``root`` this namespace's / and let go of the old one (the worker's root, its slots among them)."""
    if _SYS_PIVOT_ROOT is None:
        raise IsolationFailed(0, f"pivot_root: no system call number known for {platform.machine()}")
    os.chdir(root)
    _check(_libc.syscall(_SYS_PIVOT_ROOT, b".", b"."), "pivot_root")
    _check(_libc.umount2(b".", _MNT_DETACH), "umount the old root")
    os.chdir("/")


def _fresh_root(slot: str, config: dict[str, Any]) -> None:
    """New namespaces and a root of the program's own: see the module docstring.  /tmp is mounted before the
    read-only binds, so that an interpreter installed under /tmp is bound inside it."""
    _check(_libc.unshare(_CLONE_NEWNS | _CLONE_NEWNET | _CLONE_NEWIPC | _CLONE_NEWPID), "unshare")
    _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
    folder = os.path.join(SLOTS, slot)
    if os.path.realpath(folder) != os.path.normpath(folder) or not os.path.isdir(folder):
        raise IsolationFailed(0, f"the working folder {slot!r} is not a plain folder under the slots")
    root = NEW_ROOT
    _mount("tmpfs", root, "tmpfs", _MS_NOSUID | _MS_NODEV, ROOT_SIZE)
    os.makedirs(os.path.join(root, "tmp"))
    _mount("tmpfs", os.path.join(root, "tmp"), "tmpfs", _MS_NOSUID | _MS_NODEV, TMP_SIZE)
    for path in config["binds"]:
        target = _mount_point(root + path, path)
        _mount(path, target, None, _MS_BIND | _MS_REC)
        _read_only(target)
    for path in config["hidden"]:
        if os.path.isdir(root + path):
            _mount("tmpfs", root + path, "tmpfs", _MS_RDONLY | _MS_NOSUID | _MS_NODEV, "size=4096")
    _fresh_dev(root)
    # PID 1 mounts the program's own /proc over this one: the kernel lets a user namespace mount a proc only
    # where one is already visible
    _mount("/proc", _mount_point(os.path.join(root, "proc"), "/proc"), None, _MS_BIND | _MS_REC)
    _mount(folder, _mount_point(root + WORKDIR, folder), None, _MS_BIND | _MS_REC)
    _pivot_into(root)
    _read_only("/dev", _MS_NOSUID | _MS_NOEXEC)
    _read_only("/")


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


def _stdio(record: int) -> None:
    """stdin from /dev/null, stdout and stderr into the folder's files (as the cold sandbox does), the record
    pipe at RECORD_FD; nothing else of the worker's stays open (its request and reply pipes above all)."""
    null = os.open("/dev/null", os.O_RDONLY)
    out = os.open(os.path.join(WORKDIR, "stdout.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    err = os.open(os.path.join(WORKDIR, "stderr.txt"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    for source, target in ((null, 0), (out, 1), (err, 2), (record, RECORD_FD)):
        os.dup2(source, target)
    os.closerange(RECORD_FD + 1, resource.getrlimit(resource.RLIMIT_NOFILE)[0])


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


def _become_program(request: dict[str, Any], record: int) -> None:
    """Everything after the view is built, in the process that becomes the program; never returns."""
    code = 1
    try:
        die_with_parent()
        os.setsid()
        _stdio(record)
        os.chdir(WORKDIR)
        os.environ.clear()
        os.environ.update(request["env"])
        _recreate_config_folder()
        apply_limits(request["limits"])
        _reseed()
        code = run_watched(request["argv"], WORKDIR, read_only=True)
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


def _namespace_init(request: dict[str, Any], record: int) -> None:
    """PID 1 of the program's namespace, which becomes the program once it has mounted the namespace's /proc
    and dropped every capability; never returns.  No process of the worker's is in the namespace (its command
    line names the host's folders), and when the program ends, or the worker kills or loses its child, the
    kernel kills every process the program left."""
    try:
        die_with_parent()
        _mount("proc", "/proc", "proc", _MS_NOSUID | _MS_NODEV | _MS_NOEXEC)
        _drop_capabilities()
    except BaseException as error:  # noqa: BLE001 - the program must not run without its view
        print(f"physvec warm worker: {error}", file=sys.stderr)
        os._exit(125)
    _become_program(request, record)


def _forked_run(request: dict[str, Any], config: dict[str, Any], record: int, worker_fds: list[int]) -> None:
    """The worker's child: build the view, start the namespace's PID 1, exit with the program's status;
    never returns."""
    signal.set_wakeup_fd(-1)
    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
    for descriptor in worker_fds:
        os.close(descriptor)
    die_with_parent()
    try:
        _fresh_root(request["slot"], config)
    except OSError as error:
        print(f"physvec warm worker: {error}", file=sys.stderr)
        os._exit(125)
    init = os.fork()
    if init == 0:
        _namespace_init(request, record)
    os.close(record)
    _, status = os.waitpid(init, 0)
    os._exit(_exit_status(status))


def _reply(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


class _Running:
    """The programs in flight: their child's pid, request id and record pipe, read as they write."""

    def __init__(self) -> None:
        self.names: dict[int, str] = {}
        self.records: dict[int, int] = {}
        self.texts: dict[int, bytearray] = {}

    def add(self, pid: int, name: str, record: int) -> None:
        self.names[pid], self.records[pid], self.texts[pid] = name, record, bytearray()

    def read(self, pid: int) -> None:
        """What the program's hook wrote since last time, up to RECORD_BYTES (never blocks: non-blocking pipe)."""
        while True:
            try:
                chunk = os.read(self.records[pid], 65536)
            except BlockingIOError:
                return
            if not chunk:
                return
            text = self.texts[pid]
            text += chunk[:max(0, RECORD_BYTES - len(text))]

    def finish(self, pid: int) -> tuple[str, str]:
        self.read(pid)
        os.close(self.records.pop(pid))
        return self.names.pop(pid), self.texts.pop(pid).decode("utf-8", "replace")


def _serve_forks(config: dict[str, Any]) -> None:
    """Requests in, one forked child per program, statuses and records out, kills on request; until stdin
    closes.  A SIGCHLD wakes the loop at once, so a program's end is answered without polling delay."""
    running = _Running()
    requests = sys.stdin.buffer
    wake_read, wake_write = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.signal(signal.SIGCHLD, lambda signum, frame: None)
    signal.set_wakeup_fd(wake_write)
    while True:
        watched = [requests, wake_read, *running.records.values()]
        readable, _, _ = select.select(watched, [], [], 1.0)
        if wake_read in readable:
            while True:
                try:
                    if not os.read(wake_read, 4096):
                        break
                except BlockingIOError:
                    break
        for pid, record in list(running.records.items()):
            if record in readable:
                running.read(pid)
        if requests in readable:
            line = requests.readline()
            if not line:
                break
            request = json.loads(line)
            if "kill" in request:
                for pid, name in running.names.items():
                    if name == request["kill"]:
                        os.kill(pid, signal.SIGKILL)
                continue
            record_read, record_write = os.pipe()
            os.set_blocking(record_read, False)
            pid = os.fork()
            if pid == 0:
                _forked_run(request, config, record_write,
                            [record_read, wake_read, wake_write, *running.records.values()])
            os.close(record_write)
            running.add(pid, request["id"], record_read)
        for pid in list(running.names):
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                name, record = running.finish(pid)
                _reply({"id": name, "status": os.waitstatus_to_exitcode(status), "record": record})
    for pid in running.names:
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
    (config_json,) = argv
    config = json.loads(config_json)
    for module in BLAS_MODULES:
        _import_quietly(module)
    baseline = _threads()
    for module in config["preload"]:
        _import_quietly(module)
    _reply({"ready": True, "extra_threads": _threads() - baseline})
    _serve_forks(config)


if __name__ == "__main__":
    main(sys.argv[1:])
