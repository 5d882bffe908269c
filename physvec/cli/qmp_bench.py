"""`qmp-bench`: run a method on benchmark tasks, resumably, and report the field's metrics."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from typing import TYPE_CHECKING

from physvec.cli.arguments import output_folder
from physvec.cli.conventions import CommandParser
from physvec.cli.campaign_options import (
    add_executor_options, campaign_executor, executor_problem, model_problem,
)

if TYPE_CHECKING:
    from rich.console import Console

    from physvec.qmp_bench.campaign import Campaign, TrialRecord
    from physvec.qmp_bench.faults import FaultCampaign

METHODS = ("physvec", "one-shot", "react", "react-rag")
"""The benchmark methods of physvec.qmp_bench.runner.METHODS (a test keeps them equal), named here so that
the parser loads no harness."""


def _parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="qmp-bench", description=__doc__.splitlines()[0].split(": ", 1)[1],
                           examples=('qmp-bench upstream status', "qmp-bench run --method physvec --model library --tasks 'qcmb/*'"))
    commands = parser.add_subparsers(dest="command", required=True)
    run = commands.add_parser("run", help="run the trials a campaign lacks, then write its results")
    run.add_argument("--method", required=True, choices=METHODS)
    run.add_argument("--model", required=True, help="model spec as for reproduce (library, openai:..., ...)")
    run.add_argument("--tasks", default="*", help="glob over topic/id (default: every task)")
    run.add_argument("--trials", type=int, default=1)
    add_executor_options(run)
    run.add_argument("--out", type=output_folder, default=Path("qmp-campaign"), help="campaign folder (resumed if present)")
    report = commands.add_parser("report", help="write results.csv, results.md and pass_at_k.png of a campaign")
    report.add_argument("campaign", type=output_folder)
    commands.add_parser("tasks", help="list the benchmark tasks")
    faults = commands.add_parser("faults", help="fault injection: verify every mutant of each task's reference script")
    faults.add_argument("--tasks", default="*", help="glob over topic/id (default: every task)")
    add_executor_options(faults)
    faults.add_argument("--out", type=output_folder, default=Path("qmp-faults"), help="benchmark folder (resumed if present)")
    _upstream_parser(commands)
    return parser


def _upstream_parser(commands: argparse._SubParsersAction) -> None:
    upstream = commands.add_parser("upstream", help="the published QMP-Bench, read as it is from a checkout or copy")
    actions = upstream.add_subparsers(dest="upstream_command", required=True)
    convert = actions.add_parser("convert", help="one row per upstream check: the obligation it became, or why not")
    convert.add_argument("dataset", type=Path, help="a checkout's Paper_dataset/, a copy with tasks/, or one file")
    status = actions.add_parser("status", help="one row per upstream task: loads, converted, runnable, last verdict")
    status.add_argument("dataset", type=Path)
    status.add_argument("--campaign", type=Path, default=Path("qmp-upstream"), help="campaign folder for verdicts")
    run = actions.add_parser("run", help="compile upstream tasks into runnable ones and run the trials they lack")
    run.add_argument("dataset", type=Path)
    run.add_argument("--tasks", default="*", help="globs over topic/file, comma-separated, e.g. 'qcmb/task_qcmb_1_*,dft_qc/*'; only these run")
    run.add_argument("--method", default="physvec", choices=METHODS)
    run.add_argument("--model", default="library", help="model spec as for reproduce (default: library)")
    run.add_argument("--trials", type=int, default=1)
    add_executor_options(run)
    run.add_argument("--substitute", action="append", default=[], metavar="ORIGINAL=USED",
                     help="e.g. itensors=tenpy, orca=pyscf (besides the overlay's own)")
    run.add_argument("--out", type=output_folder, default=Path("qmp-upstream"), help="campaign folder (resumed if present)")
    run.add_argument("--published-size", action="store_true",
                     help="run each task at the paper's size: a scaled overlay's own run there (its estimated cost is "
                          "printed first; hours on a laptop, one trial on a cluster); a task physvec runs scaled with no "
                          "such run is refused")
    report = actions.add_parser("report", help="per topic and method: pass@k, test pass rates, unknowns, tokens, cost")
    report.add_argument("records", type=Path, nargs="+", help="records.jsonl files or the campaign folders holding them")
    report.add_argument("--prices", type=Path, help='JSON: {"MODEL": {"input_per_mtok": X, "output_per_mtok": Y}}')
    report.add_argument("--k", type=int, action="append", help="pass@k to show (repeatable; default 1 and the most trials)")
    report.add_argument("--out", type=output_folder, default=Path("upstream-report"),
                        help="folder for upstream_report.csv/.md/.png (a page in physvec view)")


def main(argv: list[str] | None = None) -> int:
    arguments = _parser().parse_args(argv)
    from rich.console import Console

    from physvec.campaigns.executor import ExecutorUnavailable
    from physvec.qmp_bench.campaign import Campaign
    from physvec.qmp_bench.catalogue import bench_tasks
    from physvec.qmp_bench.faults import FaultCampaign
    from physvec.qmp_bench.runner import METHODS as LIMITS_BY_METHOD
    from physvec.qmp_bench.runner import run_campaign
    from physvec.runstore.lock import RunBusy
    from physvec.taskfiles.loading import load_task

    console = Console()
    if arguments.command == "upstream":
        from physvec.cli.upstream import upstream_main

        return upstream_main(arguments, console)
    if arguments.command == "tasks":
        for task in bench_tasks():
            console.print(task.name)
        return 0
    if arguments.command == "report":
        campaign = Campaign(arguments.campaign)
        return _report(campaign, campaign.records(), console)
    tasks = bench_tasks(arguments.tasks)
    if not tasks:
        console.print(f"qmp-bench: no task matches {arguments.tasks!r} (see qmp-bench tasks)")
        return 2
    if arguments.command == "faults":
        problem = executor_problem(arguments)
        if problem:
            console.print(f"qmp-bench: {problem}")
            return 2
        return _faults(FaultCampaign(arguments.out), tasks, arguments, console)
    problem = "--trials must be at least 1" if arguments.trials < 1 else executor_problem(arguments)
    if problem:
        console.print(f"qmp-bench: {problem}")
        return 2
    campaign = Campaign(arguments.out)

    def progress(record: TrialRecord, done: int, total: int) -> None:
        console.print(f"[{done}/{total}] {record.task} trial {record.trial}: {record.verdict}, "
                      f"scientific {'yes' if record.scientific_completion else 'no'}, {record.seconds:.0f} s")

    if arguments.model == "library" and LIMITS_BY_METHOD[arguments.method][0] != "physvec":
        console.print(f"qmp-bench: --method {arguments.method} needs a language model (--model library cannot repair)")
        return 2
    problem = model_problem(arguments.model, [load_task(task.task_file).task.id for task in tasks])
    if problem:
        console.print(f"qmp-bench: --model {arguments.model}: {problem}", markup=False)
        return 2
    try:
        with campaign_executor(arguments, console, "qmp-bench run") as (executor, bar):
            run_campaign(campaign, tasks, arguments.method, arguments.model, arguments.trials, executor, progress, bar)
    except (RunBusy, ExecutorUnavailable) as error:
        console.print(f"qmp-bench: {error}", markup=False)
        return 2
    return _report(campaign, campaign.records(), console)


def _faults(campaign: FaultCampaign, tasks: list, arguments: argparse.Namespace, console: Console) -> int:
    from physvec.campaigns.executor import ExecutorUnavailable
    from physvec.qmp_bench.faults import (
        UNMUTATED, FaultRecord, catalogue, current_records, escaped, run_faults, write_report,
    )

    def progress(record: FaultRecord, done: int, total: int) -> None:
        verdict = "detected" if record.detected else "passed"
        console.print(f"[{done}/{total}] {record.task} {record.fault_class} '{record.name}': {verdict}"
                      f"{', localised' if record.localised else ''}, {record.seconds:.0f} s")

    entries = catalogue(tasks)
    try:
        with campaign_executor(arguments, console, "qmp-bench faults") as (executor, bar):
            run_faults(campaign, entries, executor, progress, bar)
    except ExecutorUnavailable as error:
        console.print(f"qmp-bench: {error}", markup=False)
        return 2
    records = current_records(campaign, entries)
    for path in write_report(records, campaign.folder):
        console.print(f"wrote {path}")
    console.print((campaign.folder / "faults.md").read_text())
    false_alarms = [r for r in records if r.fault_class == UNMUTATED and r.detected]
    return 0 if not escaped(records) and not false_alarms else 1


def _report(campaign: Campaign, records: list[TrialRecord], console: Console) -> int:
    from physvec.qmp_bench.report import write_results

    if not records:
        console.print(f"qmp-bench: {campaign.folder} holds no records")
        return 2
    for path in write_results(records, campaign.folder):
        console.print(f"wrote {path}")
    console.print((campaign.folder / "results.md").read_text())
    return 0


if __name__ == "__main__":
    sys.exit(main())
