"""The command line: ``reproduce`` and ``physvec``.

Each command imports the libraries it needs inside its own code path (a model client, the pipeline graph,
the sandbox, tables), so ``--help`` and the quick commands start at once.

Exit codes of ``reproduce``: 0 certified; 1 finished but not certified (failed, unknown, impossible,
budget_exhausted, model unavailable); 2 bad input (missing or invalid files, unknown model spec),
always with a clear message and no traceback; 130 interrupted (Ctrl-C), with the command to resume.
"""

from __future__ import annotations

import argparse
import dataclasses
import os
import sys
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING

from rich.console import Console

from physvec.agents.methods import METHODS
from physvec.cli import kb as kb_cli
from physvec.cli import local_model as local_model_cli
from physvec.cli.arguments import AUTO, add_runs_dir, output_folder, positive_seconds, seconds_none_or_auto
from physvec.cli.conventions import (
    EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_INTERRUPTED, EXIT_NOT_CERTIFIED, CommandParser,
)
from physvec.taskfiles.input_files import file_problem

if TYPE_CHECKING:
    from physvec.agents.model_client import RetryPolicy
    from physvec.agents.providers import ProviderSettings
    from physvec.agents.runner import RunOutcome

NO_MODEL_MESSAGE = (
    "no model configured: pass --model SPEC or set PHYSVEC_MODEL, where SPEC is openai:<model name> "
    "(with --base-url or OPENAI_BASE_URL for vLLM, Ollama, llama.cpp server, DeepSeek, Qwen), "
    "replay:<run dir> or scripted:<replies.json>; without a model, --model library composes the script from "
    "verified library functions when the task has a spec the library covers, and here it cannot: {problem}"
)

_errors = Console(stderr=True, highlight=False, soft_wrap=True)


def _reproduce_parser(prog: str = "reproduce") -> argparse.ArgumentParser:
    parser = CommandParser(prog=prog, description="Reproduce a paper figure and verify it.", examples=(
        f"{prog} tests/fixtures/library_tfim_task/task.json --model library",
        f"{prog} examples/heisenberg_chain/task.json --model openai:qwen2.5-coder-1.5b --base-url http://127.0.0.1:8080/v1",
        f"{prog} --resume RUN_ID --runs-dir runs"))
    parser.add_argument("task", nargs="?", type=Path, help="task.json to run")
    parser.add_argument("--model", help="model spec (default: $PHYSVEC_MODEL)")
    parser.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    parser.add_argument("--timeout", type=seconds_none_or_auto, default=120.0, metavar="S",
                        help="seconds one model request may take, none for a slow local model, or auto: measured "
                             "from the server's speed in this run (default 120)")
    parser.add_argument("--wall-budget", type=positive_seconds, default=None, metavar="S",
                        help="seconds all of the run's model calls together may take; the run then stops "
                             "budget_exhausted (default: no limit)")
    parser.add_argument("--retries", type=int, default=5, metavar="N",
                        help="attempts per model request before the run stops model_unavailable (default 5)")
    add_runs_dir(parser)
    parser.add_argument("--resume", metavar="RUN_ID", help="continue a killed run")
    parser.add_argument("--replay", metavar="RUN_DIR", type=Path, help="re-verify a finished run without a model")
    parser.add_argument("--substitute", action="append", default=[], metavar="ORIGINAL=USED",
                        help="run a task that demands a package this machine lacks on another backend, e.g. "
                             "itensors=tenpy or orca=pyscf (recorded in the run; leaves demanding ORIGINAL are "
                             "not applicable)")
    parser.add_argument("--allow-reduced-isolation", action="store_true",
                        help="accept a certified verdict where bubblewrap cannot isolate generated programs "
                             "(recorded in run.json; without it such a run ends unknown)")
    parser.add_argument("--method", default="physvec", choices=METHODS,
                        help="physvec's verified pipeline (default), or a ReAct baseline that sees only "
                             "execution errors (react-rag: with documentation retrieval)")
    return parser


def _bad_input(message: str) -> int:
    _errors.print(f"reproduce: {message}")
    return EXIT_BAD_INPUT


