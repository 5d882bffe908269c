"""NetKet background functions on the periodic six-spin transverse-field Ising chain.

Reference: NetKet's Ising is H = -h sum X_i + J sum Z_i Z_{i+1} with Pauli operators (see
../shared/BACKENDS.md), built here with numpy kron; a variational energy never lies below the exact
ground state (up to its Monte Carlo error).
"""

from __future__ import annotations

import numpy as np
import pytest

from verifiers.library.netket_background import ISING_RBM, hamiltonian_ising, lattice_chain


def dense_ising(L: int, h: float, J: float) -> np.ndarray:
    x, z = np.array([[0, 1], [1, 0]]), np.diag([1.0, -1.0])

    def site(op: np.ndarray, i: int) -> np.ndarray:
        return np.kron(np.kron(np.eye(2**i), op), np.eye(2 ** (L - 1 - i)))

    return sum(J * site(z, i) @ site(z, (i + 1) % L) - h * site(x, i) for i in range(L))


def test_the_hamiltonian_is_the_periodic_ising_chain_in_pauli_operators():
    hamiltonian = hamiltonian_ising(lattice_chain(6), h=1.0, J=-1.0)
    assert np.linalg.eigvalsh(hamiltonian.to_dense()) == pytest.approx(np.linalg.eigvalsh(dense_ising(6, 1.0, -1.0)))


def test_the_pipeline_gives_a_variational_energy():
    namespace = ISING_RBM.run()
    exact = np.linalg.eigvalsh(dense_ising(6, 1.0, -1.0))[0]
    error = float(namespace["state"].expect(namespace["hamiltonian"]).error_of_mean)
    assert namespace["energy"] >= exact - 5 * error - 1e-9
    assert namespace["energy"] < 0, "five SGD steps from a random RBM already lower the energy below zero"
