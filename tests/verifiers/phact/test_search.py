"""The search behind impossibility certificates: it covers snapped (E12) values by enumeration, claims
nothing it cannot cover, and treats points the engine declines as unreachable, saying so."""

from __future__ import annotations

import itertools
import math

import pytest

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.phact.contract import certify, impossibility
from physvec.verifiers.phact.engines import filters
from physvec.verifiers.phact.ground_truth import Truth, goal_truth
from physvec.verifiers.phact.schema import Design, parse_goal
from physvec.verifiers.phact.search import EXHAUSTIVE, find_design, pieces
from physvec.verifiers.phact.tools import Contract, judge_impossibility_claim

E12_BOX = {"resistance_ohm": {"min": 1e3, "max": 1e5}, "capacitance_F": {"min": 1e-9, "max": 1e-6}}


def _e12_goal(quantity, value, tolerance, free=E12_BOX, bound=None, goal_id="e12"):
    return parse_goal({"id": goal_id, "domain": "rc_filter", "bound": bound or {"kind": "low_pass", "signal_Hz": 1e3},
                       "free": free, "targets": [{"quantity": quantity, "op": "==", "value": value}],
                       "tolerance": tolerance})


def _parts(low_decade, high_decade):
    return [m * 10.0 ** d for d in range(low_decade, high_decade) for m in filters.E_SERIES["E12"]]


# every E12 pair inside the box, every few steps: the built cutoff of a real pair is never "impossible"
PAIRS = list(itertools.product(_parts(3, 5), _parts(-9, -6)))[::29]


@pytest.mark.parametrize("r, c", PAIRS, ids=lambda v: f"{v:g}")
@pytest.mark.parametrize("tolerance", ["one_percent", "a_hundredth_hz"])
def test_the_built_cutoff_of_any_e12_pair_in_the_box_is_reachable(r, c, tolerance):
    built = 1 / (2 * math.pi * r * c)
    asked = round(built, 2)
    goal, domain = _e12_goal("e12_cutoff_Hz", asked, 0.01 * asked if tolerance == "one_percent" else 0.01)
    assert impossibility(goal, domain) is None
    pair = certify(goal, domain, Design(goal=goal.id, values={"resistance_ohm": r, "capacitance_F": c}))
    failing = certify(goal, domain, Design(goal=goal.id, values={"resistance_ohm": 1e5, "capacitance_F": 1e-6}))
    assert pair.verdict is Verdict.CERTIFIED and failing.verdict is Verdict.FAILED
    assert judge_impossibility_claim(goal, domain, "no part fits", Contract.STRUCTURAL).verdict is Verdict.FAILED
    found = find_design(goal, domain)
    assert found is not None and certify(goal, domain, Design(goal=goal.id, values=found)).verdict is Verdict.CERTIFIED


def test_a_built_cutoff_between_the_reachable_ones_is_proved_impossible_by_enumeration():
    reachable = sorted({1 / (2 * math.pi * r * c) for r, c in itertools.product(_parts(3, 6), _parts(-9, -5))
                        if 1e3 <= r <= 1e5 and 1e-9 <= c <= 1e-6} | {1 / (2 * math.pi * 1e5 * 1e-6)})
    low, high = next((a, b) for a, b in zip(reachable, reachable[1:]) if a > 1e3 and b - a > 2)
    goal, domain = _e12_goal("e12_cutoff_Hz", (low + high) / 2, (high - low) / 4)
    proof = impossibility(goal, domain)
    assert proof is not None and proof["search"] == EXHAUSTIVE
    assert goal_truth(goal) is Truth.INFEASIBLE  # the independent judge agrees


def test_an_input_reaching_targets_only_through_snapping_is_enumerated_and_a_direct_one_is_cut_into_cells():
    goal, domain = _e12_goal("e12_cutoff_Hz", 2340.5, 1.0)
    boxes, exhaustive = pieces(goal, domain, ["e12_cutoff_Hz"])
    assert exhaustive and len(boxes) == 1 and all(free.choices for free in boxes[0].values())
    both, _ = _e12_goal("e12_attenuation_dB", 3.0, 0.01, free={"resistance_ohm": {"min": 1e3, "max": 2e3},
                     "capacitance_F": {"min": 1e-7, "max": 1e-7}}, bound={"kind": "low_pass", "signal_Hz": 1e3})
    boxes, exhaustive = pieces(both, domain, ["e12_attenuation_dB", "cutoff_Hz"])
    assert not exhaustive and len(boxes) > 1  # resistance also reaches cutoff_Hz directly: one interval per cell


