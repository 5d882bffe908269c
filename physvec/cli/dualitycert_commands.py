"""The work behind each `dualitycert` command (the parser, in physvec.cli.dualitycert, imports this only once
a command is chosen, so `dualitycert --help` loads no checker)."""

from __future__ import annotations

import argparse
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console
from rich.table import Table

from physvec.cli.campaign_options import campaign_executor, executor_problem
from physvec.cli.display import print_certificate
from physvec.cli.dualitycert import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.theory import MalformedTheory, parse_claim, parse_theory, read_json

if TYPE_CHECKING:
    from physvec.agents.dualitycert_repair import RepairRun


def _verify(arguments: argparse.Namespace) -> int:
    # the obligations (networkx among them) load only here: `dualitycert dualize` needs none of them
    from physvec.verifiers.dualitycert.registry import FINAL, INTERACTION, Settings, certify

    claim = parse_claim(read_json(arguments.claim))
    settings = Settings(level=(FINAL if arguments.final else INTERACTION).level, audits=arguments.audits)
    certificate = certify(claim, settings)
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        print_certificate(Console(), arguments.claim.name, certificate)
    return EXIT_CERTIFIED if certificate.verdict is Verdict.CERTIFIED else EXIT_NOT_CERTIFIED


def _dualize(arguments: argparse.Namespace) -> int:
    theory = parse_theory(read_json(arguments.theory))
    print(dualize(theory, arguments.node).to_json(), end="")
    return 0


