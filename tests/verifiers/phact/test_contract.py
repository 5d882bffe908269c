"""The structural contract and the engine's three-valued verdict on hand-written goals."""

from __future__ import annotations

import json
import math
import re

import pytest

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.phact.contract import certify
from physvec.verifiers.phact.schema import Design, FreeInput, MalformedInput, parse_design, parse_goal

LOW_PASS = {
    "id": "mains-hum-filter", "domain": "rc_filter",
    "statement": "a low-pass RC filter that passes 10 Hz but attenuates 50 Hz mains hum by at least 20 dB",
    "bound": {"kind": "low_pass", "signal_Hz": 50.0},
    "free": {"resistance_ohm": {"min": 1e3, "max": 1e6}, "capacitance_F": {"min": 1e-9, "max": 1e-5}},
    "targets": [{"quantity": "attenuation_dB", "op": ">=", "value": 20.0},
                {"quantity": "cutoff_Hz", "op": ">=", "value": 4.0}],
    "tolerance": 1e-6,
}
GW150914 = {
    "id": "gw150914-claimed-chirp", "domain": "inspiral", "kind": "verification",
    "bound": {"m1_msun": 35.6, "m2_msun": 30.6, "distance_Mpc": 440.0, "gw_frequency_Hz": 35.0,
              "separation_m": 1e6},
    "targets": [{"quantity": "chirp_mass_msun", "op": "==", "value": 28.7}], "tolerance": 0.05,
}


def _verdict(goal_data, values, **design):
    goal, domain = parse_goal(goal_data)
    return certify(goal, domain, Design(goal=goal.id, values=values, **design))


def test_a_design_meeting_every_target_is_certified_with_engine_computed_values():
    # R C = 1 / (2 pi 4.5 Hz): cutoff 4.5 Hz, and 50 Hz lies 20.9 dB down
    certificate = _verdict(LOW_PASS, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6})
    assert certificate.verdict is Verdict.CERTIFIED
    assert certificate.summary["derived"]["cutoff_Hz"] == pytest.approx(1 / (2 * math.pi * 0.035368))


def test_a_design_writing_a_bound_input_fails_the_contract_by_name():
    certificate = _verdict(LOW_PASS, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6, "signal_Hz": 1.0})
    failed = {o.name: o for o in certificate.failed()}
    assert certificate.verdict is Verdict.FAILED
    assert failed["writes_only_free_inputs"].evidence["inputs"] == ["signal_Hz"]


def test_a_design_outside_its_bounds_or_incomplete_fails():
    outside = _verdict(LOW_PASS, {"resistance_ohm": 10.0, "capacitance_F": 1e-6})
    assert "free_inputs_within_bounds" in {o.name for o in outside.failed()}
    incomplete = _verdict(LOW_PASS, {"resistance_ohm": 35_368.0})
    assert "sets_every_free_input" in {o.name for o in incomplete.failed()}


def test_an_unreachable_target_gets_an_engine_impossibility_certificate():
    # a first-order low-pass falls 20 dB per decade: 40 dB at 50 Hz needs a cutoff of 0.5 Hz, below 4 Hz
    impossible = {**LOW_PASS, "id": "too-steep", "targets": [
        {"quantity": "attenuation_dB", "op": ">=", "value": 40.0}, {"quantity": "cutoff_Hz", "op": ">=", "value": 4.0}]}
    certificate = _verdict(impossible, {"resistance_ohm": 1e3, "capacitance_F": 1e-9}, claims_impossible=True)
    # each target alone is reachable in the box; the joint search shows that together they are not
    assert certificate.verdict is Verdict.IMPOSSIBLE
    assert certificate.impossibility["least_total_shortfall"] > 0
    assert certificate.impossibility["values_there"]["attenuation_dB"] < 40.0 - 1e-6 or \
        certificate.impossibility["values_there"]["cutoff_Hz"] < 4.0 - 1e-6
    narrow = {**impossible, "free": {"resistance_ohm": {"min": 1e3, "max": 1e4}, "capacitance_F": {"min": 1e-9, "max": 1e-7}}}
    proved = _verdict(narrow, {"resistance_ohm": 1e3, "capacitance_F": 1e-9})
    assert proved.verdict is Verdict.IMPOSSIBLE
    assert proved.impossibility["best_achievable"] < 40.0
    assert proved.impossibility["reason"] == "no design in the free box reaches it"
    # a proof shows a miss beyond the numerical resolution of the search behind it, and says both
    for proof in (certificate.impossibility, proved.impossibility):
        assert proof["miss"] > proof["resolution"] > 0


