"""What the verifier wrote and read is pinned by digest: a rewritten input stops a resume or a replay, and a
campaign record is built from the certificates the transcript issued, never from a planted file."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from physvec.runstore.store import RunTampered, create_run
from physvec.runstore.transcript import EventType, Transcript
from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Certificate, Obligation, Outcome

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


@pytest.fixture
def run(tmp_path):
    shutil.copytree(EXAMPLE, tmp_path / "task")
    return create_run(tmp_path / "runs", load_task(tmp_path / "task" / "task.json"), "scripted:test")


def test_inputs_are_pinned_when_the_run_is_created(run):
    digests = run.metadata()["input_digests"]
    assert "inputs/assertions.json" in digests and "inputs/reference.json" in digests
    run.verify_inputs()


@pytest.mark.parametrize("target", ["inputs/reference.json", "inputs/assertions.json", "task.json"])
def test_a_rewritten_input_is_refused(run, target):
    path = run.path / target
    data = json.loads(path.read_text())
    path.write_text(json.dumps({**data, "planted": True}))
    with pytest.raises(RunTampered, match=target.split("/")[-1]):
        run.verify_inputs()


def _certificate(outcome: Outcome) -> Certificate:
    return Certificate(verifier="scientific", subject_digest="s",
                       obligations=(Obligation(name="reference:energy", category="reference", outcome=outcome),))


def test_only_certificates_the_transcript_issued_count_and_a_changed_one_is_refused(run):
    from physvec.runstore.store import file_digest

    path = run.write_certificate("scientific-v01", _certificate(Outcome.FAILED))
    Transcript(run.transcript_file).append(EventType.CERTIFICATE, node="scientific", step=1, verifier="scientific",
                                           version=1, path="certificates/scientific-v01.json", sha256=file_digest(path),
                                           verdict="failed")
    run.write_certificate("scientific-v99", _certificate(Outcome.CERTIFIED))  # planted: no transcript event
    assert list(run.issued_certificates()) == ["scientific-v01"]
    path.write_text(_certificate(Outcome.CERTIFIED).model_dump_json())
    with pytest.raises(RunTampered):
        run.issued_certificates()


def _issue(run, name: str, outcome: Outcome) -> Path:
    """Write a certificate as the pipeline does, and record its issue in the transcript."""
    from physvec.runstore.store import file_digest

    path = run.write_certificate(name, _certificate(outcome))
    Transcript(run.transcript_file).append(EventType.CERTIFICATE, node="programming", step=1, verifier="programming",
                                           version=1, path=path.relative_to(run.path).as_posix(),
                                           sha256=file_digest(path), verdict=outcome.value)
    return path


def test_a_second_verification_of_one_version_gets_a_file_of_its_own_and_both_issues_resolve(run):
    first = _issue(run, "programming-v01", Outcome.FAILED)
    written = first.read_bytes()
    second = _issue(run, "programming-v01", Outcome.UNKNOWN)
    assert (first.name, second.name) == ("programming-v01.json", "programming-v01-2.json")
    assert first.read_bytes() == written, "the first issue's file is never overwritten"
    assert not list(first.parent.glob("*.tmp")), "no temporary file is left behind"
    issued = run.issued_certificates()
    assert {name: c.verdict.value for name, c in issued.items()} == {"programming-v01": "failed",
                                                                     "programming-v01-2": "unknown"}


def test_a_certificate_file_rewritten_after_its_issue_is_refused_even_when_a_later_issue_exists(run):
    first = _issue(run, "programming-v01", Outcome.FAILED)
    _issue(run, "programming-v01", Outcome.UNKNOWN)
    first.write_text(_certificate(Outcome.UNKNOWN).model_dump_json())
    with pytest.raises(RunTampered, match="programming-v01.json"):
        run.issued_certificates()
