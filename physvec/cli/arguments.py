"""Argument types every command shares: what argparse refuses with exit 2 before any work starts.

A run id becomes a folder name under --runs-dir, so ``--run-id ../x`` would write outside it; a folder
argument that names an existing file would end in FileExistsError deep inside a campaign.
"""

from __future__ import annotations

import argparse
import math
import os
import re
from pathlib import Path
from typing import Literal

AUTO = "auto"
RUNS_DIR_ENV = "PHYSVEC_RUNS_DIR"
"""where run folders go when no --runs-dir is given (default: ./runs)"""

RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$")


def folder_name(text: str) -> str:
    """One folder name: letters, digits, '_', '.', '-', at most 100 characters, no path separators."""
    if not RUN_ID.match(text):
        raise argparse.ArgumentTypeError(
            f"{text[:120]!r} is not a run id: one folder name of letters, digits, '_', '.' and '-' (at most 100 "
            "characters, no '/' or '..')")
    return text


def output_folder(text: str) -> Path:
    """A folder to read or write: absent (it will be made) or a folder, never an existing file."""
    path = Path(text)
    if path.exists() and not path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a file, not a folder")
    return path


def add_runs_dir(parser: argparse.ArgumentParser, subcommands: tuple[argparse.ArgumentParser, ...] = (),
                 help: str = "where run folders go") -> None:
    """``--runs-dir`` on ``parser`` and on each of its ``subcommands``, so that it may stand before or after the
    subcommand's name; unset, it is $PHYSVEC_RUNS_DIR, else ./runs."""
    default = Path(os.environ.get(RUNS_DIR_ENV) or "runs")
    parser.add_argument("--runs-dir", type=output_folder, default=default, help=f"{help} (default: ${RUNS_DIR_ENV}, "
                                                                                 "else ./runs)")
    for subcommand in subcommands:  # SUPPRESS: given only before the subcommand, the parent's value stands
        subcommand.add_argument("--runs-dir", type=output_folder, default=argparse.SUPPRESS, help=help)


def seconds_or_none(text: str) -> float | None:
    """A positive number of seconds, or ``none`` for no limit."""
    if text.strip().lower() == "none":
        return None
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is neither a number of seconds nor 'none'") from None
    if not (math.isfinite(value) and value > 0):
        raise argparse.ArgumentTypeError(f"{text!r} must be a positive number of seconds, or 'none'")
    return value


def seconds_none_or_auto(text: str) -> float | None | Literal["auto"]:
    """A positive number of seconds, ``none`` for no limit, or ``auto``: measured from the server's speed."""
    if text.strip().lower() == AUTO:
        return AUTO
    try:
        return seconds_or_none(text)
    except argparse.ArgumentTypeError as error:
        raise argparse.ArgumentTypeError(f"{error}; or 'auto' to measure it from the server's speed") from None


def positive_seconds(text: str) -> float:
    """A positive, finite number of seconds."""
    value = seconds_or_none(text)
    if value is None:
        raise argparse.ArgumentTypeError("give a number of seconds")
    return value
