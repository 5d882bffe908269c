"""Independent checks of the published figures physvec reproduces: what an overlay's ``independent`` names.

Each computes, from the overlay's spec alone and with code that shares nothing with the verifier library
(independent/: exact evolution, free fermions, the Bethe ansatz, a second product formula in numpy), reference
values at the task point or assertions at limits where the answer is known exactly.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from physvec.independent import haldane_shastry
from physvec.independent.bose_hubbard import lowest_energies_by_momentum
from physvec.independent.dm_torus import dm_torus_ground_state, skyrmion_number
from physvec.independent.hubbard import (
    exact_ladder_spin_gap, free_fermion_density, free_fermion_ladder_pair_correlation, free_fermion_pair_correlation,
    hopping_matrix, ladder_bonds,
)
from physvec.independent.hubbard_iqpe import iqpe_results
from physvec.independent.hubbard_vqe import vqe_results
from physvec.independent.quench import domain_wall_magnetizations
from physvec.independent.spin_chains import (
    bethe_ring_ground_energy, heisenberg_ring_triplet_gap, heisenberg_sector_energy, heisenberg_torus_ground_energy,
    periodic_tfi_ground_energy,
)
from physvec.independent.spin_momentum import heisenberg_lowest_energies_by_momentum
from physvec.independent.spin_quench import ising_ring, quench, staggered_preparation, xxz_ring
from physvec.independent.superlattice_bosons import edge_state_lengths, hard_core_density, superlattice_chain
from physvec.independent.xxz_quench import quench_curves
from physvec.taskfiles.task import ProposerSpec
from physvec.taskfiles.upstream_checks import RUN_FUNCTION


@dataclass(frozen=True)
class IndependentChecks:
    """Checks an independent method (exact evolution, free fermions, exact diagonalisation) computes."""

    assertions: list[dict[str, Any]] = field(default_factory=list)
    """assertion JSON, each named 'independent ...'"""
    reference: dict[str, Any] | None = None
    """{"values": {...}, "observable": ..., "rtol"/"atol": ..., "source": ...} for reference.json"""


def xx_domain_wall_exact(spec: ProposerSpec) -> IndependentChecks:
    """The overlay's spin curve by exact continuous-time evolution of the same chain (no Qiskit)."""
    parameters = spec.parameters
    exact = domain_wall_magnetizations(parameters["L"], parameters["J"], parameters["times"])
    curve = [row[parameters["site"] - 1] for row in exact]
    return IndependentChecks(reference={
        "values": {"site_magnetization": curve}, "observable": "site_magnetization", "atol": 0.01,
        "source": "exact continuous-time evolution of the XX chain by diagonalisation "
                  "(independent/quench.py); the Trotter step's error stays below 0.01"})


def trapped_free_fermions(spec: ProposerSpec) -> IndependentChecks:
    """Without interaction (U = 0) the trapped chain is free fermions: each species fills the lowest orbitals of
    -t hopping + the trap, so the script's spin-resolved densities at U = 0 are known exactly at full size (the
    figure's own non-interacting curve).  Twenty fermions in the weak trap of L = 200 have a tiny level spacing,
    and two-site DMRG at chi 100 settles 1.3e-3 from the exact density at the centre in 10 sweeps and still
    1.2e-3 in 20 (measured): the check allows 2.5e-3, 2 % of the peak density (upstream's checks allow 5 %)."""
    p = spec.parameters
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": f"independent free fermions {species}", "run": spec.run or RUN_FUNCTION,
         "overrides": {"U": 0.0}, "observable": f"density_{species}", "atol": 2.5e-3,
         "expected": [round(float(v), 10) for v in free_fermion_density(p["L"], p["t"], p["A"], count, 0)],
         "reference": "U = 0: filled single-particle orbitals of the trapped chain (independent/hubbard.py)"}
        for species, count in (("up", p["N_up"]), ("down", p["N_down"]))])


