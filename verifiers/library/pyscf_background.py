"""PySCF backgrounds: a molecule (or a scan of a diatomic's bond length), a converged Kohn-Sham or
restricted Hartree-Fock calculation, and its total and orbital energies (hartree).  Geometries are in
angstrom, as PySCF reads them by default."""

from __future__ import annotations

from pyscf import dft, gto, scf

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def item_molecule(atom: str, basis: str, charge: int) -> gto.Mole:
    return gto.M(atom=atom, basis=basis, charge=charge, verbose=0)


def item_bond_scan(elements: str, bond_lengths: list[float], basis: str, charge: int) -> list[gto.Mole]:
    """The diatomic ``elements`` ("H H", "He H") along z at each bond length (angstrom), in scan order."""
    first, second = elements.split()
    return [gto.M(atom=f"{first} 0 0 0; {second} 0 0 {length}", basis=basis, charge=charge, verbose=0)
            for length in bond_lengths]


def effector_rks(mol: gto.Mole, xc: str) -> dft.rks.RKS:
    calculation = dft.RKS(mol)
    calculation.xc = xc
    calculation.kernel()
    return calculation


def effector_rhf(mol: gto.Mole, conv_tol: float) -> scf.hf.RHF:
    """Restricted Hartree-Fock converged until the energy changes by less than ``conv_tol`` hartree."""
    calculation = scf.RHF(mol)
    calculation.conv_tol = conv_tol
    calculation.kernel()
    return calculation


def effector_rhf_scan(molecules: list[gto.Mole], conv_tol: float) -> list[scf.hf.RHF]:
    """One restricted Hartree-Fock calculation per geometry of the scan, each converged to ``conv_tol``."""
    calculations = [scf.RHF(mol) for mol in molecules]
    for calculation in calculations:
        calculation.conv_tol = conv_tol
        calculation.kernel()
    return calculations


def observable_scan_energies(calculations: list[scf.hf.SCF]) -> list[float]:
    return [float(calculation.e_tot) for calculation in calculations]


def observable_total_energy(calculation: scf.hf.SCF) -> float:
    return float(calculation.e_tot)


def observable_orbital_energies(calculation: scf.hf.SCF) -> list[float]:
    return [float(energy) for energy in calculation.mo_energy]


MOLECULE_RKS = BackgroundPipeline(
    backend="pyscf", name="molecule_rks",
    model="molecule", lattice="molecule", method="rks",
    params={"atom": "H 0 0 0; H 0 0 0.74", "basis": "sto-3g", "charge": 0, "xc": "b3lyp"},
    steps=(
        BackgroundStep("item", item_molecule, "mol"),
        BackgroundStep("effector", effector_rks, "calculation"),
        BackgroundStep("observable", observable_total_energy, "energy"),
    ),
)

MOLECULE_RHF = BackgroundPipeline(
    backend="pyscf", name="molecule_rhf",
    model="molecule", lattice="molecule", method="rhf",
    params={"atom": "O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", "basis": "sto-3g", "charge": 0,
            "conv_tol": 1e-9},
    steps=(
        BackgroundStep("item", item_molecule, "mol"),
        BackgroundStep("effector", effector_rhf, "calculation"),
        BackgroundStep("observable", observable_total_energy, "energy"),
        BackgroundStep("observable", observable_orbital_energies, "orbital_energies"),
    ),
)

BOND_SCAN_RHF = BackgroundPipeline(
    backend="pyscf", name="bond_scan_rhf",
    model="diatomic", lattice="bond_scan", method="rhf",
    params={"elements": "H H", "bond_lengths": [0.6, 0.74, 1.0], "basis": "sto-3g", "charge": 0, "conv_tol": 1e-9},
    steps=(
        BackgroundStep("item", item_bond_scan, "molecules"),
        BackgroundStep("effector", effector_rhf_scan, "calculations"),
        BackgroundStep("observable", observable_scan_energies, "energies"),
    ),
)

PIPELINES = (MOLECULE_RKS, MOLECULE_RHF, BOND_SCAN_RHF)
