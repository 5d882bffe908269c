"""Reproduce a benchmark task with the library proposer (no model): proves task, verifiers and reference agree.

If the verified library, composed from the task's spec, does not reproduce the reference within its
tolerance, then the task, its reference or a verifier is wrong, whatever a model would do.  The trial
runs like any campaign trial (`physvec` method, model `library`); this adds which obligations failed
or stayed open, to say what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from physvec.runstore.store import RunDirectory
from physvec.qmp_bench.campaign import Campaign, TrialKey
from physvec.qmp_bench.catalogue import BenchTask
from physvec.qmp_bench.runner import run_trial

UNFINISHED = ("unknown", "error", "not_implemented")


@dataclass(frozen=True)
class Reproduction:
    """The outcome of one library reproduction of a task."""

    task: str
    verdict: str
    failed: tuple[str, ...]
    """names of the failed obligations (none when the reproduction is certified)"""
    unfinished: tuple[str, ...]
    """obligations left unknown, errored or unbuilt"""
    seconds: float
    run_dir: Path

    @property
    def reproduced(self) -> bool:
        return self.verdict == "certified"


def reproduce_with_library(task: BenchTask, campaign: Campaign) -> Reproduction:
    """One library trial of ``task`` in ``campaign``, with the names of its failed and open obligations."""
    record = run_trial(campaign, task, TrialKey(task.name, "physvec", "library", 0))
    run = RunDirectory(Path(record.run_dir))
    obligations = [o for certificate in run.certificates().values() for o in certificate.obligations]
    return Reproduction(
        task=task.name, verdict=record.verdict,
        failed=tuple(o.name for o in obligations if o.outcome.value == "failed"),
        unfinished=tuple(o.name for o in obligations if o.outcome.value in UNFINISHED),
        seconds=record.seconds, run_dir=run.path)