def trapped_pair_free_fermions(spec: ProposerSpec) -> IndependentChecks:
    """The free-fermion densities above, and the pair correlation's row through the trap centre, O(L/2 - 1, j), by
    Wick's theorem at U = 0 (the product of the two species' one-body density matrices).  Allowed 1e-3: the
    densities' 2.5e-3 times twice the centre's one-body density matrix (0.175), rounded up."""
    p = spec.parameters
    centre = p["L"] // 2 - 1
    row = free_fermion_pair_correlation(p["L"], p["t"], p["A"], p["N_up"], p["N_down"])[centre]
    return IndependentChecks(assertions=[*trapped_free_fermions(spec).assertions, {
        "kind": "limiting_case", "name": "independent free-fermion pair correlation", "run": spec.run or RUN_FUNCTION,
        "overrides": {"U": 0.0}, "observable": f"onsite_pair_correlation.{centre}", "atol": 1e-3,
        "expected": [round(float(v), 10) for v in row],
        "reference": "U = 0: Wick's theorem with each species' filled orbitals of the trapped chain "
                     "(independent/hubbard.py)"}])


def ladder_free_fermions(spec: ProposerSpec) -> IndependentChecks:
    """Without interaction the ladder is free fermions, and Wick's theorem gives the leg spin correlation:
    <M_i M_j> = -2 |G_ij|^2 for i != j (each species' one-body density matrix G, N_up = N_down), on 2 x 6 at
    half filling, upstream's own small size (the library's DMRG, mixer on in every sweep of 10, ends free fermions on
    2 x 12 above TeNPy's truncation-error bound and misses the 2 x 10 energy by 2e-3; on 2 x 6 it is within 1e-4)."""
    p = spec.parameters
    L, N = 6, 6
    _, orbitals = np.linalg.eigh(hopping_matrix(ladder_bonds(L), 2 * L, p["t"]))
    green = orbitals[:, :N] @ orbitals[:, :N].T
    correlation = [-2 * float(green[2 * ((L - 1 - l) // 2), 2 * ((L - 1 - l) // 2 + l)]) ** 2 for l in range(1, L)]
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": "independent free-fermion leg correlation", "run": spec.run
         or RUN_FUNCTION, "overrides": {"U": 0.0, "L": L, "N_up": N, "N_down": N}, "observable": "leg_spin_correlation",
         "atol": 1e-3,
         "expected": [round(value, 10) for value in correlation],
         "reference": "U = 0: Wick's theorem with the ladder's one-body density matrix (numpy, no TeNPy)"}])


def ladder_pair_free_fermions(spec: ProposerSpec) -> IndependentChecks:
    """Without interaction, Wick's theorem gives the rung pair field correlation from the one-body density matrix
    (independent/hubbard.py), on 2 x 5 with four fermions of each spin (filling 0.8, non-degenerate levels), where
    DMRG reaches free fermions (see ladder_free_fermions)."""
    L, N = 5, 4
    pairs = free_fermion_ladder_pair_correlation(L, spec.parameters["t"], N)
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": "independent free-fermion rung pair correlation", "run": spec.run
         or RUN_FUNCTION, "overrides": {"U": 0.0, "L": L, "N_up": N, "N_down": N},
         "observable": "rung_pair_correlation", "atol": 1e-3, "expected": [round(v, 10) for v in pairs],
         "reference": "U = 0: Wick's theorem with the ladder's one-body density matrix (numpy, no TeNPy)"}])


