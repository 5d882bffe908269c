"""The base of every input-file model: unknown keys are errors, loaded files are immutable."""

from pydantic import BaseModel, ConfigDict


class StrictModel(BaseModel):
    """A model that rejects unknown or misspelled keys instead of silently dropping them."""

    model_config = ConfigDict(extra="forbid", frozen=True)