def _note_missing_backend(backend: str) -> None:
    """Say before the run that a demanded backend cannot run here: physvec never switches it by itself, so the run
    can end unknown at best unless the user asks for a substitute."""
    from physvec.verifiers.programming.julia_runtime import locate_julia

    missing = locate_julia().missing if backend == "itensors" else None
    if missing:
        _errors.print(f"reproduce: the task demands itensors, which cannot run here ({missing}); the run can end "
                      "unknown at best. To run it on TeNPy instead, add --substitute itensors=tenpy (recorded in the "
                      "run)", markup=False)


def reproduce_main(argv: list[str] | None = None, prog: str = "reproduce") -> int:
    arguments = _reproduce_parser(prog).parse_args(argv)
    if arguments.task is not None and (unreadable := file_problem(arguments.task)) is not None:
        return _bad_input(f"{arguments.task}: {unreadable}")  # before the pipeline's imports (seconds)
    from physvec.verifiers.library.composer import library_problem
    from physvec.agents.model_client import RetryPolicy
    from physvec.agents.preflight import ProviderUnreachable
    from physvec.agents.provider_profile import MeasuredTimeout, ProviderProfile
    from physvec.agents.providers import LIBRARY_SPEC, ModelSpecError, ProviderSettings, make_chat_model
    from physvec.agents.runner import RunInterrupted, replay_run, resume_run, start_run
    from physvec.cli.run_display import LiveDisplay
    from physvec.runstore.lock import RunBusy
    from physvec.runstore.store import RunNotFound, RunTampered, open_run
    from physvec.cli.validate import library_problems
    from physvec.taskfiles.loading import InputFileError, load_task
    from physvec.taskfiles.substitution import (
        RUNNABLE_BACKENDS, SubstitutionError, apply_substitutions, parse_substitutions,
    )

    chosen = [name for name in ("task", "resume", "replay") if getattr(arguments, name)]
    if len(chosen) != 1:
        return _bad_input("give exactly one of TASK, --resume RUN_ID or --replay RUN_DIR")
    if arguments.retries < 1:
        return _bad_input("--retries must be at least 1")
    measured = arguments.timeout == AUTO  # the client bounds each call itself; the HTTP client gets no default
    settings = ProviderSettings(base_url=arguments.base_url, timeout_s=None if measured else arguments.timeout,
                                profile=ProviderProfile(wall_budget_s=arguments.wall_budget,
                                                        timeout=MeasuredTimeout() if measured else arguments.timeout))
    retry = RetryPolicy(attempts=arguments.retries)
    console = Console(stderr=True)
    try:
        with LiveDisplay(console) as display:
            settings = dataclasses.replace(settings, profile=dataclasses.replace(settings.profile,
                                                                                 progress=display.on_progress))
            if arguments.resume:
                settings = _check_provider(open_run(arguments.runs_dir, arguments.resume).metadata()["model"],
                                           settings, retry)
                outcome = resume_run(arguments.runs_dir, arguments.resume, settings, retry, listener=display.on_event)
            elif arguments.replay:
                missing = [name for name in ("run.json", "transcript.jsonl") if not (arguments.replay / name).is_file()]
                if missing:
                    return _bad_input(f"{arguments.replay} is not a run directory (no {' or '.join(missing)})")
                outcome = replay_run(arguments.replay.resolve(), arguments.runs_dir, listener=display.on_event)
            else:
                spec = arguments.model or os.environ.get("PHYSVEC_MODEL")
                substitutions = parse_substitutions(arguments.substitute)
                # bad input is reported before any run exists
                loaded = apply_substitutions(load_task(arguments.task), substitutions)
                if mistakes := library_problems(loaded):  # a task mistake never reaches a model or a sandbox
                    raise InputFileError(mistakes)
                task = loaded.task
                if task.backend not in RUNNABLE_BACKENDS:
                    return _bad_input(f"the task demands {task.backend}, which has no script contract here; run it "
                                      f"on another backend with --substitute {task.backend}=pyscf (recorded in the run)")
                _note_missing_backend(task.backend)
                problem = library_problem(task.spec, task.backend) if spec in (None, "", LIBRARY_SPEC) else None
                if not spec:
                    if problem:
                        return _bad_input(NO_MODEL_MESSAGE.format(problem=problem))
                    _errors.print("reproduce: no model configured; the library proposer composes the script from "
                                  "verified library functions (--model library)")
                    spec = LIBRARY_SPEC
                if spec == LIBRARY_SPEC and problem:  # a run that ends unknown, so a campaign records the task
                    _errors.print(f"reproduce: --model library: {problem}; the run ends unknown", markup=False)
                if spec == LIBRARY_SPEC and arguments.method != "physvec":
                    return _bad_input(f"--method {arguments.method} needs a language model to repair its script")
                make_chat_model(spec, settings, task_id=task.id)
                settings = _check_provider(spec, settings, retry)
                outcome = start_run(arguments.task, spec, arguments.runs_dir, settings, retry, listener=display.on_event,
                                    method=arguments.method, substitutions=substitutions,
                                    allow_reduced_isolation=arguments.allow_reduced_isolation)
    except InputFileError as error:
        for problem in error.problems:
            _errors.print(f"reproduce: {problem}")
        return EXIT_BAD_INPUT
    except (ModelSpecError, ProviderUnreachable, RunNotFound, RunTampered, RunBusy, SubstitutionError) as error:
        return _bad_input(str(error))
    except RunInterrupted as interruption:
        runs_dir = interruption.run.path.parent
        _errors.print(f"reproduce: {interruption}; continue it with: "
                      f"reproduce --resume {interruption.run.run_id} --runs-dir {runs_dir}")
        return EXIT_INTERRUPTED
    return _report_outcome(outcome)


