"""PHACT engines against independent values: Biopython, published catalogues, closed forms."""

from __future__ import annotations

import math

import pytest
from Bio.SeqUtils import MeltingTemp

from physvec.verifiers.phact.engines import colloids, dna, drones, filters
from physvec.verifiers.phact.engines import gravitational_waves as gw


@pytest.mark.parametrize("sequence", ["CGTTGAAGCTTACG", "GGACTGACGATT", "GCGCATGCGC", "ATCGATCGTAGC"])
@pytest.mark.parametrize("strands_M, sodium_M", [(250e-9, 0.05), (1e-6, 0.15), (1e-7, 1.0)])
def test_melting_temperature_equals_biopython_with_the_same_table_and_salt_correction(sequence, strands_M, sodium_M):
    # Biopython's DNA_NN3 holds the unified SantaLucia 1998 parameters; saltcorr=6 is Owczarzy 2004.
    # For two strands at equal concentration dnac1 = dnac2 = C_T / 2; a self-complementary strand is dnac1 = C_T.
    self_complementary = dna.is_self_complementary(sequence)
    expected_C = MeltingTemp.Tm_NN(
        sequence, nn_table=MeltingTemp.DNA_NN3, selfcomp=self_complementary,
        dnac1=strands_M * 1e9 if self_complementary else strands_M * 1e9 / 2,
        dnac2=0 if self_complementary else strands_M * 1e9 / 2,
        Na=sodium_M * 1e3, K=0, Tris=0, Mg=0, dNTPs=0, saltcorr=6)
    assert dna.melting_temperature_K(sequence, strands_M, sodium_M) - dna.KELVIN_AT_0C == pytest.approx(expected_C, abs=1e-9)


def test_duplex_free_energy_at_37_c_follows_from_enthalpy_and_entropy():
    # CG/GC stacks: dH = -10.6 - 9.8 - 10.6 + 2 x 0.1 (G.C initiation) = -30.8 kcal/mol,
    # dS = -27.2 - 24.4 - 27.2 + 2 x (-2.8) - 1.4 (CGCG is self-complementary) = -85.8 cal/mol/K.
    energy = dna.duplex("CGCG")
    assert energy.dH_kcal_per_mol == pytest.approx(-30.8)
    assert energy.dS_cal_per_mol_K == pytest.approx(-85.8)
    assert energy.dG_kcal_per_mol() == pytest.approx(-30.8 + 310.15 * 0.0858)


def test_a_sequence_outside_watson_crick_dna_is_outside_the_engines_competence():
    with pytest.raises(dna.SequenceError):
        dna.duplex("ACGU")


def test_chirp_masses_of_the_first_two_detections_match_the_catalogue():
    # GWTC-1 (LVC, PRX 9, 031040 (2019)), source-frame medians: GW150914 m1 = 35.6, m2 = 30.6,
    # Mc = 28.6 (90% interval about +-1.6); GW170817 m1 = 1.46, m2 = 1.27, Mc = 1.186 (+-0.001).  A chirp mass from
    # the median component masses is not the median chirp mass, so the check is the catalogue rounding
    # widened to the quoted interval.
    assert gw.chirp_mass_msun(35.6, 30.6) == pytest.approx(28.6, abs=0.15)
    assert gw.chirp_mass_msun(1.46, 1.27) == pytest.approx(1.186, abs=0.002)


def test_isco_frequency_scales_inversely_with_mass_and_is_4_4_khz_for_one_solar_mass():
    # f_ISCO = c^3 / (6^1.5 pi G M) = 4397 Hz for M = 1 solar mass (a textbook number).
    assert gw.isco_gw_frequency_Hz(1.0) == pytest.approx(4397, rel=1e-3)
    assert gw.isco_gw_frequency_Hz(10.0) == pytest.approx(gw.isco_gw_frequency_Hz(1.0) / 10)


def test_strain_and_merger_time_follow_their_power_laws():
    base = gw.strain_amplitude(1.2, 100.0, 40.0)
    assert gw.strain_amplitude(1.2, 800.0, 40.0) / base == pytest.approx(8 ** (2 / 3))
    assert gw.strain_amplitude(1.2, 100.0, 80.0) / base == pytest.approx(0.5)
    # GW170817 was ~1e-22 at ~100 Hz from 40 Mpc
    assert 1e-23 < base < 1e-21
    assert gw.merger_time_s(1.4, 1.4, 2e6) / gw.merger_time_s(1.4, 1.4, 1e6) == pytest.approx(16)