def test_a_snapped_range_the_engine_cannot_enumerate_is_unknown_never_impossible():
    huge = {"resistance_ohm": {"min": 1e-300, "max": 1e300}, "capacitance_F": {"min": 1e-9, "max": 1e-6}}
    goal, domain = _e12_goal("e12_cutoff_Hz", 2340.5, 1.0, free=huge)
    claim = judge_impossibility_claim(goal, domain, "none", Contract.STRUCTURAL)
    assert claim.verdict is Verdict.UNKNOWN and "more than the engine enumerates" in claim.obligations[0].message
    design = certify(goal, domain, Design(goal=goal.id, values={"resistance_ohm": 1.0, "capacitance_F": 1e-9}))
    assert design.verdict is Verdict.FAILED and design.impossibility is None
    assert any(o.name == "engine_competence" and "cannot decide" in o.message for o in design.obligations)


def test_each_listed_value_gets_its_own_refinement_when_continuous_inputs_remain():
    goal, domain = parse_goal({"id": "pick", "domain": "dna", "bound": {"strand_total_M": 2.5e-7},
                               "free": {"sequence": {"choices": ["GCGCGC", "GGCCGG", "ATCGAT"]},
                                        "sodium_M": {"min": 0.01, "max": 1.0}},
                               "targets": [{"quantity": "melting_temperature_C", "op": ">=", "value": 20.0}],
                               "tolerance": 0.0})
    boxes, exhaustive = pieces(goal, domain, ["melting_temperature_C"])
    assert not exhaustive and sorted(box["sequence"].choices[0] for box in boxes) == ["ATCGAT", "GCGCGC", "GGCCGG"]


HOT = {"id": "hot-and-salty", "domain": "colloid",
       "bound": {"material": "fused_silica", "radius_m": 1e-7, "zeta_V": -0.03},
       "free": {"ionic_strength_M": {"min": 0.02, "max": 0.5}, "temperature_K": {"min": 273.15, "max": 393.15}},
       "targets": [{"quantity": "debye_length_m", "op": ">=", "value": 5e-9}], "tolerance": 0.0}


def test_a_sampled_search_that_meets_the_engines_competence_edge_claims_no_impossibility():
    # water data end at 100 C and the box reaches 120 C: a grid does not resolve where the region the engine
    # can judge ends, so the goal is unknown, naming the edge, though here it is impossible inside the region
    goal, domain = parse_goal(HOT)
    hottest = certify(goal, domain, Design(goal=goal.id, values={"ionic_strength_M": 0.5, "temperature_K": 393.15}))
    assert hottest.verdict is Verdict.UNKNOWN and hottest.impossibility is None
    warm = certify(goal, domain, Design(goal=goal.id, values={"ionic_strength_M": 0.5, "temperature_K": 300.0}))
    assert warm.verdict is Verdict.FAILED and warm.impossibility is None, "it misses, and nothing is proved"
    assert any("outside the engine's competence" in o.message and "0-100 C" in o.message for o in warm.obligations)
    assert judge_impossibility_claim(goal, domain, "too salty", Contract.STRUCTURAL).verdict is Verdict.UNKNOWN


def test_a_feasible_goal_whose_grid_misses_the_region_the_engine_can_judge_is_not_proved_impossible():
    # red team, seed 11 trial 125: 1.4 + m1 solar masses at 1e9 m merge within a million years once m1 is
    # about 20 (Peters time ~ a^4 / (m1 m2 M)), but with m1 free up to 1e300 a log grid puts one point (m1 = 1)
    # where the inspiral exists and the rest inside the innermost stable orbit
    goal, domain = parse_goal({"id": "heavy", "domain": "inspiral",
                               "bound": {"m2_msun": 1.4, "distance_Mpc": 40.0, "gw_frequency_Hz": 100.0},
                               "free": {"separation_m": {"min": 1e9, "max": 1e10}, "m1_msun": {"min": 1.0, "max": 1e300}},
                               "targets": [{"quantity": "merger_time_s", "op": "<=", "value": 3.156e13}],
                               "tolerance": 0.0})
    feasible = {"m1_msun": 30.0, "separation_m": 1e9}
    assert certify(goal, domain, Design(goal=goal.id, values=feasible)).verdict is Verdict.CERTIFIED
    outside = certify(goal, domain, Design(goal=goal.id, values={"m1_msun": 1e300, "separation_m": 5e9}))
    assert outside.verdict is Verdict.UNKNOWN and outside.impossibility is None


def test_a_box_the_engine_cannot_evaluate_anywhere_is_unknown():
    goal, domain = parse_goal({**HOT, "id": "all-too-hot", "free": {"temperature_K": {"min": 380.0, "max": 400.0}},
                               "bound": {**HOT["bound"], "ionic_strength_M": 0.02}})
    assert judge_impossibility_claim(goal, domain, "x", Contract.STRUCTURAL).verdict is Verdict.UNKNOWN
