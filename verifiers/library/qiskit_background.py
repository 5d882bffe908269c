"""Qiskit backgrounds for the transverse-field Ising chain: Lie-Trotter evolution of the all-up state,
and the variational quantum eigensolver with a hardware-efficient RY ansatz.

H = -J sum Z_i Z_{i+1} - h sum X_i on an open chain of qubits (Pauli operators).
"""

from __future__ import annotations

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate, efficient_su2
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter
from scipy.optimize import minimize

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def hamiltonian_tfim(L: int, J: float, h: float) -> SparsePauliOp:
    terms = [("ZZ", [i, i + 1], -J) for i in range(L - 1)] + [("X", [i], -h) for i in range(L)]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=L)


def initialstate_all_up(L: int) -> QuantumCircuit:
    return QuantumCircuit(L)


def circuit_trotter(initial: QuantumCircuit, hamiltonian: SparsePauliOp, time: float, steps: int) -> QuantumCircuit:
    """The Lie-Trotter product circuit itself (a PauliEvolutionGate left whole is simulated exactly)."""
    evolution = PauliEvolutionGate(hamiltonian, time=time)
    return initial.compose(LieTrotter(reps=steps).synthesize(evolution))


def effector_statevector(circuit: QuantumCircuit) -> Statevector:
    return Statevector(circuit)


def observable_energy(state: Statevector, hamiltonian: SparsePauliOp) -> float:
    return float(state.expectation_value(hamiltonian).real)


def observable_magnetization(state: Statevector) -> float:
    """<Z> averaged over the qubits (+1 for all qubits in |0>)."""
    L = state.num_qubits
    return float(state.expectation_value(SparsePauliOp.from_sparse_list([("Z", [i], 1 / L) for i in range(L)], L)).real)


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
        BackgroundStep("observable", observable_magnetization, "magnetization"),
    ),
)


def ansatz_ry_linear(L: int, reps: int) -> QuantumCircuit:
    """RY rotations on every qubit and CX between neighbours, repeated: (reps + 1) L angles, real amplitudes."""
    return efficient_su2(L, su2_gates=["ry"], entanglement="linear", reps=reps)


def observable_vqe_energy(ansatz: QuantumCircuit, hamiltonian: SparsePauliOp, angles: np.ndarray) -> float:
    """<H> in the ansatz state at ``angles``, from the exact state-vector estimator."""
    return float(StatevectorEstimator().run([(ansatz, hamiltonian, angles)]).result()[0].data.evs)


def effector_vqe(ansatz: QuantumCircuit, hamiltonian: SparsePauliOp, initial_angle: float) -> np.ndarray:
    """The angles minimising <H> (BFGS from every angle at ``initial_angle``; exact expectation values)."""
    return minimize(lambda angles: observable_vqe_energy(ansatz, hamiltonian, angles),
                    np.full(ansatz.num_parameters, initial_angle), method="BFGS").x


TFIM_VQE = BackgroundPipeline(
    backend="qiskit", name="tfim_vqe",
    model="transverse_field_ising", lattice="chain", method="vqe",
    params={"L": 3, "J": 1.0, "h": 1.0, "reps": 2, "initial_angle": 0.1},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_tfim, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_ry_linear, "ansatz"),
        BackgroundStep("effector", effector_vqe, "angles"),
        BackgroundStep("observable", observable_vqe_energy, "energy"),
    ),
)

PIPELINES = (TFIM_TROTTER, TFIM_VQE)