def test_a_fixed_system_with_a_wrong_claim_is_impossible_and_a_right_claim_certified():
    right = _verdict(GW150914, {})
    assert right.verdict is Verdict.CERTIFIED  # the engine's 28.72 lies within 0.05 of the claimed 28.7
    off = {**GW150914, "targets": [{"quantity": "chirp_mass_msun", "op": "==", "value": 30.0}]}
    certificate = _verdict(off, {})
    assert certificate.verdict is Verdict.IMPOSSIBLE
    assert certificate.impossibility["reason"] == "the bound inputs alone fix this quantity"


def test_a_model_claim_of_impossibility_on_a_feasible_goal_is_only_recorded():
    certificate = _verdict(LOW_PASS, {}, claims_impossible=True)
    assert certificate.verdict is Verdict.FAILED and certificate.summary["design_claims_impossible"]


def test_outside_the_engines_competence_the_verdict_is_unknown():
    goal = {"id": "gold-sol", "domain": "colloid", "bound": {"material": "gold", "radius_m": 20e-9,
            "ionic_strength_M": 0.01, "temperature_K": 298.15}, "free": {"zeta_V": {"min": -0.07, "max": 0.0}},
            "targets": [{"quantity": "barrier_kT", "op": ">=", "value": 15.0}], "tolerance": 0.0}
    assert _verdict(goal, {"zeta_V": -0.05}).verdict is Verdict.UNKNOWN


@pytest.mark.parametrize("change, named", [
    (lambda g: g.update(domain="optics"), "unknown domain 'optics'"),
    (lambda g: g["bound"].pop("kind"), "input kind is neither bound nor free"),
    (lambda g: g.update(tolerance=-1), "goal.tolerance"),
    (lambda g: g["free"].update(resistance_ohm={"min": 5.0, "max": 1.0}), "min <= max"),
    (lambda g: g["targets"].append({"quantity": "gain", "op": ">=", "value": 1}), "'gain' is not a quantity"),
])
def test_a_malformed_goal_names_the_field(change, named):
    goal = {**LOW_PASS, "bound": dict(LOW_PASS["bound"]), "free": dict(LOW_PASS["free"]),
            "targets": list(LOW_PASS["targets"])}
    change(goal)
    with pytest.raises(MalformedInput, match=named):
        parse_goal(goal)


def test_inputs_the_engine_cannot_evaluate_give_unknown_never_a_crash():
    # a user-written goal whose bound resistance is zero: 1/(2 pi R C) has no value
    zero = {**LOW_PASS, "id": "zero-r", "bound": {**LOW_PASS["bound"], "resistance_ohm": 0.0},
            "free": {"capacitance_F": {"min": 1e-9, "max": 1e-6}}}
    certificate = _verdict(zero, {"capacitance_F": 1e-7})
    assert certificate.verdict is Verdict.UNKNOWN and "must be positive" in certificate.obligations[-1].message


def test_a_design_meeting_every_target_is_never_impossible_and_a_false_claim_fails_by_name():
    # the claim rides on a design that refutes it: the targets stay certified, the claim is the failure
    certificate = _verdict(LOW_PASS, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6}, claims_impossible=True)
    assert certificate.verdict is Verdict.FAILED and certificate.impossibility is None
    (failed,) = certificate.failed()
    assert failed.name == "design_claims_impossible" and "meets every target" in failed.message
    assert all(o.outcome.value == "certified" for o in certificate.obligations if o.category == "target")


