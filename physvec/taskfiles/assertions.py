"""Assertion files: physical expectations a script's own functions must meet.

Each assertion names a run_ function, parameter overrides and an observable; the harness runs the
script's unmodified functions with those overrides and compares by code.  Expected values stay in
these files: they are never rendered into a prompt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from physvec.taskfiles.base import StrictModel, Tolerances

RUN_FUNCTION = r"^run_[A-Za-z0-9_]+$"


class _ExpectedValue(Tolerances):
    """An observable of one run whose value is known."""

    name: str = Field(min_length=1)
    run: str = Field(pattern=RUN_FUNCTION)
    overrides: dict[str, Any] = Field(default_factory=dict)
    observable: str = Field(min_length=1)
    expected: float | list[float]
    reference: str = Field(min_length=1, description="where the expected value comes from")


class LimitingCase(_ExpectedValue):
    """A small size or limit where exact diagonalisation or a closed form gives the answer."""

    kind: Literal["limiting_case"]


class AnalyticRegime(_ExpectedValue):
    """Parameters where an analytic result is known."""

    kind: Literal["analytic_regime"]


class Symmetry(Tolerances):
    """Two runs whose observables must agree, or be related by negation or reversal."""

    kind: Literal["symmetry"]
    name: str = Field(min_length=1)
    run: str = Field(pattern=RUN_FUNCTION)
    overrides_a: dict[str, Any] = Field(default_factory=dict)
    overrides_b: dict[str, Any] = Field(default_factory=dict)
    observable: str = Field(min_length=1)
    relation: Literal["equal", "negated", "reversed"]
    reference: str = Field(min_length=1)


Assertion = Annotated[LimitingCase | AnalyticRegime | Symmetry, Field(discriminator="kind")]


class AssertionFile(StrictModel):
    """The assertions of one task."""

    task: str | None = None
    assertions: list[Assertion] = Field(min_length=1)
