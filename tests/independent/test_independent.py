"""The independent reference methods agree with closed forms, printed values and each other."""

from __future__ import annotations

import math

import numpy as np
import pytest

from physvec.independent.minimal_basis_rhf import BOHR_IN_ANGSTROM, restricted_hartree_fock
from physvec.independent.quench import domain_wall_magnetizations, quench_magnetization
from physvec.independent.spin_chains import (
    ground_state, heisenberg, heisenberg_bond_energies, heisenberg_bonds_sector_energy, heisenberg_sector_energy,
    ising_zz_x, open_tfi_free_fermion_energy, periodic_tfi_ground_energy, torus_bonds,
)


def test_two_spins_form_a_singlet():
    assert ground_state(heisenberg(2, 1.0, periodic=False))[0] / 4 == pytest.approx(-0.75, abs=1e-12)


def test_heisenberg_rings_approach_the_bethe_ansatz_energy_per_site_as_one_over_L_squared():
    # Hulthen (1938): e = 1/4 - ln 2 per site in the thermodynamic limit; on rings the finite-size
    # correction falls as 1/L^2, so the error shrinks by about (8/12)^2 from L = 8 to L = 12
    bethe = 0.25 - math.log(2)
    errors = [ground_state(heisenberg(L, 1.0, periodic=True))[0] / 4 / L - bethe for L in (8, 12)]
    assert errors[0] < 0 and errors[1] < 0 and 0.35 < errors[1] / errors[0] < 0.55


def test_the_free_fermion_tfi_energy_equals_exact_diagonalisation():
    # H = -J sum X X - g sum Z: the X <-> Z relabelling of -J sum Z Z - g sum X, same spectrum
    for g in (0.3, 1.0, 2.5):
        exact = ground_state(ising_zz_x(10, 1.0, g, periodic=False))[0]
        assert open_tfi_free_fermion_energy(10, 1.0, g) == pytest.approx(exact, abs=1e-9)


def test_the_critical_ising_ring_has_the_free_fermion_closed_form():
    # Pfeuty (1970): at h = J the even-parity sector of the ring takes antiperiodic momenta, and
    # E = -sum_k 2 J |sin(k/2)| = -2 J / sin(pi / 2L)
    for L in (8, 12):
        exact = ground_state(ising_zz_x(L, 1.0, 1.0, periodic=True))[0]
        assert exact == pytest.approx(-2 / math.sin(math.pi / (2 * L)), abs=1e-9)


def test_free_spins_precess_as_cos_2ht():
    for h, t in ((1.0, 1.0), (0.5, 2.0)):
        assert quench_magnetization(4, 0.0, h, t) == pytest.approx(math.cos(2 * h * t), abs=1e-12)


def test_the_xx_domain_wall_reproduces_the_published_continuous_time_magnetisations():
    # Smith, Kim, Pollmann, Knolle, npj Quantum Inf. 5, 106 (2019), Fig. 2a/2b, and the benchmark task files'
    # ScientificResults: N = 6, H = -J sum (XX + YY), sites 1-3 down; <Z_4> = 0.1594, -0.6611 and
    # <Z_6> = 0.0996, -0.8272 at Jt = 1, 2 (sites counted from 1: index 3 and 5)
    magnetizations = domain_wall_magnetizations(6, 1.0, [0.0, 1.0, 2.0])
    assert magnetizations[0] == pytest.approx([-1.0, -1.0, -1.0, 1.0, 1.0, 1.0], abs=1e-12)
    assert [m[3] for m in magnetizations[1:]] == pytest.approx([0.1594, -0.6611], abs=1e-4)
    assert [m[5] for m in magnetizations[1:]] == pytest.approx([0.0996, -0.8272], abs=1e-4)
    assert magnetizations[2] == pytest.approx([-m for m in magnetizations[2][::-1]], abs=1e-12), "mirror symmetry"


def test_two_xx_spins_swap_as_cos_4jt():
    # on {|down up>, |up down>} XX + YY is 2 sigma^x, so H = -2 J sigma^x and |down up> becomes
    # cos(2Jt)|down up> + i sin(2Jt)|up down>: <Z_1> = sin^2 - cos^2 = -cos(4 J t), <Z_2> = +cos(4 J t)
    for J, t in ((1.0, 0.3), (0.7, 1.1)):
        assert domain_wall_magnetizations(2, J, [t])[0] == pytest.approx([-math.cos(4 * J * t),
                                                                          math.cos(4 * J * t)], abs=1e-12)


