"""Targeted correction: nearest crossing without assuming monotonicity, and the three feedback forms."""

from __future__ import annotations

import math

import pytest

from tests.verifiers.phact.test_contract import LOW_PASS
from physvec.verifiers.phact.schema import parse_goal
from physvec.verifiers.phact.correction import _crossing, correct, feedback


def test_the_nearest_crossing_is_found_on_either_side_of_a_non_monotone_outcome():
    # (x - 3)^2 - 1 is violated (negative) on (2, 4); from 3.2 the nearer crossing is 4, from 2.7 it is 2
    def excess(x):
        return (x - 3) ** 2 - 1
    assert _crossing(excess, 3.2, 0.0, 10.0) == pytest.approx(4.0, abs=1e-9)
    assert _crossing(excess, 2.7, 0.0, 10.0) == pytest.approx(2.0, abs=1e-9)


def test_the_correction_lands_on_the_closed_form_threshold():
    goal, domain = parse_goal(LOW_PASS)
    values = {"resistance_ohm": 10_000.0, "capacitance_F": 1e-6}   # cutoff 15.9 Hz: 50 Hz only 10.4 dB down
    (attenuation, _) = goal.targets
    fix = correct(goal, domain, values, attenuation)
    # 20 dB at 50 Hz: (50 / f_c)^2 = 99, so f_c = 50 / sqrt(99); R* = 1 / (2 pi C f_c) keeps C, or C* keeps R
    r_star = 1 / (2 * math.pi * 1e-6 * 50 / math.sqrt(99))
    c_star = 1 / (2 * math.pi * 1e4 * 50 / math.sqrt(99))
    assert (fix.input, fix.corrected) in [("resistance_ohm", pytest.approx(r_star, rel=1e-6)),
                                          ("capacitance_F", pytest.approx(c_star, rel=1e-6))]
    assert fix.path[-1] == "attenuation_dB" and fix.predicted == pytest.approx(20.0, abs=2e-6)


def test_feedback_forms_grow_in_what_they_say():
    goal, domain = parse_goal(LOW_PASS)
    values = {"resistance_ohm": 10_000.0, "capacitance_F": 1e-6}
    target = goal.targets[0]
    weak = feedback("weak", goal, domain, values, target)
    strong = feedback("strong", goal, domain, values, target)
    structural = feedback("structural", goal, domain, values, target)
    assert set(weak) == {"violated", "value", "magnitude"}
    assert set(strong) == set(weak) | {"set"}
    assert {"root_input", "dependency_path", "predicted"} <= set(structural)
    assert structural["dependency_path"] in (["resistance_ohm", "cutoff_Hz", "attenuation_dB"],
                                             ["capacitance_F", "cutoff_Hz", "attenuation_dB"])
