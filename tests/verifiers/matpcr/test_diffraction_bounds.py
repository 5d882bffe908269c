"""The diffraction oracle's work is bounded at any wavelength: reflections are computed out to a 2theta limit
(d >= 0.25 A and at most 20,000 reciprocal-lattice points), claims beyond it are unknown, and corundum at
0.1 A, which took over 120 s and 6.3 GB, is judged in well under 5 s."""

from __future__ import annotations

import math
import time

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.diffraction import (
    D_MIN_ANGSTROM,
    MAX_RECIPROCAL_POINTS,
    judge,
    reflection_limit,
    structure_peaks,
)
from physvec.verifiers.matpcr.oracles import certify
from physvec.verifiers.matpcr.schema import DiffractionItem, MalformedInput, parse_item
from physvec.verifiers.matpcr.structures import STRUCTURES
from tests.verifiers.matpcr.conftest import claim, claims_file

CORUNDUM_A, CORUNDUM_C = 4.758, 12.991  # NBS Circular 539, vol. 2 (hexagonal axes)


def corundum(wavelength: float) -> DiffractionItem:
    return DiffractionItem(constraint="diffraction", id="al2o3", material="Al2O3-corundum",
                           wavelength_angstrom=wavelength)


def test_the_bounds_cut_nothing_at_cu_k_alpha():
    assert all(reflection_limit(material, 1.54056) == 180.0 for material in STRUCTURES)


def test_corundum_at_0_1_angstrom_stops_where_the_sphere_holds_20000_points():
    # by hand: V = (sqrt 3 / 2) a^2 c; 4/3 pi g^3 V = 20,000; 2theta = 2 asin(lambda g / 2)
    volume = math.sqrt(3) / 2 * CORUNDUM_A**2 * CORUNDUM_C
    g = (3 * MAX_RECIPROCAL_POINTS / (4 * math.pi * volume)) ** (1 / 3)
    assert reflection_limit("Al2O3-corundum", 0.1) == pytest.approx(math.degrees(2 * math.asin(0.1 * g / 2)), abs=0.01)
    assert reflection_limit("Al2O3-corundum", 0.1) == pytest.approx(15.27, abs=0.01)


def test_a_small_cell_at_0_1_angstrom_stops_at_the_scattering_factors_range():
    # alpha-Fe (a = 2.8664 A) holds few points; d = 0.25 A is reached first: 2 asin(0.1 / 0.5) = 23.07 degrees
    assert D_MIN_ANGSTROM == 0.25
    assert reflection_limit("Fe-bcc", 0.1) == pytest.approx(math.degrees(2 * math.asin(0.1 / (2 * 0.25))), abs=1e-6)


def test_attack_corundum_at_0_1_angstrom_is_judged_in_well_under_5_s():
    structure_peaks.cache_clear()
    started = time.perf_counter()
    beyond = judge(corundum(0.1), claim("diffraction", 40.0, "deg"))
    within = judge(corundum(0.1), claim("diffraction", 5.0, "deg"))
    assert time.perf_counter() - started < 5.0
    assert beyond.outcome is Outcome.UNKNOWN and "beyond the computed reflections" in beyond.message
    assert within.outcome in (Outcome.CERTIFIED, Outcome.FAILED)
    assert len(structure_peaks("Al2O3-corundum", 0.1)) <= MAX_RECIPROCAL_POINTS


def test_a_claim_within_the_resolution_of_the_limit_is_unknown_not_violated():
    limit = reflection_limit("Al2O3-corundum", 0.1)
    assert judge(corundum(0.1), claim("diffraction", limit - 0.05, "deg")).outcome is Outcome.UNKNOWN


def test_a_claims_file_at_the_shortest_wavelength_certifies_nothing_beyond_the_limit():
    item = {"constraint": "diffraction", "id": "al2o3", "material": "Al2O3-corundum", "wavelength_angstrom": 0.1}
    certificate = certify(claims_file(parse_item(item), claim("diffraction", 60.0, "deg")))
    assert [o.outcome for o in certificate.obligations] == [Outcome.UNKNOWN]


def test_a_pattern_longer_than_100000_channels_is_malformed():
    channels = list(range(100_001))
    with pytest.raises(MalformedInput, match="pattern.two_theta"):
        parse_item({"constraint": "diffraction", "id": "x", "pattern": {"two_theta": channels, "intensity": channels}})


def test_attack_an_extinct_reflection_alone_in_reach_is_no_peak():
    # Cu (fcc, a = 3.6150 A) at 5.2 A: only (100) has d = 3.615 >= lambda / 2, at 2 asin(5.2 / 7.23) = 91.98
    # degrees, and fcc extinguishes it (h, k, l mixed); pymatgen alone scales it to 100 %
    cu = DiffractionItem(constraint="diffraction", id="cu", material="Cu", wavelength_angstrom=5.2)
    assert math.degrees(2 * math.asin(5.2 / (2 * 3.615))) == pytest.approx(91.98, abs=0.01)
    assert structure_peaks("Cu", 5.2) == () and judge(cu, claim("diffraction", 91.98, "deg")).outcome is Outcome.FAILED


def test_a_wavelength_that_reaches_no_lattice_plane_is_judged_without_a_crash():
    # lambda / 2 = 4.5 A exceeds Cu's largest d-spacing (a = 3.615 A): no reflection exists
    cu = DiffractionItem(constraint="diffraction", id="cu", material="Cu", wavelength_angstrom=9.0)
    assert judge(cu, claim("diffraction", 60.0, "deg")).outcome is Outcome.FAILED
