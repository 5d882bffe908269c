"""Reference data is checked before any run: a quoted number, a null, a ragged table or a key the task
names but the file lacks is an exit 2 with its place, not a failed comparison an hour later."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.cli.main import physvec_main

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


@pytest.mark.parametrize(("case", "data", "words"), [
    ("quoted number", {"energies": [-3.37, "-4.25", -5.14]}, ["energies.1", "'-4.25'"]),
    ("null", {"energies": [-3.37, None]}, ["energies.1"]),
    ("ragged table", {"bands": [[1.0, 2.0], [3.0]]}, ["bands", "rectangular"]),
    ("empty list", {"energies": []}, ["energies", "empty"]),
    ("boolean", {"converged": True}, ["converged"]),
    ("nothing named", {}, ["at least one value"]),
])
def test_malformed_reference_data_exits_2_naming_the_value(tmp_path, capsys, case, data, words):
    path = tmp_path / "reference.json"
    path.write_text(json.dumps(data))
    assert physvec_main(["validate", str(path)]) == 2, case
    output = capsys.readouterr().out
    assert all(word in output for word in words), f"{case}:\n{output}"


def test_reference_data_validates_by_name_or_by_kind(tmp_path, capsys):
    assert physvec_main(["validate", str(EXAMPLE / "reference.json")]) == 0
    other = tmp_path / "energies.json"
    other.write_text(json.dumps({"energies": [-1.0, "x"]}))
    assert physvec_main(["validate", str(other)]) == 2
    assert "cannot tell the file kind" in capsys.readouterr().out
    assert physvec_main(["validate", "--kind", "reference", str(other)]) == 2
    assert "energies.1" in capsys.readouterr().out
    assert physvec_main(["validate", "--kind", "vibes", str(other)]) == 2


def test_a_task_whose_reference_file_lacks_the_compared_key_is_invalid(tmp_path, capsys):
    task_folder = tmp_path / "task"
    shutil.copytree(EXAMPLE, task_folder)
    (task_folder / "reference.json").write_text(json.dumps({"lengths": [8, 10, 12], "energes": [-3.4, -4.3, -5.1]}))
    assert physvec_main(["validate", str(task_folder / "task.json")]) == 2
    assert "reference: reference.json has no value at 'energies'" in capsys.readouterr().out
