"""The model as fallback extractor: its JSON is validated against the schema and against the answer itself,
and what it refused is kept as evidence in the record."""

from __future__ import annotations

import json

import pytest

from physvec.agents.matpcr_extraction import model_claims, validated
from physvec.agents.model_client import ModelClient
from physvec.agents.providers import make_chat_model
from physvec.runstore.transcript import EventType, Transcript
from physvec.cli.matpcr import main
from physvec.verifiers.matpcr.schema import Claim
from tests.support.scripted import write_replies

ANSWER = "The strongest line of silicon, the (111), sits near 28.44 in 2theta; it is a semiconductor."


@pytest.mark.parametrize(("entry", "refusal"), [
    ({"value": 99.9, "unit": "deg"}, "99.9 is no number the answer states"),
    ({"value": 28.44, "unit": "cm-1"}, "unit must be one of"),
    ({"value": 28.44, "unit": "deg", "constraint": "raman"}, "not a claim object"),
    ({"value": 28.44, "unit": "deg", "span": {"start": 0, "end": 1, "text": "x"}}, "not a claim object"),
    ("28.44 deg", "not a claim object"),
])
def test_an_entry_the_answer_does_not_support_is_refused_with_its_reason(entry, refusal):
    assert refusal in validated(entry, "diffraction", ANSWER)


def test_a_supported_entry_becomes_a_claim_marked_as_the_models():
    claim = validated({"value": 28.44, "unit": "deg", "hkl": [1, 1, 1]}, "diffraction", ANSWER)
    assert isinstance(claim, Claim) and claim.extracted_by == "model" and claim.hkl == [1, 1, 1]
    assert isinstance(validated({"label": "semiconductor"}, "band_gap", ANSWER), Claim)
    assert "does not say 'metal'" in validated({"label": "metal"}, "band_gap", ANSWER)


def test_evaluate_falls_back_to_the_model_only_when_the_parser_reads_nothing(tmp_path, capsys):
    extraction = json.dumps({"claims": [{"value": 28.44, "unit": "deg", "hkl": [1, 1, 1]}, {"value": 99.9, "unit": "deg"}]})
    model = write_replies(tmp_path / "scripted_extraction.json", ANSWER, extraction)
    assert main(["evaluate", "--model", f"scripted:{model}", "--family", "diffraction", "--items", "diffraction:Si",
                 "--n", "1", "--seeds", "1", "--bootstrap", "100", "--runs-dir", str(tmp_path / "runs"),
                 "--model-extraction"]) == 0
    record = json.loads((tmp_path / "runs" / "matpcr-eval" / "responses.jsonl").read_text())
    assert (record["checkable"], record["consistent"]) == (1, 1)
    assert record["extraction"] == "model: 1 accepted, 1 refused (99.9 is no number the answer states)"


def test_the_extraction_call_asks_for_the_claims_schema_as_structured_output(tmp_path):
    model = make_chat_model(f"scripted:{write_replies(tmp_path / 'scripted.json', json.dumps({'claims': []}))}")
    transcript = Transcript(tmp_path / "t.jsonl")
    assert model_claims("diffraction", ANSWER, ModelClient(model, transcript, 10_000), step=1).claims == []
    (call,) = [e for e in transcript.events() if e.type is EventType.MODEL_CALL]
    assert call.data["schema"] == "ModelClaims"
    assert call.data["prompt"][0]["type"] == "system" and "JSON object" in call.data["prompt"][0]["content"]
