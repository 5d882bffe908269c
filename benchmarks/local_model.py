"""A local language model drives physvec and the two baselines on the README example and published QMP-Bench tasks.

Qwen2.5-Coder-1.5B-Instruct (or SmolLM2-135M) is served by llama.cpp (xllamacpp) on loopback, offline, from the
PyPI packages `physvec local-model` assembles.  Each task runs once per method under the same budgets (tokens,
model wall time): physvec's verified pipeline, one-shot (the Author's first script judged with no repair) and
ReAct (repairs from execution errors alone).  Per run it prints the verdict, model calls, tokens, minutes per
node and the limit that ended it; then the published benchmark's metrics table (qmp_bench.report) per method.
Each run's record is appended to <out>/records.jsonl, so `qmp-bench upstream report <out>` compares them too.

The measure is waste, not success: a 1.5B model may never write a correct DMRG script, but no run may end
without a named reason, repeat an identical call, or go on after its model is gone; anything certified is
checked against exact diagonalisation or sealed reference data by the verifiers themselves.

    python benchmarks/local_model.py [--model qwen2.5-coder-1.5b|smollm2] [--tasks readme,qcmb/task_qcmb_1_1.json,...]
        [--methods physvec,one-shot,react] [--token-budget N] [--wall-budget S] [--sandbox-wall S] [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import time
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from rich.console import Console
from rich.table import Table

from physvec.agents.local_model import local_model, serve
from physvec.cli.main import reproduce_main
from physvec.qmp_bench.campaign import Campaign, TrialKey, TrialRecord, record_from_run
from physvec.qmp_bench.report import write_results
from physvec.qmp_bench.runner import METHODS
from physvec.qmp_bench.upstream import compile_task, read_upstream
from physvec.runstore.store import RunDirectory, list_runs
from physvec.runstore.transcript import EventType, read_events

PROJECT = Path(__file__).resolve().parents[1]
README_EXAMPLE = PROJECT / "examples" / "heisenberg_chain" / "task.json"
SHARED_TASKS = PROJECT.parent / "shared" / "data" / "upstream_qmp" / "tasks"
DEFAULT_TASKS = ("readme", "qcmb/task_qcmb_1_1.json", "qcmb/task_qcmb_1_2.json", "nnwf/task_nnwf_4_6.json",
                 "dmrg/task_dmrg_2_2.json", "dmrg/task_dmrg_7_2.json")
"""the README example and five published figures the verifier library reproduces (the Julia-only DMRG tasks run
with TeNPy in ITensors' place, as --substitute itensors=tenpy asks)"""
SUBSTITUTIONS = {"itensors": "tenpy"}
"""asked for the DMRG topic only: a substitution names a backend the task uses"""


@dataclass(frozen=True)
class RunSummary:
    """One run as the waste table reads it."""

    task: str
    method: str
    verdict: str
    status: str
    calls: int
    repeated_replies: int
    tokens: int
    minutes_per_node: dict[str, float]
    ended_by: str
    minutes: float


def task_file(name: str, out: Path) -> Path:
    """The README example as it ships, or a published task compiled with physvec's overlay and substitutions."""
    if name == "readme":
        return README_EXAMPLE
    topic, file = name.split("/")
    substitutions = SUBSTITUTIONS if topic == "dmrg" else {}
    return compile_task(read_upstream(SHARED_TASKS / topic / file), out / "compiled", substitutions,
                        overlay_substitutions=False)


def method_copy(task: Path, method: str, out: Path) -> Path:
    """A copy of the task folder with the benchmark method's limits (one-shot: no repairs)."""
    folder = out / "tasks" / method / task.parent.name
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(task.parent, folder)
    data = json.loads((folder / "task.json").read_text())
    data["limits"] = {**data.get("limits", {}), **METHODS[method][1]}
    (folder / "task.json").write_text(json.dumps(data, indent=1) + "\n")
    return folder / "task.json"


def summarise(run: RunDirectory, task: str, method: str, minutes: float) -> RunSummary:
    events = list(read_events(run.transcript_file))
    per_node: dict[str, float] = defaultdict(float)
    for event in events:
        if event.type is EventType.NODE_FINISHED:
            per_node[event.node or "?"] += event.data["seconds"] / 60
    metadata = run.metadata()
    return RunSummary(task, method, str(metadata.get("verdict")), str(metadata.get("status")),
                      sum(e.type is EventType.MODEL_CALL for e in events),
                      sum(e.type is EventType.REPEATED_REPLY for e in events), int(metadata.get("tokens_used") or 0),
                      {node: round(m, 1) for node, m in per_node.items() if m >= 0.05},
                      str(metadata.get("ended_by")), minutes)


def run_one(task: Path, name: str, method: str, model: str, base_url: str, arguments: argparse.Namespace,
            console: Console) -> tuple[RunSummary, TrialRecord]:
    runs_dir = arguments.out / "runs" / method / name.replace("/", "_")
    shutil.rmtree(runs_dir, ignore_errors=True)
    copy = method_copy(task, method, arguments.out)
    data = json.loads(copy.read_text())
    data["limits"]["token_budget"] = arguments.token_budget
    if arguments.sandbox_wall is not None:
        data["limits"]["sandbox_wall_s"] = arguments.sandbox_wall
    copy.write_text(json.dumps(data, indent=1) + "\n")
    started = time.monotonic()
    console.print(f"[bold]{name}[/bold] with {method}: started", highlight=False)
    reproduce_main([str(copy), "--model", f"openai:{model}", "--base-url", base_url, "--timeout", "none",
                    "--wall-budget", str(arguments.wall_budget), "--runs-dir", str(runs_dir),
                    "--method", METHODS[method][0]])
    seconds = time.monotonic() - started
    (run,) = list_runs(runs_dir)
    record = record_from_run(run, TrialKey(name, method, model, 0), seconds)
    return summarise(run, name, method, seconds / 60), record


def waste_table(summaries: list[RunSummary], model: str) -> Table:
    table = Table("task", "method", "verdict", "calls", "repeats", "tokens", "minutes per node", "minutes",
                  "ended by", title=f"{model} on 2 cores, one run per task and method")
    for s in summaries:
        nodes = ", ".join(f"{node} {m:.1f}" for node, m in s.minutes_per_node.items())
        table.add_row(s.task, s.method, s.verdict, str(s.calls), str(s.repeated_replies), str(s.tokens), nodes,
                      f"{s.minutes:.1f}", s.ended_by)
    return table


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="qwen2.5-coder-1.5b", choices=["qwen2.5-coder-1.5b", "smollm2"])
    parser.add_argument("--tasks", default=",".join(DEFAULT_TASKS), help="comma-separated: readme, topic/file.json")
    parser.add_argument("--methods", default="physvec,one-shot,react", help=f"comma-separated, of {', '.join(METHODS)}")
    parser.add_argument("--token-budget", type=int, default=20_000, help="per run (default 20000)")
    parser.add_argument("--wall-budget", type=float, default=900.0, help="model seconds per run (default 900)")
    parser.add_argument("--sandbox-wall", type=float, default=None,
                        help="seconds each sandboxed program may run (default: the task's own limit)")
    parser.add_argument("--context", type=int, default=8192, help="the server's context tokens (default 8192)")
    parser.add_argument("--out", type=Path, default=Path("local-model-bench"))
    arguments = parser.parse_args()
    arguments.out.mkdir(parents=True, exist_ok=True)
    console = Console(width=None if sys.stdout.isatty() else 200)  # a log file keeps the table's columns
    names = [name for name in arguments.tasks.split(",") if name]
    methods = [method for method in arguments.methods.split(",") if method]
    unknown = [method for method in methods if method not in METHODS]
    if unknown:
        parser.error(f"unknown method(s) {', '.join(unknown)}")
    summaries: list[RunSummary] = []
    records: list[TrialRecord] = []
    with serve(local_model(arguments.model), port=0, context_tokens=arguments.context) as server:
        console.print(f"serving {server.name} at {server.base_url}", highlight=False)
        for name in names:
            task = task_file(name, arguments.out)
            for method in methods:
                summary, record = run_one(task, name, method, server.name, server.base_url, arguments, console)
                summaries.append(summary)
                records.append(record)
                Campaign(arguments.out).append(record)  # records.jsonl: `qmp-bench upstream report` reads it
                console.print(f"  {name} {method}: {summary.verdict}, {summary.calls} calls, {summary.tokens} tokens, "
                              f"{summary.minutes:.1f} min; ended by: {summary.ended_by}", highlight=False)
    console.print(waste_table(summaries, arguments.model))
    paths = write_results(records, arguments.out, k_values=(1,))
    console.print((arguments.out / "results.md").read_text(), markup=False)
    console.print(f"written: {', '.join(str(p) for p in paths)}", highlight=False)
    silent = [s for s in summaries if not s.ended_by or s.ended_by == "None"]
    return 1 if silent else 0


if __name__ == "__main__":
    raise SystemExit(main())
