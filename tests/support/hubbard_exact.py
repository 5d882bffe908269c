"""Exact diagonalisation of the open Hubbard chain in a harmonic trap, independent of TeNPy.

With the up orbitals ordered before the down orbitals, a nearest-neighbour hop of one species passes
no other orbital of that species, so the Hamiltonian in the fixed (N_up, N_down) sector is
H_up x 1 + 1 x H_down + U sum_i n_i,up n_i,down with sign-free hopping matrices.  The trap is
V_i = (4 A / L^2) (i - (L - 1) / 2)^2, the convention of the trapped-Hubbard test fixture.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh


def trap(L: int, A: float) -> np.ndarray:
    return 4 * A / L**2 * (np.arange(L) - (L - 1) / 2) ** 2


def single_particle_hamiltonian(L: int, t: float, A: float) -> np.ndarray:
    hopping = -t * (np.eye(L, k=1) + np.eye(L, k=-1))
    return hopping + np.diag(trap(L, A))


def free_fermion_density(L: int, t: float, A: float, N_up: int, N_down: int) -> np.ndarray:
    """n_i = sum over the lowest N_sigma orbitals of |phi_k(i)|^2, summed over both species."""
    _, orbitals = np.linalg.eigh(single_particle_hamiltonian(L, t, A))
    return (orbitals[:, :N_up] ** 2).sum(axis=1) + (orbitals[:, :N_down] ** 2).sum(axis=1)


def _species(L: int, N: int, t: float, A: float) -> tuple[sparse.csr_matrix, np.ndarray]:
    """One species' hopping-plus-trap matrix in its N-particle space, and the occupations of each state."""
    states = [sum(1 << i for i in sites) for sites in combinations(range(L), N)]
    index = {state: k for k, state in enumerate(states)}
    occupations = np.array([[(state >> i) & 1 for i in range(L)] for state in states], dtype=float)
    rows, cols, values = [], [], []
    for k, state in enumerate(states):
        for i in range(L - 1):
            if (state >> i) & 1 != (state >> (i + 1)) & 1:
                rows.append(index[state ^ (1 << i) ^ (1 << (i + 1))])
                cols.append(k)
                values.append(-t)
    hopping = sparse.csr_matrix((values, (rows, cols)), shape=(len(states), len(states)))
    return hopping + sparse.diags(occupations @ trap(L, A)), occupations


def exact_ground_state(L: int, t: float, U: float, A: float, N_up: int, N_down: int) -> tuple[float, np.ndarray]:
    """Ground-state energy and density profile n_i = <n_i,up + n_i,down>."""
    h_up, n_up = _species(L, N_up, t, A)
    h_down, n_down = _species(L, N_down, t, A)
    interaction = sparse.diags(U * np.einsum("ai,bi->ab", n_up, n_down).ravel())
    hamiltonian = sparse.kron(h_up, sparse.identity(h_down.shape[0])) \
        + sparse.kron(sparse.identity(h_up.shape[0]), h_down) + interaction
    energies, vectors = eigsh(hamiltonian.tocsc(), k=1, which="SA")
    weights = np.abs(vectors[:, 0].reshape(h_up.shape[0], h_down.shape[0])) ** 2
    density = weights.sum(axis=1) @ n_up + weights.sum(axis=0) @ n_down
    return float(energies[0]), density
