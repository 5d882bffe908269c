"""Julia/ITensors scripts: unit-test programs and the background are checked as text (no Julia in CI);
without a Julia runtime every obligation that needs running is unknown with the reason."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.julia_contract import analyse_julia_script
from physvec.verifiers.programming.julia_runtime import locate_julia
from physvec.verifiers.programming.julia_verification import (
    BACKGROUND, HARNESS, JULIA_PIPELINES, embeds_identically, julia_unit_test_program, verify_julia_script,
)
from physvec.verifiers.programming.unit_tests import REPORT_FILE
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

REFERENCE = Path(__file__).resolve().parents[2] / "fixtures" / "scripts" / "itensors" / "reference.jl"
STEP = re.compile(r'Step\("(\w+)", (\w+), "(\w+)"\)')


def _pipeline_params(text: str) -> set[str]:
    return set(re.findall(r'"(\w+)" =>', text.split("Dict{String,Any}(", 1)[1].split(")", 1)[0]))


def test_every_background_step_is_an_element_function_of_its_role():
    background = analyse_julia_script(BACKGROUND.read_text())
    steps = STEP.findall(BACKGROUND.read_text())
    assert [role for role, *_ in steps] == ["site", "hamiltonian", "initialstate", "effector", "observable"]
    for role, function, _ in steps:
        assert background.elements[function].role == role


def test_every_background_argument_is_a_parameter_or_an_earlier_output():
    text = BACKGROUND.read_text()
    background = analyse_julia_script(text)
    available = _pipeline_params(text)
    for _, function, output in STEP.findall(text):
        assert set(background.elements[function].parameters) <= available, function
        available.add(output)


def test_the_background_and_the_harness_are_balanced_julia():
    for path in (BACKGROUND, HARNESS):
        problems = [b.name for b in analyse_julia_script(path.read_text()).breaches]
        assert not [name for name in problems if "syntax" in name], path.name


def test_the_harness_writes_every_report_field_the_python_reader_uses():
    harness = HARNESS.read_text()
    for field in ("status", "phase", "error", "line", "traceback", "return_type", "unbound", "namespace",
                  "background", "bound", "seconds"):
        assert f'"{field}"' in harness, field
    for status in ("passed", "failed", "unbound", "environment_error"):
        assert f'"{status}"' in harness, status


def test_a_unit_test_program_holds_the_function_at_its_own_lines():
    contract = analyse_julia_script(REFERENCE.read_text())
    for function in contract.elements.values():
        program = julia_unit_test_program(contract, function)
        assert embeds_identically(program, function), function.name
        assert program.splitlines()[1] == "using ITensors, ITensorMPS"
        call = program.splitlines()[-1]
        assert call.startswith(f'PhysvecHarness.run_unit_test({function.name}, "{function.role}", '
                               f'PhysvecBackground.{JULIA_PIPELINES["heisenberg_chain"]}, script_params, '
                               f'"{REPORT_FILE}"')
        assert f'include(raw"{HARNESS}")' in program and f'include(raw"{BACKGROUND}")' in program
        assert "const PARAMS = Dict(" in program


def test_a_unit_test_program_brings_the_helpers_and_constants_but_no_other_element():
    source = REFERENCE.read_text().replace(
        "observable_sz(state) = expect(state, \"Sz\")",
        "const SPIN = \"Sz\"\nlocal_field(state) = expect(state, SPIN)\nobservable_sz(state) = local_field(state)")
    contract = analyse_julia_script(source)
    program = julia_unit_test_program(contract, contract.elements["observable_sz"])
    assert "local_field(state) = expect(state, SPIN)" in program and 'const SPIN = "Sz"' in program
    assert "function hamiltonian_heisenberg" not in program and "function run_ground_state" not in program


def test_a_program_that_moved_the_function_is_not_identical():
    contract = analyse_julia_script(REFERENCE.read_text())
    function = contract.elements["hamiltonian_heisenberg"]
    program = julia_unit_test_program(contract, function)
    assert not embeds_identically("\n" + program, function)


def test_without_julia_on_the_path_the_runtime_says_what_is_missing(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.delenv("PYTHON_JULIACALL_EXE", raising=False)
    runtime = locate_julia()
    assert not runtime.available and runtime.missing.startswith("Julia is not installed")
    assert "PYTHON_JULIACALL_PROJECT" in runtime.missing


@pytest.mark.skipif(locate_julia().available, reason="Julia with juliacall is installed here")
def test_without_a_julia_runtime_run_dependent_obligations_are_unknown_never_failed(tmp_path):
    script = tmp_path / "script.jl"
    script.write_text(REFERENCE.read_text())
    obligations = verify_julia_script(script, tmp_path / "work", SandboxPool(1), SandboxLimits(wall_s=60))
    contract = [o for o in obligations if o.category == "contract"]
    assert contract and all(o.outcome is Outcome.CERTIFIED for o in contract)
    run_dependent = {o.name: o for o in obligations if o.category != "contract"}
    assert set(run_dependent) == {"script_executes", "unit:site_spins", "unit:hamiltonian_heisenberg",
                                  "unit:initialstate_neel", "unit:effector_dmrg", "unit:observable_sz"}
    assert all(o.outcome is Outcome.UNKNOWN and locate_julia().missing == o.message for o in run_dependent.values())
