"""The work behind each `matpcr` command (physvec.cli.matpcr imports this only once a command is chosen, so
`matpcr --help` loads no oracle)."""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from physvec.cli.campaign_options import campaign_executor, executor_problem
from physvec.cli.display import print_certificate
from physvec.cli.conventions import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.matpcr.schema import CONSTRAINTS, SCHEMA_MODELS, MalformedInput, parse_claims_file, read_json

if TYPE_CHECKING:
    from physvec.agents.episode_model import EpisodeModel
    from physvec.agents.model_client import ModelClient
    from physvec.campaigns.executor import Executor
    from physvec.campaigns.progress import CampaignProgress


def _provider(name: str):  # -> ReferenceProvider
    """The offline snapshot, or the Materials Project when the user has the extra, a key and network."""
    import os

    from physvec.verifiers.matpcr.references import MaterialsProject, offline_snapshot

    if name == "offline":
        return offline_snapshot()
    if not os.environ.get("MP_API_KEY"):
        raise MalformedInput("--provider mp: set MP_API_KEY to your Materials Project key")
    try:
        return MaterialsProject(os.environ["MP_API_KEY"])
    except ImportError:
        raise MalformedInput("--provider mp: install the mp extra (pip install 'physvec[mp]')") from None


def _check(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.matpcr.oracles import certify

    claims = parse_claims_file(read_json(arguments.claims, "claims"))
    certificate = certify(claims, _provider(arguments.provider))
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), str(certificate.summary["item"]), certificate)
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _rates(text: str) -> tuple[float, ...]:
    try:
        rates = tuple(float(part) for part in text.split(","))
    except ValueError:
        raise MalformedInput(f"--rates: {text!r} is not a comma-separated list of numbers") from None
    if not rates or not all(0 < rate <= 1 for rate in rates):
        raise MalformedInput(f"--rates: every rate must lie in (0, 1], not {text!r}")
    return rates