def test_rc_cutoff_and_attenuation_closed_forms():
    cutoff = filters.cutoff_Hz(1_000.0, 1e-6)
    assert cutoff == pytest.approx(1 / (2 * math.pi * 1e-3))
    assert filters.attenuation_dB("low_pass", cutoff, cutoff) == pytest.approx(10 * math.log10(2))
    assert filters.attenuation_dB("low_pass", cutoff, 100 * cutoff) == pytest.approx(40.0, abs=1e-3)
    assert filters.attenuation_dB("high_pass", cutoff, cutoff / 100) == pytest.approx(40.0, abs=1e-3)


@pytest.mark.parametrize("value, series, snapped", [(4_600.0, "E12", 4_700.0), (1.05e-7, "E12", 1.0e-7),
                                                     (9.5, "E24", 9.1), (9.7, "E12", 10.0)])
def test_components_snap_to_the_nearest_preferred_value(value, series, snapped):
    assert filters.snap(value, series) == pytest.approx(snapped)


@pytest.mark.parametrize("ionic_strength_M, debye_nm", [(0.010, 3.04), (0.150, 0.785)])
def test_debye_length_at_25_c_matches_the_textbook_rule(ionic_strength_M, debye_nm):
    # 1:1 electrolyte in water at 25 C: 1/kappa = 0.304 nm / sqrt(I / M) (Israelachvili, Intermolecular and Surface Forces, 3rd ed., ch. 14)
    assert colloids.debye_length_m(ionic_strength_M, 298.15) * 1e9 == pytest.approx(debye_nm, rel=2e-3)


def test_water_permittivity_at_25_c_is_78_3():
    assert colloids.water_permittivity(298.15) == pytest.approx(78.30, abs=0.02)


def test_hamaker_constants_across_water_fall_in_the_tabulated_ranges():
    # Israelachvili 3rd ed., ch. 13 (media interacting across water): hydrocarbons 0.3-0.5e-20 J,
    # fused quartz about 0.6e-20 J; alumina is stronger and polystyrene in between.
    assert 0.3e-20 <= colloids.hamaker_in_water_J("hydrocarbon", 298.15) <= 0.5e-20
    assert 0.5e-20 <= colloids.hamaker_in_water_J("fused_silica", 298.15) <= 0.7e-20
    assert colloids.hamaker_in_water_J("fused_silica", 298.15) < colloids.hamaker_in_water_J("polystyrene", 298.15) \
        < colloids.hamaker_in_water_J("alumina", 298.15)


def test_salt_screens_the_barrier_and_unknown_materials_are_outside_competence():
    barriers = [colloids.barrier_kT(100e-9, "polystyrene", -0.03, salt, 298.15) for salt in (0.001, 0.01, 0.1, 0.5)]
    assert barriers == sorted(barriers, reverse=True) and barriers[0] > 0
    assert colloids.barrier_kT(100e-9, "polystyrene", 0.0, 0.01, 298.15) == 0.0, "no charge, no barrier"
    with pytest.raises(colloids.OutsideCompetence):
        colloids.hamaker_in_water_J("unobtainium", 298.15)
    with pytest.raises(colloids.OutsideCompetence):
        colloids.barrier_kT(100e-9, "polystyrene", -0.2, 0.01, 298.15)


def test_a_drone_in_still_air_needs_no_roll_and_exactly_its_weight():
    calm = drones.crosswind(2.0, 40.0, 30.0, 1.225, 1.0, 0.05, 0.0, 10.0)
    assert calm.roll_needed_deg == 0.0 and calm.drift_m == 0.0
    assert calm.thrust_needed_N == pytest.approx(2.0 * drones.STANDARD_GRAVITY_M_PER_S2)


def test_crosswind_roll_and_drift_follow_their_closed_forms():
    # drag 1/2 x 1.2 x 1.0 x 0.1 x 20^2 = 24 N against a weight of 1 x g
    windy = drones.crosswind(1.0, 40.0, 30.0, 1.2, 1.0, 0.1, 20.0, 4.0)
    assert windy.drag_N == pytest.approx(24.0)
    assert windy.roll_needed_deg == pytest.approx(math.degrees(math.atan(24.0 / drones.STANDARD_GRAVITY_M_PER_S2)))
    uncancelled = 24.0 - drones.STANDARD_GRAVITY_M_PER_S2 * math.tan(math.radians(30.0))
    assert windy.drift_m == pytest.approx(0.5 * uncancelled * 16.0)