def ladder_spin_gap_exact(spec: ProposerSpec) -> IndependentChecks:
    """The spin gap at the task's U values on the half-filled 2 x 4 ladder by sector exact diagonalisation
    (independent/hubbard.py, no TeNPy), where DMRG is exact: the same pipeline, turned to a size ED holds."""
    L = 4
    gaps = [exact_ladder_spin_gap(L, spec.parameters["t"], U, L) for U in spec.parameters["U_values"]]
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": "independent exact spin gaps on 2 x 4", "run": spec.run or RUN_FUNCTION,
         "overrides": {"L": L, "N_up": L, "N_down": L}, "observable": "spin_gaps", "atol": 1e-4,
         "expected": [round(gap, 10) for gap in gaps],
         "reference": "E(5, 3) - E(4, 4) by exact diagonalisation in both sectors (independent/hubbard.py)"}])


def superlattice_hard_core(spec: ProposerSpec) -> IndependentChecks:
    """Hard-core bosons (n_max = 1) are free fermions on the open chain (Jordan-Wigner; independent/
    superlattice_bosons.py): the densities at the task's own length, hoppings, trap and step, with N and N + 1
    bosons (the hole and particle states) or at the spec's mu.  DMRG reaches them to 1e-6 on 65 sites at chi 64
    (tests/verifiers/library/test_tenpy_bosons.py); 1e-4 is allowed."""
    p = spec.parameters
    chain = superlattice_chain(L=p["L"], t1=p["t1"], t2=p["t2"], U=p["U"], n_max=1, first_site=p["first_site"],
                               omega=p["omega"], step=p["step"], step_first=p["step_first"], step_last=p["step_last"])
    expected = ({"density": hard_core_density(chain, N=p["N"]),
                 "density_added_boson": hard_core_density(chain, N=p["N"] + 1)}
                if "N" in p else {"density": hard_core_density(chain, mu=p["mu"])})
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": f"independent hard-core {observable}", "run": spec.run or RUN_FUNCTION,
         "overrides": {"n_max": 1}, "observable": observable, "atol": 1e-4,
         "expected": [round(value, 10) for value in values],
         "reference": "n_max = 1: hard-core bosons are free fermions by Jordan-Wigner, filled orbitals of the "
                      "chain's hopping and potential (independent/superlattice_bosons.py, no TeNPy)"}
        for observable, values in expected.items()])


def superlattice_edge_scan_hard_core(spec: ProposerSpec) -> IndependentChecks:
    """Hard-core bosons (n_max = 1) as free fermions at the task's length and every t1: the localisation lengths of
    the hole and particle states from the orbitals' densities (independent/superlattice_bosons.py).  With t2/t1 fixed
    they do not depend on t1 (H is t1 times a fixed matrix), which the check holds at every point; 1e-3 allowed."""
    p = spec.parameters
    lengths = [edge_state_lengths(superlattice_chain(L=p["L"], t1=t1, t2=t1 / p["t1_over_t2"], U=p["U"], n_max=1,
                                                     first_site=p["first_site"]), p["N"])[1:] for t1 in p["t1_values"]]
    return IndependentChecks(assertions=[
        {"kind": "limiting_case", "name": f"independent hard-core {state} localisation lengths",
         "run": spec.run or RUN_FUNCTION, "overrides": {"n_max": 1}, "observable": f"{state}_localisation_lengths",
         "atol": 1e-3, "expected": [round(pair[column], 10) for pair in lengths],
         "reference": "n_max = 1: hard-core bosons are free fermions by Jordan-Wigner; the participation ratios of the "
                      "densities of the N and N + 1 lowest orbitals (independent/superlattice_bosons.py, no TeNPy)"}
        for column, state in enumerate(("particle", "hole"))])


def heisenberg_ring_bethe(spec: ProposerSpec) -> IndependentChecks:
    """The exact ground energy of the ring by the Bethe ansatz (Pauli units, 4x the spin-operator value): the
    variational energy must not lie below it (beyond the Monte Carlo error) and must approach it, as the
    figure's curves approach its dashed line."""
    p = spec.parameters
    exact = 4 * bethe_ring_ground_energy(p.get("L", p.get("N")), p["J"])
    return _variational_ground_energy(spec, exact, 5e-3,
                                      "Bethe ansatz for the periodic chain (independent/spin_chains.py), Pauli units")


