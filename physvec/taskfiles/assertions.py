"""Assertion files: physical expectations a script's own functions must meet.

Each assertion names a run_ function, parameter overrides and an observable; the harness runs the
script's unmodified functions with those overrides and compares by code.  An assertion that needs
more than overrides says in words (``adapter``) what a model-written entry point must compute from
the script's own functions (verifiers/scientific/adapters.py).  Expected values stay in these files:
they are never rendered into a prompt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field

from physvec.taskfiles.base import StrictModel, Tolerances

RUN_FUNCTION = r"^run_[A-Za-z0-9_]+$"


class _Assertion(Tolerances):
    """What every assertion names: the run_ function, the observable and the source of the expectation."""

    name: str = Field(min_length=1)
    run: str = Field(pattern=RUN_FUNCTION, description="the script's run_ function the assertion calls")
    observable: str = Field(min_length=1, description="key path into the returned dict, e.g. energy or bands.0")
    reference: str = Field(min_length=1, description="where the expectation comes from (never shown to a model)")
    adapter: str | None = Field(
        None, min_length=1,
        description="only when overrides are not enough: in words, what an entry point adapter(**params) must "
                    "compute from the script's unmodified functions and return under the observable's key, "
                    "e.g. 'the difference of the two lowest single-particle levels under the key gap'. "
                    "A model writes it; the expected value is never shown, and the obligation errors unless "
                    "every function of the script is in the adapted program unchanged.")


class _ExpectedValue(_Assertion):
    """An observable of one run whose value is known."""

    overrides: dict[str, Any] = Field(default_factory=dict)
    expected: float | list[float]


class LimitingCase(_ExpectedValue):
    """A small size or limit where exact diagonalisation or a closed form gives the answer."""

    kind: Literal["limiting_case"]


class AnalyticRegime(_ExpectedValue):
    """Parameters where an analytic result is known."""

    kind: Literal["analytic_regime"]


class Symmetry(_Assertion):
    """Two runs whose observables must agree, or be related by negation or reversal."""

    kind: Literal["symmetry"]
    overrides_a: dict[str, Any] = Field(default_factory=dict)
    overrides_b: dict[str, Any] = Field(default_factory=dict)
    relation: Literal["equal", "negated", "reversed"]


Assertion = Annotated[LimitingCase | AnalyticRegime | Symmetry, Field(discriminator="kind")]


class AssertionFile(StrictModel):
    """The assertions of one task."""

    task: str | None = None
    assertions: list[Assertion] = Field(min_length=1)
