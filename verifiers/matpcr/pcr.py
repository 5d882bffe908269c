"""The Physical-Consistency Rate and accuracy, per constraint type and overall, with bootstrap intervals.

PCR is the fraction of checkable claims (certified or failed by an oracle) with no violation; accuracy the
fraction of claims meeting the stricter criterion of accuracy.py, where one exists.  Claims of one response
share the model's reasoning, so the bootstrap resamples responses, not claims: each replicate draws the
responses with replacement and takes the ratio of the summed counts; the interval is the 2.5th and 97.5th
percentile of B replicates (B = 10,000 as published).  A type with no checkable claim has no rate, and the
responses without a checkable claim are counted beside the rate: a model that retreats into vague prose
leaves PCR untouched, and only that count shows it.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from pydantic import BaseModel, ConfigDict, Field

from physvec.verifiers.certificate import Certificate, Outcome
from physvec.verifiers.matpcr.accuracy import accurate

BOOTSTRAP = 10_000


class Tally(BaseModel):
    """What the oracles made of one response: counts only, so a report never needs the certificate again."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    constraint: str
    claims: int = Field(ge=0)
    checkable: int = Field(ge=0)
    consistent: int = Field(ge=0)
    accuracy_checked: int = Field(ge=0)
    accurate: int = Field(ge=0)


def tally(constraint: str, certificate: Certificate) -> Tally:
    judged = [o for o in certificate.obligations if o.outcome in (Outcome.CERTIFIED, Outcome.FAILED)]
    scored = [flag for flag in map(accurate, judged) if flag is not None]
    return Tally(constraint=constraint, claims=int(certificate.summary.get("claims", 0)), checkable=len(judged),
                 consistent=sum(o.outcome is Outcome.CERTIFIED for o in judged), accuracy_checked=len(scored),
                 accurate=sum(scored))


def ratio_interval(hits: np.ndarray, totals: np.ndarray, replicates: int, seed: int) -> tuple[float, float] | None:
    """Percentile bootstrap 95 % interval of sum(hits) / sum(totals), resampling responses; None without data."""
    if totals.sum() == 0:
        return None
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, totals.size, size=(replicates, totals.size))
    sums = totals[picks].sum(axis=1)
    rates = hits[picks].sum(axis=1)[sums > 0] / sums[sums > 0]
    low, high = np.percentile(rates, [2.5, 97.5])
    return float(low), float(high)


def _row(name: str, tallies: Sequence[Tally], replicates: int, seed: int) -> dict[str, object]:
    def rate(hit: str, total: str) -> dict[str, object]:
        hits = np.array([getattr(t, hit) for t in tallies], dtype=float)
        totals = np.array([getattr(t, total) for t in tallies], dtype=float)
        interval = ratio_interval(hits, totals, replicates, seed)
        return {"count": int(hits.sum()), "of": int(totals.sum()),
                "rate": float(hits.sum() / totals.sum()) if totals.sum() else None, "ci95": interval}
    return {"constraint": name, "responses": len(tallies), "claims": sum(t.claims for t in tallies),
            "responses_without_checkable_claim": sum(t.checkable == 0 for t in tallies),
            "pcr": rate("consistent", "checkable"), "accuracy": rate("accurate", "accuracy_checked")}


def summarise(tallies: Sequence[Tally], replicates: int = BOOTSTRAP, seed: int = 0) -> list[dict[str, object]]:
    """One row per constraint type (in order of first appearance), then 'overall'."""
    types = list(dict.fromkeys(t.constraint for t in tallies))
    rows = [_row(name, [t for t in tallies if t.constraint == name], replicates, seed) for name in types]
    return rows + [_row("overall", list(tallies), replicates, seed)]


def markdown(rows: Sequence[dict[str, object]], title: str) -> str:
    def shown(rate: dict) -> str:
        if rate["rate"] is None:
            return "n/a"
        low, high = rate["ci95"]
        return f"{rate['rate']:.3f} ({rate['count']}/{rate['of']}) [{low:.3f}, {high:.3f}]"
    lines = [f"# {title}", "", "| constraint | responses | without a checkable claim | claims | "
             "PCR (consistent/checkable) [bootstrap 95%] | accuracy [bootstrap 95%] |", "|---|---|---|---|---|---|"]
    lines += [f"| {r['constraint']} | {r['responses']} | {r['responses_without_checkable_claim']} | {r['claims']} | "
              f"{shown(r['pcr'])} | {shown(r['accuracy'])} |" for r in rows]
    return "\n".join(lines) + "\n"