def test_the_textbook_hartree_fock_reproduces_the_printed_h2_values():
    # Szabo & Ostlund (1996), section 3.5: E = -1.117 hartree, orbital energies -0.578 and +0.670
    h2 = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))])
    assert h2.energy == pytest.approx(-1.117, abs=5e-4)
    assert h2.orbital_energies == pytest.approx([-0.578, 0.670], abs=5e-4)


def test_hartree_fock_of_one_basis_function_is_the_closed_form():
    helium = restricted_hartree_fock([("He", (0, 0, 0))])
    assert helium.orbital_energies[0] < 0 and helium.energy == pytest.approx(-2.8078, abs=1e-4)
    assert restricted_hartree_fock([("He", (1.0, 2.0, 3.0))]).energy == pytest.approx(helium.energy, abs=1e-12)


def test_an_odd_electron_count_is_refused():
    with pytest.raises(ValueError, match="even number"):
        restricted_hartree_fock([("H", (0, 0, 0)), ("He", (0, 0, 1.0))])


def test_the_stretched_h2_lies_far_above_two_hydrogen_atoms():
    # restricted Hartree-Fock cannot separate H2 into two atoms (the textbook failure at large R): at 5 bohr
    # it lies far above two exact hydrogen atoms (-1/2 hartree each) and above its own equilibrium
    stretched = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 5.0))]).energy
    equilibrium = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))]).energy
    assert np.isfinite(stretched) and stretched > -1.0 + 0.25 and stretched > equilibrium


def test_restricted_h2_dissociates_to_the_half_ionic_limit():
    # Szabo & Ostlund (1996), chapter 3: STO-3G hydrogen atom E_H = -0.466582 hartree and (11|11) = 0.7746;
    # far apart, the doubly occupied (a + b)/sqrt(2) gives 2 E_H + (11|11)/2 - 1/(2R) (half of it ionic)
    R = 10.0 / BOHR_IN_ANGSTROM
    stretched = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, R))]).energy
    assert stretched == pytest.approx(2 * -0.466582 + 0.7746 / 2 - 1 / (2 * R), abs=2e-4)


def test_a_charge_removes_electrons_and_a_split_valence_basis_lowers_the_energy():
    heh = restricted_hartree_fock([("He", (0, 0, 0)), ("H", (0, 0, 1.4632))], charge=1)
    assert len(heh.orbital_energies) == 2 and heh.orbital_energies[0] < 0
    minimal = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))])
    split = restricted_hartree_fock([("H", (0, 0, 0)), ("H", (0, 0, 1.4))], basis="6-31g")
    # variational: the 6-31G space is larger; Hartree-Fock limit of H2 is -1.1336 hartree (Kolos & Roothaan 1960)
    assert len(split.orbital_energies) == 4 and -1.1336 < split.energy < minimal.energy


def test_heisenberg_sectors_hold_the_closed_forms_and_the_spin_flip_symmetry():
    assert heisenberg_sector_energy(10, 1.0, 5, periodic=True) == pytest.approx(10.0, abs=1e-12)
    assert heisenberg_sector_energy(4, 1.0, 0, periodic=True) == pytest.approx(-8.0, abs=1e-10)
    up, down = (heisenberg_sector_energy(8, 1.0, sz, periodic=True) for sz in (1, -1))
    assert up == pytest.approx(down, abs=1e-10)
    assert heisenberg_sector_energy(8, 1.0, 0, periodic=True) == pytest.approx(
        ground_state(heisenberg(8, 1.0, periodic=True))[0], abs=1e-10)


def test_bond_energies_sum_to_the_energy_and_alternate_from_the_ends():
    bonds = heisenberg_bond_energies(8, 1.0)
    assert sum(bonds) == pytest.approx(ground_state(heisenberg(8, 1.0, periodic=False))[0] / 4, abs=1e-10)
    assert bonds == pytest.approx(bonds[::-1], abs=1e-10)
    assert bonds[0] < bonds[1] > bonds[2], "strong end bond, weak second bond: the boundary-induced alternation"


