"""The tools a proposer may call, and how the engine judges each call, under two contracts.

structural  ``propose_design(values)`` writes free inputs only; the engine derives every outcome from the
            goal's bound values and those free values, with the goal's tolerance (contract.py).
            ``declare_impossible(reason)`` is a claim: it becomes the verdict only with an engine-made
            impossibility certificate.
bare        the answer-submitting validator kept for comparison: ``submit_answer(inputs, claimed,
            tolerance)`` takes whatever the model sends (bound inputs, claimed outcome values, a tolerance)
            and checks the targets against it; ``declare_impossible`` is taken at its word.  It exists to
            show what the structural contract prevents, and is never used to certify anything else.

A call to a tool the contract does not offer, or with arguments that are not JSON objects, is a refusal:
nothing is evaluated and the model is told which tools exist.  Arguments sent as a JSON string that holds
a JSON object (a common slip of models) are read as that object: one level, and only when the string
parses to an object, so nothing else is guessed.

Whether a verdict was true is not this module's business: the campaign asks ground_truth.py, which shares
no code with the verdict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from pydantic import ValidationError

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest
from physvec.verifiers.phact.contract import VERIFIER, certify, impossibility, target_obligations
from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS
from physvec.verifiers.phact.schema import Design, Goal

BARE_VERIFIER = "phact-bare"


class Contract(StrEnum):
    STRUCTURAL = "structural"
    BARE = "bare"


@dataclass(frozen=True)
class Judgement:
    """What the engine made of one tool call: a certificate, or a refusal with no evaluation at all."""

    certificate: Certificate | None
    refusal: str = ""
    design: dict[str, Any] | None = None
    """the input values the call asked the engine to evaluate (for the record and the ground-truth check)"""


def _function(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": {
        "type": "object", "properties": properties, "required": required}}}


def _free_input_schema(goal: Goal, domain: Domain) -> dict[str, Any]:
    properties = {}
    for name, free in goal.free.items():
        about = domain.inputs[name]
        properties[name] = ({"enum": free.choices, "description": about} if free.choices is not None else
                            {"type": "number", "minimum": free.min, "maximum": free.max, "description": about})
    return {"type": "object", "properties": properties, "description": "a value for every free input"}


DECLARE_IMPOSSIBLE = ("declare_impossible", "claim that no design within the free inputs' bounds meets the targets; "
                      "the engine decides whether the claim stands",
                      {"reason": {"type": "string", "description": "the physical reason"}}, ["reason"])


def tool_schemas(contract: Contract, goal: Goal, domain: Domain) -> list[dict[str, Any]]:
    """The tools offered under ``contract`` (OpenAI function schemas)."""
    if contract is Contract.STRUCTURAL:
        propose = _function("propose_design", "have the engine evaluate a design: set every free input, nothing else",
                            {"values": _free_input_schema(goal, domain)}, ["values"])
        return [propose, _function(*DECLARE_IMPOSSIBLE)]
    submit = _function("submit_answer", "submit an answer: input values, the outcome values you computed, and a "
                       "tolerance", {"inputs": {"type": "object"}, "claimed": {"type": "object"},
                                     "tolerance": {"type": "number"}}, ["inputs"])
    return [submit, _function(*DECLARE_IMPOSSIBLE)]


def decoded(value: Any) -> Any:
    """``value``, or the JSON object a string holds (one level of string encoding, never more)."""
    if not isinstance(value, str):
        return value
    try:
        inner = json.loads(value)
    except (ValueError, RecursionError):
        return value
    return inner if isinstance(inner, dict) else value


def judge_call(contract: Contract, goal: Goal, domain: Domain, name: str, arguments: Any) -> Judgement:
    """The engine's judgement of one tool call under ``contract``."""
    offered = [schema["function"]["name"] for schema in tool_schemas(contract, goal, domain)]
    if name not in offered:
        return Judgement(None, f"there is no tool {name!r}; the tools are {', '.join(offered)}")
    arguments = decoded(arguments)
    if not isinstance(arguments, dict):
        return Judgement(None, f"the arguments of {name} must be a JSON object")
    if name == "declare_impossible":
        return Judgement(judge_impossibility_claim(goal, domain, str(arguments.get("reason", "")), contract))
    if name == "propose_design":
        return _judge_proposal(goal, domain, arguments)
    return _judge_bare_answer(goal, domain, arguments)


