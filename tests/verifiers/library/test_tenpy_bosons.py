"""The super-lattice Bose-Hubbard pipelines against exact diagonalisation and the hard-core (free-fermion) limit.

References: independent/superlattice_bosons.py (occupation-basis ED with the same site cap; free fermions by
Jordan-Wigner at n_max = 1), which imports nothing of TeNPy.
"""

from __future__ import annotations

import pytest

from physvec.independent.superlattice_bosons import (
    canonical_ground_state, edge_state_lengths, grand_canonical_ground_state, hard_core_density, superlattice_chain,
)
from physvec.verifiers.library.tenpy_bosons import (
    SUPERLATTICE_BOSE_HUBBARD, SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL, SUPERLATTICE_EDGE_SCAN,
    lattice_superlattice_potential,
)


def _chain(params: dict) -> object:
    return superlattice_chain(L=params["L"], t1=params["t1"], t2=params["t2"], U=params["U"], n_max=params["n_max"],
                              first_site=params["first_site"], omega=params["omega"], step=params["step"],
                              step_first=params["step_first"], step_last=params["step_last"])


def test_the_potential_is_the_independent_models():
    params = SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL.params
    potential = lattice_superlattice_potential(params["L"], params["first_site"], params["omega"], params["step"],
                                               params["step_first"], params["step_last"])
    assert potential == pytest.approx(list(_chain(params).potential), abs=1e-15)


@pytest.fixture(scope="module")
def canonical() -> dict:
    return SUPERLATTICE_BOSE_HUBBARD.run()


def test_the_hole_and_particle_states_match_exact_diagonalisation(canonical):
    params = SUPERLATTICE_BOSE_HUBBARD.params
    hole, particle = (canonical_ground_state(_chain(params), N) for N in (params["N"], params["N"] + 1))
    assert canonical["energy"] == pytest.approx(hole.energy, abs=1e-8)
    assert canonical["density"] == pytest.approx(hole.density, abs=1e-6)
    assert canonical["density_added_boson"] == pytest.approx(particle.density, abs=1e-6)
    assert canonical["edge_chemical_potential"] == pytest.approx(particle.energy - hole.energy, abs=1e-8)


def test_the_weakly_bound_end_site_is_empty_with_n_bosons_and_filled_with_one_more(canonical):
    # site 0 hangs off the chain by a t2 bond: the hole and particle edge states of the paper's Fig. 2 (b)
    assert canonical["density"][0] < 0.05 and canonical["density_added_boson"][0] > 0.9


def test_the_grand_canonical_chain_matches_exact_diagonalisation_over_every_boson_number():
    params = SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL.params
    namespace = SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL.run()
    exact = grand_canonical_ground_state(_chain(params), params["mu"])
    assert namespace["energy"] == pytest.approx(exact.energy, abs=1e-8)
    assert namespace["boson_number"] == pytest.approx(exact.N, abs=1e-6)
    assert namespace["density"] == pytest.approx(exact.density, abs=1e-6)


def test_hard_core_bosons_on_the_published_open_chain_have_the_free_fermion_densities():
    # Fig. 2's 65 sites, n_max = 1: Jordan-Wigner makes them free fermions, at a length ED cannot reach
    params = {**SUPERLATTICE_BOSE_HUBBARD.params, "L": 65, "N": 32, "n_max": 1, "chi_max": 64}
    namespace = SUPERLATTICE_BOSE_HUBBARD.run(**params)
    chain = _chain(params)
    assert namespace["density"] == pytest.approx(hard_core_density(chain, N=32), abs=1e-6)
    assert namespace["density_added_boson"] == pytest.approx(hard_core_density(chain, N=33), abs=1e-6)


def test_hard_core_bosons_in_the_trap_fill_the_free_fermion_orbitals_below_mu():
    params = {**SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL.params, "L": 24, "first_site": -12, "omega": 0.004,
              "step_first": -3, "step_last": 2, "n_max": 1}
    namespace = SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL.run(**params)
    assert namespace["density"] == pytest.approx(hard_core_density(_chain(params), mu=params["mu"]), abs=1e-5)


def test_the_edge_scan_matches_exact_diagonalisation_at_every_t1():
    params = SUPERLATTICE_EDGE_SCAN.params
    namespace = SUPERLATTICE_EDGE_SCAN.run()
    for index, t1 in enumerate(params["t1_values"]):
        chain = superlattice_chain(L=params["L"], t1=t1, t2=t1 / params["t1_over_t2"], U=params["U"],
                                   n_max=params["n_max"], first_site=params["first_site"])
        mu_e, xi_p, xi_h = edge_state_lengths(chain, params["N"])
        assert namespace["edge_chemical_potentials"][index] == pytest.approx(mu_e, abs=1e-8)
        assert namespace["particle_localisation_lengths"][index] == pytest.approx(xi_p, abs=1e-5)
        assert namespace["hole_localisation_lengths"][index] == pytest.approx(xi_h, abs=1e-5)


def test_the_particle_state_spreads_as_t1_grows_while_the_hole_stays_at_the_edge():
    # the paper's Fig. 2 (f): xi_p grows towards (t1/U)_c, xi_h stays about one site
    namespace = SUPERLATTICE_EDGE_SCAN.run()
    particle, hole = namespace["particle_localisation_lengths"], namespace["hole_localisation_lengths"]
    assert particle[0] < particle[1] < particle[2]
    assert all(xi_h < 1.5 for xi_h in hole)
