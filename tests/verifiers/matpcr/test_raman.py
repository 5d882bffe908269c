"""Raman oracle on physically generated spectra: the Si line near 520.7 cm^-1 is found, noise is not a line."""

from __future__ import annotations

import numpy as np
import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.raman import genuine_peaks, judge
from physvec.verifiers.matpcr.spectra import LINES, NOISE, spectrum
from tests.verifiers.matpcr.conftest import claim

SI = spectrum("Si", seed=0)


def test_the_silicon_line_is_the_one_genuine_peak_and_lies_at_520_7():
    ((position, prominence),) = genuine_peaks(SI)
    assert position == pytest.approx(520.7, abs=0.5) and prominence == pytest.approx(1.0, abs=0.05)


@pytest.mark.parametrize(("value", "outcome"), [(520.7, Outcome.CERTIFIED), (516.0, Outcome.CERTIFIED),
                                                (525.0, Outcome.CERTIFIED), (514.0, Outcome.FAILED),
                                                (480.0, Outcome.FAILED)])
def test_a_claim_within_5_cm1_of_the_line_is_certified(value, outcome):
    assert judge(SI, claim("raman", value, "cm-1")).outcome is outcome


def test_attack_the_highest_noise_maximum_away_from_the_line_is_not_a_peak():
    shift, intensity = np.asarray(SI.shift_cm1), np.asarray(SI.intensity)
    away = np.abs(shift - 520.7) > 60
    bump = float(shift[away][np.argmax(intensity[away])])
    assert judge(SI, claim("raman", bump, "cm-1")).outcome is Outcome.FAILED


def test_attack_a_shift_outside_the_measured_range_is_refused():
    assert judge(SI, claim("raman", 2000.0, "cm-1")).outcome is Outcome.FAILED


@pytest.mark.parametrize("material", sorted(LINES))
def test_every_tabulated_line_is_found_and_nothing_else(material):
    found = sorted(p for p, _ in genuine_peaks(spectrum(material, seed=3)))
    expected = sorted(line.position_cm1 for line in LINES[material])
    assert found == pytest.approx(expected, abs=1.0)


def test_every_line_cites_its_source_and_the_noise_is_small_against_the_lines():
    assert all(len(line.source) > 20 for lines in LINES.values() for line in lines)
    assert NOISE * 10 < min(line.height for lines in LINES.values() for line in lines)
