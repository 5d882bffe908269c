"""Fault injection: every task gets at least ten mutants across the fault classes, each one known fault in
one known function, and the benchmark judges detection, localisation and false alarms from certificates.

The whole benchmark (every mutant through every verifier) is `qmp-bench faults`; here run its rules, and
one cheap mutant for real.
"""

from __future__ import annotations

import ast
import json
from contextlib import closing

import pytest

from physvec.taskfiles.loading import load_task
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.qmp_bench.faults import (
    UNMUTATED, FaultCampaign, catalogue, certificates_of, class_table, current_records, escaped, judge, reference_mutants,
    run_faults,
)
from physvec.qmp_bench.mutants import BACKEND_REPLACEMENTS, PHYSICS_CLASSES, PROGRAMMING_CLASSES
from physvec.verifiers.certificate import Certificate, Obligation, Outcome
from physvec.verifiers.sandbox import SandboxPool

TASKS = bench_tasks()


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_every_task_gets_ten_distinct_mutants_of_both_families(task):
    script, mutants = reference_mutants(load_task(task.task_file))
    assert len(mutants) >= 10
    assert {m.fault_class for m in mutants} >= set(PROGRAMMING_CLASSES), "every programming fault class"
    assert sum(m.family == "physics" for m in mutants) >= 5
    assert len({m.script for m in mutants}) == len(mutants) and script not in {m.script for m in mutants}
    for mutant in mutants:
        try:
            ast.parse(mutant.script)
            parses = True
        except SyntaxError:
            parses = False
        assert parses is (mutant.fault_class != "syntax"), mutant.name


def test_every_physics_replacement_applies_to_some_task():
    applied = {(m.fault_class, m.name, m.function) for task in TASKS
               for m in reference_mutants(load_task(task.task_file))[1]}
    for backend, replacements in BACKEND_REPLACEMENTS.items():
        for r in replacements:
            assert (r.fault_class, r.name, r.function) in applied, f"{backend}: {r.name} in {r.function} is dead"
            assert r.fault_class in PHYSICS_CLASSES


def test_an_equivalent_mutant_is_not_made():
    # on an open chain, X on every other qubit maps J to -J: the VQE energy cannot tell them apart
    (vqe,) = bench_tasks("qsim/kandala2017-vqe-tfi")
    (trotter,) = bench_tasks("qsim/lloyd1996-trotter-quench")
    names = [{m.name for m in reference_mutants(load_task(t.task_file))[1]} for t in (vqe, trotter)]
    coupling_sign = "antiferromagnetic instead of ferromagnetic coupling"
    assert coupling_sign not in names[0] and coupling_sign in names[1]


def test_the_wrong_type_mutant_changes_what_the_function_returns_not_what_a_callback_in_it_returns():
    # Found on the modified Haldane-Shastry task: the SR effector's nested logging callback `return True` became
    # `return str(True)`, still truthy, and the "mutant" passed every check as it should: an equivalent mutant.
    (task,) = bench_tasks("nqs/deng2017-modified-haldane-shastry-rbm")
    script, mutants = reference_mutants(load_task(task.task_file))
    (wrong_type,) = [m for m in mutants if m.fault_class == "wrong type"]
    assert "return str(True)" not in wrong_type.script
    changed = [line for line in wrong_type.script.splitlines() if line not in script.splitlines()]
    assert changed and all(line.strip().startswith("return str(") for line in changed)
    assert "return True" in wrong_type.script or "return True" not in script


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_the_api_misuse_mutant_misspells_a_call_in_the_code_not_in_a_docstring(task):
    # Found on the Bose-Hubbard momentum task: the effector's docstring names graph.translation_group(), and a
    # search of the text misspelt that mention instead of the call; the "mutant" was the reference script
    script, mutants = reference_mutants(load_task(task.task_file))
    (misuse,) = [m for m in mutants if m.fault_class == "api misuse"]
    called = {ast.unparse(node.func) for node in ast.walk(ast.parse(misuse.script)) if isinstance(node, ast.Call)}
    assert any(name.endswith("_x") for name in called)
    assert misuse.script.replace("_x(", "(", 1) == script


@pytest.mark.parametrize("task", TASKS, ids=lambda task: task.name)
def test_a_physics_mutant_changes_code_never_a_docstring(task):
    # Found on the super-lattice trap task: the potential's docstring spells out step_first <= j <= step_last, and
    # the replacement made there left the code whole (the "mutant" escaped as the reference script)
    script, mutants = reference_mutants(load_task(task.task_file))

    def docstrings(text: str) -> list[str | None]:
        return [ast.get_docstring(node) for node in ast.walk(ast.parse(text)) if isinstance(node, ast.FunctionDef)]
    for mutant in mutants:
        if mutant.family == "physics" and mutant.fault_class != "unconverged":
            assert docstrings(mutant.script) == docstrings(script), mutant.name