def _variational_ground_energy(spec: ProposerSpec, exact: float, approach_rtol: float,
                               reference: str) -> IndependentChecks:
    """A variational energy against the exact ground energy: never below it (beyond 2e-4 of Monte Carlo error),
    and within ``approach_rtol`` of it."""
    run = spec.run or RUN_FUNCTION
    return IndependentChecks(assertions=[
        {"kind": "bound", "name": "independent variational bound", "run": run, "overrides": {},
         "observable": "energy", "op": ">=", "value": round(exact, 10), "rtol": 2e-4, "reference": reference},
        {"kind": "analytic_regime", "name": "independent approach to the exact energy", "run": run, "overrides": {},
         "observable": "energy", "expected": round(exact, 10), "rtol": approach_rtol, "reference": reference}])


def heisenberg_torus_lanczos(spec: ProposerSpec) -> IndependentChecks:
    """The exact ground energy of the L x L Heisenberg torus by Lanczos at zero magnetisation (independent/
    spin_chains.py, Pauli units; -0.701780 per site in spin units at L = 4): the network's energy must not lie below it
    beyond its Monte Carlo error, and must approach it.  Beyond 4 x 4 (the next even torus has 2^36 states) there
    is no exact value here, and no check."""
    L = spec.parameters["L"]
    if L > 4:
        return IndependentChecks()
    exact = heisenberg_torus_ground_energy(L, spec.parameters["J"])
    return _variational_ground_energy(spec, exact, 5e-3, "Lanczos on the square torus at zero magnetisation "
                                                         "(independent/spin_chains.py), Pauli units")


def ising_ring_free_fermions(spec: ProposerSpec) -> IndependentChecks:
    """The exact ground energy of the transverse-field Ising ring, -|J| sum_k sqrt(1 + g^2 - 2 g cos k) with
    g = h / |J| (free fermions, independent/spin_chains.py; on an even ring the sign of J is a sublattice rotation
    away): the network's energy must not lie below it beyond its Monte Carlo error, and must approach it."""
    p = spec.parameters
    N, J = p["N"], abs(p["J"])
    exact = J * periodic_tfi_ground_energy(N, p["h"] / J)
    return _variational_ground_energy(spec, exact, 2e-3, "free fermions of the periodic ring "
                                                         "(independent/spin_chains.py, Pfeuty 1970), Pauli units")


def xxz_product_formula(spec: ProposerSpec) -> IndependentChecks:
    """Every result the spec returns, by the same product formula written again in numpy (matrix exponentials of
    each commuting group, independent/xxz_quench.py): the published curves carry the Trotter error of the paper's
    step, so the reference is that formula's, not exact evolution's, and agrees to rounding."""
    values = quench_curves(spec.parameters)
    main, *also = spec.observables
    return IndependentChecks(reference={
        "values": {name: values[name] for name in spec.observables}, "observable": main, "also": also,
        "atol": 1e-8, "source": "the paper's product formula on its time grid in numpy and scipy, matrix exponentials "
                                "of the field, odd-bond and even-bond groups (independent/xxz_quench.py, no Qiskit)"})


def hubbard_vqe_ansatz(spec: ProposerSpec) -> IndependentChecks:
    """Every result the spec returns, by the same one-layer ansatz written again in numpy on occupation bit strings
    (independent/hubbard_vqe.py, its own fermion signs, no Qiskit), from the same starts; and the variational bound
    at half filling by exact diagonalisation of that sector.  Energies agree to rounding, correlations to the
    optimiser's end point (1e-6)."""
    values = vqe_results(spec.parameters)
    main, *also = spec.observables
    occupations = spec.parameters["occupations"]
    half = spec.parameters["columns"] * spec.parameters["rows"]
    checks = IndependentChecks(reference={
        "values": {name: values[name] for name in spec.observables}, "observable": main, "also": also,
        "atol": 1e-6, "source": "the same one-layer ansatz on occupation bit strings in numpy and scipy, BFGS from "
                                "the same starts (independent/hubbard_vqe.py, no Qiskit)"})
    if "energies" in spec.observables and half in occupations:
        index = occupations.index(half)
        checks.assertions.append({
            "kind": "bound", "name": "independent variational bound at half filling", "run": spec.run or RUN_FUNCTION,
            "overrides": {}, "observable": f"energies.{index}", "op": ">=",
            "value": round(values["exact_energies"][index], 10), "atol": 1e-8,
            "reference": "exact diagonalisation of the half-filled sector (independent/hubbard_vqe.py)"})
    return checks


