"""TeNPy backgrounds: the open spin-1/2 Heisenberg chain, the transverse-field Ising chain, and the
trapped attractive Hubbard chain and two-leg ladder.

Spin operators are S = sigma/2 (TeNPy's SpinChain): E0(L=6) = -2.4935771338879 (exact diagonalisation).
TeNPy's FermiHubbardChain adds -mu_i n_i, so the trap V_i = (4 A / L^2)(i - (L - 1)/2)^2 enters as
mu_i = -V_i.  Spin-resolved densities are <n_i,up> and <n_i,down> (TeNPy's Nu, Nd); the ladder's leg spin
correlation uses M = n_up - n_down = 2 S^z.  TeNPy's TFIChain is H = -J sum X_i X_{i+1} - g sum Z_i in
Pauli operators.  All are checked against exact diagonalisation in tests/verifiers/library/.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from tenpy.algorithms import dmrg
from tenpy.models.hubbard import FermiHubbardChain, FermiHubbardModel
from tenpy.models.spins import SpinChain
from tenpy.models.tf_ising import TFIChain
from tenpy.networks.mps import MPS

from physvec.verifiers.library import BackgroundPipeline, BackgroundStep


def hamiltonian_heisenberg_chain(L: int, J: float) -> SpinChain:
    return SpinChain({"L": L, "S": 0.5, "Jx": J, "Jy": J, "Jz": J, "bc_MPS": "finite", "conserve": "Sz"})


def initialstate_neel(model: SpinChain) -> MPS:
    L = model.lat.N_sites
    return MPS.from_product_state(model.lat.mps_sites(), ["up", "down"] * (L // 2), bc="finite")


def effector_dmrg(psi: MPS, model: SpinChain | TFIChain | FermiHubbardModel, chi_max: int, svd_min: float,
                  max_sweeps: int) -> float:
    """Two-site DMRG, a mixer in the first sweep; ``psi`` becomes the ground state, in canonical form, the
    energy is returned.

    The effective Hamiltonian's legs are combined (TeNPy's ``combine``): on the 2 x 32 Hubbard ladder at chi
    400 a sweep then took 20 s instead of 40 s.  The mixer populates the charge sectors while the bonds grow
    from the product state; left on for all sweeps it cost 10 s more per sweep for an energy lower by 1e-5 of
    44.69.  A two-site system is swept one site at a time (two-site updates need more sites, TeNPy asserts it),
    and single-site updates grow bonds only through the mixer, so there it stays on.  TeNPy 1.1 skips its final
    canonicalisation while the mixer is on, and expectation values of a truncated, non-canonical MPS are biased
    (a trapped chain of 80 sites at chi 40: the densities summed to N + 0.02), so the state is brought into
    canonical form here."""
    single_site = model.lat.N_sites <= 2
    options = {"mixer": True, "mixer_params": {} if single_site else {"disable_after": 1}, "combine": True,
               "max_sweeps": max_sweeps, "active_sites": 1 if single_site else 2,
               "trunc_params": {"chi_max": chi_max, "svd_min": svd_min}}
    energy = float(dmrg.run(psi, model, options)["E"])
    psi.canonical_form()
    return energy


def observable_sz_profile(psi: MPS) -> list[float]:
    return [float(value) for value in psi.expectation_value("Sz")]


def observable_bond_energies(psi: MPS, model: SpinChain) -> list[float]:
    """<h_(i,i+1)> on each bond (J <S_i . S_(i+1)> for the Heisenberg chain): they sum to the energy."""
    return [float(value) for value in model.bond_energies(psi)]


def hamiltonian_tfi_chain(L: int, J: float, g: float) -> TFIChain:
    return TFIChain({"L": L, "J": J, "g": g, "bc_MPS": "finite", "conserve": None})


def initialstate_all_up(model: TFIChain) -> MPS:
    return MPS.from_product_state(model.lat.mps_sites(), ["up"] * model.lat.N_sites, bc="finite")


def observable_sigmaz_profile(psi: MPS) -> list[float]:
    return [float(value) for value in psi.expectation_value("Sigmaz")]


def lattice_harmonic_trap(L: int, A: float) -> np.ndarray:
    """V_i = (4 A / L^2)(i - (L - 1)/2)^2: height A at the chain's ends."""
    return 4 * A / L**2 * (np.arange(L) - (L - 1) / 2) ** 2


