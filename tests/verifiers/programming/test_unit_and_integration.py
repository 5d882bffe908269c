"""Unit-test programs embed functions byte-identically; integration levels come from one execution."""

from __future__ import annotations

import typing
from contextlib import closing

import numpy as np
import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.finite import non_finite_paths
from physvec.verifiers.programming.harness import conforms
from physvec.verifiers.programming.unit_tests import embeds_identically, unit_test_program
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from tests.verifiers.programming.faults import reference
from tests.verifiers.programming.test_contract import SIX_CALLS


class CountingPool(SandboxPool):
    """A real sandbox pool that remembers every program it ran."""

    def __init__(self) -> None:
        super().__init__()
        self.argv: list[tuple[str, ...]] = []

    def run_all(self, jobs):
        self.argv += [tuple(job.argv) for job in jobs]
        return super().run_all(jobs)


def test_a_unit_test_program_keeps_the_function_at_its_script_lines():
    contract = analyse_script(reference("tenpy"))
    function = contract.elements["effector_dmrg"]
    program = unit_test_program(contract, function, "tenpy")
    lines = program.splitlines()
    assert "\n".join(lines[function.lineno - 1:function.end_lineno]) + "\n" == function.source
    assert embeds_identically(program, contract, "effector_dmrg")


def test_a_program_with_an_altered_function_is_not_identical():
    contract = analyse_script(reference("tenpy"))
    program = unit_test_program(contract, contract.elements["observable_sz"], "tenpy")
    assert not embeds_identically(program.replace('"Sz"', '"Sx"'), contract, "observable_sz")


def test_helpers_used_by_the_function_travel_with_it():
    source = SIX_CALLS.replace("    return H @ H", "    return _square(H)") + "\n\ndef _square(m: np.ndarray) -> np.ndarray:\n    return m @ m\n"
    contract = analyse_script(source)
    program = unit_test_program(contract, contract.elements["effector_square"], "tenpy")
    assert "def _square" in program and "def observable_norm" not in program


@pytest.mark.parametrize(("value", "hint", "ok"), [
    (1.0, float, True), (1, float, True), (True, float, False), (np.float64(2), float, True),
    ([1.0, 2.0], list[float], True), ([[1.0]], list[float], False), ((1, "a"), tuple[int, str], True),
    ({"a": 1.0}, dict[str, float], True), (None, None, True), (3, int | None, True), ("x", typing.Any, True),
    (np.zeros(2), np.ndarray, True), ([1.0], float, False),
])
def test_return_values_are_judged_against_annotations(value, hint, ok):
    assert conforms(value, hint) is ok


def test_non_finite_numbers_are_found_where_they_are():
    assert non_finite_paths({"e": [1.0, float("nan")], "m": np.array([1.0, np.inf])}, "results") == [
        "results['e'][1]", "results['m']"]
    assert non_finite_paths([1.0, 2.0]) == []


def test_six_calls_failing_at_the_fourth_give_three_of_six_from_one_execution(tmp_path):
    failing = SIX_CALLS.replace("    return H @ H", "    return H @ np.ones((H.shape[0] + 1, 1))")
    script = tmp_path / "script.py"
    script.write_text(failing)
    pool = CountingPool()
    certificate = verify_script(script, "pyscf", tmp_path / "work", pool, SandboxLimits(wall_s=60))
    (integration,) = [o for o in certificate.obligations if o.category == "integration"]
    assert integration.evidence["correct_ratio"] == 0.5
    assert integration.evidence["levels_passed"] == 3 and integration.evidence["failing_level"] == 4
    assert integration.evidence["failing_function"] == "effector_square"
    assert sum(1 for argv in pool.argv if "instrumented.py" in argv) == 1, "the script ran more than once"
    assert not any("script.py" in argv for argv in pool.argv)
    unit = next(o for o in certificate.obligations if o.name == "unit:effector_square")
    assert unit.outcome is Outcome.UNKNOWN and "glue" in unit.message, "no background makes an ndarray H"


def test_a_function_that_never_returns_fails_its_unit_test(tmp_path):
    looping = SIX_CALLS.replace("    return np.arange(n, dtype=float)", "    while True:\n        pass")
    script = tmp_path / "script.py"
    script.write_text(looping)
    certificate = verify_script(script, "pyscf", tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=8))
    unit = next(o for o in certificate.obligations if o.name == "unit:lattice_sites")
    assert unit.outcome is Outcome.FAILED and "never returned" in unit.message


GLUE = "import numpy as np\n\n\ndef glue_arguments(namespace: dict) -> dict:\n    return {'H': np.eye(3), 'psi': np.ones(3)}\n"


