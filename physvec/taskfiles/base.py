"""Bases of the input-file models: unknown keys are errors, loaded files are immutable."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, NonNegativeFloat, model_validator


class StrictModel(BaseModel):
    """A model that rejects unknown or misspelled keys instead of silently dropping them."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class Tolerances(StrictModel):
    """Relative and absolute tolerances of a numerical comparison; at least one must be positive."""

    rtol: NonNegativeFloat = 0.0
    atol: NonNegativeFloat = 0.0

    @model_validator(mode="after")
    def _some_tolerance(self) -> Tolerances:
        if self.rtol == 0 and self.atol == 0:
            raise ValueError("needs rtol or atol greater than zero")
        return self
