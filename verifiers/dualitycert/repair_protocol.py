"""What passes between the DualityCert repair environment and a model: the reply schema and feedback.

A reply is one JSON object {action, theory_b, reason}: edit_candidate (theory_b is the complete revised
B), no_change (keep the current B) or abstain (stop).  Anything else is an invalid reply, recorded with
its reason, never a crash.  Feedback is a deterministic projection of the interaction certificate whose
detail depends on the policy's form:
- generic: only that verification failed;
- obligations: the failed obligations' names and categories;
- masked: the same structure with every name and category replaced by a positional placeholder, so an
  ablation can tell structure from content.
"""

from __future__ import annotations

import json
import re
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from physvec.verifiers.certificate import Certificate, Verdict
from physvec.verifiers.dualitycert.theory import MalformedTheory, Theory, parse_theory

REASON_CHARS = 500


class RepairReply(BaseModel):
    """The reply schema the model is given (as JSON Schema) and must follow."""

    model_config = ConfigDict(extra="forbid")

    action: Literal["edit_candidate", "no_change", "abstain"]
    theory_b: dict[str, Any] | None = Field(None, description="the complete revised theory B (edit_candidate only)")
    reason: str = Field(max_length=REASON_CHARS, description="one or two sentences")


class InvalidReply(ValueError):
    """A reply that does not follow the schema; the message says why."""


_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.DOTALL)


def parse_reply(text: str) -> tuple[RepairReply, Theory | None]:
    """The reply and, for edit_candidate, the validated revised B.

    Raises:
        InvalidReply: not JSON, not the schema, or a revised B that breaks the theory schema.
    """
    fenced = _FENCE.search(text)
    try:
        data = json.loads(fenced.group(1) if fenced else text)
    except json.JSONDecodeError as error:
        raise InvalidReply(f"the reply is not a JSON object ({error.msg})") from None
    try:
        reply = RepairReply.model_validate(data)
    except ValidationError as error:
        raise InvalidReply("; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in error.errors())) from None
    if reply.action != "edit_candidate":
        return reply, None
    if reply.theory_b is None:
        raise InvalidReply("edit_candidate needs theory_b, the complete revised theory")
    try:
        return reply, parse_theory(reply.theory_b, prefix="theory_b.")
    except MalformedTheory as error:
        raise InvalidReply(str(error)) from None


class FeedbackForm(StrEnum):
    GENERIC = "generic"
    OBLIGATIONS = "obligations"
    MASKED = "masked"


def feedback(certificate: Certificate, form: FeedbackForm) -> dict[str, Any]:
    """What the model is told about its current B."""
    failed = certificate.failed()
    if certificate.verdict is Verdict.CERTIFIED:
        return {"verification": "passed"}
    if form is FeedbackForm.GENERIC or not failed:
        return {"verification": "failed" if failed else "undecided"}
    if form is FeedbackForm.OBLIGATIONS:
        return {"verification": "failed",
                "failed_obligations": [{"name": o.name, "category": o.category} for o in failed]}
    categories: dict[str, str] = {}
    masked = []
    for index, obligation in enumerate(failed, start=1):
        category = categories.setdefault(obligation.category, f"category_{len(categories) + 1}")
        masked.append({"name": f"obligation_{index}", "category": category})
    return {"verification": "failed", "failed_obligations": masked}


def reply_schema() -> str:
    """The JSON Schema of a reply, for the prompt."""
    return json.dumps(RepairReply.model_json_schema(), indent=1)