def _validate(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.matpcr.injection import validate_all
    from physvec.verifiers.matpcr.references import offline_snapshot

    if arguments.n < 1:
        raise MalformedInput("--n: must be at least 1")
    families = tuple(dict.fromkeys(arguments.family)) if arguments.family else CONSTRAINTS
    rows = validate_all(arguments.n, arguments.seed, offline_snapshot(), families, _rates(arguments.rates))
    missed, injected = sum(row.false_negatives for row in rows), sum(row.injected for row in rows)
    if arguments.json:
        print(json.dumps({"rows": [row.as_row() for row in rows], "false_negatives": missed, "injected": injected},
                         indent=1))
    else:
        print("| family | injection rate | claims | false negatives (FN/injected) | false positives (FP/correct) "
              "| unknown |\n|---|---|---|---|---|---|")
        for row in rows:
            shown = row.as_row()
            print(f"| {row.family} | {row.rate:.0%} | {row.claims} | FN = {shown['FN']} | FP = {shown['FP']} | "
                  f"{row.unknown} |")
        print(f"false negatives: {missed} over {injected} injected violations"
              + ("" if missed == 0 else "  (an oracle certified a violation)"))
    return EXIT_CERTIFIED if missed == 0 else EXIT_NOT_CERTIFIED


def _draws(arguments: argparse.Namespace, families: tuple[str, ...]) -> list:
    """The items of a campaign, per type and seed; a bad count or a glob matching nothing is bad input."""
    from physvec.verifiers.matpcr.references import offline_snapshot
    from physvec.verifiers.matpcr.sampling import draw

    for flag in ("n", "seeds", "bootstrap", "rounds"):
        if getattr(arguments, flag, 1) < 1:
            raise MalformedInput(f"--{flag}: must be at least 1")
    try:
        return [d for family in families for seed in range(arguments.seeds)
                for d in draw(family, arguments.n, seed, offline_snapshot(), arguments.items)]
    except ValueError as error:
        raise MalformedInput(f"--items: {error}") from None


def _model_spec(arguments: argparse.Namespace) -> str:
    """The --model spec, checked here once (a bad one is bad input, not an error in every item)."""
    from physvec.agents.providers import ModelSpecError, ProviderSettings, make_chat_model, normalise_spec

    spec = normalise_spec(arguments.model)
    try:
        make_chat_model(spec, ProviderSettings(base_url=arguments.base_url))
    except ModelSpecError as error:
        raise MalformedInput(f"--model: {error}") from None
    return spec


def _model(arguments: argparse.Namespace, spec: str, folder: Path) -> ModelClient | EpisodeModel:
    """One model client that resumes the run's transcript when items run one at a time here (the default),
    else what each item needs to make its own wherever it runs."""
    from physvec.agents.episode_model import EpisodeModel
    from physvec.agents.model_client import ModelClient
    from physvec.agents.providers import ProviderSettings, make_chat_model
    from physvec.runstore.transcript import EventType, Transcript

    provider = ProviderSettings(base_url=arguments.base_url)
    if arguments.executor != "local" or (arguments.jobs or 1) > 1:
        return EpisodeModel(spec, provider, arguments.token_budget)
    transcript = Transcript(folder / "transcript.jsonl")
    served = sum(1 for event in transcript.events() if event.type is EventType.MODEL_CALL)
    return ModelClient(make_chat_model(spec, provider, already_served=served), transcript, arguments.token_budget)


@contextlib.contextmanager
def _campaign(arguments: argparse.Namespace, console: Console, default_id: str, settings: dict[str, object]
              ) -> Iterator[tuple[Path, ModelClient | EpisodeModel, Executor, CampaignProgress]]:
    """Where the campaign's items run, its progress bar, its folder (settings pinned in run.json) and its model.

    The folder is made only once the executor is up, so a --scheduler that does not answer leaves no run.
    """
    from physvec.campaigns.executor import ExecutorUnavailable
    from physvec.runstore.records import CampaignFolderRefused, campaign_folder

    problem = executor_problem(arguments)
    if problem:
        raise MalformedInput(problem)
    spec = _model_spec(arguments)
    try:
        with campaign_executor(arguments, console, f"matpcr {arguments.command}") as (executor, bar):
            try:
                folder = campaign_folder(arguments.runs_dir / (arguments.run_id or default_id),
                                         {"model": spec, **settings}, arguments.resume)
            except (CampaignFolderRefused, ValueError) as error:
                raise MalformedInput(str(error).split("\n")[0]) from None
            yield folder, _model(arguments, spec, folder), executor, bar
    except ExecutorUnavailable as error:
        raise MalformedInput(f"run settings: {error}") from None


def _write(folder, rows: list, text: str) -> int:
    (folder / "summary.json").write_text(json.dumps(rows, indent=1) + "\n")
    (folder / "report.md").write_text(text)
    print(text, end="")
    print(f"wrote {folder}/report.md and summary.json")
    return 0


def _evaluate(arguments: argparse.Namespace) -> int:
    from physvec.agents.matpcr_campaign import run_evaluation
    from physvec.agents.model_client import BudgetExhausted, ModelUnavailable
    from physvec.verifiers.matpcr.pcr import markdown, summarise
    from physvec.verifiers.matpcr.references import offline_snapshot

    families = tuple(dict.fromkeys(arguments.family)) if arguments.family else CONSTRAINTS
    draws = _draws(arguments, families)
    settings = {"families": list(families), "n": arguments.n, "seeds": arguments.seeds, "items": arguments.items,
                "model_extraction": arguments.model_extraction}
    console = Console()
    try:
        with _campaign(arguments, console, "matpcr-eval", settings) as (folder, model, executor, bar):
            records = run_evaluation(folder, draws, model, offline_snapshot(),
                                     lambda r: console.print(f"{r.item} seed {r.seed}: {r.consistent}/{r.checkable} "
                                                             "consistent", markup=False),
                                     arguments.model_extraction, executor, bar)
    except (BudgetExhausted, ModelUnavailable) as error:
        print(f"matpcr: evaluation stopped, the model could not answer: {error} (resume with --resume)")
        return EXIT_NOT_CERTIFIED
    rows = summarise(records, replicates=arguments.bootstrap)
    return _write(folder, rows, markdown(rows, f"{folder.name}: {len(records)} responses"))


def _cgsv(arguments: argparse.Namespace) -> int:
    from physvec.agents.matpcr_cgsv import run_cgsv
    from physvec.agents.model_client import BudgetExhausted, ModelUnavailable
    from physvec.verifiers.matpcr.cgsv_analysis import CONDITIONS, markdown, paired_rows
    from physvec.verifiers.matpcr.references import offline_snapshot

    families = tuple(dict.fromkeys(arguments.family)) if arguments.family else ("diffraction", "raman")
    draws = _draws(arguments, families)
    settings = {"families": list(families), "n": arguments.n, "seeds": arguments.seeds, "items": arguments.items,
                "rounds": arguments.rounds}
    console = Console()
    try:
        with _campaign(arguments, console, "matpcr-cgsv", settings) as (folder, model, executor, bar):
            records = run_cgsv(folder, draws, model, offline_snapshot(), arguments.rounds,
                               lambda r: console.print(f"{r.item} seed {r.seed}: {r.before.consistent}/"
                                                       f"{r.before.checkable} consistent before", markup=False),
                               executor, bar)
    except (BudgetExhausted, ModelUnavailable) as error:
        print(f"matpcr: revision stopped, the model could not answer: {error} (resume with --resume)")
        return EXIT_NOT_CERTIFIED
    pairs = {c: [(r.before, r.conditions[c].after) for r in records] for c in CONDITIONS}
    rows = paired_rows(pairs)
    return _write(folder, rows, markdown(rows, f"{folder.name}: {len(records)} items, up to {arguments.rounds} "
                                               "revision rounds"))


def _detector(arguments: argparse.Namespace) -> int:
    from physvec.agents.matpcr_campaign import RECORDS, ResponseRecord
    from physvec.runstore.records import SETTINGS_FILE, RecordFile
    from physvec.verifiers.matpcr.detector import Example, markdown, splits
    from physvec.verifiers.matpcr.references import offline_snapshot
    from physvec.verifiers.matpcr.synthetic import synthetic_examples

    if arguments.synthetic < 0:
        raise MalformedInput("--synthetic: must not be negative")
    examples: list[Example] = []
    for folder in arguments.runs:
        if not (folder / SETTINGS_FILE).is_file() or not (folder / RECORDS).is_file():
            raise MalformedInput(f"runs: {folder} is not a matpcr evaluate run (no {SETTINGS_FILE} and {RECORDS})")
        try:
            source = str(json.loads((folder / SETTINGS_FILE).read_text())["model"])
        except (ValueError, KeyError, TypeError):
            raise MalformedInput(f"runs: {folder}/{SETTINGS_FILE} does not name the run's model") from None
        examples += [Example(claim.context, claim.violated, record.constraint, source)
                     for record in RecordFile(folder / RECORDS, ResponseRecord).read() for claim in record.judged]
    if arguments.synthetic:
        examples += synthetic_examples(arguments.synthetic, arguments.seed, offline_snapshot())
    if not examples:
        raise MalformedInput("runs: no labelled claim to train on (give evaluate runs or --synthetic N)")
    sources = sorted({e.source for e in examples})
    text = markdown(splits(examples), f"violation detector: {len(examples)} claims from {', '.join(sources)}")
    print(text, end="")
    if arguments.out is not None:
        arguments.out.write_text(text)
    return 0


def _schemas(arguments: argparse.Namespace) -> int:
    arguments.out.mkdir(parents=True, exist_ok=True)
    for kind, model in SCHEMA_MODELS.items():
        target = arguments.out / f"{kind}.schema.json"
        target.write_text(json.dumps(model.model_json_schema(), indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(target)
    return 0


COMMANDS = {"check": _check, "validate-oracles": _validate, "evaluate": _evaluate, "cgsv": _cgsv, "detector": _detector,
            "schemas": _schemas}
