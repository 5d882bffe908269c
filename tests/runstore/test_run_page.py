"""The run page's parts: certificates in pipeline order, a summary of the final judgement, evidence as
tables, and the transcript as a conversation."""

from __future__ import annotations

from physvec.runstore.conversation import conversation
from physvec.runstore.evidence import block, obligation_blocks
from physvec.runstore.store import pipeline_order
from physvec.runstore.summary import summarise
from physvec.runstore.transcript import Event, EventType
from physvec.verifiers.certificate import Certificate, Obligation, Outcome


def certificate(*outcomes: tuple[str, Outcome, str], **summary) -> Certificate:
    return Certificate(verifier="v", subject_digest="sha256:0", summary=summary, obligations=tuple(
        Obligation(name=name, category="c", outcome=outcome, message=message) for name, outcome, message in outcomes))


def test_certificates_sort_by_script_version_then_stage_then_attempt_then_run_wide_ones():
    names = ["isolation-2", "isolation", "scientific-v02", "convergence-v02", "programming-v02", "programming-v01-10",
             "programming-v01-2", "programming-v01", "domain_checks-v02"]
    assert sorted(names, key=pipeline_order) == ["programming-v01", "programming-v01-2", "programming-v01-10",
                                                 "programming-v02", "scientific-v02", "convergence-v02",
                                                 "domain_checks-v02", "isolation", "isolation-2"]


def test_a_second_verification_of_a_version_belongs_to_that_version_and_the_summary_reads_the_last():
    from physvec.runstore.summary import final_certificates
    from physvec.runstore.store import certificate_version

    assert certificate_version("programming-v01-2") == 1 and certificate_version("isolation-2") is None
    certificates = {"programming-v01": certificate(("script_executes", Outcome.FAILED, "")),
                    "programming-v02": certificate(("script_executes", Outcome.FAILED, "")),
                    "programming-v02-2": certificate(("script_executes", Outcome.CERTIFIED, "")),
                    "isolation": certificate(("sandbox:isolation", Outcome.CERTIFIED, ""))}
    assert list(final_certificates(certificates)) == ["programming-v02-2", "isolation"]


def test_the_summary_reads_the_final_version_and_names_what_failed_and_what_stayed_unknown():
    certificates = {
        "programming-v01": certificate(("script_executes", Outcome.FAILED, "AttributeError\ntraceback")),
        "programming-v02": certificate(("script_executes", Outcome.CERTIFIED, "exit 0")),
        "scientific-v02": certificate(("rubric:field", Outcome.CERTIFIED, "h == 1 holds"),
                                      ("rubric:circuit", Outcome.UNKNOWN, "prose leaf: no model"),
                                      ("reference:energy", Outcome.FAILED, "differs from the reference"),
                                      rubric_score=0.375),
        "isolation": certificate(("sandbox:isolation", Outcome.CERTIFIED, "bubblewrap")),
    }
    summary = summarise({"verdict": "failed", "status": "finished"}, certificates, [])
    assert [(f.certificate, f.obligation, f.anchor) for f in summary.failed] == [
        ("scientific-v02", "reference:energy", "obligation-scientific-v02-2")]
    assert [(f.obligation, f.reason) for f in summary.unknown] == [("rubric:circuit", "prose leaf: no model")]
    assert {f.obligation for f in summary.certified} == {"script_executes", "rubric:field", "sandbox:isolation"}
    assert summary.rubric_score == 0.375
    assert summary.look_first[0].startswith("failed: reference:energy")


