"""Running trials of a method on benchmark tasks, each `reproduce` in its own process, resumably.

A benchmark method is a `reproduce` method with a budget of repairs: `physvec` keeps the task's limits,
`one-shot` judges the Author's first script with no repair, `react` and `react-rag` repair from execution
errors alone within the same budget.  Each trial runs a copy of the task folder whose limits the method
sets, so the task file itself is never changed.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from physvec.runstore.store import list_runs
from physvec.qmp_bench.campaign import Campaign, TrialKey, TrialRecord, record_from_run
from physvec.qmp_bench.catalogue import BenchTask

NO_REPAIR = {"programming_iterations": 0, "scientific_iterations": 0}
METHODS: dict[str, tuple[str, dict[str, int]]] = {
    "physvec": ("physvec", {}), "one-shot": ("physvec", NO_REPAIR), "react": ("react", {}),
    "react-rag": ("react-rag", {})}
"""Benchmark method -> the `reproduce --method` it runs and the limits it imposes on the task."""
_REPRODUCE = "import sys\nfrom physvec.cli.main import reproduce_main\nsys.exit(reproduce_main(sys.argv[1:]))\n"


def method_task(campaign: Campaign, task: BenchTask, method: str) -> Path:
    """The campaign's copy of the task folder with the method's limits; returns its task file."""
    folder = campaign.folder / "tasks" / method / task.topic / task.id
    if not folder.is_dir():
        shutil.copytree(task.task_file.parent, folder)
        data = json.loads((folder / "task.json").read_text())
        data["limits"] = {**data.get("limits", {}), **METHODS[method][1]}
        (folder / "task.json").write_text(json.dumps(data, indent=1) + "\n")
    return folder / "task.json"


def run_trial(campaign: Campaign, task: BenchTask, key: TrialKey) -> TrialRecord:
    """One `reproduce` of the method's copy of the task; its record, appended to the campaign."""
    runs_dir = campaign.runs_dir(key)
    shutil.rmtree(runs_dir, ignore_errors=True)  # a trial killed before its record starts afresh
    started = time.monotonic()
    with (campaign.folder / "trials.log").open("a") as log:
        subprocess.run([sys.executable, "-c", _REPRODUCE, str(method_task(campaign, task, key.method)),
                        "--model", key.model, "--runs-dir", str(runs_dir), "--method", METHODS[key.method][0]],
                       stdout=log, stderr=log, check=False)
    runs = list_runs(runs_dir)
    if not runs:
        raise RuntimeError(f"{key.task} trial {key.trial}: reproduce left no run (see {campaign.folder}/trials.log)")
    record = record_from_run(runs[-1], key, time.monotonic() - started)
    campaign.append(record)
    return record


def run_campaign(campaign: Campaign, tasks: list[BenchTask], method: str, model: str, trials: int, jobs: int,
                 progress: Callable[[TrialRecord, int, int], None] | None = None) -> list[TrialRecord]:
    """Every missing trial of ``method`` on ``tasks``, ``jobs`` at a time; the new records."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; methods: {', '.join(METHODS)}")
    by_name = {task.name: task for task in tasks}
    keys = campaign.pending([TrialKey(task.name, method, model, trial) for task in tasks for trial in range(trials)])
    records: list[TrialRecord] = []
    with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
        for record in pool.map(lambda key: run_trial(campaign, by_name[key.task], key), keys):
            records.append(record)
            if progress is not None:
                progress(record, len(records), len(keys))
    return records
