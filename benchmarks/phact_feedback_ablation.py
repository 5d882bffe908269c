"""Feedback-form ablation of the PHACT loop: rounds to certify under weak, strong and structural feedback.

No language model runs usefully on our machines, so the proposer here is a literal feedback follower, a
deterministic stand-in for a model (it is not one, and says so in its type name):
- first round: the centre of the free box (geometric on a log axis), first of any choices;
- a correction in the feedback ("set"): apply it;
- weak feedback only (the violated target and the engine's value): a secant step on the first continuous
  free input, in log space where the interval spans decades, on the signed excess over the threshold;
- no continuous input or no usable step: the next choice of the first choice input.
It measures how much each form carries for a follower that does no physics of its own; with a real
model, run `phact run --model SPEC --feedback FORM` three times and compare with `phact report`.

    python benchmarks/phact_feedback_ablation.py [--rounds 8]
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import tempfile
from pathlib import Path
from typing import Any

from langchain_core.language_models import BaseChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatGeneration, ChatResult
from rich.console import Console
from rich.table import Table

from physvec.agents.model_client import ModelClient
from physvec.agents.phact_campaign import PhactRun, run_campaign
from physvec.agents.phact_proposer import LoopSettings
from physvec.runstore.transcript import Transcript
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.report import rate


class FeedbackFollower(BaseChatModel):
    """Proposes designs by following the engine's feedback literally (a stand-in for a model)."""

    tools: list[dict[str, Any]] = []

    @property
    def _llm_type(self) -> str:
        return "feedback-follower-not-a-language-model"

    def bind_tools(self, tools: Any, **kwargs: Any) -> FeedbackFollower:  # type: ignore[override]
        return self.model_copy(update={"tools": list(tools)})

    def _generate(self, messages: list[BaseMessage], stop: Any = None, run_manager: Any = None, **kwargs: Any) -> ChatResult:
        inputs = next(t for t in self.tools if t["function"]["name"] == "propose_design")["function"]["parameters"][
            "properties"]["values"]["properties"]
        history = _proposals(messages)
        values = _next_design(inputs, history)
        reply = AIMessage(content="", tool_calls=[{"name": "propose_design", "args": {"values": values},
                                                   "id": f"follow_{len(history)}"}])
        return ChatResult(generations=[ChatGeneration(message=reply)])


def _proposals(messages: list[BaseMessage]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(values proposed, what the engine said) for every judged proposal so far."""
    said = {m.tool_call_id: json.loads(m.content) for m in messages if isinstance(m, ToolMessage)}
    return [(call["args"]["values"], said[call["id"]]) for m in messages if isinstance(m, AIMessage)
            for call in m.tool_calls if call["id"] in said]


def _is_log(schema: dict[str, Any]) -> bool:
    return schema["minimum"] > 0 and schema["maximum"] / schema["minimum"] > 10


def _centre(schema: dict[str, Any]) -> Any:
    if "enum" in schema:
        return schema["enum"][0]
    low, high = schema["minimum"], schema["maximum"]
    return math.sqrt(low * high) if _is_log(schema) else (low + high) / 2


def _excess(feedback: dict[str, Any]) -> float:
    quantity_op_threshold = feedback["violated"].split()
    op, threshold = quantity_op_threshold[1], float(quantity_op_threshold[2])
    return feedback["value"] - threshold if op != "<=" else threshold - feedback["value"]


def _next_design(inputs: dict[str, dict[str, Any]], history: list[tuple[dict[str, Any], dict[str, Any]]]) -> dict[str, Any]:
    if not history:
        return {name: _centre(schema) for name, schema in inputs.items()}
    last, told = history[-1]
    feedback = told.get("feedback", {})
    if "set" in feedback:
        return {**last, **feedback["set"]}
    continuous = [name for name, schema in inputs.items() if "enum" not in schema]
    if continuous and "value" in feedback:
        return {**last, continuous[0]: _secant_step(inputs[continuous[0]], continuous[0], history)}
    choices = [name for name, schema in inputs.items() if "enum" in schema]
    if choices:
        options = inputs[choices[0]]["enum"]
        return {**last, choices[0]: options[(options.index(last[choices[0]]) + 1) % len(options)]}
    return last


def _secant_step(schema: dict[str, Any], name: str, history: list[tuple[dict[str, Any], dict[str, Any]]]) -> float:
    to_axis = math.log if _is_log(schema) else (lambda v: v)
    from_axis = math.exp if _is_log(schema) else (lambda v: v)
    points = [(to_axis(values[name]), _excess(told["feedback"])) for values, told in history if "value" in told.get("feedback", {})]
    x, e = points[-1]
    if len(points) < 2 or points[-2][1] == e or points[-2][0] == x:
        span = to_axis(schema["maximum"]) - to_axis(schema["minimum"])
        step = x + 0.1 * span  # a first probe: a tenth of the axis upwards
    else:
        (x0, e0) = points[-2]
        step = x - e * (x - x0) / (e - e0)
    return float(min(max(from_axis(step), schema["minimum"]), schema["maximum"]))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=8)
    arguments = parser.parse_args()
    goals = [(goal, domain) for _, goal, domain in corpus() if not goal.impossible_because and goal.free]
    table = Table(title=f"Feedback forms, literal follower, {len(goals)} feasible design goals, {arguments.rounds} rounds")
    for column in ("feedback", "certified [Wilson 95%]", "rounds to certify: mean", "median", "false certificates"):
        table.add_column(column)
    with tempfile.TemporaryDirectory(prefix="phact-ablation-") as scratch:
        for form in ("weak", "strong", "structural"):
            run = PhactRun(Path(scratch) / form)
            client = ModelClient(FeedbackFollower(), Transcript(run.folder / "transcript.jsonl"), token_budget=10**9)
            records = run_campaign(run, goals, LoopSettings(feedback=form, rounds=arguments.rounds), 1, client)
            certified = [r.rounds for r in records if r.outcome == "certified"]
            share = rate(len(certified), len(records))
            rounds = sorted(certified)
            table.add_row(form, f"{share['count']}/{share['of']} [{share['wilson95'][0]:.2f}, {share['wilson95'][1]:.2f}]",
                          f"{sum(rounds) / len(rounds):.2f}" if rounds else "-",
                          f"{rounds[len(rounds) // 2]}" if rounds else "-", str(sum(r.false_certificate for r in records)))
    Console().print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
