"""Feedback projections: what of a certificate an agent may see.

The same experiment policies apply to every checker because every checker emits the same
certificate shape; a projection decides how much of it reaches the model.  Expected values live
in an obligation's sealed evidence, which no projection shows.
"""

from __future__ import annotations

from collections import Counter
from enum import StrEnum
from typing import Any

from physvec.verifiers.certificate import Certificate, Outcome


class Projection(StrEnum):
    """How much of a certificate an agent sees."""

    FULL = "full"
    CATEGORY = "category"
    MASKED = "masked"
    GENERIC = "generic"


def project(certificate: Certificate, projection: Projection) -> dict[str, Any]:
    """Return the part of ``certificate`` that ``projection`` lets an agent see.

    Args:
        certificate: the verifier's certificate.
        projection: full (obligations with messages and evidence), category (counts of outcomes per
            category), masked (obligation names and outcomes, no messages or evidence), generic (only
            whether the verifier was satisfied).

    Returns:
        A JSON-serialisable view, always naming the verifier and verdict.
    """
    view: dict[str, Any] = {"verifier": certificate.verifier, "verdict": certificate.verdict.value}
    if projection is Projection.FULL:
        view["obligations"] = [
            o.model_dump(mode="json", exclude={"sealed"}) for o in certificate.obligations
        ]
    elif projection is Projection.CATEGORY:
        counts = Counter((o.category, o.outcome.value) for o in certificate.obligations)
        view["categories"] = [
            {"category": category, "outcome": outcome, "count": count}
            for (category, outcome), count in sorted(counts.items())
        ]
    elif projection is Projection.MASKED:
        view["obligations"] = [
            {"name": o.name, "category": o.category, "outcome": o.outcome.value}
            for o in certificate.obligations
        ]
    else:
        satisfied = not any(o.outcome is Outcome.FAILED for o in certificate.obligations)
        view["message"] = "all checks passed" if satisfied else "some checks failed; revise"
    return view
