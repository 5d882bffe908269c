"""The pipeline's nodes: plain functions of (state, context, step) returning a state update.

Nodes may run twice (a run killed mid-node resumes by re-running it), so each writes files
named by version and step, and model calls already made are served from the transcript.
"""

from __future__ import annotations

import difflib
import json
import shutil
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from langchain_core.messages.utils import count_tokens_approximately

from physvec.verifiers.library.composer import library_proposal
from physvec.agents.paper import read_paper_text
from physvec.agents.model_client import REPEAT_SEED, REPEAT_TEMPERATURE, ModelRepeats
from physvec.agents.plan import MAX_QUERIES, AuthorPlan, parse_plan
from physvec.agents.provider_profile import PromptTooLong
from physvec.agents.prompts import (
    DOCUMENTATION_SNIPPETS, PAPER_EXCERPT_CHARS, adapter_messages, author_messages, function_repair_messages,
    plan_messages, repair_messages, rewrite_repair_messages, rubric_judge_messages, unit_glue_messages,
)
from physvec.agents.replies import InvalidModelReply, extract_script
from physvec.agents.state import PipelineState, RunContext, Status
from physvec.knowledge_base.retrieve import retrieve as retrieve_snippets
from physvec.knowledge_base.retrieve import store_is_built, summary, task_queries
from physvec.knowledge_base.store import KnowledgeBase, snippet_record
from physvec.runstore.store import certificate_version, file_digest
from physvec.runstore.transcript import EventType
from physvec.taskfiles.assertions import Assertion
from physvec.taskfiles.rubric import RubricNode
from physvec.verifiers.certificate import Certificate, Verdict
from physvec.verifiers.domain import DomainCheckVerifier
from physvec.verifiers.execution import FIGURE_FILE, RESULTS_FILE
from physvec.verifiers.feedback import project
from physvec.verifiers.final_judge import judge_run
from physvec.verifiers.isolation import isolation_certificate
from physvec.verifiers.programming import GlueWriter, ProgrammingVerifier, analyse_for_backend, programming_metrics
from physvec.verifiers.programming.contract import ElementFunction
from physvec.verifiers.programming.integration import execution_folder
from physvec.verifiers.programming.repair import (
    WHOLE_SCRIPT, EditResult, apply_edits, editable_names, failures, repair_items, rewrite, structural_problems,
    unblamed_failures,
)
from physvec.verifiers.protocol import Subject, Verifier
from physvec.verifiers.sandbox_check import check_sandbox
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier
from physvec.verifiers.scientific.adapters import AdapterWriter
from physvec.verifiers.scientific.reference import OVERLAY_FILE
from physvec.verifiers.scientific.rubric import ProseJudge, RubricVote

Update = dict[str, Any]
STAGES = ("programming", "scientific", "convergence", "domain_checks")
RETRIEVAL_FILE = "retrieval.json"
PLAN_FILE = "plan.json"


def _author_plan(ctx: RunContext, paper_text: str, step: int) -> AuthorPlan | str:
    """Ask the Author for its structured plan (as structured output where the provider has it); each
    unusable reply is recorded and answered once, and a reply repeating an earlier one is asked again once
    with another seed and temperature.  Returns the plan, or why none was usable."""
    messages = fitted_prompt(ctx, "author_plan", "plan", step,
                             lambda paper, _: plan_messages(ctx.task.task, paper, MAX_QUERIES), paper_text, [])
    attempts = ctx.task.task.limits.author_attempts
    problem = "no attempt was allowed"
    replies: list[str] = []
    for attempt in range(attempts):
        reply = ctx.client.ask("author_plan", messages, node="plan", step=step, schema=AuthorPlan)
        if reply in replies:
            ctx.transcript.append(EventType.REPEATED_REPLY, node="plan", step=step, role="author_plan",
                                  retry={"seed": REPEAT_SEED, "temperature": REPEAT_TEMPERATURE})
            reply = ctx.client.ask("author_plan", messages, node="plan", step=step, schema=AuthorPlan,
                                   seed=REPEAT_SEED, temperature=REPEAT_TEMPERATURE)
            if reply in replies:
                return f"the model repeats itself: the same plan reply after {attempt + 1} attempts, also with " \
                       f"seed {REPEAT_SEED} and temperature {REPEAT_TEMPERATURE}; the last problem: {problem}"
        replies.append(reply)
        try:
            return parse_plan(reply)
        except InvalidModelReply as error:
            problem = str(error)
            ctx.transcript.append(EventType.INVALID_MODEL_REPLY, node="plan", step=step, role="author_plan",
                                  attempt=attempt + 1, problem=problem)
            messages = [*messages, AIMessage(reply), HumanMessage(f"{error}. Reply with the JSON plan only.")]
    return f"no valid plan in {attempts} attempts; the last: {problem}"