def test_the_exact_spin_densities_sum_to_the_density_and_mirror_the_trap():
    from physvec.independent.hubbard import exact_ground_state, exact_spin_densities

    energy, up, down = exact_spin_densities(L=8, t=1.0, U=-4.0, A=2.0, N_up=3, N_down=1)
    total_energy, density = exact_ground_state(L=8, t=1.0, U=-4.0, A=2.0, N_up=3, N_down=1)
    assert energy == pytest.approx(total_energy, abs=1e-10) and up + down == pytest.approx(density, abs=1e-8)
    assert (up.sum(), down.sum()) == pytest.approx((3.0, 1.0), abs=1e-10)
    assert up == pytest.approx(up[::-1], abs=1e-8) and down == pytest.approx(down[::-1], abs=1e-8)
    _, balanced_up, balanced_down = exact_spin_densities(L=8, t=1.0, U=-4.0, A=2.0, N_up=2, N_down=2)
    assert balanced_up == pytest.approx(balanced_down, abs=1e-8)


def test_the_exact_ladder_spin_correlation_obeys_wick_without_interaction():
    # at U = 0 both species fill the same orbitals phi_k, and Wick's theorem gives, for sites i != j,
    # <(n_i,up - n_i,down)(n_j,up - n_j,down)> = -2 |G_ij|^2 with G_ij = sum over occupied k of phi_k(i) phi_k(j)
    from physvec.independent.hubbard import exact_ladder_leg_correlation, hopping_matrix, ladder_bonds

    energy, correlation = exact_ladder_leg_correlation(L=4, t=1.0, U=0.0, A=0.0, N_up=4, N_down=4)
    levels, orbitals = np.linalg.eigh(hopping_matrix(ladder_bonds(4), 8, 1.0))
    green = orbitals[:, :4] @ orbitals[:, :4].T
    rungs = [(1, 2), (1, 3), (0, 3)]  # l = 1, 2, 3: i = (L - 1 - l) // 2, j = i + l
    assert energy == pytest.approx(2 * levels[:4].sum(), abs=1e-10)
    assert correlation == pytest.approx([-2 * green[2 * i, 2 * j] ** 2 for i, j in rungs], abs=1e-10)


@pytest.mark.parametrize("U", [-4.0, 0.0, 3.0])
def test_the_exact_pair_correlation_of_the_hubbard_dimer_is_the_closed_form(U):
    # two sites, one fermion of each spin: the ground state mixes the symmetric pair state (|20> + |02>)/sqrt 2 and
    # the singlet through -2t, H = [[U, -2t], [-2t, 0]], E = (U - sqrt(U^2 + 16 t^2)) / 2, and the pair state's
    # weight p = E^2 / (E^2 + 4 t^2) falls equally on both sites: O(0, 0) = O(0, 1) = p / 2
    from physvec.independent.hubbard import exact_onsite_pair_correlation

    energy, correlation = exact_onsite_pair_correlation(L=2, t=1.0, U=U, A=0.0, N_up=1, N_down=1)
    closed = (U - math.sqrt(U**2 + 16)) / 2
    assert energy == pytest.approx(closed, abs=1e-10)
    assert correlation == pytest.approx(np.full((2, 2), closed**2 / (closed**2 + 4) / 2), abs=1e-10)


def test_the_exact_pair_correlation_factorises_by_wick_without_interaction():
    # at U = 0 the species are independent Slater determinants: O(i, j) = G_up(i, j) G_down(i, j), with
    # G(i, j) = <c_i^dag c_j> = sum over the filled orbitals of phi_k(i) phi_k(j)
    from physvec.independent.hubbard import exact_onsite_pair_correlation, free_fermion_pair_correlation

    _, correlation = exact_onsite_pair_correlation(L=7, t=1.0, U=0.0, A=2.0, N_up=3, N_down=2)
    assert correlation == pytest.approx(free_fermion_pair_correlation(7, 1.0, 2.0, 3, 2), abs=1e-10)
    assert np.abs(correlation - np.diag(np.diag(correlation))).max() > 0.05, "pairs move between sites"


def test_the_exact_pair_correlation_is_symmetric_and_its_diagonal_is_the_double_occupancy():
    # Hellmann-Feynman: dE/dU = sum_i <n_i,up n_i,down>, the trace of O, here by a central difference
    from physvec.independent.hubbard import exact_onsite_pair_correlation

    energy, correlation = exact_onsite_pair_correlation(L=7, t=1.0, U=-4.0, A=2.0, N_up=3, N_down=2)
    slope = (exact_onsite_pair_correlation(7, 1.0, -4.0 + 1e-4, 2.0, 3, 2)[0]
             - exact_onsite_pair_correlation(7, 1.0, -4.0 - 1e-4, 2.0, 3, 2)[0]) / 2e-4
    assert correlation == pytest.approx(correlation.T, abs=1e-12)
    assert np.trace(correlation) == pytest.approx(slope, abs=1e-6)
    assert correlation == pytest.approx(correlation[::-1, ::-1], abs=1e-8), "the trap is symmetric"


