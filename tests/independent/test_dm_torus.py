"""Exact diagonalisation of the Dzyaloshinskii-Moriya torus (independent/dm_torus.py) against closed forms."""

from __future__ import annotations

import numpy as np
import pytest

from physvec.independent.dm_torus import dm_torus_ground_state, dm_torus_hamiltonian, skyrmion_number


def test_without_exchange_the_field_polarises_every_spin():
    # J = A = D = 0: H = B sum sz, the ground state has every sigma^z = -1, energy -B N, a product state
    ground = dm_torus_ground_state(3, 0.0, 0.0, 0.0, 1.0)
    assert ground.energy == pytest.approx(-9.0)
    assert ground.spins[:, 2] == pytest.approx(-0.5 * np.ones(9))
    assert ground.renyi_entropies == pytest.approx(np.zeros(9), abs=1e-9)


def test_the_ising_ferromagnet_in_a_field():
    # J = D = 0, A = 1/2: the polarised state has each of the 2 N bonds at -A and the field at -B per spin:
    # E = -(2A + B) N = -18 for nine spins
    assert dm_torus_ground_state(3, 0.0, 0.5, 0.0, 1.0).energy == pytest.approx(-18.0)


def test_the_hamiltonian_is_hermitian_and_the_dm_term_is_complex():
    hamiltonian = dm_torus_hamiltonian(3, 1.0, 0.5, 1.0, 1.0)
    assert abs(hamiltonian - hamiltonian.conj().T).max() < 1e-12
    assert abs(hamiltonian.imag).max() > 0.5, "the y-bond DM term carries sigma^y"


def test_the_paper_parameters_on_three_by_three():
    # the exact ground state is translation invariant (a unique level, gap 0.073): every spin the same, along z
    ground = dm_torus_ground_state(3, 1.0, 0.5, 1.0, 1.0)
    assert ground.gap > 0.05
    assert np.ptp(ground.spins, axis=0) == pytest.approx(np.zeros(3), abs=1e-8)
    assert ground.spins[0, :2] == pytest.approx([0.0, 0.0], abs=1e-8)
    # one spin's reduced density matrix is (1 + <sigma> . sigma) / 2: Tr rho^2 = (1 + |<sigma>|^2) / 2
    sigma = 2 * ground.spins[0]
    assert ground.renyi_entropies[0] == pytest.approx(-np.log((1 + sigma @ sigma) / 2), abs=1e-10)


def test_a_uniform_texture_has_no_skyrmion_and_a_wrapped_one_has_one():
    assert skyrmion_number(np.tile([0.0, 0.0, -1.0], (16, 1)), 4) == pytest.approx(0.0)
    L = 12
    x, y = np.meshgrid(np.arange(L) - L / 2 + 0.5, np.arange(L) - L / 2 + 0.5, indexing="ij")
    r, phi = np.hypot(x, y), np.arctan2(y, x)
    theta = np.pi * np.clip(1 - r / 5.0, 0, 1)  # z = -cos(theta): the core points up, the background down
    texture = np.stack([np.sin(theta) * np.cos(phi), np.sin(theta) * np.sin(phi), -np.cos(theta)], axis=-1)
    number = skyrmion_number(texture.reshape(-1, 3), L)
    assert abs(number) == pytest.approx(1.0, abs=1e-9)
    mirrored = texture.reshape(-1, 3) * np.array([1.0, -1.0, 1.0])
    assert skyrmion_number(mirrored, L) == pytest.approx(-number, abs=1e-9), "a mirror reverses the winding"
