"""The independent reference methods agree with closed forms, printed values and each other."""

from __future__ import annotations

import math

import numpy as np
import pytest

from qmp_bench.independent.minimal_basis_rhf import restricted_hartree_fock
from qmp_bench.independent.quench import quench_magnetization
from qmp_bench.independent.spin_chains import ground_state, heisenberg, ising_zz_x, open_tfi_free_fermion_energy


def test_two_spins_form_a_singlet():
    assert ground_state(heisenberg(2, 1.0, periodic=False))[0] / 4 == pytest.approx(-0.75, abs=1e-12)


def test_heisenberg_rings_approach_the_bethe_ansatz_energy_per_site_as_one_over_L_squared():
    # Hulthen (1938): e = 1/4 - ln 2 per site in the thermodynamic limit; on rings the finite-size
    # correction falls as 1/L^2, so the error shrinks by about (8/12)^2 from L = 8 to L = 12
    bethe = 0.25 - math.log(2)
    errors = [ground_state(heisenberg(L, 1.0, periodic=True))[0] / 4 / L - bethe for L in (8, 12)]
    assert errors[0] < 0 and errors[1] < 0 and 0.35 < errors[1] / errors[0] < 0.55


def test_the_free_fermion_tfi_energy_equals_exact_diagonalisation():
    # H = -J sum X X - g sum Z: the X <-> Z relabelling of -J sum Z Z - g sum X, same spectrum
    for g in (0.3, 1.0, 2.5):
        exact = ground_state(ising_zz_x(10, 1.0, g, periodic=False))[0]
        assert open_tfi_free_fermion_energy(10, 1.0, g) == pytest.approx(exact, abs=1e-9)


def test_free_spins_precess_as_cos_2ht():
    for h, t in ((1.0, 1.0), (0.5, 2.0)):
        assert quench_magnetization(4, 0.0, h, t) == pytest.approx(math.cos(2 * h * t), abs=1e-12)


def test_the_textbook_hartree_fock_reproduces_the_printed_h2_values():
    # Szabo & Ostlund (1996), section 3.5: E = -1.117 hartree, orbital energies -0.578 and +0.670
    h2 = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))])
    assert h2.energy == pytest.approx(-1.117, abs=5e-4)
    assert h2.orbital_energies == pytest.approx([-0.578, 0.670], abs=5e-4)


def test_hartree_fock_of_one_basis_function_is_the_closed_form():
    helium = restricted_hartree_fock([("He", (0, 0, 0))])
    assert helium.orbital_energies[0] < 0 and helium.energy == pytest.approx(-2.8078, abs=1e-4)
    assert restricted_hartree_fock([("He", (1.0, 2.0, 3.0))]).energy == pytest.approx(helium.energy, abs=1e-12)


def test_an_odd_electron_count_is_refused():
    with pytest.raises(ValueError, match="even number"):
        restricted_hartree_fock([("H", (0, 0, 0)), ("He", (0, 0, 1.0))])


def test_the_stretched_h2_lies_far_above_two_hydrogen_atoms():
    # restricted Hartree-Fock cannot separate H2 into two atoms (the textbook failure at large R): at 5 bohr
    # it lies far above two exact hydrogen atoms (-1/2 hartree each) and above its own equilibrium
    stretched = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 5.0))]).energy
    equilibrium = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))]).energy
    assert np.isfinite(stretched) and stretched > -1.0 + 0.25 and stretched > equilibrium
