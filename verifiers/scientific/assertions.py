"""Physical assertions: limiting cases, analytic regimes, bounds and symmetries, judged by code.

Each assertion calls the script's own run_ function with the assertion's overrides (see
override_runs.py), or, when it needs more than overrides, the entry point of a model-written adapted
program that has passed the identity check of adapters.py.  Expected values and their references
stay in sealed evidence: no prompt sees them, and a failure message says what was observed and which
kind of expectation failed, never the expected number.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import numpy as np

from physvec.taskfiles.assertions import Assertion, AssertionFile, Bound, Symmetry
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import as_float_array
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.scientific.adapters import ADAPTER_ENTRY, AdapterWriter, adapter_problems
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.override_runs import Observed, OverrideRun, observe_groups


def _runs(assertion: Assertion, index: int, program: Path | None) -> list[OverrideRun]:
    label = f"assertion-{index:02d}"
    entry = ADAPTER_ENTRY if program is not None else assertion.run
    arguments = assertion.arguments if program is not None else {}
    if isinstance(assertion, Symmetry):
        return [OverrideRun(f"{label}-a", entry, assertion.observable, {**assertion.overrides_a, **arguments}, program),
                OverrideRun(f"{label}-b", entry, assertion.observable, {**assertion.overrides_b, **arguments}, program)]
    return [OverrideRun(label, entry, assertion.observable, {**assertion.overrides, **arguments}, program)]


def _adapted_program(assertion: Assertion, index: int, script: Path, writer: AdapterWriter | None,
                     workdir: Path) -> Path | Obligation:
    """The checked adapter program of an assertion that needs one, or the obligation saying why there is none."""
    name, category = f"assertion:{assertion.name}", assertion.kind
    if writer is None:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message="this assertion needs a model-written adapter entry point; no model is configured")
    source = script.read_text()
    adapted = writer(assertion, source)
    if adapted is None:
        return Obligation(name=name, category=category, outcome=Outcome.UNKNOWN,
                          message="the model wrote no usable adapter program")
    path = workdir / f"adapter-{index:02d}.py"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(adapted)
    problems = adapter_problems(source, adapted)
    if problems:
        return Obligation(name=name, category=category, outcome=Outcome.ERROR,
                          evidence={"adapter_program": str(path), "problems": problems},
                          message="the adapter program does not use the script's functions unchanged: "
                                  + "; ".join(problems[:3]))
    return path


def _precheck(assertion: Assertion, contract: ScriptContract) -> str | None:
    """Why the assertion cannot be applied to this script, or None."""
    if assertion.run not in contract.runs:
        return f"the script has no {assertion.run} for this assertion to call"
    overrides = {**assertion.overrides_a, **assertion.overrides_b} if isinstance(assertion, Symmetry) \
        else assertion.overrides
    unknown = sorted(set(overrides) - set(contract.params or {}))
    if unknown:
        return f"PARAMS has no parameter(s) {', '.join(unknown)} that this assertion sets"
    return None


def _judge(assertion: Assertion, observed: list[Observed]) -> Obligation:
    name, category = f"assertion:{assertion.name}", assertion.kind
    evidence: dict[str, Any] = {"run": assertion.run, "observable": assertion.observable,
                                "rtol": assertion.rtol, "atol": assertion.atol}
    if observed[0].run.program is not None:
        evidence["adapter_program"] = str(observed[0].run.program)
    sealed: dict[str, Any] = {"reference": assertion.reference}
    failures = [o for o in observed if not o.ok]
    if failures:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                          message=f"the run with the assertion's parameters failed: {failures[0].error}")
    values = [as_float_array(o.value) for o in observed]
    evidence["observed"] = [o.value for o in observed] if len(observed) > 1 else observed[0].value
    evidence["overrides"] = [o.run.overrides for o in observed] if len(observed) > 1 else observed[0].run.overrides
    if any(v is None for v in values):
        return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                          message="the observable is not numeric")
    values = [_reduced(assertion, value) for value in values]
    if isinstance(assertion, Bound):
        return _judge_bound(assertion, values[0], evidence, sealed)
    if isinstance(assertion, Symmetry):
        first, second = values
        if assertion.relation == "reversed" and second.ndim == 0:
            return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                              message="a reflection relation needs a list-valued observable")
        if assertion.relation == "scaled":
            first = assertion.factor * first
        target = -second if assertion.relation == "negated" else second[::-1] if assertion.relation == "reversed" \
            else second
        description = f"the two runs are not {assertion.relation} as the symmetry requires"
    else:
        first, target = values[0], np.asarray(assertion.expected, dtype=float)
        sealed["expected"] = assertion.expected
        description = f"differs from the known {assertion.kind.replace('_', ' ')} value beyond the tolerance"
    if first.shape != target.shape:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                          message=f"observable has shape {first.shape}, not the shape the assertion compares")
    close = np.isclose(first, target, rtol=assertion.rtol, atol=assertion.atol)
    sealed["max_abs_deviation"] = float(np.max(np.abs(first - target))) if first.size else 0.0
    if bool(np.all(close)):
        return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED, evidence=evidence, sealed=sealed,
                          message="holds within the tolerance")
    return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                      message=f"observed {evidence['observed']}: {description}")


def _reduced(assertion: Assertion, value: np.ndarray) -> np.ndarray:
    """The value a sum rule compares: the sum or mean of the observable, or the observable itself."""
    if assertion.reduce is None:
        return value
    return np.asarray(np.sum(value) if assertion.reduce == "sum" else np.mean(value))


def _judge_bound(assertion: Bound, observed: np.ndarray, evidence: dict[str, Any],
                 sealed: dict[str, Any]) -> Obligation:
    """Every element of the observable on the allowed side of the bound, by at most the tolerance over it."""
    name, category = f"assertion:{assertion.name}", assertion.kind
    slack = assertion.atol + assertion.rtol * abs(assertion.value)
    holds = observed >= assertion.value - slack if assertion.op == ">=" else observed <= assertion.value + slack
    sealed.update(bound=assertion.value, op=assertion.op)
    if bool(np.all(holds)):
        return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED, evidence=evidence, sealed=sealed,
                          message="stays on the allowed side of the bound")
    side = "below the lower" if assertion.op == ">=" else "above the upper"
    return Obligation(name=name, category=category, outcome=Outcome.FAILED, evidence=evidence, sealed=sealed,
                      message=f"observed {evidence['observed']}: lies {side} bound it must respect")


def assertion_obligations(script: Path, contract: ScriptContract, assertions: AssertionFile, workdir: Path,
                          pool: SandboxPool, limits: SandboxLimits,
                          adapter_writer: AdapterWriter | None = None) -> list[Obligation]:
    """One obligation per assertion; all runnable assertions execute in parallel."""
    obligations: dict[int, Obligation] = {}
    planned: list[tuple[int, Assertion, list[OverrideRun]]] = []
    for index, assertion in enumerate(assertions.assertions):
        problem = _precheck(assertion, contract)
        if problem is not None:
            obligations[index] = Obligation(name=f"assertion:{assertion.name}", category=assertion.kind,
                                            outcome=Outcome.FAILED, message=problem)
            continue
        program = _adapted_program(assertion, index, script, adapter_writer, workdir) if assertion.adapter else None
        if isinstance(program, Obligation):
            obligations[index] = program
        else:
            planned.append((index, assertion, _runs(assertion, index, program)))
    groups = observe_groups(script, [runs for *_, runs in planned], workdir, pool, limits)
    for (index, assertion, _), observed in zip(planned, groups):
        obligations[index] = _judge(assertion, observed)
    return [obligations[index] for index in sorted(obligations)]