def _judge_proposal(goal: Goal, domain: Domain, arguments: dict[str, Any]) -> Judgement:
    values = decoded(arguments.get("values"))
    if not isinstance(values, dict):
        return Judgement(None, "propose_design needs 'values': an object with a value for every free input")
    try:
        design = Design(goal=goal.id, values=values)
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'][1:]))}: {e['msg'].removeprefix('Value error, ')}"
                             for e in error.errors())
        return Judgement(None, f"propose_design's values must be finite numbers or names: {problems}")
    certificate = certify(goal, domain, design)
    extra = sorted(set(arguments) - {"values"})
    if extra:  # a claimed outcome or a tolerance sent along is named and fails; the engine never reads it
        refused = Obligation(name="tool_arguments_are_design_values", category="contract", outcome=Outcome.FAILED,
                             message=f"propose_design takes only 'values'; ignored and refused: {', '.join(extra)}",
                             evidence={"arguments": extra})
        certificate = certificate.model_copy(update={"obligations": (refused, *certificate.obligations)})
    return Judgement(certificate, design=values)


def judge_impossibility_claim(goal: Goal, domain: Domain, reason: str, contract: Contract) -> Certificate:
    """Structural: the claim stands only with the engine's impossibility certificate.  Bare: it stands."""
    summary = {"goal": goal.id, "domain": domain.name, "claimed_reason": reason}
    subject = digest(json.dumps({"goal": goal.id, "claim": "impossible", "reason": reason}))
    if contract is Contract.BARE:
        taken = Obligation(name="impossibility_claim_accepted", category="bare", outcome=Outcome.CERTIFIED,
                           message="the bare validator takes the model's claim at its word")
        return Certificate(verifier=BARE_VERIFIER, subject_digest=subject, obligations=(taken,),
                           impossibility={"claimed_by_model": reason}, summary=summary)
    try:
        proof = impossibility(goal, domain)
    except ENGINE_REFUSALS as error:
        outside = Obligation(name="engine_competence", category="competence", outcome=Outcome.UNKNOWN, message=str(error))
        return Certificate(verifier=VERIFIER, subject_digest=subject, obligations=(outside,), summary=summary)
    confirmed = Obligation(
        name="engine_confirms_impossibility", category="impossibility",
        outcome=Outcome.CERTIFIED if proof else Outcome.FAILED,
        message="the engine's certificate shows no design in the free box meets the targets" if proof else
        "the engine finds no impossibility certificate: keep proposing designs")
    return Certificate(verifier=VERIFIER, subject_digest=subject, obligations=(confirmed,), impossibility=proof,
                       summary=summary)


def _judge_bare_answer(goal: Goal, domain: Domain, arguments: dict[str, Any]) -> Judgement:
    """Whatever the model sends is taken (that is the bare contract); only what cannot be read is refused."""
    inputs, claimed = decoded(arguments.get("inputs", {})), decoded(arguments.get("claimed", {}))
    if not isinstance(inputs, dict) or not isinstance(claimed, dict):
        return Judgement(None, "submit_answer needs 'inputs' (and optionally 'claimed') as JSON objects")
    values = {**goal.bound, **inputs}
    try:
        tolerance = float(arguments.get("tolerance", goal.tolerance))
    except (TypeError, ValueError, OverflowError):
        return Judgement(None, "submit_answer's 'tolerance' must be a number")
    try:
        derived = domain.evaluate(values) if set(domain.inputs) <= set(values) else dict(values)
    except (*ENGINE_REFUSALS, TypeError) as error:  # a model's input of the wrong type, not an engine fault
        return Judgement(None, f"the inputs could not be evaluated: {error}")
    answer = {**derived, **claimed}
    missing = [t.quantity for t in goal.targets if t.quantity not in answer]
    if missing:
        return Judgement(None, f"submit_answer gives no value for {', '.join(missing)}", design=inputs)
    unreadable = [t.quantity for t in goal.targets if not _is_number(answer[t.quantity])]
    if unreadable:
        return Judgement(None, f"submit_answer's values for {', '.join(unreadable)} are not numbers", design=inputs)
    bare_goal = goal.model_copy(update={"tolerance": tolerance})
    certificate = Certificate(verifier=BARE_VERIFIER, subject_digest=digest(json.dumps(arguments, sort_keys=True, default=str)),
                              obligations=tuple(target_obligations(bare_goal, answer)),
                              summary={"goal": goal.id, "domain": domain.name, "submitted": arguments})
    return Judgement(certificate, design=inputs)


def _is_number(value: Any) -> bool:
    try:
        float(value)
    except (TypeError, ValueError, OverflowError):
        return False
    return True
