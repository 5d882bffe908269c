"""Reproduce a benchmark task with the library proposer (no model): proves task, verifiers and reference agree.

If the verified library, composed from the task's spec, does not reproduce the reference within its
tolerance, then the task, its reference or a verifier is wrong, whatever a model would do.
"""

from __future__ import annotations

import contextlib
import io
import time
from dataclasses import dataclass
from pathlib import Path

from physvec.cli import reproduce_main
from physvec.runstore.store import list_runs
from qmp_bench.catalogue import BenchTask


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


def reproduce_with_library(task: BenchTask, runs_dir: Path, quiet: bool = True) -> Reproduction:
    """Run `reproduce TASK --model library` into ``runs_dir`` and summarise its certificates."""
    started = time.monotonic()
    output = io.StringIO()
    with contextlib.redirect_stdout(output) if quiet else contextlib.nullcontext(), \
            contextlib.redirect_stderr(output) if quiet else contextlib.nullcontext():
        reproduce_main([str(task.task_file), "--model", "library", "--runs-dir", str(runs_dir)])
    run = list_runs(runs_dir)[-1]
    obligations = [o for certificate in run.certificates().values() for o in certificate.obligations]
    return Reproduction(
        task=task.name, verdict=str(run.metadata()["verdict"]),
        failed=tuple(o.name for o in obligations if o.outcome.value == "failed"),
        unfinished=tuple(o.name for o in obligations if o.outcome.value in ("unknown", "error", "not_implemented")),
        seconds=time.monotonic() - started, run_dir=run.path)
