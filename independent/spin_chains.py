"""Exact ground states of spin-1/2 chains (and of the square torus): sparse Lanczos on the full space, and the
free-fermion solution of the open transverse-field Ising chain.

Operators are Pauli matrices; a Heisenberg energy in spin-operator units (S = sigma/2) is a quarter of
the Pauli one.  Site 0 is the leftmost tensor factor.
"""

from __future__ import annotations

from functools import reduce

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh

PAULI = {"X": np.array([[0.0, 1.0], [1.0, 0.0]]), "Y": np.array([[0.0, -1.0j], [1.0j, 0.0]]),
         "Z": np.array([[1.0, 0.0], [0.0, -1.0]])}


def site_operator(name: str, i: int, L: int) -> sparse.csr_matrix:
    """The Pauli operator ``name`` on site i of L."""
    factors = [sparse.identity(2, format="csr")] * L
    factors[i] = sparse.csr_matrix(PAULI[name])
    return reduce(lambda a, b: sparse.kron(a, b, format="csr"), factors)


def bonds(L: int, periodic: bool) -> list[tuple[int, int]]:
    return [(i, (i + 1) % L) for i in range(L if periodic else L - 1)]


def heisenberg(L: int, J: float, periodic: bool) -> sparse.csr_matrix:
    """J sum sigma_i . sigma_j over nearest neighbours (Pauli units)."""
    return sum(J * (site_operator(a, i, L) @ site_operator(a, j, L)).real
               for i, j in bonds(L, periodic) for a in ("X", "Y", "Z")).tocsr()


def torus_bonds(L: int) -> list[tuple[int, int]]:
    """Nearest neighbours of the L x L square lattice with periodic boundaries, site (x, y) numbered x L + y."""
    return [(x * L + y, ((x + dx) % L) * L + (y + dy) % L) for x in range(L) for y in range(L)
            for dx, dy in ((1, 0), (0, 1))]


def heisenberg_torus_ground_energy(L: int, J: float, total_sz: int = 0) -> float:
    """Lowest Pauli-unit energy of J sum sigma_i . sigma_j over the torus's bonds at magnetisation ``total_sz`` (zero:
    where the singlet ground state of an even bipartite torus lies)."""
    sites = L * L
    matrix = sum(J * (site_operator(a, i, sites) @ site_operator(a, j, sites)).real
                 for i, j in torus_bonds(L) for a in ("X", "Y", "Z")).tocsr()
    sector = magnetisation_sector(sites, total_sz)
    return ground_state(matrix[sector][:, sector].tocsr())[0]


def ising_zz_x(L: int, J: float, h: float, periodic: bool) -> sparse.csr_matrix:
    """-J sum Z_i Z_j - h sum X_i: Qiskit's convention in our library, and NetKet's with J -> -J."""
    couplings = sum(-J * site_operator("Z", i, L) @ site_operator("Z", j, L) for i, j in bonds(L, periodic))
    return (couplings + sum(-h * site_operator("X", i, L) for i in range(L))).real.tocsr()


def ground_state(hamiltonian: sparse.csr_matrix) -> tuple[float, np.ndarray]:
    if hamiltonian.shape[0] == 1:
        return float(hamiltonian[0, 0]), np.ones(1)
    energies, vectors = eigsh(hamiltonian, k=1, which="SA", tol=1e-12)
    return float(energies[0]), vectors[:, 0]


def magnetisation_sector(L: int, total_sz: int) -> np.ndarray:
    """Indices of the basis states with sum_i S^z_i = total_sz (bit 0 = up = +1/2 on each site)."""
    down_counts = np.array([bin(state).count("1") for state in range(2**L)])
    return np.flatnonzero(L / 2 - down_counts == total_sz)


def heisenberg_sector_energy(L: int, J: float, total_sz: int, periodic: bool) -> float:
    """Lowest Pauli-unit energy of J sum sigma . sigma among states of magnetisation ``total_sz``: the
    Hamiltonian conserves it, so the block of those basis states is exact."""
    sector = magnetisation_sector(L, total_sz)
    return ground_state(heisenberg(L, J, periodic)[sector][:, sector].tocsr())[0]


def heisenberg_ring_triplet_gap(L: int, J: float) -> float:
    """E(lowest S^z = 1 state) - E(ground state) of the even ring J sum sigma . sigma: the singlet-triplet gap,
    found as the ground state of another magnetisation sector (SU(2) puts the triplet's S^z = 0 member at the same
    energy), not as an excited state."""
    return heisenberg_sector_energy(L, J, 1, True) - heisenberg_sector_energy(L, J, 0, True)


