"""Rubric and assertion libraries: templates a task instantiates by name, resolved by code at load time;
every mistake in a use is an exit 2 that names the place and the parameter."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physvec.cli.main import physvec_main
from physvec.taskfiles.assertions import Bound, Symmetry
from physvec.taskfiles.library import fill, placeholders
from physvec.taskfiles.loading import load_assertions, load_rubric

REPO = Path(__file__).resolve().parents[2]
REFLECTION = {"use": "assertions/symmetries.json#reflection",
              "with": {"run": "run_chain", "observable": "bonds", "atol": 1e-6}}


def _assertion_file(folder: Path, *entries: dict) -> Path:
    path = folder / "assertions.json"
    path.write_text(json.dumps({"assertions": list(entries)}))
    return path


def _problems(capsys, path: Path) -> str:
    assert physvec_main(["validate", str(path)]) == 2
    return capsys.readouterr().out


def test_fill_keeps_the_type_of_a_whole_placeholder_and_writes_one_inside_text():
    body = {"overrides": {"${size}": "${small}"}, "check": "${parameter} <= ${cut}", "atol": "${atol}"}
    assert fill(body, {"size": "L", "small": 4, "parameter": "svd_min", "cut": 1e-08, "atol": 1e-6}) == {
        "overrides": {"L": 4}, "check": "svd_min <= 1e-08", "atol": 1e-6}
    assert placeholders(body) == {"size", "small", "parameter", "cut", "atol"}


def test_a_template_use_becomes_the_assertion_it_names(tmp_path):
    assertion = load_assertions(_assertion_file(tmp_path, REFLECTION)).assertions[0]
    assert isinstance(assertion, Symmetry)
    assert (assertion.relation, assertion.run, assertion.observable, assertion.atol) == (
        "reversed", "run_chain", "bonds", 1e-6)
    assert assertion.name == "reflection of the chain" and "i -> L - 1 - i" in assertion.reference


def test_templates_carry_the_new_kinds_bound_and_sum_rule(tmp_path):
    bound, rule = load_assertions(_assertion_file(
        tmp_path,
        {"use": "assertions/variational.json#upper_bound_on_ground_energy",
         "with": {"run": "run_vmc", "ground_energy": -4.5, "atol": 1e-3}},
        {"use": "assertions/sum_rules.json#particle_number", "with": {"run": "run_dmrg", "particles": 8, "atol": 1e-6}},
    )).assertions
    assert isinstance(bound, Bound) and (bound.op, bound.value, bound.observable) == (">=", -4.5, "energy")
    assert (rule.reduce, rule.expected, rule.observable) == ("sum", 8, "density")


def test_literal_assertions_and_uses_mix_in_one_file(tmp_path):
    literal = {"kind": "limiting_case", "name": "dimer", "run": "run_chain", "observable": "energy",
               "expected": -0.75, "atol": 1e-9, "reference": "singlet"}
    names = [a.name for a in load_assertions(_assertion_file(tmp_path, literal, REFLECTION)).assertions]
    assert names == ["dimer", "reflection of the chain"]


@pytest.mark.parametrize(("case", "entry", "words"), [
    ("missing template", {**REFLECTION, "use": "assertions/symmetries.json#reflexion"},
     ["assertions.0.use", "no template 'reflexion'", "reflection"]),
    ("missing library file", {**REFLECTION, "use": "assertions/symmetry.json#reflection"},
     ["assertions.0.use", "no library file"]),
    ("missing parameter", {**REFLECTION, "with": {"observable": "bonds", "atol": 1e-6}},
     ["assertions.0.with", "missing parameter 'run'"]),
    ("parameter of the wrong type", {**REFLECTION, "with": {**REFLECTION["with"], "atol": "tight"}},
     ["assertions.0.with.atol", "must be a number", "tight"]),
    ("run that is not a run_ function", {**REFLECTION, "with": {**REFLECTION["with"], "run": "main"}},
     ["assertions.0.with.run", "run_ function"]),
    ("misspelled parameter", {**REFLECTION, "with": {**REFLECTION["with"], "atl": 1e-6}},
     ["assertions.0.with.atl", "unknown parameter"]),
    ("extra key beside use", {**REFLECTION, "kind": "symmetry"}, ["assertions.0", "only 'use' and 'with'"]),
    ("reference without a template name", {**REFLECTION, "use": "assertions/symmetries.json"},
     ["assertions.0.use", "FILE#TEMPLATE"]),
    ("rubric template in an assertion file", {"use": "rubrics/dmrg.json#sweeps", "with": {"minimum": 5}},
     ["assertions.0.use", "is a rubric library"]),
    ("tolerances left at zero", {**REFLECTION, "with": {"run": "run_chain", "observable": "bonds"}},
     ["assertions.0", "rtol or atol"]),
])
def test_a_bad_template_use_exits_2_naming_it(tmp_path, capsys, case, entry, words):
    output = _problems(capsys, _assertion_file(tmp_path, entry))
    assert any(all(word in line for word in words) for line in output.splitlines()), f"{case}:\n{output}"


def test_rubric_templates_fill_leaves_at_any_depth_and_sections_keep_their_default_weights(tmp_path):
    path = tmp_path / "rubric.json"
    path.write_text(json.dumps({"sections": [
        {"name": "reproduction objective", "children": [{"use": "rubrics/common.json#objective"}]},
        {"name": "physical system", "children": [
            {"name": "couplings", "children": [
                {"use": "rubrics/common.json#parameter_equals", "with": {"name": "J", "parameter": "J", "value": 1}}]}]},
        {"name": "computational method", "children": [{"use": "rubrics/dmrg.json#finite_dmrg"}]},
        {"name": "parameters", "weight": 2.0, "children": [
            {"use": "rubrics/dmrg.json#bond_dimension", "with": {"minimum": 64}},
            {"use": "rubrics/dmrg.json#truncation_cut", "with": {"maximum": 1e-10}}]},
    ]}))
    rubric = load_rubric(path)
    leaves = {leaf.name: leaf.check for section in rubric.sections for leaf in section.leaves()}
    assert leaves["J"] == "J == 1" and leaves["bond dimension"] == "chi_max >= 64"
    assert leaves["truncation cut"] == "svd_min <= 1e-10" and leaves["finite DMRG"] is None
    assert [section.weight for section in rubric.sections] == [0.1, 0.3, 0.3, 2.0]


def test_a_library_next_to_the_task_takes_precedence_over_the_installed_one(tmp_path):
    (tmp_path / "assertions").mkdir()
    (tmp_path / "assertions" / "symmetries.json").write_text(json.dumps({
        "library": "assertions", "description": "our own", "templates": {"reflection": {
            "description": "our reflection", "parameters": {"run": {"type": "run_function", "description": "run"}},
            "body": {"kind": "symmetry", "name": "our reflection", "run": "${run}", "observable": "density",
                     "relation": "reversed", "atol": 1e-3, "reference": "our trap is symmetric"}}}}))
    use = {"use": "assertions/symmetries.json#reflection", "with": {"run": "run_trap"}}
    assert load_assertions(_assertion_file(tmp_path, use)).assertions[0].name == "our reflection"


@pytest.mark.parametrize(("case", "template", "words"), [
    ("undeclared placeholder", {"description": "d", "parameters": {},
                                "body": {"name": "${name}", "description": "x"}}, ["undeclared parameter(s) name"]),
    ("unused parameter", {"description": "d", "parameters": {"size": {"type": "integer", "description": "L"}},
                          "body": {"name": "n", "description": "x"}}, ["never used", "size"]),
    ("body invalid once filled", {"description": "d", "parameters": {},
                                  "body": {"name": "n", "check": "import os"}}, ["templates.broken.body.0.check"]),
    ("default of the wrong type", {"description": "d", "parameters": {"minimum": {
        "type": "integer", "description": "m", "default": "many"}}, "body": {"name": "n", "check": "x >= ${minimum}"}},
     ["not an integer"]),
])
def test_a_broken_library_file_exits_2_naming_the_template(tmp_path, capsys, case, template, words):
    path = tmp_path / "library.json"
    path.write_text(json.dumps({"library": "rubric", "description": "d", "templates": {"broken": template}}))
    output = _problems(capsys, path)
    assert all(word in output for word in words), f"{case}:\n{output}"


USER_FILES = sorted({*REPO.glob("examples/*/*.json"), *REPO.glob("qmp_bench/tasks/*/*/*.json"),
                     *REPO.glob("rubrics/*.json"), *REPO.glob("assertions/*.json")})


@pytest.mark.parametrize("path", USER_FILES, ids=lambda path: str(path.relative_to(REPO)))
def test_every_shipped_input_file_validates(path, capsys):
    assert physvec_main(["validate", str(path)]) == 0, capsys.readouterr().out


def test_the_qmp_tasks_use_the_libraries():
    uses = [entry for path in REPO.glob("qmp_bench/tasks/*/*/assertions.json")
            for entry in json.loads(path.read_text())["assertions"] if "use" in entry]
    files = {entry["use"].split("#")[0] for entry in uses}
    assert {"assertions/limits.json", "assertions/symmetries.json", "assertions/conservation.json",
            "assertions/variational.json", "assertions/sum_rules.json"} <= files


@pytest.mark.parametrize("library", ["rubrics", "assertions"])
def test_list_shows_every_template(library, capsys):
    assert physvec_main([library, "list"]) == 0
    output = capsys.readouterr().out
    for path in (REPO / library).glob("*.json"):
        for name in json.loads(path.read_text())["templates"]:
            assert f"{library}/{path.name}#{name}" in output
