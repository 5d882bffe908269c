"""The run and campaign folders under the folders given to ``physvec view``.

A run folder holds run.json and transcript.jsonl; a campaign folder (qmp-bench, faults, DualityCert,
PHACT, upstream, MatPCR, red team) holds append-only ``*.jsonl`` records or a run.json of settings without a
transcript.  Campaign folders are searched further, since their trials' runs live inside them.  Every
folder is named in URLs by its root's index and its path under that root, and a name is only ever resolved
back to a folder inside that root, so the server cannot be asked for any other file of the machine.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

MAX_DEPTH = 6
"""Folders deeper than this below a root are not searched (a campaign's trial runs sit about 4 deep)."""


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path


def is_run(folder: Path) -> bool:
    return (folder / "run.json").is_file() and (folder / "transcript.jsonl").is_file()


def is_campaign(folder: Path) -> bool:
    return not is_run(folder) and ((folder / "run.json").is_file() or any(folder.glob("*.jsonl")))


class Catalogue:
    """The roots a viewer serves, and the runs and campaigns found under them."""

    def __init__(self, roots: list[Path]) -> None:
        self.roots = [root.resolve() for root in roots]

    def find(self) -> tuple[list[Entry], list[Entry]]:
        """(runs, campaigns) under every root, found afresh on each call: a viewer left open sees new runs."""
        runs: list[Entry] = []
        campaigns: list[Entry] = []
        for index, root in enumerate(self.roots):
            for folder, children, _ in os.walk(root):
                path = Path(folder)
                relative = path.relative_to(root)
                key = f"{index}/{relative.as_posix()}"
                if is_run(path):
                    runs.append(Entry(key, path))
                    children.clear()
                    continue
                if is_campaign(path):
                    campaigns.append(Entry(key, path))
                children[:] = sorted(child for child in children if not child.startswith(".")
                                     and child not in ("work", "inputs", "scripts", "certificates"))
                if len(relative.parts) >= MAX_DEPTH:
                    children.clear()
        return runs, campaigns

    def runs(self) -> list[Entry]:
        return self.find()[0]

    def resolve(self, key: str) -> Path | None:
        """The folder a key names, or None when it names nothing inside a root."""
        index, _, relative = key.partition("/")
        if not index.isdigit() or int(index) >= len(self.roots):
            return None
        root = self.roots[int(index)]
        folder = (root / relative).resolve()
        return folder if folder.is_dir() and folder.is_relative_to(root) else None

    def file(self, key: str, name: str) -> Path | None:
        """A file inside the folder a key names (never outside it), or None."""
        folder = self.resolve(key)
        if folder is None:
            return None
        target = (folder / name).resolve()
        return target if target.is_file() and target.is_relative_to(folder) else None
