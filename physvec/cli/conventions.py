"""What every physvec command shares: the exit codes, ``--version``, and a help page that ends with examples
and the exit codes (docs/cli.md).

``CommandParser`` is the ``argparse.ArgumentParser`` of every entry point; its subcommands are built by
``add_subparsers`` with the same class, so each subcommand's help lists the exit codes and answers
``--version`` as well, and a subcommand's examples are one more keyword of ``add_parser``.
"""

from __future__ import annotations

import argparse
import functools
from importlib import metadata
from typing import Any

EXIT_CERTIFIED = 0
"""certified, or the command did what it was asked"""
EXIT_NOT_CERTIFIED = 1
"""it ran, and its verdict is not certified (failed or unknown), or a red team found a false verdict"""
EXIT_BAD_INPUT = 2
"""an input file, flag or model spec is wrong: nothing ran, and the message says what to change"""
EXIT_INTERRUPTED = 130
"""interrupted (Ctrl-C): the run is kept and can be resumed"""

EXIT_CODES = (f"exit codes: {EXIT_CERTIFIED} certified (or done), {EXIT_NOT_CERTIFIED} ran but not certified, "
              f"{EXIT_BAD_INPUT} bad input (nothing ran), {EXIT_INTERRUPTED} interrupted (resumable)")


@functools.cache
def version() -> str:
    """The installed distribution's version (a source tree that is not installed says so)."""
    try:
        return metadata.version("physvec")
    except metadata.PackageNotFoundError:
        return "not installed"


class CommandParser(argparse.ArgumentParser):
    """An argument parser whose help ends with ``examples`` and the exit codes, and which answers --version."""

    def __init__(self, *args: Any, examples: tuple[str, ...] = (), **kwargs: Any) -> None:
        epilog = "\n".join([*(["examples:", *(f"  {line}" for line in examples)] if examples else []), EXIT_CODES])
        kwargs.setdefault("formatter_class", argparse.RawDescriptionHelpFormatter)
        super().__init__(*args, epilog=epilog, **kwargs)
        self.add_argument("--version", action="version", version=f"%(prog)s (physvec {version()})")