def _closed_shell(levels: np.ndarray, count: int) -> bool:
    """Whether ``count`` fermions of one spin fill whole degenerate levels (no choice within a level)."""
    return count in (0, len(levels)) or levels[count] - levels[count - 1] > 1e-9


def hubbard_ring_iqpe(spec: ProposerSpec) -> IndependentChecks:
    """Every energy by the same phase estimation written again in numpy (independent/hubbard_iqpe.py: occupation
    bit strings, exact exponentials of each Trotter factor in the sector, no Qiskit), which reads the same bits, so
    agrees to rounding; and, where U = 0 and both spins fill closed shells, the free-fermion energy (sum of the
    filled ring levels -2 gamma cos(2 pi k / L)) within two units of the phase resolution 2 pi / (2^m t): one for
    the bits' reading (m bits of a phase between two grid points land on either), one for the product formula's
    phase error (at the paper's 15 steps two and ten fermions read exactly one unit above the levels' sum)."""
    p = spec.parameters
    values = iqpe_results(p)
    checks = IndependentChecks(reference={
        "values": {name: values[name] for name in spec.observables}, "observable": spec.observables[0],
        "also": spec.observables[1:], "atol": 1e-9,
        "source": "the same IQPE in numpy and scipy on occupation bit strings, exact exponentials of each Trotter "
                  "factor in the particle-number sector (independent/hubbard_iqpe.py, no Qiskit)"})
    levels = np.sort(-2 * p["gamma"] * np.cos(2 * np.pi * np.arange(p["L"]) / p["L"]))
    count = max(len(p["U"]), len(p["bits"]), len(p["trotter_steps"]))
    for row, occupation in enumerate(p["occupations"]):
        up, down = (occupation + 1) // 2, occupation // 2
        if not (_closed_shell(levels, up) and _closed_shell(levels, down)):
            continue
        for point in range(count):
            if p["U"][point % len(p["U"])] != 0.0 or "energies" not in spec.observables:
                continue
            resolution = 2 * np.pi / (2 ** p["bits"][point % len(p["bits"])] * values["evolution_times"][row][point])
            checks.assertions.append({
                "kind": "limiting_case", "name": f"independent free fermions at N = {occupation}",
                "run": spec.run or RUN_FUNCTION, "overrides": {}, "observable": f"energies.{row}.{point}",
                "expected": round(float(levels[:up].sum() + levels[:down].sum()), 10),
                "atol": round(float(2 * resolution), 10),
                "reference": "U = 0: the closed-shell determinant is the ground state; its energy is the sum of the "
                             "filled ring levels, read to two units of the phase resolution 2 pi / (2^m t)"})
    return checks


_QUENCH_KEYS = {"transverse_polarizations": "transverse_polarization", "nn_correlations": "nn_correlation",
                "nn_correlation_magnitudes": "nn_correlation", "first_site_magnetizations": "first_site_magnetization",
                "total_magnetizations": "total_magnetization", "quench_energies": "energy"}


