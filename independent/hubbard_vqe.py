"""One layer of the Hamiltonian variational ansatz for the open Fermi-Hubbard model (Stanisic et al., Nat. Commun.
13, 5743 (2022)) in plain numpy and scipy, no Qiskit: fermion operators on occupation bit strings of one
(N_up, N_down) sector with their own signs, the U = 0 Slater determinant, the ansatz by exact exponentials of its
generators, BFGS from given starts, and exact diagonalisation of the sector for the variational bound.

Mode m < n is site m spin up, mode n + m is site m spin down (sites in the paper's snake order); a basis state is
c^dag_{m1} c^dag_{m2} ... |0> with m1 < m2 < ..., so c^dag_a c_b picks up (-1) per occupied mode between a and b.
"""

from __future__ import annotations

import itertools
from typing import Any

import numpy as np
from scipy.optimize import minimize
from scipy.sparse import csr_matrix
from scipy.sparse.linalg import eigsh, expm_multiply


def snake(columns: int, rows: int) -> tuple[list[tuple[int, int]], list[list[tuple[int, int]]]]:
    """Sites (column, row) from 1 in snake order, and the ansatz's hopping groups as pairs of snake positions: rungs
    of a ladder, the legs leaving odd rows, the legs leaving even rows."""
    sites = [(c, r) for r in range(1, rows + 1) for c in (range(1, columns + 1) if r % 2 else range(columns, 0, -1))]
    at = {site: k for k, site in enumerate(sites)}
    rungs = [tuple(sorted((at[(1, r)], at[(2, r)]))) for r in range(1, rows + 1)] if columns == 2 else []
    legs = [[tuple(sorted((at[(c, r)], at[(c, r + 1)]))) for c in range(1, columns + 1) for r in range(start, rows, 2)]
            for start in (1, 2)]
    return sites, [group for group in ([rungs] if rungs else []) + legs if group]


class Sector:
    """The basis states of N_up up and N_down down fermions on n sites, and operators on them."""

    def __init__(self, n: int, up: int, down: int) -> None:
        self.n = n
        self.states = [sum(1 << m for m in ups) | sum(1 << (m + n) for m in downs)
                       for ups in itertools.combinations(range(n), up)
                       for downs in itertools.combinations(range(n), down)]
        self.index = {state: k for k, state in enumerate(self.states)}

    def hopping(self, bonds: list[tuple[int, int]], t: float, spins: tuple[int, ...] = (0, 1)) -> csr_matrix:
        """-t sum over the bonds and the given spins (0 up, 1 down) of (c^dag_a c_b + c^dag_b c_a)."""
        rows, columns, values = [], [], []
        for k, state in enumerate(self.states):
            for shift in (spin * self.n for spin in spins):
                for i, j in bonds:
                    for a, b in ((i + shift, j + shift), (j + shift, i + shift)):
                        if state >> b & 1 and not state >> a & 1:
                            low, high = sorted((a, b))
                            between = bin(state & ((1 << high) - 1) & ~((1 << (low + 1)) - 1)).count("1")
                            rows.append(self.index[state ^ (1 << b) ^ (1 << a)])
                            columns.append(k)
                            values.append(-t * (-1) ** between)
        return csr_matrix((values, (rows, columns)), shape=(len(self.states),) * 2)

    def double_occupancy(self) -> csr_matrix:
        """sum_i n_i,up n_i,down (diagonal)."""
        counts = [bin(state & (state >> self.n) & ((1 << self.n) - 1)).count("1") for state in self.states]
        return csr_matrix((counts, (range(len(counts)), range(len(counts)))), shape=(len(counts),) * 2)

    def occupations(self) -> np.ndarray:
        """(states x modes) 0/1 occupations."""
        return (np.array(self.states)[:, None] >> np.arange(2 * self.n)[None, :]) & 1

    def slater(self, bonds: list[tuple[int, int]], t: float, up: int, down: int) -> np.ndarray:
        """The U = 0 ground state: the lowest orbitals of each spin filled, a determinant per spin."""
        hopping = np.zeros((self.n, self.n))
        for a, b in bonds:
            hopping[a, b] = hopping[b, a] = -t
        return self.determinant(np.linalg.eigh(hopping)[1], up, down)

    def determinant(self, orbitals: np.ndarray, up: int, down: int,
                    orbitals_down: np.ndarray | None = None) -> np.ndarray:
        """The Slater determinant of the first ``up`` orbitals (columns) spin up and the first ``down`` spin down (of
        ``orbitals_down`` where the spins fill different orbitals)."""
        occupied, second = self.occupations(), orbitals if orbitals_down is None else orbitals_down
        amplitudes = [np.linalg.det(orbitals[np.ix_(np.flatnonzero(row[:self.n]), range(up))]) *
                      np.linalg.det(second[np.ix_(np.flatnonzero(row[self.n:]), range(down))]) for row in occupied]
        return np.asarray(amplitudes, dtype=complex)