def _check_provider(spec: str, settings: ProviderSettings, retry: RetryPolicy) -> ProviderSettings:
    """Ask the model's endpoint once before the run (ProviderUnreachable says why not), say how long the run
    may wait on it, and return the settings with the context length the server states."""
    from physvec.agents.preflight import preflight, served_context_tokens
    from physvec.agents.provider_profile import MeasuredTimeout

    endpoint = preflight(spec, settings)
    if endpoint is None:
        return settings
    timeout = settings.profile.timeout
    if isinstance(timeout, MeasuredTimeout):
        _errors.print(f"reproduce: model {spec} at {endpoint}; each request's timeout is measured from the server's "
                      f"speed in this run (until the first reply: as if it wrote {timeout.first_output_tokens_per_s:g} "
                      f"tokens/s), {retry.attempts} attempts each")
    elif settings.timeout_s is None:
        wall = settings.profile.wall_budget_s
        bound = f"at most {wall:g} s of model calls in all" if wall else "no time limit (--wall-budget sets one)"
        _errors.print(f"reproduce: model {spec} at {endpoint}; requests wait as long as the server takes: {bound}")
    else:
        waiting = retry.attempts * settings.timeout_s + sum(retry.delay(k) for k in range(retry.attempts - 1))
        _errors.print(f"reproduce: model {spec} at {endpoint}; each request gets {settings.timeout_s:g} s and "
                      f"{retry.attempts} attempts: at most {waiting:g} s before the run stops model_unavailable")
    context = served_context_tokens(spec, settings)
    if context is not None:
        _errors.print(f"reproduce: the server's context is {context} tokens; each prompt is checked against it")
    return dataclasses.replace(settings, profile=dataclasses.replace(settings.profile, context_tokens=context))


def _report_outcome(outcome: RunOutcome) -> int:
    meta = outcome.run.metadata()
    ended_by = f", ended by: {meta['ended_by']}" if meta.get("ended_by") else ""
    _errors.print(f"run {outcome.run.run_id}: status {outcome.status}, verdict {outcome.verdict}{ended_by}")
    cause = meta.get("error")
    if cause and outcome.status != "finished":
        _errors.print(f"cause: {cause}")
    _errors.print(f"report: {outcome.run.report_file}")
    return EXIT_CERTIFIED if outcome.certified else EXIT_NOT_CERTIFIED


