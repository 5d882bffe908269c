"""Quenches of periodic spin chains by exact evolution, no NetKet: the exact ground state of the Hamiltonian before
the quench (sparse diagonalisation), evolved by scipy's expm_multiply under the one after it, for the observables
of the library's t-VMC pipelines (verifiers/library/netket_tvmc.py).

A ring of two sites has one bond (NetKet's Chain, and the published check E_0 = -3 of one Heisenberg bond).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse
from scipy.sparse.linalg import expm_multiply

from physvec.independent.spin_chains import ground_state, site_operator


def ring_bonds(L: int) -> list[tuple[int, int]]:
    return [(0, 1)] if L == 2 else [(i, (i + 1) % L) for i in range(L)]


def _zz(L: int, i: int, j: int) -> sparse.csr_matrix:
    return site_operator("Z", i, L) @ site_operator("Z", j, L)


def ising_ring(L: int, h: float) -> sparse.csr_matrix:
    """-sum Z_i Z_(i+1) - h sum X_i."""
    return (sum(-_zz(L, i, j) for i, j in ring_bonds(L)) + sum(-h * site_operator("X", i, L) for i in range(L))).tocsr()


def xxz_ring(L: int, Jz: float) -> sparse.csr_matrix:
    """sum (X X + Y Y + Jz Z Z) over the bonds."""
    return sum(site_operator("X", i, L) @ site_operator("X", j, L) + site_operator("Y", i, L) @ site_operator("Y", j, L)
               + Jz * _zz(L, i, j) for i, j in ring_bonds(L)).tocsr()


def staggered_preparation(L: int) -> sparse.csr_matrix:
    """-sum ((-1)^i Z_i + 0.1 X_i): its ground state is the Neel state |up down ...> up to the small tilt."""
    return sum(-((-1.0) ** i) * site_operator("Z", i, L) - 0.1 * site_operator("X", i, L) for i in range(L)).tocsr()


def quench(before: sparse.csr_matrix, after: sparse.csr_matrix, L: int, times: list[float]) -> dict[str, Any]:
    """The ground energy of ``before`` and, at each of times after the quench to ``after``: <X> and <Z Z> per site
    and bond, <Z_1>, the total <Z>, <H_after>."""
    energy, start = ground_state(before.astype(complex))
    bonds = ring_bonds(L)
    probes = {"transverse_polarization": sum(site_operator("X", i, L) for i in range(L)) / L,
              "first_site_magnetization": site_operator("Z", 0, L),
              "total_magnetization": sum(site_operator("Z", i, L) for i in range(L)),
              "nn_correlation": sum(_zz(L, i, j) for i, j in bonds) / len(bonds), "energy": after}
    found: dict[str, Any] = {"ground_energy": energy, **{name: [] for name in probes}}
    for time in times:
        state = expm_multiply(-1j * time * after.astype(complex), start.astype(complex))
        for name, operator in probes.items():
            found[name].append(float(np.vdot(state, operator @ state).real))
    return found
