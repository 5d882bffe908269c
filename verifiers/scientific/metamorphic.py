"""Metamorphic and consistency checks: numbers must come from the computation.

- An observable the task relies on (reference, assertion or convergence observable) must change
  when the script's float parameters (couplings, fields) change; one that does not is a constant
  dressed up as a computation.  The one exception is a quantum number: an observable whose every
  entry is an integer (a particle number, a total magnetisation in units of 1/2 is not one) and that
  no coupling moves is conserved, and must instead move, to another integer value, when an integer
  parameter the run_ function reads grows by one.  A non-integer observable gets no such credit: an energy that ignores its
  coupling but scales with the system size still fails.  The other exception is a Monte Carlo estimate: a
  diagonal correlation averaged over a fixed seed's samples stays bit for bit the same when a coupling moves the
  state too little to flip a single Metropolis decision (and a correlation of a one-coupling model does not
  depend on that coupling at all).  Such an observable is certified when it moves with the script's random
  seed (an integer parameter named for it), which no constant does.  Accuracy parameters (those the task's convergence ladders climb,
  such as an SCF tolerance) are left out: a converged observable must not move with them.
  The check is made where the task relies on the observable: at PARAMS for a reference or a
  convergence observable, at an assertion's parameters for one only an assertion uses (a particle
  number the task asks about at L = 6 is tested at L = 6, not with extra full-size runs).  A quantum
  number's count runs come before the remaining couplings, which run only if no count moved it.
- results.json, written by main(), must hold what the run_ function returns for the same PARAMS:
  numbers written into main() directly do not pass.  "The same" is to within what two honest runs of the
  method may differ by (evidence.RECOMPUTATION_TOLERANCE): bit for bit for a deterministic method, to the
  network's error for t-VMC, whose 300 SR steps and RK4 evolution came out 0.15 % apart between the
  instrumented main() and a second run of the same script (nnwf 4_4, eight spins).
"""

from __future__ import annotations

import ast
from collections.abc import Collection
from pathlib import Path
from typing import Any

import numpy as np

from physvec.taskfiles.base import Tolerances
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import as_float_array
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.override_runs import OverrideRun, calls_to_run, observe

METAMORPHIC = "metamorphic"
MAX_PERTURBED = 3
_SCALE = 1.25


def _params_read(contract: ScriptContract, run: str, kind: type, accuracy: Collection[str] = ()) -> list[str]:
    """PARAMS keys holding a value of exactly ``kind`` that the run_ function reads, in first-read order,
    accuracy parameters left out."""
    node = next(n for n in contract.tree.body if isinstance(n, ast.FunctionDef) and n.name == run)
    read = [sub.slice.value for sub in ast.walk(node) if isinstance(sub, ast.Subscript)
            and isinstance(sub.slice, ast.Constant) and isinstance(sub.slice.value, str)]
    params = contract.params or {}
    return [key for key in dict.fromkeys(read)
            if type(params.get(key)) is kind and key not in accuracy]


def _float_params_read(contract: ScriptContract, run: str, accuracy: Collection[str] = ()) -> list[str]:
    """Float PARAMS keys that the run_ function reads, in first-read order, accuracy parameters left out."""
    return _params_read(contract, run, float, accuracy)[:MAX_PERTURBED]


EXACT = Tolerances(rtol=1e-9, atol=1e-12)
"""Two runs of a deterministic computation at the same parameters."""


def _same(a: Any, b: Any, tolerance: Tolerances = EXACT) -> bool | None:
    x, y = as_float_array(a), as_float_array(b)
    if x is None or y is None or x.shape != y.shape:
        return None
    return bool(np.allclose(x, y, rtol=tolerance.rtol, atol=tolerance.atol))


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


QUANTUM_NUMBER_TOL = 1e-9
"""How far from an integer an entry may sit and still count as a quantum number (DMRG sums of densities
land within ~1e-12 of the integer they conserve)."""


def _is_quantum_number(value: Any) -> bool:
    """Every entry an integer: what a conserved count looks like, and what no coupling-dependent energy,
    density or correlation at generic couplings does."""
    x = as_float_array(value)
    return x is not None and x.size > 0 and bool(np.all(np.abs(x - np.round(x)) <= QUANTUM_NUMBER_TOL))


def _counts_first(keys: list[str], params: dict[str, Any], value: Any) -> list[str]:
    """Integer keys whose value appears in the observable first: N_up = 32 fixes a count of 32."""
    entries = set(np.round(as_float_array(value)).astype(int).ravel().tolist())
    return sorted(keys, key=lambda key: params[key] not in entries)