def _physvec_parser() -> argparse.ArgumentParser:
    parser = CommandParser(prog="physvec", description="physvec tools", examples=(
        "physvec validate examples/heisenberg_chain/task.json", "physvec runs list --runs-dir runs",
        "physvec view runs --port 8765"))
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("reproduce", help="the main job, as the reproduce command (physvec reproduce --help)",
                        add_help=False)  # dispatched before parsing: physvec_main
    validate = commands.add_parser("validate", help="check input files of every kind: tasks, rubrics, assertions, "
                                                    "libraries, reference data, DualityCert claims, PHACT files")
    validate.add_argument("files", nargs="+", type=Path)
    validate.add_argument("--kind", help="the files' kind, when it cannot be told from their keys "
                                         "(e.g. reference for reference data under another name)")
    runs = commands.add_parser("runs", help="list or show runs")
    runs_commands = runs.add_subparsers(dest="runs_command", required=True)
    listing = runs_commands.add_parser("list", help="one line per run")
    show = runs_commands.add_parser("show", help="timeline and certificates of one run")
    show.add_argument("run")
    add_runs_dir(runs, (listing, show), help="the folder holding the runs")
    view = commands.add_parser("view", help="browse runs and campaigns in a local, read-only web app")
    view.add_argument("folders", nargs="*", type=Path, default=[Path("runs")], metavar="RUNS_DIR",
                      help="folders holding run and campaign folders (default: runs)")
    view.add_argument("--port", type=int, default=8765, help="port on 127.0.0.1 (0: any free port; default 8765)")
    schemas = commands.add_parser("schemas", help="export the JSON Schemas of the input files")
    schemas.add_argument("--out", type=output_folder, default=Path("schemas"))
    verify = commands.add_parser("verify-script", help="run the Programming verifier on one script")
    verify.add_argument("script", type=Path)
    verify.add_argument("--backend", required=True, choices=["qiskit", "netket", "tenpy", "pyscf", "itensors"])
    verify.add_argument("--json", action="store_true", help="print the certificate as JSON")
    verify.add_argument("--workdir", type=Path, help="where sandbox programs run (default: a new temporary folder)")
    verify.add_argument("--timeout", type=float, default=600.0, help="wall-clock limit per program, seconds")
    new_task = commands.add_parser("new-task", help="scaffold task, rubric and assertion files to fill in")
    new_task.add_argument("name")
    new_task.add_argument("--dir", type=Path, default=Path("."), help="parent folder of the new task folder")
    new_task.add_argument("--backend", default="tenpy", choices=["qiskit", "netket", "tenpy", "pyscf", "itensors"])
    kb_cli.add_parser(commands)
    local_model_cli.add_parser(commands)
    for library in ("rubrics", "assertions"):
        library_parser = commands.add_parser(library, help=f"the {library[:-1]} templates a task can use")
        library_parser.add_subparsers(dest=f"{library}_command", required=True).add_parser(
            "list", help=f"every template in the installed {library}/ library and in ./{library}/")
    library = commands.add_parser("library", help="grow the verifier library with model-proposed functions")
    library_commands = library.add_subparsers(dest="library_command", required=True)
    library_build = library_commands.add_parser("build", help="propose, unit-test in the sandbox, keep what passes")
    library_build.add_argument("--backend", required=True, choices=["qiskit", "netket", "tenpy", "pyscf"])
    library_build.add_argument("--request", required=True, help="what functions to propose, in words")
    library_build.add_argument("--model", help="model spec (default: $PHYSVEC_MODEL)")
    library_build.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    library_build.add_argument("--out", type=output_folder, default=Path("verifiers/library/contrib"),
                               help="where accepted functions and the build log go")
    bench = commands.add_parser("bench", help="print performance figures: programming (the Programming verifier "
                                              "against plain runs), whole (a whole verification against one "
                                              "plain run of the script it certified)")
    bench.add_argument("suite", choices=["programming", "whole"])
    bench.add_argument("--scripts", type=Path, default=None, help="programming: folder of <backend>/reference.py "
                                                                  "scripts")
    bench.add_argument("--runs-dir", type=output_folder, default=None,
                       help="whole: keep the runs here (default: a temporary folder)")
    doctor = commands.add_parser("doctor", help="check isolation, backends and the model endpoint before a run")
    doctor.add_argument("--model", help="model spec to check (default: $PHYSVEC_MODEL)")
    doctor.add_argument("--base-url", help="OpenAI-compatible endpoint (default: $OPENAI_BASE_URL)")
    doctor.add_argument("--timeout", type=float, default=10.0, help="seconds the endpoint may take to answer")
    redteam = commands.add_parser("redteam", help="seeded adversarial trials against the checkers, judged by an "
                                                  "independent ground truth (exit 1 on a false verdict or crash)")
    redteam.add_argument("--checker", choices=["dualitycert", "phact", "pipeline", "matpcr"],
                         help="one checker (default: all)")
    redteam.add_argument("--trials", type=int, default=300, help="trials per checker, classes round-robin")
    redteam.add_argument("--seed", type=int, default=0)
    redteam.add_argument("--out", type=output_folder, default=Path("runs/redteam"), help="records.jsonl and redteam.md")
    return parser


