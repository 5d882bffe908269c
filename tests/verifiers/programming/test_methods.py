"""The method a task demands is checked by code: the main run must call the backend's entry point, so a numpy
formula in DMRG's place is caught even when every number it returns is right."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.methods import demanded_method
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "heisenberg_chain"
SCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "scripts"
EXACT_INSTEAD_OF_DMRG = '''
import json
from typing import Any

import numpy as np

PARAMS = {"L": 4, "J": 1.0}


def hamiltonian_heisenberg(L: int, J: float) -> np.ndarray:
    """The open chain's Hamiltonian, built densely: no MPS, no DMRG."""
    sx, sy, sz = (np.array(m, dtype=complex) / 2 for m in ([[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]]))
    H = np.zeros((2**L, 2**L), dtype=complex)
    for i in range(L - 1):
        for s in (sx, sy, sz):
            H += J * np.kron(np.kron(np.eye(2**i), np.kron(s, s)), np.eye(2 ** (L - i - 2)))
    return H


def effector_ground_energy(H: np.ndarray) -> float:
    return float(np.linalg.eigvalsh(H)[0])


def run_energy(**params: Any) -> dict[str, Any]:
    return {"energy": effector_ground_energy(hamiltonian_heisenberg(params["L"], params["J"]))}


def main() -> None:
    with open("results.json", "w") as stream:
        json.dump(run_energy(**PARAMS), stream)


if __name__ == "__main__":
    main()
'''


def test_the_method_comes_from_the_spec_or_the_request():
    task = load_task(EXAMPLE / "task.json").task
    assert demanded_method(task) == "dmrg"
    assert demanded_method(task.model_copy(update={"request": "Compute the energy exactly."})) is None


@pytest.mark.slow
def test_a_script_that_swaps_dmrg_for_exact_diagonalisation_fails_the_method(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(EXACT_INSTEAD_OF_DMRG)
    certificate = verify_script(script, "tenpy", tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=120),
                                method="dmrg")
    method = next(o for o in certificate.obligations if o.name == "method:dmrg")
    assert method.outcome is Outcome.FAILED and "tenpy.algorithms.dmrg" in method.message


@pytest.mark.slow
def test_a_script_that_runs_dmrg_meets_the_method(tmp_path):
    script = tmp_path / "script.py"
    script.write_text((SCRIPTS / "tenpy" / "reference.py").read_text())
    certificate = verify_script(script, "tenpy", tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=180),
                                method="dmrg")
    method = next(o for o in certificate.obligations if o.name == "method:dmrg")
    assert method.outcome is Outcome.CERTIFIED, method.message
