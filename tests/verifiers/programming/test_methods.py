"""The method a task demands is checked by code, from the trace of the script's instrumented execution: a call of
the method's library entry point must return normally inside a run_ function, no such call may raise while the
script goes on, and a product formula must be the circuit that ran.  So a numpy formula in DMRG's place, a DMRG
whose exception is swallowed, and exact evolution dressed as a Trotter circuit are caught even when every number
they return is right."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from physvec.taskfiles.loading import load_task
from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.library.composer import compose_script
from physvec.verifiers.library.qiskit_background import XX_DOMAIN_WALL_TROTTER
from physvec.verifiers.programming import verify_script
from physvec.verifiers.programming.integration import instrumented_job, read_report
from physvec.verifiers.programming.methods import METHOD_ENTRY_POINTS, demanded_method, method_obligation
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

EXAMPLE = Path(__file__).resolve().parents[3] / "examples" / "heisenberg_chain"
QMP_TASKS = Path(__file__).resolve().parents[3] / "qmp_bench" / "tasks"
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


def dmrg_call(outcome: str, order: int, run: str | None = "run_energy", **ending: Any) -> dict[str, Any]:
    """One recorded call of TeNPy's dmrg.run, as the instrumented execution writes it."""
    return {"entry": "tenpy.algorithms.dmrg:run", "phase": "main", "run": run, "element": "effector_dmrg",
            "outcome": outcome, **ending, "count": 1, "first": order, "last": order}


def report_of(*events: dict[str, Any], main_ok: bool = True) -> dict[str, Any]:
    return {"main": {"ok": main_ok}, "extra_runs": {},
            "method_calls": {"watched": list(METHOD_ENTRY_POINTS["dmrg"]), "missing": [], "events": list(events),
                             "dropped": 0}}


def test_a_raise_the_script_went_on_from_fails_and_one_that_ended_the_run_is_not_called_swallowed():
    raised = dmrg_call("raised", 1, error="TenpyInconsistencyError")
    for report in (report_of(raised), report_of(raised, dmrg_call("returned", 2), main_ok=False)):
        method = method_obligation("dmrg", report)
        assert method.outcome is Outcome.FAILED and "raised TenpyInconsistencyError" in method.message
        assert "went on" in method.message
    ended = method_obligation("dmrg", report_of(raised, main_ok=False))
    assert ended.outcome is Outcome.FAILED and "went on" not in ended.message
    assert "tenpy.algorithms.dmrg:run raised TenpyInconsistencyError in run_energy" in ended.message


def test_only_a_call_that_returned_inside_a_run_function_meets_the_method():
    assert method_obligation("dmrg", report_of(dmrg_call("returned", 1))).outcome is Outcome.CERTIFIED
    outside = method_obligation("dmrg", report_of(dmrg_call("returned", 1, run=None)))
    assert outside.outcome is Outcome.FAILED and "outside any run_ function" in outside.message


def test_a_run_without_a_trace_is_unknown_and_one_that_made_no_call_fails():
    assert method_obligation("dmrg", {"main": {"ok": False}}).outcome is Outcome.UNKNOWN
    never = method_obligation("dmrg", report_of())
    assert never.outcome is Outcome.FAILED and "never calls tenpy.algorithms.dmrg:run" in never.message


