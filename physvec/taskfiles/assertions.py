"""Assertion files: physical expectations a script's own functions must meet.

Each assertion names a run_ function, parameter overrides and an observable; the harness runs the
script's unmodified functions with those overrides and compares by code: with a known value
(limiting case, analytic regime), with a bound it must not cross (a variational energy never lies
below the exact ground state), or with a second run related by a symmetry (equal, negated,
reversed, or scaled by a factor).  A sum rule compares the sum of a list-valued observable.  An assertion that needs
more than overrides says in words (``adapter``) what a model-written entry point must compute from
the script's own functions (verifiers/scientific/adapters.py).  Expected values stay in these files:
they are never rendered into a prompt.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import Field, model_validator

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
    arguments: dict[str, Any] = Field(
        default_factory=dict, description="only with an adapter: arguments of the observable itself (a distance, "
                                          "time points) passed to adapter(**params) beside PARAMS, never PARAMS keys")
    reduce: Literal["sum", "mean"] | None = Field(
        None, description="compare the sum or the mean of a list-valued observable (sum rules), not the list")


    @model_validator(mode="after")
    def _arguments_need_an_adapter(self) -> _Assertion:
        if self.arguments and self.adapter is None:
            raise ValueError("arguments go to a model-written adapter; an assertion without one cannot take them")
        return self


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


class PublishedValue(_ExpectedValue):
    """A value the paper publishes (read from its figure or text), with the tolerance the benchmark allows."""

    kind: Literal["published_value"]


class Bound(_Assertion):
    """An observable that must not cross a known bound, within the tolerance: a variational energy is at
    least the exact ground-state energy, a magnetisation per site at most 1/2."""

    kind: Literal["bound"]
    overrides: dict[str, Any] = Field(default_factory=dict)
    op: Literal[">=", "<="] = Field(description="observable op value must hold (every element of a list)")
    value: float


class Symmetry(_Assertion):
    """Two runs whose observables must agree, or be related by negation, reversal or a scale factor
    (``scaled``: run b's observable is ``factor`` times run a's, e.g. E(2J) = 2 E(J) for H linear in J)."""

    kind: Literal["symmetry"]
    overrides_a: dict[str, Any] = Field(default_factory=dict)
    overrides_b: dict[str, Any] = Field(default_factory=dict)
    relation: Literal["equal", "negated", "reversed", "scaled"]
    factor: float | None = None

    @model_validator(mode="after")
    def _factor_with_scaled(self) -> Symmetry:
        if (self.relation == "scaled") != (self.factor is not None):
            raise ValueError("a factor goes with relation 'scaled', and only with it")
        return self


Assertion = Annotated[LimitingCase | AnalyticRegime | PublishedValue | Bound | Symmetry, Field(discriminator="kind")]


class AssertionFile(StrictModel):
    """The assertions of one task."""

    task: str | None = None
    assertions: list[Assertion] = Field(min_length=1)
