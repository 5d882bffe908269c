"""`matpcr evaluate` with scripted models: PCR and accuracy per type with response-level bootstrap intervals,
a resumable run, and prompts that state an item's inputs but never an oracle's expected value."""

from __future__ import annotations

import json

import pytest

from physvec.agents.matpcr_campaign import messages
from physvec.cli.conventions import EXIT_BAD_INPUT, EXIT_NOT_CERTIFIED
from physvec.cli.matpcr import main
from physvec.runstore.transcript import EventType, read_events
from physvec.verifiers.matpcr.diffraction import structure_peaks
from physvec.verifiers.matpcr.references import offline_snapshot
from physvec.verifiers.matpcr.sampling import draw
from tests.support.scripted import write_replies

RIGHT = "Diamond cubic: (111) at 2θ = 28.44° and (220) at 47.30°."
"""both claims consistent and accurate"""
RETREATING = "(111) at 2θ = 28.50° and (200) at 32.96°."
"""28.50 lies within the 0.1-degree resolution of (111) at 28.44; (200) is extinct in Si"""


def _evaluate(tmp_path, replies, *extra):
    model = write_replies(tmp_path / "scripted_matpcr_replies.json", *replies)
    return main(["evaluate", "--model", f"scripted:{model}", "--family", "diffraction", "--items", "diffraction:Si",
                 "--n", "2", "--seeds", "1", "--bootstrap", "2000", "--runs-dir", str(tmp_path / "runs"), *extra])


def test_pcr_and_accuracy_are_counted_per_claim_with_bootstrap_intervals_over_responses(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT, RETREATING]) == 0
    rows = json.loads((tmp_path / "runs" / "matpcr-eval" / "summary.json").read_text())
    diffraction = rows[0]
    assert diffraction["constraint"] == "diffraction" and diffraction["responses"] == 2
    assert (diffraction["pcr"]["count"], diffraction["pcr"]["of"], diffraction["pcr"]["rate"]) == (3, 4, 0.75)
    assert (diffraction["accuracy"]["count"], diffraction["accuracy"]["of"]) == (3, 4)
    # two responses: a replicate holds both (PCR 1.0), neither (0.5) or one of each (0.75)
    assert diffraction["pcr"]["ci95"] == [0.5, 1.0]
    assert "| diffraction | 2 | 0 | 4 | 0.750 (3/4) [0.500, 1.000] | 0.750 (3/4)" in capsys.readouterr().out


def test_a_vague_answer_leaves_pcr_alone_and_is_counted_beside_it(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT, "The pattern is typical of a diamond-cubic crystal."]) == 0
    (diffraction, _) = json.loads((tmp_path / "runs" / "matpcr-eval" / "summary.json").read_text())
    assert diffraction["pcr"]["rate"] == 1.0 and diffraction["responses_without_checkable_claim"] == 1


def test_a_stopped_evaluation_resumes_where_it_stopped(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT]) == EXIT_NOT_CERTIFIED, "the script holds one reply for two items"
    assert _evaluate(tmp_path, [RIGHT, RETREATING], "--resume") == 0
    records = (tmp_path / "runs" / "matpcr-eval" / "responses.jsonl").read_text().splitlines()
    assert [json.loads(line)["consistent"] for line in records] == [2, 1]


def _records(tmp_path, run_id: str = "matpcr-eval") -> list[dict]:
    lines = (tmp_path / "runs" / run_id / "responses.jsonl").read_text().splitlines()
    return sorted((json.loads(line) for line in lines), key=lambda r: (r["seed"], r["index"]))


def test_two_jobs_record_what_one_job_records_with_a_model_client_per_item(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT, RIGHT], "--run-id", "one") == 0
    assert _evaluate(tmp_path, [RIGHT, RIGHT], "--run-id", "two", "--jobs", "2") == 0
    assert _records(tmp_path, "two") == _records(tmp_path, "one") and len(_records(tmp_path, "one")) == 2
    transcripts = sorted(path.name for path in (tmp_path / "runs" / "two" / "transcripts").iterdir())
    assert transcripts == ["diffraction-0-0.jsonl", "diffraction-0-1.jsonl"]
    summaries = [(tmp_path / "runs" / run_id / "summary.json").read_text() for run_id in ("one", "two")]
    assert summaries[0] == summaries[1]


