"""CGSV: a violated claim goes back to the model with the structured violation, for up to K revision rounds,
beside three controls that differ from it only in what the model is told.

Every condition starts from the same first answer and is triggered and stopped by the same rule (the first
answer has a violation; a round ends the revision once none is left), so the content of the message is the
one difference: cgsv states each violated claim, the oracle's message and the tolerance (never the expected
value); self_refine asks for a self-check; reprompt asks for the answer again; best_of_3 draws two more
answers to the first question and keeps the one with the fewest violations.  Records (cgsv.jsonl, one per
item) make the run resumable.  Each item is one campaign trial, run as an evaluation's are
(physvec.agents.matpcr_campaign.run_draws): all its conditions on one worker, with one model client.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from pathlib import Path

from langchain_core.messages import AIMessage, BaseMessage, HumanMessage
from pydantic import BaseModel, ConfigDict

from physvec.agents.episode_model import EpisodeModel
from physvec.agents.matpcr_campaign import DrawTrial, run_draws, trial_client
from physvec.agents.matpcr_campaign import messages as first_question
from physvec.agents.model_client import ModelClient
from physvec.agents.prompts import render
from physvec.campaigns.executor import Executor
from physvec.campaigns.progress import CampaignProgress
from physvec.runstore.records import RecordFile
from physvec.verifiers.certificate import Certificate, Outcome
from physvec.verifiers.matpcr.cgsv_analysis import CONDITIONS
from physvec.verifiers.matpcr.oracles import certify
from physvec.verifiers.matpcr.pcr import Tally, tally
from physvec.verifiers.matpcr.references import OfflineSnapshot
from physvec.verifiers.matpcr.sampling import Draw
from physvec.verifiers.matpcr.schema import ClaimsFile

RECORDS = "cgsv.jsonl"
FAMILIES = ("diffraction", "raman")
"""revision runs on diffraction and spectra only, as published"""
BEST_OF = 3


class ConditionResult(BaseModel):
    """How one condition ended on one item."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    after: Tally
    rounds: int
    replies: list[str]


class CgsvRecord(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    constraint: str
    seed: int
    index: int
    item: str
    before: Tally
    first_reply: str
    conditions: dict[str, ConditionResult]


def _judged(draw: Draw, reply: str, provider: OfflineSnapshot) -> Certificate:
    return certify(ClaimsFile(item=draw.item, reasoning=reply), provider)


def violations(certificate: Certificate) -> list[dict[str, str]]:
    """The failed claims as the model may see them: the claim, the oracle's message and the tolerance."""
    shown = []
    for obligation in certificate.obligations:
        if obligation.outcome is Outcome.FAILED:
            evidence = obligation.evidence
            tolerance = (f"within {evidence['tolerance_deg']} degrees 2theta" if "tolerance_deg" in evidence else
                         f"within {evidence['tolerance_cm1']} cm^-1" if "tolerance_cm1" in evidence else "")
            shown.append({"claim": obligation.name.split(":", 2)[-1], "message": obligation.message,
                          "condition": tolerance})
    return shown


def _revise(draw: Draw, condition: str, first: str, first_certificate: Certificate, client: ModelClient,
            provider: OfflineSnapshot, rounds: int, step: int) -> ConditionResult:
    conversation: list[BaseMessage] = [*first_question(draw), AIMessage(first)]
    certificate, replies = first_certificate, []
    for round_ in range(1, rounds + 1):
        text = render("matpcr_revision.j2", condition=condition, violations=violations(certificate))
        conversation.append(HumanMessage(text))
        reply = client.ask(f"matpcr_{condition}", conversation, node="matpcr_cgsv", step=step)
        conversation.append(AIMessage(reply))
        replies.append(reply)
        certificate = _judged(draw, reply, provider)
        if not certificate.failed():
            return ConditionResult(after=tally(draw.constraint, certificate), rounds=round_, replies=replies)
    return ConditionResult(after=tally(draw.constraint, certificate), rounds=rounds, replies=replies)


def _best_of(draw: Draw, first_certificate: Certificate, client: ModelClient, provider: OfflineSnapshot,
             step: int) -> ConditionResult:
    replies = [client.ask("matpcr_best_of", first_question(draw), node="matpcr_cgsv", step=step)
               for _ in range(BEST_OF - 1)]
    candidates = [first_certificate, *(_judged(draw, reply, provider) for reply in replies)]
    best = min(candidates, key=lambda c: len(c.failed()))  # the first of equals: ties keep the first answer
    return ConditionResult(after=tally(draw.constraint, best), rounds=BEST_OF - 1, replies=replies)


def revise_item(draw: Draw, client: ModelClient, provider: OfflineSnapshot, rounds: int, step: int) -> CgsvRecord:
    """The first answer, then every condition (in CONDITIONS order) on the items it has a violation on."""
    first = client.ask("matpcr_reasoner", first_question(draw), node="matpcr_cgsv", step=step)
    certificate = _judged(draw, first, provider)
    before = tally(draw.constraint, certificate)
    outcomes = {}
    for condition in CONDITIONS:
        if not certificate.failed():
            outcomes[condition] = ConditionResult(after=before, rounds=0, replies=[])
        elif condition == "best_of_3":
            outcomes[condition] = _best_of(draw, certificate, client, provider, step)
        else:
            outcomes[condition] = _revise(draw, condition, first, certificate, client, provider, rounds, step)
    return CgsvRecord(constraint=draw.constraint, seed=draw.seed, index=draw.index, item=draw.item.id, before=before,
                      first_reply=first, conditions=outcomes)


def revise_trial(folder: Path, model: ModelClient | EpisodeModel, provider: OfflineSnapshot, rounds: int,
                 trial: DrawTrial) -> CgsvRecord:
    """One item under every condition on whichever worker: module-level, so that Dask ships it by name."""
    return revise_item(trial.draw, trial_client(folder, model, trial.draw), provider, rounds, trial.step)


def run_cgsv(folder: Path, draws: Sequence[Draw], model: ModelClient | EpisodeModel, provider: OfflineSnapshot,
             rounds: int, on_record: Callable[[CgsvRecord], None] = lambda record: None,
             executor: Executor | None = None, bar: CampaignProgress | None = None) -> list[CgsvRecord]:
    """Every draw revised once under every condition (recorded items skipped; see run_draws); returns all
    records of the run."""
    trial = functools.partial(revise_trial, folder, model, provider, rounds)
    return run_draws(RecordFile(folder / RECORDS, CgsvRecord), draws, trial, model, on_record, executor, bar)
