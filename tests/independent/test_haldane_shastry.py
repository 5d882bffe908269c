"""The modified Haldane-Shastry ring by exact diagonalisation agrees with closed forms, a dense construction and
its own sum rules (PRX 7, 021021 (2017), Eq. (15))."""

from __future__ import annotations

import math
from functools import reduce

import numpy as np
import pytest

from physvec.independent.haldane_shastry import chord_couplings, ground_state, sector_ground_energies


def dense_modified_haldane_shastry(N: int) -> np.ndarray:
    """The same Hamiltonian from Kronecker products of Pauli matrices, every magnetisation at once."""
    x, y, z = np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.diag([1.0, -1.0])

    def pair(op: np.ndarray, j: int, k: int) -> np.ndarray:
        factors = [np.eye(2)] * N
        factors[j], factors[k] = op, op
        return reduce(np.kron, factors)

    return sum(c * (pair(z, j, k) - pair(x, j, k) - pair(y, j, k)) for (j, k), c in chord_couplings(N).items()).real


def test_the_polarised_ring_costs_the_sum_of_all_couplings():
    # all spins up: every Z_j Z_k = 1 and the flips vanish; sum_{r=1}^{N-1} 1/sin^2(pi r / N) = (N^2 - 1)/3
    # gives sum_{j<k} 1/d_jk^2 = pi^2 (N^2 - 1) / (6 N)
    for N in (4, 6, 8):
        assert sector_ground_energies(N)[0] == pytest.approx(math.pi**2 * (N * N - 1) / (6 * N), rel=1e-12)


def test_the_sector_energies_match_the_dense_hamiltonian_and_the_ground_state_has_zero_magnetisation():
    dense = np.linalg.eigvalsh(dense_modified_haldane_shastry(6))
    sectors = sector_ground_energies(6)
    assert min(sectors) == pytest.approx(dense[0], abs=1e-10)
    assert int(np.argmin(sectors)) == 3, "three of six spins down"
    assert ground_state(6).energy == pytest.approx(dense[0], abs=1e-10)


def test_the_correlations_obey_the_zero_magnetisation_sum_rule_and_rebuild_the_energy():
    state = ground_state(12)
    zz, xx = state.zz_correlations(), state.xx_correlations()
    # sum_j <Z_0 Z_j> = <Z_0 S^z_total> * 2 = 0 in the sector: 1 + 2 sum_{r<N/2} c_r + c_{N/2} = 0
    assert 1 + 2 * sum(zz[:-1]) + zz[-1] == pytest.approx(0, abs=1e-10)
    # E = (N/2) sum_{r=1}^{N-1} (c^z_r - 2 c^x_r) / d_r^2, with c_r = c_{N-r} on the ring
    couplings = chord_couplings(12)
    energy = 6 * sum(couplings[(0, r)] * (zz[min(r, 12 - r) - 1] - 2 * xx[min(r, 12 - r) - 1]) for r in range(1, 12))
    assert energy == pytest.approx(state.energy, abs=1e-9)
    assert zz[0] < -0.3 and abs(zz[1]) < 0.02, "the paper's jump: antiparallel neighbours, nearly nothing at j = 2"
