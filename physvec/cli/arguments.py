"""Argument types every command shares: what argparse refuses with exit 2 before any work starts.

A run id becomes a folder name under --runs-dir, so ``--run-id ../x`` would write outside it; a folder
argument that names an existing file would end in FileExistsError deep inside a campaign.
"""

from __future__ import annotations

import argparse
import re
from pathlib import Path

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
