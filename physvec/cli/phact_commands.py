"""The work behind each `phact` command (the parser, in physvec.cli.phact, imports this only once a command
is chosen, so `phact --help` loads no engine)."""

from __future__ import annotations

import argparse
import contextlib
import fnmatch
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from pydantic import ValidationError
from rich.console import Console

from physvec.cli.campaign_options import campaign_executor, executor_problem
from physvec.cli.display import print_certificate
from physvec.cli.conventions import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.phact.contract import certify
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.domains import DOMAINS, Domain
from physvec.verifiers.phact.schema import Goal, MalformedInput, parse_design, parse_goal, read_json

if TYPE_CHECKING:
    from langchain_core.language_models import BaseChatModel

    from physvec.agents.model_client import ModelClient
    from physvec.agents.episode_model import EpisodeModel
    from physvec.agents.phact_campaign import PhactRun


def _certify(arguments: argparse.Namespace) -> int:
    goal, domain = parse_goal(read_json(arguments.goal, "goal"))
    design = parse_design(read_json(arguments.design, "design"))
    if design.goal != goal.id:
        raise MalformedInput(f"design.goal: {design.goal!r} is not the goal's id {goal.id!r}")
    certificate = certify(goal, domain, design)
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), goal.id, certificate)
        if certificate.impossibility:
            print(json.dumps({"impossibility": certificate.impossibility}, indent=1, default=str))
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _goals(arguments: argparse.Namespace) -> int:
    for goal, _ in _corpus_of(arguments.domain):
        written = "written impossible" if goal.impossible_because else "feasible"
        print(f"{goal.domain:<10} {goal.id:<34} {goal.kind:<13} {written}\n           {goal.statement}")
    return 0


def _run_folder(arguments: argparse.Namespace, settings: dict[str, object]) -> PhactRun:
    from physvec.agents.phact_campaign import PhactRun
    from physvec.runstore.records import CampaignFolderRefused, campaign_folder

    run_id = arguments.run_id or f"phact-{arguments.contract}-{arguments.feedback}"
    try:
        return PhactRun(campaign_folder(arguments.runs_dir / run_id, settings, arguments.resume))
    except (CampaignFolderRefused, ValueError, RecursionError) as error:  # ValueError: an unreadable run.json
        raise MalformedInput(f"{arguments.runs_dir / run_id}: {_named(error)}") from None


def _corpus_of(domain: str | None) -> list[tuple[Goal, Domain]]:
    """The corpus goals of ``domain`` (all when None); an unknown domain is refused by name."""
    if domain is not None and domain not in DOMAINS:
        raise MalformedInput(f"--domain: unknown domain {domain!r} (known: {', '.join(sorted(DOMAINS))})")
    return [(goal, engine) for _, goal, engine in corpus(domain)]


def _run(arguments: argparse.Namespace) -> int:
    from physvec.agents.phact_campaign import run_campaign
    from physvec.agents.phact_proposer import LoopSettings
    from physvec.agents.providers import (
        ModelSpecError,
        ProviderSettings,
        make_chat_model,
        normalise_spec,
    )
    from physvec.campaigns.executor import ExecutorUnavailable
    from physvec.verifiers.phact.tools import Contract

    if arguments.trials < 1:
        raise MalformedInput("--trials: must be at least 1")
    problem = executor_problem(arguments)
    if problem:
        raise MalformedInput(problem)
    try:
        loop = LoopSettings(Contract(arguments.contract), arguments.feedback, arguments.rounds, arguments.reprompts)
        chat_model = make_chat_model(normalise_spec(arguments.model), ProviderSettings(base_url=arguments.base_url))
    except (ValueError, ModelSpecError, RecursionError) as error:
        raise MalformedInput(f"run settings: {_named(error)}") from None
    goals = [(goal, domain) for goal, domain in _corpus_of(arguments.domain)
             if any(fnmatch.fnmatch(f"{goal.domain}/{goal.id}", glob) for glob in arguments.goals.split(","))]
    if not goals:
        raise MalformedInput(f"--goals: no goal matches {arguments.goals!r}")
    settings = {"model": normalise_spec(arguments.model), "contract": arguments.contract, "feedback": arguments.feedback,
                "goals": [goal.id for goal, _ in goals], "trials": arguments.trials, "rounds": arguments.rounds,
                "reprompts": arguments.reprompts}
    console = Console()
    try:
        with campaign_executor(arguments, console, "phact run") as (executor, bar):
            run = _run_folder(arguments, settings)  # made only once the executor is up: a bad --scheduler leaves no run
            with _reading(run.folder):
                run.finished()  # read once here, so that an unreadable record file is named, not a traceback
                model = _episode_model(arguments, run, chat_model)
            run_campaign(run, goals, loop, arguments.trials, model,
                         lambda e: console.print(f"{e.domain}/{e.goal} trial {e.trial}: {e.outcome} after {e.rounds} "
                                                 f"rounds{'  FALSE CERTIFICATE' if e.false_certificate else ''}"),
                         executor, bar)
    except ExecutorUnavailable as error:
        raise MalformedInput(f"run settings: {error}") from None
    return _write_report(run)


