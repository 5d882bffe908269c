"""Rendering of the jinja2 prompt templates in agents/prompts/.

Undefined variables are errors (StrictUndefined): a template can never silently drop a field.
Templates receive tasks, scripts and feedback projections, never expected values.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined
from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from physvec.taskfiles.task import Task
from physvec.verifiers.library.skeleton import example_script

_ENVIRONMENT = Environment(
    loader=PackageLoader("physvec.agents", "prompts"), undefined=StrictUndefined, autoescape=False,
    keep_trailing_newline=True, trim_blocks=False,
)
_ENVIRONMENT.filters["tail"] = lambda text, limit: text if len(text) <= limit else "..." + text[-limit:]
PAPER_EXCERPT_CHARS = 12_000
DOCUMENTATION_SNIPPETS = 12


def render(template: str, **variables: Any) -> str:
    return _ENVIRONMENT.get_template(template).render(**variables)


@cache
def _contract(backend: str, fence: str) -> str:
    """The system message of every script request on ``backend``: the contract, then an example script made
    from the verifier library's own functions (so a small model imitates real imports instead of inventing
    modules); rendered once per backend, since every request sends it."""
    return render("system.j2", backend=backend, example=example_script(backend), fence=fence)


def _under_contract(task: Task, template: str, /, **variables: Any) -> list[BaseMessage]:
    """The script contract for the task's backend, with its example script, as system message, then one
    rendered request."""
    return [SystemMessage(_contract(task.backend, script_fence(task))), HumanMessage(render(template, **variables))]


def plan_messages(task: Task, paper_text: str, max_queries: int) -> list[BaseMessage]:
    """The Author's planning request: the task and the paper excerpt; a JSON plan comes back, so the
    system message asks for JSON, not for the script the contract describes."""
    return [SystemMessage(render("system_json.j2", backend=task.backend)),
            HumanMessage(render("author_plan.j2", task=task, paper_text=paper_text[:PAPER_EXCERPT_CHARS],
                                max_queries=max_queries))]


def author_messages(task: Task, paper_text: str, documentation: list[dict[str, Any]] = (),
                    plan: dict[str, Any] | None = None, plan_failed: str | None = None) -> list[BaseMessage]:
    """The Author's first request: the contract, the task, the paper excerpt, the Author's own plan (or,
    when planning failed, that there is none and why) and the retrieved documentation snippets."""
    return _under_contract(task, "author.j2", task=task, paper_text=paper_text[:PAPER_EXCERPT_CHARS],
                           documentation=list(documentation)[:DOCUMENTATION_SNIPPETS], plan=plan,
                           plan_failed=plan_failed)


def script_fence(task: Task) -> str:
    """The fenced block's language of the task's scripts: Julia for ITensors, Python otherwise."""
    return "julia" if task.backend == "itensors" else "python"


def function_repair_messages(task: Task, version: int, script: str, items: list[Any],
                             loose: list[Any] = ()) -> list[BaseMessage]:
    """The programming repairer's request: the blamed functions with their evidence, the failures that blame
    no function (an ImportError in the execution, say) quoted beside them, and the script."""
    return _under_contract(task, "repair_functions.j2", version=version, script=script, items=items,
                           loose=list(loose), fence=script_fence(task))


def rewrite_repair_messages(task: Task, version: int, script: str, problems: list[str],
                            failures: list[Any]) -> list[BaseMessage]:
    """A structural repair's request: why no function edit can fix the script, every failed check with its
    evidence (never sealed values), the script, and the contract to rewrite it under."""
    return _under_contract(task, "repair_rewrite.j2", version=version, script=script, problems=problems,
                           failures=failures, backend=task.backend, fence=script_fence(task))


def unit_glue_messages(task: Task, function: Any, unbound: list[str], namespace: dict[str, str]) -> list[BaseMessage]:
    """The glue writer's request: make the inputs that no background function can make."""
    return _under_contract(task, "unit_glue.j2", function=function, unbound=unbound, namespace=namespace)


def adapter_messages(task: Task, assertion: Any, script: str) -> list[BaseMessage]:
    """The adapter writer's request: what the assertion needs in words, its call and key path, and the
    script; never the expected value or its reference."""
    return _under_contract(task, "assertion_adapter.j2", assertion=assertion, script=script)


def rubric_judge_messages(task: Task, leaf: Any, script: str) -> list[BaseMessage]:
    """A rubric vote's request: one prose requirement and the script text (no expected values)."""
    return [HumanMessage(render("rubric_judge.j2", request=task.request, leaf=leaf, script=script))]


def repair_messages(task: Task, version: int, script: str, feedbacks: list[dict[str, Any]]) -> list[BaseMessage]:
    """A repairer's request: the failed checks of each verifier (as the feedback projection allows)
    and the script."""
    return _under_contract(task, "repair.j2", version=version, script=script, feedbacks=feedbacks)


def react_repair_messages(task: Task, version: int, script: str, error: str,
                          documentation: list[dict[str, Any]] = ()) -> list[BaseMessage]:
    """A ReAct baseline's repair request: the script and the end of its error output when run (with
    ReAct-RAG, documentation retrieved for the error); no verifier feedback."""
    return _under_contract(task, "react_repair.j2", version=version, script=script, error=error,
                           documentation=list(documentation)[:DOCUMENTATION_SNIPPETS])
