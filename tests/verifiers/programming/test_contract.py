"""Contract analysis: element and run_ functions, PARAMS, main, and actionable breaches."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.contract import analyse_script, contract_obligations, element_role
from physvec.verifiers.programming.julia_contract import analyse_julia_script
from tests.verifiers.programming.faults import reference

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "scripts"
SIX_CALLS = '''
import numpy as np
from typing import Any

PARAMS = {"n": 4, "scale": 2.0}


def lattice_sites(n: int) -> np.ndarray:
    return np.arange(n, dtype=float)


def hamiltonian_diagonal(sites: np.ndarray, scale: float) -> np.ndarray:
    return np.diag(scale * sites)


def initialstate_uniform(n: int) -> np.ndarray:
    return np.ones(n) / np.sqrt(n)


def effector_square(H: np.ndarray) -> np.ndarray:
    return H @ H


def observable_expectation(H: np.ndarray, psi: np.ndarray) -> float:
    return float(psi @ H @ psi)


def observable_norm(psi: np.ndarray) -> float:
    return float(psi @ psi)


def run_chain(**params: Any) -> dict[str, Any]:
    sites = lattice_sites(params["n"])
    H = hamiltonian_diagonal(sites, params["scale"])
    psi = initialstate_uniform(params["n"])
    H2 = effector_square(H)
    return {"e2": observable_expectation(H2, psi), "norm": observable_norm(psi)}


def main() -> None:
    print(run_chain(**PARAMS))


if __name__ == "__main__":
    main()
'''


def names(obligations) -> list[str]:
    return [o.name for o in obligations]


def test_roles_come_from_prefixes():
    assert element_role("hamiltonian_xxz") == "hamiltonian" and element_role("sampler_local") == "sampler"
    assert element_role("run_all") is None and element_role("helper") is None


def test_a_conforming_script_certifies_its_contract():
    contract = analyse_script(SIX_CALLS)
    (obligation,) = contract_obligations(contract)
    assert obligation.outcome is Outcome.CERTIFIED
    assert contract.runs["run_chain"].element_calls == (
        "lattice_sites", "hamiltonian_diagonal", "initialstate_uniform", "effector_square",
        "observable_expectation", "observable_norm")
    assert contract.params == {"n": 4, "scale": 2.0} and contract.has_main


def test_nested_calls_are_levels_in_evaluation_order():
    contract = analyse_script(reference("qiskit"))
    assert contract.runs["run_quench"].element_calls == (
        "hamiltonian_tfim", "initialstate_all_up", "circuit_trotter", "effector_statevector",
        "observable_magnetization", "observable_energy")


@pytest.mark.parametrize(("old", "new", "breach", "words"), [
    ("    H2 = effector_square(H)", "    H2 = np.linalg.matrix_power(H, 2)", "contract:run_work:run_chain",
     "np.linalg.matrix_power"),
    ('def main() -> None:\n    print(run_chain(**PARAMS))', 'def main() -> None:\n    print(PARAMS["seed"], run_chain(**PARAMS))',
     "contract:params_keys", "'seed'"),
    ('    return np.diag(scale * sites)', '    return np.diag(PARAMS["scale"] * sites)',
     "contract:globals:hamiltonian_diagonal", "PARAMS"),
    ("def observable_norm(psi: np.ndarray) -> float:", "def observable_norm(psi):", "contract:annotations:observable_norm",
     "annotations"),
    ('PARAMS = {"n": 4, "scale": 2.0}', 'PARAMS = dict(n=4, scale=2.0)', "contract:params", "literal"),
    ('    sites = lattice_sites(params["n"])', '    sites = lattice_sites(params["m"])', "contract:params_keys", "'m'"),
    ("def main() -> None:", "def main_() -> None:", "contract:main", "main()"),
])
def test_breaches_name_what_to_change(old, new, breach, words):
    assert old in SIX_CALLS
    obligations = contract_obligations(analyse_script(SIX_CALLS.replace(old, new)))
    found = {o.name: o for o in obligations}
    assert breach in found, names(obligations)
    assert found[breach].outcome is Outcome.FAILED and words in found[breach].message


def test_duplicate_definitions_are_a_breach():
    duplicated = SIX_CALLS.replace("def main()", "def observable_norm(psi: np.ndarray) -> float:\n    return 1.0\n\n\ndef main()")
    found = {o.name: o for o in contract_obligations(analyse_script(duplicated))}
    assert "defined twice" in found["contract:duplicate:observable_norm"].message


def test_a_syntax_error_is_located_in_its_function_and_the_rest_is_analysed():
    broken = SIX_CALLS.replace("return float(psi @ psi)", "return float(psi @ psi")
    contract = analyse_script(broken)
    syntax = contract_obligations(contract)[0]
    assert syntax.name == "contract:syntax" and syntax.evidence["function"] == "observable_norm"
    assert syntax.evidence["line"] == broken.splitlines().index("    return float(psi @ psi") + 1
    assert "effector_square" in contract.elements and contract.runs["run_chain"].element_calls[-1] == "observable_norm"


def test_a_julia_script_is_analysed_without_julia():
    contract = analyse_julia_script((FIXTURES / "itensors" / "reference.jl").read_text())
    assert list(contract.elements) == ["site_spins", "hamiltonian_heisenberg", "initialstate_neel",
                                       "effector_dmrg", "observable_sz"]
    assert contract.runs["run_ground_state"].element_calls == (
        "site_spins", "hamiltonian_heisenberg", "initialstate_neel", "effector_dmrg", "observable_sz")
    assert contract.params == {"L": "10", "J": "1.0", "nsweeps": "5", "maxdim": "64", "cutoff": "1e-10"}
    assert contract.has_main and contract.breaches == []


def test_a_julia_function_without_end_is_located():
    source = (FIXTURES / "itensors" / "reference.jl").read_text()
    broken = source.replace("    return MPO(os, sites)\nend", "    return MPO(os, sites)\n")
    (breach,) = analyse_julia_script(broken).breaches
    assert breach.name == "contract:syntax" and breach.evidence["function"] == "hamiltonian_heisenberg"


def test_a_julia_generator_is_not_a_block_and_helper_methods_are_not_duplicates():
    source = (FIXTURES / "itensors" / "reference.jl").read_text().replace(
        'observable_sz(state) = expect(state, "Sz")',
        'total(x::Number) = x\ntotal(x::AbstractVector) = sum(total(v) for v in x if isfinite(v))\n'
        'observable_sz(state) = total(expect(state, "Sz"))')
    assert analyse_julia_script(source).breaches == []
