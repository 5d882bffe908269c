"""The lowest energy in each lattice-momentum sector of the Bose-Hubbard ring, independent of NetKet.

H = -t sum_i (b+_i b_{i+1} + h.c.) + (U/2) sum_i n_i (n_i - 1) on L sites with periodic boundaries and
N bosons, no cap on the occupation of a site.  The basis is every occupation vector (n_0, ..., n_{L-1})
with sum N, the translation T moves the boson on site i to site i + 1, and a momentum state is built
on the representative r of each translation orbit (the orbit member that comes first in the basis):

    |r, k> = sqrt(p_r) / L sum_{j=0}^{L-1} e^{-ikj} T^j |r>,   T |r, k> = e^{ik} |r, k>,

with p_r the orbit length; it exists only if k p_r is a multiple of 2 pi.  H commutes with T, so writing
H|r> = sum_s h_sr |s> and s = T^{l_s} r_s (r_s the representative of s),

    <r', k| H |r, k> = sum_{s: r_s = r'} h_sr e^{i k l_s} sqrt(p_r / p_r'),

which is the textbook construction (Sandvik, AIP Conf. Proc. 1297, 135 (2010)) written
out with a different code path from the library's projection onto the momentum eigenspaces.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh


def fock_basis(L: int, N: int) -> np.ndarray:
    """Every occupation vector of N bosons on L sites, one row each, by stars and bars: the L - 1 bars
    placed among N + L - 1 slots split the N stars into the L occupations.  C(N + L - 1, N) rows."""
    bars = np.array(list(combinations(range(N + L - 1), L - 1)), dtype=np.int64).reshape(-1, L - 1)
    edges = np.hstack([np.full((len(bars), 1), -1), bars, np.full((len(bars), 1), N + L - 1)])
    return np.diff(edges, axis=1) - 1


def _codes(states: np.ndarray, N: int) -> np.ndarray:
    """Each occupation vector as one integer (base N + 1): the lookup key of the basis."""
    return states @ (N + 1) ** np.arange(states.shape[1], dtype=np.int64)


def hamiltonian_entries(states: np.ndarray, t: float, U: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """H in the occupation basis as (row, column, value) triples: h_sr = <s|H|r> for basis rows s, r.

    b+_sink b_source takes one boson from ``source`` to ``sink`` with amplitude sqrt(n_source (n_sink + 1))."""
    L, N = states.shape[1], int(states[0].sum())
    codes = _codes(states, N)
    order = np.argsort(codes)
    everyone = np.arange(len(states))
    rows, cols, values = [everyone], [everyone], [0.5 * U * (states * (states - 1)).sum(axis=1)]
    for i in range(L):
        for source, sink in ((i, (i + 1) % L), ((i + 1) % L, i)):
            occupied = np.flatnonzero(states[:, source] > 0)
            moved = states[occupied].copy()
            moved[:, source] -= 1
            moved[:, sink] += 1
            rows.append(order[np.searchsorted(codes, _codes(moved, N), sorter=order)])
            cols.append(occupied)
            values.append(-t * np.sqrt(states[occupied, source] * (states[occupied, sink] + 1.0)))
    return np.concatenate(rows), np.concatenate(cols), np.concatenate(values)


def translation_orbits(states: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For every basis state s: its representative r_s (basis row), the shift l_s with s = T^{l_s} r_s,
    and its orbit length p_s (the smallest p > 0 with T^p s = s)."""
    L, N = states.shape[1], int(states[0].sum())
    codes = _codes(states, N)
    order = np.argsort(codes)
    # shifted[j, s] = T^j s; T moves the boson on site i to site i + 1: np.roll by one site
    shifted = np.stack([order[np.searchsorted(codes, _codes(np.roll(states, j, axis=1), N), sorter=order)]
                        for j in range(L)])
    everyone = np.arange(len(states))
    first = shifted.argmin(axis=0)
    returns = np.vstack([shifted[1:] == everyone, np.ones((1, len(states)), dtype=bool)])
    return shifted[first, everyone], (-first) % L, returns.argmax(axis=0) + 1


def momentum_blocks(L: int, N: int, t: float, U: float) -> list[sparse.csr_matrix]:
    """H in the momentum-k basis of orbit representatives for k = 2 pi m / L, m = 0, ..., L - 1 (see the
    module docstring)."""
    states = fock_basis(L, N)
    return sector_blocks(states, hamiltonian_entries(states, t, U))


def sector_blocks(states: np.ndarray, entries: tuple[np.ndarray, np.ndarray, np.ndarray]
                  ) -> list[sparse.csr_matrix]:
    """The momentum blocks of any translation-invariant H given as (row, column, value) triples on a basis of
    occupation vectors closed under translation (bosons here, spins as hard-core bosons in spin_momentum.py)."""
    L = states.shape[1]
    target, source, h = entries
    representative, shift, period = translation_orbits(states)
    is_representative = representative == np.arange(len(states))
    blocks = []
    for m in range(L):
        members = np.flatnonzero(is_representative & ((m * period) % L == 0))
        column = np.full(len(states), -1)
        column[members] = np.arange(len(members))
        keep = (column[source] >= 0) & (column[representative[target]] >= 0)
        r, s = source[keep], target[keep]
        values = h[keep] * np.exp(2j * np.pi * m / L * shift[s]) * np.sqrt(period[r] / period[representative[s]])
        blocks.append(sparse.csr_matrix((values, (column[representative[s]], column[r])),
                                        shape=(len(members), len(members))))
    return blocks


def lowest_energy(block: sparse.spmatrix) -> float:
    """The lowest eigenvalue: dense up to 64 states, Lanczos (ARPACK) above."""
    if block.shape[0] <= 64:
        return float(np.linalg.eigvalsh(block.toarray())[0])
    return float(eigsh(block, k=1, which="SA", return_eigenvectors=False)[0])


def lowest_energies_by_momentum(L: int, N: int, t: float, U: float) -> list[float]:
    """The lowest energy at k = 2 pi m / L for m = 0, ..., L - 1, in m order (N >= 1, L >= 3)."""
    return [lowest_energy(block) for block in momentum_blocks(L, N, t, U)]


def free_boson_lowest_energies(L: int, N: int, t: float) -> list[float]:
    """The U = 0 closed form: N bosons fill the single-particle levels -2t cos(2 pi q / L) with total
    momentum sum q = m (mod L); the cheapest filling for each m, by adding one boson at a time."""
    levels = -2 * t * np.cos(2 * np.pi * np.arange(L) / L)
    best = np.full(L, np.inf)
    best[0] = 0.0
    for _ in range(N):
        best = np.array([min(best[(m - q) % L] + levels[q] for q in range(L)) for m in range(L)])
    return [float(e) for e in best]


def ground_energy(L: int, N: int, t: float, U: float) -> float:
    """The lowest energy of the whole fixed-N space, from its full sparse matrix (no momentum resolution)."""
    states = fock_basis(L, N)
    rows, cols, values = hamiltonian_entries(states, t, U)
    return lowest_energy(sparse.csr_matrix((values, (rows, cols)), shape=(len(states), len(states))))
