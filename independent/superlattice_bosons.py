"""The open super-lattice Bose-Hubbard chain (Grusdt, Hoening & Fleischhauer, PRL 110, 260405 (2013)), exactly,
without TeNPy: exact diagonalisation in the occupation basis, and the hard-core limit as free fermions.

    K = - sum_j t_j (b+_j b_{j+1} + h.c.) + (U/2) sum_j n_j (n_j - 1) + sum_j (eps_j - mu) n_j,

sites labelled j = first_site, ..., first_site + L - 1, the bond (j, j+1) hopping t1 for odd j and t2 for even j
(the paper's Eq. (1)), eps_j = omega (j + 1/2)^2 + step for step_first <= j <= step_last (its Fig. 3's trap and
potential step).  A site holds at most n_max bosons: the cap is part of the model (DMRG needs one too), so the
comparison with the library is exact at any cap.

Hard-core bosons (n_max = 1) on an open chain with nearest-neighbour hopping are free fermions by the
Jordan-Wigner transformation, the string cancelling on every bond: their densities are those of the N lowest
orbitals of the one-body matrix (canonical), or of every orbital below mu (grand canonical).  That limit holds
at any length, so it checks a long chain where exact diagonalisation cannot.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import product

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh


@dataclass(frozen=True)
class SuperlatticeChain:
    """The chain's one-body data: L sites, the bond hoppings t_j (L - 1) and the site potentials eps_j (L)."""

    hoppings: np.ndarray
    potential: np.ndarray
    U: float
    n_max: int

    @property
    def L(self) -> int:
        return len(self.potential)


def superlattice_chain(L: int, t1: float, t2: float, U: float, n_max: int, first_site: int = 0, omega: float = 0.0,
                       step: float = 0.0, step_first: int = 0, step_last: int = -1) -> SuperlatticeChain:
    """The chain of the paper's Eq. (1) with its Fig. 3 trap and step (none by default)."""
    labels = np.arange(first_site, first_site + L)
    hoppings = np.where(labels[:-1] % 2 == 1, t1, t2).astype(float)
    inside = (labels >= step_first) & (labels <= step_last)
    potential = omega * (labels + 0.5) ** 2 + step * inside
    return SuperlatticeChain(hoppings=hoppings, potential=potential.astype(float), U=U, n_max=n_max)


def capped_basis(L: int, n_max: int) -> np.ndarray:
    """Every occupation vector with 0 <= n_j <= n_max, one row each: (n_max + 1)^L rows."""
    return np.array(list(product(range(n_max + 1), repeat=L)), dtype=np.int64).reshape(-1, L)


def sector_hamiltonian(chain: SuperlatticeChain, states: np.ndarray) -> sparse.csr_matrix:
    """H (without mu) on the occupation vectors ``states``, all with the same N: hopping moves one boson along a
    bond with amplitude -t_j sqrt(n_source (n_sink + 1)), unless the sink is full."""
    base = chain.n_max + 1
    codes = states @ base ** np.arange(chain.L, dtype=np.int64)
    order = np.argsort(codes)
    everyone = np.arange(len(states))
    diagonal = 0.5 * chain.U * (states * (states - 1)).sum(axis=1) + states @ chain.potential
    rows, cols, values = [everyone], [everyone], [diagonal]
    for j, t in enumerate(chain.hoppings):
        for source, sink in ((j, j + 1), (j + 1, j)):
            movable = np.flatnonzero((states[:, source] > 0) & (states[:, sink] < chain.n_max))
            moved = states[movable].copy()
            moved[:, source] -= 1
            moved[:, sink] += 1
            target = moved @ base ** np.arange(chain.L, dtype=np.int64)
            rows.append(order[np.searchsorted(codes, target, sorter=order)])
            cols.append(movable)
            values.append(-t * np.sqrt(states[movable, source] * (states[movable, sink] + 1.0)))
    size = len(states)
    return sparse.csr_matrix((np.concatenate(values), (np.concatenate(rows), np.concatenate(cols))),
                             shape=(size, size))


