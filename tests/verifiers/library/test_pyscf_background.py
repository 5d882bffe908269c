"""PySCF background functions on H2 in STO-3G.

Reference: Szabo & Ostlund, Modern Quantum Chemistry (1996), section 3.5: minimal-basis H2 at
R = 1.4 bohr has E_RHF = -1.117 Ha and orbital energies -0.578 and +0.670 Ha.  An RKS calculation
with xc = "hf" is Hartree-Fock, so it must reproduce them.
"""

from __future__ import annotations

import pytest

from verifiers.library.pyscf_background import (
    MOLECULE_RKS, effector_rks, item_molecule, observable_orbital_energies, observable_total_energy,
)

H2_AT_1_4_BOHR = "H 0 0 0; H 0 0 0.7408481"  # 1.4 bohr in angstrom


def test_hartree_fock_h2_matches_the_textbook_values():
    calculation = effector_rks(item_molecule(H2_AT_1_4_BOHR, "sto-3g"), "hf")
    assert observable_total_energy(calculation) == pytest.approx(-1.117, abs=1e-3)
    assert observable_orbital_energies(calculation) == pytest.approx([-0.578, 0.670], abs=1e-3)


def test_the_b3lyp_pipeline_lies_below_hartree_fock():
    """Correlation lowers the energy: B3LYP below RHF for H2 near equilibrium."""
    energy = MOLECULE_RKS.run()["energy"]
    hartree_fock = observable_total_energy(effector_rks(item_molecule(MOLECULE_RKS.params["atom"], "sto-3g"), "hf"))
    assert energy < hartree_fock and energy == pytest.approx(-1.16, abs=0.03)
