"""Diffraction oracle against independent facts (Cu K-alpha1 = 1.54056 A), and the cheapest claims that would
fool a looser oracle."""

from __future__ import annotations

import math

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.diffraction import judge, structure_peaks
from physvec.verifiers.matpcr.schema import DiffractionItem, Pattern
from tests.verifiers.matpcr.conftest import claim

SI = DiffractionItem(constraint="diffraction", id="si", material="Si")
NACL = DiffractionItem(constraint="diffraction", id="nacl", material="NaCl")


def bragg_two_theta(a: float, hkl: tuple[int, int, int], wavelength: float = 1.54056) -> float:
    """Bragg's law for a cubic cell, by hand: d = a / sqrt(h^2 + k^2 + l^2)."""
    return math.degrees(2 * math.asin(wavelength * math.sqrt(sum(i * i for i in hkl)) / (2 * a)))


def test_hand_bragg_angles_match_the_published_facts():
    assert bragg_two_theta(5.431, (1, 1, 1)) == pytest.approx(28.44, abs=0.01)
    assert bragg_two_theta(5.431, (2, 2, 0)) == pytest.approx(47.30, abs=0.01)
    assert bragg_two_theta(5.6402, (2, 0, 0)) == pytest.approx(31.70, abs=0.01)


def test_silicon_111_and_220_are_computed_peaks_near_28_44_and_47_30():
    positions = [peak.two_theta for peak in structure_peaks("Si", 1.54056)]
    assert min(abs(p - 28.44) for p in positions) < 0.01
    assert min(abs(p - 47.30) for p in positions) < 0.01


@pytest.mark.parametrize(("item", "value", "hkl"), [(SI, 28.44, [1, 1, 1]), (SI, 47.30, [2, 2, 0]),
                                                    (NACL, 31.7, [2, 0, 0]), (SI, 28.6, None)])
def test_a_claim_within_half_a_degree_of_a_bragg_peak_is_certified(item, value, hkl):
    assert judge(item, claim("diffraction", value, "deg", hkl=hkl)).outcome is Outcome.CERTIFIED


def test_a_claim_between_peaks_fails_and_its_message_gives_no_peak_position():
    judgement = judge(SI, claim("diffraction", 36.0, "deg"))
    assert judgement.outcome is Outcome.FAILED
    assert "28.4" not in str(judgement.evidence) and "47.3" not in str(judgement.evidence)
    assert judgement.sealed["nearest_peak_deg"] == pytest.approx(28.44, abs=0.01)


def test_attack_a_forbidden_reflection_at_its_own_bragg_angle_is_refused():
    # Si (200): allowed by the lattice, extinct in the diamond structure (h + k + l = 4n + 2)
    judgement = judge(SI, claim("diffraction", bragg_two_theta(5.431, (2, 0, 0)), "deg", hkl=[2, 0, 0]))
    assert judgement.outcome is Outcome.FAILED and "systematically absent" in judgement.message


def test_attack_a_real_peak_assigned_to_the_wrong_reflection_is_refused():
    assert judge(SI, claim("diffraction", 47.30, "deg", hkl=[1, 1, 1])).outcome is Outcome.FAILED


@pytest.mark.parametrize("value", [0.0, -28.44, 180.0, 208.44])
def test_attack_an_angle_outside_zero_to_180_is_refused(value):
    assert judge(SI, claim("diffraction", value, "deg")).outcome is Outcome.FAILED


def test_miller_bravais_indices_need_i_equal_minus_h_minus_k():
    zno = DiffractionItem(constraint="diffraction", id="zno", material="ZnO")
    assert judge(zno, claim("diffraction", 36.25, "deg", hkl=[1, 0, -1, 1])).outcome is Outcome.CERTIFIED
    assert judge(zno, claim("diffraction", 36.25, "deg", hkl=[1, 0, 1, 1])).outcome is Outcome.FAILED


def test_a_measured_pattern_is_judged_by_its_own_prominent_maxima():
    two_theta = [20 + 0.02 * i for i in range(1000)]
    intensity = [100 * math.exp(-((x - 30.0) / 0.1) ** 2) + 1 for x in two_theta]
    item = DiffractionItem(constraint="diffraction", id="p", pattern=Pattern(two_theta=two_theta, intensity=intensity))
    assert judge(item, claim("diffraction", 30.3, "deg")).outcome is Outcome.CERTIFIED
    assert judge(item, claim("diffraction", 31.0, "deg")).outcome is Outcome.FAILED
    assert judge(item, claim("diffraction", 45.0, "deg")).outcome is Outcome.FAILED, "outside the measured range"
