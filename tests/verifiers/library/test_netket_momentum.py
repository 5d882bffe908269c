"""The momentum-projected networks (Choo, Carleo, Regnault, Neupert, PRL 121, 167204 (2018), Figs. 1a and 2)
against exact diagonalisation in each momentum sector, built without NetKet (independent/spin_momentum.py and
independent/bose_hubbard.py), and the symmetry the projection promises."""

from __future__ import annotations

import jax
import netket as nk
import numpy as np
import pytest

from physvec.independent.bose_hubbard import lowest_energies_by_momentum
from physvec.independent.spin_chains import heisenberg_sector_energy
from physvec.independent.spin_momentum import heisenberg_lowest_energies_by_momentum
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.netket_momentum import (
    BOSE_HUBBARD_MOMENTUM_FFNN, HEISENBERG_MOMENTUM_RBM, ansatz_rbm_visible, hamiltonian_heisenberg_ring,
    lattice_ring,
)


def test_the_independent_spin_sectors_hold_the_ring_s_ground_state():
    # the lowest sector minimum is the zero-magnetisation ground energy of the full sparse matrix; the 8-spin
    # ring's is 4 x (-3.6510934) = -14.6043736 (Pauli units), its ground state at k = 0
    energies = heisenberg_lowest_energies_by_momentum(8, 1.0)
    assert min(energies) == pytest.approx(heisenberg_sector_energy(8, 1.0, 0, periodic=True), abs=1e-9)
    assert energies[0] == pytest.approx(-14.6043736, abs=1e-6)
    assert energies[1:] == pytest.approx(energies[1:][::-1], abs=1e-9), "k and -k are degenerate"


@pytest.fixture(scope="module")
def spin_run() -> dict:
    return HEISENBERG_MOMENTUM_RBM.run()  # L = 8, 60 SR steps per sector: about 35 s


@pytest.fixture(scope="module")
def boson_run() -> dict:
    return BOSE_HUBBARD_MOMENTUM_FFNN.run()  # L = N = 6: about 35 s


def test_the_rbm_finds_every_heisenberg_sector_minimum(spin_run):
    exact = heisenberg_lowest_energies_by_momentum(8, 1.0)[:5]
    energies = spin_run["energies"]
    assert len(energies) == 5, "m = 0 .. L/2"
    assert energies == pytest.approx(exact, rel=2e-3)
    # variational, up to the Monte Carlo error of 512 samples (measured below 1e-3 of |E|)
    assert all(e > x - 1e-3 * abs(x) for e, x in zip(energies, exact))


def test_the_network_finds_every_bose_hubbard_sector_minimum(boson_run):
    exact = lowest_energies_by_momentum(6, 6, 1.0, 1.0)[:4]
    assert boson_run["energies"] == pytest.approx(exact, rel=0.01)
    assert all(e > x - 1e-3 * abs(x) for e, x in zip(boson_run["energies"], exact))


def test_neighbouring_sectors_are_told_apart(spin_run, boson_run):
    # the evidence compares sector by sector at 2 %: a script that trained every sector at k = 0, or labelled
    # sector m + 1 as m, differs by more than that in these small rings
    for energies in (spin_run["energies"], boson_run["energies"]):
        gaps = np.abs(np.diff(energies)) / np.abs(energies[1:])
        assert gaps.min() > 0.04


def test_the_projected_network_is_a_momentum_eigenstate():
    # psi_k(T s) = e^{+-ik} psi_k(s) for every configuration of a random network, the phase the same for all
    graph = lattice_ring(8)
    hilbert = hamiltonian_heisenberg_ring(graph, 1.0).hilbert
    translations = graph.translation_group()
    shifts = np.array([int(np.argmax(np.asarray(e) == 0)) for e in translations.to_array()])
    model = nk.nn.blocks.SymmExpSum(module=ansatz_rbm_visible(1.0), symm_group=translations,
                                    characters=nk.utils.HashableArray(np.exp(-2j * np.pi * 3 * shifts / 8)))
    states = hilbert.all_states()
    params = model.init(jax.random.PRNGKey(1), states[:1])
    psi = np.exp(np.asarray(model.apply(params, states)))
    moved = np.exp(np.asarray(model.apply(params, np.roll(states, 1, axis=1))))
    ratios = moved[np.abs(psi) > 1e-8] / psi[np.abs(psi) > 1e-8]
    assert np.abs(ratios) == pytest.approx(1.0, abs=1e-9)
    assert np.angle(ratios) == pytest.approx(np.angle(ratios[0]), abs=1e-9)
    assert abs(np.cos(np.angle(ratios[0])) - np.cos(2 * np.pi * 3 / 8)) < 1e-9


def test_a_spin_ring_whose_length_is_not_a_multiple_of_four_is_refused():
    with pytest.raises(ValueError, match="multiple of 4"):
        hamiltonian_heisenberg_ring(lattice_ring(6), 1.0)


def test_specs_find_these_pipelines():
    assert pipeline_for_spec("netket", "heisenberg", "ring", "vmc_momentum_rbm") is HEISENBERG_MOMENTUM_RBM
    assert pipeline_for_spec("netket", "bose_hubbard", "ring", "vmc_momentum_ffnn") is BOSE_HUBBARD_MOMENTUM_FFNN
