"""The run and campaign folders under the folders given to ``physvec view``.

A run folder holds run.json and transcript.jsonl; a campaign folder (qmp-bench, faults, DualityCert,
PHACT, upstream, MatPCR, red team) holds append-only ``*.jsonl`` records or a run.json of settings without a
transcript.  Campaign folders are searched further, since their trials' runs live inside them.  Every
folder is named in URLs by its root's index and its path under that root, and a name is only ever resolved
back to a folder the search would find: inside that root, never inside a run folder, and never in a folder
the search skips (``inputs/`` holds a run's sealed expected values, ``work/`` what its programs wrote).

Of the files in those folders, only the ones the pages link to can be asked for, by their exact names: a
run's figures and a campaign's plots.  Everything else a page shows (scripts, certificates, the transcript)
it shows rendered and escaped, never as the file itself.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from physvec.runstore.report import FIGURES
from physvec.view.campaigns import campaign_plots

MAX_DEPTH = 6
"""Folders deeper than this below a root are not searched (a campaign's trial runs sit about 4 deep)."""
SKIPPED = frozenset({"work", "inputs", "scripts", "certificates"})
"""Folders never searched, nor named by a key: a run's parts, of which ``inputs`` holds sealed values."""


@dataclass(frozen=True)
class Entry:
    key: str
    path: Path


def is_run(folder: Path) -> bool:
    return (folder / "run.json").is_file() and (folder / "transcript.jsonl").is_file()


def is_campaign(folder: Path) -> bool:
    return not is_run(folder) and ((folder / "run.json").is_file() or any(folder.glob("*.jsonl")))


def searched(name: str) -> bool:
    """Whether the search goes into a folder of this name (hidden folders and SKIPPED are left out)."""
    return not name.startswith(".") and name not in SKIPPED


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
                children[:] = sorted(child for child in children if searched(child))
                if len(relative.parts) >= MAX_DEPTH:
                    children.clear()
        return runs, campaigns

    def runs(self) -> list[Entry]:
        return self.find()[0]

    def resolve(self, key: str) -> Path | None:
        """The folder a key names, or None unless find() would reach it: inside a root, no deeper than
        MAX_DEPTH, through no skipped folder and no run folder."""
        index, _, relative = key.partition("/")
        if not index.isdigit() or int(index) >= len(self.roots):
            return None
        root = self.roots[int(index)]
        try:
            folder = (root / relative).resolve()
        except (OSError, ValueError, RuntimeError):  # a NUL byte, a symlink loop
            return None
        if not folder.is_dir() or not folder.is_relative_to(root):
            return None
        parts = folder.relative_to(root).parts
        above = [root.joinpath(*parts[:depth]) for depth in range(len(parts))]
        if len(parts) > MAX_DEPTH or not all(map(searched, parts)) or any(map(is_run, above)):
            return None
        return folder

    def file(self, key: str, name: str) -> Path | None:
        """The figure or plot ``name`` of the folder a key names, when a page links to it; None for any other
        name, so no spelling of a path (dots, slashes, an absolute path) reaches another file."""
        folder = self.resolve(key)
        if folder is None:
            return None
        linked = FIGURES if is_run(folder) else campaign_plots(folder) if is_campaign(folder) else ()
        return folder / name if name in linked else None