def test_the_exact_rung_pair_correlation_obeys_wick_without_interaction():
    # at U = 0, <c_b,dn c_a,up c_c,up^dag c_d,dn^dag> = (delta_ac - G_ca)(delta_bd - G_db), each species' one-body
    # density matrix G over its filled orbitals; four of each on 2 x 5 fill non-degenerate levels (the fifth is
    # a degenerate pair at zero)
    from physvec.independent.hubbard import exact_ladder_pair_correlation, free_fermion_ladder_pair_correlation

    _, pairs = exact_ladder_pair_correlation(L=5, t=1.0, U=0.0, A=0.0, N_up=4, N_down=4)
    assert pairs == pytest.approx(free_fermion_ladder_pair_correlation(5, 1.0, 4), abs=1e-10)
    assert min(abs(p) for p in pairs) > 1e-3, "every distance carries a pair amplitude to compare"


def test_the_exact_rung_pair_correlation_of_one_rung_is_the_singlet_weight_closed_form():
    # one up and one down fermion on a rung: the rung singlet has weight 4 t^2 / (E^2 + 4 t^2), with
    # E = (U - sqrt(U^2 + 16 t^2)) / 2, and Delta^dag maps it to the full rung with norm sqrt 2, so
    # D_xx(0, 0) = 8 t^2 / (E^2 + 4 t^2); the pair states |20> + |02> are annihilated by Delta^dag
    from physvec.independent.hubbard import exact_sector_ground_state, ladder_bonds

    for U in (-2.0, 0.0, 8.0):
        state = exact_sector_ground_state(ladder_bonds(1), np.zeros(2), 1.0, U, 1, 1)
        energy = (U - math.sqrt(U**2 + 16)) / 2
        assert state.rung_pair_correlation(0, 0) == pytest.approx(8 / (energy**2 + 4), abs=1e-10)


def test_the_exact_hubbard_ladder_reproduces_the_benchmark_limits():
    # the benchmark task for Noack, White & Scalapino, PRL 73, 882 (1994), Fig. 2 (upstream QMP task_dmrg_2_2,
    # LimitingCases): 2 x 2 at half filling E = -4 (U = 0) and -2.102748 (U = 4); 2 x 6, U = 4:
    # S11 at distance 2 = 0.1229 (here rungs 1 and 3, 0-based); its energy -7.84635 is this solver's value
    from physvec.independent.hubbard import exact_ladder_leg_correlation

    assert exact_ladder_leg_correlation(L=2, t=1.0, U=0.0, A=0.0, N_up=2, N_down=2)[0] == pytest.approx(-4.0, abs=1e-10)
    assert exact_ladder_leg_correlation(L=2, t=1.0, U=4.0, A=0.0, N_up=2, N_down=2)[0] == pytest.approx(-2.102748,
                                                                                                      abs=1e-6)
    energy, correlation = exact_ladder_leg_correlation(L=6, t=1.0, U=4.0, A=0.0, N_up=6, N_down=6)
    assert energy == pytest.approx(-7.84635, abs=1e-5)
    assert correlation[1] == pytest.approx(0.12294, abs=1e-5)
    assert correlation[0] < 0 < correlation[1] and correlation[2] < 0, "antiferromagnetic along the leg"


def test_the_free_bose_hubbard_ring_fills_the_single_particle_levels():
    # U = 0, L = N = 6: levels -2t cos(2 pi q / 6) = -2, -1, 1, 2, 1, -1; the cheapest momentum-m filling
    # puts N - m bosons at q = 0 and m at q = 1 for m <= 3: -2 (N - m) - m = -12 + m, and E(-k) = E(k)
    from physvec.independent.bose_hubbard import free_boson_lowest_energies, lowest_energies_by_momentum

    closed_form = [-12.0, -11.0, -10.0, -9.0, -10.0, -11.0]
    assert free_boson_lowest_energies(6, 6, 1.0) == pytest.approx(closed_form, abs=1e-12)
    assert lowest_energies_by_momentum(6, 6, 1.0, 0.0) == pytest.approx(closed_form, abs=1e-10)


