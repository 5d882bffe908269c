"""The super-lattice Bose-Hubbard chain by DMRG (Grusdt, Hoening & Fleischhauer, PRL 110, 260405 (2013)).

K = - sum_j t_j (b+_j b_{j+1} + h.c.) + (U/2) sum_j n_j (n_j - 1) + sum_j (eps_j - mu) n_j on sites labelled
j = first_site, ..., first_site + L - 1: the bond (j, j+1) hops t1 for odd j and t2 for even j (the paper's Eq. (1)),
eps_j = omega (j + 1/2)^2 plus ``step`` on the sites step_first .. step_last (its Fig. 3's trap and step).  A site
holds at most n_max bosons (TeNPy's BosonSite cap).  TeNPy's BoseHubbardChain adds -mu_j n_j, so the potential
enters as mu_j = mu - eps_j.

Three pipelines: at a fixed number N of bosons (the open chain of Fig. 2, where the paper's grand-canonical states
below and above the edge's critical chemical potential mu_e are the ground states of N and N + 1 bosons), the same
along t1 with mu_e and the localisation lengths (Fig. 2 e, f), and at a fixed chemical potential mu (the trap of
Fig. 3).  All are checked against exact diagonalisation and, at n_max = 1, against free fermions
(independent/superlattice_bosons.py) in tests/verifiers/library/.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from tenpy.models.hubbard import BoseHubbardChain
from tenpy.networks.mps import MPS

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep
from physvec.verifiers.library.tenpy_background import effector_dmrg


def lattice_superlattice_potential(L: int, first_site: int, omega: float, step: float, step_first: int,
                                   step_last: int) -> list[float]:
    """eps_j = omega (j + 1/2)^2, plus ``step`` for step_first <= j <= step_last, on the labels j of the chain."""
    return [omega * (j + 0.5) ** 2 + (step if step_first <= j <= step_last else 0.0)
            for j in range(first_site, first_site + L)]


def lattice_superlattice_hoppings(L: int, t1: float, t2: float, first_site: int) -> list[float]:
    """t_j of each bond (j, j+1) in order: t1 for odd j, t2 for even j (the paper's Eq. (1))."""
    return [t1 if j % 2 else t2 for j in range(first_site, first_site + L - 1)]


def hamiltonian_superlattice_bose_hubbard(L: int, U: float, n_max: int, hoppings: list[float],
                                          potential: list[float]) -> BoseHubbardChain:
    """H at a fixed number of bosons (TeNPy conserves N)."""
    return BoseHubbardChain({"L": L, "n_max": n_max, "t": np.array(hoppings), "U": U, "mu": -np.array(potential),
                             "conserve": "N", "bc_MPS": "finite"})


def hamiltonian_superlattice_bose_hubbard_grand_canonical(L: int, U: float, mu: float, n_max: int,
                                                          hoppings: list[float], potential: list[float]
                                                          ) -> BoseHubbardChain:
    """K = H - mu N: no charge is conserved, so DMRG settles the number of bosons."""
    return BoseHubbardChain({"L": L, "n_max": n_max, "t": np.array(hoppings), "U": U, "mu": mu - np.array(potential),
                             "conserve": None, "bc_MPS": "finite"})


def initialstate_bosons(model: BoseHubbardChain, N: int) -> MPS:
    """N bosons spread as evenly as the sites allow: site i holds floor((i+1) N / L) - floor(i N / L)."""
    L = model.lat.N_sites
    occupations = [(i + 1) * N // L - i * N // L for i in range(L)]
    return MPS.from_product_state(model.lat.mps_sites(), [str(n) for n in occupations], bc="finite")


def initialstate_unit_filling(model: BoseHubbardChain) -> MPS:
    """One boson on every site: a start from which DMRG, conserving nothing, moves bosons in or out."""
    return MPS.from_product_state(model.lat.mps_sites(), ["1"] * model.lat.N_sites, bc="finite")


def effector_dmrg_one_more_boson(model: BoseHubbardChain, N: int, chi_max: int, svd_min: float,
                                 max_sweeps: int) -> MPS:
    """The ground state of N + 1 bosons: the paper's state just above mu_e, where the extra boson fills the
    edge (or, past (t1/U)_c, spreads into the bulk)."""
    psi = initialstate_bosons(model, N + 1)
    effector_dmrg(psi, model, chi_max, svd_min, max_sweeps)
    return psi


def observable_boson_density(psi: MPS) -> list[float]:
    """<n_j> on every site."""
    return [float(value) for value in psi.expectation_value("N")]


def observable_boson_number(psi: MPS) -> float:
    """<N>: fixed by the sector at fixed N, settled by mu in the grand-canonical chain."""
    return float(np.sum(psi.expectation_value("N")))


def observable_density_added_boson(psi_added: MPS) -> list[float]:
    """<n_j> with one more boson."""
    return [float(value) for value in psi_added.expectation_value("N")]


def observable_edge_chemical_potential(model: BoseHubbardChain, psi_added: MPS, energy: float) -> float:
    """E(N + 1) - E(N): the chemical potential above which the grand-canonical ground state takes the extra boson
    (the paper's mu_e where the boson fills the edge state)."""
    return float(np.real(model.H_MPO.expectation_value(psi_added))) - energy


def effector_edge_states_over_t1(L: int, t1_values: list[float], t1_over_t2: float, U: float, n_max: int,
                                 first_site: int, N: int, chi_max: int, svd_min: float, max_sweeps: int
                                 ) -> list[dict[str, Any]]:
    """The ground states of N and N + 1 bosons at each t1 (t2 = t1 / t1_over_t2, no potential): their energies and
    densities, the paper's hole and particle edge states along its Fig. 2 (e, f) axis."""
    points = []
    for t1 in t1_values:
        hoppings = lattice_superlattice_hoppings(L, t1, t1 / t1_over_t2, first_site)
        model = hamiltonian_superlattice_bose_hubbard(L, U, n_max, hoppings, [0.0] * L)
        point: dict[str, Any] = {"t1": t1}
        for bosons, suffix in ((N, ""), (N + 1, "_added_boson")):
            psi = initialstate_bosons(model, bosons)
            point["energy" + suffix] = effector_dmrg(psi, model, chi_max, svd_min, max_sweeps)
            point["density" + suffix] = observable_boson_density(psi)
        points.append(point)
    return points


def observable_edge_chemical_potentials(edge_scan: list[dict[str, Any]]) -> list[float]:
    """mu_e = E(N + 1) - E(N) at each t1 (the paper's Fig. 2e black circles)."""
    return [point["energy_added_boson"] - point["energy"] for point in edge_scan]


def _participation_length(density: list[float], sign: int) -> float:
    """(sum Dn)^2 / sum Dn^2 of Dn_j = max(0, sign (n_j - 1/2)); 0 where no site is in excess."""
    excess = np.clip(sign * (np.asarray(density) - 0.5), 0.0, None)
    total, squares = float(excess.sum()), float(np.sum(excess ** 2))
    return total ** 2 / squares if squares > 0 else 0.0


def observable_particle_localisation_lengths(edge_scan: list[dict[str, Any]]) -> list[float]:
    """xi_p at each t1: the participation ratio (sum Dn)^2 / sum Dn^2 of the density's excess above 1/2 in the particle
    state (the paper's Fig. 2f)."""
    return [_participation_length(point["density_added_boson"], 1) for point in edge_scan]


def observable_hole_localisation_lengths(edge_scan: list[dict[str, Any]]) -> list[float]:
    """xi_h at each t1: the same of the density's deficit below 1/2 in the hole state."""
    return [_participation_length(point["density"], -1) for point in edge_scan]


SUPERLATTICE_BOSE_HUBBARD = BackgroundPipeline(
    backend="tenpy", name="superlattice_bose_hubbard",
    model="superlattice_bose_hubbard", lattice="chain", method="dmrg",
    params={"L": 9, "t1": 0.1, "t2": 0.02, "U": 1.0, "n_max": 2, "first_site": 0, "omega": 0.0, "step": 0.0,
            "step_first": 0, "step_last": -1, "N": 4, "chi_max": 32, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("lattice", lattice_superlattice_hoppings, "hoppings"),
        BackgroundStep("lattice", lattice_superlattice_potential, "potential"),
        BackgroundStep("hamiltonian", hamiltonian_superlattice_bose_hubbard, "model"),
        BackgroundStep("initialstate", initialstate_bosons, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("effector", effector_dmrg_one_more_boson, "psi_added"),
        BackgroundStep("observable", observable_boson_density, "density"),
        BackgroundStep("observable", observable_density_added_boson, "density_added_boson"),
        BackgroundStep("observable", observable_edge_chemical_potential, "edge_chemical_potential"),
    ),
)
"""The open chain at N bosons (and N + 1): Grusdt et al.'s Fig. 2 hole and particle edge states."""

SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL = BackgroundPipeline(
    backend="tenpy", name="superlattice_bose_hubbard_grand_canonical",
    model="superlattice_bose_hubbard_grand_canonical", lattice="chain", method="dmrg",
    params={"L": 8, "t1": 0.2, "t2": 0.04, "U": 1.0, "mu": 0.55, "n_max": 2, "first_site": -4, "omega": 0.02,
            "step": 0.6, "step_first": -1, "step_last": 0, "chi_max": 32, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("lattice", lattice_superlattice_hoppings, "hoppings"),
        BackgroundStep("lattice", lattice_superlattice_potential, "potential"),
        BackgroundStep("hamiltonian", hamiltonian_superlattice_bose_hubbard_grand_canonical, "model"),
        BackgroundStep("initialstate", initialstate_unit_filling, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("observable", observable_boson_density, "density"),
        BackgroundStep("observable", observable_boson_number, "boson_number"),
    ),
)
"""The trapped chain with a potential step at fixed mu: Grusdt et al.'s Fig. 3 interfaces between n = 1 and n = 1/2
Mott insulators."""

SUPERLATTICE_EDGE_SCAN = BackgroundPipeline(
    backend="tenpy", name="superlattice_edge_scan",
    model="superlattice_bose_hubbard_edge_scan", lattice="chain", method="dmrg",
    params={"L": 9, "t1_values": [0.05, 0.1, 0.2], "t1_over_t2": 5.0, "U": 1.0, "n_max": 2, "first_site": 0, "N": 4,
            "chi_max": 32, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("effector", effector_edge_states_over_t1, "edge_scan"),
        BackgroundStep("observable", observable_edge_chemical_potentials, "edge_chemical_potentials"),
        BackgroundStep("observable", observable_particle_localisation_lengths, "particle_localisation_lengths"),
        BackgroundStep("observable", observable_hole_localisation_lengths, "hole_localisation_lengths"),
    ),
)
"""The open chain's hole and particle states along t1: mu_e and the localisation lengths (Grusdt et al.'s Fig. 2 e,
f)."""

PIPELINES = (SUPERLATTICE_BOSE_HUBBARD, SUPERLATTICE_BOSE_HUBBARD_GRAND_CANONICAL, SUPERLATTICE_EDGE_SCAN)
