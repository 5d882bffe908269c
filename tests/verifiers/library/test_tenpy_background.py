"""TeNPy background functions against exact diagonalisation at six sites.

References: the open Heisenberg chain (S = sigma/2) by dense diagonalisation here; the trapped
Hubbard chain and ladder by independent/hubbard.py (sector ED, independent of TeNPy).
"""

from __future__ import annotations

import numpy as np
import pytest

from physvec.independent.hubbard import (
    exact_ground_state, exact_ladder_ground_state, exact_ladder_leg_correlation, exact_ladder_pair_correlation,
    exact_ladder_spin_gap, exact_onsite_pair_correlation, exact_spin_densities,
)
from physvec.verifiers.library.tenpy_background import (
    HEISENBERG_CHAIN, HUBBARD_LADDER_CORRELATION, HUBBARD_LADDER_SPIN_GAP, TFI_CHAIN, TRAPPED_HUBBARD_CHAIN,
    TRAPPED_HUBBARD_LADDER, TRAPPED_HUBBARD_SPIN_RESOLVED, hamiltonian_trapped_hubbard, initialstate_fermions,
    lattice_harmonic_trap,
)


def heisenberg_ground_energy(L: int, J: float) -> float:
    sx, sy, sz = np.array([[0, 0.5], [0.5, 0]]), np.array([[0, -0.5j], [0.5j, 0]]), np.diag([0.5, -0.5])
    H = sum(J * np.kron(np.kron(np.eye(2**i), np.kron(s, s)), np.eye(2 ** (L - i - 2)))
            for i in range(L - 1) for s in (sx, sy, sz))
    return float(np.linalg.eigvalsh(H)[0])


def test_the_heisenberg_pipeline_finds_the_exact_ground_state():
    namespace = HEISENBERG_CHAIN.run()
    assert namespace["energy"] == pytest.approx(heisenberg_ground_energy(6, 1.0), abs=1e-8)
    assert namespace["energy"] == pytest.approx(-2.4935771338879, abs=1e-8)
    assert sum(namespace["sz"]) == pytest.approx(0.0, abs=1e-8), "the Neel start fixes Sz_total = 0"


def tfi_ground_state(L: int, J: float, g: float) -> tuple[float, np.ndarray]:
    """Dense ED of H = -J sum X_i X_{i+1} - g sum Z_i (open chain): energy and <Z_i>."""
    x, z = np.array([[0.0, 1.0], [1.0, 0.0]]), np.diag([1.0, -1.0])

    def site(op: np.ndarray, i: int) -> np.ndarray:
        return np.kron(np.kron(np.eye(2**i), op), np.eye(2 ** (L - 1 - i)))

    H = sum(-J * site(x, i) @ site(x, i + 1) for i in range(L - 1)) + sum(-g * site(z, i) for i in range(L))
    energies, vectors = np.linalg.eigh(H)
    ground = vectors[:, 0]
    return float(energies[0]), np.array([ground @ site(z, i) @ ground for i in range(L)])


def test_the_transverse_field_ising_pipeline_matches_exact_diagonalisation():
    namespace = TFI_CHAIN.run()
    energy, sigmaz = tfi_ground_state(8, 1.0, 0.5)
    assert namespace["energy"] == pytest.approx(energy, abs=1e-8)
    assert namespace["sigmaz"] == pytest.approx(sigmaz, abs=1e-5)


def test_the_trap_is_zero_at_the_centre_and_A_times_one_minus_one_over_L_squared_at_the_ends():
    trap = lattice_harmonic_trap(L=4, A=2.0)
    assert trap == pytest.approx([1.125, 0.125, 0.125, 1.125])  # (8 / 16) (i - 1.5)^2
    assert lattice_harmonic_trap(L=10, A=3.0)[0] == pytest.approx(3.0 * (1 - 1 / 10) ** 2)


def test_the_initial_state_holds_the_requested_fermions():
    model = hamiltonian_trapped_hubbard(L=6, t=1.0, U=-4.0, trap=lattice_harmonic_trap(6, 2.0))
    psi = initialstate_fermions(model, N_up=2, N_down=3)
    assert sum(psi.expectation_value("Nu")) == pytest.approx(2.0) and sum(psi.expectation_value("Nd")) == pytest.approx(3.0)


