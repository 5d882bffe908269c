"""Qiskit background functions against dense matrices and exact evolution (scipy), four qubits.

References: H = -J sum Z_i Z_{i+1} - h sum X_i built here with numpy kron (qubit 0 is the rightmost
tensor factor in Qiskit's little-endian order; the chain is reflection symmetric, so the spectrum
and the evolved energy do not depend on it); energy is conserved, <H(t)> = <H(0)> = -J (L - 1).
The XX domain wall (Smith et al., npj Quantum Inf. 5, 106 (2019), Fig. 2) against exact continuous-time
evolution by diagonalisation (independent/quench.py).
"""

from __future__ import annotations

import numpy as np
import pytest
from scipy.linalg import expm

from qiskit.quantum_info import Operator, Statevector

from physvec.independent.quench import domain_wall_magnetizations
from physvec.verifiers.library import best_pipeline
from physvec.verifiers.library.qiskit_background import (
    TFIM_TROTTER, TFIM_VQE, XX_DOMAIN_WALL_TROTTER, ansatz_ry_linear, circuit_trotter,
    circuit_trotter_step_even_odd, effector_statevector, effector_trotter_states, hamiltonian_tfim,
    hamiltonian_xx_chain, initialstate_all_up, initialstate_domain_wall,
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
    # independent reference: the matrix exponential on the 2^L space (independent/quench.py)
    from physvec.independent.quench import quench_magnetization

    namespace = TFIM_TROTTER.run(steps=200)
    assert namespace["magnetization"] == pytest.approx(quench_magnetization(4, 1.0, 1.0, 0.5), abs=1e-4)
    assert TFIM_TROTTER.run(h=0.0)["magnetization"] == pytest.approx(1.0), "all-up is an eigenstate without field"


def test_the_trotter_circuit_has_the_product_formula_error():
    # a first-order product formula errs by at most O(t^2 / steps): ten steps are visibly off, and the error
    # of the magnetisation shrinks at least tenfold for tenfold more steps (here about a hundredfold, as the
    # first-order term of this observable cancels; exact: independent/quench.py)
    from physvec.independent.quench import quench_magnetization

    exact = quench_magnetization(4, 1.0, 1.0, 1.0)
    errors = [abs(TFIM_TROTTER.run(time=1.0, steps=steps)["magnetization"] - exact) for steps in (10, 100)]
    assert errors[0] > 1e-3 and errors[0] / errors[1] > 10


def dense_site(op: np.ndarray, i: int, L: int) -> np.ndarray:
    """``op`` on qubit i of L, Qiskit's order (qubit 0 the rightmost tensor factor)."""
    return np.kron(np.kron(np.eye(2 ** (L - 1 - i)), op), np.eye(2**i))


def dense_xx_bond(q: int, L: int, J: float) -> np.ndarray:
    x, y = np.array([[0, 1], [1, 0]]), np.array([[0, -1j], [1j, 0]])
    return -J * (dense_site(x, q, L) @ dense_site(x, q + 1, L) + dense_site(y, q, L) @ dense_site(y, q + 1, L))


def test_the_xx_hamiltonian_is_the_hopping_chain_in_pauli_operators():
    hamiltonian = sum(dense_xx_bond(q, 4, 0.7) for q in range(3))
    assert hamiltonian_xx_chain(4, 0.7).to_matrix() == pytest.approx(hamiltonian)


def test_the_trotter_step_is_the_symmetric_even_odd_product():
    # five sites: bonds with left site j = 1, 3 (qubits 0, 2) are odd, j = 2, 4 (qubits 1, 3) even
    dt, L = 0.3, 5
    even, odd = (sum(dense_xx_bond(q, L, 1.0) for q in qubits) for qubits in ((1, 3), (0, 2)))
    expected = expm(-0.5j * dt * even) @ expm(-1j * dt * odd) @ expm(-0.5j * dt * even)
    hamiltonian = hamiltonian_xx_chain(L, 1.0)
    step = Operator(circuit_trotter_step_even_odd(hamiltonian, dt)).data
    assert step == pytest.approx(expected, abs=1e-12)
    assert step @ Operator(circuit_trotter_step_even_odd(hamiltonian, -dt)).data == pytest.approx(np.eye(2**L),
                                                                                                abs=1e-12)
    assert np.abs(step - expm(-1j * dt * (even + odd))).max() > 1e-3, "a splitting, not the exact propagator"


def test_the_domain_wall_pipeline_starts_in_the_domain_wall():
    assert XX_DOMAIN_WALL_TROTTER.run()["magnetizations"][0] == [-1.0, -1.0, -1.0, 1.0, 1.0, 1.0]
    # odd L: the first L // 2 = 2 qubits down (|1>); Qiskit writes qubit 0 rightmost
    assert Statevector(initialstate_domain_wall(5)).probabilities_dict() == {"00011": 1.0}


def test_the_domain_wall_pipeline_follows_exact_evolution():
    # second order, dt = 0.1: within 0.01 of continuous time on every site at Jt = 1, 2 (about 7e-3 at most)
    trotter = XX_DOMAIN_WALL_TROTTER.run()["magnetizations"]
    exact = domain_wall_magnetizations(6, 1.0, [0.0, 1.0, 2.0])
    for time in (1, 2):
        assert trotter[time] == pytest.approx(exact[time], abs=0.01)


def test_one_site_s_curve_is_its_column_of_the_magnetizations_counted_from_one():
    namespace = XX_DOMAIN_WALL_TROTTER.run(site=6)
    assert namespace["site_magnetization"] == [row[5] for row in namespace["magnetizations"]]
    with pytest.raises(ValueError, match="count from 1"):
        XX_DOMAIN_WALL_TROTTER.run(site=0)


def test_the_trotter_step_size_matters():
    # dt = 0.5 misses site 6 (index 5) at Jt = 1 by about 0.19; dt = 0.1 by about 0.007
    exact = domain_wall_magnetizations(6, 1.0, [1.0])[0][5]
    assert abs(XX_DOMAIN_WALL_TROTTER.run(dt=0.5)["magnetizations"][1][5] - exact) > 0.1
    assert abs(XX_DOMAIN_WALL_TROTTER.run(dt=0.1)["magnetizations"][1][5] - exact) < 0.01


def test_the_xx_gates_conserve_the_total_magnetisation_at_any_step():
    # XX + YY of one bond commutes with Z_j + Z_{j+1}, and so does each group's exact exponential
    for dt in (0.1, 0.5):
        magnetizations = XX_DOMAIN_WALL_TROTTER.run(dt=dt, times=[0.0, 0.5, 1.0, 2.0])["magnetizations"]
        assert [sum(m) for m in magnetizations] == pytest.approx([0.0] * 4, abs=1e-12)


def test_the_states_come_in_the_order_of_the_times_and_only_at_whole_steps():
    initial, step = initialstate_domain_wall(4), circuit_trotter_step_even_odd(hamiltonian_xx_chain(4, 1.0), 0.25)
    states = effector_trotter_states(initial, step, [0.5, 0.0, 0.5], 0.25)
    assert states[1] == Statevector(initial) and states[0] == states[2] != states[1]
    with pytest.raises(ValueError, match="whole number of steps"):
        effector_trotter_states(initial, step, [0.3], 0.25)


def test_scripts_keep_their_background_pipelines():
    # a script is unit-tested in the pipeline sharing most of its PARAMS (tests/fixtures/*qiskit* scripts)
    assert best_pipeline("qiskit", {"L": 4, "J": 1.0, "h": 0.5, "time": 1.0, "steps": 10}).name == "tfim_trotter"
    assert best_pipeline("qiskit", {"L": 4, "J": 1.0, "h": 0.5, "time": 1.0, "steps": 40,
                                     "periodic": True}).name == "tfim_trotter"
    assert best_pipeline("qiskit", {"L": 3, "J": 1.0, "h": 1.0, "reps": 2, "initial_angle": 0.1}).name == "tfim_vqe"
    assert best_pipeline("qiskit", {"L": 6, "J": 1.0, "times": [1.0], "dt": 0.1}).name == "xx_domain_wall_trotter"
