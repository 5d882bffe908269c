"""NetKet background functions on the periodic six-spin transverse-field Ising and Heisenberg chains.

Reference: NetKet's Ising is H = -h sum X_i + J sum Z_i Z_{i+1} with Pauli operators (see
../shared/BACKENDS.md), built here with numpy kron; a variational energy never lies below the exact
ground state (up to its Monte Carlo error).
"""

from __future__ import annotations

import numpy as np
import pytest

from physvec.verifiers.library.netket_background import (
    HEISENBERG_RBM, ISING_RBM, hamiltonian_heisenberg, hamiltonian_ising, lattice_chain,
)


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


def dense_heisenberg(L: int, J: float) -> np.ndarray:
    """J sum sigma_i . sigma_{i+1} on the ring, every magnetisation sector."""
    paulis = (np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]]), np.diag([1.0, -1.0]))

    def site(op: np.ndarray, i: int) -> np.ndarray:
        return np.kron(np.kron(np.eye(2**i), op), np.eye(2 ** (L - 1 - i)))

    return sum(J * site(p, i) @ site(p, (i + 1) % L) for i in range(L) for p in paulis)


def test_the_heisenberg_hamiltonian_holds_the_pauli_ground_state_in_its_zero_magnetisation_sector():
    hamiltonian = hamiltonian_heisenberg(lattice_chain(6), J=1.0, total_sz=0)
    assert hamiltonian.hilbert.n_states == 20, "six spins with total Sz = 0: C(6, 3) states"
    full = np.linalg.eigvalsh(dense_heisenberg(6, 1.0))
    assert np.linalg.eigvalsh(hamiltonian.to_dense())[0] == pytest.approx(full[0], abs=1e-10)
    assert full[0] / 4 == pytest.approx(-2.8027756, abs=1e-6), "spin-operator units: the six-site ring"


def test_the_heisenberg_hamiltonian_takes_any_magnetisation_sector():
    # total_sz = 3 on six spins holds only the all-up state, with E = J L (every bond sigma . sigma = 1)
    polarised = hamiltonian_heisenberg(lattice_chain(6), J=1.0, total_sz=3)
    assert polarised.hilbert.n_states == 1 and polarised.to_dense()[0, 0] == pytest.approx(6.0)


def test_the_heisenberg_pipeline_comes_within_one_percent_of_the_exact_energy():
    namespace = HEISENBERG_RBM.run()
    exact = float(np.linalg.eigvalsh(dense_heisenberg(6, 1.0))[0])
    error = float(namespace["state"].expect(namespace["hamiltonian"]).error_of_mean)
    assert exact - 5 * error - 1e-9 <= namespace["energy"] <= exact * 0.99