def _verify_script(arguments: argparse.Namespace) -> int:
    from physvec.cli.display import print_certificate
    from physvec.verifiers.certificate import Verdict
    from physvec.verifiers.programming import programming_metrics, verify_script
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool

    if not arguments.script.is_file():
        _errors.print(f"physvec: {arguments.script}: no such file")
        return EXIT_BAD_INPUT
    if arguments.timeout <= 0:
        _errors.print("physvec: --timeout must be positive")
        return EXIT_BAD_INPUT
    workdir = (arguments.workdir or Path(tempfile.mkdtemp(prefix="physvec-verify-"))).resolve()
    pool = SandboxPool().warm_for(workdir, arguments.backend)
    try:
        certificate = verify_script(arguments.script.resolve(), arguments.backend, workdir, pool,
                                    SandboxLimits(wall_s=arguments.timeout))
    finally:
        pool.close()
    if arguments.json:
        print(certificate.model_dump_json(indent=2))
    else:
        console = Console()
        print_certificate(console, arguments.script.name, certificate)
        console.print(programming_metrics(certificate))
        console.print(f"sandbox folders: {workdir}", soft_wrap=True)
    return 0 if certificate.verdict is Verdict.CERTIFIED and certificate.is_complete else EXIT_NOT_CERTIFIED


def _validate(files: list[Path], kind: str | None) -> int:
    from physvec.cli.validate import KINDS, validate_input_file

    if kind is not None and kind not in KINDS:
        return _bad_input(f"unknown --kind {kind!r} (known: {', '.join(KINDS)})")
    problems = [problem for file in files for problem in validate_input_file(file, kind)]
    for problem in problems:
        print(problem)
    if not problems:
        print(f"{len(files)} file(s) valid")
    return EXIT_BAD_INPUT if problems else 0


def _runs_list(runs_dir: Path) -> int:
    from rich.table import Table

    from physvec.runstore.store import list_runs

    table = Table("status", "verdict", "tokens", box=None)
    table.add_column("run (its id names the start time and the task)", no_wrap=True)
    for run in list_runs(runs_dir):
        meta = run.metadata()
        table.add_row(run.status(), str(meta["verdict"]), str(meta.get("tokens_used", "")), run.run_id)
    Console().print(table)
    return 0


def _runs_show(runs_dir: Path, run_id: str) -> int:
    from rich.table import Table

    from physvec.cli.display import print_certificate
    from physvec.runstore.report import node_timeline
    from physvec.runstore.store import RunNotFound, open_run
    from physvec.runstore.transcript import read_events

    try:
        run = open_run(runs_dir, run_id)
    except RunNotFound as error:
        _errors.print(f"physvec: {error}")
        return EXIT_BAD_INPUT
    console = Console()
    meta = run.metadata()
    console.print(f"[bold]{run.run_id}[/]  task {meta['task_id']}  model {meta['model']}  "
                  f"status {run.status()}  verdict {meta['verdict']}  tokens {meta.get('tokens_used', 0)}")
    if meta.get("error"):
        console.print(f"cause: {meta['error']}", highlight=False, markup=False)
    if meta.get("metrics"):
        console.print("metrics: " + ", ".join(f"{key} {value}" for key, value in meta["metrics"].items()),
                      highlight=False)
    timeline = Table("step", "node", "attempt", "seconds", "tokens", "state", title="timeline")
    for row in node_timeline(read_events(run.transcript_file)):
        timeline.add_row(*(str(row[key]) for key in ("step", "node", "attempt", "seconds", "tokens", "state")))
    console.print(timeline)
    for name, certificate in run.certificates().items():
        print_certificate(console, name, certificate)
    console.print(f"report: {run.report_file}", soft_wrap=True)
    return 0


