"""The reproduction pipeline as one LangGraph state machine.

    plan -> retrieve -> author -> programming_verify <-> programming_repair (asked again, not re-verified, when
                                                                             it saved no new version)
         -> scientific_verify <-> scientific_repair (a repaired script is executed again)
         -> convergence (-> scientific_repair while unconverged and budget is left)
         -> domain_checks -> finalize

Routes depend on certificate verdicts and iteration budgets; a run whose budget or model gave out
goes straight to finalize.  Every node is wrapped to record node_started/node_finished events.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.graph import END, START, StateGraph

from physvec.agents import nodes
from physvec.agents.model_client import BudgetExhausted, ModelRepeats, ModelUnavailable
from physvec.agents.state import PipelineState, RunContext, Status
from physvec.runstore.store import certificate_version
from physvec.runstore.transcript import EventType
from physvec.verifiers.certificate import Verdict

NodeFunction = Callable[[PipelineState, RunContext, int], dict[str, Any]]


def recorded_node(name: str, function: NodeFunction, ctx: RunContext) -> Callable[[PipelineState], dict[str, Any]]:
    """Run a node as a numbered step with start/finish events; model give-outs end the run cleanly."""

    def node(state: PipelineState) -> dict[str, Any]:
        step = state.get("step", 0) + 1
        transcript = ctx.transcript
        attempt = 1 + sum(1 for event in transcript.events()
                          if event.type is EventType.NODE_STARTED and event.node == name and event.step == step)
        transcript.append(EventType.NODE_STARTED, node=name, step=step, attempt=attempt)
        started, tokens_before, programs_before = time.monotonic(), ctx.client.tokens_used, ctx.pool.program_seconds
        try:
            update = function(state, ctx, step)
        except BudgetExhausted as error:
            update = {"status": Status.BUDGET_EXHAUSTED, "error": str(error)}
        except ModelUnavailable as error:
            update = {"status": Status.MODEL_UNAVAILABLE, "error": str(error)}
        except ModelRepeats as error:
            update = {"status": Status.MODEL_REPEATS, "error": str(error)}
        transcript.append(EventType.NODE_FINISHED, node=name, step=step, attempt=attempt,
                          seconds=round(time.monotonic() - started, 3),
                          program_seconds=round(ctx.pool.program_seconds - programs_before, 3),
                          tokens=ctx.client.tokens_used - tokens_before, status=str(update.get("status", "")))
        if "status" in update:
            update["status"] = str(update["status"])  # checkpoints store plain strings
        return {**update, "step": step}

    return node


def _stage_failed(state: PipelineState, ctx: RunContext, stage: str) -> bool:
    return ctx.run.certificate(state["certificates"][stage]).verdict is Verdict.FAILED


def _suspect_reference(state: PipelineState, ctx: RunContext) -> bool:
    """The scientific certificate blames the reference data, not the script (verifiers/scientific/reference.py)."""
    return "suspect_reference" in ctx.run.certificate(state["certificates"]["scientific"]).summary


def _running(state: PipelineState) -> bool:
    return state.get("status") == Status.RUNNING


def continue_unless_stopped(following: str) -> Callable[[PipelineState], str]:
    """Before a node that may call the model: go on to ``following``, unless the budget or model gave out
    (a model found unavailable while planning is not asked again by the Author)."""
    def route(state: PipelineState) -> str:
        return following if _running(state) else "finalize"
    return route


def verify_unless_stopped(state: PipelineState) -> str:
    """After a new script version (author or repair): verify it, unless budget or model gave out."""
    return "programming_verify" if _running(state) else "finalize"


def build_graph(ctx: RunContext, checkpointer: BaseCheckpointSaver) -> Any:
    """The compiled pipeline for one run."""
    limits = ctx.task.task.limits

    def after_programming(state: PipelineState) -> str:
        if not _running(state):
            return "finalize"  # the model or the budget gave out inside the verifier: no certificate to route on
        if not _stage_failed(state, ctx, "programming"):
            return "scientific_verify"
        budget_left = state["programming_iteration"] < limits.programming_iterations
        return "programming_repair" if budget_left and ctx.language_model else "finalize"

    def scientific_budget_left(state: PipelineState) -> bool:
        """Whether a scientific repair may be asked for (never without a language model)."""
        return state["scientific_iteration"] < limits.scientific_iterations and ctx.language_model

    def after_scientific(state: PipelineState) -> str:
        if not _running(state):
            return "finalize"
        if not _stage_failed(state, ctx, "scientific"):
            return "convergence"
        if _suspect_reference(state, ctx):
            return "finalize"  # the physics checks accept the script: a repair would bend it to wrong data
        return "scientific_repair" if scientific_budget_left(state) else "finalize"

    def after_convergence(state: PipelineState) -> str:
        """An unconverged script is repaired like wrong physics, from the same budget."""
        if not _running(state):
            return "finalize"
        if _stage_failed(state, ctx, "convergence") and scientific_budget_left(state):
            return "scientific_repair"
        return "domain_checks"

    def repaired(state: PipelineState, stage: str) -> bool:
        """Whether the repair saved a new script version: one that made none leaves the script that ``stage``
        already judged, and verifying it again would only repeat that certificate."""
        return state.get("script_version", 0) > certificate_version(state["certificates"][stage])

    def after_programming_repair(state: PipelineState) -> str:
        if not _running(state) or repaired(state, "programming"):
            return verify_unless_stopped(state)
        return after_programming(state)

    def after_scientific_repair(state: PipelineState) -> str:
        if not _running(state) or repaired(state, "scientific"):
            return verify_unless_stopped(state)
        if scientific_budget_left(state):
            return "scientific_repair"
        return "finalize" if _stage_failed(state, ctx, "scientific") else "domain_checks"

    graph = StateGraph(PipelineState)
    for name in ("plan", "retrieve", "author", "programming_verify", "programming_repair", "scientific_verify",
                 "scientific_repair", "convergence", "domain_checks", "finalize"):
        graph.add_node(name, recorded_node(name, getattr(nodes, name), ctx))
    graph.add_edge(START, "plan")
    graph.add_conditional_edges("plan", continue_unless_stopped("retrieve"), ["retrieve", "finalize"])
    graph.add_conditional_edges("retrieve", continue_unless_stopped("author"), ["author", "finalize"])
    graph.add_conditional_edges("author", verify_unless_stopped, ["programming_verify", "finalize"])
    graph.add_conditional_edges("programming_verify", after_programming,
                                ["scientific_verify", "programming_repair", "finalize"])
    graph.add_conditional_edges("programming_repair", after_programming_repair,
                                ["programming_verify", "programming_repair", "finalize"])
    graph.add_conditional_edges("scientific_verify", after_scientific,
                                ["convergence", "scientific_repair", "finalize"])
    graph.add_conditional_edges("scientific_repair", after_scientific_repair,
                                ["programming_verify", "scientific_repair", "domain_checks", "finalize"])
    graph.add_conditional_edges("convergence", after_convergence, ["scientific_repair", "domain_checks", "finalize"])
    graph.add_edge("domain_checks", "finalize")
    graph.add_edge("finalize", END)
    return graph.compile(checkpointer=checkpointer)
