"""Goals and designs as files: their schema, their validation against a domain, and target checks.

A goal binds some inputs of its domain and frees the others (each with bounds, or a list of choices);
targets constrain quantities of the domain with the goal's tolerance.  A design names its goal and
gives values; whether those values are allowed is the contract's business (contract.py).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from physvec.verifiers.phact.domains import DOMAINS, Domain


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

    def first(self) -> Any:
        """The first choice, or the lower bound: a value every goal admits, with no search behind it."""
        return self.choices[0] if self.choices is not None else self.min

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


def margin(target: Target, value: float, tolerance: float) -> float:
    """How far ``value`` lies inside the target's tolerance band: >= 0 exactly when the target is met."""
    if target.op == ">=":
        return value - (target.value - tolerance)
    if target.op == "<=":
        return (target.value + tolerance) - value
    return tolerance - abs(value - target.value)


def meets(target: Target, value: float, tolerance: float) -> bool:
    return margin(target, value, tolerance) >= 0


def unmet(goal: Goal, values: dict[str, Any]) -> list[Target]:
    """The goal's targets that the evaluated ``values`` miss, in the goal's order."""
    return [t for t in goal.targets if not meets(t, float(values[t.quantity]), goal.tolerance)]
