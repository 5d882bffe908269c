"""PySCF backgrounds: a molecule, a converged Kohn-Sham or restricted Hartree-Fock calculation, and its
total and orbital energies (hartree)."""

from __future__ import annotations

from pyscf import dft, gto, scf

from verifiers.library import BackgroundPipeline, BackgroundStep


def item_molecule(atom: str, basis: str) -> gto.Mole:
    return gto.M(atom=atom, basis=basis, verbose=0)


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


def observable_total_energy(calculation: scf.hf.SCF) -> float:
    return float(calculation.e_tot)


def observable_orbital_energies(calculation: scf.hf.SCF) -> list[float]:
    return [float(energy) for energy in calculation.mo_energy]


MOLECULE_RKS = BackgroundPipeline(
    backend="pyscf", name="molecule_rks",
    model="molecule", lattice="molecule", method="rks",
    params={"atom": "H 0 0 0; H 0 0 0.74", "basis": "sto-3g", "xc": "b3lyp"},
    steps=(
        BackgroundStep("item", item_molecule, "mol"),
        BackgroundStep("effector", effector_rks, "calculation"),
        BackgroundStep("observable", observable_total_energy, "energy"),
    ),
)

MOLECULE_RHF = BackgroundPipeline(
    backend="pyscf", name="molecule_rhf",
    model="molecule", lattice="molecule", method="rhf",
    params={"atom": "O 0 0 0; H 0 0.757 0.587; H 0 -0.757 0.587", "basis": "sto-3g", "conv_tol": 1e-9},
    steps=(
        BackgroundStep("item", item_molecule, "mol"),
        BackgroundStep("effector", effector_rhf, "calculation"),
        BackgroundStep("observable", observable_total_energy, "energy"),
    ),
)

PIPELINES = (MOLECULE_RKS, MOLECULE_RHF)
