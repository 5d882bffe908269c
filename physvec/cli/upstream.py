"""`qmp-bench upstream convert|status|run|report`: the published QMP-Bench read as it is, converted, run, and
compared as the paper compares methods."""

from __future__ import annotations

import argparse
import fnmatch
from collections import Counter
from pathlib import Path

from rich.console import Console
from rich.markup import escape
from rich.table import Table

from physvec.campaigns.executor import ExecutorUnavailable
from physvec.cli.campaign_options import campaign_executor, executor_problem, model_problem
from physvec.qmp_bench.campaign import Campaign, TrialRecord
from physvec.qmp_bench.catalogue import bench_tasks
from physvec.qmp_bench.runner import run_campaign
from physvec.qmp_bench.upstream import (
    UpstreamTask, at_published_size, compile_task, conversion_rows, read_upstream, status_rows, topic_of,
    upstream_files,
)
from physvec.qmp_bench.upstream_report import (
    ReportInputError, Spread, UpstreamReport, build_report, load_records, read_prices, skipped_lines, unknown_lines,
    write_outputs,
)
from physvec.taskfiles.default_rubric import NO_PUBLISHED_RUBRIC
from physvec.taskfiles.loading import InputFileError, load_task
from physvec.taskfiles.substitution import RUNNABLE_BACKENDS, SubstitutionError, parse_substitutions
from physvec.verifiers.programming.julia_runtime import locate_julia

EXIT_BAD_INPUT = 2
SUBSTITUTES = {"itensors": "tenpy", "orca": "pyscf"}
"""The substitution to suggest for a backend that cannot run here."""


def upstream_main(arguments: argparse.Namespace, console: Console) -> int:
    if arguments.upstream_command == "report":
        return _report(arguments, console)
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


def unrunnable_backends(backends: Counter[str]) -> str | None:
    """Why tasks with these demanded backends (and their counts) cannot run here without a substitution the user
    did not give, or None.  physvec never switches a backend by itself: ORCA has no script contract, and ITensors
    needs Julia."""
    missing = {backend: count for backend, count in backends.items() if backend not in RUNNABLE_BACKENDS}
    if backends.get("itensors") and locate_julia().missing:
        missing["itensors"] = backends["itensors"]
    if not missing:
        return None
    counts = ", ".join(f"{count} demand {backend}" for backend, count in sorted(missing.items()))
    asks = ",".join(f"{backend}={SUBSTITUTES[backend]}" for backend in sorted(missing))
    return (f"of the chosen tasks, {counts}, which cannot run here; physvec never switches a backend by itself: "
            f"add --substitute {asks} (recorded in every run), or choose --tasks without them")


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
    patterns = [pattern.strip() for pattern in arguments.tasks.split(",") if pattern.strip()]
    chosen = [path for path in upstream_files(arguments.dataset)
              if any(fnmatch.fnmatch(f"{topic_of(path)}/{path.name}", pattern) for pattern in patterns)]
    if not chosen:
        console.print(f"qmp-bench upstream: no task matches {arguments.tasks!r}")
        return EXIT_BAD_INPUT
    from physvec.agents.providers import LIBRARY_SPEC

    backends: Counter[str] = Counter()
    used: set[str] = set()
    names: set[str] = set()
    for path in chosen:
        try:
            upstream = read_upstream(path)
            if arguments.published_size:
                upstream = _at_published_size(upstream, console)
            task_file = compile_task(upstream, compiled_root, substitutions,
                                     overlay_substitutions=arguments.model == LIBRARY_SPEC)
        except (InputFileError, SubstitutionError, ValueError) as error:
            console.print(f"qmp-bench upstream: {path.name} cannot be compiled: {error}")
            return EXIT_BAD_INPUT
        loaded = load_task(task_file).task
        names.add(f"{topic_of(path)}/{loaded.id}")
        backends[loaded.backend] += 1
        used.update(loaded.substitutions)
    if unused := [f"{original}={used_by}" for original, used_by in substitutions.items() if original not in used]:
        console.print(f"qmp-bench upstream: note: --substitute {', '.join(unused)} changes none of the chosen tasks "
                      "(each task takes only the substitutions of the backends it uses or names)", markup=False)
    problem = unrunnable_backends(backends)
    if problem:
        console.print(f"qmp-bench upstream: {problem}", markup=False)
        return EXIT_BAD_INPUT
    problem = model_problem(arguments.model, sorted(name.split("/", 1)[1] for name in names))
    if problem:
        console.print(f"qmp-bench upstream: --model {arguments.model}: {problem}", markup=False)
        return EXIT_BAD_INPUT
    campaign = Campaign(arguments.out)

    def progress(record: TrialRecord, done: int, total: int) -> None:
        console.print(f"[{done}/{total}] {record.task} trial {record.trial}: {record.verdict}, {record.seconds:.0f} s")

    try:
        with campaign_executor(arguments, console, "qmp-bench upstream run") as (executor, bar):
            tasks = [task for task in bench_tasks("*", root=compiled_root) if task.name in names]
            run_campaign(campaign, tasks, arguments.method, arguments.model,
                         arguments.trials, executor, progress, bar)
    except ExecutorUnavailable as error:
        console.print(f"qmp-bench upstream: {error}", markup=False)
        return EXIT_BAD_INPUT
    return _status(arguments.dataset, campaign, console)


