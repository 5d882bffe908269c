"""A task too large for physvec's recomputation is checked at a smaller lattice, by both sides, and an agreement
there is never taken for a value at the task point.

The quench fixture is the transverse-field Ising chain evolved by a Lie-Trotter circuit (qiskit); the library
pipeline it is compared with is checked against exact evolution in tests/verifiers/library/test_qiskit_background.py.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.composer import compose_script
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific import reduced_size
from physvec.verifiers.scientific.evidence import TRUSTED_RECOMPUTATION_AT_REDUCED_SIZE, evidence_obligations
from physvec.verifiers.scientific.reduced_size import ReducedPoint, beyond_budget, reduced_point
from tests.support.scripted import FIXTURES

AVERAGE_MAGNETISATION = 'SparsePauliOp.from_sparse_list([("Z", [i], 1 / L) for i in range(L)], L)'
EDGE_MAGNETISATION = 'SparsePauliOp.from_sparse_list([("Z", [0], 1.0)], L)'
TROTTER = pipeline_for_spec("qiskit", "transverse_field_ising", "chain", "trotter")
HUBBARD = pipeline_for_spec("tenpy", "trapped_hubbard", "chain", "dmrg")


def quench_task(tmp_path: Path, length: int) -> Path:
    """The library quench task at ``length`` sites, relying on its magnetisation (20 Trotter steps)."""
    folder = tmp_path / "quench"
    shutil.copytree(FIXTURES / "library_tfim_task", folder)
    data = json.loads((folder / "task.json").read_text())
    data["spec"]["observables"] = ["magnetization"]
    data["spec"]["parameters"] |= {"L": length, "steps": 20}
    data["convergence"]["cases"] = []
    del data["reference"]
    (folder / "task.json").write_text(json.dumps(data))
    return folder / "task.json"


def magnetisation_evidence(task_file: Path, source: str, tmp_path: Path) -> Obligation:
    script = tmp_path / "script.py"
    script.write_text(source)
    subject = Subject(script=script, task=load_task(task_file), pool=SandboxPool(), limits=SandboxLimits(),
                      workdir=tmp_path / "work" / "v01-scientific")
    return {o.name: o for o in evidence_obligations(subject, analyse_script(source), [])}["evidence:magnetization"]


def honest_script(task_file: Path) -> str:
    task = load_task(task_file).task
    return compose_script(task.spec, task.backend).script


def test_a_statevector_beyond_the_budget_is_known_before_it_runs():
    assert beyond_budget(TROTTER, {"L": 22}) is None
    assert "8.39e+06 amplitudes, beyond 4.19e+06" in beyond_budget(TROTTER, {"L": 23})
    assert beyond_budget(HUBBARD, {"L": 200}) is None, "a DMRG's cost is not known before it runs"


def test_the_reduced_lattice_is_at_most_half_the_task_s_keeps_its_parity_and_its_filling():
    assert reduced_point(HUBBARD, {"L": 60, "N_up": 10, "N_down": 10}, "died") == \
        ReducedPoint({"L": 30, "N_up": 5, "N_down": 5}, "died")
    assert reduced_point(HUBBARD, {"L": 22, "N_up": 11, "N_down": 10}, "died").overrides == \
        {"L": 10, "N_up": 5, "N_down": 5}, "22 // 2 = 11 is odd, so 10"
    assert reduced_point(TROTTER, {"L": 31}, "too big").overrides == {"L": 15}


def test_the_reduced_statevector_fits_the_budget():
    assert reduced_point(TROTTER, {"L": 60}, "too big").overrides == {"L": 22}


def test_a_task_naming_a_site_or_without_an_integer_length_is_not_reduced():
    assert "names a site" in reduced_point(TROTTER, {"L": 40, "site": 4}, "too big")
    assert "no integer lattice length" in reduced_point(TROTTER, {"L": 40.0}, "too big")
    assert "no lattice" in reduced_point(TROTTER, {"L": 3}, "too big"), "3 // 2 = 1 site is no chain"


@pytest.fixture
def small_budget(monkeypatch):
    """A budget of 64 amplitudes: an 8-site chain is beyond it, a 4-site one within."""
    monkeypatch.setattr(reduced_size, "MAX_AMPLITUDES", 2 ** 6)


def test_an_agreement_at_the_reduced_size_is_no_value_at_the_task_point(small_budget, tmp_path):
    task = quench_task(tmp_path, 8)
    magnetisation = magnetisation_evidence(task, honest_script(task), tmp_path)
    assert magnetisation.outcome is Outcome.UNKNOWN
    assert magnetisation.evidence["kinds"] == {TRUSTED_RECOMPUTATION_AT_REDUCED_SIZE: "unknown"}
    assert magnetisation.evidence["reduced_to"] == {"L": 4}
    assert "L = 4 (the task's 8)" in magnetisation.message and "256 amplitudes" in magnetisation.message


def test_a_wrong_observable_fails_at_the_reduced_size(small_budget, tmp_path):
    task = quench_task(tmp_path, 8)
    source = honest_script(task).replace(AVERAGE_MAGNETISATION, EDGE_MAGNETISATION)
    magnetisation = magnetisation_evidence(task, source, tmp_path)
    assert magnetisation.outcome is Outcome.FAILED
    assert magnetisation.evidence["kinds"] == {TRUSTED_RECOMPUTATION_AT_REDUCED_SIZE: "failed"}
    assert "at a reduced size, L = 4" in magnetisation.message


def test_a_script_wrong_only_above_the_reduced_size_is_not_certified(small_budget, tmp_path):
    """The attacker's answer to a reduced size: be right wherever physvec can check."""
    task = quench_task(tmp_path, 8)
    wrong_when_large = f"({EDGE_MAGNETISATION} if L > 4 else {AVERAGE_MAGNETISATION})"
    magnetisation = magnetisation_evidence(task, honest_script(task).replace(AVERAGE_MAGNETISATION,
                                                                              wrong_when_large), tmp_path)
    assert magnetisation.outcome is Outcome.UNKNOWN


def test_a_recomputation_that_runs_out_of_memory_at_the_task_s_size_is_repeated_at_a_reduced_one(tmp_path,
                                                                                               monkeypatch):
    """30 qubits are 16 GiB of amplitudes, beyond the sandbox's 6 GiB address space: the allocation fails."""
    monkeypatch.setattr(reduced_size, "MAX_AMPLITUDES", 2 ** 40)
    task = quench_task(tmp_path, 30)
    magnetisation = magnetisation_evidence(task, honest_script(task), tmp_path)
    assert magnetisation.evidence["reduced_to"] == {"L": 14}
    assert "ran out of its limits" in magnetisation.evidence["reduced_because"]
    assert "MemoryError" in magnetisation.evidence["reduced_because"]
    assert magnetisation.outcome is Outcome.UNKNOWN


def test_a_recomputation_that_ran_out_of_its_limits_is_not_tried_again_at_the_task_s_size(tmp_path, monkeypatch):
    """The convergence judge asks again: it gets the reduced size's answer without a second run at 30 qubits."""
    monkeypatch.setattr(reduced_size, "MAX_AMPLITUDES", 2 ** 40)
    task = quench_task(tmp_path, 30)
    magnetisation_evidence(task, honest_script(task), tmp_path)
    shutil.rmtree(tmp_path / "work" / "v01-scientific" / "trusted-recomputation")
    again = magnetisation_evidence(task, honest_script(task), tmp_path)
    assert again.evidence["reduced_to"] == {"L": 14}
    assert not (tmp_path / "work" / "v01-scientific" / "trusted-recomputation").exists()
