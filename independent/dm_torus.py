"""The spin-1/2 Heisenberg model with Dzyaloshinskii-Moriya interaction on a periodic L x L square lattice by exact
diagonalisation, independent of NetKet (Joshi, Peters and Posske, PRB 110, 104411 (2024), Eq. (1)):

    H = -J sum (sx sx + sy sy) - A sum sz sz - D sum (u_ij x z) . (s_i x s_j) + B sum sz

written out bond by bond: on a bond along +x, (x x z) = -y picks the y component of s_i x s_j, giving
+D (sz_i sx_j - sx_i sz_j); along +y, (y x z) = +x gives -D (sy_i sz_j - sz_i sy_j).  Site (x, y) is x L + y, as in
the library.  The one-site Renyi entropy comes from the reduced density matrix traced out of the state vector, not
from the spin expectations.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import scipy.sparse as sparse
from scipy.sparse.linalg import eigsh

from physvec.independent.spin_chains import site_operator


def dm_torus_hamiltonian(L: int, J: float, A: float, D: float, B: float) -> sparse.csr_matrix:
    """H on the 2^(L^2) product basis (bit 0 of site 0 is the most significant factor of the Kronecker product)."""
    n = L * L
    s = {(name, i): site_operator(name, i, n) for name in ("X", "Y", "Z") for i in range(n)}
    hamiltonian = sum(B * s["Z", i] for i in range(n))
    for x in range(L):
        for y in range(L):
            i = x * L + y
            right, up = ((x + 1) % L) * L + y, x * L + (y + 1) % L
            for j in (right, up):
                hamiltonian = hamiltonian - J * (s["X", i] @ s["X", j] + s["Y", i] @ s["Y", j]) - A * s["Z", i] @ s["Z", j]
            hamiltonian = hamiltonian + D * (s["Z", i] @ s["X", right] - s["X", i] @ s["Z", right])
            hamiltonian = hamiltonian - D * (s["Y", i] @ s["Z", up] - s["Z", i] @ s["Y", up])
    return sparse.csr_matrix(hamiltonian)


@dataclass(frozen=True)
class DMTorusGroundState:
    """The exact ground state's energy, gap to the next level, and one-site quantities."""

    energy: float
    gap: float
    spins: np.ndarray
    """<S_i> = <sigma_i> / 2, one row [x, y, z] per site"""
    renyi_entropies: np.ndarray
    """-ln Tr rho_i^2 of each site's reduced density matrix"""


def one_site_density_matrix(vector: np.ndarray, site: int, sites: int) -> np.ndarray:
    """rho_i = Tr_{others} |psi><psi|, by reshaping psi to (left, 2, right)."""
    block = vector.reshape(2**site, 2, 2 ** (sites - site - 1))
    return np.einsum("lar,lbr->ab", block, block.conj())


def dm_torus_ground_state(L: int, J: float, A: float, D: float, B: float) -> DMTorusGroundState:
    hamiltonian = dm_torus_hamiltonian(L, J, A, D, B)
    energies, vectors = eigsh(hamiltonian, k=2, which="SA", tol=1e-12)
    order = np.argsort(energies)
    ground = vectors[:, order[0]]
    n = L * L
    paulis = {"X": np.array([[0, 1], [1, 0]]), "Y": np.array([[0, -1j], [1j, 0]]), "Z": np.array([[1, 0], [0, -1]])}
    spins, entropies = [], []
    for i in range(n):
        rho = one_site_density_matrix(ground, i, n)
        spins.append([float(np.trace(rho @ paulis[name]).real) / 2 for name in ("X", "Y", "Z")])
        entropies.append(float(-np.log(np.trace(rho @ rho).real)))
    return DMTorusGroundState(float(energies[order[0]]), float(energies[order[1]] - energies[order[0]]),
                              np.array(spins), np.array(entropies))


def skyrmion_number(vectors: np.ndarray, L: int) -> float:
    """sum over the triangles of each plaquette of Omega = (1/2pi) atan2(a . (b x c), 1 + a.b + b.c + c.a), the
    texture's normalised directions, triangles (r, r+x, r+x+y) and (r, r+x+y, r+y) counter-clockwise."""
    directions = vectors / np.linalg.norm(vectors, axis=1, keepdims=True)
    grid = directions.reshape(L, L, 3)
    a, b, c, d = grid, np.roll(grid, -1, axis=0), np.roll(np.roll(grid, -1, axis=0), -1, axis=1), np.roll(grid, -1, axis=1)

    def omega(p: np.ndarray, q: np.ndarray, r: np.ndarray) -> np.ndarray:
        dot = lambda u, v: np.sum(u * v, axis=-1)  # noqa: E731
        return np.arctan2(dot(p, np.cross(q, r)), 1 + dot(p, q) + dot(q, r) + dot(r, p)) / (2 * np.pi)

    return float(np.sum(omega(a, b, c) + omega(a, c, d)))
