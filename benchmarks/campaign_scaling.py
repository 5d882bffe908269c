"""Campaigns on one machine against Dask, measured: wall time, identical records, scheduler cost per trial.

    python benchmarks/campaign_scaling.py [--task dft/szabo1996-h2-rhf] [--trials 8] [--episodes 200]
                                          [--skip-library]

Part 1 runs the same library campaign (`qmp-bench run --method physvec --model library`, ``--trials`` trials
of one task) three times: the local executor with one job, with two, and a Dask LocalCluster of two worker
processes; it prints each wall time and whether the three record files agree (every field but the
seconds and the run folder, which name the campaign).  Part 2 runs ``--episodes`` cheap trials (PHACT
episodes of a scripted model, a fraction of a second each) locally with two jobs and on the two-worker
LocalCluster (whose workers import the PHACT modules first, as this process has), and ``--episodes`` empty
Dask tasks: the difference per trial is what the scheduler costs.  Cluster start-up is timed apart: it is
paid once per campaign.
"""

from __future__ import annotations

import argparse
import importlib
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

from distributed import Client, wait
from rich.console import Console
from rich.table import Table

from physvec.agents.episode_model import EpisodeModel
from physvec.agents.phact_campaign import PhactRun
from physvec.agents.phact_campaign import run_campaign as run_phact
from physvec.agents.phact_proposer import LoopSettings
from physvec.agents.providers import ProviderSettings
from physvec.campaigns.dask_executor import TRIAL_RESOURCE, DaskExecutor, local_cluster
from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.qmp_bench.campaign import Campaign
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.qmp_bench.runner import run_campaign as run_bench
from physvec.verifiers.phact.corpus import corpus

WORKERS = 2
GOAL = "cutoff-at-1-khz"
REPLY = {"content": "", "tool_calls": [{"name": "propose_design", "args": {"values": {"capacitance_F": 1.59e-8}},
                                        "id": "c0"}]}
"""rc_filter/cutoff-at-1-khz certified in one round: 1/(2 pi 10 kOhm 15.9 nF) = 1001 Hz"""


def _timed(work: Callable[[], object]) -> tuple[object, float]:
    started = time.perf_counter()
    result = work()
    return result, time.perf_counter() - started


def _library_records(folder: Path) -> list[dict]:
    """The campaign's records without the fields that name the campaign or its timing."""
    records = [record.model_dump(exclude={"seconds", "run_dir"}) for record in Campaign(folder).records()]
    return sorted(records, key=lambda record: (record["task"], record["trial"]))


def library_campaigns(task: str, trials: int, executors: dict[str, Executor], scratch: Path) -> Table:
    table = Table("executor", "trials", "wall s", "records equal to local --jobs 1",
                  title=f"{trials}-trial library campaign of {task}")
    chosen = bench_tasks(task)
    reference: list[dict] | None = None
    for name, executor in executors.items():
        folder = scratch / name.replace(" ", "_")
        _, seconds = _timed(lambda: run_bench(Campaign(folder), chosen, "physvec", "library", trials, executor))
        records = _library_records(folder)
        reference = records if reference is None else reference
        table.add_row(name, str(len(records)), f"{seconds:.1f}", "yes" if records == reference else "NO")
    return table


def episode_campaigns(episodes: int, executors: dict[str, Executor], client: Client, scratch: Path) -> Table:
    scratch.mkdir(parents=True)
    replies = scratch / "replies.json"
    replies.write_text(json.dumps({"replies": [REPLY]}))
    goals = [(goal, domain) for _, goal, domain in corpus("rc_filter") if goal.id == GOAL]
    model = EpisodeModel(f"scripted:{replies}", ProviderSettings(), 10**6)
    table = Table("executor", "trials", "wall s", "ms per trial", title=f"{episodes} PHACT episodes (scripted model)")
    client.run(importlib.import_module, "physvec.agents.phact_campaign")  # this process has imported it already
    walls = {}
    for name, executor in executors.items():
        run = PhactRun(scratch / name.replace(" ", "_"))
        records, walls[name] = _timed(lambda: run_phact(run, goals, LoopSettings(rounds=2), episodes, model, None, executor))
        table.add_row(name, str(len(records)), f"{walls[name]:.1f}", f"{1000 * walls[name] / episodes:.1f}")
    futures, empty = _timed(lambda: wait([client.submit(int, index, pure=False) for index in range(episodes)]))
    table.add_row("dask, empty tasks", str(episodes), f"{empty:.1f}", f"{1000 * empty / episodes:.1f}")
    local, dask = walls.values()
    table.caption = (f"scheduler cost per trial: {1000 * (dask - local) / episodes:+.1f} ms against local --jobs {WORKERS} "
                     f"(2 workers), {1000 * empty / episodes:.1f} ms per empty task")
    return table


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--task", default="dft/szabo1996-h2-rhf")
    parser.add_argument("--trials", type=int, default=8)
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--skip-library", action="store_true", help="part 2 only")
    arguments = parser.parse_args()
    console = Console()
    with tempfile.TemporaryDirectory() as scratch:
        (cluster, client), start = _timed(lambda: _started_cluster())
        console.print(f"LocalCluster of {WORKERS} worker processes started in {start:.1f} s "
                      f"(dashboard {client.dashboard_link})")
        dask = DaskExecutor(client, TRIAL_RESOURCE)
        try:
            if not arguments.skip_library:
                console.print(library_campaigns(arguments.task, arguments.trials, {
                    "local --jobs 1": LocalExecutor(1), "local --jobs 2": LocalExecutor(WORKERS),
                    f"dask, {WORKERS} workers": dask}, Path(scratch) / "library"))
            console.print(episode_campaigns(arguments.episodes, {f"local --jobs {WORKERS}": LocalExecutor(WORKERS),
                                                                f"dask, {WORKERS} workers": dask}, client,
                                            Path(scratch) / "episodes"))
        finally:
            client.close()
            cluster.close()


def _started_cluster() -> tuple[object, Client]:
    cluster = local_cluster(WORKERS)
    client = Client(cluster)
    client.wait_for_workers(WORKERS)
    return cluster, client


if __name__ == "__main__":
    main()
