"""Append-only JSON-lines record files: a benchmark killed halfway resumes from its complete lines; and
the folder of such a campaign, whose run.json pins the settings its records were made under."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Generic, TypeVar

from pydantic import BaseModel, ValidationError

Record = TypeVar("Record", bound=BaseModel)


class RecordFile(Generic[Record]):
    """One record per line, each appended (and flushed) as the work it describes finishes."""

    def __init__(self, path: Path, model: type[Record]) -> None:
        self.path = path
        self.model = model

    def read(self) -> list[Record]:
        """Every complete record; a line cut short by a kill is skipped, so its work runs again."""
        return self.read_lines()[0] if self.path.is_file() else []

    def read_lines(self) -> tuple[list[Record], list[tuple[int, ValidationError]]]:
        """Every complete record, and each other non-blank line's number with why it is no record (a report
        says what it left out).  OSError or UnicodeDecodeError when the file cannot be read."""
        found, skipped = [], []
        for number, line in enumerate(self.path.read_text(encoding="utf-8").splitlines(), start=1):
            if not line.strip():
                continue
            try:
                found.append(self.model.model_validate_json(line))
            except ValidationError as error:
                skipped.append((number, error))
        return found, skipped

    def append(self, record: Record) -> None:
        with self.path.open("a") as stream:
            stream.write(record.model_dump_json() + "\n")
            stream.flush()


SETTINGS_FILE = "run.json"


class CampaignFolderRefused(ValueError):
    """A campaign folder that cannot be used as asked; the message says what to pass instead."""


def campaign_folder(folder: Path, settings: dict[str, Any], resume: bool) -> Path:
    """The campaign's folder, with ``settings`` in run.json.

    A new campaign may not reuse a folder, and a resumed one must find its folder with the same settings,
    so that records made under different settings are never mixed in one table.
    """
    if folder.exists() and not resume:
        raise CampaignFolderRefused(f"run {folder} exists: pass --resume to continue it, or choose another --run-id")
    if resume:
        if not (folder / SETTINGS_FILE).is_file():
            raise CampaignFolderRefused(f"--resume: no run {folder} to resume")
        recorded = json.loads((folder / SETTINGS_FILE).read_text())
        changed = [key for key, value in settings.items() if recorded.get(key) != value]
        if changed:
            raise CampaignFolderRefused(f"--resume: settings differ from run {folder.name}: {', '.join(changed)}")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / SETTINGS_FILE).write_text(json.dumps(settings, indent=1) + "\n")
    return folder
