"""Rubric grading: machine checks by code, prose leaves by a majority of model votes.

A machine check (``chi_max >= 100``, ``N_up == L / 2``) is evaluated against the script's PARAMS or
its results with no builtins, so the same script always gets the same score.  A prose leaf is judged
from the script text by a model asked several times at rising temperature; every vote is evidence,
and only a strict majority decides.  The weighted score averages children by weight, level by level.

Votes are a model's opinion, so they never certify on their own: when no check decided by code
certifies anything, a yes-majority leaf is reported as unknown (``without_code_evidence``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import BaseModel, ValidationError

from physvec.taskfiles.rubric import Rubric, RubricNode, parse_check
from physvec.taskfiles.substitution import substitution_reason
from physvec.verifiers.certificate import Obligation, Outcome

RUBRIC = "rubric"
VOTE_TEMPERATURES = (0.0, 0.5, 1.0)
_VERDICT = re.compile(r"VERDICT:\s*(yes|no)\b", re.IGNORECASE)



class RubricVote(BaseModel):
    """A prose-leaf vote's shape, asked for as structured output (the reasoning comes first, so the verdict is
    conditioned on it)."""

    reasoning: str
    verdict: Literal["yes", "no"]


ProseJudge = Callable[[RubricNode, float], "str | None"]
"""(leaf, temperature) -> the model's reply about the script, or None when no reply came."""


def evaluate_check(check: str, values: dict[str, Any]) -> tuple[bool | None, str]:
    """Evaluate a validated comparison; (None, why) when a name is missing or the values do not compare."""
    tree = parse_check(check)
    missing = sorted({node.id for node in _names(tree)} - set(values))
    if missing:
        return None, f"no value for {', '.join(missing)}"
    try:
        outcome = eval(compile(tree, "<rubric check>", "eval"), {"__builtins__": {}}, dict(values))  # noqa: S307
    except Exception as error:  # a comparison of incomparable values is the script's problem, reported
        return None, f"{type(error).__name__}: {error}"
    return bool(outcome), ""


def _names(tree: Any) -> list[Any]:
    import ast

    return [node for node in ast.walk(tree) if isinstance(node, ast.Name)]


def _machine_leaf(leaf: RubricNode, params: dict[str, Any], results: dict[str, Any]) -> Obligation:
    values = params if leaf.check_on == "params" else results
    holds, problem = evaluate_check(leaf.check or "", values)
    evidence = {"check": leaf.check, "on": leaf.check_on,
                "values": {node.id: values.get(node.id) for node in _names(parse_check(leaf.check or ""))}}
    if holds is None:
        return Obligation(name=f"rubric:{leaf.name}", category=RUBRIC, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"cannot evaluate {leaf.check!r} on the script's {leaf.check_on}: {problem}")
    return Obligation(name=f"rubric:{leaf.name}", category=RUBRIC, evidence=evidence,
                      outcome=Outcome.CERTIFIED if holds else Outcome.FAILED,
                      message=f"{leaf.check} {'holds' if holds else 'does not hold'}")


def parse_vote(reply: str | None) -> bool | None:
    """yes/no from a judge reply: a RubricVote JSON object (structured output), else its last 'VERDICT: yes|no'
    line (a provider without structured output, or an older record); None if it has neither."""
    if reply is None:
        return None
    try:
        return RubricVote.model_validate(json.loads(reply)).verdict == "yes"
    except (ValueError, ValidationError):
        found = _VERDICT.findall(reply)
        return found[-1].lower() == "yes" if found else None


def _prose_leaf(leaf: RubricNode, judge: ProseJudge | None, temperatures: Sequence[float]) -> Obligation:
    name = f"rubric:{leaf.name}"
    if judge is None:
        return Obligation(name=name, category=RUBRIC, outcome=Outcome.UNKNOWN,
                          message="prose leaf: no model was available to judge it")
    votes = [{"temperature": t, "reply": reply, "vote": parse_vote(reply)}
             for t in temperatures for reply in [judge(leaf, t)]]
    yes = sum(v["vote"] is True for v in votes)
    no = sum(v["vote"] is False for v in votes)
    majority = len(votes) // 2 + 1
    outcome = Outcome.CERTIFIED if yes >= majority else Outcome.FAILED if no >= majority else Outcome.UNKNOWN
    return Obligation(name=name, category=RUBRIC, outcome=outcome, evidence={"votes": votes},
                      message=f"{yes} yes, {no} no, {len(votes) - yes - no} unusable of {len(votes)} votes")


def is_model_vote(obligation: Obligation) -> bool:
    """A prose leaf decided by model votes, as opposed to a check decided by code."""
    return obligation.category == RUBRIC and "votes" in obligation.evidence


def without_code_evidence(obligations: list[Obligation]) -> list[Obligation]:
    """The obligations, with yes-majority prose leaves made unknown when nothing decided by code certified."""
    if any(o.outcome is Outcome.CERTIFIED and not is_model_vote(o) for o in obligations):
        return obligations
    return [o.model_copy(update={"outcome": Outcome.UNKNOWN,
                                 "message": f"{o.message}; model votes alone never certify a script"})
            if is_model_vote(o) and o.outcome is Outcome.CERTIFIED else o for o in obligations]


def weighted_score(node: RubricNode, leaf_scores: dict[str, float]) -> float:
    """A leaf scores 1 when certified; a node scores the weight-average of its children.  Leaves without a
    score (not applicable) and nodes with none below them are left out of the average."""
    scored = [child for child in node.children if _has_score(child, leaf_scores)]
    if not node.children:
        return leaf_scores.get(node.name, 0.0)
    total = sum(child.weight for child in scored)
    return sum(child.weight * weighted_score(child, leaf_scores) for child in scored) / total if total else 0.0


def _has_score(node: RubricNode, leaf_scores: dict[str, float]) -> bool:
    return node.name in leaf_scores if not node.children else any(_has_score(c, leaf_scores) for c in node.children)


def _not_applicable(leaf: RubricNode, reason: str) -> Obligation:
    return Obligation(name=f"rubric:{leaf.name}", category=RUBRIC, outcome=Outcome.NOT_APPLICABLE, message=reason)


def grade_rubric(rubric: Rubric, params: dict[str, Any], results: dict[str, Any], judge: ProseJudge | None,
                 temperatures: Sequence[float] = VOTE_TEMPERATURES,
                 substitutions: dict[str, str] | None = None) -> tuple[list[Obligation], float]:
    """One obligation per leaf, and the rubric's weighted score in [0, 1] over the applicable leaves; a leaf
    that demands a package the run substitutes is not applicable (never certified, never judged)."""
    obligations = []
    for section in rubric.sections:
        for leaf in section.leaves():
            reason = substitution_reason(substitutions or {}, f"{leaf.name} {leaf.description}")
            obligations.append(_not_applicable(leaf, reason) if reason
                               else _machine_leaf(leaf, params, results) if leaf.check
                               else _prose_leaf(leaf, judge, temperatures))
    scores = {o.name.removeprefix("rubric:"): 1.0 if o.outcome is Outcome.CERTIFIED else 0.0 for o in obligations
              if o.outcome is not Outcome.NOT_APPLICABLE}
    root = RubricNode(name="rubric", children=list(rubric.sections),
                      weight=1.0)
    return obligations, weighted_score(root, scores)
