"""Runs of a script's own run_ function with parameter overrides, in the sandbox.

Physical assertions and convergence ladders both need "this run_ function, these PARAMS changes, that
observable".  The script file is copied unmodified; the program only imports it and calls it, so the
numbers come from the script's own element functions and the comparison happens out here, in code.

A call runs once per script version: identical calls, within one batch or across the assertion,
metamorphic and convergence checks, share one run, and an override that sets a parameter to the
value PARAMS already gives it is no override (a convergence rung at the script's own value is the
metamorphic base run).  The memo is keyed by the run's work folder and the bytes of the program that
runs, so another run, a new version, an adapter program or an edited script never sees another's
numbers; only runs that returned are kept, and a call served from it leaves a note in its folder naming
the folder where it ran.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sys
from collections import OrderedDict
from dataclasses import dataclass, field, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from physvec.taskfiles.keypaths import KeyPathError, lookup
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool, SandboxResult

REPORT_FILE = "observed.json"
SHARED_FILE = "same_call.json"
MEMO_CALLS = 512
"""Reports of finished calls kept for reuse (the oldest go first), with the folder each ran in and what its
program's provenance record said (a reused call brings its breaches to the stage that reuses it)."""
_memo: OrderedDict[str, tuple[dict[str, Any], Path, SandboxResult]] = OrderedDict()


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
    """What one override run produced (``value``) or why it produced nothing (``error``).

    ``died``: the program left no report (a limit or the sandbox stopped it), as against a script that raised:
    a raise is the script's fault, a death is not evidence against it either way.  ``raised_in_script``: the
    innermost frame of the raise was the script's own code, not a library refusing the value it was given.
    """

    run: OverrideRun
    ok: bool
    value: Any = None
    error: str = ""
    seconds: float | None = None
    died: bool = False
    raised_in_script: bool = True


def _program(run: OverrideRun, observables: list[str]) -> str:
    return ("from physvec.verifiers.programming.harness import run_with_overrides\n"
            f"run_with_overrides('script.py', {run.run!r}, {run.overrides!r}, {observables!r}, {REPORT_FILE!r})\n")


def _observed(run: OverrideRun, report: dict[str, Any] | None, result: SandboxResult | None) -> Observed:
    if report is None:
        died = result.summary() if result is not None else "no result"
        return Observed(run, False, error=f"the run died: {died}; {result.stderr[-500:] if result else ''}", died=True)
    if not report["ok"]:
        return Observed(run, False, error=report.get("error", ""), seconds=report.get("seconds"),
                        raised_in_script=report.get("raised_in_script", True))
    if run.observable in report["errors"]:
        return Observed(run, False, error=report["errors"][run.observable], seconds=report.get("seconds"))
    return Observed(run, True, report["values"][run.observable], seconds=report.get("seconds"))


@lru_cache(maxsize=64)
def _params_of(program: bytes) -> dict[str, Any]:
    try:
        return analyse_script(program.decode()).params or {}
    except (SyntaxError, UnicodeDecodeError, ValueError):
        return {}


def _call_key(script: Path, run: OverrideRun, workdir: Path) -> str:
    """What decides a call's result: the program's bytes, the run_ function and the overrides that change
    a parameter (one set to the value PARAMS already holds changes nothing); and whose it is: the run's
    work folder (the parent of every check's folder)."""
    program = (run.program or script).read_bytes()
    params = _params_of(program)
    changed = {name: value for name, value in run.overrides.items()
               if name not in params or json.dumps(params[name], default=str) != json.dumps(value, default=str)}
    return json.dumps([str(workdir.resolve().parent), hashlib.sha256(program).hexdigest(), run.run, changed],
                      sort_keys=True, default=str)


