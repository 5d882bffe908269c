"""Diffraction oracle against independent facts (Bragg's law by hand, Si a = 5.431 A, Cu K-alpha1 = 1.54056 A),
within the instrument resolution, and the cheapest claims and patterns that would fool a looser oracle."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.ndimage import uniform_filter1d

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.diffraction import TOLERANCE_DEG, judge, structure_peaks
from physvec.verifiers.matpcr.schema import DiffractionItem, MalformedInput, Pattern, parse_item
from physvec.verifiers.matpcr.spectra import poisson_counts
from tests.verifiers.matpcr.conftest import claim

SI = DiffractionItem(constraint="diffraction", id="si", material="Si")
NACL = DiffractionItem(constraint="diffraction", id="nacl", material="NaCl")
SI_A = 5.431  # Okada and Tokumaru, J. Appl. Phys. 56, 314 (1984), 300 K
SI_REFLECTIONS = {(1, 1, 1): 1.0, (2, 2, 0): 0.55, (3, 1, 1): 0.30, (4, 0, 0): 0.06, (3, 3, 1): 0.11, (4, 2, 2): 0.12}
"""Si's powder reflections below 90 degrees and their relative heights (the ICDD pattern's, roughly)"""
STEP = 0.02
INSIDE = slice(40, -40)
"""channels 0.8 degrees or more from the ends of a scan, where every candidate has side bands for its baseline"""


def bragg_two_theta(a: float, hkl: tuple[int, int, int], wavelength: float = 1.54056) -> float:
    """Bragg's law for a cubic cell, by hand: d = a / sqrt(h^2 + k^2 + l^2)."""
    return math.degrees(2 * math.asin(wavelength * math.sqrt(sum(i * i for i in hkl)) / (2 * a)))


def pattern_item(counts: np.ndarray, axis: np.ndarray, **fields) -> DiffractionItem:
    return DiffractionItem(constraint="diffraction", id="pattern",
                           pattern=Pattern(two_theta=axis.tolist(), intensity=counts.tolist()), **fields)


def si_pattern(seed: int, strongest: float = 3e4, background: float = 40.0, heights: dict | None = None,
               fwhm: float = 0.1) -> DiffractionItem:
    """A measured Si powder pattern: Gaussian peaks at the hand Bragg angles, Poisson counts, 20-90 degrees."""
    axis = np.round(np.arange(20.0, 90.0 + STEP / 2, STEP), 3)
    sigma = fwhm / (2 * math.sqrt(2 * math.log(2)))
    expected = background + sum(strongest * height * np.exp(-0.5 * ((axis - bragg_two_theta(SI_A, hkl)) / sigma) ** 2)
                                for hkl, height in (heights or SI_REFLECTIONS).items())
    return pattern_item(poisson_counts(expected, seed), axis)


def outcome(item: DiffractionItem, value: float, hkl: list[int] | None = None) -> Outcome:
    return judge(item, claim("diffraction", value, "deg", hkl=hkl)).outcome


def test_hand_bragg_angles_match_the_published_facts():
    assert bragg_two_theta(SI_A, (1, 1, 1)) == pytest.approx(28.44, abs=0.01)
    assert bragg_two_theta(SI_A, (2, 2, 0)) == pytest.approx(47.30, abs=0.01)
    assert bragg_two_theta(SI_A, (4, 0, 0)) == pytest.approx(69.13, abs=0.01)
    assert bragg_two_theta(5.6402, (2, 0, 0)) == pytest.approx(31.70, abs=0.01)


def test_silicon_111_220_and_400_are_computed_peaks_at_their_bragg_angles():
    positions = [peak.two_theta for peak in structure_peaks("Si", 1.54056)]
    for hkl in ((1, 1, 1), (2, 2, 0), (4, 0, 0)):
        assert min(abs(p - bragg_two_theta(SI_A, hkl)) for p in positions) < 0.01


def test_the_default_tolerance_is_the_instrument_resolution_of_a_tenth_of_a_degree():
    assert TOLERANCE_DEG == 0.1


