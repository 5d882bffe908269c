"""The Dzyaloshinskii-Moriya RBM pipeline (Joshi, Peters and Posske, PRB 110, 104411 (2024), Fig. 2) against exact
diagonalisation of the same torus without NetKet (independent/dm_torus.py) and closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from physvec.independent.dm_torus import dm_torus_ground_state, skyrmion_number
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.netket_skyrmion import (
    DM_SKYRMION_RBM, lattice_dm_torus_bonds, one_site_renyi_entropies, skyrmion_number_of,
)
from physvec.verifiers.library.netket_skyrmion import _solid_angle_sum


@pytest.fixture(scope="module")
def paper_point():
    # nine spins at the paper's D = J, A = J / 2, B = J; 1000 Adam steps on exact sums (about a minute)
    return DM_SKYRMION_RBM.run(n_iter=1000), dm_torus_ground_state(3, 1.0, 0.5, 1.0, 1.0)


def test_the_energy_reaches_the_exact_ground_state_from_above(paper_point):
    run, exact = paper_point
    # measured: -2.34817 per spin against the exact -2.34942 (5e-4 of it)
    assert run["energy_density"] == pytest.approx(exact.energy / 9, rel=1e-3)
    assert min(run["energy_density_history"]) >= exact.energy / 9 - 1e-9, "the variational bound, exact sums"
    assert len(run["energy_density_history"]) == 1000


def test_spins_and_entropies_follow_the_exact_state(paper_point):
    run, exact = paper_point
    # the network leaves a small in-plane component (the next level is 0.073 above): 0.05 in S
    assert np.asarray(run["spin_expectations"]) == pytest.approx(exact.spins, abs=0.05)
    assert run["renyi_entropies"] == pytest.approx(exact.renyi_entropies, abs=0.02)
    assert run["skyrmion_number"] == pytest.approx(0.0, abs=1e-6), "no skyrmion below 9 x 9 (the paper's text)"


def test_without_exchange_the_network_polarises_against_the_field():
    run = DM_SKYRMION_RBM.run(J=0.0, A=0.0, D=0.0, n_iter=300)
    assert run["energy_density"] == pytest.approx(-1.0, abs=1e-3)
    assert np.asarray(run["spin_expectations"])[:, 2] == pytest.approx(-0.5 * np.ones(9), abs=1e-3)


def test_one_site_renyi_entropy_is_zero_for_a_pure_spin_and_ln2_for_a_mixed_one():
    assert one_site_renyi_entropies([[0.0, 0.0, 0.5], [0.0, 0.0, 0.0]]) == pytest.approx([0.0, np.log(2)])


def test_the_skyrmion_numbers_agree_with_the_independent_sum():
    rng = np.random.default_rng(0)
    spins = rng.normal(size=(16, 3)) * 0.3
    assert skyrmion_number_of(spins.tolist(), 4) == pytest.approx(skyrmion_number(spins, 4), abs=1e-12)
    full = spins / (2 * np.linalg.norm(spins, axis=1, keepdims=True))
    assert _solid_angle_sum(2 * full, 4) == pytest.approx(skyrmion_number_of(full.tolist(), 4), abs=1e-12), \
        "Q = N for spins of full length"


def test_the_torus_has_two_bonds_a_site_and_small_tori_are_refused():
    bonds = lattice_dm_torus_bonds(3)
    assert len(bonds) == 18 and len({frozenset(bond[:2]) for bond in bonds}) == 18
    with pytest.raises(ValueError, match="L >= 3"):
        lattice_dm_torus_bonds(2)
    assert pipeline_for_spec("netket", "heisenberg_dm", "square_torus", "vmc_rbm_adam") is DM_SKYRMION_RBM
