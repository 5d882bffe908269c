"""The structural contract: what a goal fixes, what a design may write, and the engine's verdict.

A goal file binds some inputs of its domain and frees the others (each with bounds, or a list of
choices); targets constrain derived quantities, with the goal's tolerance.  A design may write only the
free inputs, all of them, within their bounds; every certified number is computed by the domain's
engine from the goal's bound values and the design's free values, so nothing the model says about an
outcome can reach the certificate.

Verdicts: certified when every obligation holds; impossible only with an engine-made certificate (the
bound inputs alone miss a target that no free input reaches, or the best value a search over the free
box achieves still misses it); unknown when the engine is outside its competence.
"""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path
from typing import Any, Literal

import networkx as nx
import numpy as np
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator
from scipy.optimize import minimize

from verifiers.certificate import Certificate, Obligation, Outcome, digest
from verifiers.phact.domains import DOMAINS, Domain
from verifiers.phact.engines.colloids import OutsideCompetence
from verifiers.phact.engines.dna import SequenceError

VERIFIER = "phact"
GRID_POINTS = 17
"""Points per continuous free input in the impossibility search (then refined locally)."""


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FreeInput(_Strict):
    """A free input: a closed interval [min, max], or a list of choices."""

    min: float | None = None
    max: float | None = None
    choices: list[Any] | None = None

    @model_validator(mode="after")
    def _one_kind(self) -> FreeInput:
        interval = self.min is not None and self.max is not None
        if interval == (self.choices is not None) or (interval and not self.min <= self.max):
            raise ValueError("give either min <= max or a non-empty list of choices")
        if self.choices is not None and not self.choices:
            raise ValueError("choices must not be empty")
        return self

    def admits(self, value: Any) -> bool:
        if self.choices is not None:
            return value in self.choices
        return isinstance(value, (int, float)) and not isinstance(value, bool) and self.min <= value <= self.max


class Target(_Strict):
    quantity: str
    op: Literal[">=", "<=", "=="]
    value: float


class Goal(_Strict):
    id: str
    domain: str
    kind: Literal["design", "verification"] = "design"
    statement: str = ""
    bound: dict[str, Any]
    free: dict[str, FreeInput] = Field(default_factory=dict)
    targets: list[Target] = Field(min_length=1)
    tolerance: float = Field(ge=0)
    impossible_because: str = ""
    """for goals written to be impossible: the physical reason (documentation, never read by the engine)"""


class Design(_Strict):
    goal: str
    values: dict[str, Any]
    claims_impossible: bool = False


class MalformedInput(ValueError):
    """A goal or design file that cannot be read; the message names the field."""


