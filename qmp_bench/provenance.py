"""Independent values behind every QMP-Bench task: its reference data and its assertions' expected values.

Each task id maps to a function that computes, with qmp_bench/independent only (no backend library),
what task's reference.json and assertions.json must hold.  tests/qmp_bench checks the stored files
against these; `write_independent_values` fills them when a task is authored or changed.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from qmp_bench.independent.hubbard import (
    chain_bonds, exact_lattice_ground_state, free_fermion_density, hopping_matrix, ladder_bonds,
    single_particle_hamiltonian, trap,
)
from qmp_bench.independent.minimal_basis_rhf import restricted_hartree_fock
from qmp_bench.independent.quench import quench_magnetization
from qmp_bench.independent.spin_chains import (
    ground_state, heisenberg, ising_zz_x, open_tfi_free_fermion_energy,
)


@dataclass(frozen=True)
class IndependentValues:
    """What reference.json holds, and the expected value of each expected-value assertion, by name."""

    reference: dict[str, Any]
    assertions: dict[str, Any] = field(default_factory=dict)


def _rounded(value: Any) -> Any:
    if isinstance(value, (list, tuple, np.ndarray)):
        return [_rounded(v) for v in value]
    return round(float(value), 12)


def white1992_heisenberg_chain() -> IndependentValues:
    """Open S = 1/2 chain, L = 12, H = J sum S.S: Lanczos on the 4096 states; Pauli energies / 4."""
    energy = ground_state(heisenberg(12, 1.0, periodic=False))[0] / 4
    return IndependentValues({"energy": energy}, {
        "four-site chain": ground_state(heisenberg(4, 1.0, periodic=False))[0] / 4,
        "energy linear in J": 2 * energy})


def pfeuty1970_tfi_chain() -> IndependentValues:
    """Open chain -J sum XX - g sum Z at g = J = 1, L = 24: free fermions (Pfeuty)."""
    return IndependentValues({"energy": open_tfi_free_fermion_energy(24, 1.0, 1.0)}, {
        "classical ferromagnet without field": open_tfi_free_fermion_energy(24, 1.0, 0.0),
        "free spins without coupling": open_tfi_free_fermion_energy(24, 0.0, 1.0)})


def tezuka2008_trapped_hubbard() -> IndependentValues:
    """L = 10, t = 1, U = -4, trap height A = 2, 3 + 3 fermions: sector exact diagonalisation."""
    energy, density = exact_lattice_ground_state(chain_bonds(10), trap(10, 2.0), 1.0, -4.0, 3, 3)
    levels = np.linalg.eigvalsh(single_particle_hamiltonian(10, 1.0, 2.0))
    return IndependentValues({"energy": energy, "density": density}, {
        "free fermions in the trap": free_fermion_density(10, 1.0, 2.0, 3, 3),
        "non-interacting energy": 2 * levels[:3].sum()})


def noack1994_hubbard_ladder() -> IndependentValues:
    """Two-leg ladder, 4 rungs, t = 1, U = 8, no trap, 3 + 3 electrons: sector exact diagonalisation."""
    energy, density = exact_lattice_ground_state(ladder_bonds(4), np.zeros(8), 1.0, 8.0, 3, 3)
    levels = np.linalg.eigvalsh(hopping_matrix(ladder_bonds(4), 8, 1.0))
    return IndependentValues({"energy": energy, "density": density}, {
        "atomic limit": 0.0, "non-interacting energy": 2 * levels[:3].sum()})


def _quench(L: int, h: float, time: float) -> IndependentValues:
    """Open L-qubit chain, H = -J sum ZZ - h sum X with J = 1, all-up state at ``time``: matrix exponential."""
    return IndependentValues({"magnetization": quench_magnetization(L, 1.0, h, time)}, {
        "free spins precess": quench_magnetization(L, 0.0, h, time), "no field": 1.0})


def _open_tfi_ground_energy(L: int, h: float) -> IndependentValues:
    """Open L-qubit chain, H = -J sum ZZ - h sum X with J = 1: exact ground energy, and its two limits."""
    return IndependentValues({"energy": ground_state(ising_zz_x(L, 1.0, h, periodic=False))[0]}, {
        "classical ferromagnet without field": ground_state(ising_zz_x(L, 1.0, 0.0, periodic=False))[0],
        "paramagnet without coupling": ground_state(ising_zz_x(L, 0.0, h, periodic=False))[0]})


def lloyd1996_trotter_quench() -> IndependentValues:
    """Six qubits, h = 1, t = 1."""
    return _quench(6, 1.0, 1.0)


def kandala2017_vqe_tfi() -> IndependentValues:
    """Three qubits, h = 1."""
    return _open_tfi_ground_energy(3, 1.0)


def childs2021_trotter_error() -> IndependentValues:
    """Eight qubits, h = 0.5, t = 2."""
    return _quench(8, 0.5, 2.0)


def peruzzo2014_vqe_ordered_tfi() -> IndependentValues:
    """Three qubits, h = 0.5 (ordered side)."""
    return _open_tfi_ground_energy(3, 0.5)


def carleo2017_tfi_rbm() -> IndependentValues:
    """Periodic ten-spin chain, NetKet's -h sum X + J sum ZZ with J = -1, h = 1: Lanczos."""
    return IndependentValues({"energy": ground_state(ising_zz_x(10, 1.0, 1.0, periodic=True))[0]}, {
        "strong field": ground_state(ising_zz_x(10, 1.0, 5.0, periodic=True))[0],
        "paramagnet without coupling": ground_state(ising_zz_x(10, 0.0, 1.0, periodic=True))[0]})