def test_with_a_client_per_item_a_scripted_model_starts_again_at_its_first_reply(tmp_path, capsys):
    assert _evaluate(tmp_path, [RETREATING, RIGHT], "--jobs", "2") == 0
    assert [record["reply"] for record in _records(tmp_path)] == [RETREATING, RETREATING]


def test_a_killed_run_resumed_on_two_jobs_asks_only_for_the_items_it_lacks(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT], "--n", "3", "--jobs", "2") == 0
    folder = tmp_path / "runs" / "matpcr-eval"
    records = folder / "responses.jsonl"
    kept = records.read_text().splitlines()[0]
    records.write_text(kept + "\n")  # as if the client had been killed after its first record
    transcripts = {path.name: len(read_events(path)) for path in (folder / "transcripts").iterdir()}
    assert _evaluate(tmp_path, [RIGHT], "--n", "3", "--jobs", "2", "--resume") == 0
    assert [(r["seed"], r["index"]) for r in _records(tmp_path)] == [(0, 0), (0, 1), (0, 2)], "each item once"
    first = json.loads(kept)
    for path in (folder / "transcripts").iterdir():
        added = [event.type for event in read_events(path)][transcripts[path.name]:]
        recorded = path.name == f"diffraction-{first['seed']}-{first['index']}.jsonl"
        assert added == ([] if recorded else [EventType.MODEL_REPLY_REUSED]), "no reply is asked for twice"


def test_a_resume_with_other_settings_is_refused(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT, RETREATING]) == 0
    model = write_replies(tmp_path / "scripted_other.json", RIGHT)
    assert main(["evaluate", "--model", f"scripted:{model}", "--family", "diffraction", "--items", "diffraction:Si",
                 "--n", "1", "--seeds", "1", "--runs-dir", str(tmp_path / "runs"), "--resume"]) == EXIT_BAD_INPUT
    assert "settings differ" in capsys.readouterr().err


def test_an_items_glob_matching_nothing_exits_2(tmp_path, capsys):
    assert _evaluate(tmp_path, [RIGHT], "--items", "diffraction:Unobtainium") == EXIT_BAD_INPUT
    assert "--items" in capsys.readouterr().err


@pytest.mark.parametrize("family", ["diffraction", "stability", "band_gap", "magnetisation", "microscopy"])
def test_no_prompt_states_an_expected_value(family):
    provider = offline_snapshot()
    for drawn in draw(family, 4, 0, provider):
        prompt = messages(drawn)[0].content
        if family == "diffraction":
            peaks = structure_peaks(str(drawn.item.material), drawn.item.wavelength_angstrom)
            assert not any(f"{peak.two_theta:.2f}" in prompt for peak in peaks)
        elif family != "microscopy":
            record = provider.record(str(drawn.item.material))
            for value in (record.band_gap, record.magnetisation):
                assert value is None or value.value == 0 or f"{value.value}" not in prompt
        assert "source" not in prompt.lower()


def test_judged_claims_are_recorded_and_train_the_detector(tmp_path, capsys):
    for run_id, replies in (("first", [RIGHT, RETREATING]), ("second", [RETREATING, RIGHT])):
        model = write_replies(tmp_path / f"scripted_{run_id}.json", *replies)
        assert main(["evaluate", "--model", f"scripted:{model}", "--family", "diffraction", "--items",
                     "diffraction:Si", "--n", "2", "--seeds", "1", "--bootstrap", "100", "--runs-dir",
                     str(tmp_path / "runs"), "--run-id", run_id]) == 0
    record = json.loads((tmp_path / "runs" / "first" / "responses.jsonl").read_text().splitlines()[1])
    assert record["judged"] == [{"context": "(111) at 2θ = 28.50° and (200) at 32.96°", "violated": False},
                                {"context": "(111) at 2θ = 28.50° and (200) at 32.96°", "violated": True}]
    capsys.readouterr()
    assert main(["detector", str(tmp_path / "runs" / "first"), str(tmp_path / "runs" / "second")]) == 0
    out = capsys.readouterr().out
    assert "violation detector: 8 claims" in out and "| source-disjoint (test: scripted:" in out
    assert "| held-out type diffraction |" in out


def test_the_detector_without_labelled_claims_exits_2(tmp_path, capsys):
    assert main(["detector", str(tmp_path)]) == EXIT_BAD_INPUT
    assert "not a matpcr evaluate run" in capsys.readouterr().err
