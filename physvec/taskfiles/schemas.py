"""JSON Schemas of the input files, exported to schemas/ for editors and other tools."""

from __future__ import annotations

import json
from pathlib import Path

from physvec.taskfiles.assertions import AssertionFile
from physvec.taskfiles.library import LibraryFile
from physvec.taskfiles.rubric import Rubric
from physvec.taskfiles.task import Task

SCHEMA_MODELS = {"task": Task, "rubric": Rubric, "assertions": AssertionFile, "library": LibraryFile}


def schema_texts() -> dict[str, str]:
    """File name to JSON Schema text, one per input-file kind."""
    return {
        f"{kind}.schema.json": json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n"
        for kind, model in SCHEMA_MODELS.items()
    }


def export_schemas(folder: Path) -> list[Path]:
    """Write every schema into ``folder``; return the written paths."""
    folder.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in schema_texts().items():
        target = folder / name
        target.write_text(text, encoding="utf-8")
        written.append(target)
    return written