def hamiltonian_trapped_hubbard(L: int, t: float, U: float, trap: np.ndarray) -> FermiHubbardChain:
    return FermiHubbardChain({"L": L, "t": t, "U": U, "mu": -np.asarray(trap, dtype=float), "cons_N": "N",
                              "cons_Sz": "Sz", "bc_MPS": "finite"})


def hamiltonian_trapped_hubbard_ladder(L: int, t: float, U: float, trap: np.ndarray) -> FermiHubbardModel:
    """Two-leg ladder of L rungs, hopping t on legs and rungs, both legs in the trap along the legs.

    MPS order k = 2 x + y (rung x, leg y), so density profiles come rung by rung."""
    return FermiHubbardModel({"lattice": "Ladder", "L": L, "t": t, "U": U, "mu": -np.asarray(trap, dtype=float),
                              "cons_N": "N", "cons_Sz": "Sz", "bc_MPS": "finite", "bc_x": "open"})


def initialstate_fermions(model: FermiHubbardModel, N_up: int, N_down: int) -> MPS:
    """A product state with N_up up and N_down down fermions, spread evenly over the sites."""
    L = model.lat.N_sites
    up, down = set(np.linspace(0, L - 1, N_up).round().astype(int)), set(np.linspace(0, L - 1, N_down).round().astype(int))
    labels = {(True, True): "full", (True, False): "up", (False, True): "down", (False, False): "empty"}
    return MPS.from_product_state(model.lat.mps_sites(), [labels[(i in up, i in down)] for i in range(L)], bc="finite")


def observable_density(psi: MPS) -> list[float]:
    """n_i = <n_i,up + n_i,down>."""
    return [float(value) for value in psi.expectation_value("Ntot")]


def observable_density_up(psi: MPS) -> list[float]:
    """<n_i,up> on every site, in MPS order (site i of the chain; 2 x + y on the ladder)."""
    return [float(value) for value in psi.expectation_value("Nu")]


def observable_density_down(psi: MPS) -> list[float]:
    """<n_i,down> on every site, in MPS order."""
    return [float(value) for value in psi.expectation_value("Nd")]