def test_the_rubric_score_says_what_it_weighs_and_that_it_does_not_decide_the_verdict():
    from markupsafe import escape

    from physvec.runstore.report import _ENVIRONMENT
    from physvec.runstore.summary import RUBRIC_SCORE_MEANING

    summary = summarise({"verdict": "certified", "status": "finished"},
                        {"scientific-v01": certificate(("rubric:field", Outcome.CERTIFIED, ""), rubric_score=0.45)}, [])
    page = _ENVIRONMENT.get_template("summary.html.j2").render(
        meta={"task_id": "t", "model": "library"}, status="finished", summary=summary,
        rubric_score_meaning=RUBRIC_SCORE_MEANING)
    assert f'<abbr title="{escape(RUBRIC_SCORE_MEANING)}">rubric score</abbr> <b>0.45</b>' in page
    assert "unknown" in RUBRIC_SCORE_MEANING and "never by this score" in RUBRIC_SCORE_MEANING


def test_a_run_that_stopped_early_says_why_first_and_that_no_certificate_was_issued():
    summary = summarise({"verdict": None, "status": "model_unavailable", "error": "provider down"}, {}, [])
    assert summary.look_first[0] == "the run stopped early: provider down"
    assert "no certificate was issued" in summary.look_first[1]


def test_a_convergence_ladder_is_a_table_with_one_row_per_rung():
    ladder = [{"value": 250, "observed": -2.997072321997879, "change": None},
              {"value": 500, "observed": -2.9985407337521806, "change": 0.0014684117543013464}]
    table = block("table", ladder)
    assert table.kind == "table" and table.columns == ["value", "observed", "change"]
    assert table.rows == [["250", "-2.99707", "—"], ["500", "-2.99854", "0.00146841"]]


def test_sealed_evidence_is_marked_and_a_traceback_stays_preformatted():
    obligation = Obligation(name="reference:energy", category="reference", outcome=Outcome.FAILED,
                            evidence={"observed": -1.5, "traceback": "Traceback\n  File x", "empty": ""},
                            sealed={"expected": -1.616, "overlay": None})
    blocks = obligation_blocks(obligation)
    assert [(b.key, b.kind, b.sealed) for b in blocks] == [("observed", "value", False), ("traceback", "text", False),
                                                          ("expected", "value", True)]


def test_a_model_call_reads_as_its_prompt_messages_and_the_reply():
    events = [Event(seq=0, time=10.0, type=EventType.NODE_STARTED, node="author", data={"attempt": 1}),
              Event(seq=1, time=11.5, type=EventType.MODEL_CALL, node="author", data={
                  "role": "author", "prompt": [{"type": "system", "content": "You write scripts."},
                                               {"type": "human", "content": "Task: ..."}],
                  "reply": "```python\n...```", "input_tokens": 10, "output_tokens": 5}),
              Event(seq=2, time=12.0, type=EventType.CERTIFICATE, node="programming",
                    data={"verifier": "programming", "version": 1, "path": "certificates/programming-v01.json",
                          "verdict": "failed"})]
    call, issued = conversation(events)
    assert [(m.role, m.text) for m in call.messages] == [("system", "You write scripts."), ("human", "Task: ..."),
                                                         ("reply", "```python\n...```")]
    assert call.title == "model call (author): 15 tokens" and call.seconds == 1.5
    assert issued.link == "certificate-programming-v01" and issued.title == "certificate programming v1: failed"


def test_a_run_lists_its_stored_certificates_in_pipeline_order(tmp_path):
    from physvec.runstore.store import RunDirectory

    run = RunDirectory(tmp_path)
    for name in ("isolation", "convergence-v01", "scientific-v01", "programming-v01"):
        run.write_certificate(name, certificate(("x", Outcome.CERTIFIED, "")))
    assert list(run.certificates()) == ["programming-v01", "scientific-v01", "convergence-v01", "isolation"]


def test_a_model_reply_is_shown_as_text_never_as_markup():
    from physvec.runstore.report import environment

    events = [Event(seq=0, time=0.0, type=EventType.MODEL_CALL, node="author",
                    data={"prompt": [], "reply": "<script>alert('x')</script>"})]
    page = environment().get_template("conversation.html.j2").render(conversation=conversation(events))
    assert "<script>" not in page and "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;" in page