def metamorphic_obligations(script: Path, contract: ScriptContract, run: str, observables: list[str],
                            main_results: dict[str, Any], workdir: Path, pool: SandboxPool,
                            limits: SandboxLimits, accuracy: Collection[str] = (),
                            point: dict[str, Any] | None = None, label: str = METAMORPHIC,
                            reproducible_to: Tolerances = EXACT) -> list[Obligation]:
    """Dependence of each relied-on observable on the float parameters ``run`` reads other than the
    ``accuracy`` parameters (not_applicable when none is left), or, for a quantum number, on the integer
    parameters it reads; at the script's PARAMS (``point`` None) also the consistency of results.json with
    ``run``.

    Args:
        point: overrides where the observables are relied on (an assertion's parameters) when that is not at
            PARAMS: the base call, each perturbation and each count run are made there.
        label: prefix of the runs' folders, one per point.
        reproducible_to: how far two honest runs of the method may differ, for the consistency check.
    """
    point = point or {}
    params = {**(contract.params or {}), **point}
    keys = _float_params_read(contract, run, accuracy) if observables else []
    perturbed = [OverrideRun(f"{label}-{key}", run, "", {**point, key: _perturbed(float(params[key]))})
                 for key in keys]
    # the base run and the first perturbation go together; the rest only if something has not moved yet.  The
    # base run records the relied-on observables too, so a convergence rung at the script's own value reuses it.
    # It is a run of its own, never the programming verifier's main run: a script can tell its instrumented
    # main() from this harness (its run_ function is wrapped there), and results.json must be held against
    # what the run_ function returns here.
    base_runs = [OverrideRun(f"{label}-base", run, observable, dict(point))
                 for observable in dict.fromkeys(["", *observables])]
    tops = list(dict.fromkeys(observable.split(".")[0] for observable in observables))
    first = base_runs + perturbed[:1]
    counted = None if point else _likely_count_run(contract, run, tops, main_results, accuracy, label)
    if perturbed and counted is not None and calls_to_run(script, first + [counted], workdir) <= pool.cores:
        first.append(counted)  # a core would idle otherwise; _count_runs finds it done
    base, *observed = observe(script, first, workdir, pool, limits)
    changed = observed[len(base_runs) - 1:len(base_runs) - 1 + len(perturbed[:1])]
    if not base.ok:
        return [Obligation(name=f"consistency:{run}" if not point else f"{METAMORPHIC}:{observables[0]}",
                           category=METAMORPHIC, outcome=Outcome.FAILED,
                           message=f"{run}(**{{**PARAMS, **{point}}}) failed: {base.error}" if point else
                           f"{run}(**PARAMS) failed: {base.error}")]
    # a quantum number moves with no coupling: its count runs, not the other couplings, are its test
    unmoved = [top for top in tops if not _moved(base.value, changed, top)
               and not (isinstance(base.value, dict) and top in base.value and _is_quantum_number(base.value[top]))]
    if perturbed[1:] and unmoved:
        changed += observe(script, perturbed[1:], workdir, pool, limits)
    by_count = _count_runs(script, contract, run, tops, base.value, changed, workdir, pool, limits, accuracy, point,
                           label)
    if perturbed[len(changed):] and not all(_moved(base.value, changed, top)
                                            or _moved(base.value, list(by_count.values()), top, as_count=True)
                                            for top in tops):  # an integer no count moved: maybe a coupling does
        changed += observe(script, perturbed[len(changed):], workdir, pool, limits)
    by_coupling = dict(zip(keys, changed))
    by_seed = _seed_runs(script, contract, run, tops, base.value, changed, workdir, pool, limits, point, label)
    obligations = [] if point else [_consistency(run, base.value, main_results, reproducible_to)]
    for observable in dict.fromkeys(observables):
        obligations.append(_dependence(observable, observable.split(".")[0], by_coupling, {**by_count, **by_seed},
                                       base.value, point))
    return obligations


def _seed_keys(contract: ScriptContract, run: str) -> list[str]:
    """Integer PARAMS keys the run_ function reads that name a random seed."""
    return [key for key in _params_read(contract, run, int) if "seed" in key.lower()][:1]


def _seed_runs(script: Path, contract: ScriptContract, run: str, tops: list[str], base: Any, changed: list[Any],
               workdir: Path, pool: SandboxPool, limits: SandboxLimits, point: dict[str, Any],
               label: str) -> dict[str, Any]:
    """One run with the seed grown by one, made only when a non-integer observable moved with no coupling."""
    unmoved = [top for top in tops if isinstance(base, dict) and top in base
               and not _is_quantum_number(base[top]) and not _moved(base, changed, top)]
    if not unmoved:
        return {}
    return {key: observe(script, [_count_run(contract, run, key, point, label)], workdir, pool, limits)[0]
            for key in _seed_keys(contract, run)}


def _count_run(contract: ScriptContract, run: str, key: str, point: dict[str, Any], label: str) -> OverrideRun:
    params = {**(contract.params or {}), **point}
    return OverrideRun(f"{label}-{key}", run, "", {**point, key: int(params[key]) + 1})


