"""PySCF background: a molecule, a converged Kohn-Sham calculation, its total and orbital energies."""

from __future__ import annotations

from pyscf import dft, gto

from verifiers.library import BackgroundPipeline, BackgroundStep


def item_molecule(atom: str, basis: str) -> gto.Mole:
    return gto.M(atom=atom, basis=basis, verbose=0)


def effector_rks(mol: gto.Mole, xc: str) -> dft.rks.RKS:
    calculation = dft.RKS(mol)
    calculation.xc = xc
    calculation.kernel()
    return calculation


def observable_total_energy(calculation: dft.rks.RKS) -> float:
    return float(calculation.e_tot)


def observable_orbital_energies(calculation: dft.rks.RKS) -> list[float]:
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

PIPELINES = (MOLECULE_RKS,)
