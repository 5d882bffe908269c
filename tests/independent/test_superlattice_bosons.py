"""Exact diagonalisation of the super-lattice Bose-Hubbard chain agrees with closed forms and its hard-core limit."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physvec.independent.superlattice_bosons import (
    canonical_ground_state, edge_state_lengths, grand_canonical_ground_state, hard_core_density, participation_length,
    superlattice_chain,
)


def test_the_bonds_alternate_t1_on_odd_labels_as_in_the_papers_equation_one():
    chain = superlattice_chain(L=5, t1=1.0, t2=0.2, U=1.0, n_max=1, first_site=0)
    assert list(chain.hoppings) == [0.2, 1.0, 0.2, 1.0]
    assert list(superlattice_chain(L=5, t1=1.0, t2=0.2, U=1.0, n_max=1, first_site=-3).hoppings) == [1.0, 0.2, 1.0, 0.2]


def test_the_trap_is_centred_between_sites_minus_one_and_zero_and_the_step_covers_its_sites():
    chain = superlattice_chain(L=6, t1=1.0, t2=1.0, U=1.0, n_max=1, first_site=-3, omega=0.1, step=0.6,
                               step_first=-1, step_last=0)
    assert chain.potential == pytest.approx([0.1 * 6.25, 0.1 * 2.25, 0.1 * 0.25 + 0.6, 0.1 * 0.25 + 0.6,
                                             0.1 * 2.25, 0.1 * 6.25])


def test_one_boson_on_a_dimer_binds_at_minus_t_spread_evenly():
    state = canonical_ground_state(superlattice_chain(L=2, t1=0.7, t2=0.1, U=5.0, n_max=2, first_site=1), N=1)
    assert state.energy == pytest.approx(-0.7, abs=1e-12)
    assert state.density == pytest.approx([0.5, 0.5], abs=1e-12)


def test_two_bosons_on_a_dimer_have_the_closed_form_energy():
    # |2,0> + |0,2> couples to |1,1> with -2t: E = U/2 - sqrt(U^2/4 + 4 t^2)
    t, U = 0.3, 1.0
    state = canonical_ground_state(superlattice_chain(L=2, t1=t, t2=0.0, U=U, n_max=2, first_site=1), N=2)
    assert state.energy == pytest.approx(U / 2 - math.sqrt(U ** 2 / 4 + 4 * t ** 2), abs=1e-12)


def test_hard_core_bosons_have_the_free_fermion_densities_in_a_trap_with_a_step():
    # Jordan-Wigner on an open chain: the string cancels on nearest-neighbour bonds
    chain = superlattice_chain(L=9, t1=0.2, t2=0.05, U=1.0, n_max=1, first_site=-4, omega=0.01, step=0.3,
                               step_first=-1, step_last=1)
    for N in (3, 4, 5):
        assert canonical_ground_state(chain, N).density == pytest.approx(hard_core_density(chain, N=N), abs=1e-9)


def test_the_grand_canonical_hard_core_state_fills_every_orbital_below_mu():
    chain = superlattice_chain(L=7, t1=0.2, t2=0.04, U=1.0, n_max=1, first_site=0, omega=0.005)
    for mu in (-0.1, 0.05, 0.3):
        state = grand_canonical_ground_state(chain, mu)
        assert state.density == pytest.approx(hard_core_density(chain, mu=mu), abs=1e-9)


def test_strong_repulsion_approaches_the_hard_core_limit():
    chain = superlattice_chain(L=6, t1=0.2, t2=0.04, U=200.0, n_max=2, first_site=0)
    hard_core = superlattice_chain(L=6, t1=0.2, t2=0.04, U=200.0, n_max=1, first_site=0)
    assert np.max(np.abs(np.subtract(canonical_ground_state(chain, 3).density,
                                     hard_core_density(hard_core, N=3)))) < 1e-3


def test_the_dimerised_chain_leaves_its_weakly_bound_end_site_empty_at_half_filling_of_the_dimers():
    # first_site 0: bond (0, 1) is a weak t2 bond, so site 0 hangs off dimers (1,2), (3,4): the hole edge state
    state = canonical_ground_state(superlattice_chain(L=5, t1=0.1, t2=0.02, U=1.0, n_max=2, first_site=0), N=2)
    assert state.density[0] < 0.02 and sum(state.density[1:]) == pytest.approx(2 - state.density[0], abs=1e-9)


def test_a_chemical_potential_must_come_alone():
    chain = superlattice_chain(L=3, t1=1.0, t2=1.0, U=1.0, n_max=1)
    with pytest.raises(ValueError, match="exactly one"):
        hard_core_density(chain, N=1, mu=0.0)
    with pytest.raises(ValueError, match="do not fit"):
        canonical_ground_state(chain, 4)


def test_the_participation_length_counts_the_sites_an_excess_spreads_over():
    # an excess of 0.1 on four sites (and a deficit elsewhere, ignored): (4 x 0.1)^2 / (4 x 0.01) = 4
    assert participation_length([0.6, 0.6, 0.6, 0.6, 0.2, 0.5], 1) == pytest.approx(4.0)
    assert participation_length([0.6, 0.6, 0.6, 0.6, 0.2, 0.5], -1) == pytest.approx(1.0)
    assert participation_length([0.5, 0.5], 1) == 0.0


def test_hard_core_edge_states_have_the_free_fermion_edge_level_and_the_exact_lengths():
    chain = superlattice_chain(L=7, t1=0.2, t2=0.04, U=1.0, n_max=1, first_site=0)
    exact_hole, exact_particle = canonical_ground_state(chain, 3), canonical_ground_state(chain, 4)
    mu_e, xi_p, xi_h = edge_state_lengths(chain, 3)
    assert mu_e == pytest.approx(exact_particle.energy - exact_hole.energy, abs=1e-12)
    assert xi_p == pytest.approx(participation_length(exact_particle.density, 1), rel=1e-9)
    assert xi_h == pytest.approx(participation_length(exact_hole.density, -1), rel=1e-9)
