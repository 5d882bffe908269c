"""What a run established, in the words a reader needs first: the verdict, which obligations were
certified, which failed and which stayed unknown (each with its one-line reason), the rubric score, and
where to look first.

The summary is taken from the certificates that judged the final script version (and the run-wide ones,
such as isolation), because those are the ones the final judge read; older certificates are history and
stay on the page below.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from physvec.runstore.store import certificate_version, latest_attempts
from physvec.runstore.transcript import Event, EventType
from physvec.verifiers.certificate import Certificate, Outcome

UNSETTLED = (Outcome.UNKNOWN, Outcome.ERROR, Outcome.NOT_IMPLEMENTED)


@dataclass(frozen=True)
class Finding:
    """One obligation of a final certificate, as a line of the summary."""

    certificate: str
    obligation: str
    outcome: str
    reason: str
    anchor: str
    """the id of the obligation's row on the page: obligation-<certificate>-<position>"""


@dataclass(frozen=True)
class Summary:
    verdict: str
    status: str
    cause: str
    rubric_score: float | None
    certified: list[Finding] = field(default_factory=list)
    failed: list[Finding] = field(default_factory=list)
    unknown: list[Finding] = field(default_factory=list)
    not_applicable: int = 0
    look_first: list[str] = field(default_factory=list)
    totals: dict[str, Any] = field(default_factory=dict)


def final_certificates(certificates: dict[str, Certificate]) -> dict[str, Certificate]:
    """The certificates of the last script version any stage judged, and those of the whole run; of a stage
    that judged that version more than once, its last attempt."""
    versions = {name: certificate_version(name) for name in certificates}
    last = max((version for version in versions.values() if version is not None), default=None)
    return {name: certificates[name] for name in latest_attempts(list(certificates)) if versions[name] in (last, None)}


def _one_line(text: str) -> str:
    first = text.strip().splitlines()[0] if text.strip() else ""
    return first if len(first) <= 200 else first[:199] + "…"


def _findings(certificates: dict[str, Certificate], outcomes: tuple[Outcome, ...]) -> list[Finding]:
    return [Finding(name, o.name, o.outcome.value, _one_line(o.message), f"obligation-{name}-{position}")
            for name, certificate in certificates.items()
            for position, o in enumerate(certificate.obligations) if o.outcome in outcomes]


RUBRIC_SCORE_MEANING = (
    "the rubric's weighted share of certified leaves, in [0, 1]: a leaf scores 1 when certified and 0 when failed "
    "or unknown (a prose leaf with no model to vote on it counts 0), a section scores the weighted mean of its "
    "leaves, and the rubric the weighted mean of its sections; not-applicable leaves are left out. It describes "
    "the rubric only: the verdict is decided by the obligations, never by this score")
"""What a run page's rubric score means (its hover text, and the README's)."""


def _rubric_score(certificates: dict[str, Certificate]) -> float | None:
    scores = [c.summary["rubric_score"] for c in certificates.values() if "rubric_score" in c.summary]
    return scores[-1] if scores else None


def totals(meta: dict[str, Any], events: list[Event]) -> dict[str, Any]:
    """Tokens, wall time, model calls and script versions of the whole run."""
    calls = [e for e in events if e.type is EventType.MODEL_CALL]
    return {
        "tokens": meta.get("tokens_used") or sum(e.data.get("input_tokens", 0) + e.data.get("output_tokens", 0)
                                                 for e in calls),
        "seconds": round(events[-1].time - events[0].time, 1) if events else 0.0,
        "model calls": len(calls),
        "script versions": len({e.data.get("version") for e in events if e.type is EventType.SCRIPT_WRITTEN}),
    }


def _look_first(cause: str, failed: list[Finding], unknown: list[Finding], certificates: bool) -> list[str]:
    """At most three pointers, most important first: why the run stopped, what failed, what stayed open."""
    pointers = [f"the run stopped early: {cause}"] if cause else []
    if not certificates:
        pointers.append("no certificate was issued: the conversation below shows how far the run got")
    pointers += [f"failed: {f.obligation} ({f.certificate}): {f.reason}" for f in failed[:2]]
    if unknown:
        pointers.append(f"{len(unknown)} obligation(s) stayed unknown, first {unknown[0].obligation}: "
                        f"{unknown[0].reason}")
    return pointers[:3]


def summarise(meta: dict[str, Any], certificates: dict[str, Certificate], events: list[Event]) -> Summary:
    """The summary shown at the top of a run's page and report."""
    final = final_certificates(certificates)
    failed = _findings(final, (Outcome.FAILED,))
    unknown = _findings(final, UNSETTLED)
    cause = str(meta.get("error") or "")
    return Summary(
        verdict=str(meta.get("verdict")), status=str(meta.get("status")), cause=cause,
        rubric_score=_rubric_score(final), certified=_findings(final, (Outcome.CERTIFIED,)), failed=failed,
        unknown=unknown, not_applicable=len(_findings(final, (Outcome.NOT_APPLICABLE,))),
        look_first=_look_first(cause, failed, unknown, bool(certificates)), totals=totals(meta, events),
    )
