"""Convergence ladders: re-run with a climbing accuracy parameter until the observable settles.

Ladders are climbed from the cheap end, the first two rungs together and then one rung per round (all
ladders' rungs of a round in one parallel batch), and a ladder stops climbing once it has settled (the
observable moved less than the tolerance from one rung to the next) or a rung failed: the expensive top of
a ladder runs only when the cheaper rungs have not settled.
The ladder's top is the budget.  The script's own PARAMS value must be at least as accurate as the
rung the observable settled from, or its results are not converged.

Settling on rungs that agree to the last bit is ambiguous: a parameter already saturated (a bond
dimension above what a small system needs), or one the script ignores or caps (a fixed bond dimension
whatever chi_max says, or ``min(chi_max, 16)``).  Then one probe runs at a much coarser value.  If even that
gives the same bits the parameter had no effect; if the bits stop changing at a rung below the script's own
value, the parameter stopped acting there.  Either way the ladder cannot decide, and the value at the task
point does: certified when it agrees with an independent value (sealed reference data or physvec's
recomputation, evidence.py), failed when it disagrees, unknown without one.  A rung or a probe that
produced nothing is never ignored: failed when the script's own code raised, unknown when the run died or
a library refused the value.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from physvec.taskfiles.task import ConvergenceCase
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import as_float_array
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.override_runs import Observed, OverrideRun, calls_to_run, observe_groups

CONVERGENCE = "convergence"


def _rung_value(value: float, current: Any) -> Any:
    """Ladders are written as numbers; an integer parameter gets integers."""
    return int(value) if isinstance(current, int) and float(value).is_integer() else value


def _change(previous: Any, current: Any) -> float | None:
    a, b = as_float_array(previous), as_float_array(current)
    if a is None or b is None or a.shape != b.shape or not a.size:
        return None
    return float(np.max(np.abs(b - a)))


def _settled_at(case: ConvergenceCase, observed: list[Observed]) -> int | None:
    """The first rung whose observable moved less than the tolerance from the rung below, if any."""
    for rung in range(1, len(observed)):
        if observed[rung].ok and observed[rung - 1].ok:
            change = _change(observed[rung - 1].value, observed[rung].value)
            if change is not None and change < case.tolerance:
                return rung
    return None


def _done(case: ConvergenceCase, observed: list[Observed]) -> bool:
    return len(observed) == len(case.ladder) or any(not o.ok for o in observed) \
        or _settled_at(case, observed) is not None


def _next_rungs(script: Path, case: ConvergenceCase, runs: list[OverrideRun], seen: list[Observed],
                workdir: Path) -> list[OverrideRun]:
    """The rungs a ladder needs next: the two cheapest to begin with (the first comparison needs both), then one
    at a time, each deciding whether the ladder settled; a rung already run elsewhere (the script's own value,
    served by its main run) comes along for free.  A higher rung of a doubling ladder costs about as much as
    all below it together, so starting it beside a rung that may settle the ladder only lengthens the round."""
    if _done(case, seen):
        return []
    needed = runs[len(seen):len(seen) + (2 if not seen else 1)]
    for run in runs[len(seen) + len(needed):]:
        if calls_to_run(script, [run], workdir):
            break
        needed.append(run)
    return needed


def _climb(script: Path, planned: list[tuple[ConvergenceCase, list[OverrideRun]]], workdir: Path,
           pool: SandboxPool, limits: SandboxLimits) -> list[list[Observed]]:
    """Climb every ladder a round at a time; all ladders' rungs of one round run in one parallel batch."""
    observed: list[list[Observed]] = [[] for _ in planned]
    while True:
        rounds = [_next_rungs(script, case, runs, seen, workdir) for (case, runs), seen in zip(planned, observed)]
        if not any(rounds):
            return observed
        for seen, results in zip(observed, observe_groups(script, rounds, workdir, pool, limits)):
            seen += results


def _settled_on_identical_bits(case: ConvergenceCase, observed: list[Observed]) -> bool:
    """The ladder settled between two rungs that agree to the last bit."""
    rung = _settled_at(case, observed)
    return rung is not None and _change(observed[rung - 1].value, observed[rung].value) == 0.0


def probe_value(case: ConvergenceCase, current: Any) -> Any:
    """A value far coarser than the ladder's cheapest rung, where a parameter that matters must show.  A whole
    number stays at 2 or above: a bond dimension of 1 is a product state, which tells nothing about convergence."""
    first, increasing = case.ladder[0], case.ladder[-1] > case.ladder[0]
    coarse = max(2, first // 4) if isinstance(current, int) and float(first).is_integer() and increasing \
        else first / 4 if increasing else first * 100
    return _rung_value(coarse, current)


Independent = Callable[[str], "Outcome | None"]
"""observable -> whether it agrees with an independent value at the task point (evidence.independent_agreement):
CERTIFIED, FAILED, or None when there is no independent value."""


def _failed_run(name: str, evidence: dict[str, Any], what: str, result: Observed) -> Obligation:
    """A rung or probe that produced nothing: the script's fault when its own code raised, undecided when the
    run died (a limit or the sandbox stopped it) or a library refused the value (TeNPy's truncation limit at a
    tiny bond dimension); never ignored."""
    if result.died or not result.raised_in_script:
        why = "the run died" if result.died else "a library refused the value"
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"the run at {what} produced nothing ({why}), so convergence cannot be "
                                  f"judged: {result.error}")
    return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                      message=f"the run at {what} failed: {result.error}")


