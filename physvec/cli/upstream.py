"""`qmp-bench upstream convert|status|run`: the published QMP-Bench read as it is, converted, and run."""

from __future__ import annotations

import argparse
import fnmatch
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from physvec.campaigns.executor import ExecutorUnavailable
from physvec.cli.campaign_options import campaign_executor, executor_problem
from physvec.qmp_bench.campaign import Campaign, TrialRecord
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.qmp_bench.runner import run_campaign
from physvec.qmp_bench.upstream import (
    compile_task, conversion_rows, read_upstream, status_rows, topic_of, upstream_files,
)
from physvec.taskfiles.default_rubric import NO_PUBLISHED_RUBRIC
from physvec.taskfiles.loading import InputFileError
from physvec.taskfiles.substitution import SubstitutionError, parse_substitutions

EXIT_BAD_INPUT = 2


def upstream_main(arguments: argparse.Namespace, console: Console) -> int:
    if not upstream_files(arguments.dataset):
        console.print(f"qmp-bench upstream: no task files under {arguments.dataset} (give a checkout's root or its "
                      "Paper_dataset/, a copy holding tasks/<topic>/, or one task file)")
        return EXIT_BAD_INPUT
    if arguments.upstream_command == "convert":
        return _convert(arguments.dataset, console)
    if arguments.upstream_command == "status":
        return _status(arguments.dataset, Campaign(arguments.campaign), console)
    return _run(arguments, console)


def _convert(dataset: Path, console: Console) -> int:
    table = Table("task", "check", "prose", "derived obligation", title="upstream checks and what they became")
    rows = conversion_rows(dataset)
    for task, row in rows:
        derived = row.derived if row.converted else f"kept as prose: {row.reason}"
        table.add_row(task, row.source, escape(row.prose[:160]), escape(derived))
    console.print(table)
    converted = sum(row.converted for _, row in rows)
    console.print(f"{converted} of {len(rows)} checks became code; the rest stay prose and are listed above")
    return 0


def _status(dataset: Path, campaign: Campaign, console: Console) -> int:
    table = Table("task", "loads", "checks converted", "runnable without a model", "last verdict",
                  title=f"published QMP-Bench at {dataset}")
    rows = status_rows(dataset, campaign.records() if campaign.records_file.is_file() else [])
    for row in rows:
        table.add_row(row.task, escape(row.loads), row.converted, escape(row.runnable), row.verdict)
    console.print(table)
    defaulted = sum(NO_PUBLISHED_RUBRIC in row.loads for row in rows)
    console.print(f"{sum(row.loads.startswith('yes') for row in rows)} of {len(rows)} load as they are "
                  f"({defaulted} with the default rubric: upstream published none); "
                  f"{sum(row.runnable.startswith('yes') for row in rows)} run without a model")
    return 0


def _run(arguments: argparse.Namespace, console: Console) -> int:
    try:
        substitutions = parse_substitutions(arguments.substitute)
    except SubstitutionError as error:
        console.print(f"qmp-bench upstream: {error}")
        return EXIT_BAD_INPUT
    problem = "--trials must be at least 1" if arguments.trials < 1 else executor_problem(arguments)
    if problem:
        console.print(f"qmp-bench upstream: {problem}")
        return EXIT_BAD_INPUT
    compiled_root = arguments.out / "compiled"
    chosen = [path for path in upstream_files(arguments.dataset)
              if fnmatch.fnmatch(f"{topic_of(path)}/{path.name}", arguments.tasks)]
    if not chosen:
        console.print(f"qmp-bench upstream: no task matches {arguments.tasks!r}")
        return EXIT_BAD_INPUT
    for path in chosen:
        try:
            compile_task(read_upstream(path), compiled_root, substitutions)
        except (InputFileError, SubstitutionError) as error:
            console.print(f"qmp-bench upstream: {path.name} cannot be compiled: {error}")
            return EXIT_BAD_INPUT
    campaign = Campaign(arguments.out)

    def progress(record: TrialRecord, done: int, total: int) -> None:
        console.print(f"[{done}/{total}] {record.task} trial {record.trial}: {record.verdict}, {record.seconds:.0f} s")

    try:
        with campaign_executor(arguments, console, "qmp-bench upstream run") as (executor, bar):
            run_campaign(campaign, bench_tasks("*", root=compiled_root), arguments.method, arguments.model,
                         arguments.trials, executor, progress, bar)
    except ExecutorUnavailable as error:
        console.print(f"qmp-bench upstream: {error}", markup=False)
        return EXIT_BAD_INPUT
    return _status(arguments.dataset, campaign, console)
