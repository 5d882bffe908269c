"""Run files name paths relative to the run folder, never this machine's absolute paths.

A run folder is mailed, archived and opened on other machines; ``/home/alice/physvec/verifiers/...`` means
nothing there and says more about the machine than a reader needs.  ``portable`` rewrites the absolute
prefixes a run can pick up (tracebacks from the sandbox, the run's own working folders) into relative or
named ones: the run folder becomes relative (``work/v01-programming/script.py``), physvec's own sources
become paths inside the distribution (``verifiers/programming/harness.py``), installed packages
``<site-packages>/...``, the Python installation ``<python>/...`` and the home folder ``~``.
"""

from __future__ import annotations

import site
import sys
import sysconfig
from functools import cache
from pathlib import Path
from typing import Any

SOURCE_ROOT = Path(__file__).resolve().parents[2]
"""The folder holding physvec's packages: the checkout, or site-packages for an installed wheel."""


@cache
def _machine_prefixes() -> tuple[tuple[str, str], ...]:
    """(absolute prefix, replacement) for every machine folder a traceback can name, longest first, so the
    most specific name wins (site-packages inside a checkout's virtual environment stays site-packages)."""
    named = {str(SOURCE_ROOT): ""}
    for folder in {*site.getsitepackages(), sysconfig.get_paths()["purelib"], sysconfig.get_paths()["platlib"]}:
        named[folder] = "<site-packages>"
    for folder in {sys.prefix, sys.base_prefix, sys.exec_prefix}:
        named.setdefault(folder, "<python>")
    named.setdefault(str(Path.home()), "~")
    return tuple(sorted(((prefix.rstrip("/") + "/", name + "/" if name else "") for prefix, name in named.items()
                         if len(prefix) > 1), key=lambda pair: -len(pair[0])))


def portable_text(text: str, folder: Path) -> str:
    """``text`` with ``folder`` (the run folder) made relative and other machine prefixes named."""
    text = text.replace(str(folder.resolve()).rstrip("/") + "/", "")
    for prefix, name in _machine_prefixes():
        text = text.replace(prefix, name)
    return text


def portable(value: Any, folder: Path) -> Any:
    """A JSON-like value with every string made portable (see ``portable_text``)."""
    if isinstance(value, str):
        return portable_text(value, folder) if "/" in value else value
    if isinstance(value, dict):
        return {key: portable(item, folder) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [portable(item, folder) for item in value]
    return value