def _verify_with_glue(tmp_path, glue: str):
    script = tmp_path / "script.py"
    script.write_text(SIX_CALLS)
    asked = []

    def glue_writer(function, unbound, namespace):
        asked.append((function.name, unbound))
        return glue

    certificate = verify_script(script, "pyscf", tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60), glue_writer)
    return {o.name: o for o in certificate.obligations if o.category == "unit"}, asked


def test_glue_makes_inputs_no_background_can_and_the_function_stays_identical(tmp_path):
    units, asked = _verify_with_glue(tmp_path, GLUE)
    assert ("effector_square", ["H"]) in asked and ("observable_norm", ["psi"]) in asked
    assert ("lattice_sites", ["n"]) not in asked, "bound functions need no glue"
    assert units["unit:effector_square"].outcome is Outcome.CERTIFIED
    assert units["unit:effector_square"].evidence["glue"] == GLUE
    assert units["unit:observable_norm"].outcome is Outcome.CERTIFIED


def test_glue_that_redefines_the_function_under_test_is_refused(tmp_path):
    cheating = GLUE + "\n\ndef effector_square(H):\n    return H\n"
    units, _ = _verify_with_glue(tmp_path, cheating)
    assert units["unit:effector_square"].outcome is Outcome.ERROR
    assert "only import and define glue_arguments" in units["unit:effector_square"].message


FORGING_MAIN = '''

def main() -> None:
    import glob, json, os, time
    print(run_chain(**PARAMS))
    roots = [root for root in ("unit", "../unit") if os.path.isdir(root)]
    passed = {"status": "passed", "return_type": "list", "annotation": "list[float]", "seconds": 0.0}
    program = f"import json\\njson.dump({passed!r}, open('unit_report.json', 'w'))\\n"
    deadline = time.time() + 15
    while roots and time.time() < deadline:
        for root in roots:
            for path in glob.glob(os.path.join(root, "*", "unit_test.py")):
                open(path, "w").write(program)
            for path in glob.glob(os.path.join(root, "*", "unit_report.json")):
                json.dump(passed, open(path, "w"))
        time.sleep(0.05)
'''


@pytest.mark.parametrize("warm", [False, True], ids=["cold", "warm"])
def test_the_script_cannot_forge_its_own_unit_tests(tmp_path, warm):
    """Attack: main() rewrites every unit-test program it can reach (and every report) to say "passed", so that a
    function whose unit test fails is certified.  The script's execution runs in a folder of its own, beside the
    unit tests' folders and not above them, so it reaches none of them, in a cold sandbox or a warm worker."""
    wrong_annotation = SIX_CALLS.replace("def lattice_sites(n: int) -> np.ndarray:", "def lattice_sites(n: int) -> list[float]:")
    forging = wrong_annotation[:wrong_annotation.index("def main()")] + FORGING_MAIN.lstrip("\n")
    script = tmp_path / "script.py"
    script.write_text(forging)
    pool = SandboxPool().warm_for(tmp_path / "work", "numpy") if warm else SandboxPool()
    with closing(pool):
        certificate = verify_script(script, "numpy", tmp_path / "work", pool, SandboxLimits(wall_s=60))
    executes = next(o for o in certificate.obligations if o.name == "script_executes")
    assert executes.outcome is Outcome.CERTIFIED
    unit = next(o for o in certificate.obligations if o.name == "unit:lattice_sites")
    assert unit.outcome is Outcome.FAILED and "annotation" in unit.message


def test_a_library_function_a_composed_step_calls_is_unit_tested_in_the_pipeline_that_has_it(tmp_path):
    # the super-lattice scan's effector builds the Hamiltonian and runs DMRG itself: those functions are in its script
    # but no step of the scan pipeline, whose namespace holds no hoppings to build a Hamiltonian from
    from physvec.qmp_bench.catalogue import bench_tasks
    from physvec.taskfiles.loading import load_task
    from physvec.verifiers.library.composer import compose_script
    from physvec.verifiers.programming import _unit_tests

    (bench,) = bench_tasks("dmrg/grusdt2013-superlattice-edge-scan")
    task = load_task(bench.task_file).task
    contract = analyse_script(compose_script(task.spec, "tenpy").script)
    tests, _ = _unit_tests(contract, "tenpy", tmp_path, task.spec)
    pipelines = {test.function.name: test.pipeline for test in tests}
    assert pipelines["hamiltonian_superlattice_bose_hubbard"] == "superlattice_bose_hubbard"
    assert pipelines["effector_edge_states_over_t1"] == "superlattice_edge_scan"
