"""The lowest energy in each lattice-momentum sector of the Heisenberg ring at zero magnetisation, independent
of NetKet: H = J sum_i sigma_i . sigma_{i+1} in the plain S^z basis (no sign rule), written as hard-core bosons
(an up spin is a boson) and block-diagonalised by bose_hubbard.sector_blocks.

sigma^x sigma^x + sigma^y sigma^y = 2 (sigma^+ sigma^- + h.c.) moves an up spin to an antiparallel neighbour with
amplitude 2J, and sigma^z sigma^z = (2 n_i - 1)(2 n_j - 1) is diagonal.  Spins on different sites commute, so the
hop carries no fermionic sign, across the ring's closing bond too.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np

from physvec.independent.bose_hubbard import lowest_energy, sector_blocks


def zero_magnetisation_basis(L: int) -> np.ndarray:
    """Every 0/1 vector of L sites with L/2 ones (up spins), one row each."""
    return np.array([np.isin(np.arange(L), ups) for ups in combinations(range(L), L // 2)], dtype=np.int64)


def heisenberg_entries(states: np.ndarray, J: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """H as (row, column, value) triples on the basis rows."""
    L = states.shape[1]
    index = {row.tobytes(): i for i, row in enumerate(states)}
    spins = 2 * states - 1
    everyone = np.arange(len(states))
    rows, cols, values = [everyone], [everyone], [J * sum(spins[:, i] * spins[:, (i + 1) % L] for i in range(L))]
    for i in range(L):
        j = (i + 1) % L
        flippable = np.flatnonzero(states[:, i] != states[:, j])
        swapped = states[flippable].copy()
        swapped[:, [i, j]] = swapped[:, [j, i]]
        rows.append(np.array([index[row.tobytes()] for row in swapped], dtype=np.int64))
        cols.append(flippable)
        values.append(np.full(len(flippable), 2.0 * J))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(values)


def heisenberg_lowest_energies_by_momentum(L: int, J: float) -> list[float]:
    """The lowest energy at k = 2 pi m / L for m = 0, ..., L - 1 (even L >= 4)."""
    states = zero_magnetisation_basis(L)
    return [lowest_energy(block) for block in sector_blocks(states, heisenberg_entries(states, J))]
