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


def test_every_qmp_task_s_reference_script_is_free_of_findings():
    from physvec.agents.library_proposer import compose_script
    from physvec.qmp_bench.catalogue import bench_tasks

    for bench_task in bench_tasks():
        loaded = load_task(bench_task.task_file)
        source = compose_script(loaded.task.spec, loaded.task.backend).script
        obligation = typed_values_obligation(source, loaded)
        assert obligation.outcome is Outcome.CERTIFIED, (bench_task.name, obligation.message,
                                                         json.dumps(obligation.sealed))