TFIM_ELEMENTS = '''
import json
from typing import Any

import numpy as np
import scipy.linalg
from qiskit import QuantumCircuit, transpile
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter, MatrixExponential

PARAMS = {"L": 4, "J": 1.0, "h": 1.0, "time": 0.5, "steps": 20}


def hamiltonian_tfim(L: int, J: float, h: float) -> SparsePauliOp:
    terms = [("ZZ", [i, i + 1], -J) for i in range(L - 1)] + [("X", [i], -h) for i in range(L)]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=L)


def observable_energy(state: Statevector, hamiltonian: SparsePauliOp) -> float:
    return float(state.expectation_value(hamiltonian).real)


def main() -> None:
    with open("results.json", "w") as stream:
        json.dump(run_quench(**PARAMS), stream)
'''
WHOLE_GATE = TFIM_ELEMENTS + '''

def circuit_evolution(hamiltonian: SparsePauliOp, time: float, steps: int) -> QuantumCircuit:
    """Written as a Trotter circuit, left whole: the simulator takes the gate's matrix, exp(-iHt)."""
    circuit = QuantumCircuit(hamiltonian.num_qubits)
    circuit.append(PauliEvolutionGate(hamiltonian, time=time, synthesis=SYNTHESIS), range(hamiltonian.num_qubits))
    return circuit


def run_quench(**params: Any) -> dict[str, Any]:
    hamiltonian = hamiltonian_tfim(params["L"], params["J"], params["h"])
    state = Statevector(circuit_evolution(hamiltonian, params["time"], params["steps"]))
    return {"energy": observable_energy(state, hamiltonian)}
'''
EXPM_BESIDE_A_DECOY = TFIM_ELEMENTS + '''

def circuit_trotter(hamiltonian: SparsePauliOp, time: float, steps: int) -> QuantumCircuit:
    return LieTrotter(reps=steps).synthesize(PauliEvolutionGate(hamiltonian, time=time))


def run_quench(**params: Any) -> dict[str, Any]:
    """The Trotter circuit is synthesised and simulated, then thrown away: the energy is exact evolution's."""
    hamiltonian = hamiltonian_tfim(params["L"], params["J"], params["h"])
    Statevector(circuit_trotter(hamiltonian, params["time"], params["steps"]))
    initial = np.zeros(2 ** params["L"], dtype=complex)
    initial[0] = 1.0
    state = Statevector(scipy.linalg.expm(-1j * params["time"] * hamiltonian.to_matrix()) @ initial)
    return {"energy": observable_energy(state, hamiltonian)}
'''
TRANSPILED_WITH_AN_EXACT_REFERENCE_APART = TFIM_ELEMENTS + '''

def circuit_trotter(hamiltonian: SparsePauliOp, time: float, steps: int) -> QuantumCircuit:
    """The product formula as the gate's synthesis, applied by the transpiler (cx, rz and sx gates)."""
    circuit = QuantumCircuit(hamiltonian.num_qubits)
    circuit.append(PauliEvolutionGate(hamiltonian, time=time, synthesis=LieTrotter(reps=steps)),
                   range(hamiltonian.num_qubits))
    return transpile(circuit, basis_gates=["cx", "rz", "sx", "x"], optimization_level=1)


def run_quench(**params: Any) -> dict[str, Any]:
    hamiltonian = hamiltonian_tfim(params["L"], params["J"], params["h"])
    state = Statevector(circuit_trotter(hamiltonian, params["time"], params["steps"]))
    return {"energy": observable_energy(state, hamiltonian)}


def run_exact_reference(**params: Any) -> dict[str, Any]:
    """Exact evolution to compare the Trotter energy with, in a run_ function of its own."""
    hamiltonian = hamiltonian_tfim(params["L"], params["J"], params["h"])
    circuit = QuantumCircuit(params["L"])
    circuit.append(PauliEvolutionGate(hamiltonian, time=params["time"], synthesis=MatrixExponential()),
                   range(params["L"]))
    return {"energy": observable_energy(Statevector(circuit), hamiltonian)}
'''
SWALLOWED_DMRG = '''
import json
from typing import Any

import numpy as np
from tenpy.algorithms import dmrg
from tenpy.models.spins import SpinChain
from tenpy.networks.mps import MPS

PARAMS = {"L": 8, "J": 1.0, "chi_max": 2}


def hamiltonian_heisenberg(L: int, J: float) -> SpinChain:
    return SpinChain({"L": L, "S": 0.5, "Jx": J, "Jy": J, "Jz": J, "bc_MPS": "finite", "conserve": "Sz"})


def initialstate_neel(model: SpinChain) -> MPS:
    return MPS.from_product_state(model.lat.mps_sites(), ["up", "down"] * (model.lat.N_sites // 2), bc="finite")


def exact_energy(L: int, J: float) -> float:
    sx, sy, sz = (np.array(m, dtype=complex) / 2 for m in ([[0, 1], [1, 0]], [[0, -1j], [1j, 0]], [[1, 0], [0, -1]]))
    H = sum(J * np.kron(np.kron(np.eye(2**i), np.kron(s, s)), np.eye(2 ** (L - i - 2)))
            for i in range(L - 1) for s in (sx, sy, sz))
    return float(np.linalg.eigvalsh(H)[0])


def effector_dmrg(psi: MPS, model: SpinChain, chi_max: int, L: int, J: float) -> float:
    """At chi 2 TeNPy's truncation error passes its limit and DMRG raises; the energy comes from a dense matrix."""
    try:
        return float(dmrg.run(psi, model, {"trunc_params": {"chi_max": chi_max, "svd_min": 1e-10},
                                           "max_sweeps": 2, "mixer": True})["E"])
    except Exception:
        return exact_energy(L, J)


def run_energy(**params: Any) -> dict[str, Any]:
    model = hamiltonian_heisenberg(params["L"], params["J"])
    psi = initialstate_neel(model)
    return {"energy": effector_dmrg(psi, model, params["chi_max"], params["L"], params["J"])}


def main() -> None:
    with open("results.json", "w") as stream:
        json.dump(run_energy(**PARAMS), stream)
'''
ADVERSARIES = {
    "whole_gate_matrix_exponential": (WHOLE_GATE.replace("SYNTHESIS", "MatrixExponential()"), "trotter"),
    "whole_gate_lie_trotter": (WHOLE_GATE.replace("SYNTHESIS", "LieTrotter(reps=steps)"), "trotter"),
    "expm_beside_a_decoy": (EXPM_BESIDE_A_DECOY, "trotter"),
    "transpiled_with_an_exact_reference_apart": (TRANSPILED_WITH_AN_EXACT_REFERENCE_APART, "trotter"),
    "swallowed_dmrg": (SWALLOWED_DMRG, "dmrg"),
}
HONEST_TASKS = {  # one qmp_bench task per method, its spec scaled down where the full size costs more than seconds
    "lloyd1996-trotter-quench": {"steps": 50},
    "kandala2017-vqe-tfi": {},
    "white1992-heisenberg-chain": {"L": 8, "chi_max": 16, "max_sweeps": 4},
    "szabo1996-h2-rhf": {},
}  # NetKet's (vmc_rbm) is left out: its program alone takes 25 s here, and its check is DMRG's