def observable_leg_spin_correlation(psi: MPS, model: FermiHubbardModel) -> list[float]:
    """S11(l) = <M_(i,0) M_(j,0)> for l = 1 .. L - 1 on a ladder of L rungs (list index l - 1).

    M = n_up - n_down (= 2 S^z; not connected, no factor 1/2) on leg 0; the rungs, 0-based, are
    i = (L - 1 - l) // 2 and j = i + l, as symmetric about the centre as the integers allow (for L = 6,
    l = 2: rungs 1 and 3)."""
    L = model.lat.Ls[0]
    site = {x: int(model.lat.lat2mps_idx([x, 0])) for x in range(L)}
    return [4 * float(np.real(psi.expectation_value_term([("Sz", site[(L - 1 - l) // 2]),
                                                          ("Sz", site[(L - 1 - l) // 2 + l])])))
            for l in range(1, L)]


def observable_rung_pair_correlation(psi: MPS, model: FermiHubbardModel) -> list[float]:
    """D_xx(l) = <Delta_i Delta_j^dag> for l = 1 .. L - 1 on a ladder of L rungs (list index l - 1), rungs placed as
    for the leg spin correlation, i = (L - 1 - l) // 2 and j = i + l.

    Delta_j^dag = c_(j,0),up^dag c_(j,1),dn^dag - c_(j,0),dn^dag c_(j,1),up^dag creates a rung singlet; written as
    P^dag(a, b) + P^dag(b, a) with P^dag(a, b) = c_a,up^dag c_b,dn^dag on the rung's two sites a, b, each of the
    four terms is one TeNPy term, which orders its operators by site with their Jordan-Wigner signs."""
    L = model.lat.Ls[0]
    site = {(x, y): int(model.lat.lat2mps_idx([x, y])) for x in range(L) for y in range(2)}

    def correlation(i: int, j: int) -> float:
        removed = [(site[i, 0], site[i, 1]), (site[i, 1], site[i, 0])]
        added = [(site[j, 0], site[j, 1]), (site[j, 1], site[j, 0])]
        return sum(float(np.real(psi.expectation_value_term([("Cd", b), ("Cu", a), ("Cdu", c), ("Cdd", d)])))
                   for a, b in removed for c, d in added)

    return [correlation((L - 1 - l) // 2, (L - 1 - l) // 2 + l) for l in range(1, L)]


HEISENBERG_CHAIN = BackgroundPipeline(
    backend="tenpy", name="heisenberg_chain",
    model="heisenberg", lattice="chain", method="dmrg",
    params={"L": 6, "J": 1.0, "chi_max": 16, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_heisenberg_chain, "model"),
        BackgroundStep("initialstate", initialstate_neel, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("observable", observable_sz_profile, "sz"),
        BackgroundStep("observable", observable_bond_energies, "bond_energies"),
    ),
)

TFI_CHAIN = BackgroundPipeline(
    backend="tenpy", name="tfi_chain",
    model="transverse_field_ising", lattice="chain", method="dmrg",
    params={"L": 8, "J": 1.0, "g": 0.5, "chi_max": 32, "svd_min": 1e-10, "max_sweeps": 10},
    steps=(
        BackgroundStep("hamiltonian", hamiltonian_tfi_chain, "model"),
        BackgroundStep("initialstate", initialstate_all_up, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("observable", observable_sigmaz_profile, "sigmaz"),
    ),
)

def _trapped_hubbard_steps(hamiltonian: Callable[..., FermiHubbardModel]) -> tuple[BackgroundStep, ...]:
    """Trap, Hamiltonian on the lattice, spread-out fermions, DMRG, density: chain and ladder differ only
    in the Hamiltonian."""
    return (
        BackgroundStep("lattice", lattice_harmonic_trap, "trap"),
        BackgroundStep("hamiltonian", hamiltonian, "model"),
        BackgroundStep("initialstate", initialstate_fermions, "psi"),
        BackgroundStep("effector", effector_dmrg, "energy"),
        BackgroundStep("observable", observable_density, "density"),
    )


TRAPPED_HUBBARD_CHAIN = BackgroundPipeline(
    backend="tenpy", name="trapped_hubbard_chain",
    model="trapped_hubbard", lattice="chain", method="dmrg",
    params={"L": 6, "t": 1.0, "U": -4.0, "A": 2.0, "N_up": 3, "N_down": 3, "chi_max": 32, "svd_min": 1e-10,
            "max_sweeps": 10},
    steps=_trapped_hubbard_steps(hamiltonian_trapped_hubbard),
)

TRAPPED_HUBBARD_LADDER = BackgroundPipeline(
    backend="tenpy", name="trapped_hubbard_ladder",
    model="trapped_hubbard", lattice="ladder", method="dmrg",
    params={"L": 3, "t": 1.0, "U": -4.0, "A": 1.0, "N_up": 3, "N_down": 3, "chi_max": 64, "svd_min": 1e-10,
            "max_sweeps": 10},
    steps=_trapped_hubbard_steps(hamiltonian_trapped_hubbard_ladder),
)

def observable_particle_numbers(psi: MPS) -> list[float]:
    """[N_up, N_down]: the total number of each species, which the particle-number sectors fix."""
    return [float(np.sum(psi.expectation_value("Nu"))), float(np.sum(psi.expectation_value("Nd")))]


def observable_spin_densities(psi: MPS) -> list[list[float]]:
    """[<n_i,up>, <n_i,down>] for every site in MPS order: one row per site, so reversing the rows reflects
    the lattice (a spatial symmetry checks both species at once)."""
    return [[float(up), float(down)] for up, down in zip(psi.expectation_value("Nu"), psi.expectation_value("Nd"))]


def observable_density_difference(psi: MPS) -> list[float]:
    """n_i,up - n_i,down on every site: the excess majority density that the FFLO pairs leave behind."""
    return [float(up - down) for up, down in zip(psi.expectation_value("Nu"), psi.expectation_value("Nd"))]


def observable_onsite_pair_correlation(psi: MPS) -> list[list[float]]:
    """O(i, j) = <c_i,down^dag c_i,up^dag c_j,up c_j,down> for every pair of sites, row i, column j.

    The on-site pair c_up c_down is even, so no Jordan-Wigner string joins i and j (TeNPy's "Cu Cd" carries the
    on-site sign of Cd); the diagonal is the double occupancy <n_i,up n_i,down>.  The first operator is the
    second's adjoint, so the matrix is Hermitian and only its upper triangle is contracted (``hermitian``): on
    200 sites at chi 100 the whole matrix took 232 s beside two other jobs."""
    return np.real(psi.correlation_function("Cdd Cdu", "Cu Cd", hermitian=True)).tolist()


TRAPPED_HUBBARD_SPIN_RESOLVED = BackgroundPipeline(
    backend="tenpy", name="trapped_hubbard_spin_resolved",
    model="trapped_hubbard_spin_resolved", lattice="chain", method="dmrg",
    params={"L": 6, "t": 1.0, "U": -4.0, "A": 2.0, "N_up": 3, "N_down": 2, "chi_max": 32, "svd_min": 1e-10,
            "max_sweeps": 10},
    steps=(
        *_trapped_hubbard_steps(hamiltonian_trapped_hubbard),
        BackgroundStep("observable", observable_density_up, "density_up"),
        BackgroundStep("observable", observable_density_down, "density_down"),
        BackgroundStep("observable", observable_particle_numbers, "particle_numbers"),
        BackgroundStep("observable", observable_spin_densities, "spin_densities"),
        BackgroundStep("observable", observable_density_difference, "density_difference"),
        BackgroundStep("observable", observable_onsite_pair_correlation, "onsite_pair_correlation"),
    ),
)
"""The trapped chain with spin-imbalanced populations: total and spin-resolved densities and the on-site pair
correlation (Tezuka & Ueda 2008)."""

HUBBARD_LADDER_CORRELATION = BackgroundPipeline(
    backend="tenpy", name="hubbard_ladder_correlation",
    model="trapped_hubbard_spin_correlation", lattice="ladder", method="dmrg",
    params={"L": 4, "t": 1.0, "U": 4.0, "A": 0.0, "N_up": 4, "N_down": 4, "chi_max": 256, "svd_min": 1e-10,
            "max_sweeps": 10},
    steps=(
        *_trapped_hubbard_steps(hamiltonian_trapped_hubbard_ladder),
        BackgroundStep("observable", observable_leg_spin_correlation, "leg_spin_correlation"),
        BackgroundStep("observable", observable_rung_pair_correlation, "rung_pair_correlation"),
        BackgroundStep("observable", observable_particle_numbers, "particle_numbers"),
        BackgroundStep("observable", observable_spin_densities, "spin_densities"),
    ),
)
"""The ladder (A = 0: no trap) at half filling: density and the leg spin correlation S11 (Noack et al. 1994)."""

def effector_spin_gaps_over_u(L: int, t: float, U_values: list[float], A: float, N_up: int, N_down: int, chi_max: int,
                              svd_min: float, max_sweeps: int) -> list[float]:
    """Delta_spin = E(N_up + 1, N_down - 1) - E(N_up, N_down) at each U: the energy of turning one spin over (the
    lowest S_z = 1 state above the S_z = 0 ground state, Noack, White & Scalapino's Fig. 3), two DMRG runs a point."""
    trap = lattice_harmonic_trap(L, A)
    gaps = []
    for U in U_values:
        model = hamiltonian_trapped_hubbard_ladder(L, t, U, trap)
        energies = [effector_dmrg(initialstate_fermions(model, up, down), model, chi_max, svd_min, max_sweeps)
                    for up, down in ((N_up, N_down), (N_up + 1, N_down - 1))]
        gaps.append(energies[1] - energies[0])
    return gaps


HUBBARD_LADDER_SPIN_GAP = BackgroundPipeline(
    backend="tenpy", name="hubbard_ladder_spin_gap",
    model="hubbard_ladder_spin_gap", lattice="ladder", method="dmrg",
    params={"L": 3, "t": 1.0, "U_values": [0.0, 8.0], "A": 0.0, "N_up": 3, "N_down": 3, "chi_max": 64, "svd_min": 1e-10,
            "max_sweeps": 10},
    steps=(BackgroundStep("effector", effector_spin_gaps_over_u, "spin_gaps"),),
)
"""The ladder's spin gap along U (Noack et al. 1994, Fig. 3): each point runs the ladder's own Hamiltonian, start and
DMRG in two S_z sectors."""

PIPELINES = (HEISENBERG_CHAIN, TFI_CHAIN, TRAPPED_HUBBARD_CHAIN, TRAPPED_HUBBARD_LADDER, TRAPPED_HUBBARD_SPIN_RESOLVED,
             HUBBARD_LADDER_CORRELATION, HUBBARD_LADDER_SPIN_GAP)
