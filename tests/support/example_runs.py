"""Real run folders to look at: the README example, a failed run and a model_unavailable run, made the way
a user makes them (``reproduce`` with the library proposer or a scripted model), and a qmp-bench campaign
whose records and tables the campaign's own code writes from them."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from physvec.cli.main import reproduce_main
from physvec.runstore.store import RunDirectory, list_runs
from tests.support.scripted import FIXTURES, GOOD_SCRIPT, MISSPELLED, write_replies

README_TASK = FIXTURES / "library_tfim_task" / "task.json"
"""The task of the README's "Try it" command: reproduce tests/fixtures/library_tfim_task/task.json --model library"""


def readme_example(runs_dir: Path) -> RunDirectory:
    assert reproduce_main([str(README_TASK), "--model", "library", "--runs-dir", str(runs_dir)]) == 0
    return list_runs(runs_dir)[-1]


def _tiny_task(folder: Path, **limits: int) -> Path:
    shutil.copytree(FIXTURES / "tiny_task", folder)
    task = folder / "task.json"
    data = json.loads(task.read_text())
    data["limits"].update(limits)
    task.write_text(json.dumps(data))
    return task


def _scripted_run(work: Path, runs_dir: Path, name: str, replies: tuple[str, ...], **limits: int) -> RunDirectory:
    task = _tiny_task(work / name, **limits)
    reproduce_main([str(task), "--model", f"scripted:{write_replies(work / f'{name}.json', *replies)}",
                    "--runs-dir", str(runs_dir)])
    return list_runs(runs_dir)[-1]


def failed_run(work: Path, runs_dir: Path) -> RunDirectory:
    """A script whose misspelled call no repair fixes: programming fails after its one repair."""
    return _scripted_run(work, runs_dir, "failed", (MISSPELLED, MISSPELLED), programming_iterations=1)


def model_unavailable_run(work: Path, runs_dir: Path) -> RunDirectory:
    """A model that runs out of replies when the rubric judge asks it: the run ends model_unavailable."""
    return _scripted_run(work, runs_dir, "unavailable", (GOOD_SCRIPT,), rubric_votes=1)


def qmp_campaign(folder: Path, runs: list[RunDirectory]) -> Path:
    """A qmp-bench campaign folder holding one trial record per run, its results tables and pass@k plot."""
    from physvec.qmp_bench.campaign import Campaign, TrialKey, record_from_run
    from physvec.qmp_bench.report import write_results

    campaign = Campaign(folder)
    for trial, run in enumerate(runs):
        meta = run.metadata()
        campaign.append(record_from_run(run, TrialKey(meta["task_id"], "physvec", meta["model"], trial), 1.0))
    write_results(campaign.records(), folder)
    return folder
