"""Watched stand-ins for what CPython reads without an audit event: the environment, argv, sys.path, the working
folder.

Each read raises an audit event of its own (``physvec.read``, with the kind of look and what was read), which
the program's audit hook (verifiers/audit_hook.py) attributes like any other event: a library's read is its
own business, the program's is a breach.  The stand-ins hold no reference to the hook, so a program that
takes one apart learns nothing about it; putting the original back (``os.environ.__class__ = ...``) is an
audited ``object.__setattr__`` and itself a breach.
"""

from __future__ import annotations

import os
import posix
import sys
from collections.abc import Iterable, Iterator
from typing import Any

from physvec.verifiers.provenance import READ_EVENT, THREAD_SETTINGS


def _announce(kind: str, detail: str) -> None:
    sys.audit(READ_EVENT, kind, detail)


def _name(key: Any) -> str:
    return os.fsdecode(key) if isinstance(key, bytes) else str(key)


class WatchedEnviron(os._Environ):  # type: ignore[name-defined]
    """``os.environ`` (and ``os.environb``) as before, announcing every read but of the thread settings."""

    def __getitem__(self, key: Any) -> Any:
        if _name(key) not in THREAD_SETTINGS:
            _announce("environment", f"reads {_name(key)}")
        return super().__getitem__(key)

    def __iter__(self) -> Iterator[Any]:
        _announce("environment", "lists the environment")
        return super().__iter__()

    def __len__(self) -> int:
        _announce("environment", "counts the environment")
        return super().__len__()

    def __repr__(self) -> str:
        _announce("environment", "prints the environment")
        return super().__repr__()

    def copy(self) -> dict[Any, Any]:
        _announce("environment", "copies the environment")
        return super().copy()


class WatchedStartupEnviron(dict):
    """``posix.environ``: the environment as the interpreter started, a plain dict that ``os`` copied."""

    def __getitem__(self, key: Any) -> Any:
        _announce("environment", f"reads {_name(key)} from posix.environ")
        return super().__getitem__(key)

    def get(self, key: Any, default: Any = None) -> Any:
        _announce("environment", f"reads {_name(key)} from posix.environ")
        return super().get(key, default)

    def __iter__(self) -> Iterator[Any]:
        _announce("environment", "lists posix.environ")
        return super().__iter__()

    def keys(self) -> Any:
        _announce("environment", "lists posix.environ")
        return super().keys()

    def items(self) -> Any:
        _announce("environment", "lists posix.environ")
        return super().items()

    def values(self) -> Any:
        _announce("environment", "lists posix.environ")
        return super().values()

    def copy(self) -> dict[Any, Any]:
        _announce("environment", "copies posix.environ")
        return super().copy()


class WatchedList(list):
    """A list (sys.argv, sys.orig_argv, sys.path) announcing each read as a look of ``kind``."""

    def __init__(self, items: Iterable[Any], kind: str, name: str) -> None:
        super().__init__(items)
        self._look = (kind, f"reads {name}")

    def _read(self) -> None:
        _announce(*self._look)

    def __getitem__(self, index: Any) -> Any:
        self._read()
        return super().__getitem__(index)

    def __iter__(self) -> Iterator[Any]:
        self._read()
        return super().__iter__()

    def __len__(self) -> int:
        self._read()
        return super().__len__()

    def __contains__(self, item: object) -> bool:
        self._read()
        return super().__contains__(item)

    def __repr__(self) -> str:
        self._read()
        return super().__repr__()

    def __eq__(self, other: object) -> bool:
        self._read()
        return super().__eq__(other)

    __hash__ = None  # type: ignore[assignment]  # unhashable, as a list is

    def copy(self) -> list[Any]:
        self._read()
        return super().copy()

    def index(self, *args: Any) -> int:
        self._read()
        return super().index(*args)

    def count(self, item: Any) -> int:
        self._read()
        return super().count(item)


def _getcwd() -> str:
    _announce("path", "reads its working folder")
    return posix.getcwd()


def _getcwdb() -> bytes:
    _announce("path", "reads its working folder")
    return posix.getcwdb()


def watch(argv: list[str]) -> None:
    """Put the watched stand-ins in place; ``argv`` is the program's own (``FILE ARGS``, as a user runs it)."""
    os.environ.__class__ = WatchedEnviron
    os.environb.__class__ = WatchedEnviron
    posix.environ = WatchedStartupEnviron(posix.environ)
    os.getcwd, os.getcwdb = _getcwd, _getcwdb
    sys.argv = WatchedList(argv, "argv", "sys.argv")
    sys.orig_argv = WatchedList([sys.executable, *argv], "argv", "sys.orig_argv")
    sys.path = WatchedList(sys.path, "path", "sys.path")
