"""The audit hook in a sandboxed program's interpreter (see verifiers/provenance.py for what it records and why).

This module is imported before the program's first line and removed from ``sys.modules`` once the hook is
installed, so that nothing the program can reach leads to the hook or to the globals its code reads: every
function and builtin the hook calls is bound here at import, where the program cannot replace it later
(``os.write = ...`` or ``builtins.len = ...`` would otherwise blind it).  Only ``str`` methods, which no
program can change, are looked up at call time.
"""

from __future__ import annotations

import sys
from _json import encode_basestring_ascii
from _thread import get_ident
from builtins import (OSError, ValueError, bytes, float, int, isinstance, len, list, open, repr, str,  # noqa: A004
                      tuple, type)
from os import O_APPEND, O_CREAT, O_RDWR, O_TRUNC, O_WRONLY, ST_RDONLY
from posix import _exit, _path_normpath, fstat, getcwd, statvfs, write
from sys import _getframe
from typing import Any

from physvec.verifiers.provenance import (
    DETAIL_CHARS, FORBIDDEN_IMPORTS, INSPECTION_MODULES, KINDS, MAX_LINES, READ_EVENT, RECORD_FD, RECORD_LOST,
)

PROGRAM, STANDARD, LIBRARY = "program", "standard", "library"
DEVICES = frozenset({"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom", "/dev/tty"})
WRITING = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND
FRAME_ATTRIBUTES = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
SPAWN_EVENTS = frozenset({"os.system", "os.exec", "os.posix_spawn", "os.spawn", "subprocess.Popen", "os.fork",
                          "os.forkpty", "pty.spawn", "os.startfile"})
FRAME_EVENTS = frozenset({"sys._getframe", "sys._current_frames", "sys.settrace", "sys.setprofile"})
NETWORK_EVENTS = frozenset({"socket.connect", "socket.bind", "socket.sendto", "socket.sendmsg"})
LISTING_EVENTS = frozenset({"open", "os.listdir", "os.scandir", "glob.glob"})
TAMPERING_EVENTS = frozenset({"sys.addaudithook", "gc.get_objects", "gc.get_referrers", "gc.get_referents",
                              "marshal.loads"})
CTYPES_EVENTS = frozenset({"ctypes.dlopen", "ctypes.dlsym", "ctypes.dlsym/handle", "ctypes.cdata",
                           "ctypes.cdata/buffer", "ctypes.call_function", "ctypes.addressof", "ctypes.string_at",
                           "ctypes.wstring_at", "ctypes.PyObj_FromPtr", "ctypes.get_errno", "ctypes.set_errno"})


def _under(path: str, folders: tuple[str, ...]) -> bool:
    for folder in folders:
        if path == folder or path.startswith(folder + "/"):
            return True
    return False


def _text(value: Any) -> str:
    """A short text of an event argument without running the program's code (no ``__str__`` of its classes)."""
    kind = type(value)
    if kind is str or kind is bytes or kind is int or kind is float:
        return repr(value)[:DETAIL_CHARS]
    if kind is tuple or kind is list:
        return " ".join(_text(item) for item in value[:4])[:DETAIL_CHARS]
    return "<object>"


def _ascii(text: str) -> str:
    return text.encode("ascii", "backslashreplace").decode("ascii")[:DETAIL_CHARS]


def _json_line(kind: str, event: str, detail: str, where: str) -> bytes:
    """One record line of at most ~730 bytes (see MAX_LINES)."""
    fields = (("kind", kind), ("event", _ascii(event)), ("detail", _ascii(detail)), ("where", _ascii(where)))
    body = ", ".join(f"{encode_basestring_ascii(name)}: {encode_basestring_ascii(value)}" for name, value in fields)
    return ("{" + body + "}\n").encode()


