"""Reply parsing and the feedback forms of the repair environment."""

from __future__ import annotations

import json

import pytest

from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.verifiers.certificate import Certificate, Obligation, Outcome, Verdict
from physvec.verifiers.dualitycert.perturb import Perturbation, apply
from physvec.verifiers.dualitycert.registry import certify
from physvec.verifiers.dualitycert.repair_protocol import FeedbackForm, InvalidReply, feedback, parse_reply
from physvec.verifiers.dualitycert.theory import Claim


@pytest.fixture
def failing_certificate(dp0):
    wrong = apply(dp0, Perturbation("r_charge_perturb", "X0", "+1/3"))
    return certify(Claim(theory_a=dp0, theory_b=wrong))


def test_the_masked_form_has_the_structure_of_the_full_one(failing_certificate):
    full = feedback(failing_certificate, FeedbackForm.OBLIGATIONS)["failed_obligations"]
    masked = feedback(failing_certificate, FeedbackForm.MASKED)["failed_obligations"]
    assert len(masked) == len(full) > 1
    assert [m["name"] for m in masked] == [f"obligation_{i}" for i in range(1, len(full) + 1)]

    def grouping(rows):
        first = {}
        return [first.setdefault(row["category"], len(first)) for row in rows]
    assert grouping(masked) == grouping(full)
    assert not any(row["name"] in json.dumps(masked) for row in full)


def test_the_generic_form_says_only_that_verification_failed(failing_certificate):
    assert feedback(failing_certificate, FeedbackForm.GENERIC) == {"verification": "failed"}


@pytest.mark.parametrize("form", list(FeedbackForm))
def test_an_undecided_claim_is_never_told_it_passed(form):
    # every check that ran certified, but a required one could not decide: nothing failed, nothing passed
    undecided = Certificate(verifier="dualitycert", subject_digest="sha256:0", obligations=(
        Obligation(name="chiral_ring", category="chiral_ring", outcome=Outcome.CERTIFIED, message="agree"),
        Obligation(name="required_checks", category="completeness", outcome=Outcome.UNKNOWN, required=True,
                   message="operator_map could not decide")))
    assert undecided.verdict is Verdict.UNKNOWN and not undecided.failed()
    assert feedback(undecided, form) == {"verification": "undecided"}


def test_replies_are_read_from_bare_or_fenced_json():
    reply, theory = parse_reply(json.dumps({"action": "edit_candidate", "theory_b": dp0_data(), "reason": "r"}))
    assert reply.action == "edit_candidate" and theory.ranks == (3, 3, 3)
    reply, theory = parse_reply('Sure:\n```json\n{"action": "no_change", "reason": "fine"}\n```')
    assert reply.action == "no_change" and theory is None


@pytest.mark.parametrize("text, why", [
    ("no JSON here", "not a JSON object"),
    (json.dumps({"action": "rewrite", "reason": "r"}), "action"),
    (json.dumps({"action": "edit_candidate", "reason": "r"}), "needs theory_b"),
    (json.dumps({"action": "no_change", "reason": "x" * 600}), "reason"),
    (json.dumps({"action": "edit_candidate", "reason": "r", "theory_b": {**dp0_data(), "ranks": [3, 3]}}),
     "theory_b.node_labels"),
])
def test_a_reply_off_the_schema_is_invalid_with_a_reason(text, why):
    with pytest.raises(InvalidReply, match=why):
        parse_reply(text)
