"""The certificate core: verdicts follow from obligations, projections hide what they must."""

from __future__ import annotations

import json

import pytest

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, Verdict, digest, not_implemented
from physvec.verifiers.feedback import Projection, project
from physvec.verifiers.final_judge import judge_run


def obligation(outcome: Outcome, name: str = "check", **kwargs) -> Obligation:
    return Obligation(name=name, category="test", outcome=outcome, **kwargs)


def certificate(*outcomes: Outcome, **kwargs) -> Certificate:
    return Certificate(verifier="v", subject_digest=digest("x"),
                       obligations=tuple(obligation(o, f"o{i}") for i, o in enumerate(outcomes)), **kwargs)


@pytest.mark.parametrize(("outcomes", "verdict"), [
    ((Outcome.CERTIFIED,), Verdict.CERTIFIED),
    ((Outcome.CERTIFIED, Outcome.NOT_IMPLEMENTED), Verdict.CERTIFIED),
    ((Outcome.CERTIFIED, Outcome.FAILED), Verdict.FAILED),
    ((Outcome.NOT_IMPLEMENTED,), Verdict.UNKNOWN),
    ((Outcome.NOT_APPLICABLE, Outcome.UNKNOWN), Verdict.UNKNOWN),
    ((), Verdict.UNKNOWN),
])
def test_verdict_follows_from_obligations(outcomes, verdict):
    assert certificate(*outcomes).verdict is verdict


def test_a_placeholder_never_certifies():
    placeholder = Certificate(verifier="v", subject_digest="d",
                              obligations=(not_implemented("unit_tests", "unit", "not built"),))
    assert placeholder.verdict is Verdict.UNKNOWN
    assert not placeholder.is_complete


def test_impossibility_certificate_gives_impossible():
    assert certificate(Outcome.FAILED, impossibility={"reason": "bound inputs"}).verdict is Verdict.IMPOSSIBLE


def test_json_round_trip_rederives_the_verdict():
    original = certificate(Outcome.CERTIFIED, Outcome.FAILED)
    text = original.model_dump_json()
    assert json.loads(text)["verdict"] == "failed"
    assert Certificate.from_json(text) == original


def test_digest_names_content():
    assert digest("a") != digest("b") and digest("a").startswith("sha256:")


class TestProjections:
    secret = certificate().model_copy(update={"obligations": (
        obligation(Outcome.FAILED, "energy", message="outside tolerance", evidence={"observed": -1.2},
                   sealed={"expected": -1.6160254}),
        obligation(Outcome.CERTIFIED, "parses"),
    )})

    @pytest.mark.parametrize("projection", list(Projection))
    def test_no_projection_shows_sealed_evidence(self, projection):
        view = json.dumps(project(self.secret, projection))
        assert "1.6160254" not in view and "sealed" not in view

    def test_full_shows_messages_and_evidence(self):
        view = project(self.secret, Projection.FULL)
        assert view["obligations"][0]["evidence"] == {"observed": -1.2}
        assert view["obligations"][0]["message"] == "outside tolerance"

    def test_category_shows_only_counts(self):
        view = project(self.secret, Projection.CATEGORY)
        assert view["categories"] == [{"category": "test", "outcome": "certified", "count": 1},
                                      {"category": "test", "outcome": "failed", "count": 1}]
        assert "energy" not in json.dumps(view)

    def test_masked_hides_messages(self):
        view = project(self.secret, Projection.MASKED)
        assert view["obligations"][0] == {"name": "energy", "category": "test", "outcome": "failed"}
        assert "tolerance" not in json.dumps(view)

    def test_generic_says_only_whether_it_passed(self):
        assert project(self.secret, Projection.GENERIC) == {
            "verifier": "v", "verdict": "failed", "message": "some checks failed; revise"}


class TestFinalJudge:
    def test_all_stages_certified_and_complete(self):
        assert judge_run([certificate(Outcome.CERTIFIED), certificate(Outcome.NOT_APPLICABLE)]) is Verdict.CERTIFIED

    def test_unbuilt_obligation_blocks_certification(self):
        assert judge_run([certificate(Outcome.CERTIFIED, Outcome.NOT_IMPLEMENTED)]) is Verdict.UNKNOWN

    def test_error_blocks_certification(self):
        assert judge_run([certificate(Outcome.CERTIFIED, Outcome.ERROR)]) is Verdict.UNKNOWN

    def test_any_failure_fails(self):
        assert judge_run([certificate(Outcome.CERTIFIED), certificate(Outcome.FAILED)]) is Verdict.FAILED

    def test_no_certificates_is_unknown(self):
        assert judge_run([]) is Verdict.UNKNOWN

    def test_a_run_that_stopped_early_is_unknown_at_best(self):
        assert judge_run([certificate(Outcome.CERTIFIED)], run_completed=False) is Verdict.UNKNOWN
        assert judge_run([certificate(Outcome.FAILED)], run_completed=False) is Verdict.FAILED

    def test_unknown_stage_is_not_certified(self):
        assert judge_run([certificate(Outcome.CERTIFIED), certificate(Outcome.UNKNOWN)]) is Verdict.UNKNOWN


def test_a_passing_guard_certifies_nothing_and_a_failing_one_fails_its_certificate():
    from physvec.verifiers.final_judge import judge_run

    guard = Obligation(name="provenance", category="provenance", outcome=Outcome.CERTIFIED, guard=True)
    unknown = Obligation(name="assertion:a", category="limiting_case", outcome=Outcome.UNKNOWN)
    alone = Certificate(verifier="scientific", subject_digest="x", obligations=(unknown, guard))
    assert alone.verdict is Verdict.UNKNOWN, "a guard's passing is no evidence of the physics"
    assert judge_run([alone]) is Verdict.UNKNOWN
    idle = Certificate(verifier="convergence", subject_digest="x", obligations=(
        Obligation(name="convergence", category="convergence", outcome=Outcome.NOT_APPLICABLE), guard))
    certified = Certificate(verifier="programming", subject_digest="x", obligations=(
        Obligation(name="unit:f", category="unit", outcome=Outcome.CERTIFIED), guard))
    assert judge_run([certified, idle]) is Verdict.CERTIFIED, "a stage with nothing to check and a quiet guard"
    breached = guard.model_copy(update={"outcome": Outcome.FAILED})
    assert Certificate(verifier="programming", subject_digest="x", obligations=(
        Obligation(name="unit:f", category="unit", outcome=Outcome.CERTIFIED), breached)).verdict is Verdict.FAILED


def test_a_required_obligation_that_did_not_certify_leaves_its_certificate_unknown():
    """The red team's no-spec tasks: every other check certified, the relied-on observable had no independent
    value, and the certificate must not certify."""
    checked = Obligation(name="reference:energy", category="reference", outcome=Outcome.CERTIFIED)
    missing = Obligation(name="evidence:magnetization", category="evidence", outcome=Outcome.UNKNOWN, required=True)
    assert Certificate(verifier="scientific", subject_digest="x", obligations=(checked, missing)).verdict \
        is Verdict.UNKNOWN
    found = missing.model_copy(update={"outcome": Outcome.CERTIFIED})
    assert Certificate(verifier="scientific", subject_digest="x", obligations=(checked, found)).verdict \
        is Verdict.CERTIFIED
    idle = missing.model_copy(update={"outcome": Outcome.NOT_APPLICABLE})
    assert Certificate(verifier="scientific", subject_digest="x", obligations=(checked, idle)).verdict \
        is Verdict.CERTIFIED