def instrumented_reports(scripts: dict[str, tuple[str, str]], root: Path) -> dict[str, dict[str, Any] | None]:
    """Each script's one instrumented execution (as the Programming verifier runs it), all in one parallel batch."""
    jobs = []
    for name, (source, method) in scripts.items():
        (root / name).mkdir(parents=True)
        (root / name / "script.py").write_text(source)
        jobs.append(instrumented_job(root / name / "script.py", root / name / "main", SandboxLimits(wall_s=300),
                                     METHOD_ENTRY_POINTS[method]))
    SandboxPool().run_all(jobs)
    return {name: read_report(root / name / "main") for name in scripts}


@pytest.fixture(scope="module")
def adversaries(tmp_path_factory) -> dict[str, Obligation]:
    reports = instrumented_reports(ADVERSARIES, tmp_path_factory.mktemp("adversaries"))
    return {name: method_obligation(ADVERSARIES[name][1], report) for name, report in reports.items()}


def _honest(task_id: str) -> tuple[str, str]:
    task = next(load_task(path).task for path in QMP_TASKS.glob(f"*/{task_id}/task.json"))
    spec = task.spec.model_copy(update={"parameters": {**task.spec.parameters, **HONEST_TASKS[task_id]}})
    return compose_script(spec, task.backend).script, spec.method


@pytest.fixture(scope="module")
def honest(tmp_path_factory) -> dict[str, Obligation]:
    scripts = {task_id: _honest(task_id) for task_id in HONEST_TASKS}
    xx = ProposerSpec(model="xx", lattice="chain", method="trotter", parameters=XX_DOMAIN_WALL_TROTTER.params,
                      observables=["site_magnetization"])
    scripts["xx-domain-wall"] = (compose_script(xx, "qiskit").script, "trotter")
    reports = instrumented_reports(scripts, tmp_path_factory.mktemp("honest"))
    return {name: method_obligation(scripts[name][1], report) for name, report in reports.items()}


@pytest.mark.slow
def test_a_dmrg_that_raises_inside_try_except_fails_naming_the_call_and_the_exception(adversaries):
    method = adversaries["swallowed_dmrg"]
    assert method.outcome is Outcome.FAILED, method.message
    assert "tenpy.algorithms.dmrg:run raised TenpyInconsistencyError in run_energy" in method.message
    assert "went on" in method.message


@pytest.mark.slow
@pytest.mark.parametrize("script", ["whole_gate_matrix_exponential", "whole_gate_lie_trotter"])
def test_a_pauli_evolution_gate_left_whole_is_exact_evolution_not_a_product_formula(adversaries, script):
    method = adversaries[script]
    assert method.outcome is Outcome.FAILED, method.message
    assert "whole PauliEvolutionGate of non-commuting terms on 4 qubits" in method.message
    assert "no LieTrotter/SuzukiTrotter synthesis returned" in method.message


@pytest.mark.slow
def test_exact_evolution_by_expm_beside_a_simulated_trotter_circuit_fails(adversaries):
    method = adversaries["expm_beside_a_decoy"]
    assert method.outcome is Outcome.FAILED, method.message
    assert "scipy.linalg:expm@script evolves by a 16x16 matrix" in method.message


@pytest.mark.slow
def test_a_transpiled_product_formula_meets_the_method_beside_an_exact_reference_of_its_own(adversaries):
    method = adversaries["transpiled_with_an_exact_reference_apart"]
    assert method.outcome is Outcome.CERTIFIED, method.message
    assert "run_quench" in method.message and "run_exact_reference" not in method.message


@pytest.mark.slow
@pytest.mark.parametrize("task_id", [*HONEST_TASKS, "xx-domain-wall"])
def test_the_library_composed_script_meets_its_method(honest, task_id):
    method = honest[task_id]
    assert method.outcome is Outcome.CERTIFIED, method.message
