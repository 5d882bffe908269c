"""The modified Haldane-Shastry ring of Deng, Li and Das Sarma (PRX 7, 021021 (2017), Eq. (15)) by exact
diagonalisation, no NetKet:

    H = sum_{j<k} (1 / d_jk^2) (-sigma^x_j sigma^x_k - sigma^y_j sigma^y_k + sigma^z_j sigma^z_k),
    d_jk = (N / pi) |sin(pi (j - k) / N)|   (the chord distance, in units of the lattice spacing).

H conserves the total S^z; its ground state lies at zero magnetisation (the sector with the lowest energy is
found, not assumed: ``sector_ground_energies``).  The basis is built here from bit strings (bit j of an integer
is 1 for a down spin on site j); -(XX + YY) = -2 (S+S- + S-S+) swaps an antiparallel pair with amplitude -2.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh


def chord_couplings(N: int) -> dict[tuple[int, int], float]:
    """1 / d_jk^2 for every pair j < k of the ring."""
    return {(j, k): (np.pi / (N * np.sin(np.pi * (k - j) / N))) ** 2 for j, k in combinations(range(N), 2)}


def sector_states(N: int, downs: int) -> np.ndarray:
    """The integers with ``downs`` set bits among N, increasing."""
    return np.array(sorted(sum(1 << site for site in chosen) for chosen in combinations(range(N), downs)),
                    dtype=np.int64)


def sector_hamiltonian(N: int, downs: int) -> tuple[sparse.csr_matrix, np.ndarray]:
    """H in the sector with ``downs`` down spins, and that sector's states."""
    states = sector_states(N, downs)
    diagonal = np.zeros(len(states))
    rows, columns, values = [], [], []
    for (j, k), coupling in chord_couplings(N).items():
        bit_j, bit_k = (states >> j) & 1, (states >> k) & 1
        parallel = bit_j == bit_k
        diagonal += coupling * np.where(parallel, 1.0, -1.0)
        swapped = states[~parallel] ^ ((1 << j) | (1 << k))
        rows.append(np.flatnonzero(~parallel))
        columns.append(np.searchsorted(states, swapped))
        values.append(np.full(len(swapped), -2.0 * coupling))
    size = len(states)
    off_diagonal = sparse.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(columns))),
                                     shape=(size, size))
    return (off_diagonal + sparse.diags(diagonal)).tocsr(), states


@dataclass(frozen=True)
class GroundState:
    """The ground state of the ring at zero magnetisation and what the figures draw of it."""

    N: int
    energy: float
    states: np.ndarray
    vector: np.ndarray

    def zz_correlations(self) -> list[float]:
        """<sigma^z_0 sigma^z_j> for j = 1 .. N/2 (the ring's translation makes site 0 any site)."""
        weights = self.vector**2
        spins = 1 - 2 * ((self.states[:, None] >> np.arange(self.N)) & 1)
        return [float(weights @ (spins[:, 0] * spins[:, j])) for j in range(1, self.N // 2 + 1)]

    def xx_correlations(self) -> list[float]:
        """<sigma^x_0 sigma^x_j> for j = 1 .. N/2: sigma^x_0 sigma^x_j flips both spins, which within the sector
        connects only states where they are antiparallel, with amplitude one."""
        values = []
        for j in range(1, self.N // 2 + 1):
            antiparallel = ((self.states & 1) ^ ((self.states >> j) & 1)) == 1
            partners = np.searchsorted(self.states, self.states[antiparallel] ^ (1 | (1 << j)))
            values.append(float(self.vector[antiparallel] @ self.vector[partners]))
        return values


def ground_state(N: int) -> GroundState:
    """The zero-magnetisation ground state of the modified Haldane-Shastry ring of even N (Lanczos)."""
    if N % 2 or N < 4:
        raise ValueError("the ring needs an even number of at least four sites")
    matrix, states = sector_hamiltonian(N, N // 2)
    if len(states) <= 64:
        energies, vectors = np.linalg.eigh(matrix.toarray())
    else:
        energies, vectors = eigsh(matrix, k=1, which="SA", tol=1e-12)
    return GroundState(N, float(energies[0]), states, vectors[:, 0])


def sector_ground_energies(N: int) -> list[float]:
    """The lowest energy with 0, 1, ..., N down spins (to see where the ground state lies)."""
    lowest = []
    for downs in range(N + 1):
        matrix, states = sector_hamiltonian(N, downs)
        lowest.append(float(np.linalg.eigvalsh(matrix.toarray())[0]) if len(states) <= 64
                      else float(eigsh(matrix, k=1, which="SA", tol=1e-10, return_eigenvectors=False)[0]))
    return lowest