def _remembered(key: str, observables: list[str], folder: Path, pool: SandboxPool) -> dict[str, Any] | None:
    """A finished call's report when it recorded every observable asked now (noted in ``folder``, where the pool
    counts its program's record again)."""
    if key not in _memo:
        return None
    report, ran_in, result = _memo[key]
    report = _with_paths(report, observables)
    if report is None:
        return None
    _memo.move_to_end(key)
    folder.mkdir(parents=True, exist_ok=True)
    # relative, like every path a run folder keeps: the folder stays readable when the run is moved
    (folder / SHARED_FILE).write_text(json.dumps({"ran_in": os.path.relpath(ran_in, folder),
                                                  "observables": observables}) + "\n")
    pool.adopt(folder, result)
    return report


def _with_paths(report: dict[str, Any], observables: list[str]) -> dict[str, Any] | None:
    """``report`` holding every observable asked, those it lacks read from the whole result when the call
    recorded that (the empty key path); None when it cannot answer them all."""
    missing = [name for name in observables if name not in report["values"] and name not in report["errors"]]
    if not missing:
        return report
    if "" not in report["values"]:
        return None
    values, errors = dict(report["values"]), dict(report["errors"])
    for name in missing:
        try:
            values[name] = lookup(report["values"][""], name)
        except KeyPathError as error:
            errors[name] = f"{type(error).__name__}: {error}"
    return {**report, "values": values, "errors": errors}


def _remember(key: str, report: dict[str, Any] | None, folder: Path, result: SandboxResult) -> None:
    if report is not None and report.get("ok"):
        _memo[key] = (report, folder, replace(result, stdout="", stderr=""))
        _memo.move_to_end(key)
        while len(_memo) > MEMO_CALLS:
            _memo.popitem(last=False)


def calls_to_run(script: Path, runs: list[OverrideRun], workdir: Path) -> int:
    """How many sandbox runs ``observe`` would start for ``runs`` now (distinct calls not remembered)."""
    return len({key for key in (_call_key(script, run, workdir) for run in runs) if key not in _memo})


def observe(script: Path, runs: list[OverrideRun], workdir: Path, pool: SandboxPool,
            limits: SandboxLimits) -> list[Observed]:
    """Execute every distinct call not run before in parallel, once each, recording every observable asked of
    it; results come back in the order of ``runs``."""
    keys = [_call_key(script, run, workdir) for run in runs]
    distinct: dict[str, tuple[OverrideRun, list[str]]] = {}
    for key, run in zip(keys, runs, strict=True):
        _, observables = distinct.setdefault(key, (run, []))
        if run.observable not in observables:
            observables.append(run.observable)
    reports: dict[str, tuple[dict[str, Any] | None, SandboxResult | None]] = {}
    jobs, folders, pending = [], [], []
    for key, (run, observables) in distinct.items():
        folder = workdir / run.label
        shutil.rmtree(folder, ignore_errors=True)
        remembered = _remembered(key, observables, folder, pool)
        if remembered is not None:
            reports[key] = (remembered, None)
            continue
        folder.mkdir(parents=True)
        shutil.copyfile(run.program or script, folder / "script.py")
        (folder / "observe.py").write_text(_program(run, observables))
        jobs.append(SandboxJob([sys.executable, "observe.py"], folder, limits))
        folders.append(folder)
        pending.append(key)
    for key, folder, result in zip(pending, folders, pool.run_all(jobs) if jobs else [], strict=True):
        report = json.loads((folder / REPORT_FILE).read_text()) if (folder / REPORT_FILE).is_file() else None
        _remember(key, report, folder, result)
        reports[key] = (report, result)
    return [_observed(run, *reports[key]) for key, run in zip(keys, runs, strict=True)]


def observe_groups(script: Path, groups: list[list[OverrideRun]], workdir: Path, pool: SandboxPool,
                   limits: SandboxLimits) -> list[list[Observed]]:
    """Execute several groups of runs (one group per check) in one parallel batch, results grouped."""
    observed = iter(observe(script, [run for group in groups for run in group], workdir, pool, limits))
    return [[next(observed) for _ in group] for group in groups]
