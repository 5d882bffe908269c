"""The harness: unbiased pass@k on synthetic records, resumable campaigns, results files."""

from __future__ import annotations

from math import comb
from pathlib import Path

import pytest

from physvec.runstore.store import RunDirectory
from physvec.qmp_bench.campaign import Campaign, TrialKey, TrialRecord
from physvec.qmp_bench.catalogue import BenchTask
from physvec.cli.qmp_bench import main as qmp_bench_main
from physvec.qmp_bench.metrics import mean_pass_at_k, pass_at_k, summary
from physvec.qmp_bench.report import write_results
from physvec.qmp_bench.runner import run_campaign
from tests.support.scripted import GOOD_SCRIPT, MISSPELLED, write_replies


def record(task: str, trial: int, scientific: bool, executable: bool = True, method: str = "physvec") -> TrialRecord:
    return TrialRecord(task=task, method=method, model="scripted", trial=trial, run_dir="-", verdict="certified",
                       executable=executable, scientific_completion=scientific, unit_accuracy_first=0.5,
                       unit_accuracy_final=1.0, integration_accuracy_first=None, integration_accuracy_final=1.0,
                       iterations=trial, tokens=1000, tool_calls=3, seconds=1.0)


def test_pass_at_k_is_the_unbiased_estimator():
    assert pass_at_k(5, 2, 1) == pytest.approx(2 / 5)
    assert pass_at_k(5, 2, 2) == pytest.approx(1 - comb(3, 2) / comb(5, 2))  # 0.7
    assert pass_at_k(5, 0, 3) == 0.0 and pass_at_k(5, 5, 1) == 1.0
    assert pass_at_k(4, 1, 4) == 1.0, "four draws out of four always include the passing trial"
    with pytest.raises(ValueError):
        pass_at_k(3, 1, 4)


def test_pass_at_k_averages_over_tasks_with_enough_trials():
    records = [record("a", t, t < 2) for t in range(4)] + [record("b", t, False) for t in range(4)] + \
              [record("c", 0, True)]
    # a: c = 2 of 4, b: 0 of 4; c has one trial and counts only for k = 1
    assert mean_pass_at_k(records, 1, lambda r: r.scientific_completion) == pytest.approx((0.5 + 0 + 1) / 3)
    assert mean_pass_at_k(records, 2, lambda r: r.scientific_completion) == pytest.approx((1 - 1 / 6 + 0) / 2)
    assert mean_pass_at_k(records, 5, lambda r: r.scientific_completion) is None


def test_a_summary_reports_first_and_final_accuracy_and_costs():
    row = summary([record("a", 0, True), record("a", 1, False, executable=False)], k_values=(1, 2))
    assert row["executable pass@1"] == 0.5 and row["scientific pass@2"] == 1.0
    assert row["unit accuracy (first)"] == 0.5 and row["unit accuracy (final)"] == 1.0
    assert row["integration accuracy (first)"] is None and row["iterations"] == 0.5


def test_a_killed_campaign_resumes_with_the_trials_it_lacks(tmp_path):
    campaign = Campaign(tmp_path / "campaign")
    campaign.append(record("dmrg/x", 0, True))
    with campaign.records_file.open("a") as stream:
        stream.write(record("dmrg/x", 1, True).model_dump_json()[:40])  # the kill cut this line
    keys = [TrialKey("dmrg/x", "physvec", "scripted", trial) for trial in range(3)]
    assert campaign.pending(keys) == keys[1:]
    assert [r.trial for r in campaign.records()] == [0]


def test_results_are_written_as_csv_markdown_and_a_plot(tmp_path):
    records = [record("a", t, t == 0) for t in range(3)] + [record("a", t, True, method="one-shot") for t in range(3)]
    paths = write_results(records, tmp_path, k_values=(1, 3))
    assert [p.name for p in paths] == ["results.csv", "results.md", "pass_at_k.png"]
    table = (tmp_path / "results.md").read_text()
    assert "| one-shot | scripted |" in table and "scientific pass@3" in table
    assert (tmp_path / "pass_at_k.png").read_bytes()[:4] == b"\x89PNG"


def test_an_unknown_method_is_refused_and_a_baseline_needs_a_language_model(tmp_path):
    with pytest.raises(ValueError, match="unknown method"):
        run_campaign(Campaign(tmp_path), [], "reflexion", "library", 1, 1)
    assert qmp_bench_main(["run", "--method", "react", "--model", "library", "--out", str(tmp_path)]) == 2


def test_a_react_trial_runs_the_baseline_and_records_it(tiny_task, tmp_path):
    task = BenchTask("tiny", "tiny-heisenberg", tiny_task)
    replies = write_replies(tmp_path / "r.json", MISSPELLED, GOOD_SCRIPT)
    (trial,) = run_campaign(Campaign(tmp_path / "campaign"), [task], "react", f"scripted:{replies}", 1, 1)
    assert trial.method == "react" and trial.verdict == "certified" and trial.iterations == 1
    assert RunDirectory(Path(trial.run_dir)).metadata()["method"] == "react"
    assert trial.integration_accuracy_first < trial.integration_accuracy_final, "the first script is judged too"
