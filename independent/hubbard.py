"""Exact diagonalisation of the open Hubbard chain and two-leg ladder in a harmonic trap, independent of TeNPy.

With the up orbitals ordered before the down orbitals, a hop of one species passes only orbitals of
that species, so the Hamiltonian in the fixed (N_up, N_down) sector is
H_up x 1 + 1 x H_down + U sum_i n_i,up n_i,down, each hopping matrix with its Jordan-Wigner signs
(none on a chain; on the ladder a leg hop passes the rung partner).  The trap is
V_i = (4 A / L^2) (i - (L - 1) / 2)^2, the convention of the trapped-Hubbard test fixture.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import scipy.sparse as sparse
from scipy.linalg import eigh_tridiagonal
from scipy.sparse.linalg import LinearOperator, eigsh


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


def free_fermion_pair_correlation(L: int, t: float, A: float, N_up: int, N_down: int) -> np.ndarray:
    """O(i, j) without interaction, by Wick's theorem: G_up(i, j) G_down(i, j), each species' one-body density
    matrix G(i, j) = <c_i^dag c_j> summed over its lowest N_sigma orbitals of the trapped chain."""
    _, orbitals = np.linalg.eigh(single_particle_hamiltonian(L, t, A))
    return (orbitals[:, :N_up] @ orbitals[:, :N_up].T) * (orbitals[:, :N_down] @ orbitals[:, :N_down].T)


def free_fermion_ladder_pair_correlation(L: int, t: float, N: int) -> list[float]:
    """D_xx(l) on the ladder of L rungs without interaction, N fermions of each spin, rungs placed as in
    exact_ladder_pair_correlation.  By Wick's theorem each term <c_b,dn c_a,up c_c,up^dag c_d,dn^dag> of it is
    (delta_ac - G_ca)(delta_bd - G_db), with G the one-body density matrix over the N lowest orbitals."""
    _, orbitals = np.linalg.eigh(hopping_matrix(ladder_bonds(L), 2 * L, t))
    hole = np.eye(2 * L) - orbitals[:, :N] @ orbitals[:, :N].T

    def rung(x: int) -> list[tuple[int, int]]:
        return [(2 * x, 2 * x + 1), (2 * x + 1, 2 * x)]

    placements = [((L - 1 - l) // 2, (L - 1 - l) // 2 + l) for l in range(1, L)]
    return [float(sum(hole[a, c] * hole[b, d] for a, b in rung(i) for c, d in rung(j))) for i, j in placements]


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


def _transfer(occupations: np.ndarray, i: int, j: int) -> sparse.csr_matrix:
    """a_i^dag a_j in one species' N-particle space (rows of ``occupations``), with its Jordan-Wigner sign
    (-1)^(occupied orbitals strictly between i and j)."""
    index = {tuple(row): k for k, row in enumerate(occupations.astype(int))}
    low, high = min(i, j), max(i, j)
    rows, cols, values = [], [], []
    for k, row in enumerate(occupations.astype(int)):
        if row[j] and (i == j or not row[i]):
            moved = row.copy()
            moved[j], moved[i] = 0, 1
            rows.append(index[tuple(moved)])
            cols.append(k)
            values.append((-1.0) ** row[low + 1:high].sum())
    return sparse.csr_matrix((values, (rows, cols)), shape=(len(occupations), len(occupations)))


@dataclass(frozen=True)
class SectorGroundState:
    """The ground state in a fixed (N_up, N_down) sector, as its real amplitudes psi(a, b) on occupation-basis
    states (a an up, b a down configuration): row a of ``up`` and row b of ``down`` hold the occupations."""

    energy: float
    amplitudes: np.ndarray
    up: np.ndarray
    down: np.ndarray

    @property
    def weights(self) -> np.ndarray:
        """|psi(a, b)|^2: all that observables diagonal in the occupations need."""
        return self.amplitudes ** 2

    def onsite_pair_correlation(self) -> np.ndarray:
        """O(i, j) = <c_i,down^dag c_i,up^dag c_j,up c_j,down> on every pair of orbitals.

        With the up orbitals first, c_j,up c_j,down = a_j,up (-1)^N_up x a_j,down, and the parity factors of
        the pair and its adjoint cancel: O(i, j) = <(a_i^dag a_j)_up x (a_i^dag a_j)_down>."""
        n_orbitals = self.up.shape[1]
        correlation = np.empty((n_orbitals, n_orbitals))
        for i in range(n_orbitals):
            for j in range(n_orbitals):
                moved = _transfer(self.up, i, j) @ self.amplitudes @ _transfer(self.down, i, j).T
                correlation[i, j] = float(np.sum(self.amplitudes * moved))
        return correlation

    def pair_correlation(self, a: int, b: int, c: int, d: int) -> float:
        """<P(a, b) P^dag(c, d)> with P^dag(c, d) = c_c,up^dag c_d,dn^dag.

        With the up orbitals first, P(a, b) P^dag(c, d) = (a_a a_c^dag)_up x (a_b a_d^dag)_dn (the parity factors
        cancel), and a_a a_c^dag = delta_ac - a_c^dag a_a."""
        up = (a == c) * sparse.identity(len(self.up)) - _transfer(self.up, c, a)
        down = (b == d) * sparse.identity(len(self.down)) - _transfer(self.down, d, b)
        return float(np.sum(self.amplitudes * (up @ self.amplitudes @ down.T)))

    def rung_pair_correlation(self, i: int, j: int) -> float:
        """D_xx(i, j) = <Delta_i Delta_j^dag> on a ladder (orbital 2 x + y), the rung singlet
        Delta_j^dag = c_j1,up^dag c_j2,dn^dag - c_j1,dn^dag c_j2,up^dag = P^dag(j1, j2) + P^dag(j2, j1)."""
        legs = [(2 * i, 2 * i + 1), (2 * i + 1, 2 * i)]
        return sum(self.pair_correlation(a, b, c, d) for a, b in legs
                   for c, d in [(2 * j, 2 * j + 1), (2 * j + 1, 2 * j)])

    def densities(self) -> tuple[np.ndarray, np.ndarray]:
        """<n_k,up> and <n_k,down> on every orbital k."""
        return self.weights.sum(axis=1) @ self.up, self.weights.sum(axis=0) @ self.down

    def magnetisation_correlation(self, k: int, m: int) -> float:
        """<M_k M_m> with M = n_up - n_down (not connected, no factor 1/2)."""
        w_up, w_down = self.weights.sum(axis=1), self.weights.sum(axis=0)
        up_up = w_up @ (self.up[:, k] * self.up[:, m])
        down_down = w_down @ (self.down[:, k] * self.down[:, m])
        up_down = self.up[:, k] @ self.weights @ self.down[:, m] + self.up[:, m] @ self.weights @ self.down[:, k]
        return float(up_up + down_down - up_down)


def exact_sector_ground_state(bonds: list[tuple[int, int]], potential: np.ndarray, t: float, U: float, N_up: int,
                              N_down: int) -> SectorGroundState:
    """The ground state of a Hubbard model on the bonds with N_up up and N_down down fermions."""
    h_up, n_up = _species(bonds, potential, N_up, t)
    h_down, n_down = _species(bonds, potential, N_down, t)
    shape = (h_up.shape[0], h_down.shape[0])
    interaction = U * n_up @ n_down.T

    def hamiltonian(vector: np.ndarray) -> np.ndarray:
        """H_up x 1 + 1 x H_down + U sum_i n_i,up n_i,down on psi(a, b), without storing the product matrix."""
        psi = vector.reshape(shape)
        return (h_up @ psi + (h_down @ psi.T).T + interaction * psi).ravel()

    size = shape[0] * shape[1]
    lowest = _lanczos_ground_state(hamiltonian, size) if size > LANCZOS_SIZE else None
    if lowest is None:
        energies, vectors = eigsh(LinearOperator((size, size), matvec=hamiltonian, dtype=float), k=1, which="SA")
        lowest = float(energies[0]), vectors[:, 0]
    return SectorGroundState(lowest[0], lowest[1].reshape(shape), n_up, n_down)


LANCZOS_SIZE = 100_000
"""Sectors larger than this use plain two-pass Lanczos (ARPACK's reorthogonalisation costs 2-3x more there)."""


def _lanczos_ground_state(matvec: Callable[[np.ndarray], np.ndarray], size: int, steps: int = 400
                          ) -> tuple[float, np.ndarray] | None:
    """The lowest eigenpair by Lanczos without reorthogonalisation: a first pass until the lowest Ritz value
    is stable to 1e-13, a second pass that rebuilds the Ritz vector.  None when the residual exceeds 1e-6
    (the caller falls back to ARPACK)."""
    start = np.random.default_rng(0).standard_normal(size)
    start /= np.linalg.norm(start)
    alphas: list[float] = []
    betas: list[float] = []
    previous, vector, energy = np.zeros(size), start, np.inf
    for step in range(steps):
        w = matvec(vector)
        alphas.append(float(vector @ w))
        w -= alphas[-1] * vector + (betas[-1] if betas else 0.0) * previous
        if step % 5 == 4:
            ritz = eigh_tridiagonal(np.array(alphas), np.array(betas), select="i", select_range=(0, 0))[0][0]
            if abs(ritz - energy) < 1e-13:
                break
            energy = ritz
        betas.append(float(np.linalg.norm(w)))
        previous, vector = vector, w / betas[-1]
    values, coefficients = eigh_tridiagonal(np.array(alphas), np.array(betas[:len(alphas) - 1]), select="i",
                                            select_range=(0, 0))
    previous, vector, ground = np.zeros(size), start, coefficients[0, 0] * start
    for step in range(len(alphas) - 1):
        w = matvec(vector) - alphas[step] * vector - (betas[step - 1] if step else 0.0) * previous
        previous, vector = vector, w / betas[step]
        ground += coefficients[step + 1, 0] * vector
    ground /= np.linalg.norm(ground)
    if not np.linalg.norm(matvec(ground) - values[0] * ground) <= 1e-6:  # also a breakdown's nan
        return None
    return float(values[0]), ground


def exact_lattice_ground_state(bonds: list[tuple[int, int]], potential: np.ndarray, t: float, U: float, N_up: int,
                               N_down: int) -> tuple[float, np.ndarray]:
    """Ground-state energy and density profile n_k = <n_k,up + n_k,down> of a Hubbard model on the bonds."""
    state = exact_sector_ground_state(bonds, potential, t, U, N_up, N_down)
    up, down = state.densities()
    return state.energy, up + down


def exact_ground_state(L: int, t: float, U: float, A: float, N_up: int, N_down: int) -> tuple[float, np.ndarray]:
    """The open chain in the trap: ground-state energy and density profile."""
    return exact_lattice_ground_state(chain_bonds(L), trap(L, A), t, U, N_up, N_down)


def exact_ladder_ground_state(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                              ) -> tuple[float, np.ndarray]:
    """The two-leg ladder of L rungs, both legs in the same trap along the legs, sites in TeNPy's order."""
    return exact_lattice_ground_state(ladder_bonds(L), np.repeat(trap(L, A), 2), t, U, N_up, N_down)


def exact_spin_densities(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                         ) -> tuple[float, np.ndarray, np.ndarray]:
    """The open chain in the trap: ground-state energy, <n_i,up> and <n_i,down>."""
    state = exact_sector_ground_state(chain_bonds(L), trap(L, A), t, U, N_up, N_down)
    return (state.energy, *state.densities())


def exact_onsite_pair_correlation(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                                  ) -> tuple[float, np.ndarray]:
    """The open chain in the trap: ground-state energy and O(i, j) = <c_i,dn^dag c_i,up^dag c_j,up c_j,dn>."""
    state = exact_sector_ground_state(chain_bonds(L), trap(L, A), t, U, N_up, N_down)
    return state.energy, state.onsite_pair_correlation()


def exact_ladder_pair_correlation(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                                  ) -> tuple[float, list[float]]:
    """The two-leg ladder of L rungs: ground-state energy and D_xx(l) = <Delta_i Delta_j^dag> for l = 1 .. L - 1,
    rungs i = (L - 1 - l) // 2 and j = i + l (the placement of the leg spin correlation)."""
    state = exact_sector_ground_state(ladder_bonds(L), np.repeat(trap(L, A), 2), t, U, N_up, N_down)
    return state.energy, [state.rung_pair_correlation((L - 1 - l) // 2, (L - 1 - l) // 2 + l) for l in range(1, L)]


def exact_ladder_leg_correlation(L: int, t: float, U: float, A: float, N_up: int, N_down: int
                                 ) -> tuple[float, list[float]]:
    """The two-leg ladder of L rungs: ground-state energy and S11(l) = <M_(i,0) M_(j,0)> for l = 1 .. L - 1.

    M = n_up - n_down on leg 0 (site 2 x), rungs i = (L - 1 - l) // 2 and j = i + l (0-based): as
    symmetric about the centre as the integers allow (the convention of the TeNPy background)."""
    state = exact_sector_ground_state(ladder_bonds(L), np.repeat(trap(L, A), 2), t, U, N_up, N_down)
    rungs = [((L - 1 - l) // 2, (L - 1 - l) // 2 + l) for l in range(1, L)]
    return state.energy, [state.magnetisation_correlation(2 * i, 2 * j) for i, j in rungs]


def exact_ladder_spin_gap(L: int, t: float, U: float, N: int) -> float:
    """E(N + 1, N - 1) - E(N, N) on the ladder of L rungs without trap: the spin gap by sector exact diagonalisation."""
    bonds, potential = ladder_bonds(L), np.zeros(2 * L)
    return (exact_lattice_ground_state(bonds, potential, t, U, N + 1, N - 1)[0]
            - exact_lattice_ground_state(bonds, potential, t, U, N, N)[0])


def free_fermion_ladder_spin_gap(L: int, t: float, N: int) -> float:
    """The spin gap without interaction: one fermion moved from the N-th to the (N + 1)-th orbital of the ladder."""
    levels = np.linalg.eigvalsh(hopping_matrix(ladder_bonds(L), 2 * L, t))
    return float(levels[N] - levels[N - 1])

