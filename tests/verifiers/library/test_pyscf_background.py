"""PySCF background functions on H2, HeH+ and water in STO-3G.

Reference: Szabo & Ostlund, Modern Quantum Chemistry (1996), section 3.5: minimal-basis H2 at
R = 1.4 bohr has E_RHF = -1.117 Ha and orbital energies -0.578 and +0.670 Ha; their STO-3G water at
R(OH) = 1.809 bohr and 104.52 degrees has E_RHF = -74.963 Ha.  An RKS calculation with xc = "hf" is
Hartree-Fock, so it must reproduce them too.
"""

from __future__ import annotations

import pytest

import numpy as np

from physvec.verifiers.library.pyscf_background import (
    BOND_SCAN_RHF, MOLECULE_RHF, MOLECULE_RKS, effector_rhf, effector_rks, item_molecule, observable_orbital_energies,
    observable_total_energy,
)

H2_AT_1_4_BOHR = "H 0 0 0; H 0 0 0.7408481"  # 1.4 bohr in angstrom


def test_hartree_fock_h2_matches_the_textbook_values():
    calculation = effector_rks(item_molecule(H2_AT_1_4_BOHR, "sto-3g", 0), "hf")
    assert observable_total_energy(calculation) == pytest.approx(-1.117, abs=1e-3)
    assert observable_orbital_energies(calculation) == pytest.approx([-0.578, 0.670], abs=1e-3)


def test_the_b3lyp_pipeline_lies_below_hartree_fock():
    """Correlation lowers the energy: B3LYP below RHF for H2 near equilibrium."""
    energy = MOLECULE_RKS.run()["energy"]
    hartree_fock = observable_total_energy(effector_rks(item_molecule(MOLECULE_RKS.params["atom"], "sto-3g", 0), "hf"))
    assert energy < hartree_fock and energy == pytest.approx(-1.16, abs=0.03)


def _szabo_ostlund_water() -> str:
    bond, half_angle = 1.809 * 0.529177210903, np.deg2rad(104.52 / 2)  # bohr -> angstrom
    y, z = bond * np.sin(half_angle), bond * np.cos(half_angle)
    return f"O 0 0 0; H 0 {y} {z}; H 0 {-y} {z}"


def test_restricted_hartree_fock_water_matches_the_textbook_value():
    molecule = item_molecule(_szabo_ostlund_water(), "sto-3g", 0)
    assert observable_total_energy(effector_rhf(molecule, 1e-9)) == pytest.approx(-74.963, abs=1e-3)
    assert observable_total_energy(effector_rks(molecule, "hf")) == pytest.approx(-74.963, abs=1e-3)


def test_the_rhf_pipeline_gives_five_occupied_levels_for_water():
    namespace = MOLECULE_RHF.run()
    levels = observable_orbital_energies(namespace["calculation"])
    assert len(levels) == 7 and sum(level < 0 for level in levels) == 5, "ten electrons in seven STO-3G orbitals"
    assert namespace["energy"] == pytest.approx(-74.96, abs=0.01), "near the textbook geometry"


def test_restricted_hartree_fock_h2_agrees_with_an_independent_implementation():
    # independent/minimal_basis_rhf.py: textbook Gaussian integrals and SCF, no PySCF
    from physvec.independent.minimal_basis_rhf import restricted_hartree_fock

    independent = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))])
    calculation = effector_rhf(item_molecule(H2_AT_1_4_BOHR, "sto-3g", 0), 1e-10)
    assert observable_total_energy(calculation) == pytest.approx(independent.energy, abs=1e-6)
    assert observable_orbital_energies(calculation) == pytest.approx(independent.orbital_energies, abs=1e-6)


def test_the_bond_scan_gives_one_energy_per_bond_length_in_scan_order():
    from physvec.independent.minimal_basis_rhf import BOHR_IN_ANGSTROM, restricted_hartree_fock

    lengths = [1.2, 0.7408481]
    energies = BOND_SCAN_RHF.run(bond_lengths=lengths, conv_tol=1e-10)["energies"]
    independent = [restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, r / BOHR_IN_ANGSTROM))]).energy
                   for r in lengths]
    assert energies == pytest.approx(independent, abs=1e-8)
    assert energies[1] == pytest.approx(-1.117, abs=1e-3), "the textbook point, second in the scan"


def test_a_charged_molecule_loses_its_electrons():
    # HeH+ at 1.4632 bohr: two electrons, closed shell; the neutral would have three
    namespace = MOLECULE_RHF.run(atom="He 0 0 0; H 0 0 0.7743", basis="sto-3g", charge=1, conv_tol=1e-10)
    assert namespace["mol"].nelectron == 2 and len(namespace["orbital_energies"]) == 2
    assert namespace["energy"] == pytest.approx(-2.84, abs=0.01)