def optimise(columns: int, rows: int, t: float, U: float, occupation: int, restarts: int,
             seed: int) -> tuple[float, np.ndarray, float, Sector]:
    """(lowest ansatz energy, its state, the sector's exact ground energy, the sector) for one occupation: BFGS from
    ``restarts`` starts uniform in [-1, 1] per angle, numpy's default_rng(seed) (the library's definition)."""
    sites, groups = snake(columns, rows)
    n, up, down = len(sites), (occupation + 1) // 2, occupation // 2
    sector = Sector(n, up, down)
    bonds = [bond for group in groups for bond in group]
    hamiltonian = sector.hopping(bonds, t) + U * sector.double_occupancy()
    generators = [sector.double_occupancy()] + [sector.hopping(group, 1.0) for group in groups]
    start = sector.slater(bonds, t, up, down)

    def state(theta: np.ndarray) -> np.ndarray:
        psi = start
        for generator, angle in zip(generators, theta):
            psi = expm_multiply(-1j * angle * generator, psi)
        return psi

    def energy(theta: np.ndarray) -> float:
        psi = state(theta)
        return float(np.vdot(psi, hamiltonian @ psi).real)

    starts = np.random.default_rng(seed).uniform(-1.0, 1.0, size=(restarts, len(generators)))
    best = min((minimize(energy, guess, method="BFGS") for guess in starts), key=lambda end: end.fun)
    exact = float(np.linalg.eigvalsh(hamiltonian.toarray())[0]) if len(sector.states) < 3 else \
        float(eigsh(hamiltonian, k=1, which="SA", tol=1e-12)[0][0])
    return best.fun, state(best.x), exact, sector


def vqe_results(params: dict[str, Any]) -> dict[str, Any]:
    """Energies, chemical potentials, charge correlations C(1, i) and spin correlation matrices per occupation, and
    the exact ground energies, for the library's parameters (columns, rows, t, U, occupations, restarts, seed)."""
    found: dict[str, list] = {"energies": [], "exact_energies": [], "charge_correlations": [], "spin_correlations": []}
    for occupation in params["occupations"]:
        energy, psi, exact, sector = optimise(params["columns"], params["rows"], params["t"], params["U"], occupation,
                                              params["restarts"], params["seed"])
        n, p = sector.n, np.abs(psi) ** 2
        occupied = sector.occupations()
        density, spin = occupied[:, :n] + occupied[:, n:], occupied[:, :n] - occupied[:, n:]
        mean, pair = p @ density, p @ (density[:, :1] * density)
        found["energies"].append(energy)
        found["exact_energies"].append(exact)
        found["charge_correlations"].append(((pair - mean[0] * mean) / (pair[0] - mean[0] ** 2)).tolist())
        spin_mean = p @ spin
        found["spin_correlations"].append((np.einsum("k,ki,kj->ij", p, spin, spin)
                                           - np.outer(spin_mean, spin_mean)).tolist())
    energies = dict(zip(params["occupations"], found["energies"])) | {0: 0.0}
    found["chemical_potentials"] = [energies[N] - energies[N - 1] for N in params["occupations"]]
    return found