@pytest.mark.parametrize(("item", "value", "hkl"), [(SI, 28.44, [1, 1, 1]), (SI, 47.30, [2, 2, 0]),
                                                    (NACL, 31.7, [2, 0, 0]), (SI, 28.52, None), (SI, 47.22, None)])
def test_a_claim_within_the_resolution_of_a_bragg_peak_is_certified(item, value, hkl):
    assert outcome(item, value, hkl) is Outcome.CERTIFIED


@pytest.mark.parametrize("hkl", [None, [2, 2, 0]])
def test_attack_si_220_claimed_at_47_0_fails_against_47_30(hkl):
    # the red team's case: 0.30 degrees off passed the old half-degree window
    assert outcome(SI, 47.0, hkl) is Outcome.FAILED


def test_an_item_that_states_a_coarse_instrument_is_judged_at_its_resolution():
    coarse = SI.model_copy(update={"resolution_deg": 0.4})
    assert outcome(coarse, 47.0) is Outcome.CERTIFIED and outcome(coarse, 46.8) is Outcome.FAILED


@pytest.mark.parametrize("resolution", [0.0, 0.001, 0.6, -0.1, True, "0.1", float("nan")])
def test_a_resolution_outside_the_instruments_that_exist_is_malformed(resolution):
    with pytest.raises(MalformedInput, match="resolution_deg"):
        parse_item({"constraint": "diffraction", "id": "x", "material": "Si", "resolution_deg": resolution})


def test_the_weak_si_400_reflection_of_the_reference_is_certified():
    # (400) is about a tenth of (111) in the computed pattern: weak, but a reflection
    peaks = structure_peaks("Si", 1.54056)
    weak = min(peaks, key=lambda peak: abs(peak.two_theta - 69.13))
    assert weak.intensity < 0.15 * max(peak.intensity for peak in peaks)
    assert outcome(SI, 69.13) is Outcome.CERTIFIED and outcome(SI, 69.13, [4, 0, 0]) is Outcome.CERTIFIED


def test_a_claim_between_peaks_fails_and_its_message_gives_no_peak_position():
    judgement = judge(SI, claim("diffraction", 36.0, "deg"))
    assert judgement.outcome is Outcome.FAILED
    assert "28.4" not in str(judgement.evidence) and "47.3" not in str(judgement.evidence)
    assert judgement.sealed["nearest_peak_deg"] == pytest.approx(28.44, abs=0.01)


def test_attack_a_forbidden_reflection_at_its_own_bragg_angle_is_refused():
    # Si (200): allowed by the lattice, extinct in the diamond structure (h + k + l = 4n + 2)
    judgement = judge(SI, claim("diffraction", bragg_two_theta(SI_A, (2, 0, 0)), "deg", hkl=[2, 0, 0]))
    assert judgement.outcome is Outcome.FAILED and "systematically absent" in judgement.message


def test_attack_a_real_peak_assigned_to_the_wrong_reflection_is_refused():
    assert outcome(SI, 47.30, [1, 1, 1]) is Outcome.FAILED


@pytest.mark.parametrize("value", [0.0, -28.44, 180.0, 208.44])
def test_attack_an_angle_outside_zero_to_180_is_refused(value):
    assert outcome(SI, value) is Outcome.FAILED


def test_miller_bravais_indices_need_i_equal_minus_h_minus_k():
    # ZnO (10-11): a = 3.2498, c = 5.2066 A (Kisi and Elcombe 1989), 1/d^2 = 4/(3a^2) + 1/c^2 -> 36.25 degrees
    zno = DiffractionItem(constraint="diffraction", id="zno", material="ZnO")
    assert outcome(zno, 36.25, [1, 0, -1, 1]) is Outcome.CERTIFIED
    assert outcome(zno, 36.25, [1, 0, 1, 1]) is Outcome.FAILED


# measured patterns ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(4))
def test_every_reflection_of_a_measured_si_pattern_is_certified_at_its_bragg_angle(seed):
    item = si_pattern(seed)
    assert all(outcome(item, round(bragg_two_theta(SI_A, hkl), 2)) is Outcome.CERTIFIED for hkl in SI_REFLECTIONS)