def _episode_model(arguments: argparse.Namespace, run: PhactRun, chat_model: BaseChatModel) -> ModelClient | EpisodeModel:
    """The run's one model client when episodes run one at a time here (the default), else what each
    episode needs to make its own wherever it runs."""
    from physvec.agents.model_client import ModelClient
    from physvec.agents.episode_model import EpisodeModel
    from physvec.agents.providers import ProviderSettings, normalise_spec
    from physvec.runstore.transcript import Transcript

    if arguments.executor == "local" and (arguments.jobs or 1) == 1:
        return ModelClient(chat_model, Transcript(run.folder / "transcript.jsonl"), arguments.token_budget)
    return EpisodeModel(normalise_spec(arguments.model), ProviderSettings(base_url=arguments.base_url),
                        arguments.token_budget)


def _named(error: BaseException) -> str:
    """An error while reading a file, said in one line."""
    if isinstance(error, UnicodeDecodeError):
        return f"a file is not UTF-8 text (byte {error.start})"
    if isinstance(error, RecursionError):
        return "a file holds JSON nested too deeply to read"
    if isinstance(error, ValidationError) and error.errors():
        first = error.errors()[0]
        return f"a record cannot be read: {first['msg']}".split("\n")[0][:200]
    return str(error).split("; use sys.set_int_max_str_digits")[0].split("\n")[0]


@contextlib.contextmanager
def _reading(folder: Path) -> Iterator[None]:
    """Reading a run folder's files: any way they cannot be read is bad input naming the folder."""
    try:
        yield
    except (UnicodeDecodeError, RecursionError, json.JSONDecodeError) as error:
        raise MalformedInput(f"run {folder}: {_named(error)}") from None
    except ValueError as error:  # an integer beyond Python's digit limit, a record that is no JSON object
        raise MalformedInput(f"run {folder}: unreadable ({_named(error)})") from None


def _write_report(run: PhactRun) -> int:
    """Every recorded episode is counted, infra faults included (a report never drops one silently)."""
    from physvec.runstore.records import SETTINGS_FILE
    from physvec.verifiers.phact.report import markdown, summarise

    with _reading(run.folder):
        episodes = list(run.latest().values())
        settings = json.loads((run.folder / SETTINGS_FILE).read_text())
    if not isinstance(settings, dict) or not {"contract", "feedback"} <= set(settings):
        raise MalformedInput(f"run {run.folder}: {SETTINGS_FILE} does not hold the run's settings")
    summary = summarise(episodes)
    text = markdown(summary, f"{run.run_id}: contract {settings['contract']}, feedback {settings['feedback']}")
    (run.folder / "summary.json").write_text(json.dumps(summary, indent=1) + "\n")
    (run.folder / "report.md").write_text(text)
    print(text, end="")
    print(f"wrote {run.folder}/report.md and summary.json")
    return 0


def _report(arguments: argparse.Namespace) -> int:
    from physvec.agents.phact_campaign import PhactRun
    from physvec.runstore.records import SETTINGS_FILE

    for folder in arguments.runs:
        if not (folder / SETTINGS_FILE).is_file():
            raise MalformedInput(f"runs: {folder} is not a phact run folder (no run.json)")
        _write_report(PhactRun(folder))
    return 0


def _adversaries(arguments: argparse.Namespace) -> int:
    from physvec.agents.phact_adversaries import ADVERSARIES, sweep
    from physvec.agents.phact_proposer import LoopSettings
    from physvec.verifiers.phact.report import rate
    from physvec.verifiers.phact.tools import Contract

    goals = _corpus_of(arguments.domain)
    lines = ["| contract | adversary | trials | certified | false certificates [Wilson 95%] | "
             "false impossibilities [Wilson 95%] | impossible, judge undecided |", "|---|---|---|---|---|---|---|"]
    console = Console()
    for contract in Contract:
        console.print(f"{contract.value}: {len(ADVERSARIES)} adversaries x {len(goals)} goals ...")
        for adversary, records in sweep(goals, LoopSettings(contract, rounds=arguments.rounds)).items():
            forged, false_impossible = (rate(sum(getattr(r, field) for r in records), len(records))
                                        for field in ("false_certificate", "false_impossible"))
            certified = sum(r.outcome == "certified" for r in records)
            undecided = sum(r.ground_truth == "undecided" for r in records)
            lines.append(f"| {contract.value} | {adversary} | {len(records)} | {certified} | "
                         f"{forged['count']} [{forged['wilson95'][0]:.3f}, {forged['wilson95'][1]:.3f}] | "
                         f"{false_impossible['count']} [{false_impossible['wilson95'][0]:.3f}, "
                         f"{false_impossible['wilson95'][1]:.3f}] | {undecided} |")
    table = "\n".join(lines) + "\n"
    print(table, end="")
    if arguments.out is not None:
        arguments.out.write_text(table)
    return 0


COMMANDS = {"certify": _certify, "goals": _goals, "run": _run, "report": _report, "adversaries": _adversaries}