def test_a_claim_is_an_obligation_of_its_own_whatever_the_design():
    unfounded = _verdict(LOW_PASS, {"resistance_ohm": 1e3, "capacitance_F": 1e-9}, claims_impossible=True)
    assert unfounded.verdict is Verdict.FAILED
    assert {o.name: o.outcome.value for o in unfounded.obligations}["design_claims_impossible"] == "failed"
    founded = _verdict(GW150914 | {"targets": [{"quantity": "chirp_mass_msun", "op": "==", "value": 30.0}]}, {},
                       claims_impossible=True)
    assert founded.verdict is Verdict.IMPOSSIBLE
    assert {o.name: o.outcome.value for o in founded.obligations}["design_claims_impossible"] == "certified"


NOT_NUMBERS = [("infinite tolerance", lambda g: g.update(tolerance=math.inf), "goal.tolerance"),
               ("NaN target", lambda g: g["targets"][0].update(value=math.nan), "goal.targets.0.value"),
               ("infinite bound", lambda g: g["free"].update(resistance_ohm={"min": 1e3, "max": math.inf}),
                "goal.free.resistance_ohm.max"),
               ("boolean bound value", lambda g: g["bound"].update(signal_Hz=True), "goal.bound.signal_Hz"),
               ("boolean interval end", lambda g: g["free"].update(capacitance_F={"min": True, "max": 1e-5}),
                "goal.free.capacitance_F.min"),
               ("string number", lambda g: g["targets"][0].update(value="20"), "goal.targets.0.value"),
               ("integer beyond a float", lambda g: g["bound"].update(signal_Hz=10 ** 400), "goal.bound.signal_Hz"),
               ("nested bound value", lambda g: g["bound"].update(signal_Hz=[[50.0]]), "goal.bound.signal_Hz"),
               ("number for a name", lambda g: g["bound"].update(kind=1.0), "goal.bound.kind"),
               ("name for a number", lambda g: g["bound"].update(signal_Hz="fifty"), "goal.bound.signal_Hz"),
               ("interval for a name", lambda g: (g["bound"].pop("kind"), g["free"].update(kind={"min": 0, "max": 1})),
                "goal.free.kind")]


@pytest.mark.parametrize("what, change, field", NOT_NUMBERS, ids=[n[0] for n in NOT_NUMBERS])
def test_a_goal_with_a_value_that_is_not_what_its_field_means_is_refused_by_field(what, change, field):
    goal = json.loads(json.dumps(LOW_PASS))
    change(goal)
    with pytest.raises(MalformedInput, match=re.escape(field)):
        parse_goal(goal)


@pytest.mark.parametrize("value", [True, math.nan, math.inf, [1.0], {"v": 1.0}, None])
def test_a_design_value_that_is_no_finite_number_or_name_is_refused(value):
    with pytest.raises(MalformedInput, match="design.values.resistance_ohm"):
        parse_design({"goal": "g", "values": {"resistance_ohm": value}})


def test_a_boolean_never_passes_for_a_listed_number():
    choices = FreeInput(choices=[1.0, 2.0])
    assert choices.admits(1.0) and not choices.admits(True)


def test_no_impossibility_certificate_overrides_a_design_that_meets_every_target(monkeypatch):
    # even a flawed search that "proves" the goal impossible never outranks a witness design
    from physvec.verifiers.phact import contract

    monkeypatch.setattr(contract, "impossibility", lambda goal, domain: {"reason": "a flawed search"})
    witness = {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6}
    assert _verdict(LOW_PASS, witness).verdict is Verdict.CERTIFIED
    claimed = _verdict(LOW_PASS, witness, claims_impossible=True)
    assert claimed.verdict is Verdict.FAILED and claimed.impossibility is None
    assert [o.name for o in claimed.failed()] == ["design_claims_impossible"]
    assert _verdict(LOW_PASS, {"resistance_ohm": 1e3, "capacitance_F": 1e-9}).verdict is Verdict.IMPOSSIBLE
