"""A run directory is self-contained: the task as run, with its rubric and assertions stored as resolved,
so a run made with library templates loads, resumes and replays without the library."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from physvec.runstore.store import create_run
from physvec.taskfiles.loading import load_task

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


def test_the_run_stores_the_rubric_and_assertions_resolved(tmp_path, monkeypatch):
    loaded = load_task(EXAMPLE / "task.json")
    assert "use" in (EXAMPLE / "assertions.json").read_text(), "the example is meant to use the library"
    run = create_run(tmp_path / "runs", loaded, "scripted:test")
    stored = run.path / "inputs"
    assert "use" not in json.loads((stored / "assertions.json").read_text())["assertions"][0]
    # Moved where neither the sources nor an installed library could be found, it loads the same.
    moved = tmp_path / "elsewhere" / run.path.name
    shutil.copytree(run.path, moved)
    monkeypatch.chdir(tmp_path / "elsewhere")
    monkeypatch.setattr("physvec.taskfiles.library.library_folder", lambda name: None)
    again = load_task(moved / "task.json")
    assert again.assertions == loaded.assertions and again.rubric == loaded.rubric
