"""``python FILE ARGS`` as a sandboxed program runs it: watched by its provenance hook from the first line.

Both sandboxes end here: a warm worker's forked child calls ``run_watched`` (verifiers/warm_zygote.py), and a
cold program is started as ``python -m physvec.verifiers.program_main [--read-only] -- FILE ARGS`` with its
record pipe at RECORD_FD (verifiers/sandbox_launch.py).  The program sees what ``python FILE ARGS`` would show
it: the same ``sys.argv``, ``sys.path[0]``, ``__main__`` module (file name absolute) and exit status, and a
traceback that starts at its own first frame.
"""

from __future__ import annotations

import builtins
import importlib.machinery
import os
import sys
import traceback
import types
from typing import Any

from physvec.verifiers import audit_hook, watched
from physvec.verifiers.provenance import RECORD_FD


def _trusted_places(workdir: str, read_only: bool) -> audit_hook.Hook:
    """The hook for this interpreter: the program's folder, the libraries' and the standard library's."""
    import site
    import sysconfig

    paths = sysconfig.get_paths()
    libraries = {paths["purelib"], paths["platlib"], *site.getsitepackages()}
    for name in ("physvec", "physvec.verifiers"):
        libraries.update(getattr(sys.modules.get(name), "__path__", ()))
    standard = {paths["stdlib"], paths["platstdlib"]}
    own = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix, *libraries, *standard}

    def normal(folders: set[str]) -> tuple[str, ...]:
        return tuple(sorted({os.path.normpath(folder) for folder in folders if folder}))

    return audit_hook.Hook(os.path.normpath(workdir), normal(libraries), normal(standard), normal(own), read_only,
                           os.path.normpath(watched.__file__))


def _no_sourceless_bytecode() -> None:
    """Imports load source files and extensions only: a .pyc with no source could carry code under any file
    name, a library's among them, and the hook tells whose code runs by that name."""
    loaders = [(importlib.machinery.ExtensionFileLoader, importlib.machinery.EXTENSION_SUFFIXES),
               (importlib.machinery.SourceFileLoader, importlib.machinery.SOURCE_SUFFIXES)]
    file_finder = importlib.machinery.FileFinder.path_hook(*loaders)
    sys.path_hooks[:] = [file_finder if "FileFinder" in getattr(hook, "__qualname__", "") else hook
                         for hook in sys.path_hooks]
    sys.path_importer_cache.clear()


def watch_interpreter(workdir: str, argv: list[str], read_only: bool) -> None:
    """From now on every look of the program at its surroundings goes into its record (RECORD_FD)."""
    hook = _trusted_places(workdir, read_only)
    _no_sourceless_bytecode()
    watched.watch(argv)
    audit_hook.install(hook)


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


def run_watched(argv: list[str], workdir: str, read_only: bool) -> int:
    """``python FILE ARGS`` (``argv`` = FILE ARGS, FILE in ``workdir``) in this interpreter, watched; its exit
    status."""
    program = os.path.join(workdir, argv[0])
    sys.path[0] = workdir
    main = types.ModuleType("__main__")
    main.__file__ = program
    main.__loader__ = importlib.machinery.SourceFileLoader("__main__", program)
    main.__builtins__ = builtins
    sys.modules["__main__"] = main
    try:
        with open(program, "rb") as source:
            code = compile(source.read(), program, "exec")
    except (OSError, SyntaxError) as error:
        traceback.print_exception(type(error), error, None)
        return 1
    watch_interpreter(workdir, list(argv), read_only)
    try:
        exec(code, main.__dict__)
    except SystemExit as stop:
        return _exit_code(stop.code)
    except BaseException as error:  # the program's own failure, printed as the interpreter would
        traceback.print_exception(type(error), error, _program_frames(error.__traceback__, program))
        return 1
    return 0


def main(arguments: list[str]) -> None:
    """The cold sandbox's entry: ``[--read-only] [--record-fd N] -- FILE ARGS``."""
    read_only = "--read-only" in arguments
    record = int(arguments[arguments.index("--record-fd") + 1]) if "--record-fd" in arguments else RECORD_FD
    argv = arguments[arguments.index("--") + 1:]
    if record != RECORD_FD:
        os.dup2(record, RECORD_FD)
        os.close(record)
    code = run_watched(argv, os.getcwd(), read_only)
    for stream in (sys.stdout, sys.stderr):
        stream.flush()
    os._exit(code)


if __name__ == "__main__":
    main(sys.argv[1:])
