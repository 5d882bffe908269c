"""Which parameters the metamorphic check perturbs: physical floats, never the task's accuracy parameters."""

from __future__ import annotations

from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.scientific.metamorphic import _float_params_read

SCRIPT = '''
from typing import Any

PARAMS = {"g": 1.0, "conv_tol": 1e-8, "L": 4}


def observable_energy(g: float, conv_tol: float, L: int) -> float:
    return -g * L


def run_chain(**params: Any) -> dict[str, Any]:
    return {"energy": observable_energy(params["g"], params["conv_tol"], params["L"])}
'''


def test_float_parameters_are_perturbed_but_not_the_accuracy_parameters_a_ladder_climbs():
    contract = analyse_script(SCRIPT)
    assert _float_params_read(contract, "run_chain") == ["g", "conv_tol"]
    assert _float_params_read(contract, "run_chain", {"conv_tol"}) == ["g"]
