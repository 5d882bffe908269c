"""A MatPCR evaluation: a model reasons about drawn items, the parser reads its claims, the oracles judge them.

A run folder holds run.json (the settings: a resume with other settings is refused), transcript.jsonl (every
model call) and responses.jsonl (one record per answered item, with its counts).  A resumed evaluation skips
the (constraint, seed, index) keys already recorded; the model client serves replies it already has.  The
prompt states the item's inputs only (sampling.py); what the oracles compute stays in their certificates.

Each item is one campaign trial (physvec.campaigns): one at a time here, the run keeps one model client; on
more jobs or a Dask cluster, each item makes its own client from the model spec wherever it runs, with its
transcript in transcripts/CONSTRAINT-SEED-INDEX.jsonl.  Either way only this process appends records.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, TypeVar

from langchain_core.messages import HumanMessage
from pydantic import BaseModel, ConfigDict

from physvec.agents.episode_model import EpisodeModel
from physvec.agents.model_client import BudgetExhausted, ModelClient, ModelUnavailable
from physvec.agents.prompts import render
from physvec.agents.matpcr_extraction import model_claims
from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.campaigns.progress import CampaignProgress
from physvec.campaigns.trials import raise_first_failure, run_trials
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


class Drawn(Protocol):
    """A drawn item, or a record of one: what a resumed campaign knows the item by."""

    @property
    def constraint(self) -> str: ...

    @property
    def seed(self) -> int: ...

    @property
    def index(self) -> int: ...


DrawnRecord = TypeVar("DrawnRecord", bound=Drawn)
"""ResponseRecord or CgsvRecord"""


def drawn_key(drawn: Drawn) -> tuple[str, int, int]:
    return drawn.constraint, drawn.seed, drawn.index


@dataclass(frozen=True)
class DrawTrial:
    """One item as a campaign's trial key: its step in the campaign (the model client's step, and all that
    equality and hashing see) and its draw, carried along so that a task ships its own item and not the
    campaign's (a Raman item holds its whole spectrum)."""

    step: int
    draw: Draw = field(compare=False)


def trial_client(folder: Path, model: ModelClient | EpisodeModel, draw: Draw) -> ModelClient:
    """The run's one client, or a client of the item's own made here from the model spec."""
    if isinstance(model, ModelClient):
        return model
    return model.client(folder, "-".join(map(str, drawn_key(draw))))


def run_draws(records: RecordFile[DrawnRecord], draws: Sequence[Draw], trial: Callable[[DrawTrial], DrawnRecord],
              model: ModelClient | EpisodeModel, on_record: Callable[[DrawnRecord], None],
              executor: Executor | None = None, bar: CampaignProgress | None = None) -> list[DrawnRecord]:
    """Every draw the run lacks, as ``trial`` on ``executor`` (default: one at a time here, in draw order);
    each record is appended here as it arrives, never by a worker.

    Args:
        model: the client every trial shares (one at a time only), or an EpisodeModel for trials that
            each make their own.

    Returns:
        Every record of the run, in draw order whatever order they ended in (the bootstrap depends on it).

    Raises:
        BudgetExhausted, ModelUnavailable: the model could not answer; the campaign stopped there and a
            resume runs the items it lacks.
    """
    runner = executor or LocalExecutor(1)
    if isinstance(model, ModelClient) and not (isinstance(runner, LocalExecutor) and runner.jobs == 1):
        raise ValueError("one shared model client serves items one at a time: pass an EpisodeModel")
    done = {drawn_key(record) for record in records.read()}
    keys = [DrawTrial(step, d) for step, d in enumerate(draws) if drawn_key(d) not in done]

    def record(_: DrawTrial, result: DrawnRecord) -> None:
        records.append(result)
        on_record(result)

    failures = run_trials(runner, trial, keys, record, bar, stop_on=(BudgetExhausted, ModelUnavailable))
    raise_first_failure(failures)
    order = {drawn_key(d): step for step, d in enumerate(draws)}
    return sorted(records.read(), key=lambda r: order[drawn_key(r)])


def evaluate_item(folder: Path, model: ModelClient | EpisodeModel, provider: OfflineSnapshot,
                  model_extraction: bool, trial: DrawTrial) -> ResponseRecord:
    """One item answered and judged on whichever worker: module-level, so that Dask ships it by name."""
    return answer(trial.draw, trial_client(folder, model, trial.draw), provider, trial.step, model_extraction)


def run_evaluation(folder: Path, draws: Sequence[Draw], model: ModelClient | EpisodeModel, provider: OfflineSnapshot,
                   on_record: Callable[[ResponseRecord], None] = lambda record: None,
                   model_extraction: bool = False, executor: Executor | None = None,
                   bar: CampaignProgress | None = None) -> list[ResponseRecord]:
    """Every draw answered once (already recorded ones skipped; see run_draws); returns all records of the run."""
    trial = functools.partial(evaluate_item, folder, model, provider, model_extraction)
    return run_draws(RecordFile(folder / RECORDS, ResponseRecord), draws, trial, model, on_record, executor, bar)
