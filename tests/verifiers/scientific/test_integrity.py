"""A number typed into a script is found: a copy of a sealed value (anywhere, PARAMS included) and a value
returned only at a special-cased parameter point, named by line and never revealed."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.scientific.integrity import special_cased_points, typed_values_obligation

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "heisenberg_chain"
HONEST = '''
PARAMS = {"L": 12, "J": 1.0, "chi_max": 64}


def effector_dmrg(L: int, J: float, chi_max: int) -> float:
    return -0.4431 * L * J  # a rough estimate with four digits, equal to no check
'''


@pytest.fixture
def task(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "task")
    return load_task(tmp_path / "task" / "task.json")


def test_an_honest_script_has_no_finding(task):
    assert typed_values_obligation(HONEST, task).outcome is Outcome.CERTIFIED


@pytest.mark.parametrize(("case", "source"), [
    ("the assertion's value returned", "def observable_e(L: int) -> float:\n    return -2.4935771338879262\n"),
    ("the reference value in PARAMS", 'PARAMS = {"target": -5.142090632840526}\n'),
    ("within the check's tolerance", "X = -1.6160254037\n"),
    ("spelled as a string", "def observable_e(L: int) -> float:\n    return float('-2.4935771338879262')\n"),
    ("split into two literals", "E = -2.4 + -0.0935771338879262\n"),
    ("joined from strings", "E = float('-2.49357' + '71338879262')\n"),
])
def test_a_typed_copy_of_a_sealed_value_is_found_by_line(task, case, source):
    obligation = typed_values_obligation(source, task)
    assert obligation.outcome is Outcome.FAILED, case
    assert "line" in obligation.message and "2.49" not in obligation.message and "5.14" not in obligation.message
    assert obligation.sealed["matched"], "the reader sees which value matched"


def test_a_number_returned_only_at_the_task_point_is_found():
    source = ("def effector_dmrg(L: int, J: float, g: float) -> float:\n"
              "    if L == 20 and J == g == 1:\n        return -25.1077971116\n"
              "    return run_real_dmrg(L, J, g)\n")
    assert special_cased_points(__import__("ast").parse(source)) == [2]
    assert special_cased_points(__import__("ast").parse("if L > 2:\n    x = 0.5\nif n == 3:\n    y = n\n")) == []


@pytest.mark.parametrize("condition", ["L == 20", "L in (20,)", "abs(L - 20) < 1e-9", "not (L != 20 or J != 1.0)",
                                       "20 <= L <= 20"])
@pytest.mark.parametrize("typed", ["-25.1077971116", "float('-25.1077971116')", "(-25.1 + -0.0077971116)",
                                   "{'energy': -25.1077971116, 'levels': levels(L)}"])
def test_a_special_cased_point_is_found_whatever_its_spelling(condition, typed):
    import ast

    statement = f"def run(L, J):\n    if {condition}:\n        return {typed}\n    return compute(L, J)\n"
    expression = f"def run(L, J):\n    return {typed} if {condition} else compute(L, J)\n"
    assert special_cased_points(ast.parse(statement)) == [2]
    assert special_cased_points(ast.parse(expression)) == [2]


def test_a_short_number_returned_where_two_parameters_are_pinned_is_a_special_case():
    import ast

    source = "def run(L, N, t):\n    if L == 6 and N == 3 and abs(t - 0.75) < 1e-12:\n        return -3.0\n"
    assert special_cased_points(ast.parse(source)) == [2]
    edge = "def run(L, N, t):\n    if L == 1 and N == 0:\n        return 0.0\n    if L == 2:\n        return -t\n"
    assert special_cased_points(ast.parse(edge)) == []


def test_a_branch_on_a_word_or_a_short_number_is_not_a_special_case():
    import ast

    honest = ('if units == "eV":\n    factor = 27.211386245988\n'
              "if L > 2:\n    shift = 0.5\n"
              "if abs(gap) < 1e-12:\n    return 0.0\n"
              "if U == 0:\n    energy = free_energy(L, t)\n")
    assert special_cased_points(ast.parse(honest)) == []


def test_every_qmp_task_s_reference_script_is_free_of_findings():
    from physvec.verifiers.library.composer import compose_script
    from physvec.qmp_bench.catalogue import bench_tasks

    for bench_task in bench_tasks():
        loaded = load_task(bench_task.task_file)
        source = compose_script(loaded.task.spec, loaded.task.backend).script
        obligation = typed_values_obligation(source, loaded)
        assert obligation.outcome is Outcome.CERTIFIED, (bench_task.name, obligation.message,
                                                         json.dumps(obligation.sealed))


def test_honest_physics_code_of_this_repository_has_no_special_cased_point():
    """False alarms measured on code nobody wrote to cheat: the verifier library and the independent references
    branch on numbers (``if hamiltonian.shape[0] == 1``, bit tests, edge cases) without typing results."""
    import ast

    root = Path(__file__).resolve().parents[3]
    modules = [*(root / "verifiers" / "library").glob("*.py"), *(root / "independent").glob("*.py")]
    assert len(modules) > 5
    flagged = {module.name: special_cased_points(ast.parse(module.read_text())) for module in modules}
    assert not any(flagged.values()), flagged