@pytest.mark.parametrize("seed", range(4))
def test_a_weak_real_si_400_below_five_percent_of_the_strongest_is_certified(seed):
    # the red team's case: (400) at 3 % of (111) was refused by a prominence threshold of 5 % of the range
    item = si_pattern(seed, heights={**SI_REFLECTIONS, (4, 0, 0): 0.03})
    assert outcome(item, 69.13) is Outcome.CERTIFIED


@pytest.mark.parametrize("seed", range(3))
def test_a_measured_pattern_refuses_a_claim_off_its_peaks(seed):
    item = si_pattern(seed)
    assert outcome(item, 47.0) is Outcome.FAILED and outcome(item, 36.0) is Outcome.FAILED


def test_attack_a_claim_outside_the_measured_range_is_unknown_not_violated():
    judgement = judge(si_pattern(0), claim("diffraction", 106.70, "deg"))  # Si (440), beyond the scan
    assert judgement.outcome is Outcome.UNKNOWN and "outside the measured range" in judgement.message


def test_a_real_peak_at_the_very_end_of_the_scan_is_unknown_not_refused():
    # Si (422) at 88.03 degrees in a scan that stops at 88.1: no room for a baseline on its far side
    item = si_pattern(0)
    end = int(np.searchsorted(np.asarray(item.pattern.two_theta), 88.1))
    cut = pattern_item(np.asarray(item.pattern.intensity)[:end], np.asarray(item.pattern.two_theta)[:end])
    judgement = judge(cut, claim("diffraction", 88.03, "deg"))
    assert judgement.outcome is Outcome.UNKNOWN and "edge" in judgement.message


@pytest.mark.parametrize("seed", range(4))
def test_attack_an_amorphous_halo_is_not_a_bragg_peak(seed):
    # a glass halo 8 degrees wide (silica's is 5-10) with Poisson counts, claimed at its centre
    axis = np.round(np.arange(10.0, 80.0, 0.05), 3)
    expected = 50 + 3000 * np.exp(-4 * math.log(2) * ((axis - 24.0) / 8.0) ** 2)
    halo = pattern_item(poisson_counts(expected, seed), axis)
    judgement = judge(halo, claim("diffraction", 24.0, "deg"))
    assert judgement.outcome is Outcome.FAILED and "halo" in judgement.message


def test_attack_a_dark_pattern_with_one_count_holds_no_peak():
    axis = np.round(np.arange(20.0, 80.0, STEP), 3)
    dark = np.zeros(axis.size)
    dark[1000] = 1.0
    assert outcome(pattern_item(dark, axis), float(axis[1000])) is Outcome.FAILED


@pytest.mark.parametrize("seed", range(3))
def test_attack_sparse_counts_and_a_smoothing_bump_hold_no_peak(seed):
    axis = np.round(np.arange(20.0, 80.0, STEP), 3)
    for counts in (poisson_counts(np.full(axis.size, 0.3), seed),
                   uniform_filter1d(poisson_counts(np.full(axis.size, 100.0), seed), 9)):
        highest = float(axis[INSIDE][np.argmax(uniform_filter1d(counts, 5)[INSIDE])])
        assert outcome(pattern_item(counts, axis), highest) is Outcome.FAILED


def test_attack_a_cosmic_ray_spike_in_a_pattern_is_not_a_peak():
    item = si_pattern(0)
    counts = np.asarray(item.pattern.intensity)
    index = int(np.argmin(np.abs(np.asarray(item.pattern.two_theta) - 40.0)))
    counts[index] += 5e4
    judgement = judge(pattern_item(counts, np.asarray(item.pattern.two_theta)), claim("diffraction", 40.0, "deg"))
    assert judgement.outcome is Outcome.FAILED and "cosmic ray" in judgement.message


def test_negative_counts_are_malformed():
    with pytest.raises(MalformedInput, match="intensity"):
        parse_item({"constraint": "diffraction", "id": "x",
                    "pattern": {"two_theta": [1, 2, 3], "intensity": [1, -1, 1]}})
