"""Qiskit background for the variational quantum eigensolver of the Fermi-Hubbard model with one layer of the
Hamiltonian variational ansatz, as in Stanisic et al., Nat. Commun. 13, 5743 (2022), Figs. 4 and 6: energies per
occupation, chemical potentials, charge and spin correlations of open 1 x L chains and 2 x L ladders.

H = -t sum_<ij>,s (c^dag_is c_js + h.c.) + U sum_i n_i,up n_i,down, open boundaries.  Sites are numbered along
the paper's snake (row by row, every other row backwards), site k is qubit k (spin up) and qubit k + n (spin
down); Jordan-Wigner: c^dag_a c_b + h.c. = (X_a X_b + Y_a Y_b)/2 with Z on every qubit between a and b, n = (1 - Z)/2.
A basis state's amplitude belongs to the creation operators in ascending qubit order.

The ansatz starts from the U = 0 ground state (N_up = ceil(N/2), N_down = floor(N/2), the lowest orbitals of the
hopping) and applies exp(-i theta_k G_k) for the on-site generator sum n_up n_down and then each hopping group
(bonds of one group are disjoint, so its terms commute and its exponential is an exact product of Pauli rotations):
three angles on a chain (bonds from odd rows, from even rows), four on a ladder (rungs first).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from qiskit import QuantumCircuit
from qiskit.circuit.library import PauliEvolutionGate
from qiskit.primitives import StatevectorEstimator
from qiskit.quantum_info import SparsePauliOp, Statevector
from qiskit.synthesis import LieTrotter
from scipy.optimize import minimize
from scipy.sparse.linalg import expm_multiply

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def lattice_hubbard_snake(columns: int, rows: int) -> dict[str, Any]:
    """Sites (column, row) counted from 1 in snake order, the ansatz's hopping groups (rungs of a ladder, then the
    bonds leaving odd rows, then those leaving even rows) and every bond, as pairs of snake positions."""
    if columns not in (1, 2) or rows < 2:
        raise ValueError(f"a 1 x L chain or a 2 x L ladder with L >= 2, got {columns} x {rows}")
    sites = [(column, row) for row in range(1, rows + 1)
             for column in (range(1, columns + 1) if row % 2 == 1 else range(columns, 0, -1))]
    at = {site: position for position, site in enumerate(sites)}

    def bond(first: tuple[int, int], second: tuple[int, int]) -> list[int]:
        return sorted((at[first], at[second]))

    rungs = [bond((1, row), (2, row)) for row in range(1, rows + 1)] if columns == 2 else []
    legs = [[bond((column, row), (column, row + 1)) for column in range(1, columns + 1)
             for row in range(start, rows, 2)] for start in (1, 2)]
    groups = ([rungs] if rungs else []) + [group for group in legs if group]
    return {"sites": [list(site) for site in sites], "groups": groups,
            "bonds": [pair for group in groups for pair in group]}


def hamiltonian_hubbard_jw(lattice: dict[str, Any], t: float, U: float) -> SparsePauliOp:
    """The Hubbard Hamiltonian on 2n qubits (spin up on 0..n-1, spin down on n..2n-1)."""
    n = len(lattice["sites"])
    terms: list[tuple[str, list[int], float]] = [("", [], U * n / 4)]
    for a, b in lattice["bonds"]:
        for shift in (0, n):
            string = list(range(a + shift + 1, b + shift))
            for pauli in ("X", "Y"):
                terms.append((pauli + "Z" * len(string) + pauli, [a + shift, *string, b + shift], -t / 2))
    for site in range(n):
        terms += [("ZZ", [site, site + n], U / 4), ("Z", [site], -U / 4), ("Z", [site + n], -U / 4)]
    return SparsePauliOp.from_sparse_list(terms, num_qubits=2 * n).simplify()


def ansatz_hva_generators(lattice: dict[str, Any]) -> list[SparsePauliOp]:
    """One layer's generators in the order they act: sum_i n_i,up n_i,down, then -sum over each hopping group and
    both spins of (c^dag c + h.c.)."""
    n = len(lattice["sites"])
    onsite = [("", [], n / 4)] + [term for site in range(n) for term in
                                 (("ZZ", [site, site + n], 0.25), ("Z", [site], -0.25), ("Z", [site + n], -0.25))]
    generators = [SparsePauliOp.from_sparse_list(onsite, num_qubits=2 * n).simplify()]
    for group in lattice["groups"]:
        terms = []
        for a, b in group:
            for shift in (0, n):
                string = list(range(a + shift + 1, b + shift))
                terms += [(pauli + "Z" * len(string) + pauli, [a + shift, *string, b + shift], -0.5)
                          for pauli in ("X", "Y")]
        generators.append(SparsePauliOp.from_sparse_list(terms, num_qubits=2 * n))
    return generators


def lattice_hopping_orbitals(lattice: dict[str, Any], t: float) -> list[list[float]]:
    """The U = 0 orbitals: eigenvectors (columns, energy ascending) of the hopping matrix -t on every bond (the
    open grids' levels are not degenerate, so the determinant of the lowest is unique)."""
    n = len(lattice["sites"])
    hopping = np.zeros((n, n))
    for a, b in lattice["bonds"]:
        hopping[a, b] = hopping[b, a] = -t
    return np.linalg.eigh(hopping)[1].tolist()


def initialstate_slater_circuits(orbitals: list, occupations: list[int]) -> list[QuantumCircuit]:
    """The U = 0 ground state of each occupation N as a circuit: N_up = ceil(N/2) and N_down = floor(N/2) fermions
    in the first orbitals (columns, lowest first; one n x n matrix for both spins, or a pair [up, down] where a
    degenerate level lets the spins fill different orbitals), prepared per spin from the first modes filled (X) by
    N (n - N) Givens rotations of neighbouring modes, as the paper prepares it.

    The rotations reduce the orbitals Q (N x n, orthonormal rows) to [I | 0]: rotations of rows (free: they change
    the determinant's phase only) clear row r beyond column r + n - N, then rotations of columns (c - 1, c) clear
    each row right of its diagonal; applying the column rotations' mode rotations in reverse order to the filled
    modes gives Q's determinant state, exp(theta (X_p Y_p+1 - Y_p X_p+1) / 2) per rotation of angle theta."""
    per_spin = np.asarray(orbitals, dtype=float)
    per_spin = per_spin if per_spin.ndim == 3 else np.stack([per_spin, per_spin])
    n = per_spin.shape[1]
    circuits = []
    for occupation in occupations:
        if not 0 < occupation < 2 * n:
            raise ValueError(f"occupation {occupation} is not between 1 and {2 * n - 1}")
        circuit = QuantumCircuit(2 * n)
        for count, offset, spin in (((occupation + 1) // 2, 0, 0), (occupation // 2, n, 1)):
            matrix = per_spin[spin][:, :count].T.copy()
            for column in range(n - 1, n - count, -1):
                for row in range(column - (n - count)):
                    a, b = matrix[row, column], matrix[row + 1, column]
                    if abs(a) > 1e-14:
                        rho = math.hypot(a, b)
                        turn = np.array([[b / rho, -a / rho], [a / rho, b / rho]])
                        matrix[[row, row + 1]] = turn @ matrix[[row, row + 1]]
            rotations = []
            for row in range(count):
                for column in range(row + n - count, row, -1):
                    theta = math.atan2(matrix[row, column], matrix[row, column - 1])
                    turn = np.array([[math.cos(theta), -math.sin(theta)], [math.sin(theta), math.cos(theta)]])
                    matrix[:, [column - 1, column]] = matrix[:, [column - 1, column]] @ turn
                    rotations.append((column - 1, theta))
            for mode in range(count):
                circuit.x(offset + mode)
            for mode, theta in reversed(rotations):
                generator = SparsePauliOp.from_sparse_list([("XY", [offset + mode, offset + mode + 1], 0.5),
                                                            ("YX", [offset + mode, offset + mode + 1], -0.5)],
                                                           num_qubits=2 * n)
                circuit.compose(LieTrotter(reps=1).synthesize(PauliEvolutionGate(generator, time=theta)), inplace=True)
        circuits.append(circuit)
    return circuits


def effector_vqe_angles(hamiltonian: SparsePauliOp, generators: list[SparsePauliOp],
                        initial_states: list[QuantumCircuit], restarts: int, seed: int) -> list[list[float]]:
    """Per occupation, the angles that minimise <H> over one ansatz layer: BFGS from each of ``restarts`` starts
    drawn uniformly from [-1, 1] per angle (numpy's default_rng(seed), one block for every occupation), the lowest
    end kept.  Every generator keeps N_up and N_down, so the search simulates
    the ansatz inside the initial state's sector: the Qiskit operators restricted to the basis states there and
    exponentiated exactly (expm_multiply), which is the circuit's noiseless result."""
    qubits = hamiltonian.num_qubits
    n = qubits // 2
    counts = np.arange(2**qubits)
    ups = np.array([bin(index & (2**n - 1)).count("1") for index in counts])
    downs = np.array([bin(index >> n).count("1") for index in counts])
    full = [hamiltonian.to_matrix(sparse=True)] + [generator.to_matrix(sparse=True) for generator in generators]
    if restarts < 1:
        raise ValueError(f"restarts must be at least 1, got {restarts}")
    starts = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(restarts, len(generators)))
    angles = []
    for initial in initial_states:
        amplitudes = Statevector(initial).data
        occupied = int(np.flatnonzero(np.abs(amplitudes) > 1e-12)[0])
        sector = np.flatnonzero((ups == ups[occupied]) & (downs == downs[occupied]))
        restricted = [matrix[sector][:, sector].tocsr() for matrix in full]
        start = amplitudes[sector]

        def energy(theta: np.ndarray) -> float:
            psi = start
            for generator, angle in zip(restricted[1:], theta):
                psi = expm_multiply(-1j * angle * generator, psi)
            return float(np.vdot(psi, restricted[0] @ psi).real)

        ends = [minimize(energy, guess, method="BFGS") for guess in starts]
        angles.append([float(angle) for angle in min(ends, key=lambda end: end.fun).x])
    return angles


def circuit_hva_ansatz(initial_states: list[QuantumCircuit], generators: list[SparsePauliOp],
                       angles: list[list[float]]) -> list[QuantumCircuit]:
    """Each occupation's initial circuit followed by one ansatz layer at its angles: one exact block of Pauli
    rotations per generator (its terms commute), in the generators' order."""
    circuits = []
    for initial, theta in zip(initial_states, angles, strict=True):
        circuit = initial.copy()
        for generator, angle in zip(generators, theta, strict=True):
            circuit.compose(LieTrotter(reps=1).synthesize(PauliEvolutionGate(generator, time=angle)), inplace=True)
        circuits.append(circuit)
    return circuits


def observable_energies(hamiltonian: SparsePauliOp, circuits: list[QuantumCircuit]) -> list[float]:
    """<H> of each occupation's optimised circuit, by Qiskit's state-vector estimator."""
    result = StatevectorEstimator().run([(circuit, hamiltonian) for circuit in circuits]).result()
    return [float(item.data.evs) for item in result]


def observable_chemical_potentials(hamiltonian: SparsePauliOp, circuits: list[QuantumCircuit],
                                   occupations: list[int]) -> list[float]:
    """mu(N) = E(N) - E(N - 1) for each occupation N, with E(0) = 0 (the empty lattice); E by the estimator."""
    result = StatevectorEstimator().run([(circuit, hamiltonian) for circuit in circuits]).result()
    known = dict(zip(occupations, (float(item.data.evs) for item in result), strict=True)) | {0: 0.0}
    missing = [occupation - 1 for occupation in occupations if occupation - 1 not in known]
    if missing:
        raise ValueError(f"mu(N) needs E(N - 1): occupations {missing} are not computed")
    return [known[occupation] - known[occupation - 1] for occupation in occupations]


def observable_charge_correlations(circuits: list[QuantumCircuit]) -> list[list[float]]:
    """Per occupation, C(1, i) = (<n_1 n_i> - <n_1><n_i>) / (<n_1^2> - <n_1>^2) with n = n_up + n_down, for every
    site i in snake order (site 1 is the snake's first site, an end of a chain)."""
    result = []
    for circuit in circuits:
        state = Statevector(circuit)
        qubits = state.num_qubits
        n = qubits // 2
        bits = (np.arange(2**qubits)[:, None] >> np.arange(qubits)[None, :]) & 1
        density = bits[:, :n] + bits[:, n:]
        p = state.probabilities()
        mean = p @ density
        pair = p @ (density[:, :1] * density)
        result.append([float(v) for v in (pair - mean[0] * mean) / (pair[0] - mean[0] ** 2)])
    return result


def observable_spin_correlations(circuits: list[QuantumCircuit]) -> list[list[list[float]]]:
    """Per occupation, the matrix C(i, j) = <S_i S_j> - <S_i><S_j> with S = n_up - n_down, sites in snake order."""
    result = []
    for circuit in circuits:
        state = Statevector(circuit)
        qubits = state.num_qubits
        n = qubits // 2
        bits = (np.arange(2**qubits)[:, None] >> np.arange(qubits)[None, :]) & 1
        spin = bits[:, :n] - bits[:, n:]
        p = state.probabilities()
        mean = p @ spin
        result.append((np.einsum("k,ki,kj->ij", p, spin, spin) - np.outer(mean, mean)).tolist())
    return result


HUBBARD_HVA_VQE = BackgroundPipeline(
    backend="qiskit", name="hubbard_hva_vqe",
    model="fermi_hubbard", lattice="open_grid", method="vqe",
    params={"columns": 1, "rows": 4, "t": 1.0, "U": 4.0, "occupations": [1, 2, 3, 4], "restarts": 2, "seed": 3},
    steps=(
        BackgroundStep("lattice", lattice_hubbard_snake, "lattice"),
        BackgroundStep("lattice", lattice_hopping_orbitals, "orbitals"),
        BackgroundStep("hamiltonian", hamiltonian_hubbard_jw, "hamiltonian"),
        BackgroundStep("ansatz", ansatz_hva_generators, "generators"),
        BackgroundStep("initialstate", initialstate_slater_circuits, "initial_states"),
        BackgroundStep("effector", effector_vqe_angles, "angles"),
        BackgroundStep("circuit", circuit_hva_ansatz, "circuits"),
        BackgroundStep("observable", observable_energies, "energies"),
        BackgroundStep("observable", observable_chemical_potentials, "chemical_potentials"),
        BackgroundStep("observable", observable_charge_correlations, "charge_correlations"),
        BackgroundStep("observable", observable_spin_correlations, "spin_correlations"),
    ),
)
