"""Impossibility at the edge of float resolution: a goal whose feasible set is narrower than what the search
and float evaluation resolve must never be "proved" impossible, because a witness design exists; and a goal
that is impossible by far more than that resolution keeps its proof, with the miss and the resolution in it.

The witnesses come from the closed form of a first-order RC filter, f_c = 1 / (2 pi R C) (filters.py, any
circuits text, e.g. Horowitz & Hill, The Art of Electronics, 3rd ed., section 1.7), solved for R at a fixed C
and then moved by at most a few ulps of R to the nearest float the engine certifies (the float rounding of
1 / (2 pi R C) is a few ulps either way)."""

from __future__ import annotations

import math

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.phact.contract import certify, impossibility
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.engines import filters
from physvec.verifiers.phact.schema import Design, Goal, parse_goal

BOX = {"resistance_ohm": {"min": 1e3, "max": 1e5}, "capacitance_F": {"min": 1e-9, "max": 1e-6}}
WITNESS_C = 1e-7
"""The capacitance every witness uses (inside BOX); R follows from the closed form."""
ULPS = 64
"""How many ulps of R either side of the closed form a witness may move to land where the engine certifies."""
FAILING = {"resistance_ohm": 1e5, "capacitance_F": 1e-6}
"""A design far from every goal below: cutoff 1 / (2 pi 0.1 s) = 1.59 Hz."""
WIDTHS = [10.0 ** -k for k in range(9, 16)]
"""Relative widths of the feasible set, 1e-9 down to 1e-15 (a few ulps of a double at the bottom)."""
CUTOFF = 1234.5678
"""The red team's equality target, Hz."""


def _witness(goal: Goal, cutoff_Hz: float) -> dict[str, float]:
    """The design with C = WITNESS_C and R from f_c = 1 / (2 pi R C) at ``cutoff_Hz``, moved by the fewest ulps
    (up to ULPS) to a float the engine certifies; fails the test when there is none (the goal would then have
    no witness, and the family would test nothing)."""
    domain = parse_goal(goal.model_dump(mode="json"))[1]
    r = 1 / (2 * math.pi * cutoff_Hz * WITNESS_C)
    for ulps in sorted(range(-ULPS, ULPS + 1), key=abs):
        values = {"resistance_ohm": r + ulps * math.ulp(r), "capacitance_F": WITNESS_C}
        if certify(goal, domain, Design(goal=goal.id, values=values)).verdict is Verdict.CERTIFIED:
            return values
    pytest.fail(f"no float within {ULPS} ulps of R = {r!r} certifies {goal.id}")


WINDOWS = [(1000.0, 10.0), (250.0, 2.0), (250.0, 10.0)]
"""Lower cutoff ends X (Hz) and the signal as a multiple of X (without the resolution guard each of these
is falsely proved impossible at some width, at 250 Hz and 2 X from w = 1e-12)."""


def _joint_window(width: float, cutoff: float, multiple: float) -> tuple[Goal, float]:
    """cutoff >= X and, at a signal of ``multiple`` X, attenuation >= A(X (1 + w)): a low-pass is attenuated more
    the lower its cutoff, so the goal holds exactly for cutoffs in [X, X (1 + w)]; the goal and that upper end."""
    signal = cutoff * multiple
    upper = cutoff * (1 + width)
    goal, _ = parse_goal({
        "id": f"joint-window-{cutoff:g}-{multiple:g}-{width:g}", "domain": "rc_filter", "bound": {"kind": "low_pass", "signal_Hz": signal},
        "free": BOX, "targets": [{"quantity": "cutoff_Hz", "op": ">=", "value": cutoff},
                                 {"quantity": "attenuation_dB", "op": ">=",
                                  "value": filters.attenuation_dB("low_pass", upper, signal)}],
        "tolerance": 0.0})
    return goal, upper


def _equality(relative_tolerance: float) -> Goal:
    """cutoff == 1234.5678 Hz within relative_tolerance of it (the schema's tolerance is absolute)."""
    goal, _ = parse_goal({
        "id": f"equality-{relative_tolerance:g}", "domain": "rc_filter", "bound": {"kind": "low_pass", "signal_Hz": 1e3},
        "free": BOX, "targets": [{"quantity": "cutoff_Hz", "op": "==", "value": CUTOFF}],
        "tolerance": relative_tolerance * CUTOFF})
    return goal


def _never_impossible(goal: Goal) -> None:
    """A failing design for a goal with a witness is failed or unknown; unknown says it is a resolution matter."""
    domain = parse_goal(goal.model_dump(mode="json"))[1]
    certificate = certify(goal, domain, Design(goal=goal.id, values=FAILING, claims_impossible=True))
    assert certificate.verdict is not Verdict.IMPOSSIBLE and certificate.impossibility is None
    claim = next(o for o in certificate.obligations if o.name == "design_claims_impossible")
    assert claim.outcome is not Outcome.CERTIFIED
    if certificate.verdict is Verdict.UNKNOWN:
        assert "numerical resolution" in claim.message


@pytest.mark.parametrize("cutoff, multiple", WINDOWS, ids=lambda v: f"{v:g}")
@pytest.mark.parametrize("width", WIDTHS, ids=lambda w: f"w={w:g}")
def test_a_joint_window_narrower_than_the_search_resolves_is_never_proved_impossible(width, cutoff, multiple):
    goal, upper = _joint_window(width, cutoff, multiple)
    witness = _witness(goal, (cutoff + upper) / 2)
    assert cutoff <= filters.cutoff_Hz(**witness) <= upper
    _never_impossible(goal)


@pytest.mark.parametrize("relative", WIDTHS, ids=lambda w: f"tol={w:g}")
def test_an_equality_target_with_a_tiny_tolerance_is_never_proved_impossible(relative):
    goal = _equality(relative)
    witness = _witness(goal, CUTOFF)
    assert abs(filters.cutoff_Hz(**witness) - CUTOFF) <= goal.tolerance
    _never_impossible(goal)


def test_an_equality_target_with_zero_tolerance_is_never_proved_impossible_by_a_float_miss():
    goal = _equality(0.0)
    witness = _witness(goal, CUTOFF)
    assert filters.cutoff_Hz(**witness) == CUTOFF  # an exact float hit: the goal is possible
    _never_impossible(goal)


def test_a_zero_tolerance_target_far_outside_the_box_is_still_proved_impossible():
    # the box reaches cutoffs from 1 / (2 pi 1e5 1e-6) = 1.6 Hz to 1 / (2 pi 1e3 1e-9) = 159 kHz: 1 MHz is far out
    goal = _equality(0.0).model_copy(update={"targets": [_equality(0.0).targets[0].model_copy(update={"value": 1e6})]})
    proof = impossibility(goal, parse_goal(goal.model_dump(mode="json"))[1])
    assert proof is not None and proof["best_achievable"] == pytest.approx(1 / (2 * math.pi * 1e3 * 1e-9), rel=1e-6)
    assert proof["miss"] > proof["resolution"] > 0


IMPOSSIBLE = [(path, goal, domain) for path, goal, domain in corpus() if goal.impossible_because]


@pytest.mark.parametrize("path, goal, domain", IMPOSSIBLE, ids=lambda v: getattr(v, "id", ""))
def test_a_goal_written_impossible_keeps_its_proof_far_beyond_the_resolution(path, goal, domain):
    proof = impossibility(goal, domain)
    assert proof is not None, path.name
    # every corpus proof misses by more than a million resolutions: the guard does not refuse real proofs
    assert proof["miss"] > 1e6 * proof["resolution"] > 0, path.name
