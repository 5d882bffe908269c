"""`matpcr cgsv` with scripted models: one that retreats to a value the 0.5-degree condition accepts and one
that corrects; the McNemar tables are asserted exactly, and PCR rises in both while accuracy rises only for
the model that corrects (the retreat the published caveat warns about)."""

from __future__ import annotations

import json

from physvec.cli.matpcr import main
from physvec.runstore.transcript import EventType, read_events
from tests.support.scripted import write_replies

WRONG = "Silicon's Raman line lies at 480 cm-1."
"""silicon's one-phonon line is at 520.7 cm-1 (Parker, Feldman and Ashkin 1967): nothing at 480, a violation"""
RETREAT = "Then the line at 524.5 cm-1."
"""within the oracle's 5 cm-1 of 520.7 (consistent), not within the 2 cm-1 accuracy window (inaccurate); a
diffraction retreat no longer exists at the default 0.1-degree resolution, which equals its accuracy window"""
CORRECT = "Then the line at 520.7 cm-1."
ITEMS = 3


def scripted_model(tmp_path, revision: str) -> str:
    """Per item: the first answer, one cgsv round, two self-refine rounds, two re-prompts, two best-of draws."""
    per_item = [WRONG, revision, WRONG, WRONG, WRONG, WRONG, WRONG, WRONG]
    return str(write_replies(tmp_path / f"scripted_cgsv_{len(revision)}.json", *(per_item * ITEMS)))


def run(tmp_path, revision: str, run_id: str, *extra: str) -> dict[str, dict]:
    assert main(["cgsv", "--model", f"scripted:{scripted_model(tmp_path, revision)}", "--family", "raman",
                 "--items", "raman:Si", "--n", str(ITEMS), "--seeds", "1", "--runs-dir", str(tmp_path / "runs"),
                 "--run-id", run_id, *extra]) == 0
    rows = json.loads((tmp_path / "runs" / run_id / "summary.json").read_text())
    return {row["condition"]: row for row in rows}


UNCHANGED = {"pairs": ITEMS, "gained": 0, "lost": 0, "p": 1.0, "p_holm": 1.0}


def test_a_retreating_model_gains_consistency_but_no_accuracy(tmp_path, capsys):
    rows = run(tmp_path, RETREAT, "retreat")
    cgsv = rows["cgsv"]
    assert (cgsv["pcr_before"], cgsv["pcr_after"], cgsv["accuracy_before"], cgsv["accuracy_after"]) == (0, 1, 0, 0)
    assert cgsv["mcnemar_consistent"] == {"pairs": 3, "gained": 3, "lost": 0, "p": 0.25, "p_holm": 1.0}
    assert cgsv["mcnemar_accurate"] == UNCHANGED
    for control in ("self_refine", "reprompt", "best_of_3"):
        assert rows[control]["mcnemar_consistent"] == UNCHANGED and rows[control]["pcr_after"] == 0


def test_a_correcting_model_gains_consistency_and_accuracy(tmp_path, capsys):
    cgsv = run(tmp_path, CORRECT, "correct")["cgsv"]
    assert cgsv["mcnemar_consistent"] == {"pairs": 3, "gained": 3, "lost": 0, "p": 0.25, "p_holm": 1.0}
    assert cgsv["mcnemar_accurate"] == {"pairs": 3, "gained": 3, "lost": 0, "p": 0.25, "p_holm": 1.0}
    assert "| cgsv | 3 | 0.000 | 1.000 | 0.000 | 1.000 |" in capsys.readouterr().out


def test_the_feedback_names_the_violation_and_never_the_expected_value(tmp_path):
    run(tmp_path, CORRECT, "feedback")
    prompts = {event.data["role"]: event.data["prompt"][-1]["content"]
               for event in read_events(tmp_path / "runs" / "feedback" / "transcript.jsonl")
               if event.type is EventType.MODEL_CALL}
    assert "480 cm-1" in prompts["matpcr_cgsv"] and "within 5 cm^-1" in prompts["matpcr_cgsv"]
    assert "520.7" not in prompts["matpcr_cgsv"]
    assert "480" not in prompts["matpcr_self_refine"] and "480" not in prompts["matpcr_reprompt"]


def test_two_jobs_revise_as_one_job_does_each_item_with_its_own_client(tmp_path, capsys):
    """The script holds the same eight replies for every item, so a client per item is served what the one
    shared client serves item after item."""
    assert run(tmp_path, RETREAT, "two", "--jobs", "2") == run(tmp_path, RETREAT, "one")
    one, two = (sorted((tmp_path / "runs" / run_id / "cgsv.jsonl").read_text().splitlines())
                for run_id in ("one", "two"))
    assert two == one and len(one) == ITEMS
    assert len(list((tmp_path / "runs" / "two" / "transcripts").iterdir())) == ITEMS