def heisenberg_bond_energies(L: int, J: float) -> list[float]:
    """J <S_i . S_{i+1}> (spin operators) on each bond of the open chain's ground state."""
    _, vector = ground_state(heisenberg(L, J, periodic=False))
    return [J / 4 * sum(float(np.real(np.vdot(vector, site_operator(a, i, L) @ (site_operator(a, i + 1, L) @ vector))))
                        for a in ("X", "Y", "Z")) for i in range(L - 1)]


def open_tfi_free_fermion_energy(L: int, J: float, g: float) -> float:
    """Ground energy of -J sum X_i X_{i+1} - g sum Z_i on the open chain (Pfeuty 1970): minus the sum
    of the singular values of the bidiagonal matrix g 1 + J (superdiagonal)."""
    matrix = g * np.eye(L) + J * np.eye(L, k=1)
    return -float(np.linalg.svd(matrix, compute_uv=False).sum())


def periodic_tfi_ground_energy(L: int, h: float) -> float:
    """Ground energy of -sum Z_i Z_(i+1) - h sum X_i on the ring of L >= 3 sites (Pauli units).  Jordan-Wigner maps
    the ring's even-parity sector, where the ground state lies for h > 0, to free fermions with antiperiodic
    momenta k = pi (2n + 1) / L, each mode costing 2 sqrt(1 + h^2 - 2 h cos k): E_0 = -sum_k sqrt(1 + h^2 - 2 h cos k)
    (Pfeuty, Ann. Phys. 57, 79 (1970)); at h = 1, -2 / sin(pi / (2L))."""
    if L < 3:
        raise ValueError("the ring needs at least three sites")
    momenta = np.pi * (2 * np.arange(L) + 1) / L
    return -float(np.sqrt(1 + h * h - 2 * h * np.cos(momenta)).sum())


def torus_bonds(L: int) -> list[tuple[int, int]]:
    """Nearest-neighbour bonds of the periodic L x L square lattice (L >= 3), site (x, y) numbered x L + y."""
    return [(x * L + y, ((x + dx) % L) * L + (y + dy) % L) for x in range(L) for y in range(L)
            for dx, dy in ((1, 0), (0, 1))]


def heisenberg_bonds_sector_energy(bonds: list[tuple[int, int]], sites: int, J: float, total_sz: int) -> float:
    """Lowest Pauli-unit energy of J sum sigma_i . sigma_j over ``bonds`` at magnetisation ``total_sz``."""
    hamiltonian = sum(J * (site_operator(a, i, sites) @ site_operator(a, j, sites)).real
                      for i, j in bonds for a in ("X", "Y", "Z")).tocsr()
    sector = magnetisation_sector(sites, total_sz)
    return ground_state(hamiltonian[sector][:, sector].tocsr())[0]


def bethe_ring_ground_energy(L: int, J: float, tolerance: float = 1e-14) -> float:
    """Ground energy of the antiferromagnetic ring J sum S_i . S_{i+1} (spin operators, even L) from the Bethe
    ansatz: L/2 rapidities solve L arctan(2 lam_j) = pi I_j + sum_k arctan(lam_j - lam_k) with the ground
    state's consecutive quantum numbers I_j (half-odd when L/2 is even), found by fixed-point iteration; then
    E = J L / 4 - (J/2) sum_j 1 / (lam_j^2 + 1/4).  Exact for any L, where Lanczos stops near L = 30."""
    if L % 2 or L < 2:
        raise ValueError("the ring's singlet ground state needs an even number of sites")
    M = L // 2
    quantum_numbers = np.arange(M) - (M - 1) / 2
    rapidities = 0.5 * np.tan(np.pi * quantum_numbers / L)
    for _ in range(100_000):
        scattering = np.arctan(rapidities[:, None] - rapidities[None, :]).sum(axis=1)
        updated = 0.5 * np.tan((np.pi * quantum_numbers + scattering) / L)
        if np.max(np.abs(updated - rapidities)) < tolerance:
            rapidities = updated
            break
        rapidities = updated
    else:
        raise RuntimeError("the Bethe equations did not converge")
    return float(J * L / 4 - J / 2 * np.sum(1.0 / (rapidities**2 + 0.25)))
