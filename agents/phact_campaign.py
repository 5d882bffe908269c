"""A PHACT campaign: the proposer loop over goals and trials, with records that survive a crash.

A run folder holds run.json (the settings: a resume with other settings is refused), transcript.jsonl
(every model call, tool call and re-prompt), episodes.jsonl (one record per finished episode) and
certificates/ (the last certificate of each episode).  A resumed campaign skips finished episodes and
runs infra-faulted or unfinished ones again; the model client serves replies it already has.

Each record carries the ground truth the report needs, from a judge that shares no code with the verdict
(verifiers/phact/ground_truth.py): whether a certified design really meets its goal (a bare certificate
may be forged, a structural one may rest on an engine flaw) and whether a goal ended impossible has a
design that meets it after all.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable
from pathlib import Path

from pydantic import ConfigDict

from physvec.agents.episode_model import EpisodeModel
from physvec.agents.model_client import ModelClient
from physvec.campaigns.executor import Executor, LocalExecutor
from physvec.campaigns.progress import CampaignProgress
from physvec.campaigns.trials import raise_first_failure, run_trials
from physvec.agents.phact_proposer import Episode, EpisodeResult, LoopOutcome, LoopSettings, LoopTally
from physvec.runstore.records import RecordFile
from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.ground_truth import Truth, design_meets, goal_truth
from physvec.verifiers.phact.schema import Goal


class EpisodeRecord(LoopTally):
    """How one goal ended in one trial (with the loop's tally)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    run_id: str
    goal: str
    domain: str
    kind: str
    written_impossible: bool
    contract: str
    feedback: str
    trial: int
    outcome: str
    """certified, impossible, unknown, loop_fail or infra_fault"""
    reason: str
    false_certificate: bool
    """certified, but the independent judge finds that the design's free inputs miss the goal"""
    false_impossible: bool
    """impossible, but the independent judge finds a design in the free box that meets the goal"""
    ground_truth: str = ""
    """the judge's word on a goal that ended impossible: feasible, infeasible or undecided (a grid over a
    continuum that finds no witness proves nothing)"""
    tokens: int
    seconds: float

    @property
    def key(self) -> tuple[str, int]:
        return self.goal, self.trial


class PhactRun:
    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.episodes = RecordFile(folder / "episodes.jsonl", EpisodeRecord)

    @property
    def run_id(self) -> str:
        return self.folder.name

    def finished(self) -> dict[tuple[str, int], EpisodeRecord]:
        """Episodes that ended (an infra_fault does not count: a resumed run tries it again)."""
        return {e.key: e for e in self.episodes.read() if e.outcome != LoopOutcome.INFRA_FAULT}

    def latest(self) -> dict[tuple[str, int], EpisodeRecord]:
        """The last record of every episode, infra faults included: what a report counts (none dropped)."""
        return {e.key: e for e in self.episodes.read()}


def episode_record(run: PhactRun, goal: Goal, domain: Domain, settings: LoopSettings, trial: int,
                   result: EpisodeResult, seconds: float) -> EpisodeRecord:
    certified = result.outcome is LoopOutcome.CERTIFIED
    impossible = result.outcome is LoopOutcome.IMPOSSIBLE
    truth = goal_truth(goal) if impossible else None
    return EpisodeRecord(
        run_id=run.run_id, goal=goal.id, domain=domain.name, kind=goal.kind, written_impossible=bool(goal.impossible_because),
        contract=settings.contract.value, feedback=settings.feedback, trial=trial, outcome=result.outcome.value,
        reason=result.reason[:300], **result.tally.model_dump(),
        false_certificate=certified and not design_meets(goal, result.tally.design),
        false_impossible=truth is Truth.FEASIBLE, ground_truth=truth.value if truth else "",
        tokens=result.tokens, seconds=round(seconds, 3))


EpisodeKey = tuple[int, int]
"""(the goal's position in the campaign's goal list, the trial)"""
Ended = tuple[EpisodeRecord, str | None]
"""an episode's record and its last certificate as JSON, sent back for the client to write"""


def run_campaign(run: PhactRun, goals: list[tuple[Goal, Domain]], settings: LoopSettings, trials: int,
                 model: ModelClient | EpisodeModel, progress: Callable[[EpisodeRecord], None] | None = None,
                 executor: Executor | None = None, bar: CampaignProgress | None = None) -> list[EpisodeRecord]:
    """Every (goal, trial) episode the run lacks; each record is appended (here, never by a worker) as it ends.

    Args:
        model: one client that serves every episode in goal order on this process (the run's one
            transcript and token budget), or an EpisodeModel from which each episode, wherever it runs,
            makes a client of its own.
        executor: where episodes run (default: one at a time here); more than one at a time needs an
            EpisodeModel.
    """
    runner = executor or LocalExecutor(1)
    if isinstance(model, ModelClient) and not (isinstance(runner, LocalExecutor) and runner.jobs == 1):
        raise ValueError("one shared model client serves episodes one at a time: pass an EpisodeModel")
    done = run.finished()
    certificates = run.folder / "certificates"
    certificates.mkdir(parents=True, exist_ok=True)
    keys = [(index, trial) for index, (goal, _) in enumerate(goals) for trial in range(trials)
            if (goal.id, trial) not in done]
    records: list[EpisodeRecord] = []

    def record(key: EpisodeKey, ended: Ended) -> None:
        episode, certificate = ended
        if certificate is not None:
            (certificates / f"{episode.goal}-{episode.trial}.json").write_text(certificate)
        run.episodes.append(episode)
        records.append(episode)
        if progress is not None:
            progress(episode)

    failures = run_trials(runner, functools.partial(run_episode, run, goals, settings, trials, model), keys, record, bar)
    raise_first_failure(failures)
    return records


def run_episode(run: PhactRun, goals: list[tuple[Goal, Domain]], settings: LoopSettings, trials: int,
                model: ModelClient | EpisodeModel, key: EpisodeKey) -> Ended:
    """One episode, on whichever worker: its record and certificate, written nowhere (the client writes them)."""
    index, trial = key
    goal, domain = goals[index]
    client = model if isinstance(model, ModelClient) else model.client(run.folder, f"{goal.id}-{trial}")
    started = time.monotonic()
    result = Episode(goal, domain, client, settings, index * trials + trial).run()
    certificate = result.certificate.model_dump_json(indent=1) if result.certificate is not None else None
    return episode_record(run, goal, domain, settings, trial, result, time.monotonic() - started), certificate