def _certificate(*obligations: Obligation, verifier: str = "programming") -> Certificate:
    return Certificate(verifier=verifier, subject_digest="0" * 64, obligations=obligations)


def _failed(name: str, category: str, **evidence) -> Obligation:
    return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence)


def test_a_mutant_is_localised_by_its_own_unit_test_or_for_physics_by_a_scientific_check():
    unit = _certificate(_failed("unit:effector_dmrg", "unit"))
    assert judge("t", "api misuse", "x", "effector_dmrg", [unit], 1.0).localised
    assert not judge("t", "api misuse", "x", "hamiltonian_tfim", [unit], 1.0).localised
    breach = _certificate(_failed("contract:syntax", "contract", function="observable_energy"))
    assert judge("t", "syntax", "x", "observable_energy", [breach], 1.0).localised
    assertion = _certificate(_failed("assertion:no field", "limiting_case"), verifier="scientific")
    assert judge("t", "sign", "x", "hamiltonian_tfim", [_certificate(), assertion], 1.0).localised
    assert not judge("t", "wrong type", "x", "observable_energy", [_certificate(), assertion], 1.0).localised
    unconverged = _certificate(_failed("convergence:steps", "convergence"), verifier="convergence")
    assert judge("t", "unconverged", "x", "PARAMS", [_certificate(), _certificate(), unconverged], 1.0).localised
    passed = judge("t", "boundary", "x", "lattice_chain", [_certificate()], 1.0)
    assert not passed.detected and not passed.localised


def test_the_class_table_counts_detections_escapes_and_false_alarms():
    caught = _certificate(_failed("reference:energy", "reference"), verifier="scientific")
    records = [judge("a", "sign", "s", "f", [caught], 1.0),
               judge("a", "sign", "t", "f", [_certificate()], 1.0),
               judge("a", UNMUTATED, "reference script", "", [_certificate(_failed("rubric:x", "rubric"))], 1.0)]
    rows = {row["fault class"]: row for row in class_table(records)}
    assert rows["sign"]["mutants"] == 2 and rows["sign"]["detected"] == 1 and rows["sign"]["localised"] == 1
    assert rows["unmutated (false alarms)"]["detected"] == 1
    assert [r.name for r in escaped(records)] == ["t"]


def test_a_syntax_mutant_is_caught_by_the_programming_verifier_at_its_function(tmp_path):
    (task,) = bench_tasks("dft/szabo1996-h2-rhf")
    loaded = load_task(task.task_file)
    syntax = next(m for m in reference_mutants(loaded)[1] if m.fault_class == "syntax")
    certificates = certificates_of(syntax.script, loaded, tmp_path, SandboxPool())
    record = judge(task.name, syntax.fault_class, syntax.name, syntax.function, certificates, 0.0)
    assert len(certificates) == 1, "the scientific verifiers never see a script that does not parse"
    assert record.detected and record.localised


def test_the_unmutated_reference_script_raises_no_false_alarm(tmp_path):
    # the scientific verifiers read the programming verifier's execution from where it ran (its own folder)
    (task,) = bench_tasks("qsim/lloyd1996-trotter-quench")
    loaded = load_task(task.task_file)
    reference, _ = reference_mutants(loaded)
    with closing(SandboxPool().warm_for(tmp_path, loaded.task.backend)) as pool:
        certificates = certificates_of(reference, loaded, tmp_path, pool)
    record = judge(task.name, UNMUTATED, "reference script", "", certificates, 0.0)
    assert [c.verifier for c in certificates] == ["programming", "scientific", "convergence"]
    assert not record.detected, f"false alarm: {record.failed}"


def test_a_finished_benchmark_resumes_without_verifying_again(tmp_path):
    (task,) = bench_tasks("dft/szabo1996-h2-rhf")
    campaign = FaultCampaign(tmp_path)
    script, mutants = reference_mutants(load_task(task.task_file))
    for entry in [(UNMUTATED, "reference script", "")] + [(m.fault_class, m.name, m.function) for m in mutants]:
        campaign.append(judge(task.name, *entry, [_certificate()], 0.0))
    with campaign.records_path.open("a") as stream:
        stream.write('{"task": "cut by a kill"')
    assert run_faults(campaign, catalogue([task]), 1) == []
    assert len(campaign.records()) == len(mutants) + 1
    assert json.loads(campaign.records_path.read_text().splitlines()[0])["fault_class"] == UNMUTATED


def test_records_of_mutants_no_longer_made_are_left_out_of_the_report(tmp_path):
    (task,) = bench_tasks("dft/szabo1996-h2-rhf")
    campaign = FaultCampaign(tmp_path)
    campaign.append(judge(task.name, UNMUTATED, "reference script", "", [_certificate()], 0.0))
    campaign.append(judge(task.name, "sign", "a fault since proved equivalent", "effector_rhf", [_certificate()], 0.0))
    kept = current_records(campaign, catalogue([task]))
    assert [record.name for record in kept] == ["reference script"]