def _at_published_size(upstream: UpstreamTask, console: Console) -> UpstreamTask:
    """The task at the paper's size: as it is where its overlay runs that size already, else the overlay's run at
    that size, with its estimated cost printed; ValueError where physvec knows no such run."""
    if upstream.overlay is not None and upstream.overlay.published_size:
        return upstream
    moved = at_published_size(upstream)
    full = upstream.overlay.at_published_size
    console.print(f"{upstream.name} at its published size ({moved.overlay.size}): about {full.estimated_minutes:.0f} "
                  f"minutes a run on a 2-core machine ({full.estimate})", markup=False)
    return moved


def _report(arguments: argparse.Namespace, console: Console) -> int:
    """The comparison table of the records, printed and written (CSV, markdown, figure) into --out."""
    if any(k < 1 for k in arguments.k or ()):
        console.print("qmp-bench upstream report: --k must be at least 1")
        return EXIT_BAD_INPUT
    try:
        prices = read_prices(arguments.prices) if arguments.prices else None
        report = build_report(load_records(arguments.records), tuple(arguments.k) if arguments.k else None, prices)
        written = write_outputs(report, arguments.records, arguments.out)
    except ReportInputError as error:
        console.print(f"qmp-bench upstream report: {error}", markup=False)
        return EXIT_BAD_INPUT
    console.print(report_table(report, priced=prices is not None))
    for line in skipped_lines(report) + unknown_lines(report):
        console.print(line, markup=False)
    if report.unreadable:
        console.print(f"{len(report.unreadable)} trials' run folders could not be read: their tests count as not "
                      "passed and their token split (and cost) is unknown", markup=False)
    console.print(f"wrote {', '.join(str(path) for path in written)}", markup=False)
    return 0


def _spread(spread: Spread) -> str:
    if spread.mean is None or spread.max is None:
        return "-"
    return f"{_number(spread.mean)} / {_number(spread.max)}"


def _number(value: float) -> str:
    """Token counts in whole thousands-separated numbers (14,943, not 1.494e+04); seconds and iterations short."""
    return f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}"


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}"


def report_table(report: UpstreamReport, priced: bool) -> Table:
    """The terminal table: a row per topic, method and model; spreads read mean / max."""
    table = Table("topic", "method", "model", "tasks", "trials",
                  *[f"exec pass@{k}" for k in report.k_values], "prog pass", "sci pass", "unknown",
                  "iterations", "tokens in", "tokens out", "wall s", *(["cost"] if priced else []),
                  title="upstream trials per topic and method (mean / max; unknown never counts as passed)")
    for row in report.rows:
        table.add_row(escape(row.topic), escape(row.method), escape(row.model), str(row.tasks), str(row.trials),
                      *[_rate(row.executable_pass_at[k]) for k in report.k_values],
                      _rate(row.programming_pass), _rate(row.scientific_pass), _rate(row.unknown_share),
                      _spread(row.iterations), _spread(row.tokens_in), _spread(row.tokens_out), _spread(row.seconds),
                      *(["-" if row.cost is None else f"{row.cost:.4f}"] if priced else []))
    return table
