"""A substitution runs a task on another package than the one it demands, and says so everywhere: the
request the Author reads, the task as run, and rubric leaves that demand the original (not applicable)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.cli.main import reproduce_main
from physvec.taskfiles.loading import load_task
from physvec.taskfiles.rubric import Rubric
from physvec.taskfiles.substitution import SubstitutionError, apply_substitutions, parse_substitutions
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.julia_runtime import locate_julia
from physvec.verifiers.scientific.rubric import grade_rubric

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


def _itensors_task(folder: Path, backend: str = "itensors") -> Path:
    shutil.copytree(EXAMPLE, folder, dirs_exist_ok=True)
    data = json.loads((folder / "task.json").read_text())
    data.update(backend=backend, request=data["request"].replace("with TeNPy", "You MUST use ITensors and "
                                                                               "ITensorMPS packages"))
    (folder / "task.json").write_text(json.dumps(data))
    return folder / "task.json"


@pytest.mark.parametrize(("pairs", "words"), [
    (["itensors"], "ORIGINAL=USED"), (["itensors=lammps"], "ORIGINAL=USED"), (["tenpy=orca"], "cannot run here"),
    (["tenpy=tenpy"], "cannot substitute itself"),
])
def test_a_malformed_substitution_is_refused(pairs, words):
    with pytest.raises(SubstitutionError, match=words):
        parse_substitutions(pairs)


def test_substitutions_may_be_given_comma_separated_in_one_argument():
    assert parse_substitutions(["itensors=tenpy,orca=pyscf"]) == {"itensors": "tenpy", "orca": "pyscf"}
    assert parse_substitutions(["itensors=tenpy", "orca=pyscf,"]) == {"itensors": "tenpy", "orca": "pyscf"}
    with pytest.raises(SubstitutionError, match="ORIGINAL=USED"):
        parse_substitutions(["itensors=tenpy,orca"])


def test_a_task_takes_only_the_substitutions_of_the_backends_it_uses_or_names(tmp_path):
    from physvec.taskfiles.substitution import substitutions_for

    both = {"itensors": "tenpy", "orca": "pyscf"}
    assert substitutions_for(load_task(_itensors_task(tmp_path / "a")).task, both) == {"itensors": "tenpy"}
    assert substitutions_for(load_task(EXAMPLE / "task.json").task, both) == {}


def test_the_request_says_what_is_substituted_and_the_task_records_it(tmp_path):
    loaded = apply_substitutions(load_task(_itensors_task(tmp_path)), parse_substitutions(["itensors=tenpy"]))
    assert loaded.task.backend == "tenpy" and loaded.task.substitutions == {"itensors": "tenpy"}
    assert "You MUST use TeNPy (substituted for ITensors)" in loaded.task.request
    assert "ITensorMPS" not in loaded.task.request.split("Substitution by the user")[0]
    assert "this run uses TeNPy where the task demands ITensors" in loaded.task.request


def test_a_substitution_that_changes_nothing_is_a_mistake(tmp_path):
    with pytest.raises(SubstitutionError, match="neither uses nor names orca"):
        apply_substitutions(load_task(EXAMPLE / "task.json"), {"orca": "pyscf"})


def test_rubric_leaves_demanding_the_original_package_are_not_applicable_and_leave_the_score():
    rubric = Rubric.model_validate({"sections": [
        {"name": "reproduction objective", "children": [{"name": "energy", "check": "L == 8"}]},
        {"name": "physical system", "children": [{"name": "chain", "check": "L == 8"}]},
        {"name": "computational method", "children": [
            {"name": "package", "description": "The code uses ITensors and ITensorMPS packages."},
            {"name": "dmrg", "check": "L > 0"}]},
        {"name": "parameters", "children": [{"name": "size", "check": "L == 8"}]},
    ]})
    obligations, score = grade_rubric(rubric, {"L": 8}, {}, judge=lambda leaf, t: "VERDICT: yes",
                                      substitutions={"itensors": "tenpy"})
    package = next(o for o in obligations if o.name == "rubric:package")
    assert package.outcome is Outcome.NOT_APPLICABLE and "--substitute itensors=tenpy" in package.message
    assert score == pytest.approx(1.0), "the not-applicable leaf neither scores nor counts against the score"
    unsubstituted, _ = grade_rubric(rubric, {"L": 8}, {}, judge=None)
    assert next(o for o in unsubstituted if o.name == "rubric:package").outcome is Outcome.UNKNOWN


def test_reproduce_refuses_a_backend_without_a_contract_and_names_the_substitution(tmp_path, capsys):
    path = _itensors_task(tmp_path, backend="orca")
    assert reproduce_main([str(path), "--model", "library", "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "--substitute orca=pyscf" in capsys.readouterr().err
    assert not (tmp_path / "runs").exists()


def test_reproduce_reports_a_malformed_substitution_as_bad_input(tmp_path, capsys):
    assert reproduce_main([str(_itensors_task(tmp_path)), "--substitute", "itensors", "--model", "library",
                           "--runs-dir", str(tmp_path / "runs")]) == 2
    assert "ORIGINAL=USED" in capsys.readouterr().err


@pytest.mark.skipif(locate_julia().available, reason="Julia with juliacall is installed here")
def test_reproduce_says_before_the_run_that_a_demanded_itensors_cannot_run_and_never_switches_it(tmp_path, capsys):
    """No silent backend switch: the task stays ITensors, and the user hears how to ask for TeNPy."""
    reproduce_main([str(_itensors_task(tmp_path)), "--model", f"scripted:{tmp_path / 'no-replies.json'}",
                    "--runs-dir", str(tmp_path / "runs")])
    err = " ".join(capsys.readouterr().err.split())
    assert "the task demands itensors, which cannot run here (Julia is not installed" in err
    assert "add --substitute itensors=tenpy" in err
    assert load_task(tmp_path / "task.json").task.backend == "itensors"
