"""Goals and designs as files: their schema, their validation against a domain, and target checks.

A goal binds some inputs of its domain and frees the others (each with bounds, or a list of choices);
targets constrain quantities of the domain with the goal's tolerance.  A design names its goal and
gives values; whether those values are allowed is the contract's business (contract.py).

Every number in a goal or a design is a finite number and never a boolean: an infinite tolerance would
certify anything, a NaN target or bound compares false with everything (so a check silently passes or
silently never runs), and JSON's true would otherwise be read as 1.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Annotated, Any, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, ValidationError, model_validator

from physvec.taskfiles.input_files import UnreadableInput, read_json_input
from physvec.verifiers.phact.domains import DOMAINS, Domain


def _finite(value: Any) -> float:
    """A finite number as a float: no boolean, no string, no NaN or infinity, no integer beyond a float."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ValueError(f"must be a finite number, not {_brief(value)}")
    try:
        number = float(value)
    except OverflowError:
        raise ValueError("must be a finite number (this integer is too large for one)") from None
    if not math.isfinite(number):
        raise ValueError(f"must be a finite number, not {value}")
    return number


def _finite_or_name(value: Any) -> float | str:
    """An input value: a name (a sequence, a material, a filter kind) or a finite number."""
    return value if isinstance(value, str) else _finite(value)


def _brief(value: Any) -> str:
    """A value as a message may quote it: short, and never a deep structure."""
    if value is None or isinstance(value, (bool, int, float, str)):
        text = repr(value)
        return text if len(text) <= 40 else text[:37] + "..."
    return f"a {type(value).__name__}"


Number = Annotated[float, BeforeValidator(_finite)]
Value = Annotated[float | str, BeforeValidator(_finite_or_name)]


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class FreeInput(_Strict):
    """A free input: a closed interval [min, max], or a list of choices."""

    min: Number | None = None
    max: Number | None = None
    choices: list[Value] | None = None

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
        if isinstance(value, bool):  # True == 1: a boolean would pass for the choice 1
            return False
        if self.choices is not None:
            return value in self.choices
        return isinstance(value, (int, float)) and math.isfinite(value) and self.min <= value <= self.max


class Target(_Strict):
    quantity: str
    op: Literal[">=", "<=", "=="]
    value: Number


class Goal(_Strict):
    id: str
    domain: str
    kind: Literal["design", "verification"] = "design"
    statement: str = ""
    bound: dict[str, Value]
    free: dict[str, FreeInput] = Field(default_factory=dict)
    targets: list[Target] = Field(min_length=1)
    tolerance: Number = Field(ge=0)
    impossible_because: str = ""
    """for goals written to be impossible: the physical reason (documentation, never read by the engine)"""


class Design(_Strict):
    goal: str
    values: dict[str, Value]
    claims_impossible: bool = False


class MalformedInput(ValueError):
    """A goal or design file that cannot be read; the message names the field."""


def _problems(error: ValidationError, prefix: str) -> list[str]:
    return [f"{prefix}{'.'.join(map(str, e['loc']))}: {e['msg'].removeprefix('Value error, ')}" for e in error.errors()]


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
    problems += _kind_problems(goal, domain)
    if problems:
        raise MalformedInput("; ".join(problems))
    return goal, domain


def _kind_problems(goal: Goal, domain: Domain) -> list[str]:
    """A name where the domain wants a number, or a number where it wants a name, named by field."""
    def wrong(name: str, value: Any) -> bool:
        return isinstance(value, str) != (name in domain.labels)

    def wanted(name: str) -> str:
        return "a name (a string)" if name in domain.labels else "a finite number"
    problems = [f"goal.bound.{name}: must be {wanted(name)}, not {_brief(value)}"
                for name, value in goal.bound.items() if name in domain.inputs and wrong(name, value)]
    for name, free in goal.free.items():
        if name not in domain.inputs:
            continue
        if free.choices is None and name in domain.labels:
            problems.append(f"goal.free.{name}: a name takes a list of choices, not an interval")
        problems += [f"goal.free.{name}.choices.{i}: must be {wanted(name)}, not {_brief(value)}"
                     for i, value in enumerate(free.choices or []) if wrong(name, value)]
    return problems


def parse_design(data: Any) -> Design:
    try:
        return Design.model_validate(data)
    except ValidationError as error:
        raise MalformedInput("; ".join(_problems(error, "design."))) from None


def read_json(path: Path, what: str) -> Any:
    """The JSON in ``path``; every way a file can be unreadable is a MalformedInput that says which."""
    try:
        return read_json_input(path, field_prefix=f"{what}.")
    except UnreadableInput as error:
        raise MalformedInput(f"{what} {error}") from None


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