def test_the_trapped_hubbard_pipeline_matches_exact_diagonalisation():
    namespace = TRAPPED_HUBBARD_CHAIN.run()
    energy, density = exact_ground_state(L=6, t=1.0, U=-4.0, A=2.0, N_up=3, N_down=3)
    assert namespace["energy"] == pytest.approx(energy, abs=1e-6)
    assert namespace["density"] == pytest.approx(density, abs=1e-5)


def test_the_trapped_hubbard_ladder_pipeline_matches_exact_diagonalisation():
    # the exact solution carries the Jordan-Wigner sign of leg hops past the rung partner
    namespace = TRAPPED_HUBBARD_LADDER.run()
    energy, density = exact_ladder_ground_state(L=3, t=1.0, U=-4.0, A=1.0, N_up=3, N_down=3)
    assert namespace["energy"] == pytest.approx(energy, abs=1e-6)
    assert namespace["density"] == pytest.approx(density, abs=1e-5)
    assert namespace["density"][0] == pytest.approx(namespace["density"][1], abs=1e-6), "the legs are equivalent"


def test_the_exact_ladder_solution_fills_single_particle_levels_without_interaction():
    """The reference itself: at U = 0 the many-body energy is the sum of the lowest orbital energies, which
    holds only if the Jordan-Wigner signs are right."""
    from physvec.independent.hubbard import hopping_matrix, ladder_bonds, trap

    levels = np.linalg.eigvalsh(hopping_matrix(ladder_bonds(3), 6, 1.0) + np.diag(np.repeat(trap(3, 1.0), 2)))
    energy, _ = exact_ladder_ground_state(L=3, t=1.0, U=0.0, A=1.0, N_up=3, N_down=2)
    assert energy == pytest.approx(levels[:3].sum() + levels[:2].sum(), abs=1e-10)


def test_the_heisenberg_bond_energies_sum_to_the_energy_and_mirror_the_chain():
    namespace = HEISENBERG_CHAIN.run()
    bonds = namespace["bond_energies"]
    assert sum(bonds) == pytest.approx(namespace["energy"], abs=1e-10)
    assert bonds == pytest.approx(bonds[::-1], abs=1e-6)
    assert bonds[0] < bonds[1], "the open ends favour singlets on the outer bonds"


def test_the_spin_resolved_densities_match_exact_diagonalisation_and_sum_to_the_density():
    namespace = TRAPPED_HUBBARD_SPIN_RESOLVED.run()  # six sites, 3 up + 2 down
    energy, up, down = exact_spin_densities(L=6, t=1.0, U=-4.0, A=2.0, N_up=3, N_down=2)
    assert namespace["energy"] == pytest.approx(energy, abs=1e-6)
    assert namespace["density_up"] == pytest.approx(up, abs=1e-5)
    assert namespace["density_down"] == pytest.approx(down, abs=1e-5)
    assert np.add(namespace["density_up"], namespace["density_down"]) == pytest.approx(namespace["density"], abs=1e-10)
    assert (sum(namespace["density_up"]), sum(namespace["density_down"])) == pytest.approx((3.0, 2.0), abs=1e-8)
    assert namespace["density_difference"] == pytest.approx(up - down, abs=1e-5)


def test_balanced_populations_have_equal_spin_densities():
    namespace = TRAPPED_HUBBARD_SPIN_RESOLVED.run(N_down=3)
    assert namespace["density_up"] == pytest.approx(namespace["density_down"], abs=1e-6)
    assert namespace["density_up"] == pytest.approx(namespace["density_up"][::-1], abs=1e-6), "the trap is symmetric"


@pytest.mark.parametrize("overrides", [{}, {"N_up": 3, "N_down": 3, "U": -6.0}, {"U": 0.0}])
def test_the_onsite_pair_correlation_matches_exact_diagonalisation(overrides):
    """Tezuka and Ueda's O(i, j) on six trapped sites; unequal populations, a balanced strong pairing, free."""
    namespace = TRAPPED_HUBBARD_SPIN_RESOLVED.run(**overrides)
    p = {**TRAPPED_HUBBARD_SPIN_RESOLVED.params, **overrides}
    _, correlation = exact_onsite_pair_correlation(p["L"], p["t"], p["U"], p["A"], p["N_up"], p["N_down"])
    assert np.array(namespace["onsite_pair_correlation"]) == pytest.approx(correlation, abs=1e-6)
    assert np.abs(correlation).max() > 0.2, "pairs hop far enough for the comparison to mean something"


