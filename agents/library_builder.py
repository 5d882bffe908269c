"""The library builder: a model proposes new background functions; only those that run are kept.

``physvec library build --backend B --request TEXT [--model SPEC]`` asks the model (with
documentation from the knowledge base, when one is built) for element functions of the backend.
Each proposed function is unit-tested in the sandbox inside every background pipeline of the backend
that has its role, exactly as a script's functions are; a function is accepted when one of those
unit tests certifies it, and rejected otherwise, with the reason.  Accepted functions are appended to
``<out>/<backend>.py`` with their provenance; every decision goes to ``<out>/build_log.jsonl``.
Accepted functions are candidates for a pipeline, not part of one: a pipeline needs an exact check.
"""

from __future__ import annotations

import json
import time
from dataclasses import asdict, dataclass
from pathlib import Path

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import HumanMessage

from physvec.agents.prompts import render
from physvec.agents.replies import InvalidModelReply, extract_script
from physvec.knowledge_base.retrieve import retrieve, store_is_built
from physvec.knowledge_base.store import KnowledgeBase
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.library import pipelines_for
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.programming.unit_tests import UnitTest, unit_obligation, unit_test_program
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool


@dataclass(frozen=True)
class Decision:
    """What happened to one proposed function."""

    function: str
    role: str | None
    accepted: bool
    reason: str
    pipeline: str | None = None


def _documentation(backend: str, request: str) -> list[dict]:
    if not store_is_built():
        return []
    return [asdict(snippet) for snippet in retrieve(KnowledgeBase(), request, backend, k=6)]


def propose(model: BaseChatModel, backend: str, request: str) -> str:
    """The model's proposal: source text with element functions and their imports."""
    prompt = render("library_builder.j2", backend=backend, request=request, pipelines=pipelines_for(backend),
                    documentation=_documentation(backend, request))
    return extract_script(str(model.invoke([HumanMessage(prompt)]).content))


def check(source: str, backend: str, workdir: Path, pool: SandboxPool, limits: SandboxLimits) -> list[Decision]:
    """Unit-test every proposed element function in each pipeline that has its role."""
    contract = analyse_script(source)
    if contract.tree is None:
        return [Decision("<proposal>", None, False, contract.breaches[0].message if contract.breaches
                         else "the proposal does not parse")]
    candidates: list[tuple[str, str, UnitTest]] = []
    decisions: list[Decision] = []
    for function in contract.elements.values():
        hosts = [p for p in pipelines_for(backend) if function.role in p.roles()]
        if not hosts:
            decisions.append(Decision(function.name, function.role, False,
                                      f"no {backend} pipeline has the role {function.role}"))
        for pipeline in hosts:
            program = unit_test_program(contract, function, backend, pipeline=pipeline.name)
            candidates.append((function.name, pipeline.name,
                               UnitTest(function, program, workdir / f"{function.name}-{pipeline.name}")))
    results = pool.run_all([test.job(limits) for *_, test in candidates])
    outcomes: dict[str, list[tuple[str, str, Outcome]]] = {}
    for (name, pipeline, test), result in zip(candidates, results):
        obligation = unit_obligation(test, result)
        outcomes.setdefault(name, []).append((pipeline, obligation.message, obligation.outcome))
    for name, tried in outcomes.items():
        role = contract.elements[name].role
        passed = next((pipeline for pipeline, _, outcome in tried if outcome is Outcome.CERTIFIED), None)
        reason = f"unit test certified in {passed}" if passed else "; ".join(f"{p}: {m}" for p, m, _ in tried)
        decisions.append(Decision(name, role, passed is not None, reason, passed))
    return decisions


def keep(source: str, decisions: list[Decision], backend: str, out: Path) -> Path:
    """Append the accepted functions (with their imports) to ``out/<backend>.py``; log every decision."""
    out.mkdir(parents=True, exist_ok=True)
    contract = analyse_script(source)
    accepted = [d for d in decisions if d.accepted]
    module = out / f"{backend}.py"
    if accepted:
        header = "" if module.is_file() else f'"""Background functions for {backend} accepted by physvec library build."""\n'
        imports = "\n".join(contract.imports) if contract.imports else ""
        blocks = [f"# accepted {time.strftime('%Y-%m-%d')}: {d.reason}\n{contract.elements[d.function].source}"
                  for d in accepted]
        with module.open("a", encoding="utf-8") as stream:
            stream.write(header + ("\n" + imports + "\n" if imports else "") + "\n\n" + "\n\n".join(blocks) + "\n")
    with (out / "build_log.jsonl").open("a", encoding="utf-8") as log:
        for decision in decisions:
            log.write(json.dumps({"time": time.time(), "backend": backend, **asdict(decision)}) + "\n")
    return module


def build(model: BaseChatModel, backend: str, request: str, out: Path, workdir: Path,
          pool: SandboxPool | None = None, limits: SandboxLimits = SandboxLimits(wall_s=300)) -> list[Decision]:
    """Propose, check and keep: the whole library build for one request."""
    try:
        source = propose(model, backend, request)
    except InvalidModelReply as error:
        decisions = [Decision("<proposal>", None, False, str(error))]
        keep("", decisions, backend, out)
        return decisions
    decisions = check(source, backend, workdir, pool or SandboxPool(), limits)
    keep(source, decisions, backend, out)
    return decisions
