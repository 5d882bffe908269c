"""Qiskit background: transverse-field Ising chain, all-up state, Lie-Trotter evolution, energy.

H = -J sum Z_i Z_{i+1} - h sum X_i on an open chain of qubits (Pauli operators).
"""

from __future__ import annotations

from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter

from verifiers.library import BackgroundPipeline, BackgroundStep


def hamiltonian_tfim(L: int, J: float, h: float) -> SparsePauliOp:
    terms = [("ZZ", [i, i + 1], -J) for i in range(L - 1)] + [("X", [i], -h) for i in range(L)]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=L)


def initialstate_all_up(L: int) -> QuantumCircuit:
    return QuantumCircuit(L)


def circuit_trotter(initial: QuantumCircuit, hamiltonian: SparsePauliOp, time: float, steps: int) -> QuantumCircuit:
    circuit = initial.copy()
    circuit.append(PauliEvolutionGate(hamiltonian, time=time, synthesis=LieTrotter(reps=steps)), range(circuit.num_qubits))
    return circuit


def effector_statevector(circuit: QuantumCircuit) -> Statevector:
    return Statevector(circuit)


def observable_energy(state: Statevector, hamiltonian: SparsePauliOp) -> float:
    return float(state.expectation_value(hamiltonian).real)


TFIM_TROTTER = BackgroundPipeline(
    backend="qiskit", name="tfim_trotter",
    model="transverse_field_ising", lattice="chain", method="trotter",
    params={"L": 4, "J": 1.0, "h": 1.0, "time": 0.5, "steps": 5},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_tfim, "hamiltonian"),
        BackgroundStep("initialstate", initialstate_all_up, "initial"),
        BackgroundStep("circuit", circuit_trotter, "circuit"),
        BackgroundStep("effector", effector_statevector, "state"),
        BackgroundStep("observable", observable_energy, "energy"),
    ),
)

PIPELINES = (TFIM_TROTTER,)