H2_BOHR = 1.4


def szabo1996_h2_rhf() -> IndependentValues:
    """H2 at R = 1.4 bohr in STO-3G, and He: the textbook-integral Hartree-Fock (no PySCF)."""
    h2 = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, H2_BOHR))])
    helium = restricted_hartree_fock([("He", (0, 0, 0))])
    stretched = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 5.0))])
    return IndependentValues({"energy": h2.energy, "orbital_energies": h2.orbital_energies}, {
        "helium atom": helium.energy, "stretched bond": stretched.energy})


INDEPENDENT: dict[str, Callable[[], IndependentValues]] = {
    "white1992-heisenberg-chain": white1992_heisenberg_chain,
    "pfeuty1970-tfi-chain": pfeuty1970_tfi_chain,
    "tezuka2008-trapped-hubbard": tezuka2008_trapped_hubbard,
    "noack1994-hubbard-ladder": noack1994_hubbard_ladder,
    "lloyd1996-trotter-quench": lloyd1996_trotter_quench,
    "kandala2017-vqe-tfi": kandala2017_vqe_tfi,
    "childs2021-trotter-error": childs2021_trotter_error,
    "peruzzo2014-vqe-ordered-tfi": peruzzo2014_vqe_ordered_tfi,
    "carleo2017-tfi-rbm": carleo2017_tfi_rbm,
    "szabo1996-h2-rhf": szabo1996_h2_rhf,
}
"""Task id -> the computation of its independent values."""


def stored_values(task_folder: Path) -> IndependentValues:
    """What a task's reference.json and assertions.json hold now."""
    reference = json.loads((task_folder / "reference.json").read_text())
    assertions = json.loads((task_folder / "assertions.json").read_text())["assertions"]
    return IndependentValues(reference, {a["name"]: a["expected"] for a in assertions if "expected" in a})


def write_independent_values(task_folder: Path) -> None:
    """Fill reference.json and the assertions' expected values from the independent computation."""
    values = INDEPENDENT[task_folder.name]()
    (task_folder / "reference.json").write_text(json.dumps({k: _rounded(v) for k, v in values.reference.items()},
                                                           indent=1) + "\n")
    path = task_folder / "assertions.json"
    data = json.loads(path.read_text())
    for assertion in data["assertions"]:
        if assertion["name"] in values.assertions:
            assertion["expected"] = _rounded(values.assertions[assertion["name"]])
    path.write_text(json.dumps(data, indent=1) + "\n")
