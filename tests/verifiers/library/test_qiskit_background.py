"""Qiskit background functions against dense matrices and exact evolution (scipy), four qubits.

References: H = -J sum Z_i Z_{i+1} - h sum X_i built here with numpy kron (qubit 0 is the rightmost
tensor factor in Qiskit's little-endian order; the chain is reflection symmetric, so the spectrum
and the evolved energy do not depend on it); energy is conserved, <H(t)> = <H(0)> = -J (L - 1).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from qiskit.quantum_info import Statevector

from physvec.verifiers.library.qiskit_background import (
    TFIM_TROTTER, TFIM_VQE, ansatz_ry_linear, circuit_trotter, effector_statevector, hamiltonian_tfim,
    initialstate_all_up,
)


def dense_tfim(L: int, J: float, h: float) -> np.ndarray:
    x, z = np.array([[0, 1], [1, 0]]), np.diag([1.0, -1.0])

    def site(op: np.ndarray, i: int) -> np.ndarray:
        return np.kron(np.kron(np.eye(2 ** (L - 1 - i)), op), np.eye(2**i))

    return sum(-J * site(z, i) @ site(z, i + 1) for i in range(L - 1)) + sum(-h * site(x, i) for i in range(L))


def test_the_hamiltonian_is_the_transverse_field_ising_chain():
    assert hamiltonian_tfim(4, 1.0, 0.7).to_matrix() == pytest.approx(dense_tfim(4, 1.0, 0.7))


def test_many_trotter_steps_approach_exact_evolution():
    hamiltonian = hamiltonian_tfim(4, 1.0, 1.0)
    state = effector_statevector(circuit_trotter(initialstate_all_up(4), hamiltonian, time=0.5, steps=200))
    exact = expm(-0.5j * dense_tfim(4, 1.0, 1.0))[:, 0]
    assert abs(np.vdot(exact, state.data)) == pytest.approx(1.0, abs=1e-4)


def test_the_pipeline_conserves_the_energy_of_the_all_up_state():
    # a first-order product formula conserves the energy only as its step shrinks (error about 0.8 / steps here)
    assert abs(TFIM_TROTTER.run()["energy"] + 3.0) > 0.1, "five steps"
    assert TFIM_TROTTER.run(steps=1000)["energy"] == pytest.approx(-3.0, abs=1e-3)


def test_the_ry_ansatz_has_one_angle_per_qubit_and_layer_and_real_amplitudes():
    ansatz = ansatz_ry_linear(3, reps=2)
    assert ansatz.num_parameters == 9
    amplitudes = Statevector(ansatz.assign_parameters(np.linspace(0.1, 0.9, 9))).data
    assert np.abs(amplitudes.imag).max() < 1e-12


def test_the_vqe_pipeline_reaches_the_exact_ground_energy():
    # three qubits, two layers: the real-amplitude ansatz spans the ground state of the real symmetric H
    namespace = TFIM_VQE.run()
    exact = float(np.linalg.eigvalsh(dense_tfim(3, 1.0, 1.0))[0])
    assert namespace["energy"] == pytest.approx(exact, abs=1e-6)
    assert namespace["energy"] < TFIM_VQE.run(reps=0)["energy"] - 1e-3, "a product state cannot reach it"


def test_the_trotter_magnetization_follows_exact_evolution():
    # independent reference: the matrix exponential on the 2^L space (qmp_bench/independent/quench.py)
    from physvec.qmp_bench.independent.quench import quench_magnetization

    namespace = TFIM_TROTTER.run(steps=200)
    assert namespace["magnetization"] == pytest.approx(quench_magnetization(4, 1.0, 1.0, 0.5), abs=1e-4)
    assert TFIM_TROTTER.run(h=0.0)["magnetization"] == pytest.approx(1.0), "all-up is an eigenstate without field"


def test_the_trotter_circuit_has_the_product_formula_error():
    # a first-order product formula errs by at most O(t^2 / steps): ten steps are visibly off, and the error
    # of the magnetisation shrinks at least tenfold for tenfold more steps (here about a hundredfold, as the
    # first-order term of this observable cancels; exact: qmp_bench/independent/quench.py)
    from physvec.qmp_bench.independent.quench import quench_magnetization

    exact = quench_magnetization(4, 1.0, 1.0, 1.0)
    errors = [abs(TFIM_TROTTER.run(time=1.0, steps=steps)["magnetization"] - exact) for steps in (10, 100)]
    assert errors[0] > 1e-3 and errors[0] / errors[1] > 10
