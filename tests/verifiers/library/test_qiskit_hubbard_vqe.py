"""The Hubbard VQE pipeline (one layer of the Hamiltonian variational ansatz, Stanisic et al., Nat. Commun. 13,
5743 (2022)) against the same ansatz written again in numpy on occupation bit strings with their own fermion signs
(independent/hubbard_vqe.py, no Qiskit), against exact diagonalisation of each sector, and against what holds
exactly: free fermions at U = 0, particle-hole symmetry, sum rules of fixed particle number and spin, and the
paper's own number, -3.478 for half filling of 1 x 8 at U = 4.
"""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from qiskit.quantum_info import Statevector

from physvec.independent.hubbard_vqe import snake, vqe_results
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.qiskit_hubbard_vqe import (
    HUBBARD_HVA_VQE, ansatz_hva_generators, circuit_hva_ansatz, effector_vqe_angles, hamiltonian_hubbard_jw,
    initialstate_slater_circuits, lattice_hopping_orbitals, lattice_hubbard_snake, observable_chemical_potentials,
    observable_energies,
)

LADDER = {"columns": 2, "rows": 2, "occupations": [1, 2, 3, 4, 5, 6, 7]}


@pytest.mark.parametrize("changes", [{}, LADDER], ids=["1x4 chain", "2x2 ladder"])
def test_every_observable_is_the_numpy_ansatz(changes):
    parameters = {**HUBBARD_HVA_VQE.params, **changes}
    qiskit, numpy = HUBBARD_HVA_VQE.run(**changes), vqe_results(parameters)
    # the two BFGS runs stop within their gradient tolerance at optima equal in energy to 1e-8; the correlations,
    # linear in the state rather than quadratic at the minimum, differ there by about 1e-6
    for name, tolerance in (("energies", 1e-8), ("chemical_potentials", 1e-8), ("charge_correlations", 1e-5),
                            ("spin_correlations", 1e-5)):
        assert np.max(np.abs(np.asarray(qiskit[name]) - np.asarray(numpy[name]))) < tolerance, name
    assert all(vqe >= exact - 1e-9 for vqe, exact in zip(numpy["energies"], numpy["exact_energies"])), \
        "variational: never below the sector's exact ground energy"


def test_the_papers_half_filled_chain_reaches_its_published_energy():
    # Stanisic et al. (2022), the spin-echo figure of the supplement: the best one-layer ansatz state of the
    # half-filled 1 x 8 chain at U = 4 has energy -3.478 (the exact ground energy is -4.236)
    lattice = lattice_hubbard_snake(1, 8)
    hamiltonian, generators = hamiltonian_hubbard_jw(lattice, 1.0, 4.0), ansatz_hva_generators(lattice)
    initial = initialstate_slater_circuits(lattice_hopping_orbitals(lattice, 1.0), [8])
    angles = effector_vqe_angles(hamiltonian, generators, initial, restarts=3, seed=2022)
    (energy,) = observable_energies(hamiltonian, circuit_hva_ansatz(initial, generators, angles))
    assert energy == pytest.approx(-3.478, abs=5e-4)


