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


def test_a_trial_the_model_or_the_machine_cut_short_runs_again_and_counts_once(tmp_path):
    campaign = Campaign(tmp_path / "campaign")
    lost = record("dmrg/x", 0, False).model_copy(update={"verdict": "unknown", "status": "model_unavailable"})
    campaign.append(lost)
    campaign.append(record("dmrg/x", 1, True).model_copy(update={"verdict": "None"}))
    campaign.append(record("dmrg/x", 2, True).model_copy(update={"status": "finished"}))
    keys = [TrialKey("dmrg/x", "physvec", "scripted", trial) for trial in range(3)]
    assert campaign.pending(keys) == keys[:2]
    campaign.append(record("dmrg/x", 0, True).model_copy(update={"status": "finished"}))
    assert [(r.trial, r.status) for r in campaign.records()] == [(0, "finished"), (1, None), (2, "finished")]


def test_a_task_copy_is_whole_and_carries_the_method_s_limits_on_every_rerun(tiny_task, tmp_path):
    import json

    from physvec.qmp_bench.runner import method_task

    campaign = Campaign(tmp_path / "campaign")
    task = BenchTask("tiny", "tiny-heisenberg", tiny_task)
    copied = method_task(campaign, task, "one-shot")
    limits = json.loads(copied.read_text())["limits"]
    assert limits["programming_iterations"] == 0 and limits["scientific_iterations"] == 0
    copied.write_text(tiny_task.read_text())  # a kill between the copy and the rewrite, as an older harness did
    assert json.loads(method_task(campaign, task, "one-shot").read_text())["limits"]["programming_iterations"] == 0
    assert not [p for p in copied.parent.parent.iterdir() if "staging" in p.name], "no staging folder is left"


def test_a_second_campaign_process_and_a_live_trial_folder_are_left_alone(tiny_task, tmp_path, monkeypatch):
    from physvec.runstore.lock import RunBusy, RunLock
    from physvec.qmp_bench import runner
    from physvec.qmp_bench.runner import CAMPAIGN_LOCK, run_trial

    monkeypatch.setattr(runner, "RELEASE_GRACE_S", 0.5)  # the holder here never lets go

    campaign = Campaign(tmp_path / "campaign")
    task = BenchTask("tiny", "tiny-heisenberg", tiny_task)
    with RunLock(campaign.folder, CAMPAIGN_LOCK):
        from physvec.qmp_bench.catalogue import bench_tasks

        some_task = bench_tasks()[0].name
        assert qmp_bench_main(["run", "--method", "physvec", "--tasks", some_task, "--model", "library",
                               "--out", str(campaign.folder)]) == 2
        with pytest.raises(RunBusy, match="is in use by process"):
            run_campaign(campaign, [task], "physvec", "library", 1, 1)
    key = TrialKey(task.name, "physvec", "library", 0)
    live_run = campaign.runs_dir(key) / "20260101-000000-tiny-0000"
    live_run.mkdir(parents=True)
    (live_run / "run.json").write_text("{}")
    with RunLock(live_run):
        with pytest.raises(RunBusy, match="still held by a live process"):
            run_trial(campaign, task, key)
    assert live_run.is_dir()


def test_a_bad_model_spec_is_an_exit_2_before_any_trial(tmp_path, capsys):
    assert qmp_bench_main(["run", "--method", "physvec", "--model", "gpt4", "--out", str(tmp_path / "c")]) == 2
    assert "--model gpt4" in capsys.readouterr().out
    assert not (tmp_path / "c" / "records.jsonl").exists()


@pytest.mark.slow
def test_a_campaign_killed_with_sigkill_takes_its_trials_with_it(tiny_task, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.support.scripted import SLOW_AND_BROKEN

    replies = write_replies(tmp_path / "r.json", SLOW_AND_BROKEN, GOOD_SCRIPT)
    folder = tmp_path / "campaign"
    driver = ("import sys\nfrom pathlib import Path\nfrom physvec.qmp_bench.campaign import Campaign\n"
              "from physvec.qmp_bench.catalogue import BenchTask\nfrom physvec.qmp_bench.runner import run_campaign\n"
              f"run_campaign(Campaign(Path({str(folder)!r})), [BenchTask('tiny', 'tiny-heisenberg', "
              f"Path({str(tiny_task)!r}))], 'physvec', 'scripted:{replies}', 1, 1)\n")
    campaign = subprocess.Popen([sys.executable, "-c", driver], start_new_session=True)

    def trial_processes() -> list[int]:
        found = []
        for proc in Path("/proc").iterdir():
            try:
                if proc.name.isdigit() and str(folder).encode() in (proc / "cmdline").read_bytes() \
                        and int(proc.name) != campaign.pid:
                    found.append(int(proc.name))
            except OSError:
                continue
        return found

    deadline = time.monotonic() + 60
    while not list((folder / "runs").rglob("transcript.jsonl")) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert trial_processes(), "the trial's reproduce is running"
    os.kill(campaign.pid, signal.SIGKILL)  # the campaign alone, not its process group
    campaign.wait()
    deadline = time.monotonic() + 10
    while trial_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert not trial_processes(), "an orphaned trial outlived its campaign"
    (finished,) = run_campaign(Campaign(folder), [BenchTask("tiny", "tiny-heisenberg", tiny_task)], "physvec",
                               f"scripted:{replies}", 1, 1)
    assert finished.verdict == "certified"