def _lowest(hamiltonian: sparse.csr_matrix) -> tuple[float, np.ndarray]:
    if hamiltonian.shape[0] <= 64:
        energies, vectors = np.linalg.eigh(hamiltonian.toarray())
    else:
        energies, vectors = eigsh(hamiltonian, k=1, which="SA", tol=1e-12)
    lowest = int(np.argmin(energies))
    return float(energies[lowest]), vectors[:, lowest]


@dataclass(frozen=True)
class BosonGroundState:
    """A ground state's energy (with -mu N where grand canonical), boson number and density."""

    energy: float
    N: int
    density: list[float]


def canonical_ground_state(chain: SuperlatticeChain, N: int) -> BosonGroundState:
    """The lowest state with exactly N bosons."""
    basis = capped_basis(chain.L, chain.n_max)
    states = basis[basis.sum(axis=1) == N]
    if len(states) == 0:
        raise ValueError(f"{N} bosons do not fit on {chain.L} sites of at most {chain.n_max}")
    energy, vector = _lowest(sector_hamiltonian(chain, states))
    return BosonGroundState(energy=energy, N=N, density=[float(v) for v in (vector ** 2) @ states])


def grand_canonical_ground_state(chain: SuperlatticeChain, mu: float) -> BosonGroundState:
    """The lowest state of K = H - mu N over every boson number: the sectors do not mix, so it is the best
    sector's ground state, its energy E(N) - mu N."""
    best = min((canonical_ground_state(chain, N) for N in range(chain.L * chain.n_max + 1)),
               key=lambda state: state.energy - mu * state.N)
    return BosonGroundState(energy=best.energy - mu * best.N, N=best.N, density=best.density)


def one_body_matrix(chain: SuperlatticeChain) -> np.ndarray:
    """The hopping-plus-potential matrix of one particle: -t_j between j and j + 1, eps_j on the diagonal."""
    return np.diag(chain.potential) - np.diag(chain.hoppings, 1) - np.diag(chain.hoppings, -1)


def hard_core_density(chain: SuperlatticeChain, N: int | None = None, mu: float | None = None) -> list[float]:
    """Hard-core boson densities as free fermions: the N lowest orbitals, or (grand canonical) every orbital
    below mu.  Exactly one of N and mu."""
    if (N is None) == (mu is None):
        raise ValueError("give exactly one of N (canonical) and mu (grand canonical)")
    levels, orbitals = np.linalg.eigh(one_body_matrix(chain))
    filled = N if N is not None else int(np.sum(levels < mu))
    return [float(v) for v in (orbitals[:, :filled] ** 2).sum(axis=1)]


def participation_length(density: list[float], sign: int) -> float:
    """(sum_j Delta n_j)^2 / sum_j Delta n_j^2 with Delta n_j = |n_j - 1/2| where sign (n_j - 1/2) > 0, else 0: the
    paper's localisation length of the particle (sign +1) or hole (sign -1) edge state; 0 where nothing is in excess."""
    excess = [abs(n - 0.5) for n in density if sign * (n - 0.5) > 0]
    squares = sum(value * value for value in excess)
    return sum(excess) ** 2 / squares if squares > 0 else 0.0


def edge_state_lengths(chain: SuperlatticeChain, N: int) -> tuple[float, float, float]:
    """mu_e = E(N + 1) - E(N), xi_p of the N + 1 state and xi_h of the N state, by exact diagonalisation (or, at
    n_max = 1, free fermions: mu_e is then the (N + 1)-th orbital energy)."""
    if chain.n_max == 1:
        levels = np.linalg.eigvalsh(one_body_matrix(chain))
        hole, particle = hard_core_density(chain, N=N), hard_core_density(chain, N=N + 1)
        return float(levels[N]), participation_length(particle, 1), participation_length(hole, -1)
    hole, particle = canonical_ground_state(chain, N), canonical_ground_state(chain, N + 1)
    return (particle.energy - hole.energy, participation_length(particle.density, 1),
            participation_length(hole.density, -1))
