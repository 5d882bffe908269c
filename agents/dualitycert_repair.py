"""The DualityCert repair environment: a model repairs a wrong magnetic theory B against a fixed A.

Each episode gives the model A, the current B and the policy's feedback, for at most ``rounds`` rounds;
the model replies with {action, theory_b, reason} (verifiers/dualitycert/repair_protocol.py).  A
revised B that is A in disguise is refused by the copy guard (the registry's own not_a_copy row, so the
loop and the verdict apply one rule, and a self-dual node's correct dual, isomorphic to A, is not refused).  The loop stops when B certifies at interaction
strictness (chiral ring level 3); the final judge then checks the last B at level 5, so nothing the
model saw during the loop is stricter than the verdict.

Policies: ss (one attempt of one round), gr (content-free "verification failed" feedback), vf (failed
obligation names and categories), vf_masked (the same with positional placeholders), best_of_n (up to 11
independent single attempts, stopping at the first final certificate), and portfolio (ss, then gr, then
vf, replayed from three recorded runs without calling a model).

Every round is a record (invalid replies included); every episode ends in one outcome: certified,
failed, abstained, invalid (no valid reply at all) or infra_fault (the provider failed; a resumed run
tries the episode again, and the model client serves the replies it already has from the transcript).
"""

from __future__ import annotations

import functools
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from langchain_core.messages import BaseMessage, HumanMessage
from pydantic import BaseModel, ConfigDict

from physvec.agents.episode_model import EpisodeModel
from physvec.agents.model_client import BudgetExhausted, ModelClient, ModelUnavailable
from physvec.agents.prompts import render
from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.campaigns.progress import CampaignProgress
from physvec.campaigns.trials import raise_first_failure, run_trials
from physvec.runstore.records import RecordFile
from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.dualitycert.obligations import not_a_copy
from physvec.verifiers.dualitycert.registry import FINAL, INTERACTION, certify
from physvec.verifiers.dualitycert.repair_protocol import FeedbackForm, InvalidReply, feedback, parse_reply, reply_schema
from physvec.verifiers.dualitycert.theory import Claim, Theory

ROLE = "dualitycert_repair"
STEPS_PER_EPISODE = 100
"""Model-call step numbers are episode * 100 + call, so a resumed run finds each recorded reply."""


@dataclass(frozen=True)
class Policy:
    name: str
    rounds: int
    attempts: int
    form: FeedbackForm


POLICIES = {
    "ss": Policy("ss", rounds=1, attempts=1, form=FeedbackForm.GENERIC),
    "gr": Policy("gr", rounds=5, attempts=1, form=FeedbackForm.GENERIC),
    "vf": Policy("vf", rounds=5, attempts=1, form=FeedbackForm.OBLIGATIONS),
    "vf_masked": Policy("vf_masked", rounds=5, attempts=1, form=FeedbackForm.MASKED),
    "best_of_n": Policy("best_of_n", rounds=1, attempts=11, form=FeedbackForm.GENERIC),
}
PORTFOLIO = ("ss", "gr", "vf")


class AttemptRecord(BaseModel):
    """One model reply and what the environment made of it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    policy: str
    fixture: str
    trial: int
    attempt: int
    round: int
    action: str
    """edit_candidate, no_change, abstain, or invalid"""
    error: str = ""
    copy_rejected: bool = False
    verdict: str
    """interaction verdict of the current B after this reply"""
    failed: list[str]
    tokens: int


class EpisodeRecord(BaseModel):
    """How one fixture ended under one policy in one trial."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    policy: str
    fixture: str
    trial: int
    outcome: str
    """certified, failed, abstained, invalid, or infra_fault"""
    calls: int
    final_verdict: str
    tokens: int
    seconds: float

    @property
    def key(self) -> tuple[str, int]:
        return self.fixture, self.trial


def repair_messages(claim_a: Theory, current: Theory, told: dict, note: str) -> list[BaseMessage]:
    return [HumanMessage(render("dualitycert_repair.j2", theory_a=claim_a.to_json().strip(),
                                theory_b=current.to_json().strip(), feedback=json.dumps(told), note=note,
                                schema=reply_schema()))]


