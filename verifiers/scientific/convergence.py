"""Convergence ladders: re-run with a climbing accuracy parameter until the observable settles.

All rungs run in parallel (a ladder has a handful of rungs and the cores are otherwise idle); the
judgment then reads the table from the cheap end: converged at the first rung whose observable moved
less than the tolerance from the previous one.  The script's own PARAMS value must be at least as
accurate as that rung, or its results are not converged.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from physvec.taskfiles.task import ConvergenceCase
from verifiers.certificate import Obligation, Outcome
from verifiers.finite import as_float_array
from verifiers.programming.contract import ScriptContract
from verifiers.sandbox import SandboxLimits, SandboxPool
from verifiers.scientific.override_runs import Observed, OverrideRun, observe_groups

CONVERGENCE = "convergence"


def _rung_value(value: float, current: Any) -> Any:
    """Ladders are written as numbers; an integer parameter gets integers."""
    return int(value) if isinstance(current, int) and float(value).is_integer() else value


def _change(previous: Any, current: Any) -> float | None:
    a, b = as_float_array(previous), as_float_array(current)
    if a is None or b is None or a.shape != b.shape or not a.size:
        return None
    return float(np.max(np.abs(b - a)))


def _judge(case: ConvergenceCase, script_value: Any, observed: list[Observed]) -> Obligation:
    name = f"convergence:{case.parameter}"
    table: list[dict[str, Any]] = []
    converged_at = None
    for rung, result in enumerate(observed):
        row = {"value": result.run.overrides[case.parameter], "observed": result.value if result.ok else None,
               "error": result.error or None, "change": None}
        if rung and result.ok and observed[rung - 1].ok:
            row["change"] = _change(observed[rung - 1].value, result.value)
            if converged_at is None and row["change"] is not None and row["change"] < case.tolerance:
                converged_at = rung
        table.append(row)
    evidence = {"observable": case.observable, "tolerance": case.tolerance, "script_value": script_value,
                "table": table}
    failed_runs = [row for row in table if row["error"]]
    if failed_runs:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"the run at {case.parameter} = {failed_runs[0]['value']} failed: "
                                  f"{failed_runs[0]['error']}")
    if converged_at is None:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"{case.observable} still changes by more than {case.tolerance} at the top of "
                                  f"the {case.parameter} ladder")
    needed = table[converged_at - 1]["value"]
    increasing = case.ladder[-1] > case.ladder[0]
    accurate_enough = script_value >= needed if increasing else script_value <= needed
    evidence["converged_from"] = needed
    if not accurate_enough:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"converged from {case.parameter} = {needed}, but the script uses {script_value}")
    return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.CERTIFIED, evidence=evidence,
                      message=f"converged from {case.parameter} = {needed}; the script uses {script_value}")


def convergence_obligations(script: Path, contract: ScriptContract, cases: list[ConvergenceCase], workdir: Path,
                            pool: SandboxPool, limits: SandboxLimits) -> list[Obligation]:
    """One obligation per convergence case; every rung of every ladder runs in one parallel batch."""
    params = contract.params or {}
    obligations: dict[int, Obligation] = {}
    planned: list[tuple[int, ConvergenceCase, list[OverrideRun]]] = []
    for index, case in enumerate(cases):
        run = case.run or (next(iter(contract.runs)) if len(contract.runs) == 1 else None)
        problem = (f"PARAMS has no {case.parameter!r} to climb" if case.parameter not in params
                   else "name the run_ function in the convergence case: the script has several" if run is None
                   else f"the script has no {run}" if run not in contract.runs else None)
        if problem is not None:
            obligations[index] = Obligation(name=f"convergence:{case.parameter}", category=CONVERGENCE,
                                            outcome=Outcome.FAILED, message=problem)
            continue
        runs = [OverrideRun(f"convergence-{index:02d}-{rung:02d}", run, case.observable,
                            {case.parameter: _rung_value(value, params[case.parameter])})
                for rung, value in enumerate(case.ladder)]
        planned.append((index, case, runs))
    groups = observe_groups(script, [runs for *_, runs in planned], workdir, pool, limits)
    for (index, case, _), observed in zip(planned, groups):
        obligations[index] = _judge(case, params[case.parameter], observed)
    return [obligations[index] for index in sorted(obligations)]