def _problems(error: ValidationError, prefix: str) -> list[str]:
    return [f"{prefix}{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors()]


def parse_goal(data: Any) -> tuple[Goal, Domain]:
    try:
        goal = Goal.model_validate(data)
    except ValidationError as error:
        raise MalformedInput("; ".join(_problems(error, "goal."))) from None
    if goal.domain not in DOMAINS:
        raise MalformedInput(f"goal.domain: unknown domain {goal.domain!r} (known: {', '.join(sorted(DOMAINS))})")
    domain = DOMAINS[goal.domain]
    problems = [f"goal.bound.{name}: not an input of {domain.name}" for name in goal.bound if name not in domain.inputs]
    problems += [f"goal.free.{name}: not an input of {domain.name}" for name in goal.free if name not in domain.inputs]
    problems += [f"goal.free.{name}: also bound" for name in goal.free if name in goal.bound]
    problems += [f"goal: input {name} is neither bound nor free" for name in domain.inputs
                 if name not in goal.bound and name not in goal.free]
    problems += [f"goal.targets.{i}.quantity: {t.quantity!r} is not a quantity of {domain.name}"
                 for i, t in enumerate(goal.targets) if t.quantity not in domain.quantities]
    if problems:
        raise MalformedInput("; ".join(problems))
    return goal, domain


def parse_design(data: Any) -> Design:
    try:
        return Design.model_validate(data)
    except ValidationError as error:
        raise MalformedInput("; ".join(_problems(error, "design."))) from None


def read_json(path: Path, what: str) -> Any:
    try:
        return json.loads(path.read_text())
    except OSError as error:
        raise MalformedInput(f"{what} {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise MalformedInput(f"{what} {path}: not JSON ({error.msg} at line {error.lineno})") from None


def meets(target: Target, value: float, tolerance: float) -> bool:
    if target.op == ">=":
        return value >= target.value - tolerance
    if target.op == "<=":
        return value <= target.value + tolerance
    return abs(value - target.value) <= tolerance


def contract_obligations(goal: Goal, design: Design) -> list[Obligation]:
    """The design may write only free inputs, must write each, and must stay within their bounds."""
    written = set(design.values)
    forged = sorted(written & set(goal.bound))
    unknown = sorted(written - set(goal.bound) - set(goal.free))
    missing = sorted(set(goal.free) - written)
    outside = sorted(name for name in written & set(goal.free) if not goal.free[name].admits(design.values[name]))

    def row(name: str, bad: list[str], message: str) -> Obligation:
        return Obligation(name=name, category="contract", outcome=Outcome.FAILED if bad else Outcome.CERTIFIED,
                          message=f"{message}: {', '.join(bad)}" if bad else "holds", evidence={"inputs": bad})
    return [row("writes_only_free_inputs", forged + unknown, "the design writes inputs the goal binds or does not have"),
            row("sets_every_free_input", missing, "the design leaves free inputs unset"),
            row("free_inputs_within_bounds", outside, "the design leaves the bounds of")]


def target_obligations(goal: Goal, values: dict[str, Any]) -> list[Obligation]:
    return [Obligation(name=f"target:{t.quantity} {t.op} {t.value:g}", category="target",
                       outcome=Outcome.CERTIFIED if meets(t, float(values[t.quantity]), goal.tolerance) else Outcome.FAILED,
                       message=f"{t.quantity} = {float(values[t.quantity]):.6g}",
                       evidence={"quantity": t.quantity, "value": float(values[t.quantity]), "op": t.op,
                                 "target": t.value, "tolerance": goal.tolerance})
            for t in goal.targets]


def _free_points(goal: Goal) -> list[dict[str, Any]]:
    """A deterministic grid over the free box: choices enumerated, intervals sampled (log-spaced when
    positive and wider than a decade)."""
    axes = []
    for name, free in sorted(goal.free.items()):
        if free.choices is not None:
            axes.append([(name, choice) for choice in free.choices])
        elif free.min > 0 and free.max / free.min > 10:
            axes.append([(name, float(v)) for v in np.geomspace(free.min, free.max, GRID_POINTS)])
        else:
            axes.append([(name, float(v)) for v in np.linspace(free.min, free.max, GRID_POINTS)])
    return [dict(point) for point in itertools.product(*axes)] if axes else [{}]


def _best(goal: Goal, domain: Domain, target: Target) -> tuple[float, dict[str, Any]]:
    """The most favourable value of the target's quantity over the free box (grid, then local refinement)."""
    sign = -1.0 if target.op == ">=" else 1.0
    if target.op == "==":
        def score(value: float) -> float:
            return abs(value - target.value)
    else:
        def score(value: float) -> float:
            return sign * value

    def quantity(point: dict[str, Any]) -> float:
        return float(domain.evaluate({**goal.bound, **point})[target.quantity])

    best_point, best_value = None, math.nan
    for point in _free_points(goal):
        try:
            value = quantity(point)
        except (OutsideCompetence, SequenceError, ValueError, ZeroDivisionError):
            continue
        if best_point is None or score(value) < score(best_value):
            best_point, best_value = point, value
    if best_point is None:
        raise OutsideCompetence("the engine cannot evaluate any design in the free box")
    continuous = [n for n in sorted(goal.free) if goal.free[n].choices is None]
    if continuous:
        fixed = {n: v for n, v in best_point.items() if n not in continuous}

        def objective(x: np.ndarray) -> float:
            try:
                return score(quantity({**fixed, **dict(zip(continuous, map(float, x), strict=True))}))
            except (OutsideCompetence, SequenceError, ValueError, ZeroDivisionError):
                return math.inf
        refined = minimize(objective, [best_point[n] for n in continuous], method="Powell",
                           bounds=[(goal.free[n].min, goal.free[n].max) for n in continuous])
        if np.isfinite(refined.fun) and refined.fun < score(best_value):
            best_point = {**fixed, **dict(zip(continuous, map(float, refined.x), strict=True))}
            best_value = quantity(best_point)
    return best_value, best_point


def impossibility(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """An engine-made certificate that no design in the free box meets some target, or None."""
    graph = domain.graph()
    for target in goal.targets:
        depends = {name for name in goal.free if nx.has_path(graph, name, target.quantity)}
        if not depends:
            value = float(domain.evaluate({**goal.bound, **{n: _any_value(f) for n, f in goal.free.items()}})[target.quantity])
            if not meets(target, value, goal.tolerance):
                return {"target": target.model_dump(), "reason": "the bound inputs alone fix this quantity",
                        "value": value}
            continue
        best, where = _best(goal, domain, target)
        if not meets(target, best, goal.tolerance):
            return {"target": target.model_dump(), "reason": "no design in the free box reaches it",
                    "best_achievable": best, "at": where, "free_inputs_on_path": sorted(depends),
                    "search": f"grid of {GRID_POINTS} points per interval, choices enumerated, Powell refinement"}
    return None


def _any_value(free: Any) -> Any:
    return free.choices[0] if free.choices is not None else free.min


def certify(goal: Goal, domain: Domain, design: Design) -> Certificate:
    """The engine's verdict on a design for a goal; the design's own impossibility claim is only recorded."""
    obligations = contract_obligations(goal, design)
    summary: dict[str, Any] = {"goal": goal.id, "domain": domain.name, "design_claims_impossible": design.claims_impossible}
    subject = digest(json.dumps({"goal": goal.model_dump(mode="json"), "design": design.model_dump(mode="json")},
                                sort_keys=True, default=str))
    proof = None
    try:
        if all(o.outcome is Outcome.CERTIFIED for o in obligations):
            values = domain.evaluate({**goal.bound, **design.values})
            summary["derived"] = {n.name: values[n.name] for n in domain.derived}
            obligations += target_obligations(goal, values)
        if any(o.outcome is Outcome.FAILED for o in obligations) or design.claims_impossible:
            proof = impossibility(goal, domain)
    except (OutsideCompetence, SequenceError) as error:
        obligations.append(Obligation(name="engine_competence", category="competence", outcome=Outcome.UNKNOWN,
                                      message=str(error)))
        # outside competence nothing is certified: only the contract's failures stand beside "unknown"
        obligations = [o for o in obligations if o.outcome is Outcome.FAILED] + [obligations[-1]]
    return Certificate(verifier=VERIFIER, subject_digest=subject, obligations=tuple(obligations),
                       impossibility=proof, summary=summary)
