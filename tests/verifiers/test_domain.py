"""The domain-check node: DualityCert claims judged at final strictness, PHACT designs judged by the engine,
unreadable inputs as errors."""

from __future__ import annotations

import json

from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.domain import dualitycert_obligations, phact_obligations
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.theory import parse_theory


def test_a_claim_file_gives_prefixed_dualitycert_obligations_at_the_final_level(tmp_path):
    dual = dualize(parse_theory(dp0_data()), 2).model_dump(mode="json")
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data(), "theory_b": dual}))
    obligations = {o.name: o for o in dualitycert_obligations(claim)}
    assert obligations["dualitycert:chiral_ring"].outcome is Outcome.CERTIFIED
    assert obligations["dualitycert:chiral_ring"].evidence["level"] == 5
    assert not any(o.outcome is Outcome.FAILED for o in obligations.values())


def test_an_unreadable_claim_is_an_error_never_a_certificate(tmp_path):
    claim = tmp_path / "claim.json"
    claim.write_text(json.dumps({"theory_a": dp0_data()}))
    (obligation,) = dualitycert_obligations(claim)
    assert obligation.outcome is Outcome.ERROR and "theory_a and theory_b" in obligation.message


def _design_file(tmp_path, goal, values):
    path = tmp_path / "design.json"
    path.write_text(json.dumps({"goal": goal, "design": {"values": values}}))
    return path


def test_a_phact_design_for_a_corpus_goal_is_judged_by_the_engine(tmp_path):
    # 1/(2 pi 1.6 kOhm 100 nF) = 994.7 Hz, within 1 Hz of the claimed 995 Hz
    obligations = {o.name: o for o in phact_obligations(_design_file(tmp_path, "fixed-rc-claimed-995-hz", {}))}
    assert obligations["phact:target:cutoff_Hz == 995"].outcome is Outcome.CERTIFIED
    assert not any(o.outcome is Outcome.FAILED for o in obligations.values())


def test_a_phact_design_for_an_impossible_goal_fails_with_the_engines_certificate(tmp_path):
    obligations = {o.name: o for o in phact_obligations(_design_file(tmp_path, "gw150914-claimed-chirp-30", {}))}
    achievable = obligations["phact:goal_is_achievable"]
    assert achievable.outcome is Outcome.FAILED and achievable.evidence["reason"] == "the bound inputs alone fix this quantity"


def test_a_phact_design_writing_a_bound_input_fails_by_name(tmp_path):
    obligations = {o.name: o for o in phact_obligations(_design_file(tmp_path, "cutoff-at-1-khz",
                                                                     {"capacitance_F": 1.6e-8, "resistance_ohm": 1.0}))}
    assert obligations["phact:writes_only_free_inputs"].evidence["inputs"] == ["resistance_ohm"]


def test_an_unreadable_phact_file_is_an_error_naming_what_is_missing(tmp_path):
    (bad,) = phact_obligations(_design_file(tmp_path, "no-such-goal", {}))
    assert bad.outcome is Outcome.ERROR and "no corpus goal 'no-such-goal'" in bad.message


def test_a_phact_design_meeting_its_goal_while_claiming_it_impossible_fails_on_the_claim_alone(tmp_path):
    path = tmp_path / "design.json"
    path.write_text(json.dumps({"goal": "cutoff-at-1-khz",
                                "design": {"values": {"capacitance_F": 1.59e-8}, "claims_impossible": True}}))
    obligations = {o.name: o for o in phact_obligations(path)}
    assert "phact:goal_is_achievable" not in obligations
    assert obligations["phact:target:cutoff_Hz == 1000"].outcome is Outcome.CERTIFIED
    assert [name for name, o in obligations.items() if o.outcome is Outcome.FAILED] == ["phact:design_claims_impossible"]


def test_an_unreadable_phact_file_is_an_error_never_a_traceback(tmp_path):
    path = tmp_path / "design.json"
    path.write_bytes(b'{"goal": "cutoff-at-1-khz", "design": ' + b"[" * 100_000 + b"]" * 100_000 + b"}")
    (bad,) = phact_obligations(path)
    assert bad.outcome is Outcome.ERROR and "nested too deeply" in bad.message


def test_a_matpcr_claims_file_gives_one_prefixed_obligation_per_claim():
    from tests.examples.test_matpcr_examples import EXAMPLES

    from physvec.verifiers.domain import matpcr_obligations

    outcomes = {o.name: o.outcome for o in matpcr_obligations(EXAMPLES / "si_diffraction_violating.json")}
    assert outcomes == {"matpcr:diffraction:0:28.44 deg (111)": Outcome.CERTIFIED,
                        "matpcr:diffraction:1:32.96 deg (200)": Outcome.FAILED}


def test_an_unreadable_matpcr_file_is_an_error_naming_the_field(tmp_path):
    from physvec.verifiers.domain import matpcr_obligations

    path = tmp_path / "claims.json"
    path.write_text(json.dumps({"item": "raman:Si", "claims": [{"constraint": "raman", "value": 520, "unit": "K"}]}))
    (bad,) = matpcr_obligations(path)
    assert bad.outcome is Outcome.ERROR and "claims.0" in bad.message


def test_the_domain_check_node_runs_matpcr_for_a_task_that_names_it(tmp_path):
    from types import SimpleNamespace

    from tests.examples.test_matpcr_examples import EXAMPLES

    from physvec.taskfiles.task import DomainCheck
    from physvec.verifiers.domain import DomainCheckVerifier

    script = tmp_path / "script.py"
    script.write_text("PARAMS = {}\n")
    task = SimpleNamespace(task=SimpleNamespace(domain_checks=[DomainCheck(checker="matpcr", input="claims.json")]),
                           domain_inputs={"matpcr": EXAMPLES / "si_diffraction_consistent.json"})
    certificate = DomainCheckVerifier().verify(SimpleNamespace(script=script, task=task))
    assert certificate.verdict.value == "certified" and len(certificate.obligations) == 3