def test_the_bose_hubbard_momentum_sectors_partition_the_space_and_hold_the_ground_state():
    # the sectors' dimensions add up to C(N + L - 1, N); the lowest sector energy (at k = 0) is the ground
    # energy of the whole fixed-N space; reflection gives E(k) = E(-k)
    from physvec.independent.bose_hubbard import ground_energy, lowest_energies_by_momentum, momentum_blocks

    blocks = momentum_blocks(6, 6, 1.0, 1.0)
    assert sum(block.shape[0] for block in blocks) == math.comb(11, 6)
    assert all(abs(block - block.conj().T).max() < 1e-12 for block in blocks), "each block is Hermitian"
    energies = lowest_energies_by_momentum(6, 6, 1.0, 1.0)
    assert energies[0] == min(energies) == pytest.approx(ground_energy(6, 6, 1.0, 1.0), abs=1e-10)
    assert energies == pytest.approx(energies[:1] + energies[:0:-1], abs=1e-10)
    assert ground_energy(6, 6, 1.0, 0.0) == pytest.approx(-12.0, abs=1e-10)


def test_the_lanczos_path_of_large_sectors_agrees_with_arpack(monkeypatch):
    from physvec.independent import hubbard

    arpack = hubbard.exact_sector_ground_state(hubbard.ladder_bonds(4), np.zeros(8), 1.0, 4.0, 4, 3)
    monkeypatch.setattr(hubbard, "LANCZOS_SIZE", 100)  # 70 x 56 states: Lanczos
    lanczos = hubbard.exact_sector_ground_state(hubbard.ladder_bonds(4), np.zeros(8), 1.0, 4.0, 4, 3)
    assert lanczos.energy == pytest.approx(arpack.energy, abs=1e-10)
    assert np.concatenate(lanczos.densities()) == pytest.approx(np.concatenate(arpack.densities()), abs=1e-8)
    assert lanczos.magnetisation_correlation(0, 6) == pytest.approx(arpack.magnetisation_correlation(0, 6), abs=1e-8)


@pytest.mark.parametrize("h", [0.3, 1.0, 2.5])
def test_the_periodic_tfi_free_fermion_energy_equals_exact_diagonalisation(h):
    for L in (4, 5, 8):
        assert periodic_tfi_ground_energy(L, h) == pytest.approx(ground_state(ising_zz_x(L, 1.0, h, True))[0], abs=1e-9)
    # at h = 1 the sum over antiperiodic momenta is -2 / sin(pi / 2L), tending to -4L/pi
    assert periodic_tfi_ground_energy(40, 1.0) == pytest.approx(-2 / math.sin(math.pi / 80), rel=1e-12)


def test_the_four_by_four_heisenberg_torus_has_its_published_energy():
    # E_0/N = -0.701780 J in spin operators for the 16-site square lattice with periodic boundaries (exact
    # diagonalisation, Oitmaa and Betts, Can. J. Phys. 56, 897 (1978)); Pauli units are four times that
    assert len(torus_bonds(4)) == 32
    assert heisenberg_bonds_sector_energy(torus_bonds(4), 16, 1.0, 0) / 4 / 16 == pytest.approx(-0.701780, abs=1e-6)


def test_the_ladder_spin_gap_without_interaction_moves_one_fermion_up_a_level():
    from physvec.independent.hubbard import exact_ladder_spin_gap, free_fermion_ladder_spin_gap

    # 2 x 4 ladder, t_x = t_y = 1: levels -+1 - 2 cos(pi m / 5); the 4th and 5th are -1 + 2 cos(2 pi / 5) and its negative
    assert exact_ladder_spin_gap(4, 1.0, 0.0, 4) == pytest.approx(free_fermion_ladder_spin_gap(4, 1.0, 4), abs=1e-10)
    assert free_fermion_ladder_spin_gap(4, 1.0, 4) == pytest.approx(2 - 4 * math.cos(2 * math.pi / 5), abs=1e-12)


def test_the_ladder_spin_gap_at_strong_repulsion_is_the_heisenberg_ladders_in_units_of_4t2_over_u():
    from physvec.independent.hubbard import exact_ladder_spin_gap, ladder_bonds

    # half filling, U >> t: H = J sum (S.S - 1/4), J = 4 t^2 / U; in Pauli units the gap is J (E1 - E0) / 4
    heisenberg = [heisenberg_bonds_sector_energy(ladder_bonds(3), 6, 1.0, sz) for sz in (0, 1)]
    assert exact_ladder_spin_gap(3, 1.0, 400.0, 3) == pytest.approx((heisenberg[1] - heisenberg[0]) / 400, rel=1e-3)