class RepairRun:
    """A run folder: run.json, attempts.jsonl, episodes.jsonl and the model transcript."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.attempts = RecordFile(folder / "attempts.jsonl", AttemptRecord)
        self.episodes = RecordFile(folder / "episodes.jsonl", EpisodeRecord)

    @property
    def run_id(self) -> str:
        return self.folder.name

    def finished(self) -> dict[tuple[str, int], EpisodeRecord]:
        """Episodes that ended (an infra_fault does not count: a resumed run tries it again)."""
        return {e.key: e for e in self.episodes.read() if e.outcome != "infra_fault"}


@dataclass
class _Episode:
    """The state of one episode while it runs."""

    run: RepairRun
    policy: Policy
    fixture: str
    trial: int
    client: ModelClient
    step_base: int
    calls: int = 0
    attempts: list[AttemptRecord] = field(default_factory=list)
    """the rounds' records, written by the campaign's client when the episode ends"""

    def ask(self, messages: list[BaseMessage]) -> str:
        step = self.step_base + self.calls
        self.calls += 1
        return self.client.ask(ROLE, messages, node=ROLE, step=step)

    def record(self, attempt: int, round_: int, action: str, verdict: str, failed: list[str], error: str = "",
               copy_rejected: bool = False) -> None:
        self.attempts.append(AttemptRecord(
            run_id=self.run.run_id, policy=self.policy.name, fixture=self.fixture, trial=self.trial,
            attempt=attempt, round=round_, action=action, error=error, copy_rejected=copy_rejected,
            verdict=verdict, failed=failed, tokens=self.client.tokens_used))


def _attempt(episode: _Episode, claim: Claim, attempt: int) -> tuple[str, Theory]:
    """One attempt of up to ``rounds`` rounds; returns its loop outcome and the last accepted B."""
    current, note, valid_replies = claim.theory_b, "", 0
    certificate = certify(Claim(theory_a=claim.theory_a, theory_b=current), INTERACTION)
    for round_ in range(episode.policy.rounds):
        told = feedback(certificate, episode.policy.form)
        text = episode.ask(repair_messages(claim.theory_a, current, told, note))
        note = ""
        failed = [o.name for o in certificate.failed()]
        try:
            reply, revised = parse_reply(text)
        except InvalidReply as error:
            episode.record(attempt, round_, "invalid", certificate.verdict.value, failed, error=str(error))
            note = f"Your previous reply was invalid: {error}"
            continue
        valid_replies += 1
        if reply.action == "abstain":
            episode.record(attempt, round_, reply.action, certificate.verdict.value, failed)
            return "abstained", current
        if revised is not None and not_a_copy(claim.theory_a, revised).outcome is Outcome.FAILED:
            episode.record(attempt, round_, reply.action, certificate.verdict.value, failed, copy_rejected=True)
            note = "Your previous B was refused: it is theory A itself (up to relabelling or conjugation)."
            continue
        if revised is not None:
            current = revised
            certificate = certify(Claim(theory_a=claim.theory_a, theory_b=current), INTERACTION)
        episode.record(attempt, round_, reply.action, certificate.verdict.value, [o.name for o in certificate.failed()])
        if certificate.verdict is Verdict.CERTIFIED:
            return "certified", current
    return ("failed" if valid_replies else "invalid"), current


def run_episode(run: RepairRun, policy: Policy, fixture: str, claim: Claim, trial: int, client: ModelClient,
                step_base: int) -> EpisodeRecord:
    """Every attempt the policy allows on one fixture, then the final judge on the last B; its records appended."""
    record, attempts = play_episode(run, policy, fixture, claim, trial, client, step_base)
    _append(run, record, attempts)
    return record


def _append(run: RepairRun, record: EpisodeRecord, attempts: list[AttemptRecord]) -> None:
    for attempt in attempts:
        run.attempts.append(attempt)
    run.episodes.append(record)


def play_episode(run: RepairRun, policy: Policy, fixture: str, claim: Claim, trial: int, client: ModelClient,
                 step_base: int) -> tuple[EpisodeRecord, list[AttemptRecord]]:
    """The episode of run_episode on whichever worker: its record and its rounds' records, written nowhere
    (the campaign's client writes them, so an episode cut short leaves no rounds behind)."""
    started, tokens_before = time.monotonic(), client.tokens_used
    episode = _Episode(run, policy, fixture, trial, client, step_base)
    outcome, final = "failed", Verdict.FAILED
    try:
        for attempt in range(policy.attempts):
            loop_outcome, last = _attempt(episode, claim, attempt)
            final = certify(Claim(theory_a=claim.theory_a, theory_b=last), FINAL).verdict
            outcome = "certified" if final is Verdict.CERTIFIED else (
                loop_outcome if loop_outcome in ("abstained", "invalid") else "failed")
            if outcome == "certified":
                break
    except (ModelUnavailable, BudgetExhausted) as error:
        outcome, final = "infra_fault", Verdict.UNKNOWN
        episode.attempts.append(AttemptRecord(run_id=run.run_id, policy=policy.name, fixture=fixture, trial=trial,
                                              attempt=-1, round=-1, action="infra_fault", error=str(error)[:300],
                                              verdict="unknown", failed=[], tokens=client.tokens_used))
    record = EpisodeRecord(run_id=run.run_id, policy=policy.name, fixture=fixture, trial=trial, outcome=outcome,
                           calls=episode.calls, final_verdict=final.value, tokens=client.tokens_used - tokens_before,
                           seconds=round(time.monotonic() - started, 2))
    return record, episode.attempts


def run_policy(run: RepairRun, policy: Policy, fixtures: list[tuple[str, Claim]], trials: int,
               model: ModelClient | EpisodeModel, progress: Callable[[EpisodeRecord], None] | None = None,
               executor: Executor | None = None, bar: CampaignProgress | None = None) -> list[EpisodeRecord]:
    """Every (fixture, trial) episode the run lacks on ``executor`` (default: one at a time here, in fixture
    order); the records are appended here as each episode ends, never by a worker.

    Args:
        model: one client serving every episode here in order (the run's one transcript and budget), or an
            EpisodeModel from which each episode, wherever it runs, makes its own.
    """
    runner = executor or LocalExecutor(1)
    if isinstance(model, ModelClient) and not (isinstance(runner, LocalExecutor) and runner.jobs == 1):
        raise ValueError("one shared model client serves episodes one at a time: pass an EpisodeModel")
    done = run.finished()
    keys = [(index, trial) for index, (fixture, _) in enumerate(fixtures) for trial in range(trials)
            if (fixture, trial) not in done]
    records: list[EpisodeRecord] = []

    def record(key: tuple[int, int], ended: tuple[EpisodeRecord, list[AttemptRecord]]) -> None:
        _append(run, *ended)
        records.append(ended[0])
        if progress is not None:
            progress(ended[0])

    trial = functools.partial(_play, run, policy, fixtures, trials, model)
    failures = run_trials(runner, trial, keys, record, bar)
    raise_first_failure(failures)
    return records


def _play(run: RepairRun, policy: Policy, fixtures: list[tuple[str, Claim]], trials: int,
          model: ModelClient | EpisodeModel, key: tuple[int, int]) -> tuple[EpisodeRecord, list[AttemptRecord]]:
    """A worker's episode: module-level, so that Dask ships it by name."""
    index, trial = key
    fixture, claim = fixtures[index]
    client = model if isinstance(model, ModelClient) else model.client(run.folder, f"{fixture}-{trial}")
    return play_episode(run, policy, fixture, claim, trial, client, step_base=(index * trials + trial) * STEPS_PER_EPISODE)


def portfolio(runs: dict[str, list[EpisodeRecord]], run_id: str) -> list[EpisodeRecord]:
    """The stop-first portfolio ss -> gr -> vf from recorded episodes: the first policy that certifies
    wins, and the portfolio pays the calls and tokens of every policy it tried."""
    by_policy = {name: {e.key: e for e in runs[name] if e.outcome != "infra_fault"} for name in PORTFOLIO}
    combined = []
    for key in sorted(set.intersection(*(set(episodes) for episodes in by_policy.values()))):
        tried = []
        for name in PORTFOLIO:
            tried.append(by_policy[name][key])
            if tried[-1].outcome == "certified":
                break
        last = tried[-1]
        combined.append(EpisodeRecord(run_id=run_id, policy="portfolio", fixture=key[0], trial=key[1],
                                      outcome=last.outcome, calls=sum(e.calls for e in tried),
                                      final_verdict=last.final_verdict, tokens=sum(e.tokens for e in tried),
                                      seconds=round(sum(e.seconds for e in tried), 2)))
    return combined
