"""Append-only JSON-lines record files: a benchmark killed halfway resumes from its complete lines."""

from __future__ import annotations

from pathlib import Path
from typing import Generic, TypeVar

from pydantic import BaseModel, ValidationError

Record = TypeVar("Record", bound=BaseModel)


class RecordFile(Generic[Record]):
    """One record per line, each appended (and flushed) as the work it describes finishes."""

    def __init__(self, path: Path, model: type[Record]) -> None:
        self.path = path
        self.model = model

    def read(self) -> list[Record]:
        """Every complete record; a line cut short by a kill is skipped, so its work runs again."""
        if not self.path.is_file():
            return []
        found = []
        for line in self.path.read_text().splitlines():
            try:
                found.append(self.model.model_validate_json(line))
            except ValidationError:
                continue
        return found

    def append(self, record: Record) -> None:
        with self.path.open("a") as stream:
            stream.write(record.model_dump_json() + "\n")
            stream.flush()
