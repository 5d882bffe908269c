"""A network's weights as results: evidence through the state they define, never entry by entry.

The task is the eight-site Heisenberg ring's translation-invariant RBM (Carleo and Troyer's Fig. 2 at a size
where every basis state can be summed), trained briefly: what is compared is the exact energy of the states
the script's weights and physvec's define (verifiers/scientific/representations.py, itself checked against
dense matrices), not how well either converged.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.library.composer import compose_script
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.evidence import evidence_obligations
from tests.support.scripted import FIXTURES

pytestmark = pytest.mark.slow
NETWORK = ["feature_maps", "hidden_biases", "visible_bias"]
READ_OUT = "return kernel[:, 0, :].tolist()"


@pytest.fixture(scope="module")
def network_task(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("network-task")
    for name in ("paper.md", "rubric.json"):
        shutil.copy(FIXTURES / "library_tfim_task" / name, folder / name)
    (folder / "task.json").write_text(json.dumps({
        "id": "heisenberg-feature-maps", "title": "Feature maps of the Heisenberg ring (test fixture)",
        "paper": {"path": "paper.md"}, "target": {"figure": "feature maps"},
        "request": "Train a translation-invariant RBM on the eight-site Heisenberg ring and return its weights.",
        "backend": "netket", "rubric": "rubric.json",
        "spec": {"model": "heisenberg", "lattice": "ring", "method": "vmc_rbm_symm_sr",
                 "parameters": {"N": 8, "J": 1.0, "total_sz": 0, "alpha": 2, "n_samples": 256, "n_iter": 30,
                                "learning_rate": 0.02, "diag_shift": 0.01, "seed": 0},
                 "observables": [*NETWORK, "energy"]},
        "limits": {"author_plan": False, "programming_iterations": 0, "scientific_iterations": 0,
                   "sandbox_wall_s": 300, "rubric_votes": 0}}))
    return folder / "task.json"


def evidence(task_file: Path, source: str, tmp_path: Path) -> dict[str, object]:
    script = tmp_path / "script.py"
    script.write_text(source)
    subject = Subject(script=script, task=load_task(task_file), pool=SandboxPool(), limits=SandboxLimits(),
                      workdir=tmp_path / "work" / "v01-scientific")
    return {o.name: o for o in evidence_obligations(subject, analyse_script(source), [])}


def honest(task_file: Path) -> str:
    task = load_task(task_file).task
    source = compose_script(task.spec, task.backend).script
    assert READ_OUT in source, "the library's read-out of the filters has changed"
    return source


def test_an_honest_network_is_certified_through_its_energy_though_its_filters_are_its_own(network_task, tmp_path):
    found = evidence(network_task, honest(network_task), tmp_path)
    for name in NETWORK:
        assert found[f"evidence:{name}"].outcome is Outcome.CERTIFIED, found[f"evidence:{name}"].message
        assert "exact energy" in found[f"evidence:{name}"].message
        assert "recomputed_network_energy" in found[f"evidence:{name}"].sealed, "physvec's value is an answer"
    assert found["evidence:energy"].outcome is Outcome.CERTIFIED


def test_filters_read_mirrored_are_the_same_state_and_pass(network_task, tmp_path):
    # kernel[:, 0, ::-1] is W(-1 - j): the mirrored network, shifted by one site; the ring cannot tell
    source = honest(network_task).replace(READ_OUT, "return kernel[:, 0, ::-1].tolist()")
    assert evidence(network_task, source, tmp_path)["evidence:feature_maps"].outcome is Outcome.CERTIFIED


def test_blank_filters_are_the_uniform_state_and_fail(network_task, tmp_path):
    # The cheapest fake: zero weights.  They define the uniform superposition of the sector, whose energy
    # -J N (N + 1) / (N - 1) = -10.3 lies 30 % above the ground energy -14.6 (Pauli units, N = 8).
    source = honest(network_task).replace(READ_OUT, "return np.zeros_like(kernel[:, 0, :]).tolist()")
    obligation = evidence(network_task, source, tmp_path)["evidence:feature_maps"]
    assert obligation.outcome is Outcome.FAILED
    assert "from physvec's network" in obligation.message
    assert obligation.evidence["network_energy"] == pytest.approx(-8 * 9 / 7, rel=1e-9)


def test_filters_of_another_ring_are_refused(network_task, tmp_path):
    source = honest(network_task).replace(READ_OUT, "return np.tile(kernel[:, 0, :], 2).tolist()")
    obligation = evidence(network_task, source, tmp_path)["evidence:feature_maps"]
    assert obligation.outcome is Outcome.FAILED
    assert "feature maps over 16 sites for a ring of 8" in obligation.message
