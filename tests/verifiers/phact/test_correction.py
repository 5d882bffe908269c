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


WARM = {"id": "warm-silica", "domain": "colloid",
        "bound": {"material": "fused_silica", "radius_m": 2e-7, "ionic_strength_M": 0.02},
        "free": {"zeta_V": {"min": -0.075, "max": 0.0}, "temperature_K": {"min": 280.0, "max": 393.15}},
        "targets": [{"quantity": "barrier_kT", "op": ">=", "value": 30.0}], "tolerance": 0.0}


@pytest.mark.parametrize("form", ["weak", "strong", "structural"])
def test_a_correction_walk_stops_at_the_edge_of_the_engines_competence(form):
    # the box reaches 120 C, past the water data (0-100 C): walking temperature upwards must not crash
    goal, domain = parse_goal(WARM)
    values = {"zeta_V": -0.01, "temperature_K": 300.0}
    told = feedback(form, goal, domain, values, goal.targets[0])
    if form != "weak":
        assert told["set"] == {"zeta_V": pytest.approx(told["set"]["zeta_V"])}
        assert domain.evaluate({**goal.bound, **values, **told["set"]})["barrier_kT"] >= 30.0


def test_a_crossing_beyond_a_declined_stretch_is_not_proposed():
    def excess(x):
        if 2.0 < x < 3.0:
            raise ValueError("outside competence")
        return x - 5.0  # met only from 5 on, beyond the declined stretch
    assert _crossing(excess, 1.0, 0.0, 10.0) is None