def _likely_count_run(contract: ScriptContract, run: str, tops: list[str], main_results: dict[str, Any],
                      accuracy: Collection[str], label: str) -> OverrideRun | None:
    """The first count run _count_runs would make, when results.json already shows a relied-on observable
    integer-valued (a particle number seldom moves with a coupling): started beside the perturbed run on a
    core that would otherwise idle.  Only a guess about what to run early; what it observes is judged later
    exactly as if it had run then."""
    integer = [top for top in tops if top in main_results and _is_quantum_number(main_results[top])]
    keys = _params_read(contract, run, int, accuracy)
    if not integer or not keys:
        return None
    first = _counts_first(keys, contract.params or {}, main_results[integer[0]])[0]
    return _count_run(contract, run, first, {}, label)


def _count_runs(script: Path, contract: ScriptContract, run: str, tops: list[str], base: Any, changed: list[Any],
                workdir: Path, pool: SandboxPool, limits: SandboxLimits, accuracy: Collection[str],
                point: dict[str, Any], label: str) -> dict[str, Any]:
    """Runs with one integer parameter grown by one, made only for integer-valued observables that no coupling
    moved, one at a time until each of them has moved (a full-size DMRG run is minutes)."""
    params = {**(contract.params or {}), **point}
    conserved = [top for top in tops if isinstance(base, dict) and top in base
                 and _is_quantum_number(base[top]) and not _moved(base, changed, top)]
    runs: dict[str, Any] = {}
    if not conserved:
        return runs
    for key in _counts_first(_params_read(contract, run, int, accuracy), params, base[conserved[0]])[:MAX_PERTURBED]:
        (runs[key],) = observe(script, [_count_run(contract, run, key, point, label)], workdir, pool, limits)
        if all(_moved(base, list(runs.values()), top, as_count=True) for top in conserved):
            break
    return runs


def _moved(base: Any, changed: list[Any], top: str, as_count: bool = False) -> bool:
    """Whether any run in ``changed`` moved ``top``; ``as_count``: to another integer value, as a quantum number
    does (a value typed in for one size, left for a computed non-integer at the next, is no count)."""
    return isinstance(base, dict) and top in base and any(
        result.ok and isinstance(result.value, dict) and _moved_beyond_noise(base[top], result.value.get(top)) is True
        and (not as_count or _is_quantum_number(result.value.get(top)))
        for result in changed)


def _consistency(run: str, returned: Any, main_results: dict[str, Any], tolerance: Tolerances) -> Obligation:
    name = f"consistency:{run}"
    shared = sorted(set(main_results) & set(returned)) if isinstance(returned, dict) else []
    differing = [key for key in shared if _same(main_results[key], returned[key], tolerance) is False]
    if differing:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED,
                          evidence={"keys": differing},
                          message=f"results.json holds {', '.join(differing)} that {run}(**PARAMS) does not return")
    if not shared:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.UNKNOWN,
                          message=f"results.json shares no key with what {run} returns")
    return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence={"keys": shared},
                      message=f"results.json agrees with {run}(**PARAMS) on {', '.join(shared)}")


def _dependence(observable: str, top: str, by_coupling: dict[str, Any], by_count: dict[str, Any],
                base: Any, point: dict[str, Any]) -> Obligation:
    """Certified when a coupling moves the observable; for a quantum number only, an integer parameter; for a
    non-integer observable, the random seed."""
    name = f"metamorphic:{observable}"
    where = f" (at {point}, where the task relies on it)" if point else ""
    if not by_coupling:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.NOT_APPLICABLE,
                          message=f"the run_ function reads no float parameter to vary{where}")
    if not isinstance(base, dict) or top not in base:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED,
                          message=f"the run_ function returns no {top!r}")
    quantum = _is_quantum_number(base[top])
    counted = {key: result for key, result in by_count.items() if quantum or "seed" in key.lower()}
    moved = [key for key, result in by_coupling.items() if _moved(base, [result], top)] + \
        [key for key, result in counted.items() if _moved(base, [result], top, as_count=quantum)]
    evidence = {"varied": {**{key: f"x{_SCALE}" for key in by_coupling}, **{key: "+1" for key in counted}},
                "changed_with": moved, **({"at": point} if point else {})}
    if any(key in by_coupling for key in moved):
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence=evidence,
                          message=f"{top} changes with {', '.join(moved)}{where}")
    if moved and not quantum:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence=evidence,
                          message=f"{top} stays where it is when {', '.join(by_coupling)} change but moves with "
                                  f"{', '.join(moved)}: a Monte Carlo estimate on unchanged samples, not a "
                                  f"constant{where}")
    if moved:
        return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.CERTIFIED, evidence=evidence,
                          message=f"{top} is a quantum number: integer-valued, moved by no coupling "
                                  f"({', '.join(by_coupling)}), and it changes with {', '.join(moved)}{where}")
    return Obligation(name=name, category=METAMORPHIC, outcome=Outcome.FAILED, evidence=evidence,
                      message=f"{top} stays the same when {', '.join(evidence['varied'])} change{where}: a "
                              "constant, not a computation?")