def spin_quench_exact(spec: ProposerSpec) -> IndependentChecks:
    """Every curve by exact evolution (independent/spin_quench.py: the exact ground state before the quench by
    sparse diagonalisation, expm_multiply under the Hamiltonian after it, no NetKet).  t-VMC with exact sums
    carries only the network's error, measured at 1e-4 to 1e-2 on these chains: the tolerance is 0.02."""
    p = spec.parameters
    ising = spec.model == "transverse_field_ising"
    starts, ends = ([value] if isinstance(value, (int, float)) else list(value)
                    for value in ((p["h"], p["h_quench"]) if ising else (p["Jz"], p["Jz_quench"])))
    networks = 1 if isinstance(p.get("alpha", 1), (int, float)) else len(p["alpha"])  # a curve per network, same quench
    curves = []
    for i in range(max(len(starts), len(ends), networks)):
        start, end = starts[i % len(starts)], ends[i % len(ends)]
        before = ising_ring(p["L"], start) if ising else (
            xxz_ring(p["L"], start) if p.get("initial", "ground") == "ground" else staggered_preparation(p["L"]))
        curves.append(quench(before, ising_ring(p["L"], end) if ising else xxz_ring(p["L"], end), p["L"], p["times"]))
    values: dict[str, Any] = {"energies": [curve["ground_energy"] for curve in curves],
                              "energy": curves[0]["ground_energy"],
                              "ground_energy_densities": [curve["ground_energy"] / p["L"] for curve in curves]}
    for name, key in _QUENCH_KEYS.items():
        values[name] = [[abs(v) for v in curve[key]] if name == "nn_correlation_magnitudes" else curve[key]
                        for curve in curves]
    main, *also = spec.observables
    return IndependentChecks(reference={
        "values": {name: values[name] for name in spec.observables}, "observable": main, "also": also,
        "atol": 0.02, "source": "exact evolution of the exact ground state before the quench, scipy's expm_multiply "
                                "(independent/spin_quench.py, no NetKet)"})


def modified_haldane_shastry_exact(spec: ProposerSpec) -> IndependentChecks:
    """Energy and correlations by exact diagonalisation of the same ring at zero magnetisation
    (independent/haldane_shastry.py: bit strings and Lanczos, no NetKet), and the variational bound on every point
    of the energy curve.  The network's values are Monte Carlo estimates: the correlations scatter by about 0.01
    with a few thousand samples, so they are held to 0.03; the energy, whose estimate scatters far less (zero
    variance at the exact state), to 1e-3 of itself.  Beyond N = 20 (184,756 states; the paper's N = 100 has
    about 1e29) there is no exact value, and no check."""
    N = spec.parameters["N"]
    if N > 20:
        return IndependentChecks()
    exact = haldane_shastry.ground_state(N)
    run = spec.run or RUN_FUNCTION
    values = {"energy": exact.energy, "energy_density": exact.energy / N,
              "zz_correlations": [round(v, 10) for v in exact.zz_correlations()],
              "xx_correlations": [round(v, 10) for v in exact.xx_correlations()]}
    reference = "exact diagonalisation of the ring at zero magnetisation (independent/haldane_shastry.py)"
    compared = [name for name in spec.observables if name in values]
    checks = IndependentChecks(
        reference={"values": {name: values[name] for name in compared}, "observable": compared[0],
                   "also": compared[1:], "atol": 0.03, "source": reference + ", no NetKet"} if compared else None,
        assertions=[{"kind": "analytic_regime", "name": "independent exact ground energy", "run": run, "overrides": {},
                     "observable": "energy", "expected": round(exact.energy, 10), "rtol": 1e-3,
                     "reference": reference}])
    if "energy_density_history" in spec.observables:
        checks.assertions.append({
            "kind": "bound", "name": "independent variational bound along the learning curve", "run": run,
            "overrides": {}, "observable": "energy_density_history", "op": ">=", "value": round(exact.energy / N, 10),
            "atol": 0.01, "reference": reference + "; each point is a Monte Carlo estimate, scattering by up to "
                                                   "about 0.005 per spin near convergence"})
    return checks


