"""Starting, resuming and replaying runs: the glue between the CLI and the pipeline graph.

The graph is checkpointed in the run directory with durability "sync": measured with LangGraph 1.2,
the default "async" lost finished steps on a hard kill.
"""

from __future__ import annotations

import dataclasses
import sqlite3
from collections.abc import Callable
from contextlib import closing
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from langgraph.checkpoint.sqlite import SqliteSaver

from physvec.agents.baselines import build_react_graph
from physvec.agents.methods import METHODS, REACT_METHODS
from physvec.agents.model_client import ModelClient, RetryPolicy
from physvec.agents.pipeline import build_graph
from physvec.agents.providers import LIBRARY_SPEC, ProviderSettings, make_chat_model, normalise_spec
from physvec.agents.state import RunContext, Status
from physvec.runstore.lock import RunLock
from physvec.runstore.report import write_report
from physvec.runstore.store import RunDirectory, create_run, open_run
from physvec.runstore.transcript import Event, EventType
from physvec.taskfiles.loading import LoadedTask, load_task
from physvec.taskfiles.substitution import apply_substitutions
from physvec.verifiers.sandbox import SandboxPool

RECURSION_LIMIT = 500
Listener = Callable[[Event], None]


class RunInterrupted(Exception):
    """The user interrupted a run (Ctrl-C); it can be resumed from its last finished node."""

    def __init__(self, run: RunDirectory) -> None:
        super().__init__(f"run {run.run_id} interrupted")
        self.run = run


@dataclass(frozen=True)
class RunOutcome:
    """How a run ended, for the exit code and the final message."""

    run: RunDirectory
    status: str
    verdict: str | None

    @property
    def certified(self) -> bool:
        return self.status == Status.FINISHED and self.verdict == "certified"


def _context(run: RunDirectory, loaded: LoadedTask, model_spec: str, settings: ProviderSettings,
             retry: RetryPolicy, listener: Listener | None) -> RunContext:
    transcript = run.transcript()
    if listener is not None:
        transcript.subscribe(listener)
    already_served = sum(1 for event in transcript.events() if event.type is EventType.MODEL_CALL)
    model = make_chat_model(model_spec, settings, already_served=already_served, task_id=loaded.task.id)
    client = ModelClient(model, transcript, loaded.task.limits.token_budget, retry, notice_repeats=True,
                         profile=settings.profile)
    pool = SandboxPool().warm_for(run.path / "work", loaded.task.backend)
    return RunContext(run=run, task=loaded, transcript=transcript, client=client, pool=pool,
                      language_model=model_spec != LIBRARY_SPEC)


def _graph(ctx: RunContext, checkpointer: SqliteSaver, method: str) -> Any:
    """The run's graph for the method it was started with."""
    if method in REACT_METHODS:
        return build_react_graph(ctx, checkpointer, rag=method == "react-rag")
    return build_graph(ctx, checkpointer)


def _execute(ctx: RunContext, resume: bool) -> RunOutcome:
    """Drive the graph; a resume of a run killed before its first checkpoint starts from the beginning, and
    a run that stops on an exception says ``interrupted`` in run.json rather than ``running``."""
    config = {"configurable": {"thread_id": ctx.run.run_id}, "recursion_limit": RECURSION_LIMIT}
    method = ctx.run.metadata().get("method", "physvec")  # runs from before methods existed are physvec's
    with closing(ctx.pool), closing(sqlite3.connect(ctx.run.checkpoint_file, check_same_thread=False)) as connection:
        graph = _graph(ctx, SqliteSaver(connection), method)
        checkpoint = graph.get_state(config)
        if resume and checkpoint.values and not checkpoint.next:
            final = checkpoint.values
        else:
            if not checkpoint.values and method not in REACT_METHODS:
                # the first programming round's workers import while the Author writes
                ctx.pool.prestart()
            if resume:
                ctx.run.update_metadata(status="running")
            try:
                final = graph.invoke(None if resume and checkpoint.values else {"step": 0}, config,
                                     durability="sync")
            except KeyboardInterrupt:
                ctx.transcript.append(EventType.RUN_INTERRUPTED)
                ctx.run.update_metadata(status="interrupted")
                raise RunInterrupted(ctx.run) from None
            except BaseException:
                ctx.run.update_metadata(status="interrupted")
                raise
    write_report(ctx.run)
    return RunOutcome(run=ctx.run, status=final.get("status", "unknown"), verdict=final.get("verdict"))


def start_run(task_path: Path, model_spec: str, runs_dir: Path, settings: ProviderSettings = ProviderSettings(),
              retry: RetryPolicy = RetryPolicy(), listener: Listener | None = None,
              method: str = "physvec", substitutions: dict[str, str] | None = None,
              allow_reduced_isolation: bool = False) -> RunOutcome:
    """Create a run for a task file and drive it to the end with ``method`` (one of METHODS); ``substitutions``
    (original backend -> used backend) rewrite the task as run and are recorded in it and in run.json;
    ``allow_reduced_isolation`` (recorded too) lets a run whose programs could not be isolated be certified."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}: use one of {', '.join(METHODS)}")
    loaded = apply_substitutions(load_task(task_path), substitutions or {})
    model_spec = normalise_spec(model_spec)
    settings_fields: dict[str, object] = {"base_url": settings.base_url} if settings.base_url else {}
    if allow_reduced_isolation:
        settings_fields["allow_reduced_isolation"] = True
    run = create_run(runs_dir, loaded, model_spec, method=method, **settings_fields)
    with RunLock(run.path):
        ctx = _context(run, load_task(run.task_file), model_spec, settings, retry, listener)
        ctx.transcript.append(EventType.RUN_STARTED, task_id=loaded.task.id, model=model_spec)
        return _execute(ctx, resume=False)


def resume_run(runs_dir: Path, run_id: str, settings: ProviderSettings = ProviderSettings(),
               retry: RetryPolicy = RetryPolicy(), listener: Listener | None = None) -> RunOutcome:
    """Continue a killed run from its last finished node, with the model it started with; RunBusy when a
    live process holds the run."""
    run = open_run(runs_dir, run_id)
    with RunLock(run.path):
        run.verify_inputs()
        meta = run.metadata()
        if meta.get("base_url") and not settings.base_url:
            settings = dataclasses.replace(settings, base_url=meta["base_url"])
        ctx = _context(run, load_task(run.task_file), meta["model"], settings, retry, listener)
        ctx.transcript.append(EventType.RUN_RESUMED, model=meta["model"])
        return _execute(ctx, resume=True)


def replay_run(archived: Path, runs_dir: Path, listener: Listener | None = None) -> RunOutcome:
    """Re-verify an archived run without any model: its recorded replies (or, for a library run, the
    library proposer again), fresh checks, a new run."""
    archive = RunDirectory(archived)
    archive.verify_inputs()  # a replay re-checks the run as it was, not inputs someone rewrote since
    metadata = archive.metadata()
    library_run = metadata.get("model") == LIBRARY_SPEC
    return start_run(archived / "task.json", LIBRARY_SPEC if library_run else f"replay:{archived}", runs_dir,
                     listener=listener, method=metadata.get("method", "physvec"))
