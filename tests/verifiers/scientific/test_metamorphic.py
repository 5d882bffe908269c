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


NOISY_ZERO = '''
import random
from typing import Any

PARAMS = {"J": 1.0, "L": 4}


def observable_sz(J: float, L: int) -> list[float]:
    return [random.uniform(-1e-11, 1e-11) for _ in range(L)]


def observable_energy(J: float, L: int) -> float:
    return -J * L


def run_chain(**params: Any) -> dict[str, Any]:
    return {"sz": observable_sz(params["J"], params["L"]), "energy": observable_energy(params["J"], params["L"])}
'''


def test_rounding_noise_on_an_identically_zero_observable_is_not_a_change(tmp_path):
    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(NOISY_ZERO)
    obligations = metamorphic_obligations(script, analyse_script(NOISY_ZERO), "run_chain", ["sz", "energy"], {},
                                          tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60))
    outcomes = {o.name: o.outcome for o in obligations}
    assert outcomes["metamorphic:sz"] is Outcome.FAILED, "1e-11 wobble of a zero profile does not count as a change"
    assert outcomes["metamorphic:energy"] is Outcome.CERTIFIED
