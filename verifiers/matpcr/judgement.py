"""What an oracle returns about one claim, before it is named and numbered as an obligation.

``evidence`` is what the model may see (the claim, the tolerance, which condition failed); ``sealed`` holds
the expected values (peak positions, the field of view, the reference's number), which no feedback
projection shows, so a model cannot learn the answer from a refusal.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from physvec.verifiers.certificate import Outcome


@dataclass(frozen=True)
class Judgement:
    outcome: Outcome
    message: str
    evidence: dict[str, Any] = field(default_factory=dict)
    sealed: dict[str, Any] = field(default_factory=dict)


def passes(holds: bool, message_if: str, message_else: str, evidence: dict[str, Any],
           sealed: dict[str, Any]) -> Judgement:
    """Certified when ``holds``, failed otherwise, with the message of the case that applied."""
    return Judgement(Outcome.CERTIFIED if holds else Outcome.FAILED, message_if if holds else message_else,
                     evidence, sealed)


def refused(message: str, evidence: dict[str, Any] | None = None, sealed: dict[str, Any] | None = None) -> Judgement:
    """A claim that is physically impossible on its face (a negative size, 2theta beyond 180 degrees)."""
    return Judgement(Outcome.FAILED, message, evidence or {}, sealed or {})
