"""Running trials of a method on benchmark tasks, each `reproduce` in its own process, resumably.

A benchmark method is a `reproduce` method with a budget of repairs: `physvec` keeps the task's limits,
`one-shot` judges the Author's first script with no repair, `react` and `react-rag` repair from execution
errors alone within the same budget.  Each trial runs a copy of the task folder whose limits the method
sets, so the task file itself is never changed.

Under kill -9 nothing is left half-done or running: a trial's `reproduce` dies with the campaign (Linux's
parent-death signal, its sandboxed programs with it), a task copy appears whole or not at all (copied
into a temporary folder, then renamed) and its method limits are checked on every rerun, a trial's run
folder is deleted only when no live process holds a run in it, and one campaign folder is driven by one
process at a time (campaign.lock).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.campaigns.progress import CampaignProgress
from physvec.campaigns.trials import raise_first_failure, run_trials
from physvec.runstore.lock import RunBusy, RunLock, is_held
from physvec.runstore.store import list_runs
from physvec.qmp_bench.campaign import Campaign, TrialKey, TrialRecord, record_from_run
from physvec.qmp_bench.catalogue import BenchTask

NO_REPAIR = {"programming_iterations": 0, "scientific_iterations": 0}
METHODS: dict[str, tuple[str, dict[str, int]]] = {
    "physvec": ("physvec", {}), "one-shot": ("physvec", NO_REPAIR), "react": ("react", {}),
    "react-rag": ("react-rag", {})}
"""Benchmark method -> the `reproduce --method` it runs and the limits it imposes on the task."""
CAMPAIGN_LOCK = "campaign.lock"
RELEASE_GRACE_S = 15.0
"""How long a restarted campaign waits for a dying trial of its killed predecessor to let its run go."""
_REPRODUCE = (
    "import os, sys\n"
    "from physvec.verifiers.sandbox_launch import die_with_parent\n"
    "die_with_parent()\n"
    "if os.getppid() != int(sys.argv[1]):\n"
    "    sys.exit('the campaign that started this trial is gone')\n"
    "from physvec.cli.main import reproduce_main\n"
    "sys.exit(reproduce_main(sys.argv[2:]))\n")
"""A trial's process: it dies with the campaign (checked once after asking, for a campaign killed before)."""


def method_task(campaign: Campaign, task: BenchTask, method: str) -> Path:
    """The campaign's copy of the task folder with the method's limits; returns its task file.  A copy whose
    limits are not the method's (an older campaign, a hand edit) is made again."""
    folder = campaign.folder / "tasks" / method / task.topic / task.id
    task_file = folder / "task.json"
    if folder.is_dir() and _has_method_limits(task_file, method):
        return task_file
    staging = folder.with_name(f".{folder.name}.staging-{os.getpid()}-{threading.get_ident()}")
    shutil.rmtree(staging, ignore_errors=True)
    shutil.copytree(task.task_file.parent, staging)
    data = json.loads((staging / "task.json").read_text())
    data["limits"] = {**data.get("limits", {}), **METHODS[method][1]}
    (staging / "task.json").write_text(json.dumps(data, indent=1) + "\n")
    shutil.rmtree(folder, ignore_errors=True)
    os.replace(staging, folder)
    return task_file


def _has_method_limits(task_file: Path, method: str) -> bool:
    try:
        limits = json.loads(task_file.read_text()).get("limits", {})
    except (OSError, ValueError):
        return False
    return all(limits.get(name) == value for name, value in METHODS[method][1].items())


def run_trial(campaign: Campaign, task: BenchTask, key: TrialKey) -> TrialRecord:
    """One `reproduce` of the method's copy of the task; its record, appended to the campaign."""
    record = execute_trial(campaign, task, key)
    campaign.append(record)
    return record


def execute_trial(campaign: Campaign, task: BenchTask, key: TrialKey) -> TrialRecord:
    """One `reproduce` of the method's copy of the task, and its record, which this appends nowhere: it runs
    on whichever worker an executor chose, and only the campaign's client writes records."""
    runs_dir = campaign.runs_dir(key)
    live = _held_runs(runs_dir, grace_s=RELEASE_GRACE_S)
    if live:
        raise RunBusy(f"{key.task} trial {key.trial}: run {live[0]} is still held by a live process; not deleted")
    shutil.rmtree(runs_dir, ignore_errors=True)  # a trial killed before its record starts afresh
    started = time.monotonic()
    task_file = method_task(campaign, task, key.method)
    with (campaign.folder / "trials.log").open("a") as log:
        subprocess.run([sys.executable, "-c", _REPRODUCE, str(os.getpid()), str(task_file),
                        "--model", key.model, "--runs-dir", str(runs_dir), "--method", METHODS[key.method][0]],
                       stdout=log, stderr=log, check=False)
    runs = list_runs(runs_dir)
    if not runs:
        raise RuntimeError(f"{key.task} trial {key.trial}: reproduce left no run (see {campaign.folder}/trials.log)")
    return record_from_run(runs[-1], key, time.monotonic() - started)


def _held_runs(runs_dir: Path, grace_s: float) -> list[str]:
    """The runs in ``runs_dir`` a live process holds, after waiting up to ``grace_s`` for them to be let go.

    A trial killed with its campaign is still tearing down its memory for a moment after its command
    line is gone, and the kernel drops its lock only at the end: a campaign restarted at once waits for
    that rather than refusing."""
    deadline = time.monotonic() + grace_s
    while True:
        live = [run.run_id for run in list_runs(runs_dir) if is_held(run.path)]
        if not live or time.monotonic() >= deadline:
            return live
        time.sleep(0.2)


def run_campaign(campaign: Campaign, tasks: list[BenchTask], method: str, model: str, trials: int,
                 executor: Executor | int, progress: Callable[[TrialRecord, int, int], None] | None = None,
                 bar: CampaignProgress | None = None) -> list[TrialRecord]:
    """Every missing trial of ``method`` on ``tasks`` on ``executor`` (an int: that many local trials at
    once); the new records, in the order they were recorded.

    Raises:
        The first failed trial's error, once every other trial has ended and been recorded.
    """
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; methods: {', '.join(METHODS)}")
    by_name = {task.name: task for task in tasks}
    records: list[TrialRecord] = []
    with RunLock(campaign.folder, CAMPAIGN_LOCK):
        keys = campaign.pending([TrialKey(task.name, method, model, trial)
                                 for task in tasks for trial in range(trials)])
        for name in dict.fromkeys(key.task for key in keys):  # made here, not by trials racing each other
            method_task(campaign, by_name[name], method)

        def record(key: TrialKey, result: TrialRecord) -> None:
            campaign.append(result)
            records.append(result)
            if progress is not None:
                progress(result, len(records), len(keys))

        runner = LocalExecutor(executor) if isinstance(executor, int) else executor
        failures = run_trials(runner, functools.partial(_trial, campaign, by_name), keys, record, bar)
    raise_first_failure(failures)
    return records


def _trial(campaign: Campaign, tasks: dict[str, BenchTask], key: TrialKey) -> TrialRecord:
    """A worker's trial: module-level, so that Dask ships it by name."""
    return execute_trial(campaign, tasks[key.task], key)