def test_the_ladder_leg_spin_correlation_matches_exact_diagonalisation():
    namespace = HUBBARD_LADDER_CORRELATION.run()  # 2 x 4 at half filling, U = 4, chi 256 = 4^4 is exact
    energy, correlation = exact_ladder_leg_correlation(L=4, t=1.0, U=4.0, A=0.0, N_up=4, N_down=4)
    assert namespace["energy"] == pytest.approx(energy, abs=1e-8)
    assert len(namespace["leg_spin_correlation"]) == 3
    assert namespace["leg_spin_correlation"] == pytest.approx(correlation, abs=1e-6)
    assert namespace["density"] == pytest.approx([1.0] * 8, abs=1e-6), "half filling on a bipartite lattice"
    assert [np.sign(c) for c in correlation] == [-1, 1, -1], "antiferromagnetic along the leg"


@pytest.mark.parametrize("overrides", [{}, {"N_up": 3, "N_down": 3, "U": 8.0}, {"N_up": 3, "N_down": 3, "U": 0.0}])
def test_the_rung_pair_field_correlation_matches_exact_diagonalisation(overrides):
    """Noack, White and Scalapino's D_xx(l) on 2 x 4: half filling, doped to 0.75 at U = 8 t, and free."""
    namespace = HUBBARD_LADDER_CORRELATION.run(**overrides)
    p = {**HUBBARD_LADDER_CORRELATION.params, **overrides}
    _, pairs = exact_ladder_pair_correlation(p["L"], p["t"], p["U"], p["A"], p["N_up"], p["N_down"])
    assert namespace["rung_pair_correlation"] == pytest.approx(pairs, abs=1e-6)
    assert min(pairs) > 0.01, "a singlet pair moves along the ladder at every distance"


def test_the_2x6_ladder_reproduces_the_exact_energy_and_leg_correlation_at_distance_two():
    # E0 = -7.84635 and S11(2) = 0.12294 for rungs 1 and 3 (0-based): exact diagonalisation in
    # independent/hubbard.py (tests/qmp_bench/test_independent.py), and the benchmark task for
    # Noack, White & Scalapino, PRL 73, 882 (1994), Fig. 2 (upstream QMP task_dmrg_2_2, LimitingCases: 0.1229)
    namespace = HUBBARD_LADDER_CORRELATION.run(L=6, N_up=6, N_down=6, chi_max=300, max_sweeps=4)
    assert namespace["energy"] == pytest.approx(-7.84635, abs=1e-4)
    assert namespace["leg_spin_correlation"][1] == pytest.approx(0.12294, abs=1e-3)


def test_a_truncated_dmrg_state_is_returned_in_canonical_form_so_the_densities_sum_to_the_fermions():
    # at chi 32 on twelve sites the last sweep truncates (~1e-5) with the mixer still on, when TeNPy 1.1 skips
    # its own canonicalisation: without the effector's canonical_form the up densities summed to 4 + 9e-6
    namespace = TRAPPED_HUBBARD_SPIN_RESOLVED.run(L=12, N_up=4, N_down=2, chi_max=32, max_sweeps=3)
    assert np.linalg.norm(namespace["psi"].norm_test()) < 1e-10
    assert (sum(namespace["density_up"]), sum(namespace["density_down"])) == pytest.approx((4.0, 2.0), abs=1e-9)


def test_the_spin_gap_scan_matches_exact_diagonalisation_at_every_u():
    p = HUBBARD_LADDER_SPIN_GAP.params
    expected = [exact_ladder_spin_gap(p["L"], p["t"], U, p["N_up"]) for U in p["U_values"]]
    assert HUBBARD_LADDER_SPIN_GAP.run()["spin_gaps"] == pytest.approx(expected, abs=1e-7)