def _view(folders: list[Path], port: int) -> int:
    """Serve the viewer until Ctrl-C (the server and its templates are imported only here)."""
    from physvec.view.server import make_server

    missing = [str(folder) for folder in folders if not folder.is_dir()]
    if missing:
        _errors.print(f"physvec view: no such folder: {', '.join(missing)}")
        return EXIT_BAD_INPUT
    try:
        server = make_server(folders, port)
    except OSError as error:
        _errors.print(f"physvec view: cannot listen on 127.0.0.1:{port}: {error.strerror}; pick another --port")
        return EXIT_BAD_INPUT
    print(f"physvec view: {server.launch_url} (open this address: it carries this launch's token; Ctrl-C stops it)",
          flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()
    return 0


def _library_build(arguments: argparse.Namespace) -> int:
    from rich.markup import escape
    from rich.table import Table

    from physvec.agents.library_builder import build
    from physvec.agents.providers import LIBRARY_SPEC, ModelSpecError, ProviderSettings, make_chat_model

    spec = arguments.model or os.environ.get("PHYSVEC_MODEL")
    if not spec or spec == LIBRARY_SPEC:
        _errors.print("physvec: library build needs a language model: pass --model SPEC or set PHYSVEC_MODEL")
        return EXIT_BAD_INPUT
    try:
        model = make_chat_model(spec, ProviderSettings(base_url=arguments.base_url))
    except ModelSpecError as error:
        _errors.print(f"physvec: {error}")
        return EXIT_BAD_INPUT
    with tempfile.TemporaryDirectory(prefix="physvec-library-") as workdir:
        decisions = build(model, arguments.backend, arguments.request, arguments.out, Path(workdir))
    table = Table(title=f"library build ({arguments.backend})")
    for column in ("function", "role", "kept", "reason"):
        table.add_column(column)
    for decision in decisions:
        table.add_row(decision.function, decision.role or "", "yes" if decision.accepted else "no", escape(decision.reason))
    Console().print(table)
    print(f"accepted functions: {arguments.out / (arguments.backend + '.py')}; log: {arguments.out / 'build_log.jsonl'}")
    return 0


def physvec_main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["reproduce"]:  # its own parser, so that `physvec reproduce` and `reproduce` take the same flags
        return reproduce_main(argv[1:], prog="physvec reproduce")
    arguments = _physvec_parser().parse_args(argv)
    if arguments.command == "validate":
        return _validate(arguments.files, arguments.kind)
    if arguments.command == "new-task":
        from physvec.cli.scaffold import scaffold_task

        try:
            written = scaffold_task(arguments.dir / arguments.name, arguments.name, arguments.backend)
        except FileExistsError as error:
            _errors.print(f"physvec: {error}")
            return EXIT_BAD_INPUT
        for path in written:
            print(path)
        print("rubric and assertion templates to use in them: physvec rubrics list, physvec assertions list")
        return 0
    if arguments.command == "verify-script":
        return _verify_script(arguments)
    if arguments.command == "bench" and arguments.suite == "whole":
        from physvec.cli.bench_whole import bench_whole

        bench_whole(runs_dir=arguments.runs_dir)
        return 0
    if arguments.command == "bench":
        from physvec.cli.bench import DEFAULT_SCRIPTS, bench_programming

        bench_programming(arguments.scripts or DEFAULT_SCRIPTS)
        return 0
    if arguments.command == "kb":
        return kb_cli.run(arguments)
    if arguments.command == "local-model":
        return local_model_cli.run(arguments)
    if arguments.command == "library":
        return _library_build(arguments)
    if arguments.command == "doctor":
        from physvec.cli.doctor import run as doctor

        return doctor(arguments)
    if arguments.command == "redteam":
        from physvec.cli.redteam import run as redteam

        return redteam(arguments)
    if arguments.command in ("rubrics", "assertions"):
        from physvec.cli.libraries import list_templates

        return list_templates(arguments.command, Console())
    if arguments.command == "schemas":
        from physvec.taskfiles.schemas import export_schemas

        for path in export_schemas(arguments.out):
            print(path)
        return 0
    if arguments.command == "view":
        return _view(arguments.folders, arguments.port)
    if arguments.runs_command == "list":
        return _runs_list(arguments.runs_dir)
    return _runs_show(arguments.runs_dir, arguments.run)