def test_without_interaction_the_start_is_exact_and_its_energy_is_the_filled_orbitals():
    run = HUBBARD_HVA_VQE.run(U=0.0)
    levels = np.linalg.eigvalsh(np.diag([-1.0] * 3, 1) + np.diag([-1.0] * 3, -1))  # open chain of 4, t = 1
    expected = [sum(levels[:(N + 1) // 2]) + sum(levels[:N // 2]) for N in (1, 2, 3, 4)]
    assert run["energies"] == pytest.approx(expected, abs=1e-7)  # BFGS ends within its gradient tolerance


def test_particle_hole_symmetry_relates_fillings():
    # P H P^dagger = H + U (n - N) for N fermions on n sites (a bipartite open lattice): E(2n - N) = E(N) + U (n - N)
    run = HUBBARD_HVA_VQE.run(occupations=[1, 2, 3, 4, 5, 6, 7])
    energies, U = run["energies"], HUBBARD_HVA_VQE.params["U"]
    for N in (1, 2, 3):
        assert energies[8 - N - 1] == pytest.approx(energies[N - 1] + U * (4 - N), abs=1e-7), N


def test_fixed_particle_number_and_spin_make_correlations_sum_to_zero():
    run = HUBBARD_HVA_VQE.run()
    for charge, spin in zip(run["charge_correlations"], run["spin_correlations"]):
        assert charge[0] == pytest.approx(1.0) and sum(charge) == pytest.approx(0.0, abs=1e-9)
        matrix = np.asarray(spin)
        assert np.allclose(matrix, matrix.T) and np.allclose(matrix.sum(axis=1), 0.0, atol=1e-9)


def test_the_chemical_potential_is_the_energy_difference_and_says_what_it_lacks():
    run = HUBBARD_HVA_VQE.run()
    energies = [0.0, *run["energies"]]
    assert run["chemical_potentials"] == pytest.approx([b - a for a, b in zip(energies, energies[1:])], abs=1e-12)
    lattice = lattice_hubbard_snake(1, 4)
    initial = initialstate_slater_circuits(lattice_hopping_orbitals(lattice, 1.0), [3])
    circuits = circuit_hva_ansatz(initial, ansatz_hva_generators(lattice), [[0.1, 0.2, 0.3]])
    with pytest.raises(ValueError, match=r"occupations \[2\] are not computed"):
        observable_chemical_potentials(hamiltonian_hubbard_jw(lattice, 1.0, 4.0), circuits, [3])


@pytest.mark.parametrize("columns, rows, occupation", [(1, 8, 8), (1, 8, 5), (2, 4, 7), (2, 3, 2)])
def test_the_givens_circuit_prepares_the_determinant_of_the_lowest_orbitals(columns, rows, occupation):
    # N_sigma (n - N_sigma) rotations per spin; the state must be the product of one determinant per spin of the
    # hopping matrix's lowest orbitals (computed here from numpy's eigh), up to a global phase
    lattice = lattice_hubbard_snake(columns, rows)
    n, up, down = columns * rows, (occupation + 1) // 2, occupation // 2
    (circuit,) = initialstate_slater_circuits(lattice_hopping_orbitals(lattice, 1.0), [occupation])
    hopping = np.zeros((n, n))
    for a, b in lattice["bonds"]:
        hopping[a, b] = hopping[b, a] = -1.0
    orbitals = np.linalg.eigh(hopping)[1]
    expected = np.zeros(2 ** (2 * n))
    for ups in itertools.combinations(range(n), up):
        for downs in itertools.combinations(range(n), down):
            expected[sum(2**q for q in ups) + sum(2 ** (q + n) for q in downs)] = \
                np.linalg.det(orbitals[np.ix_(ups, range(up))]) * np.linalg.det(orbitals[np.ix_(downs, range(down))])
    assert abs(np.vdot(expected, Statevector(circuit).data)) == pytest.approx(1.0, abs=1e-10)
    rotations = sum(1 for instruction in circuit.data if instruction.operation.name != "x")
    assert rotations >= up * (n - up) + down * (n - down)


def test_the_snake_is_the_papers_numbering_and_the_groups_its_layer():
    # Fig. 1a: the 2 x 4 ladder is numbered 11, 21, 22, 12, 13, 23, 24, 14 (column, row); one layer has four angles
    ladder = lattice_hubbard_snake(2, 4)
    assert ladder["sites"] == [[1, 1], [2, 1], [2, 2], [1, 2], [1, 3], [2, 3], [2, 4], [1, 4]]
    assert ladder["groups"] == [[[0, 1], [2, 3], [4, 5], [6, 7]], [[0, 3], [4, 7], [1, 2], [5, 6]], [[3, 4], [2, 5]]]
    assert len(ansatz_hva_generators(ladder)) == 4 and len(ansatz_hva_generators(lattice_hubbard_snake(1, 8))) == 3
    sites, groups = snake(2, 4)
    assert [list(site) for site in sites] == ladder["sites"] and [[list(b) for b in g] for g in groups] == \
        ladder["groups"], "the numpy ansatz numbers the same way"
    with pytest.raises(ValueError, match="1 x L chain or a 2 x L ladder"):
        lattice_hubbard_snake(3, 3)


def test_the_spec_triple_finds_the_pipeline():
    assert pipeline_for_spec("qiskit", "fermi_hubbard", "open_grid", "vqe") is HUBBARD_HVA_VQE