def plan(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """Extract the paper's text, record what is to be reproduced under which limits, and (with a model
    and ``limits.author_plan``) have the Author write its structured plan.  A plan that never validates
    is a PLAN_FAILED event, and the Author is told it has none."""
    text = read_paper_text(ctx.task.paper)
    (ctx.run.path / "paper.txt").write_text(text, encoding="utf-8")
    task = ctx.task.task
    outcome = _author_plan(ctx, text, step) if task.limits.author_plan and ctx.language_model else None
    author_plan = outcome if isinstance(outcome, AuthorPlan) else None
    if author_plan is not None:
        (ctx.run.path / PLAN_FILE).write_text(author_plan.model_dump_json(indent=1), encoding="utf-8")
    if isinstance(outcome, str):
        ctx.transcript.append(EventType.PLAN_FAILED, node="plan", step=step, reason=outcome)
    ctx.transcript.append(
        EventType.PLAN, node="plan", step=step, backend=task.backend, target=task.target.model_dump(),
        paper_chars=len(text), limits=task.limits.model_dump(),
        assertions=0 if ctx.task.assertions is None else len(ctx.task.assertions.assertions),
        author_plan=author_plan.model_dump() if author_plan else None,
    )
    return {"status": Status.RUNNING, "programming_iteration": 0, "scientific_iteration": 0, "certificates": {}}


def _saved_plan(ctx: RunContext) -> AuthorPlan | None:
    path = ctx.run.path / PLAN_FILE
    return AuthorPlan.model_validate_json(path.read_text(encoding="utf-8")) if path.is_file() else None


def _plan_failure(ctx: RunContext) -> str | None:
    """Why the run has no plan, when planning was tried and failed (from the transcript's PLAN_FAILED)."""
    failures = [e.data["reason"] for e in ctx.transcript.events() if e.type is EventType.PLAN_FAILED]
    return failures[-1] if failures else None


def built_knowledge_base(ctx: RunContext, node: str, step: int) -> KnowledgeBase | None:
    """The documentation store, or None (recorded, with how to build it) when none is built."""
    if not store_is_built(ctx.knowledge_base):
        ctx.transcript.append(EventType.RETRIEVAL, node=node, step=step, status="not_built",
                              hint="build the documentation store with: physvec kb build")
        return None
    return KnowledgeBase(ctx.knowledge_base)


def recorded_retrieval(ctx: RunContext, kb: KnowledgeBase, query: str, node: str, step: int) -> list[dict[str, Any]]:
    """The snippets for one query, each with the query; the retrieval is recorded with its sources."""
    snippets = retrieve_snippets(kb, query, ctx.task.task.backend)
    ctx.transcript.append(EventType.RETRIEVAL, node=node, step=step, status="ok", query=query,
                          summary=summary(snippets), sources=[snippet_record(s) for s in snippets])
    return [{"query": query, **asdict(snippet)} for snippet in snippets]


def retrieve(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """Documentation snippets for the queries the task implies, from the knowledge base if one is built."""
    task = ctx.task.task
    kb = built_knowledge_base(ctx, "retrieve", step)
    if kb is None:
        return {}
    spec = f"{task.spec.model} {task.spec.lattice} {task.spec.method}" if task.spec else None
    author_plan = _saved_plan(ctx)
    queries = (author_plan.queries if author_plan else []) + task_queries(task.request, task.target.figure,
                                                                          task.backend, spec)
    found = [snippet for query in queries for snippet in recorded_retrieval(ctx, kb, query, "retrieve", step)]
    (ctx.run.path / RETRIEVAL_FILE).write_text(json.dumps(found, indent=1), encoding="utf-8")
    return {}


def _documentation(ctx: RunContext) -> list[dict[str, Any]]:
    path = ctx.run.path / RETRIEVAL_FILE
    return json.loads(path.read_text(encoding="utf-8")) if path.is_file() else []


class NoUsableScript(Exception):
    """A role's replies held no script it may hand on (none at all, or one that still breaks the contract)."""


def _contract_breaches(ctx: RunContext, script: str) -> list[str]:
    return [f"{b.name}: {b.message}" for b in analyse_for_backend(script, ctx.task.task.backend).breaches]


def ask_for_script(ctx: RunContext, role: str, messages: list[BaseMessage], step: int, attempts: int,
                    contract: bool = False, seed: int | None = None, temperature: float | None = None) -> str:
    """Ask until the reply holds a script (and, with ``contract``, one whose contract analysis finds no
    breach); each unusable reply is recorded and answered once, within ``attempts`` rounds (sampled with
    ``seed`` and ``temperature`` when given).

    A reply identical to an earlier one of this loop (the feedback changed nothing) is recorded, and the
    attempts left are sampled with REPEAT_SEED and REPEAT_TEMPERATURE; a repeat under that sampling too ends
    the loop, since paying again for the same answer buys nothing.

    Raises:
        NoUsableScript: no reply in ``attempts`` held a script, or (with ``contract``) the last one still
            breaks the contract; a breached script is never handed on, since every later check would only
            fail on it again.
        ModelRepeats: the model gave the same reply again, also with another seed and temperature.
    """
    problem = "no attempt was allowed"
    replies: list[str] = []
    for attempt in range(attempts):
        reply = ctx.client.ask(role, messages, node=role, step=step, seed=seed, temperature=temperature)
        if reply in replies:
            if seed == REPEAT_SEED:
                raise ModelRepeats(f"the model repeats itself: {role} gave the same reply after feedback, also "
                                   f"with seed {REPEAT_SEED} and temperature {REPEAT_TEMPERATURE}; the last "
                                   f"problem: {problem}")
            seed, temperature = REPEAT_SEED, REPEAT_TEMPERATURE
            ctx.transcript.append(EventType.REPEATED_REPLY, node=role, step=step, role=role, attempt=attempt + 1,
                                  retry={"seed": seed, "temperature": temperature})
        replies.append(reply)
        try:
            script = extract_script(reply)
        except InvalidModelReply as error:
            problem = str(error)
            ctx.transcript.append(EventType.INVALID_MODEL_REPLY, node=role, step=step, role=role,
                                  attempt=attempt + 1, problem=problem)
            messages = [*messages, AIMessage(reply), HumanMessage(f"{error}. Reply with the whole script.")]
            continue
        breaches = _contract_breaches(ctx, script) if contract else []
        if not breaches:
            return script
        problem = "the script breaks the contract: " + "; ".join(breaches)
        ctx.transcript.append(EventType.AUTHOR_REFINEMENT, node=role, step=step, attempt=attempt + 1,
                              breaches=breaches, final=attempt == attempts - 1)
        messages = [*messages, AIMessage(reply), HumanMessage(
            "The script breaks the contract:\n" + "\n".join(f"- {b}" for b in breaches)
            + "\nReply with the whole corrected script.")]
    raise NoUsableScript(f"{role} gave no usable script in {attempts} attempt(s); the last: {problem}")


def save_script(ctx: RunContext, node: str, step: int, version: int, script: str) -> Update:
    path = ctx.run.write_script(version, script)
    ctx.transcript.append(EventType.SCRIPT_WRITTEN, node=node, step=step, version=version,
                                path=str(path.relative_to(ctx.run.path)), lines=script.count("\n"))
    return {"script_version": version}


def _library_author(ctx: RunContext, step: int) -> Update:
    """With no language model, the library proposer composes the first version from the task's spec."""
    task = ctx.task.task
    proposal = library_proposal(task.spec, task.backend)
    if isinstance(proposal, str):  # the run ends unknown: no script was judged, none was wrong
        return {"status": Status.AUTHOR_FAILED, "error": f"the library has no pipeline for this spec: {proposal}"}
    ctx.transcript.append(EventType.LIBRARY_PROPOSAL, node="author", step=step, pipeline=proposal.pipeline,
                          spec=task.spec.model_dump())
    return save_script(ctx, "author", step, 1, proposal.script)


MIN_PAPER_CHARS = 2_000
"""the shortest paper excerpt a prompt is trimmed to; below it the prompt is sent as it is and too long a one
ends the run (PromptTooLong) rather than leaving the Author without the paper"""

PromptBuilder = Callable[[str, list[dict[str, Any]]], list[BaseMessage]]
"""(paper excerpt, documentation snippets) -> the messages of one request"""


def fitted_prompt(ctx: RunContext, role: str, node: str, step: int, build: PromptBuilder, paper_text: str,
                  documentation: list[dict[str, Any]]) -> list[BaseMessage]:
    """The request trimmed by policy until the server's context leaves its role the whole reply: retrieved
    documentation snippets first (the last retrieved first), then the paper excerpt halved down to
    MIN_PAPER_CHARS; the task, the contract and the plan are never trimmed.  Each trim is recorded."""
    profile = ctx.client.profile
    paper, snippets = paper_text[:PAPER_EXCERPT_CHARS], list(documentation)[:DOCUMENTATION_SNIPPETS]
    messages = build(paper, snippets)
    wanted = profile.max_tokens(role, 0)
    dropped = 0
    while profile.context_tokens is not None:
        try:
            if profile.max_tokens(role, count_tokens_approximately(messages)) >= wanted:
                break
        except PromptTooLong:
            pass
        if snippets:
            snippets, dropped = snippets[:-1], dropped + 1
        elif len(paper) > MIN_PAPER_CHARS:
            paper = paper[:max(MIN_PAPER_CHARS, len(paper) // 2)]
        else:
            break
        messages = build(paper, snippets)
    if dropped or len(paper) < len(paper_text[:PAPER_EXCERPT_CHARS]):
        ctx.transcript.append(EventType.PROMPT_TRIMMED, node=node, step=step, role=role,
                              context_tokens=profile.context_tokens, snippets_dropped=dropped,
                              snippets_kept=len(snippets), paper_chars_kept=len(paper),
                              paper_chars=len(paper_text[:PAPER_EXCERPT_CHARS]))
    return messages


def author(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """The Author writes the first script version (the library proposer does when there is no model)."""
    if not ctx.language_model:
        return _library_author(ctx, step)
    paper_text = (ctx.run.path / "paper.txt").read_text(encoding="utf-8")
    author_plan = _saved_plan(ctx)

    def build(paper: str, snippets: list[dict[str, Any]]) -> list[BaseMessage]:
        return author_messages(ctx.task.task, paper, snippets, author_plan.model_dump() if author_plan else None,
                               None if author_plan else _plan_failure(ctx))

    messages = fitted_prompt(ctx, "author", "author", step, build, paper_text, _documentation(ctx))
    try:
        script = ask_for_script(ctx, "author", messages, step, ctx.task.task.limits.author_attempts, contract=True)
    except NoUsableScript as error:
        return {"status": Status.AUTHOR_FAILED, "error": str(error)}
    return save_script(ctx, "author", step, 1, script)


def _certificate_name(stage: str, version: int) -> str:
    """A certificate's name in the run: its verifier stage and the script version it judged (the store adds
    ``-2``, ``-3``, ... to a later verification of the same version, so no certificate is overwritten)."""
    return f"{stage}-v{version:02d}"


def stage_folder(version: int, stage: str) -> str:
    """The sandbox folder (under work/) of one verifier stage of one script version."""
    return f"v{version:02d}-{stage}"


def verify_stage(verifier: Verifier, state: PipelineState, ctx: RunContext, step: int, workdir: Path | None = None) -> Update:
    version = state["script_version"]
    subject = Subject(
        script=ctx.run.script_path(version), task=ctx.task, pool=ctx.pool, limits=ctx.sandbox_limits,
        workdir=workdir or ctx.run.path / "work" / stage_folder(version, verifier.name),
        executed_dir=ctx.run.path / state["executed_dir"] if state.get("executed_dir") else None,
    )
    certificate = verifier.verify(subject)
    path = ctx.run.write_certificate(_certificate_name(verifier.name, version), certificate)
    name = path.stem
    ctx.transcript.append(
        EventType.CERTIFICATE, node=verifier.name, step=step, verifier=verifier.name, version=version,
        path=str(path.relative_to(ctx.run.path)), sha256=file_digest(path), verdict=certificate.verdict.value,
        outcomes={o.name: o.outcome.value for o in certificate.obligations},
    )
    return {"certificates": {**state.get("certificates", {}), verifier.name: name}}


def _glue_writer(ctx: RunContext, step: int) -> GlueWriter:
    """Model-written argument glue for unit tests whose inputs no background function makes."""

    def write(function: ElementFunction, unbound: list[str], namespace: dict[str, str]) -> str | None:
        messages = unit_glue_messages(ctx.task.task, function, unbound, namespace)
        try:
            return ask_for_script(ctx, "unit_glue", messages, step, 1)
        except NoUsableScript:
            return None  # recorded; the unit test reports that no glue was written

    return write


SANDBOX_CHECK_FOLDER = "sandbox-check"


def _sandbox_problem(ctx: RunContext, step: int) -> str | None:
    """Why this machine's sandbox cannot verify the run's backend (None: it can), found once per process by a
    probe program through the run's own pool (verifiers/sandbox_check.py) and recorded in the transcript."""
    if ctx.sandbox_check is None:
        ctx.sandbox_check = check_sandbox(ctx.task.task.backend, ctx.pool, ctx.run.work_dir(SANDBOX_CHECK_FOLDER))
        ctx.transcript.append(EventType.SANDBOX_RUN, node="programming_verify", step=step, program="sandbox probe",
                              summary=f"sandbox probe: {ctx.sandbox_check.describe()}")
    if ctx.sandbox_check.ok:
        return None
    return f"the sandbox cannot run this backend's programs here, so no script was judged: {ctx.sandbox_check.cause}"


def programming_verify(state: PipelineState, ctx: RunContext, step: int) -> Update:
    problem = _sandbox_problem(ctx, step)
    if problem is not None:
        return {"status": Status.ERROR, "error": problem}
    workdir = ctx.run.work_dir(stage_folder(state["script_version"], "programming"))
    glue = _glue_writer(ctx, step) if ctx.task.task.limits.unit_glue and ctx.language_model else None
    update = verify_stage(ProgrammingVerifier(glue), state, ctx, step, workdir)
    certificate = ctx.run.certificate(update["certificates"]["programming"])
    execution = {o.name: o for o in certificate.obligations}.get("script_executes")
    if execution is not None:
        ctx.transcript.append(EventType.SANDBOX_RUN, node="programming_verify", step=step,
                                    workdir=str(workdir.relative_to(ctx.run.path)), summary=execution.message,
                                    **execution.evidence)
    return {**update, "executed_dir": execution_folder(workdir).relative_to(ctx.run.path).as_posix()}


def vote_temperatures(votes: int) -> tuple[float, ...]:
    """Rising temperatures from 0 to 1 for ``votes`` prose-rubric votes."""
    return tuple(round(i / (votes - 1), 2) for i in range(votes)) if votes > 1 else (0.0,) * votes


def _prose_judge(ctx: RunContext, script: str, step: int) -> ProseJudge:
    def judge(leaf: RubricNode, temperature: float) -> str | None:
        return ctx.client.ask("rubric_judge", rubric_judge_messages(ctx.task.task, leaf, script),
                              node="scientific_verify", step=step, temperature=temperature, schema=RubricVote)

    return judge


def _adapter_writer(ctx: RunContext, step: int) -> AdapterWriter:
    """The model writes an assertion's adapter entry point; it is appended to the script unchanged, so the
    identity check sees any function the reply redefines."""

    def write(assertion: Assertion, script: str) -> str | None:
        try:
            messages = adapter_messages(ctx.task.task, assertion, script)
            entry = ask_for_script(ctx, "assertion_adapter", messages, step, 1)
        except NoUsableScript:
            return None  # recorded; the assertion reports that no adapter was written
        return f"{script.rstrip()}\n\n\n{entry}"

    return write


def scientific_verify(state: PipelineState, ctx: RunContext, step: int) -> Update:
    votes = ctx.task.task.limits.rubric_votes
    script = ctx.run.script_path(state["script_version"]).read_text()
    judge = _prose_judge(ctx, script, step) if votes and ctx.language_model else None
    adapter_writer = _adapter_writer(ctx, step) if ctx.language_model else None
    verifier = ScientificVerifier(judge, vote_temperatures(votes), adapter_writer)
    return verify_stage(verifier, state, ctx, step)


def convergence(state: PipelineState, ctx: RunContext, step: int) -> Update:
    return verify_stage(ConvergenceVerifier(), state, ctx, step)


def domain_checks(state: PipelineState, ctx: RunContext, step: int) -> Update:
    return verify_stage(DomainCheckVerifier(), state, ctx, step)


def _record_edits(ctx: RunContext, node: str, step: int, version: int, script: str, edit: EditResult,
                  requested: list[str]) -> None:
    diff = "".join(difflib.unified_diff(script.splitlines(keepends=True), edit.source.splitlines(keepends=True),
                                        f"v{version:02d}.py", f"v{version + 1:02d}.py"))
    ctx.transcript.append(EventType.REPAIR_EDITS, node=node, step=step, version=version, requested=requested,
                          applied=list(edit.applied), rejected=list(edit.rejected),
                          added_imports=list(edit.added_imports), diff=diff)


EditOf = Callable[[str], EditResult]
"""How a repair reply's code changes the script: function edits (apply_edits) or a whole rewrite."""


def _repair_edit(ctx: RunContext, role: str, messages: list[BaseMessage], step: int, version: int, script: str,
                 edit_of: EditOf, requested: list[str], contract: bool = False) -> EditResult | None:
    """The edit a repair reply makes to ``script`` (None when no reply held a usable script: recorded).

    A reply that leaves the script byte-identical would only re-verify the same script: it is asked once
    more with another seed and temperature, and a second such reply raises ModelRepeats.
    """
    for seed, temperature in ((None, None), (REPEAT_SEED, REPEAT_TEMPERATURE)):
        try:
            reply = ask_for_script(ctx, role, messages, step, REWRITE_ATTEMPTS if contract else 1,
                                   contract=contract, seed=seed, temperature=temperature)
        except NoUsableScript:
            return None
        edit = edit_of(reply)
        _record_edits(ctx, role, step, version, script, edit, requested)
        if edit.source != script:
            return edit
        ctx.transcript.append(EventType.REPEATED_REPLY, node=role, step=step, role=role,
                              unchanged_script=f"v{version:02d}", retry=None if seed else
                              {"seed": REPEAT_SEED, "temperature": REPEAT_TEMPERATURE})
    raise ModelRepeats(f"the model repeats itself: {role} left script v{version:02d} byte-identical, also with "
                       f"seed {REPEAT_SEED} and temperature {REPEAT_TEMPERATURE}")


REWRITE_ATTEMPTS = 2
"""replies a whole-script rewrite may take to meet the contract (the second answers the first's breaches)"""


def programming_repair(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """Repair as the certificate's failures allow: a structural failure (no PARAMS or run_ function, a
    module-level import or syntax error, no main()) gets a whole-script rewrite under the contract, which
    must meet it; otherwise new versions of the blamed functions replace the old ones (with the PARAMS keys
    and contract functions they need), and every other change is rejected."""
    version = state["script_version"]
    certificate = ctx.run.certificate(state["certificates"]["programming"])
    script = ctx.run.script_path(version).read_text()
    update: Update = {"programming_iteration": state.get("programming_iteration", 0) + 1}
    problems = structural_problems(certificate)
    if problems:
        messages = rewrite_repair_messages(ctx.task.task, version, script, problems, failures(certificate))
        ctx.transcript.append(EventType.REPAIR_PLAN, node="programming_repair", step=step, version=version,
                              kind="rewrite", problems=problems)
        edit = _repair_edit(ctx, "programming_repair", messages, step, version, script,
                            lambda code: rewrite(script, code), [WHOLE_SCRIPT], contract=True)
    else:
        items = repair_items(certificate)
        messages = function_repair_messages(ctx.task.task, version, script, items, unblamed_failures(certificate))
        blamed = {item.function for item in items}
        ctx.transcript.append(EventType.REPAIR_PLAN, node="programming_repair", step=step, version=version,
                              kind="functions", functions=sorted(blamed))
        edit = _repair_edit(ctx, "programming_repair", messages, step, version, script,
                            lambda code: apply_edits(script, code, blamed), sorted(blamed))
    if edit is not None and edit.applied:
        update |= save_script(ctx, "programming_repair", step, version + 1, edit.source)
    return update


def _current_certificates(state: PipelineState, ctx: RunContext, stages: tuple[str, ...]) -> dict[str, Certificate]:
    """The certificates of ``stages`` that judged the current script version (older ones are history)."""
    version = state.get("script_version", 0)
    return {stage: ctx.run.certificate(name) for stage, name in state.get("certificates", {}).items()
            if stage in stages and certificate_version(name) == version}


def scientific_repair(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """Ask for new definitions of functions or PARAMS from the projected scientific and convergence
    certificates (expected values are sealed: the model sees what was observed, never what was expected)."""
    version = state["script_version"]
    failed = [certificate for certificate in _current_certificates(state, ctx, ("scientific", "convergence")).values()
              if certificate.verdict is Verdict.FAILED]
    script = ctx.run.script_path(version).read_text()
    messages = repair_messages(ctx.task.task, version, script, [project(c, ctx.feedback) for c in failed])
    update: Update = {"scientific_iteration": state.get("scientific_iteration", 0) + 1}
    editable = editable_names(script)
    edit = _repair_edit(ctx, "scientific_repair", messages, step, version, script,
                        lambda code: apply_edits(script, code, editable), sorted(editable))
    if edit is not None and edit.applied:
        update |= save_script(ctx, "scientific_repair", step, version + 1, edit.source)
    return update


def ending_reason(state: PipelineState, ctx: RunContext, latest: dict[str, Certificate]) -> str:
    """What ended the run, in words that name the limit and its count, so the final line says why a run
    stopped rather than only its verdict."""
    status, error = state.get("status", Status.RUNNING), state.get("error")
    if status == Status.BUDGET_EXHAUSTED:
        return str(error)  # names the budget: tokens or the model calls' wall time
    if status == Status.MODEL_UNAVAILABLE:
        return f"the model is unavailable ({error})"
    if status in (Status.AUTHOR_FAILED, Status.ERROR, Status.MODEL_REPEATS):
        return str(error)
    limits = ctx.task.task.limits
    failed = [stage for stage, certificate in latest.items() if certificate.verdict is Verdict.FAILED]
    if "programming" in failed:
        used, allowed, kind = state.get("programming_iteration", 0), limits.programming_iterations, "programming"
    elif {"scientific", "convergence"} & set(failed):
        used, allowed, kind = state.get("scientific_iteration", 0), limits.scientific_iterations, "scientific"
    else:
        return "every stage ran"
    if not ctx.language_model:
        return f"{kind} verification failed and no language model may repair it"
    if used < allowed:
        return f"{kind} verification failed and physvec stopped repairing ({used} of {allowed} rounds used)"
    return f"{kind} repair budget spent ({used} of {allowed} rounds)"


def finalize(state: PipelineState, ctx: RunContext, step: int) -> Update:
    """Judge the run from each stage's latest certificate; publish its results and figure."""
    latest = _current_certificates(state, ctx, STAGES)
    isolation = isolation_certificate(bool(ctx.run.metadata().get("allow_reduced_isolation")))
    isolation_path = ctx.run.write_certificate("isolation", isolation)
    ctx.transcript.append(EventType.CERTIFICATE, node="finalize", step=step, verifier="isolation", version=0,
                          path=str(isolation_path.relative_to(ctx.run.path)), sha256=file_digest(isolation_path),
                          verdict=isolation.verdict.value)
    ended_by = ending_reason(state, ctx, latest)
    status = state.get("status", Status.RUNNING)
    verdict = judge_run([*latest.values(), isolation], run_completed=status == Status.RUNNING)
    if status == Status.RUNNING:
        status = Status.FINISHED
    if state.get("executed_dir"):
        for name in (RESULTS_FILE, FIGURE_FILE):
            source = ctx.run.path / state["executed_dir"] / name
            if source.is_file():
                shutil.copyfile(source, ctx.run.path / name)
    overlay = ctx.run.path / "work" / stage_folder(state.get("script_version", 0), "scientific") / OVERLAY_FILE
    if overlay.is_file():
        shutil.copyfile(overlay, ctx.run.path / OVERLAY_FILE)
    programming = latest.get("programming")
    metrics = {**(programming_metrics(programming) if programming else {}),
               "programming_iterations": state.get("programming_iteration", 0),
               "scientific_iterations": state.get("scientific_iteration", 0)}
    ctx.run.update_metadata(status=str(status), verdict=verdict.value, tokens_used=ctx.client.tokens_used,
                            metrics=metrics,
                            script_versions=state.get("script_version", 0),
                            error=state.get("error"), ended_by=ended_by)
    ctx.transcript.append(EventType.RUN_FINISHED, node="finalize", step=step, status=str(status),
                          verdict=verdict.value, tokens_used=ctx.client.tokens_used, ended_by=ended_by)
    return {"status": status, "verdict": verdict.value}
