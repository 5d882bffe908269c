"""The Author's plan: structured output written before any code, and kept with the run.

The plan names the physical system, the Hamiltonian, every parameter with where in the paper it
comes from, the method, the observables, what is scaled down and why, and the documentation queries
the Author wants answered.  It is the model's proposal, never evidence: no verifier reads it.
"""

from __future__ import annotations

import json
import re
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from physvec.agents.replies import InvalidModelReply

_JSON_BLOCK = re.compile(r"```(?:json)?[ \t]*\n(.*?)```", re.DOTALL)
MAX_QUERIES = 5


class PlannedParameter(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1)
    value: Any
    source: str = Field(min_length=1, description="where in the paper the value comes from")


class AuthorPlan(BaseModel):
    model_config = ConfigDict(extra="forbid")

    system: str = Field(min_length=1)
    hamiltonian: str = Field(min_length=1)
    parameters: list[PlannedParameter]
    method: str = Field(min_length=1)
    observables: list[str] = Field(min_length=1)
    scaled_down: str = Field(description="what is smaller than in the paper and why ('nothing' if nothing)")
    queries: list[str] = Field(default_factory=list, max_length=MAX_QUERIES,
                               description="documentation questions about the library to use")


def parse_plan(reply: str) -> AuthorPlan:
    """The plan in a reply's fenced JSON block (or the whole reply, if it is JSON)."""
    match = _JSON_BLOCK.search(reply)
    text = match.group(1) if match else reply
    try:
        return AuthorPlan.model_validate(json.loads(text))
    except json.JSONDecodeError as error:
        raise InvalidModelReply(f"the plan is not JSON: {error}") from None
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'plan'}: {e['msg']}" for e in error.errors())
        raise InvalidModelReply(f"the plan does not have the required fields: {problems}") from None