def _by_independent_value(name: str, evidence: dict[str, Any], case: ConvergenceCase, undecided: str,
                          independent: Independent | None) -> Obligation:
    """A ladder that cannot decide (``undecided`` says why) decided by the value at the task point: certified
    when it agrees with an independent value, failed when it disagrees, unknown without one."""
    agreement = independent(case.observable) if independent is not None else None
    evidence["independent_value"] = agreement.value if agreement is not None else None
    decided = {Outcome.CERTIFIED: f"{undecided}; at the task point {case.observable} agrees with an independent value",
               Outcome.FAILED: f"{undecided}; at the task point {case.observable} disagrees with an independent value"}
    if agreement is None:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.UNKNOWN, evidence=evidence,
                          message=f"{undecided}, and there is no independent value at the task point, so "
                                  "convergence in it cannot be judged")
    return Obligation(name=name, category=CONVERGENCE, outcome=agreement, evidence=evidence, message=decided[agreement])


def _judge(case: ConvergenceCase, script_value: Any, observed: list[Observed], probe: Observed | None = None,
           independent: Independent | None = None) -> Obligation:
    name = f"convergence:{case.parameter}"
    converged_at = _settled_at(case, observed)
    table = [{"value": result.run.overrides[case.parameter], "observed": result.value if result.ok else None,
              "error": result.error or None,
              "change": _change(observed[rung - 1].value, result.value)
              if rung and result.ok and observed[rung - 1].ok else None}
             for rung, result in enumerate(observed)]
    evidence = {"observable": case.observable, "tolerance": case.tolerance, "script_value": script_value,
                "table": table, "rungs_not_run": [_rung_value(v, script_value) for v in case.ladder[len(observed):]]}
    failed = next((result for result in observed if not result.ok), None)
    if failed is not None:
        return _failed_run(name, evidence, f"{case.parameter} = {failed.run.overrides[case.parameter]}", failed)
    if converged_at is None:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"{case.observable} still changes by more than {case.tolerance} at the top of "
                                  f"the {case.parameter} ladder")
    needed = table[converged_at - 1]["value"]
    increasing = case.ladder[-1] > case.ladder[0]
    evidence["converged_from"] = needed
    if probe is not None:
        probed = probe.run.overrides[case.parameter]
        evidence["probe"] = {"value": probed, "observed": probe.value if probe.ok else None,
                             "error": probe.error or None}
        if not probe.ok:
            return _failed_run(name, evidence, f"the coarse probe {case.parameter} = {probed}", probe)
        if _change(observed[0].value, probe.value) == 0.0:
            return _by_independent_value(name, evidence, case, f"{case.parameter} has no effect: every rung and "
                                         f"even {case.parameter} = {probed} give the same {case.observable} to the "
                                         "last bit", independent)
        below_script = needed < script_value if increasing else needed > script_value
        if below_script:
            return _by_independent_value(name, evidence, case, f"{case.parameter} stops acting at {needed}, below "
                                         f"the script's {script_value} (saturated by a small system, or capped "
                                         "inside the script)", independent)
    accurate_enough = script_value >= needed if increasing else script_value <= needed
    if not accurate_enough:
        return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.FAILED, evidence=evidence,
                          message=f"converged from {case.parameter} = {needed}, but the script uses {script_value}")
    return Obligation(name=name, category=CONVERGENCE, outcome=Outcome.CERTIFIED, evidence=evidence,
                      message=f"converged from {case.parameter} = {needed}; the script uses {script_value}")


def convergence_obligations(script: Path, contract: ScriptContract, cases: list[ConvergenceCase], workdir: Path,
                            pool: SandboxPool, limits: SandboxLimits, independent: Independent | None = None
                            ) -> list[Obligation]:
    """One obligation per convergence case, in the order of ``cases``; ``independent`` decides the ladders that
    settle on identical bits (see _by_independent_value)."""
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
    climbed = _climb(script, [(case, runs) for _, case, runs in planned], workdir, pool, limits)
    probes = _probes(script, planned, climbed, params, workdir, pool, limits)
    for (index, case, _), observed in zip(planned, climbed):
        obligations[index] = _judge(case, params[case.parameter], observed, probes.get(index), independent)
    return [obligations[index] for index in sorted(obligations)]


def _probes(script: Path, planned: list[tuple[int, ConvergenceCase, list[OverrideRun]]],
            climbed: list[list[Observed]], params: dict[str, Any], workdir: Path, pool: SandboxPool,
            limits: SandboxLimits) -> dict[int, Observed]:
    """One coarse probe per ladder that settled on bit-identical rungs, all in one parallel batch."""
    wanted = [(index, OverrideRun(f"convergence-{index:02d}-probe", runs[0].run, case.observable,
                                  {case.parameter: probe_value(case, params[case.parameter])}))
              for (index, case, runs), observed in zip(planned, climbed) if _settled_on_identical_bits(case, observed)]
    if not wanted:
        return {}
    results = observe_groups(script, [[run] for _, run in wanted], workdir, pool, limits)
    return {index: group[0] for (index, _), group in zip(wanted, results)}
