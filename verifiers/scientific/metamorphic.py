"""Metamorphic and consistency checks: numbers must come from the computation.

- An observable the task relies on (reference, assertion or convergence observable) must change
  when the script's float parameters (couplings, fields) change; one that does not is a constant
  dressed up as a computation.  Accuracy parameters (those the task's convergence ladders climb,
  such as an SCF tolerance) are left out: a converged observable must not move with them.
- results.json, written by main(), must hold what the run_ function returns for the same PARAMS:
  numbers written into main() directly do not pass.
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import as_float_array
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.override_runs import OverrideRun, observe

METAMORPHIC = "metamorphic"
MAX_PERTURBED = 3
_SCALE = 1.25


def _float_params_read(contract: ScriptContract, run: str, accuracy: Collection[str] = ()) -> list[str]:
    """Float PARAMS keys that the run_ function reads, in first-read order, accuracy parameters left out."""
    node = next(n for n in contract.tree.body if isinstance(n, ast.FunctionDef) and n.name == run)
    read = [sub.slice.value for sub in ast.walk(node) if isinstance(sub, ast.Subscript)
            and isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str)]
    params = contract.params or {}
    return [key for key in dict.fromkeys(read)
            if isinstance(params.get(key), float) and key not in accuracy][:MAX_PERTURBED]


def _same(a: Any, b: Any, rtol: float = 1e-9) -> bool | None:
    x, y = as_float_array(a), as_float_array(b)
    if x is None or y is None or x.shape != y.shape:
        return None
    return bool(np.allclose(x, y, rtol=rtol, atol=1e-12))


NOISE = 1e-8
"""A change counts when it exceeds this fraction of the observable's scale (at least 1): an identically
zero profile that wobbles by 1e-11 between runs has not changed."""


def _moved_beyond_noise(a: Any, b: Any) -> bool | None:
    x, y = as_float_array(a), as_float_array(b)
    if x is None or y is None or x.shape != y.shape:
        return None
    scale = max(1.0, float(np.max(np.abs(x))) if x.size else 1.0)
    return bool(np.max(np.abs(x - y)) > NOISE * scale) if x.size else False


def _perturbed(value: float) -> float:
    return value * _SCALE if value else 0.25


def metamorphic_obligations(script: Path, contract: ScriptContract, run: str, observables: list[str],
                            main_results: dict[str, Any], workdir: Path, pool: SandboxPool,
                            limits: SandboxLimits, accuracy: Collection[str] = ()
                            ) -> list[Obligation]:
    """Consistency of results.json with ``run``, and dependence of each relied-on observable on the
    float parameters ``run`` reads other than the ``accuracy`` parameters (not_applicable when none is left)."""
    keys = _float_params_read(contract, run, accuracy)
    params = contract.params or {}
    perturbed = [OverrideRun(f"metamorphic-{key}", run, "", {key: _perturbed(params[key])}) for key in keys]
    # the base run and the first perturbation go together; the rest only if something has not moved yet.  The
    # base run records the relied-on observables too, so a convergence rung at the script's own value reuses it.
    base_runs = [OverrideRun("metamorphic-base", run, observable) for observable in dict.fromkeys(["", *observables])]
    base, *observed = observe(script, base_runs + perturbed[:1], workdir, pool, limits)
    changed = observed[len(base_runs) - 1:]
    if not base.ok:
        return [Obligation(name=f"consistency:{run}", category=METAMORPHIC, outcome=Outcome.FAILED,
                           message=f"{run}(**PARAMS) failed: {base.error}")]
    tops = [observable.split(".")[0] for observable in observables]
    if perturbed[1:] and not all(_moved(base.value, changed, top) for top in tops):
        changed += observe(script, perturbed[1:], workdir, pool, limits)
    varied = keys[:len(changed)]
    obligations = [_consistency(run, base.value, main_results)]
    for observable in dict.fromkeys(observables):
        obligations.append(_dependence(observable, observable.split(".")[0], varied, base.value, changed))
    return obligations


def _moved(base: Any, changed: list[Any], top: str) -> bool:
    return isinstance(base, dict) and top in base and any(
        result.ok and isinstance(result.value, dict) and _moved_beyond_noise(base[top], result.value.get(top)) is True
        for result in changed)


def _consistency(run: str, returned: Any, main_results: dict[str, Any]) -> Obligation:
    name = f"consistency:{run}"
    shared = sorted(set(main_results) & set(returned)) if isinstance(returned, dict) else []
    differing = [key for key in shared if _same(main_results[key], returned[key]) is False]
    if differing:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED,
                          evidence={"keys": differing},
                          message=f"results.json holds {', '.join(differing)} that {run}(**PARAMS) does not return")
    if not shared:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.UNKNOWN,
                          message=f"results.json shares no key with what {run} returns")
    return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence={"keys": shared},
                      message=f"results.json agrees with {run}(**PARAMS) on {', '.join(shared)}")


def _dependence(observable: str, top: str, keys: list[str], base: Any, changed: list[Any]) -> Obligation:
    name = f"metamorphic:{observable}"
    if not keys:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.NOT_APPLICABLE,
                          message="the run_ function reads no float parameter to vary")
    if not isinstance(base, dict) or top not in base:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED,
                          message=f"the run_ function returns no {top!r}")
    moved = {key: _moved_beyond_noise(base[top], result.value.get(top)) is True
             for key, result in zip(keys, changed) if result.ok and isinstance(result.value, dict)}
    evidence = {"varied": {key: f"x{_SCALE}" for key in keys}, "changed_with": [k for k, m in moved.items() if m]}
    if any(moved.values()):
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence=evidence,
                          message=f"{top} changes with {', '.join(evidence['changed_with'])}")
    return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED, evidence=evidence,
                      message=f"{top} stays the same when {', '.join(keys)} change: a constant, not a computation?")