class Hook:
    """The hook and its state; reachable from nothing but the interpreter's list of audit hooks."""

    def __init__(self, workdir: str, libraries: tuple[str, ...], standard: tuple[str, ...],
                 own_files: tuple[str, ...], read_only: bool, watched_module: str, fd: int = RECORD_FD) -> None:
        status = fstat(fd)
        self.fd, self.identity = fd, (status.st_dev, status.st_ino)
        self.workdir, self.libraries, self.standard = workdir, libraries, standard
        self.own_files, self.read_only, self.watched_module = own_files, read_only, watched_module
        self.kinds: dict[str, str] = {}
        self.seen: set[tuple[str, str, str]] = set()
        self.busy: set[int] = set()
        self.rules = {
            **{event: self.on_open for event in LISTING_EVENTS}, **{event: self.on_spawn for event in SPAWN_EVENTS},
            **{event: self.on_frames for event in FRAME_EVENTS}, **{event: self.on_network for event in NETWORK_EVENTS},
            **{event: self.on_tampering for event in TAMPERING_EVENTS | CTYPES_EVENTS},
            "object.__getattr__": self.on_getattr, "object.__setattr__": self.on_setattr, "import": self.on_import,
            "compile": self.on_compile, "code.__new__": self.on_new_code, READ_EVENT: self.on_read,
        }

    # -- whose code a frame runs -------------------------------------------------------------------------

    def kind_of(self, filename: str) -> str:
        if type(filename) is not str:
            return PROGRAM  # a str subclass could run the program's code inside the hook
        kind = self.kinds.get(filename)
        if kind is None:
            kind = self.kinds[filename] = self._classify(filename)
        return kind

    def _classify(self, filename: str) -> str:
        if filename.startswith(("<frozen importlib", "<frozen zipimport")):
            return LIBRARY
        if filename.startswith("<frozen "):
            return STANDARD
        path = _path_normpath(filename) if filename.startswith("/") else filename
        if path == self.watched_module:
            return STANDARD  # the watched objects announce reads: look past them to their caller
        if _under(path, self.libraries):
            return LIBRARY
        if _under(path, self.standard):
            return LIBRARY if "/importlib/" in path else STANDARD
        return PROGRAM

    def origin(self, frame: Any) -> Any:
        """The program's frame behind an event, or None when a library's code (or none) is behind it."""
        while frame is not None:
            kind = self.kind_of(frame.f_code.co_filename)
            if kind == PROGRAM:
                return frame
            if kind == LIBRARY:
                return None
            frame = frame.f_back
        return None

    # -- the hook ----------------------------------------------------------------------------------------

    def __call__(self, event: str, args: tuple[Any, ...]) -> None:
        if type(event) is not str:
            return
        rule = self.rules.get(event)
        thread = get_ident()
        if rule is None or thread in self.busy:
            return
        self.busy.add(thread)
        try:
            try:
                caller = _getframe(1)
            except ValueError:
                return
            found = rule(caller, args)
            if found is not None:
                self.write(found[0], event, found[1], found[2])
        finally:
            self.busy.discard(thread)

    def write(self, kind: str, event: str, detail: str, frame: Any) -> None:
        """One breach line into the record; the program ends here when its record is gone."""
        code = frame.f_code
        where = f"{code.co_filename.rsplit('/', 1)[-1]}:{frame.f_lineno} in {code.co_name}"
        key = (kind, detail, where)
        if key in self.seen or len(self.seen) > MAX_LINES:
            return
        self.seen.add(key)
        line = _json_line(kind, event, detail, where)
        if len(self.seen) > MAX_LINES:
            line = _json_line("truncated", "", f"more than {MAX_LINES} breaches", "")
        try:
            status = fstat(self.fd)
        except OSError:
            status = None
        if status is None or (status.st_dev, status.st_ino) != self.identity:
            write(2, b"physvec provenance: the program closed or replaced its record; it is stopped\n")
            _exit(RECORD_LOST)
        write(self.fd, line)

    # -- the rules: (kind, detail, the program's frame) when an event is the program's breach --------------

    def _path(self, path: Any) -> str | None:
        if isinstance(path, bytes):
            path = path.decode("utf-8", "surrogateescape")
        if not isinstance(path, str):
            return None  # a descriptor: its file was judged when it was opened
        return _path_normpath(path if path.startswith("/") else getcwd() + "/" + path)

    def _outside(self, path: str, writing: bool) -> str | None:
        """The kind of breach opening ``path`` is: the interpreter's own files may be read, not written."""
        if path == "/proc" or path.startswith("/proc/"):
            return "proc"
        if _under(path, self.own_files):
            return "files" if writing else None
        if _under(path, (self.workdir, "/tmp", "/dev/shm")) or path in DEVICES:
            return None
        return "files"

    def _mine(self, kind: str, detail: str, caller: Any) -> tuple[str, str, Any] | None:
        frame = self.origin(caller)
        return None if frame is None else (kind, detail, frame)

    def on_open(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        path = self._path(args[0])
        flags = args[2] if len(args) > 2 and type(args[2]) is int else 0
        writing = bool(flags & WRITING)
        kind = None if path is None else self._outside(path, writing)
        return None if kind is None else self._mine(kind, f"writes {path}" if writing else path, caller)

    def on_spawn(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        return self._mine("processes", _text(args[:2]), caller)

    def _frame_access(self, caller: Any, what: str) -> tuple[str, str, Any] | None:
        """The program's when its own code reached for a frame, or an inspection module did it for the program;
        other standard modules (warnings, typing, enum, namedtuple) read a frame for their own bookkeeping."""
        filename = caller.f_code.co_filename
        if self.kind_of(filename) == STANDARD:
            module = filename.rsplit("/", 1)[-1].removesuffix(".py")
            if module not in INSPECTION_MODULES:
                return None
        return self._mine("frames", what, caller)

    def on_frames(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        return self._frame_access(caller, "call frames")

    def on_getattr(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        if len(args) < 2 or args[1] not in FRAME_ATTRIBUTES:
            return None
        return self._frame_access(caller, f"the attribute {args[1]}")

    def on_setattr(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        if len(args) < 2 or args[1] not in ("__code__", "__class__"):
            return None
        return self._mine("tampering", f"sets {args[1]}", caller)

    def on_network(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        return self._mine("network", _text(args[1:2]), caller)

    def on_tampering(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        return self._mine("tampering", "", caller)

    def on_import(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        module = args[0] if type(args[0]) is str else ""
        if module.split(".")[0] not in FORBIDDEN_IMPORTS:
            return None
        return self._mine("tampering", f"imports {module}", caller)

    def _forged(self, filename: str, source: Any) -> bool:
        """Code said to come from a library file that is not that file, unchanged, on a read-only mount."""
        if filename.startswith("<frozen "):
            return True  # the import system unmarshals frozen modules; it never compiles them
        try:
            with open(filename, "rb") as stream:
                actual = stream.read()
            mounted_read_only = bool(statvfs(filename).f_flag & ST_RDONLY)
        except OSError:
            return True
        text = source.encode() if isinstance(source, str) else source
        return actual != text or (self.read_only and not mounted_read_only)

    def on_compile(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        filename = args[1] if len(args) > 1 else None
        if not isinstance(filename, str) or self.kind_of(filename) == PROGRAM:
            return None
        frame = self.origin(caller)
        if frame is None and not self._forged(filename, args[0]):
            return None
        return "tampering", f"compiles code under the name {filename}", frame or caller

    def on_new_code(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        filename = args[1] if len(args) > 1 else None
        if not isinstance(filename, str) or self.kind_of(filename) == PROGRAM:
            return None
        return self._mine("tampering", f"makes code under the name {filename}", caller)

    def on_read(self, caller: Any, args: tuple[Any, ...]) -> tuple[str, str, Any] | None:
        kind = args[0] if args and type(args[0]) is str else ""
        detail = args[1] if len(args) > 1 and type(args[1]) is str else _text(args[1:])
        return self._mine(kind, detail, caller) if kind in KINDS else None


def install(hook: Hook) -> None:
    """Add the hook, then drop this module from reach (a later ``import`` makes a new, unconnected copy)."""
    sys.addaudithook(hook)
    sys.modules.pop(__name__, None)
    package = sys.modules.get(__name__.rpartition(".")[0])
    if package is not None and hasattr(package, "audit_hook"):
        delattr(package, "audit_hook")
