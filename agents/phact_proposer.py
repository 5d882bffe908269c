"""The PHACT proposer loop as one LangGraph: a model proposes through tool calls, the engine judges.

    propose --tool call--> judge --failed, rounds left--> propose
       |                     '--certified / impossible / unknown, or rounds spent--> END
       '--prose--> supervise --re-prompt--> propose
                        '--too many prose replies in a row--> END (loop_fail)

The loop-closure supervisor notices a reply that restates values in prose instead of calling a tool and
asks for the call, quoting what it read; the engine never evaluates prose.  Every tool call is judged by
verifiers/phact/tools.py under the episode's contract, and the model sees only the engine's verdict and
the feedback form of the episode (weak, strong or structural, verifiers/phact/correction.py).

Episode outcomes: certified, impossible (an engine impossibility certificate; under the bare contract the
model's word), unknown (outside the engine's competence), loop_fail (rounds or patience spent) and
infra_fault (the provider failed; a resumed campaign runs the episode again).  A reply whose tool-call
arguments the provider cannot even turn into a message (a JSON string holding the object, say) is the
model's mistake, not the infrastructure's: it is a refused round, and the model is told why.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal, TypedDict

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage, ToolMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from pydantic import BaseModel, ConfigDict, ValidationError

from physvec.agents.model_client import BudgetExhausted, ModelClient, ModelUnavailable
from physvec.agents.prompts import render
from physvec.runstore.transcript import EventType
from physvec.verifiers.certificate import Certificate, Verdict
from physvec.verifiers.phact.correction import feedback
from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS
from physvec.verifiers.phact.schema import Goal, unmet
from physvec.verifiers.phact.tools import Contract, Judgement, judge_call, tool_schemas

ROLE = "phact_proposer"
CALLS_PER_EPISODE = 100
"""Model-call step numbers are episode * 100 + call, so a resumed campaign finds each recorded reply."""
FeedbackForm = Literal["weak", "strong", "structural"]


class LoopOutcome(StrEnum):
    CERTIFIED = "certified"
    IMPOSSIBLE = "impossible"
    UNKNOWN = "unknown"
    LOOP_FAIL = "loop_fail"
    INFRA_FAULT = "infra_fault"


TERMINAL = {Verdict.CERTIFIED: LoopOutcome.CERTIFIED, Verdict.IMPOSSIBLE: LoopOutcome.IMPOSSIBLE,
            Verdict.UNKNOWN: LoopOutcome.UNKNOWN}


@dataclass(frozen=True)
class LoopSettings:
    contract: Contract = Contract.STRUCTURAL
    feedback: FeedbackForm = "structural"
    rounds: int = 8
    """judged tool-call rounds before the episode is a loop_fail"""
    reprompts: int = 2
    """prose replies in a row the supervisor answers with a re-prompt before giving up"""

    def __post_init__(self) -> None:
        if not 1 <= self.rounds * (self.reprompts + 1) < CALLS_PER_EPISODE:
            raise ValueError(f"rounds x (reprompts + 1) must lie in [1, {CALLS_PER_EPISODE})")


class LoopState(TypedDict, total=False):
    messages: list[BaseMessage]
    calls: int
    rounds: int
    prose_in_a_row: int
    reprompts: int
    tool_calls: int
    refusals: int
    claimed_impossible: bool
    outcome: str
    reason: str
    certificate: Certificate | None
    design: dict[str, Any] | None


class LoopTally(BaseModel):
    """How an episode went, counted: the part of its result that every record keeps."""

    model_config = ConfigDict(frozen=True)

    rounds: int
    """judged tool-call rounds"""
    tool_calls: int
    refusals: int
    """tool calls the contract refused without evaluating anything"""
    reprompts: int
    claimed_impossible: bool
    design: dict[str, Any] | None
    """the input values of the last judged design"""


@dataclass
class EpisodeResult:
    outcome: LoopOutcome
    reason: str
    tally: LoopTally
    certificate: Certificate | None
    tokens: int = 0
    history: list[BaseMessage] = field(default_factory=list)


def opening_messages(goal: Goal, domain: Domain, contract: Contract) -> list[BaseMessage]:
    """The goal as the model sees it: bound values, free inputs with bounds, targets; no expected design."""
    tools = [schema["function"]["name"] for schema in tool_schemas(contract, goal, domain)]
    return [HumanMessage(render("phact_proposer.j2", goal=goal, domain=domain.name, inputs=domain.inputs,
                                derived=[node.name for node in domain.derived], tools=tools))]


_ASSIGNMENT = r"\b{name}\b\s*(?:=|:|is|of|to)\s*['\"]?([-+]?[0-9.]+(?:[eE][-+]?[0-9]+)?|[A-Za-z_]+)"


def restated_values(text: str, goal: Goal) -> dict[str, str]:
    """Free-input values a prose reply states (``name = value``, ``name: value``, ``name is value``)."""
    found = {}
    for name in goal.free:
        match = re.search(_ASSIGNMENT.format(name=re.escape(name)), text)
        if match:
            found[name] = match.group(1)
    return found


def reprompt(text: str, goal: Goal, contract: Contract) -> str:
    tool = "propose_design" if contract is Contract.STRUCTURAL else "submit_answer"
    stated = restated_values(text, goal)
    if stated:
        listed = ", ".join(f"{name} = {value}" for name, value in stated.items())
        return (f"You stated {listed} in prose. Prose is not evaluated: call {tool} with these values so the "
                f"engine can judge them.")
    if "impossib" in text.lower():
        return "You wrote that the goal is impossible in prose. Call declare_impossible with the reason."
    return f"Your reply called no tool. Act only through the tools: call {tool} or declare_impossible."


def told_about(judgement: Judgement, settings: LoopSettings, goal: Goal, domain: Domain) -> dict[str, Any]:
    """The tool result the model sees: the engine's verdict, what failed, and the episode's feedback form."""
    if judgement.certificate is None:
        return {"refused": judgement.refusal}
    certificate = judgement.certificate
    told: dict[str, Any] = {"verdict": certificate.verdict.value,
                            "failed": [{"obligation": o.name, "message": o.message} for o in certificate.failed()]}
    derived = certificate.summary.get("derived")
    if certificate.verdict is Verdict.FAILED and settings.contract is Contract.STRUCTURAL and derived is not None:
        violated = unmet(goal, {**goal.bound, **(judgement.design or {}), **derived})
        if violated:  # a design can also fail on its contract alone (a refused extra argument)
            try:
                told["feedback"] = feedback(settings.feedback, goal, domain, judgement.design or {}, violated[0])
            except ENGINE_REFUSALS as error:  # feedback is advice: an engine refusal never ends an episode
                told["feedback"] = {"violated": f"{violated[0].quantity} {violated[0].op} {violated[0].value:g}",
                                    "correction": f"the engine cannot search for a correction here: {error}"}
    return told


def unreadable_tool_call(error: BaseException) -> str | None:
    """Why the provider could not read the model's tool call, when that is what failed: the reply held
    arguments that are no JSON object (a string holding one, typically) and the message model refused them.
    None for every other failure, which stays an infrastructure fault."""
    cause = error.__cause__
    while cause is not None:
        if isinstance(cause, ValidationError) and cause.errors() and all(
                e["loc"][:1] == ("tool_calls",) for e in cause.errors()):
            return "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in cause.errors())
        cause = cause.__cause__
    return None


class Episode:
    """One goal, one model, one contract: what the nodes of the loop graph do to its state."""

    def __init__(self, goal: Goal, domain: Domain, client: ModelClient, settings: LoopSettings, index: int) -> None:
        self.goal, self.domain, self.client, self.settings, self.index = goal, domain, client, settings, index
        self.tools = tool_schemas(settings.contract, goal, domain)

    def run(self) -> EpisodeResult:
        tokens_before = self.client.tokens_used
        start: LoopState = {"messages": opening_messages(self.goal, self.domain, self.settings.contract),
                            "calls": 0, "rounds": 0, "prose_in_a_row": 0, "reprompts": 0, "tool_calls": 0,
                            "refusals": 0, "claimed_impossible": False, "certificate": None, "design": None}
        limit = 4 * self.settings.rounds * (self.settings.reprompts + 1) + 10
        state = LOOP.invoke(start, {"recursion_limit": limit, "configurable": {"episode": self}})
        tally = LoopTally(rounds=state["rounds"], tool_calls=state["tool_calls"], refusals=state["refusals"],
                          reprompts=state["reprompts"], claimed_impossible=state["claimed_impossible"],
                          design=state["design"])
        return EpisodeResult(outcome=LoopOutcome(state["outcome"]), reason=state.get("reason", ""), tally=tally,
                             certificate=state["certificate"], tokens=self.client.tokens_used - tokens_before,
                             history=state["messages"])

    def propose(self, state: LoopState) -> LoopState:
        try:
            reply = self.client.ask_message(ROLE, state["messages"], node=ROLE, step=self._step(state), tools=self.tools)
        except ModelUnavailable as error:
            unreadable = unreadable_tool_call(error)
            if unreadable is None:
                return {"outcome": LoopOutcome.INFRA_FAULT.value, "reason": str(error), "calls": state["calls"] + 1}
            return self._refuse_unreadable(state, unreadable)
        except BudgetExhausted as error:
            return {"outcome": LoopOutcome.LOOP_FAIL.value, "reason": f"token budget: {error}", "calls": state["calls"] + 1}
        calls = [{**call, "id": call.get("id") or f"call_{state['calls']}_{i}"} for i, call in enumerate(reply.tool_calls)]
        reply = AIMessage(content=reply.content, tool_calls=calls)
        return {"messages": [*state["messages"], reply], "calls": state["calls"] + 1}

    def _refuse_unreadable(self, state: LoopState, why: str) -> LoopState:
        """A model error: the round counts, as a refused tool call, and the model is told how to call."""
        message = (f"Your tool call could not be read ({why}). The arguments must be a JSON object, not a string "
                   "that holds one: call the tool again with the object itself.")
        self.client.transcript.append(EventType.INVALID_MODEL_REPLY, node=ROLE, step=self._step(state),
                                      goal=self.goal.id, problem=why[:500], told=message)
        update: LoopState = {"messages": [*state["messages"], HumanMessage(message)], "calls": state["calls"] + 1,
                             "rounds": state["rounds"] + 1, "tool_calls": state["tool_calls"] + 1,
                             "refusals": state["refusals"] + 1, "prose_in_a_row": 0}
        if update["rounds"] >= self.settings.rounds:
            update.update(outcome=LoopOutcome.LOOP_FAIL.value,
                          reason=f"no verdict after {update['rounds']} rounds (unreadable tool calls)")
        return update

    def supervise(self, state: LoopState) -> LoopState:
        text = str(state["messages"][-1].content)
        if state["prose_in_a_row"] >= self.settings.reprompts:
            return {"outcome": LoopOutcome.LOOP_FAIL.value,
                    "reason": f"{state['prose_in_a_row'] + 1} replies in a row called no tool"}
        message = reprompt(text, self.goal, self.settings.contract)
        self.client.transcript.append(EventType.SUPERVISOR_REPROMPT, node=ROLE, step=self._step(state),
                                      goal=self.goal.id, prose=text[:500], reprompt=message)
        return {"messages": [*state["messages"], HumanMessage(message)], "prose_in_a_row": state["prose_in_a_row"] + 1,
                "reprompts": state["reprompts"] + 1}

    def judge(self, state: LoopState) -> LoopState:
        reply = state["messages"][-1]
        update: LoopState = {"rounds": state["rounds"] + 1, "prose_in_a_row": 0,
                             "tool_calls": state["tool_calls"] + len(reply.tool_calls)}
        results: list[BaseMessage] = []
        refusals, claimed = state["refusals"], state["claimed_impossible"]
        for call in reply.tool_calls:
            judgement = judge_call(self.settings.contract, self.goal, self.domain, call["name"], call["args"])
            claimed = claimed or call["name"] == "declare_impossible"
            refusals += judgement.certificate is None
            told = told_about(judgement, self.settings, self.goal, self.domain)
            self.client.transcript.append(EventType.TOOL_CALL, node=ROLE, step=self._step(state), goal=self.goal.id,
                                          tool=call["name"], arguments=call["args"], told=told,
                                          certificate=judgement.certificate.model_dump(mode="json")
                                          if judgement.certificate else None)
            results.append(ToolMessage(json.dumps(told, default=str), tool_call_id=call["id"]))
            if judgement.design is not None:
                update["design"] = judgement.design
            if judgement.certificate is not None:
                update["certificate"] = judgement.certificate
                if judgement.certificate.verdict in TERMINAL:
                    update.update(outcome=TERMINAL[judgement.certificate.verdict].value,
                                  reason=f"{call['name']} judged {judgement.certificate.verdict.value}")
                    break
        update.update(messages=[*state["messages"], *results], refusals=refusals, claimed_impossible=claimed)
        if "outcome" not in update and update["rounds"] >= self.settings.rounds:
            update.update(outcome=LoopOutcome.LOOP_FAIL.value, reason=f"no verdict after {update['rounds']} rounds")
        return update

    def _step(self, state: LoopState) -> int:
        return self.index * CALLS_PER_EPISODE + state["calls"]


def _episode(config: RunnableConfig) -> Episode:
    return config["configurable"]["episode"]


def _after_propose(state: LoopState) -> str:
    if "outcome" in state:
        return END
    last = state["messages"][-1]
    if not isinstance(last, AIMessage):  # the refusal of an unreadable reply: the model tries again
        return "propose"
    return "judge" if last.tool_calls else "supervise"


def _unless_finished(state: LoopState) -> str:
    return END if "outcome" in state else "propose"


def _loop_graph() -> Any:
    """The graph is the same for every episode; each run passes its Episode in the config."""
    graph = StateGraph(LoopState)
    graph.add_node("propose", lambda state, config: _episode(config).propose(state))
    graph.add_node("supervise", lambda state, config: _episode(config).supervise(state))
    graph.add_node("judge", lambda state, config: _episode(config).judge(state))
    graph.add_edge(START, "propose")
    graph.add_conditional_edges("propose", _after_propose, ["propose", "judge", "supervise", END])
    graph.add_conditional_edges("supervise", _unless_finished, ["propose", END])
    graph.add_conditional_edges("judge", _unless_finished, ["propose", END])
    return graph.compile()


LOOP = _loop_graph()
