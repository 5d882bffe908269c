"""A MatPCR evaluation: a model reasons about drawn items, the parser reads its claims, the oracles judge them.

A run folder holds run.json (the settings: a resume with other settings is refused), transcript.jsonl (every
model call) and responses.jsonl (one record per answered item, with its counts).  A resumed evaluation skips
the (constraint, seed, index) keys already recorded; the model client serves replies it already has.  The
prompt states the item's inputs only (sampling.py); what the oracles compute stays in their certificates.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, ConfigDict

from physvec.agents.model_client import ModelClient
from physvec.agents.prompts import render
from physvec.agents.matpcr_extraction import model_claims
from physvec.runstore.records import RecordFile
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.extraction import extract_claims
from physvec.verifiers.matpcr.oracles import certify
from physvec.verifiers.matpcr.pcr import Tally, tally
from physvec.verifiers.matpcr.references import OfflineSnapshot
from physvec.verifiers.matpcr.sampling import Draw
from physvec.verifiers.matpcr.schema import ClaimsFile

RECORDS = "responses.jsonl"
SENTENCE_END = re.compile(r"[.!?](?=\s|$)|\n")


class JudgedClaim(BaseModel):
    """One parsed claim with the sentence it stands in and the oracle's label: the detector's training data."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    context: str
    violated: bool


class ResponseRecord(Tally):
    """One answered item: where it was drawn, the reply, and the oracles' counts and labels."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    seed: int
    index: int
    item: str
    reply: str
    verdict: str
    judged: list[JudgedClaim]
    extraction: str
    """how the claims were read: 'parser', or the model fallback's accepted and refused entries"""


def sentence_around(text: str, start: int, end: int) -> str:
    """The sentence holding text[start:end]: bounded by line breaks and by full stops that end a sentence
    (followed by a space or the end), never by a decimal point."""
    stops = [m.end() for m in SENTENCE_END.finditer(text)]
    left = max((stop for stop in stops if stop <= start), default=0)
    right = min((stop for stop in stops if stop > end), default=len(text))
    return text[left:right].strip().rstrip(".!?")


def messages(draw: Draw) -> list[HumanMessage]:
    return [HumanMessage(render("matpcr_item.j2", draw=draw, facts=draw.facts))]


def answer(draw: Draw, client: ModelClient, provider: OfflineSnapshot, step: int,
           model_extraction: bool = False) -> ResponseRecord:
    """Ask the model about one item and judge what it claims (read by the parser; by the model, validated,
    when the parser reads nothing and ``model_extraction`` is on)."""
    reply = client.ask("matpcr_reasoner", messages(draw), node="matpcr_evaluate", step=step)
    claims_file, extraction = ClaimsFile(item=draw.item, reasoning=reply), "parser"
    if model_extraction and not extract_claims(reply, draw.constraint):
        found = model_claims(draw.constraint, reply, client, step)
        extraction = f"model: {len(found.claims)} accepted, {len(found.refused)} refused ({'; '.join(found.refused)})"
        if found.claims:
            claims_file = ClaimsFile(item=draw.item, claims=found.claims)
    certificate = certify(claims_file, provider)
    counts = tally(draw.constraint, certificate).model_dump()
    judged = [JudgedClaim(context=sentence_around(reply, o.evidence["span"]["start"], o.evidence["span"]["end"]),
                          violated=o.outcome is Outcome.FAILED)
              for o in certificate.obligations if "span" in o.evidence and o.outcome in (Outcome.CERTIFIED, Outcome.FAILED)]
    return ResponseRecord(**counts, seed=draw.seed, index=draw.index, item=draw.item.id, reply=reply,
                          verdict=certificate.verdict.value, judged=judged, extraction=extraction)


def run_evaluation(folder: Path, draws: Sequence[Draw], client: ModelClient, provider: OfflineSnapshot,
                   on_record: Callable[[ResponseRecord], None] = lambda record: None,
                   model_extraction: bool = False) -> list[ResponseRecord]:
    """Every draw answered once (already recorded ones skipped); returns all records of the run."""
    records = RecordFile(folder / RECORDS, ResponseRecord)
    done = {(r.constraint, r.seed, r.index) for r in records.read()}
    for step, draw in enumerate(draws):
        if (draw.constraint, draw.seed, draw.index) in done:
            continue
        record = answer(draw, client, provider, step, model_extraction)
        records.append(record)
        on_record(record)
    return records.read()
