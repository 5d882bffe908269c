"""Exact diagonalisation of the open Hubbard chain and two-leg ladder in a harmonic trap, independent of TeNPy.

With the up orbitals ordered before the down orbitals, a hop of one species passes only orbitals of
that species, so the Hamiltonian in the fixed (N_up, N_down) sector is
H_up x 1 + 1 x H_down + U sum_i n_i,up n_i,down, each hopping matrix with its Jordan-Wigner signs
(none on a chain; on the ladder a leg hop passes the rung partner).  The trap is
V_i = (4 A / L^2) (i - (L - 1) / 2)^2, the convention of the trapped-Hubbard test fixture.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh


def trap(L: int, A: float) -> np.ndarray:
    return 4 * A / L**2 * (np.arange(L) - (L - 1) / 2) ** 2


def hopping_matrix(bonds: list[tuple[int, int]], n_sites: int, t: float) -> np.ndarray:
    """The single-particle hopping matrix, -t on every bond."""
    matrix = np.zeros((n_sites, n_sites))
    for i, j in bonds:
        matrix[i, j] = matrix[j, i] = -t
    return matrix


def single_particle_hamiltonian(L: int, t: float, A: float) -> np.ndarray:
    return hopping_matrix(chain_bonds(L), L, t) + np.diag(trap(L, A))


def free_fermion_density(L: int, t: float, A: float, N_up: int, N_down: int) -> np.ndarray:
    """n_i = sum over the lowest N_sigma orbitals of |phi_k(i)|^2, summed over both species."""
    _, orbitals = np.linalg.eigh(single_particle_hamiltonian(L, t, A))
    return (orbitals[:, :N_up] ** 2).sum(axis=1) + (orbitals[:, :N_down] ** 2).sum(axis=1)


def chain_bonds(L: int) -> list[tuple[int, int]]:
    return [(i, i + 1) for i in range(L - 1)]


def ladder_bonds(L: int) -> list[tuple[int, int]]:
    """Two-leg ladder of L rungs with site k = 2 x + y (TeNPy's Ladder order): legs k -> k + 2, rungs 2x -> 2x + 1."""
    return [(2 * x + y, 2 * x + 2 + y) for x in range(L - 1) for y in (0, 1)] + [(2 * x, 2 * x + 1) for x in range(L)]


def _species(bonds: list[tuple[int, int]], potential: np.ndarray, N: int, t: float
             ) -> tuple[sparse.csr_matrix, np.ndarray]:
    """One species' hopping-plus-potential matrix in its N-particle space, and each state's occupations.

    A hop between orbitals i < j passes the orbitals in between: the Jordan-Wigner sign is
    (-1)^(number of them occupied)."""
    n_sites = len(potential)
    states = [sum(1 << i for i in sites) for sites in combinations(range(n_sites), N)]
    index = {state: k for k, state in enumerate(states)}
    occupations = np.array([[(state >> i) & 1 for i in range(n_sites)] for state in states], dtype=float)
    rows, cols, values = [], [], []
    for k, state in enumerate(states):
        for i, j in bonds:
            i, j = min(i, j), max(i, j)
            if (state >> i) & 1 != (state >> j) & 1:
                passed = bin(state & ((1 << j) - 1) & ~((1 << (i + 1)) - 1)).count("1")
                rows.append(index[state ^ (1 << i) ^ (1 << j)])
                cols.append(k)
                values.append(-t * (-1) ** passed)
    hopping = sparse.csr_matrix((values, (rows, cols)), shape=(len(states), len(states)))
    return hopping + sparse.diags(occupations @ potential), occupations


def exact_lattice_ground_state(bonds: list[tuple[int, int]], potential: np.ndarray, t: float, U: float, N_up: int,
                               N_down: int) -> tuple[float, np.ndarray]:
    """Ground-state energy and density profile n_k = <n_k,up + n_k,down> of a Hubbard model on the bonds."""
    h_up, n_up = _species(bonds, potential, N_up, t)
    h_down, n_down = _species(bonds, potential, N_down, t)
    interaction = sparse.diags(U * np.einsum("ai,bi->ab", n_up, n_down).ravel())
    hamiltonian = sparse.kron(h_up, sparse.identity(h_down.shape[0])) \
        + sparse.kron(sparse.identity(h_up.shape[0]), h_down) + interaction
    energies, vectors = eigsh(hamiltonian.tocsc(), k=1, which="SA")
    weights = np.abs(vectors[:, 0].reshape(h_up.shape[0], h_down.shape[0])) ** 2
    density = weights.sum(axis=1) @ n_up + weights.sum(axis=0) @ n_down
    return float(energies[0]), density


def exact_ground_state(L: int, t: float, U: float, A: float, N_up: int, N_down: int) -> tuple[float, np.ndarray]:
    """The open chain in the trap: ground-state energy and density profile."""
    return exact_lattice_ground_state(chain_bonds(L), trap(L, A), t, U, N_up, N_down)


def exact_ladder_ground_state(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                              ) -> tuple[float, np.ndarray]:
    """The two-leg ladder of L rungs, both legs in the same trap along the legs, sites in TeNPy's order."""
    return exact_lattice_ground_state(ladder_bonds(L), np.repeat(trap(L, A), 2), t, U, N_up, N_down)