def _generate(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.dualitycert.fixtures import MANIFEST, FixtureConfig, generate

    if arguments.per_class < 0:
        raise MalformedTheory(["--per-class must be 0 (every candidate) or more"])
    manifest = generate(FixtureConfig(seed=arguments.seed, per_class=arguments.per_class), arguments.out)
    table = Table("class", *manifest["attrition"]["drop_w_term"], title=f"{len(manifest['fixtures'])} fixtures")
    for kind, row in manifest["attrition"].items():
        table.add_row(kind, *(str(value) for value in row.values()))
    console = Console()
    console.print(table)
    for row in manifest["dropped"]:
        if row["reason"] in ("verifier_miss", "interaction_miss", "unlabelled"):
            console.print(f"{row['reason']}: {row['cell']} {row['perturbation']}: {row['detail']}", markup=False)
    print(f"wrote {arguments.out / MANIFEST}")
    return 0


def _repair_run(arguments: argparse.Namespace) -> RepairRun:
    from physvec.agents.dualitycert_repair import RepairRun
    from physvec.runstore.records import CampaignFolderRefused, campaign_folder

    settings = {"policy": arguments.policy, "model": arguments.model, "trials": arguments.trials,
                "fixtures": str(arguments.fixtures.resolve()), "from_runs": arguments.from_runs}
    try:
        return RepairRun(campaign_folder(arguments.runs_dir / arguments.run_id, settings, arguments.resume))
    except CampaignFolderRefused as error:
        raise MalformedTheory([str(error)]) from None


def _repair(arguments: argparse.Namespace) -> int:
    from physvec.agents.dualitycert_repair import PORTFOLIO, RepairRun, portfolio

    if arguments.trials < 1:
        raise MalformedTheory(["--trials must be at least 1"])
    if (arguments.policy == "portfolio") != bool(arguments.from_runs):
        raise MalformedTheory(["--from-runs SS GR VF goes with --policy portfolio, and only with it"])
    if arguments.policy != "portfolio" and not arguments.model:
        raise MalformedTheory(["--model is required for a policy that asks a model"])
    problem = executor_problem(arguments)
    if problem:
        raise MalformedTheory([problem])
    console = Console()
    if arguments.policy == "portfolio":
        run = _repair_run(arguments)
        recorded = {name: RepairRun(arguments.runs_dir / run_id).episodes.read()
                    for name, run_id in zip(PORTFOLIO, arguments.from_runs, strict=True)}
        for episode in portfolio(recorded, run.run_id):
            run.episodes.append(episode)
    else:
        run = _repair_policy(arguments, console)
    finished = run.finished().values()
    certified = sum(e.outcome == "certified" for e in finished)
    console.print(f"run {run.run_id}: {certified}/{len(finished)} episodes certified; records in {run.folder}")
    return 0


def _repair_policy(arguments: argparse.Namespace, console: Console) -> RepairRun:
    """Every episode the policy's run lacks, on the executor the options name (the run folder is made only
    once the executor is up, so a bad --scheduler leaves no run behind)."""
    from physvec.agents.dualitycert_repair import POLICIES, run_policy
    from physvec.agents.episode_model import EpisodeModel
    from physvec.agents.model_client import ModelClient
    from physvec.agents.providers import ModelSpecError, ProviderSettings, make_chat_model, normalise_spec
    from physvec.campaigns.executor import ExecutorUnavailable
    from physvec.runstore.transcript import Transcript
    from physvec.verifiers.dualitycert.fixtures import load_fixtures

    try:
        chat_model = make_chat_model(normalise_spec(arguments.model), ProviderSettings())
    except ModelSpecError as error:
        raise MalformedTheory([str(error)]) from None
    fixtures = load_fixtures(arguments.fixtures)
    try:
        with campaign_executor(arguments, console, f"dualitycert {arguments.policy}") as (executor, bar):
            run = _repair_run(arguments)
            shared = arguments.executor == "local" and (arguments.jobs or 1) == 1
            model = ModelClient(chat_model, Transcript(run.folder / "transcript.jsonl"), arguments.token_budget) \
                if shared else EpisodeModel(normalise_spec(arguments.model), ProviderSettings(), arguments.token_budget)
            run_policy(run, POLICIES[arguments.policy], fixtures, arguments.trials, model,
                       lambda e: console.print(f"{e.fixture} trial {e.trial}: {e.outcome} ({e.calls} calls, {e.tokens} tokens)"),
                       executor, bar)
    except ExecutorUnavailable as error:
        raise MalformedTheory([str(error)]) from None
    return run


def _analyze(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.dualitycert.analysis import analyze

    try:
        analyze(arguments.runs_dir, arguments.out, arguments.run_ids)
    except ValueError as error:
        raise MalformedTheory([str(error)]) from None
    print((arguments.out / "analysis.md").read_text(), end="")
    print(f"wrote {arguments.out}/analysis.md, analysis.json, analysis.png")
    return 0


def _bench(arguments: argparse.Namespace) -> int:
    from physvec.verifiers.dualitycert import memo
    from physvec.verifiers.dualitycert.bench import bench, bench_seed_cells
    from physvec.verifiers.dualitycert.fixtures import FixtureConfig, generate, load_fixtures

    console = Console()
    cells = Table("seed cell", *(f"L = {level}" for level in arguments.levels), "verdicts",
                  title="dualitycert bench: seed cells (seconds)")
    for row in bench_seed_cells(tuple(arguments.levels)):
        cells.add_row(row["cell"], *(str(row[f"seconds_L{level}"]) for level in arguments.levels),
                      ", ".join(row[f"verdict_L{level}"] for level in arguments.levels))
    console.print(cells)
    if arguments.seeds_only:
        return 0
    with tempfile.TemporaryDirectory(prefix="dualitycert-bench-") as scratch:
        folder = arguments.fixtures
        if folder is None:
            folder = Path(scratch)
            generate(FixtureConfig(), folder)
        claims = [claim for _, claim in load_fixtures(folder)]
    memo.clear()  # generation and the seed cells certified these theories: time the fixtures from nothing kept
    table = Table("level", "claims", "seconds", "claims/s", "share of time by check", title="dualitycert bench")
    for row in bench(claims):
        shares = ", ".join(f"{name} {share:.1%}" for name, share in row["share"].items() if share >= 0.005)
        table.add_row(str(row["level"]), str(row["claims"]), str(row["seconds"]), str(row["claims_per_second"]), shares)
    console.print(table)
    return 0


COMMANDS = {"verify": _verify, "analyze": _analyze, "bench": _bench, "dualize": _dualize, "generate-fixtures": _generate, "run-repair-loop": _repair}


