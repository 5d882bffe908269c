"""Raman oracle on Poisson-count spectra: real lines are found at their published shifts, and noise (a dark
spectrum, sparse counts, a cosmic-ray spike, a bump made by smoothing) is not a line."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.ndimage import uniform_filter1d

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.raman import judge, lines
from physvec.verifiers.matpcr.schema import RamanItem
from physvec.verifiers.matpcr.spectra import LINES, STEP_CM1, poisson_counts, spectrum
from tests.verifiers.matpcr.conftest import claim

SI = spectrum("Si", seed=0)
AXIS = np.arange(300.0, 800.0, STEP_CM1)
INSIDE = slice(40, -40)
"""channels 20 cm^-1 or more from the ends, where every candidate has side bands for its baseline"""


def item(counts: np.ndarray, axis: np.ndarray = AXIS, **fields) -> RamanItem:
    return RamanItem(constraint="raman", id="raman:test", shift_cm1=axis.tolist(), intensity=counts.tolist(), **fields)


def outcome(spectrum_item: RamanItem, shift: float) -> Outcome:
    return judge(spectrum_item, claim("raman", shift, "cm-1")).outcome


def test_the_silicon_line_is_the_one_genuine_line_and_lies_at_520_7():
    # 520.7 cm^-1: Parker, Feldman and Ashkin, Phys. Rev. 155, 712 (1967), the usual calibration value
    (line,) = lines(SI)
    assert line.position == pytest.approx(520.7, abs=0.3) and line.snr > 50


@pytest.mark.parametrize(("value", "expected"), [(520.7, Outcome.CERTIFIED), (516.0, Outcome.CERTIFIED),
                                                 (525.0, Outcome.CERTIFIED), (514.0, Outcome.FAILED),
                                                 (480.0, Outcome.FAILED)])
def test_a_claim_within_5_cm1_of_the_line_is_certified(value, expected):
    assert outcome(SI, value) is expected


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("material", sorted(LINES))
def test_every_tabulated_line_is_found_and_nothing_else_at_every_seed(material, seed):
    found = sorted(line.position for line in lines(spectrum(material, seed=seed)))
    assert found == pytest.approx(sorted(line.position_cm1 for line in LINES[material]), abs=1.0)


@pytest.mark.parametrize("seed", range(6))
def test_a_weak_line_on_a_realistic_background_is_certified(seed):
    # a Lorentzian 60 counts high and 5 cm^-1 wide over 100 counts per channel: its area, pi/2 x 60 x 5 / 0.5
    # = 940 counts, is spread over channels that each scatter by 10
    expected = 100.0 + 60.0 / (1 + ((AXIS - 600.0) / 2.5) ** 2)
    assert outcome(item(poisson_counts(expected, seed), resolution_cm1=2.0), 600.0) is Outcome.CERTIFIED


def test_attack_the_highest_noise_maximum_away_from_the_line_is_not_a_line():
    shift, intensity = np.asarray(SI.shift_cm1)[INSIDE], np.asarray(SI.intensity)[INSIDE]
    away = np.abs(shift - 520.7) > 60
    assert outcome(SI, float(shift[away][np.argmax(intensity[away])])) is Outcome.FAILED


def test_attack_a_dark_spectrum_with_one_count_is_no_line():
    # the red team's case: a MAD noise estimate of 0 made any count a line
    dark = np.zeros(AXIS.size)
    dark[400] = 1.0
    judgement = judge(item(dark), claim("raman", float(AXIS[400]), "cm-1"))
    assert judgement.outcome is Outcome.FAILED and "signal-to-noise" in judgement.message


@pytest.mark.parametrize("seed", range(5))
def test_attack_sparse_poisson_counts_hold_no_line(seed):
    sparse = poisson_counts(np.full(AXIS.size, 0.05), seed)
    cluster = float(AXIS[INSIDE][np.argmax(uniform_filter1d(sparse, 8)[INSIDE])])
    assert lines(item(sparse)) == [] and outcome(item(sparse), cluster) is Outcome.FAILED


def test_attack_a_single_channel_cosmic_ray_is_not_a_line():
    counts = np.asarray(SI.intensity)
    spiked = counts.copy()
    index = int(np.argmin(np.abs(np.asarray(SI.shift_cm1) - 480.0)))
    spiked[index] += 2000.0
    judgement = judge(SI.model_copy(update={"intensity": spiked.tolist()}), claim("raman", 480.0, "cm-1"))
    assert judgement.outcome is Outcome.FAILED and "cosmic ray" in judgement.message


def test_a_cosmic_ray_on_a_real_line_leaves_the_line_certified():
    spiked = np.asarray(SI.intensity).copy()
    spiked[int(np.argmax(spiked))] += 5000.0
    assert outcome(SI.model_copy(update={"intensity": spiked.tolist()}), 520.7) is Outcome.CERTIFIED


@pytest.mark.parametrize("seed", range(5))
def test_attack_a_bump_made_by_smoothing_noise_is_not_a_line(seed):
    # a moving average keeps every count, so the bump holds no more counts than the noise it came from
    smoothed = uniform_filter1d(poisson_counts(np.full(AXIS.size, 30.0), seed), 9)
    bump = float(AXIS[INSIDE][np.argmax(smoothed[INSIDE])])
    assert lines(item(smoothed)) == [] and outcome(item(smoothed), bump) is Outcome.FAILED


def test_attack_noise_multiplied_by_1000_is_still_noise():
    scaled = 1000 * poisson_counts(np.full(AXIS.size, 2.0), 1)
    assert lines(item(scaled)) == []


def test_attack_a_shift_outside_the_measured_range_is_unknown_not_violated():
    judgement = judge(SI, claim("raman", 2000.0, "cm-1"))
    assert judgement.outcome is Outcome.UNKNOWN and "outside the measured range" in judgement.message


def test_a_claim_at_the_very_end_of_the_range_where_no_baseline_fits_is_unknown():
    judgement = judge(SI, claim("raman", SI.shift_cm1[-2], "cm-1"))
    assert judgement.outcome is Outcome.UNKNOWN and "edge" in judgement.message


def test_a_spectrum_too_coarse_to_tell_a_line_from_a_spike_is_unknown():
    coarse = np.arange(300.0, 800.0, 2.0)
    counts = poisson_counts(20 + 1000 / (1 + ((coarse - 520.0) / 2) ** 2), 0)
    judgement = judge(item(counts, coarse, resolution_cm1=3.0), claim("raman", 520.0, "cm-1"))
    assert judgement.outcome is Outcome.UNKNOWN and "single-channel spike" in judgement.message


def test_a_failed_claim_shows_no_line_position():
    judgement = judge(SI, claim("raman", 480.0, "cm-1"))
    assert "520" not in str(judgement.evidence) + judgement.message
    assert judgement.sealed["nearest_peak_cm1"] == pytest.approx(520.7, abs=0.3)


def test_every_line_cites_its_source_and_the_generated_spectrum_states_its_resolution():
    assert all(len(line.source) > 20 for lines_ in LINES.values() for line in lines_)
    assert SI.resolution_cm1 is not None and SI.resolution_cm1 >= 2 * STEP_CM1
