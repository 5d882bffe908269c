"""Qiskit backgrounds for the transverse-field Ising chain: Lie-Trotter evolution of the all-up state,
and the variational quantum eigensolver with a hardware-efficient RY ansatz; and for the XX chain: the
symmetric even/odd Trotter evolution of a domain wall (Smith, Kim, Pollmann, Knolle, npj Quantum Inf. 5,
106 (2019), Fig. 2).

H = -J sum Z_i Z_{i+1} - h sum X_i and H = -J sum (X_i X_{i+1} + Y_i Y_{i+1}) on open chains of qubits
(Pauli operators, no factor 1/2).  Qubit q is site q + 1 counted from 1; |0> is spin up, <Z> = +1.
"""

from __future__ import annotations

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate, efficient_su2
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import Pauli, SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter
from scipy.optimize import minimize

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep
from physvec.verifiers.library.qiskit_hubbard_iqpe import HUBBARD_RING_IQPE
from physvec.verifiers.library.qiskit_hubbard_vqe import HUBBARD_HVA_VQE
from physvec.verifiers.library.qiskit_xxz_quench import XXZ_QUENCH_TROTTER


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


def hamiltonian_xx_chain(L: int, J: float) -> SparsePauliOp:
    """-J sum_j (X_j X_{j+1} + Y_j Y_{j+1}) on the open chain: hopping of up spins, conserving sum_j Z_j."""
    terms = [(pauli, [i, i + 1], -J) for i in range(L - 1) for pauli in ("XX", "YY")]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=L)


def initialstate_domain_wall(L: int) -> QuantumCircuit:
    """The first L // 2 spins down (X on qubits 0 .. L//2 - 1), the rest up: <Z> = -1 then +1 along the chain."""
    circuit = QuantumCircuit(L)
    for qubit in range(L // 2):
        circuit.x(qubit)
    return circuit


def circuit_trotter_step_even_odd(hamiltonian: SparsePauliOp, dt: float) -> QuantumCircuit:
    """One symmetric (second-order) step exp(-i H_even dt/2) exp(-i H_odd dt) exp(-i H_even dt/2).

    A term belongs to the bond of its lowest qubit q, whose left site counted from 1 is j = q + 1: odd j
    (bonds 1-2, 3-4, ...) make H_odd, even j make H_even, as in the paper's circuit.  On a nearest-neighbour
    chain the terms of one group sit on disjoint bonds or are XX and YY of one bond, so they commute and
    each group's exponential (a product of exact Pauli rotations) is exact: the error is the splitting's,
    O(dt^3) per step, and the step is time-symmetric (step(dt) step(-dt) = 1).
    """
    L = hamiltonian.num_qubits
    terms = [term for term in hamiltonian.to_sparse_list() if len(term[1]) > 0]  # identity: a global phase
    groups = {name: [term for term in terms if (min(term[1]) + 1) % 2 == parity]
              for name, parity in (("even", 0), ("odd", 1))}
    step = QuantumCircuit(L)
    for name, duration in (("even", dt / 2), ("odd", dt), ("even", dt / 2)):
        if groups[name]:  # one Pauli rotation (rxx, ryy, ...) per term
            group = SparsePauliOp.from_sparse_list(groups[name], num_qubits=L)
            step.compose(LieTrotter(reps=1).synthesize(PauliEvolutionGate(group, time=duration)), inplace=True)
    return step


def effector_trotter_states(initial: QuantumCircuit, step: QuantumCircuit, times: list[float],
                            dt: float) -> list[Statevector]:
    """The state vector at each of ``times`` (in their order): the initial circuit, then round(t / dt) steps.

    Each time must be a whole number of steps (to 1e-9): a time between steps has no Trotter state, and
    silently rounding it would compare states at a time other than the one asked for.
    """
    counts = [round(time / dt) for time in times]
    if any(count < 0 or abs(count * dt - time) > 1e-9 * max(1.0, abs(time)) for count, time in zip(counts, times)):
        raise ValueError(f"every time must be a non-negative whole number of steps dt = {dt}: {times}")
    state, done, by_count = Statevector(initial), 0, {}
    for count in sorted(set(counts)):  # one pass, each step applied once
        for _ in range(count - done):
            state = state.evolve(step)
        done, by_count[count] = count, state
    return [by_count[count] for count in counts]


def observable_site_magnetizations(states: list[Statevector]) -> list[list[float]]:
    """<Z_q> on every qubit q (site q + 1) of every state: one list over sites per state, in order."""
    return [[float(state.expectation_value(Pauli("Z"), [qubit]).real) for qubit in range(state.num_qubits)]
            for state in states]


def observable_site_magnetization(states: list[Statevector], site: int) -> list[float]:
    """<Z> of one site (counted from 1, as papers count spins) at every time: the curve a figure panel plots."""
    if not 1 <= site <= states[0].num_qubits:
        raise ValueError(f"site {site} is not on a chain of {states[0].num_qubits} sites (sites count from 1)")
    return [float(state.expectation_value(Pauli("Z"), [site - 1]).real) for state in states]


XX_DOMAIN_WALL_TROTTER = BackgroundPipeline(
    backend="qiskit", name="xx_domain_wall_trotter",
    model="xx", lattice="chain", method="trotter",
    params={"L": 6, "J": 1.0, "times": [0.0, 1.0, 2.0], "dt": 0.1, "site": 4},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_xx_chain, "hamiltonian"),
        BackgroundStep("initialstate", initialstate_domain_wall, "initial"),
        BackgroundStep("circuit", circuit_trotter_step_even_odd, "step"),
        BackgroundStep("effector", effector_trotter_states, "states"),
        BackgroundStep("observable", observable_site_magnetizations, "magnetizations"),
        BackgroundStep("observable", observable_site_magnetization, "site_magnetization"),
    ),
)

PIPELINES = (TFIM_TROTTER, TFIM_VQE, XX_DOMAIN_WALL_TROTTER, XXZ_QUENCH_TROTTER, HUBBARD_HVA_VQE,
             HUBBARD_RING_IQPE)
