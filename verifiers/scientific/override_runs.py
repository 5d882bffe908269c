"""Runs of a script's own run_ function with parameter overrides, in the sandbox.

Physical assertions and convergence ladders both need "this run_ function, these PARAMS changes, that
observable".  The script file is copied unmodified; the program only imports it and calls it, so the
numbers come from the script's own element functions and the comparison happens out here, in code.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool, SandboxResult

REPORT_FILE = "observed.json"


@dataclass(frozen=True)
class OverrideRun:
    """One call: ``run(**{**PARAMS, **overrides})`` and the observable at a key path of its result.

    ``program`` replaces the script under test for this call (an assertion's checked adapter program).
    """

    label: str
    run: str
    observable: str
    overrides: dict[str, Any] = field(default_factory=dict)
    program: Path | None = None


@dataclass(frozen=True)
class Observed:
    """What one override run produced (``value``) or why it produced nothing (``error``)."""

    run: OverrideRun
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float | None = None


def _program(run: OverrideRun, observables: list[str]) -> str:
    return ("from physvec.verifiers.programming.harness import run_with_overrides\n"
            f"run_with_overrides('script.py', {run.run!r}, {run.overrides!r}, {observables!r}, {REPORT_FILE!r})\n")


def _observed(run: OverrideRun, report: dict[str, Any] | None, result: SandboxResult) -> Observed:
    if report is None:
        return Observed(run, False, error=f"the run died: {result.summary()}; {result.stderr[-500:]}")
    if not report["ok"]:
        return Observed(run, False, error=report.get("error", ""), seconds=report.get("seconds"))
    if run.observable in report["errors"]:
        return Observed(run, False, error=report["errors"][run.observable], seconds=report.get("seconds"))
    return Observed(run, True, report["values"][run.observable], seconds=report.get("seconds"))


def _call_key(run: OverrideRun) -> str:
    """Runs of the same call execute once, whatever observables they read from it."""
    return json.dumps([str(run.program), run.run, run.overrides], sort_keys=True, default=str)


def observe(script: Path, runs: list[OverrideRun], workdir: Path, pool: SandboxPool,
            limits: SandboxLimits) -> list[Observed]:
    """Execute every distinct call in parallel, once each, recording every observable asked of it; results come
    back in the order of ``runs``."""
    distinct: dict[str, tuple[OverrideRun, list[str]]] = {}
    for run in runs:
        _, observables = distinct.setdefault(_call_key(run), (run, []))
        if run.observable not in observables:
            observables.append(run.observable)
    jobs, folders = [], []
    for run, observables in distinct.values():
        folder = workdir / run.label
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir(parents=True)
        shutil.copyfile(run.program or script, folder / "script.py")
        (folder / "observe.py").write_text(_program(run, observables))
        jobs.append(SandboxJob([sys.executable, "observe.py"], folder, limits))
        folders.append(folder)
    results = pool.run_all(jobs)
    reports = {key: (json.loads((folder / REPORT_FILE).read_text()) if (folder / REPORT_FILE).is_file() else None,
                     result)
               for key, folder, result in zip(distinct, folders, results)}
    return [_observed(run, *reports[_call_key(run)]) for run in runs]


def observe_groups(script: Path, groups: list[list[OverrideRun]], workdir: Path, pool: SandboxPool,
                   limits: SandboxLimits) -> list[list[Observed]]:
    """Execute several groups of runs (one group per check) in one parallel batch, results grouped."""
    observed = iter(observe(script, [run for group in groups for run in group], workdir, pool, limits))
    return [[next(observed) for _ in group] for group in groups]
