"""Every QMP-Bench task is complete and its numbers come from an independent method.

A task validates, cites its source, maps its topic to its backend, carries a spec the library covers,
at least one assertion of each kind, a convergence ladder and reference data; its reference values
and its assertions' expected values equal what qmp_bench/provenance.py computes without any backend
library.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from physvec.verifiers.library.composer import library_problem
from physvec.taskfiles.loading import load_task
from physvec.qmp_bench.catalogue import TOPIC_BACKENDS, bench_tasks
from physvec.qmp_bench.provenance import INDEPENDENT, stored_values

TASKS = bench_tasks()


def _by_name(task):
    return task.name


@pytest.mark.parametrize("task", TASKS, ids=_by_name)
def test_a_task_is_complete_and_cites_its_source(task):
    loaded = load_task(task.task_file).task
    assert loaded.id == task.id and loaded.backend == TOPIC_BACKENDS[task.topic]
    citation = loaded.paper.citation
    assert citation is not None and (citation.doi or citation.isbn)
    assert library_problem(loaded.spec, loaded.backend) is None
    kinds = {assertion.kind for assertion in load_task(task.task_file).assertions.assertions}
    assert {"limiting_case", "symmetry", "analytic_regime"} <= kinds
    assert loaded.convergence.cases and loaded.reference is not None
    runs = {assertion.run for assertion in load_task(task.task_file).assertions.assertions}
    assert all(run in loaded.request for run in runs), "the request names the run_ function the checks call"


@pytest.mark.parametrize("task", TASKS, ids=_by_name)
def test_reference_and_expected_values_come_from_the_independent_method(task):
    stored = stored_values(task.task_file.parent)
    computed = INDEPENDENT[task.id]()
    assert set(stored.reference) == set(computed.reference)
    rtol, atol = computed.reproducible_to, computed.reproducible_to / 100
    for key, value in computed.reference.items():
        assert np.allclose(stored.reference[key], value, rtol=rtol, atol=atol), key
    assert set(computed.assertions) <= set(stored.assertions)
    for name, value in computed.assertions.items():
        assert stored.assertions[name] == pytest.approx(value, rel=rtol, abs=atol), name


def test_every_task_has_an_independent_computation():
    assert {task.id for task in TASKS} == set(INDEPENDENT)


def test_the_reference_never_reaches_the_spec_or_the_request():
    for task in TASKS:
        data = json.loads(task.task_file.read_text())
        reference = json.loads((task.task_file.parent / "reference.json").read_text())
        text = json.dumps(data["spec"]) + data["request"]
        for value in reference.values():
            for number in np.ravel(value):
                assert f"{number:.6f}"[:-1] not in text, (task.name, number)
