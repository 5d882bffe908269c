"""A task mistake the library pipeline can see is found by `physvec validate` and by `reproduce` before any run:
each mistake on a line of its own, all of them at once, exit 2 (verifiers/library/task_checks.py)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.cli.main import physvec_main, reproduce_main

LIBRARY_TASK = Path(__file__).resolve().parents[1] / "fixtures" / "library_tfim_task"
"""the transverse-field Ising quench the library composes as tfim_trotter, whose run function is run_tfim_trotter"""

MISTAKES = {
    "a misspelled spec parameter": ("task.json", "spec: spec.parameters has hh, which no function of tfim_trotter reads"),
    "a ladder over a parameter the spec lacks": ("task.json", "convergence.cases.0.parameter: 'stepz' is not a parameter"),
    "a ladder calling a run function the script will not define":
        ("task.json", "convergence.cases.0.run: 'run_tfim': the composed script defines 'run_tfim_trotter'"),
    "an assertion naming another run function": ("assertions.json", "assertions.0.run: 'run_tfim'"),
    "an assertion overriding a field the spec does not have":
        ("assertions.json", "assertions.0.overrides: 'gg' is not a parameter of the spec"),
    "an assertion reading an observable the script does not return":
        ("assertions.json", "assertions.1.observable: 'magnetisation'"),
}


def _task_with_every_mistake(folder: Path) -> Path:
    shutil.copytree(LIBRARY_TASK, folder)
    task = json.loads((folder / "task.json").read_text())
    task["spec"]["parameters"]["hh"] = 1.0
    task["convergence"]["cases"][0].update(parameter="stepz", run="run_tfim")
    task["assertions"] = "assertions.json"
    (folder / "task.json").write_text(json.dumps(task))
    common = {"kind": "limiting_case", "expected": -3.0, "atol": 1e-3, "reference": "E = -J (L - 1) at h = 0"}
    (folder / "assertions.json").write_text(json.dumps({"assertions": [
        {**common, "name": "no field", "run": "run_tfim", "overrides": {"gg": 0.0}, "observable": "energy"},
        {**common, "name": "magnetised", "run": "run_tfim_trotter", "overrides": {"h": 0.0},
         "observable": "magnetisation"}]}))
    return folder / "task.json"


def test_the_library_task_as_written_has_no_mistake(capsys):
    assert physvec_main(["validate", str(LIBRARY_TASK / "task.json")]) == 0


def test_validate_lists_every_mistake_on_its_own_line_with_its_file_and_field(tmp_path, capsys):
    task = _task_with_every_mistake(tmp_path / "task")
    assert physvec_main(["validate", str(task)]) == 2
    lines = capsys.readouterr().out.splitlines()
    for name, (file, said) in MISTAKES.items():
        assert any(f"{file}: {said}" in line for line in lines), name
    assert len(lines) == len(MISTAKES)


@pytest.mark.parametrize("model", ["library", "scripted:replies.json"])
def test_reproduce_refuses_the_same_mistakes_before_any_model_call_or_run_folder(tmp_path, capsys, model):
    task = _task_with_every_mistake(tmp_path / "task")
    (tmp_path / "replies.json").write_text(json.dumps({"replies": []}))
    runs = tmp_path / "runs"
    assert reproduce_main([str(task), "--model", model.replace("replies.json", str(tmp_path / "replies.json")),
                           "--runs-dir", str(runs)]) == 2
    said = capsys.readouterr().err
    assert all(text in said for _, text in MISTAKES.values()) and not runs.exists()
