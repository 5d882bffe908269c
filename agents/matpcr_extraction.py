"""The model as a fallback extractor, for answers in which the deterministic parser finds no claim.

The model is asked to restate the answer's claims as JSON, and its output is validated before any oracle
sees it: each entry must be a claim of the item's constraint (the schema's units and labels, no other
keys), a number must be one the answer itself states, and a label must appear in the answer's words.  What
is refused and why is kept as evidence beside what is accepted, so a report shows how each claim was read.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel, ConfigDict, ValidationError

from physvec.agents.model_client import ModelClient
from physvec.agents.prompts import render
from physvec.verifiers.matpcr.schema import LABELS, UNITS, Claim, Constraint

NUMBER = re.compile(r"-?\d+(?:\.\d+)?")
MODEL_KEYS = {"value", "unit", "label", "hkl"}


class ModelClaim(BaseModel):
    """One entry as the model may write it: the keys of MODEL_KEYS, nothing else (checked again by ``validated``)."""

    model_config = ConfigDict(extra="forbid")

    value: float | None = None
    unit: str | None = None
    label: str | None = None
    hkl: list[int] | None = None


class ModelClaims(BaseModel):
    """The reply's shape, offered to the provider as structured output."""

    model_config = ConfigDict(extra="forbid")

    claims: list[ModelClaim]


@dataclass(frozen=True)
class ModelExtraction:
    claims: list[Claim]
    refused: list[str]
    """why each refused entry was refused, in order"""


def _json_object(text: str) -> object:
    """The first JSON object in a reply (a fenced block or bare), or None."""
    start = text.find("{")
    while start >= 0:
        try:
            return json.JSONDecoder().raw_decode(text[start:])[0]
        except (json.JSONDecodeError, RecursionError):
            start = text.find("{", start + 1)
    return None


def validated(entry: object, constraint: Constraint, answer: str) -> Claim | str:
    """A claim the answer supports, or why the entry is refused."""
    if not isinstance(entry, dict) or not set(entry) <= MODEL_KEYS:
        return f"not a claim object with keys among {sorted(MODEL_KEYS)}: {str(entry)[:80]}"
    try:
        claim = Claim.model_validate({**entry, "constraint": constraint, "extracted_by": "model"})
    except ValidationError as error:
        return "; ".join(e["msg"] for e in error.errors())[:200]
    if claim.value is not None and not any(float(n) == claim.value for n in NUMBER.findall(answer)):
        return f"{claim.value:g} is no number the answer states"
    if claim.label is not None and claim.label.replace("_", " ") not in answer.lower().replace("-", " "):
        return f"the answer does not say {claim.label!r}"
    return claim


def model_claims(constraint: Constraint, answer: str, client: ModelClient, step: int) -> ModelExtraction:
    """The answer's claims as the model restates them, each validated against the schema and the answer."""
    prompt = render("matpcr_extract.j2", constraint=constraint, units=UNITS[constraint], labels=LABELS[constraint],
                    reply=answer)
    system = SystemMessage("Reply with one JSON object that matches the requested schema, and nothing else.")
    data = _json_object(client.ask("matpcr_extractor", [system, HumanMessage(prompt)], node="matpcr_evaluate",
                                   step=step, schema=ModelClaims))
    entries = data.get("claims") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        return ModelExtraction([], ["the reply holds no JSON object with a list 'claims'"])
    results = [validated(entry, constraint, answer) for entry in entries]
    return ModelExtraction([r for r in results if isinstance(r, Claim)], [r for r in results if isinstance(r, str)])
