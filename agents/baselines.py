"""The ReAct baselines of QMP-Bench: write a script, run it, show the model the first error, repeat.

    plan (-> retrieve for react-rag) -> author -> execute <-> react_repair
         -> judge_first_script -> programming_verify -> scientific_verify -> convergence -> finalize

They share the Author's first request, the providers, the sandbox and the run directory with physvec's
pipeline, but no verifier speaks to the model: the only feedback is the script's own execution (its
first error, as the traceback ends).  ReAct-RAG also retrieves documentation for each error.  When the
loop ends (the script runs, or the repair budget is spent) the verifiers judge the first and the final
script once, without repair, so that a baseline's record compares with physvec's.
"""

from __future__ import annotations

import shutil
import sys
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from physvec.agents import nodes
from physvec.agents.pipeline import continue_unless_stopped, recorded_node, verify_unless_stopped
from physvec.agents.prompts import react_repair_messages
from physvec.agents.state import PipelineState, RunContext
from physvec.runstore.transcript import EventType
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.sandbox import SandboxJob

ERROR_CHARS = 3_000
"""How much of the end of a failed run's error output the model sees (a traceback ends with its cause)."""


def _repair_budget(ctx: RunContext) -> int:
    """The same number of model repairs physvec's pipeline may spend, in one budget."""
    limits = ctx.task.task.limits
    return limits.programming_iterations + limits.scientific_iterations


def first_error(returncode: int, stderr: str, timed_out: bool, wall_s: float) -> str:
    """What a ReAct agent sees of a failed run: the end of its error output (empty when it ran cleanly)."""
    if timed_out:
        return f"the script was stopped after {wall_s:.0f} s (time limit)\n" + stderr[-ERROR_CHARS:]
    if returncode != 0:
        return stderr[-ERROR_CHARS:] or f"the script exited with status {returncode} and no error output"
    return ""


def execute(state: PipelineState, ctx: RunContext, step: int) -> nodes.Update:
    """Run the current script as a user would, in the sandbox; remember its first error."""
    version = state["script_version"]
    workdir = ctx.run.work_dir(f"v{version:02d}-execute")
    shutil.rmtree(workdir, ignore_errors=True)  # a node re-run after a kill starts clean
    workdir.mkdir(parents=True)
    shutil.copyfile(ctx.run.script_path(version), workdir / "script.py")
    (result,) = ctx.pool.run_all([SandboxJob([sys.executable, "script.py"], workdir, ctx.sandbox_limits)])
    error = first_error(result.returncode, result.stderr, result.timed_out, result.wall_s)
    ctx.transcript.append(EventType.SANDBOX_RUN, node="execute", step=step, version=version,
                          workdir=str(workdir.relative_to(ctx.run.path)), returncode=result.returncode,
                          timed_out=result.timed_out, seconds=round(result.wall_s, 2),
                          summary=error.strip().splitlines()[-1] if error.strip() else "ran cleanly")
    return {"execution_error": error}


def _error_documentation(ctx: RunContext, error: str, step: int) -> list[dict[str, Any]]:
    """Snippets retrieved for the error's last line (ReAct-RAG); none if no store is built."""
    kb = nodes.built_knowledge_base(ctx, "react_repair", step)
    if kb is None:
        return []
    return nodes.recorded_retrieval(ctx, kb, f"{ctx.task.task.backend} {error.strip().splitlines()[-1]}",
                                    "react_repair", step)


def react_repair(state: PipelineState, ctx: RunContext, step: int, rag: bool) -> nodes.Update:
    """Show the model the script and its first error (and, with RAG, documentation); take the whole new script."""
    version = state["script_version"]
    script = ctx.run.script_path(version).read_text()
    error = state["execution_error"]
    documentation = _error_documentation(ctx, error, step) if rag else []
    messages = react_repair_messages(ctx.task.task, version, script, error, documentation)
    update: nodes.Update = {"programming_iteration": state.get("programming_iteration", 0) + 1}
    try:
        reply = nodes.ask_for_script(ctx, "react_repair", messages, step, 1)
    except nodes.NoUsableScript:
        return update  # recorded as an invalid reply; the round is spent
    return update | nodes.save_script(ctx, "react_repair", step, version + 1, reply)


def judge_first_script(state: PipelineState, ctx: RunContext, step: int) -> nodes.Update:
    """The Programming verifier on the first script too (its accuracy before any repair), if repairs
    replaced it; the final script is judged next."""
    if state.get("script_version", 1) > 1:
        nodes.verify_stage(nodes.ProgrammingVerifier(), {**state, "script_version": 1}, ctx, step,
                      ctx.run.work_dir("v01-programming"))
    return {}


def execute_unless_stopped(state: PipelineState) -> str:
    """After a new script version: run it, unless budget or model gave out."""
    return "execute" if verify_unless_stopped(state) != "finalize" else "finalize"


def build_react_graph(ctx: RunContext, checkpointer: BaseCheckpointSaver, rag: bool) -> Any:
    """The compiled ReAct (``rag``: ReAct-RAG) loop for one run."""
    budget = _repair_budget(ctx)

    def after_execute(state: PipelineState) -> str:
        broken = bool(state.get("execution_error"))
        return "react_repair" if broken and state.get("programming_iteration", 0) < budget else "judge_first_script"

    def after_programming(state: PipelineState) -> str:
        failed = ctx.run.certificate(state["certificates"]["programming"]).verdict is Verdict.FAILED
        return "finalize" if failed else "scientific_verify"

    graph = StateGraph(PipelineState)
    steps = {"plan": nodes.plan, "author": nodes.author, "execute": execute,
             "react_repair": lambda state, context, step: react_repair(state, context, step, rag),
             "judge_first_script": judge_first_script, "programming_verify": nodes.programming_verify,
             "scientific_verify": nodes.scientific_verify, "convergence": nodes.convergence,
             "finalize": nodes.finalize}
    if rag:
        steps["retrieve"] = nodes.retrieve
    for name, function in steps.items():
        graph.add_node(name, recorded_node(name, function, ctx))
    graph.add_edge(START, "plan")
    after_plan = "retrieve" if rag else "author"
    graph.add_conditional_edges("plan", continue_unless_stopped(after_plan), [after_plan, "finalize"])
    if rag:
        graph.add_conditional_edges("retrieve", continue_unless_stopped("author"), ["author", "finalize"])
    graph.add_conditional_edges("author", execute_unless_stopped, ["execute", "finalize"])
    graph.add_conditional_edges("execute", after_execute, ["react_repair", "judge_first_script"])
    graph.add_conditional_edges("react_repair", execute_unless_stopped, ["execute", "finalize"])
    graph.add_edge("judge_first_script", "programming_verify")
    graph.add_conditional_edges("programming_verify", after_programming, ["scientific_verify", "finalize"])
    graph.add_edge("scientific_verify", "convergence")
    graph.add_edge("convergence", "finalize")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)
