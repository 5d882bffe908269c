"""The Hubbard-ring IQPE pipeline (Mirzakhani and Moon 2025, the six-site ring of a graphene hexagon) against the
same phase estimation written again in numpy on occupation bit strings (independent/hubbard_iqpe.py, no Qiskit),
and against what holds exactly: the ring's levels -2 gamma cos(2 pi k / L), free fermions at U = 0, a single
fermion that never meets another, and the bounds that choose the evolution time.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from physvec.independent.hubbard_iqpe import iqpe_point, iqpe_results
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.qiskit_hubbard_iqpe import (
    HUBBARD_RING_IQPE, effector_iqpe_phases, hamiltonian_hubbard_ring_terms, lattice_hubbard_ring, lattice_ring_orbitals,
)

HEXAGON = {"L": 6, "U": 3.0, "occupations": [3, 6, 8], "bits": 5, "trotter_steps": 15}


@pytest.mark.parametrize("changes", [{}, HEXAGON], ids=["4-site ring", "hexagon at U = 3"])
def test_every_energy_is_the_numpy_phase_estimation(changes):
    parameters = {**HUBBARD_RING_IQPE.params, **changes}
    qiskit, numpy = HUBBARD_RING_IQPE.run(**changes), iqpe_results(parameters)
    assert np.asarray(qiskit["energies"]) == pytest.approx(np.asarray(numpy["energies"]), abs=1e-9), \
        "the same bits: the energies agree to rounding"
    assert np.asarray(qiskit["evolution_times"]) == pytest.approx(np.asarray(numpy["evolution_times"]), abs=1e-12)


def test_without_interaction_the_estimate_is_the_filled_levels_within_one_bit():
    # U = 0: the determinant is the ground state of H_0; levels -2 cos(2 pi k / 6) = -2, -1, -1, 1, 1, 2, so two,
    # six and ten fermions (closed shells) have E = -4, -8, -4.  The window is then 2 margin wide, t = pi, and five
    # bits resolve 2 pi / (32 t) = 1/16; 20 steps keep the product formula's phase error below that
    run = HUBBARD_RING_IQPE.run(L=6, U=0.0, occupations=[2, 6, 10], bits=5, trotter_steps=20)
    resolution = 2 * math.pi / (2 ** 5 * math.pi)
    for (energy,), exact in zip(run["energies"], (-4.0, -8.0, -4.0)):
        assert abs(energy - exact) <= resolution


def test_a_single_fermion_never_meets_another():
    # n_up n_down vanishes on one fermion: U changes neither its evolution nor the time the bounds choose
    weak, strong = (HUBBARD_RING_IQPE.run(L=6, U=U, occupations=[1]) for U in (0.0, 7.0))
    assert np.asarray(weak["energies"]) == pytest.approx(np.asarray(strong["energies"]), abs=1e-12)
    assert np.asarray(weak["evolution_times"]) == pytest.approx(np.asarray(strong["evolution_times"]), abs=1e-12)


@pytest.mark.parametrize("occupation, U", [(3, 3.0), (6, 3.0), (8, 6.0), (6, 0.5)])
def test_the_bounds_put_the_exact_ground_energy_inside_the_phase_window(occupation, U):
    # E_free <= E_0 <= E_SD (E_0 by exact diagonalisation of the sector): the window (c - 2 pi / t, c) holds E_0
    # with at least the margin to spare, so its phase is neither 0 nor wrapped
    point = iqpe_point(6, 1.0, occupation, U, 5, 15, 1.0)
    assert point["offset"] - 2 * math.pi / point["time"] + 1.0 <= point["exact"] + 1e-12
    assert point["exact"] <= point["offset"] - 1.0 + 1e-12


def test_the_standing_waves_are_the_rings_orbitals_and_the_spins_split_a_degenerate_pair():
    # the hopping matrix -gamma on the ring's bonds has the levels -2 gamma cos(2 pi k / L); spin up takes the
    # cosine of a pair first, spin down the sine: the same levels, different waves
    lattice = lattice_hubbard_ring(6)
    up, down = np.asarray(lattice_ring_orbitals(lattice, 1.0))
    hopping = np.zeros((6, 6))
    for a, b in lattice["bonds"]:
        hopping[a, b] = hopping[b, a] = -1.0
    for orbitals in (up, down):
        levels = np.einsum("ik,ij,jk->k", orbitals, hopping, orbitals)
        assert orbitals.T @ orbitals == pytest.approx(np.eye(6), abs=1e-12)
        assert hopping @ orbitals == pytest.approx(orbitals * levels, abs=1e-12)
        assert levels == pytest.approx([-2.0, -1.0, -1.0, 1.0, 1.0, 2.0], abs=1e-12)
    assert abs(up[:, 1] @ down[:, 1]) < 1e-12, "the second wave differs between the spins"


def test_the_split_pair_reaches_the_four_fermion_ground_state():
    # both spins in the cosine of k = 1 is even under the reflection j -> -j, the four-fermion ground state at U = 3
    # is not (exact diagonalisation: no weight); with the spins split the determinant has weight on it and IQPE
    # reads the ground energy -4.914 (exact) to within its resolution
    run = HUBBARD_RING_IQPE.run(L=6, U=3.0, occupations=[4], bits=5, trotter_steps=15)
    resolution = 2 * math.pi / (2 ** 5 * run["evolution_times"][0][0])
    assert run["energies"][0][0] == pytest.approx(iqpe_point(6, 1.0, 4, 3.0, 5, 15, 1.0)["exact"], abs=resolution)


def test_one_parameter_is_scanned_at_a_time():
    terms = hamiltonian_hubbard_ring_terms(lattice_hubbard_ring(4), 1.0)
    with pytest.raises(ValueError, match="scan one of"):
        effector_iqpe_phases(terms, [], [1.0, 2.0], [3, 4], [5], 1.0)
    with pytest.raises(ValueError, match="U >= 0"):
        effector_iqpe_phases(terms, [], [-1.0], [3], [5], 1.0)


def test_a_ring_iqpe_spec_chooses_this_pipeline():
    assert pipeline_for_spec("qiskit", "fermi_hubbard", "ring", "iqpe") is HUBBARD_RING_IQPE
