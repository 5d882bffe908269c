"""Each engine declines inputs no physics allows (outside its competence: the verdict is unknown), and still
evaluates the inputs just inside the physical bound.  Issue 36: a separation inside the Schwarzschild radius,
strain above f_ISCO, strands denser than DNA, 10^6 M sodium, a negative air density or drag coefficient and a
0.1 pm colloid were all certified before."""

from __future__ import annotations

import pytest

from physvec.verifiers.phact.domains import DOMAINS
from physvec.verifiers.phact.engines import OutsideCompetence, colloids, dna, drones
from physvec.verifiers.phact.engines import gravitational_waves as gw

# G M_sun / c^2 = 1476.6 m (IAU nominal solar mass parameter): r_s of 60 solar masses is 177.2 km.
SCHWARZSCHILD_60_MSUN_M = 2 * 1476.625 * 60


def test_the_schwarzschild_radius_is_2_g_m_over_c_squared():
    assert gw.schwarzschild_radius_m(60.0) == pytest.approx(SCHWARZSCHILD_60_MSUN_M, rel=1e-4)
    assert gw.isco_separation_m(60.0) == pytest.approx(3 * SCHWARZSCHILD_60_MSUN_M, rel=1e-4)


@pytest.mark.parametrize("separation_m", [1e3, 0.99 * 3 * SCHWARZSCHILD_60_MSUN_M])
def test_no_merger_time_inside_the_innermost_stable_orbit(separation_m):
    with pytest.raises(OutsideCompetence, match="innermost stable orbit"):
        gw.merger_time_s(30.0, 30.0, separation_m)


def test_a_merger_time_just_outside_the_innermost_stable_orbit():
    assert gw.merger_time_s(30.0, 30.0, 1.01 * 3 * SCHWARZSCHILD_60_MSUN_M) > 0


def test_no_inspiral_strain_above_the_isco_frequency():
    # 60 solar masses: f_ISCO = 4397 Hz / 60 = 73 Hz, so 5 kHz is no inspiral
    inspiral = DOMAINS["inspiral"]
    values = {"m1_msun": 30.0, "m2_msun": 30.0, "distance_Mpc": 400.0, "separation_m": 1e7}
    with pytest.raises(OutsideCompetence, match="above f_ISCO"):
        inspiral.evaluate({**values, "gw_frequency_Hz": 5e3}, wanted=["strain"])
    below = inspiral.evaluate({**values, "gw_frequency_Hz": 70.0}, wanted=["strain"])
    assert below["strain"] == pytest.approx(gw.strain_amplitude(below["chirp_mass_msun"], 70.0, 400.0))


def test_no_melting_temperature_for_strands_denser_than_dna():
    # a 20-mer weighs 20 x 330 g/mol: 1700 g/L of DNA is 0.258 mol/L of it, and 50 mol/L is 330 kg/L
    with pytest.raises(OutsideCompetence, match="denser than DNA"):
        dna.melting_temperature_K("ACGTACGTACGTACGTACGT", 50.0, 0.15)
    assert dna.melting_temperature_K("ACGTACGTACGTACGTACGT", 0.25, 0.15) > 0


def test_no_melting_temperature_above_the_solubility_of_salt():
    with pytest.raises(OutsideCompetence, match="solubility"):
        dna.melting_temperature_K("CGTTGAAGCTTACG", 1e-6, 1e6)
    assert dna.melting_temperature_K("CGTTGAAGCTTACG", 1e-6, 6.0) > 0


@pytest.mark.parametrize("density, drag, area, match", [
    (-1.2, 1.0, 0.05, "positive density"), (0.0, 1.0, 0.05, "positive density"),
    (1.2, -0.3, 0.05, "drag_coefficient"), (1.2, 1.0, -0.05, "frontal_area_m2")])
def test_no_crosswind_for_negative_air_drag_or_area(density, drag, area, match):
    with pytest.raises(OutsideCompetence, match=match):
        drones.crosswind(1.5, 30.0, 35.0, density, drag, area, 10.0, 60.0)


@pytest.mark.parametrize("radius_m", [1e-13, 0.5e-9, 0.0, -1e-7])
def test_no_barrier_for_a_particle_below_a_nanometre(radius_m):
    with pytest.raises(OutsideCompetence, match="not a colloid"):
        colloids.barrier_kT(radius_m, "polystyrene", -0.05, 0.01, 298.15)


def test_a_one_nanometre_particle_is_still_a_colloid():
    assert colloids.barrier_kT(1e-9, "polystyrene", -0.05, 0.01, 298.15) >= 0
