"""A benchmark campaign: one record per (task, method, model, trial), appended as each trial ends.

The records file is append-only JSON lines (physvec/runstore/records.py), so a campaign killed halfway resumes
by running only the trials it lacks; a trial whose line was cut by the kill is run again.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from physvec.runstore.store import RunDirectory
from physvec.runstore.transcript import EventType, read_events
from physvec.runstore.records import RecordFile
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming import programming_metrics

RECORDS_FILE = "records.jsonl"
RETRIED_STATUSES = ("model_unavailable", "interrupted", "running")
"""Run endings that say nothing about the method: such a trial runs again on the next `qmp-bench run`."""


class TrialRecord(BaseModel):
    """What one trial of one method on one task achieved."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    task: str
    method: str
    model: str
    trial: int
    run_dir: str
    verdict: str
    executable: bool
    scientific_completion: bool
    """the final script reproduces the reference within the task's tolerance"""
    unit_accuracy_first: float | None
    unit_accuracy_final: float | None
    integration_accuracy_first: float | None
    integration_accuracy_final: float | None
    iterations: int
    tokens: int
    tool_calls: int
    seconds: float
    status: str | None = None
    """run.json's status at the end (model_unavailable, budget_exhausted, finished, ...)"""

    @property
    def decided(self) -> bool:
        """Whether the trial measured the method: it ended with a verdict, and not because the model
        provider or the machine gave out."""
        return self.verdict not in ("None", "") and self.status not in RETRIED_STATUSES


@dataclass(frozen=True)
class TrialKey:
    task: str
    method: str
    model: str
    trial: int


def _stage(certificates: dict, stage: str) -> list:
    return [certificates[name] for name in sorted(certificates) if name.startswith(f"{stage}-v")]


def record_from_run(run: RunDirectory, key: TrialKey, seconds: float) -> TrialRecord:
    """The trial's record, read from its run directory's metadata, certificates and transcript."""
    metadata = run.metadata()
    metrics = metadata.get("metrics") or {}
    certificates = run.issued_certificates()  # what the verifier wrote, digest-checked: never a planted file
    programming = [programming_metrics(c) for c in _stage(certificates, "programming")]
    scientific = _stage(certificates, "scientific")
    reference = [o for o in scientific[-1].obligations if o.name.startswith("reference")] if scientific else []
    events = list(read_events(run.transcript_file))
    finished = [e.data.get("verdict") for e in events if e.type is EventType.RUN_FINISHED]
    return TrialRecord(
        task=key.task, method=key.method, model=key.model, trial=key.trial, run_dir=str(run.path),
        verdict=str(finished[-1] if finished else None), status=run.status(),
        executable=bool(programming and programming[-1]["executable"]),
        scientific_completion=bool(reference) and all(o.outcome is Outcome.CERTIFIED for o in reference),
        unit_accuracy_first=programming[0]["unit_accuracy"] if programming else None,
        unit_accuracy_final=programming[-1]["unit_accuracy"] if programming else None,
        integration_accuracy_first=programming[0]["integration_accuracy"] if programming else None,
        integration_accuracy_final=programming[-1]["integration_accuracy"] if programming else None,
        iterations=int(metrics.get("programming_iterations") or 0) + int(metrics.get("scientific_iterations") or 0),
        tokens=int(metadata.get("tokens_used") or 0),
        tool_calls=sum(e.type in (EventType.RETRIEVAL, EventType.SANDBOX_RUN) for e in events),
        seconds=round(seconds, 2))


class Campaign:
    """A folder holding the records of one campaign and the runs behind them."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.folder.mkdir(parents=True, exist_ok=True)

    @property
    def records_file(self) -> Path:
        return self.folder / RECORDS_FILE

    def records(self) -> list[TrialRecord]:
        """The latest complete record of each trial (a trial whose line a kill cut short runs again; a trial
        run again after an outage counts once, by its last record)."""
        latest: dict[TrialKey, TrialRecord] = {}
        for record in RecordFile(self.records_file, TrialRecord).read():
            latest[TrialKey(record.task, record.method, record.model, record.trial)] = record
        return list(latest.values())

    def append(self, record: TrialRecord) -> None:
        RecordFile(self.records_file, TrialRecord).append(record)

    def pending(self, keys: list[TrialKey]) -> list[TrialKey]:
        """The trials among ``keys`` without a decided record yet, in order: no record, or one whose run gave
        no verdict or stopped because the model or the machine gave out (not the method's doing)."""
        done = {TrialKey(r.task, r.method, r.model, r.trial) for r in self.records() if r.decided}
        return [key for key in keys if key not in done]

    def runs_dir(self, key: TrialKey) -> Path:
        return self.folder / "runs" / key.method / key.task.replace("/", "__") / f"trial-{key.trial:02d}"