MOMENTUM_EXACT_LIMIT = {"heisenberg": 20, "bose_hubbard": 10}
"""The longest ring whose momentum sectors exact diagonalisation covers here: 184,756 zero-magnetisation states of
20 spins, 92,378 states of 10 bosons on 10 sites (a few seconds to a minute each)."""


def momentum_spectrum_exact(spec: ProposerSpec) -> IndependentChecks:
    """Every sector's lowest energy by exact diagonalisation in that sector, built without NetKet
    (independent/spin_momentum.py for spins as hard-core bosons, independent/bose_hubbard.py): the networks reach
    them to about 1e-3 of the energy, so they are held to 1 % of it.  Longer rings have no exact value here, and
    no check."""
    p = spec.parameters
    if p["L"] > MOMENTUM_EXACT_LIMIT[spec.model]:
        return IndependentChecks()
    if spec.model == "heisenberg":
        exact = heisenberg_lowest_energies_by_momentum(p["L"], p["J"])
        source = "exact diagonalisation in each momentum sector, spins as hard-core bosons (independent/spin_momentum.py)"
    else:
        exact = lowest_energies_by_momentum(p["L"], p["N"], p["t"], p["U"])
        source = "exact diagonalisation in each momentum sector (independent/bose_hubbard.py)"
    values = [round(energy, 10) for energy in exact[: p["L"] // 2 + 1]]
    return IndependentChecks(reference={"values": {"energies": values}, "observable": "energies", "rtol": 0.01,
                                        "source": source + ", no NetKet"})


GAP_EXACT_LIMIT = 16
"""The longest ring whose magnetisation sectors are diagonalised here (2^16 states before the sector is cut out)."""


def heisenberg_gap_exact(spec: ProposerSpec) -> IndependentChecks:
    """Each length's ground and first excited energies by exact diagonalisation without NetKet
    (independent/spin_chains.py): the singlet as the lowest S^z = 0 state, the triplet as the lowest S^z = 1 state,
    where the pipeline finds it by orthogonalising a second network to the first.  The energies are held to the
    paper's own bound, a relative error below 3e-4 for the excited states (PRL 121, 167204, caption of Fig. 1c;
    measured 6e-5 at 12 spins), and each gap to 0.01.  Longer rings have no exact value here, and no check."""
    p, run = spec.parameters, spec.run or RUN_FUNCTION
    if max(p["lengths"]) > GAP_EXACT_LIMIT:
        return IndependentChecks()
    ground = [heisenberg_sector_energy(L, p["J"], 0, True) for L in p["lengths"]]
    gaps = [heisenberg_ring_triplet_gap(L, p["J"]) for L in p["lengths"]]
    values = {"ground_energies": [round(e, 10) for e in ground],
              "excited_energies": [round(e + gap, 10) for e, gap in zip(ground, gaps)]}
    source = ("exact diagonalisation of the ring in the S^z = 0 and S^z = 1 sectors (independent/spin_chains.py, "
              "no NetKet)")
    compared = [name for name in spec.observables if name in values]
    return IndependentChecks(
        reference={"values": {name: values[name] for name in compared}, "observable": compared[0],
                   "also": compared[1:], "rtol": 3e-4, "source": source} if compared else None,
        assertions=[{"kind": "analytic_regime", "name": f"independent singlet-triplet gap at L = {L}", "run": run,
                     "overrides": {}, "observable": f"gaps.{i}", "expected": round(gap, 10), "atol": 0.01,
                     "reference": source} for i, (L, gap) in enumerate(zip(p["lengths"], gaps))])


DM_EXACT_LIMIT = 4
"""The largest torus side diagonalised here: 16 spins, 65,536 states (about 20 s)."""


def dm_torus_exact(spec: ProposerSpec) -> IndependentChecks:
    """The torus's ground state by exact diagonalisation without NetKet (independent/dm_torus.py): the spins and
    each spin's Renyi entropy from its reduced density matrix, the energy, and the skyrmion number of the exact
    texture by a second solid-angle sum.  Tolerances: 0.05 on <S> and 0.02 on S_2, the network's distance from
    the exact state measured at 3 x 3 (an in-plane 0.035, the next level 0.073 above); 1e-3 of the energy; the
    learning curve of exact sums never goes below the exact energy.  Larger tori (the paper's 9 x 9) have no
    exact value here, and no check."""
    p, run = spec.parameters, spec.run or RUN_FUNCTION
    if p["L"] > DM_EXACT_LIMIT:
        return IndependentChecks()
    exact = dm_torus_ground_state(p["L"], p["J"], p["A"], p["D"], p["B"])
    sites = p["L"] ** 2
    source = ("exact diagonalisation of the torus, one-site reduced density matrices (independent/dm_torus.py, "
              "no NetKet)")
    spins = [[round(float(v), 10) for v in row] for row in exact.spins]
    entropies = [round(float(v), 10) for v in exact.renyi_entropies]
    reference = None
    if "spin_expectations" in spec.observables:
        reference = {"values": {"spin_expectations": spins}, "observable": "spin_expectations", "atol": 0.05,
                     "source": source}
    checks = IndependentChecks(reference=reference)

    def check(name: str, observable: str, expected: Any, **tolerance: float) -> None:
        checks.assertions.append({"kind": "analytic_regime", "name": f"independent {name}", "run": run,
                                  "overrides": {}, "observable": observable, "expected": expected, **tolerance,
                                  "reference": source})

    if "renyi_entropies" in spec.observables:
        check("one-site Renyi entropies", "renyi_entropies", entropies, atol=0.02)
    if "energy_density" in spec.observables:
        check("ground energy per spin", "energy_density", round(exact.energy / sites, 10), rtol=1e-3)
    if "skyrmion_number" in spec.observables:
        check("skyrmion number of the exact texture", "skyrmion_number",
              round(skyrmion_number(exact.spins, p["L"]), 10), atol=1e-6)
    if "energy_density_history" in spec.observables and p["n_samples"] == 0:
        checks.assertions.append({
            "kind": "bound", "name": "independent variational bound along the learning curve", "run": run,
            "overrides": {}, "observable": "energy_density_history", "op": ">=",
            "value": round(exact.energy / sites, 10), "atol": 1e-9,
            "reference": source + "; exact sums: each point is the energy of a state"})
    return checks


INDEPENDENT: dict[str, Callable[[ProposerSpec], IndependentChecks]] = {
    "xx_domain_wall_exact": xx_domain_wall_exact, "trapped_free_fermions": trapped_free_fermions,
    "trapped_pair_free_fermions": trapped_pair_free_fermions,
    "ladder_free_fermions": ladder_free_fermions, "ladder_pair_free_fermions": ladder_pair_free_fermions,
    "heisenberg_ring_bethe": heisenberg_ring_bethe,
    "ising_ring_free_fermions": ising_ring_free_fermions, "heisenberg_torus_lanczos": heisenberg_torus_lanczos,
    "xxz_product_formula": xxz_product_formula, "hubbard_vqe_ansatz": hubbard_vqe_ansatz,
    "hubbard_ring_iqpe": hubbard_ring_iqpe, "spin_quench_exact": spin_quench_exact,
    "modified_haldane_shastry_exact": modified_haldane_shastry_exact,
    "momentum_spectrum_exact": momentum_spectrum_exact, "superlattice_hard_core": superlattice_hard_core,
    "superlattice_edge_scan_hard_core": superlattice_edge_scan_hard_core, "ladder_spin_gap_exact": ladder_spin_gap_exact,
    "heisenberg_gap_exact": heisenberg_gap_exact, "dm_torus_exact": dm_torus_exact}
"""Name -> the computation of an overlay's independent checks, from its spec alone."""


