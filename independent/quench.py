"""Exact evolution of the all-up state of the transverse-field Ising chain, by the matrix exponential, and
of a domain wall in the XX chain, by diagonalisation.  Site 0 is the leftmost tensor factor; |0> is up."""

from __future__ import annotations

import numpy as np
from scipy.sparse.linalg import expm_multiply

from physvec.independent.spin_chains import bonds, ising_zz_x, site_operator


def _evolved(L: int, J: float, h: float, time: float, periodic: bool) -> tuple[np.ndarray, object]:
    hamiltonian = ising_zz_x(L, J, h, periodic).astype(complex)
    start = np.zeros(2**L, dtype=complex)
    start[0] = 1.0
    return expm_multiply(-1j * time * hamiltonian, start), hamiltonian


def quench_energy(L: int, J: float, h: float, time: float, periodic: bool = False) -> float:
    """<H> at ``time`` after starting in |0...0>: conserved by exact evolution, -J (L - 1) on an open chain."""
    state, hamiltonian = _evolved(L, J, h, time, periodic)
    return float(np.real(np.vdot(state, hamiltonian @ state)))


def quench_magnetization(L: int, J: float, h: float, time: float, periodic: bool = False) -> float:
    """<Z> averaged over the chain at ``time`` after starting in |0...0>, H = -J sum ZZ - h sum X."""
    state, _ = _evolved(L, J, h, time, periodic)
    return float(np.mean([np.real(np.vdot(state, site_operator("Z", i, L) @ state)) for i in range(L)]))


def xx_chain(L: int, J: float) -> np.ndarray:
    """-J sum_j (X_j X_{j+1} + Y_j Y_{j+1}) on the open chain, dense (Pauli operators, real)."""
    couplings = sum(-J * (site_operator("X", i, L) @ site_operator("X", j, L) + site_operator("Y", i, L)
                          @ site_operator("Y", j, L)) for i, j in bonds(L, periodic=False))
    return couplings.real.toarray()


def domain_wall_magnetizations(L: int, J: float, times: list[float]) -> list[list[float]]:
    """<Z_i>(t) on every site i (0-based, site i + 1 counted from 1) at each of ``times``, exact continuous
    time, starting with the first L // 2 sites down and the rest up, H = -J sum (X X + Y Y)."""
    energies, vectors = np.linalg.eigh(xx_chain(L, J))
    start = np.zeros(2**L)
    start[sum(2 ** (L - 1 - i) for i in range(L // 2))] = 1.0  # a down site is a 1 bit, site 0 the highest
    amplitudes = vectors.T @ start
    # <Z_i> is diagonal in the basis: +1 where bit (L - 1 - i) of the index is 0
    signs = 1 - 2 * ((np.arange(2**L)[:, None] >> (L - 1 - np.arange(L))[None, :]) & 1)
    result = []
    for time in times:
        state = vectors @ (np.exp(-1j * energies * time) * amplitudes)
        result.append([float(value) for value in np.abs(state) ** 2 @ signs])
    return result
