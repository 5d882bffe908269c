"""The one certificate shape shared by every verifier.

An obligation is a single claim that deterministic code has checked (a unit test, a rubric leaf, an
anomaly condition).  A certificate collects the obligations one verifier checked about one subject
and derives its verdict from them; the verdict is never set by hand, so no verifier can certify
without at least one obligation that code actually certified.
"""

from __future__ import annotations

import hashlib
from enum import StrEnum
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, computed_field


class Outcome(StrEnum):
    """What checking one obligation established."""

    CERTIFIED = "certified"
    FAILED = "failed"
    UNKNOWN = "unknown"
    NOT_APPLICABLE = "not_applicable"
    NOT_IMPLEMENTED = "not_implemented"
    ERROR = "error"


class Verdict(StrEnum):
    """What a whole certificate says about its subject."""

    CERTIFIED = "certified"
    FAILED = "failed"
    UNKNOWN = "unknown"
    IMPOSSIBLE = "impossible"


class Obligation(BaseModel):
    """One checked claim with the evidence a referee would want to read."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str
    category: str
    outcome: Outcome
    message: str = ""
    evidence: dict[str, Any] = Field(default_factory=dict)
    sealed: dict[str, Any] = Field(default_factory=dict)
    """Evidence for the human reader only (expected values): no feedback projection shows it."""
    guard: bool = False
    """A guard can fail its certificate but never certify it: it checks that nothing went wrong (a program that
    looked at its surroundings), not that a number is right, so its passing is no evidence of the physics."""
    required: bool = False
    """A required obligation must certify (or not apply) for its certificate to certify: an independent value
    that is missing makes the whole certificate unknown, whatever else certified (verifiers/scientific/evidence.py)."""


def not_implemented(name: str, category: str, why: str) -> Obligation:
    """An obligation whose checker is not built yet: it never certifies anything."""
    return Obligation(name=name, category=category, outcome=Outcome.NOT_IMPLEMENTED, message=why)


def digest(content: str | bytes) -> str:
    """The subject digest: sha256 of what was checked, so a certificate names its subject exactly."""
    data = content.encode() if isinstance(content, str) else content
    return "sha256:" + hashlib.sha256(data).hexdigest()


class Certificate(BaseModel):
    """The obligations one verifier checked about one subject, and the verdict they imply.

    ``impossibility`` is set only by an engine that has derived, from bound inputs alone, that no
    design can succeed (PHACT); it turns a failing certificate into an ``impossible`` one.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    verifier: str
    subject_digest: str
    obligations: tuple[Obligation, ...]
    impossibility: dict[str, Any] | None = None
    summary: dict[str, Any] = Field(default_factory=dict)
    """Aggregate figures a reader wants at a glance (a rubric's weighted score); never a verdict."""

    @computed_field  # type: ignore[prop-decorator]
    @property
    def verdict(self) -> Verdict:
        """certified: at least one certified obligation that is not a guard, none failed and every required one
        certified or not applicable; failed: any failed; else unknown."""
        outcomes = {obligation.outcome for obligation in self.obligations}
        if self.impossibility is not None:
            return Verdict.IMPOSSIBLE
        if Outcome.FAILED in outcomes:
            return Verdict.FAILED
        if any(o.required and o.outcome not in (Outcome.CERTIFIED, Outcome.NOT_APPLICABLE) for o in self.obligations):
            return Verdict.UNKNOWN
        if any(o.outcome is Outcome.CERTIFIED and not o.guard for o in self.obligations):
            return Verdict.CERTIFIED
        return Verdict.UNKNOWN

    @property
    def is_complete(self) -> bool:
        """True when no obligation is unbuilt or errored: only then may a run-level judge certify."""
        unfinished = {Outcome.NOT_IMPLEMENTED, Outcome.ERROR}
        return not any(obligation.outcome in unfinished for obligation in self.obligations)

    def failed(self) -> list[Obligation]:
        """The obligations that failed, in order: what a repairer must address."""
        return [o for o in self.obligations if o.outcome is Outcome.FAILED]

    @classmethod
    def from_json(cls, text: str) -> Certificate:
        """Load a certificate written by ``model_dump_json`` (the computed verdict is re-derived)."""
        import json

        data = json.loads(text)
        data.pop("verdict", None)
        return cls.model_validate(data)
