"""Independent evidence: every number the task relies on, compared at the task point with a value the script
could not influence.

A script can be right at every point the checks visit and wrong at the one point the figure shows, so the
self-consistency checks (limits, assertions at other parameters, metamorphic moves, convergence ladders,
typed numbers) may fail a run but never certify one on their own.  What certifies an observable is one of:

- **sealed reference data** at the task's parameters (the reference obligations of ``reference.py``);
- **a trusted recomputation**: physvec composes the verifier library's pipeline for the task's spec
  (``verifiers/library/composer.py``, from verified functions and the spec alone, never from the script),
  runs it at the spec's parameters, runs the script's own run_ function at those same parameters, and
  compares the two.  Where the task's size is beyond physvec's budget, both run at a reduced size instead
  (reduced_size.py): a disagreement there fails the run, an agreement leaves the observable unknown.

A network's weights (feature_maps, hidden_biases, visible_bias: representations.py) are no such number: two
honest trainings reach different weights.  They are compared through the state they define: physvec computes
the exact energy of the script's network and of its own, from the weights alone, and the two must agree.

One obligation per relied-on observable (reference curves, the spec's observables, convergence ladders'
observables, results named by the rubric) names its evidence; an observable with none is unknown with the
reason, so the run is unknown.  Recomputed values are answers, so they live in sealed evidence only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache, partial
from pathlib import Path
from typing import Any

import numpy as np

from physvec.taskfiles.base import Tolerances
from physvec.taskfiles.keypaths import KeyPathError, lookup
from physvec.taskfiles.rubric import rubric_keys
from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.finite import as_float_array
from physvec.verifiers.library import pipeline_for_spec
from physvec.verifiers.library.composer import SpecNotCovered, compose_script
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.protocol import Subject
from physvec.verifiers.scientific.override_runs import Observed, OverrideRun, observe
from physvec.verifiers.scientific.reduced_size import ReducedPoint, beyond_budget, reduced_point
from physvec.verifiers.scientific.reference import reference_obligations
from physvec.verifiers.scientific.representations import (
    REPRESENTATION, NotEvaluable, RepresentationError, network_energy,
)

EVIDENCE = "evidence"
SEALED_REFERENCE = "sealed_reference"
TRUSTED_RECOMPUTATION = "trusted_recomputation"
TRUSTED_RECOMPUTATION_AT_REDUCED_SIZE = "trusted_recomputation_at_reduced_size"
TRUSTED_PROGRAM = "trusted_library.py"
"""The composed library script, written beside the stage's check folders (its runs are memoised per run)."""


RECOMPUTATION_TOLERANCE: dict[str, Tolerances] = {
    "dmrg": Tolerances(rtol=1e-8, atol=1e-6),
    "rhf": Tolerances(rtol=1e-8, atol=1e-6),
    "rks": Tolerances(rtol=1e-8, atol=1e-6),
    "trotter": Tolerances(rtol=1e-6, atol=1e-8),
    "iqpe": Tolerances(rtol=1e-9, atol=1e-9),
    "vqe": Tolerances(rtol=1e-4, atol=1e-5),
    "vmc_rbm": Tolerances(rtol=0.05, atol=0.05),
    "vmc_rbm_sr": Tolerances(rtol=0.05, atol=0.05),
    "vmc_rbm_symm_sr": Tolerances(rtol=0.05, atol=0.05),
    "tvmc": Tolerances(rtol=0.01, atol=0.01),
    "vmc_momentum_rbm": Tolerances(rtol=0.02, atol=0.02),
    "vmc_momentum_ffnn": Tolerances(rtol=0.02, atol=0.02),
    "vmc_excited_rbm": Tolerances(rtol=0.01, atol=0.01),
    "vmc_rbm_adam": Tolerances(rtol=0.02, atol=0.05),
}
"""How close the script's value must come to physvec's recomputation at the same parameters, per method (see
tolerance_for): DMRG and SCF agree to their truncation and convergence thresholds, which are absolute (an
energy of -44 converged to 1e-6 is known to 1e-6, not to 1e-5 of itself: a relative tolerance that large let a
bond dimension capped inside the script pass at 27 times the ladder's tolerance), a statevector product
formula at the same steps to rounding, phase estimation to its bits (the same bits give the same energy), a
VQE to its optimiser's tolerance, t-VMC with exact sums to the network's error (a second network reaches a
slightly different point of the manifold), Monte Carlo energies only to their statistical error, and
momentum-projected networks to 2 % (two trainings of 60 steps land within 1 % of a sector's exact minimum; the
neighbouring sectors of the smallest rings are 16 % apart), the two-network gap to 1 % (each level within 3e-4 of
itself, the gap a difference of two), and the Adam-trained DM torus to 0.05 in a spin (the network keeps an
in-plane component of about 0.02 whose direction the training path picks).  One place, so that a reader can see
every tolerance the evidence rule uses."""
DEFAULT_TOLERANCE = Tolerances(rtol=1e-6, atol=1e-8)
REPRESENTATION_TOLERANCE = Tolerances(rtol=0.005, atol=0.0)
"""How close the exact energies of the script's network and physvec's must come: two networks trained alike on a
ring of 20 spins reach the ground energy to about 1e-4 of itself; the uniform state of the critical Ising ring
(zero weights) is 21 % above it."""


@dataclass(frozen=True)
class Recomputation:
    """physvec's values at the task point with the script's values there, or why there are none."""

    trusted: dict[str, Observed]
    script: dict[str, Observed]
    point: dict[str, Any]
    pipeline: str = ""
    missing: str = ""
    """why no comparison can be made (no spec, a spec the library does not cover, PARAMS without the spec's
    parameters); empty when there is one"""
    elsewhere: str = ""
    """the spec's parameters PARAMS sets otherwise (results.json and the figure are then not at the task point,
    whatever the comparison there says); empty when PARAMS agrees"""
    reduced: ReducedPoint | None = None
    """the smaller lattice both ran at instead of the task point's (reduced_size.py); None at the task point"""


def relied_observables(subject: Subject) -> list[str]:
    """Key paths of every result the task relies on at its own point, the reference's first."""
    task = subject.task.task
    names = [name for name, _ in task.reference.compared()] if task.reference else []
    names += task.spec.observables if task.spec else []
    names += [case.observable for case in task.convergence.cases]
    names += sorted(rubric_keys(subject.task.rubric, on="results")) if subject.task.rubric else []
    return list(dict.fromkeys(names))


def _covers(observable: str, compared: str) -> bool:
    """A comparison of ``compared`` covers ``observable`` when it is the same key path or one above it."""
    return observable == compared or observable.startswith(compared + ".")


def _run_at_task_point(subject: Subject, contract: ScriptContract) -> str | None:
    spec = subject.task.task.spec
    if spec is not None and spec.run in contract.runs:
        return spec.run
    return next(iter(contract.runs)) if len(contract.runs) == 1 else None


def recompute(subject: Subject, contract: ScriptContract, observables: list[str]) -> Recomputation:
    """Run the library's pipeline for the task's spec and the script's run_ function at the spec's parameters,
    one parallel batch, each observable recorded from both (every call memoised for the rest of the run).
    Where the task's size is beyond the budget, or physvec's run there died, both run again at a reduced size
    (reduced_size.py)."""
    spec, backend = subject.task.task.spec, subject.task.task.backend
    if spec is None:
        return Recomputation({}, {}, {}, missing="the task has no spec, so physvec cannot recompute its values")
    try:
        proposal = compose_script(spec, backend)
    except SpecNotCovered as error:
        return Recomputation({}, {}, dict(spec.parameters), missing=f"physvec cannot recompute them: {error}")
    params = contract.params or {}
    run = _run_at_task_point(subject, contract)
    absent = [name for name in spec.parameters if name not in params]
    if run is None or absent:
        why = (f"PARAMS has no {', '.join(absent)}" if absent
               else "the script has several run_ functions and the spec names none of them")
        return Recomputation({}, {}, dict(spec.parameters), proposal.pipeline,
                             missing=f"the script cannot be run at the task's parameters: {why}")
    program = subject.workdir / TRUSTED_PROGRAM
    subject.workdir.mkdir(parents=True, exist_ok=True)
    program.write_text(proposal.script)
    pair = _RecomputedPair(subject, observables, spec.run or f"run_{proposal.pipeline}", run, program,
                           dict(spec.parameters))
    recomputation = partial(Recomputation, point=dict(spec.parameters), pipeline=proposal.pipeline,
                            elsewhere=", ".join(f"{name} = {params[name]!r}, not {value!r}"
                                                for name, value in spec.parameters.items() if params[name] != value))
    pipeline = pipeline_for_spec(backend, spec.model, spec.lattice, spec.method)
    run_key = f"{subject.workdir.resolve().parent}\n{proposal.script}"
    too_big = beyond_budget(pipeline, spec.parameters) or _spent_runs.get(run_key)
    if too_big is None:
        # the whole result too: the metamorphic checks' base run at PARAMS is then this very call, from memory
        trusted, script = pair.observe({}, whole=True)
        spent = next((observed for observed in trusted.values() if _out_of_budget(observed)), None)
        if spent is None:
            return recomputation(trusted, script)
        too_big = f"physvec's recomputation at the task's size ran out of its limits ({spent.error[:200]})"
        _spent_runs[run_key] = too_big
    point = reduced_point(pipeline, spec.parameters, too_big)
    if isinstance(point, str):
        return recomputation({}, {}, missing=f"{too_big}, and it cannot be reduced: {point}")
    return recomputation(*pair.observe(point.overrides, whole=False), reduced=point)


_spent_runs: dict[str, str] = {}
"""Why physvec's recomputation ran out of its limits at a task's size, per run folder and trusted program: a
later stage's recomputation (the convergence judge's tie-breaker) goes straight to the reduced size instead of
spending the limits again.  Only deaths are kept here; the override memo keeps only runs that returned."""


def _out_of_budget(observed: Observed) -> bool:
    """Whether a run stopped for want of time or memory (a limit killed it, or an allocation failed)."""
    return observed.died or (not observed.ok and "MemoryError" in observed.error)


@dataclass(frozen=True)
class _RecomputedPair:
    """physvec's trusted program and the script's run_ function, called at the task point or a reduced one."""

    subject: Subject
    observables: list[str]
    trusted_run: str
    script_run: str
    program: Path
    task_point: dict[str, Any]

    def observe(self, reduced: dict[str, Any], whole: bool) -> tuple[dict[str, Observed], dict[str, Observed]]:
        """(physvec's, the script's) value of each observable; ``whole`` also records the script's whole result."""
        suffix = "-reduced" if reduced else ""
        trusted = [OverrideRun(f"trusted-recomputation{suffix}", self.trusted_run, name, dict(reduced),
                               program=self.program) for name in self.observables]
        script = [OverrideRun(f"evidence-script{suffix}", self.script_run, name, {**self.task_point, **reduced})
                  for name in (["", *self.observables] if whole else self.observables)]
        subject = self.subject
        observed = observe(subject.script, trusted + script, subject.workdir, subject.pool, subject.limits)
        scripted = observed[len(trusted) + (1 if whole else 0):]
        return dict(zip(self.observables, observed[:len(trusted)])), dict(zip(self.observables, scripted))


def method_tolerance(subject: Subject) -> Tolerances:
    """How far two honest runs of the task's method at the same parameters may lie apart (the table above)."""
    spec = subject.task.task.spec
    return RECOMPUTATION_TOLERANCE.get(spec.method if spec else "", DEFAULT_TOLERANCE)


def tolerance_for(subject: Subject, observable: str) -> Tolerances:
    """How close the script's value must come to physvec's at the same parameters: the method's recomputation
    tolerance, its absolute part widened to the task's convergence tolerance for the observable (two honest
    runs, each converged to that tolerance, may differ by it).  A reference's tolerance says how precisely the
    paper's numbers are known, not how closely two computations at one point agree, so it plays no part."""
    task = subject.task.task
    method = method_tolerance(subject)
    ladders = [case.tolerance for case in task.convergence.cases if _covers(observable, case.observable)]
    return Tolerances(rtol=method.rtol, atol=max([method.atol, *ladders]))


def _compared_with_recomputation(subject: Subject, observable: str, recomputation: Recomputation
                                 ) -> tuple[Outcome, str, dict[str, Any], dict[str, Any]]:
    """(outcome, message, evidence, sealed) of the script's value against physvec's, at the task point."""
    trusted, script = recomputation.trusted.get(observable), recomputation.script.get(observable)
    where: dict[str, Any] = {"point": recomputation.point, "pipeline": recomputation.pipeline}
    reduced = recomputation.reduced
    if reduced is not None:
        where |= {"reduced_to": reduced.overrides, "reduced_because": reduced.reason}
    if trusted is None or script is None:
        return Outcome.UNKNOWN, recomputation.missing, where, {}
    if not trusted.ok:
        return (Outcome.UNKNOWN, f"physvec's recomputation gave no {observable}: {trusted.error[:300]}", where,
                {})
    if not script.ok:
        outcome = Outcome.UNKNOWN if script.died else Outcome.FAILED
        return outcome, f"the script's run at the task's parameters failed: {script.error[:300]}", where, {}
    if observable in REPRESENTATION:
        return _compared_through_state(subject, recomputation, where)
    tolerance = tolerance_for(subject, observable)
    got, want = as_float_array(script.value), as_float_array(trusted.value)
    evidence = {**where, "observed": script.value, "rtol": tolerance.rtol, "atol": tolerance.atol}
    if got is None or want is None:
        return Outcome.UNKNOWN, f"{observable} is not numeric, so it cannot be compared", evidence, {}
    sealed = {"recomputed": trusted.value}
    if got.shape != want.shape:
        return (Outcome.FAILED, f"shape {got.shape} differs from physvec's recomputation at the task's parameters",
                evidence, sealed)
    close = np.isclose(got, want, rtol=tolerance.rtol, atol=tolerance.atol)
    agrees = bool(np.all(close))
    if agrees and recomputation.elsewhere:
        return (Outcome.UNKNOWN, f"the script's run_ agrees with physvec's recomputation at the task's parameters, "
                f"but its PARAMS hold {recomputation.elsewhere}: results.json and the figure are not at the task "
                "point", evidence, sealed)
    at = (f"at a reduced size, {reduced.sizes(recomputation.point)}: {reduced.reason}" if reduced is not None
          else "at the task's parameters")
    if agrees and reduced is not None:
        return (Outcome.UNKNOWN, f"agrees with physvec's recomputation ({recomputation.pipeline}) {at}; a script can "
                "branch on the size, so that is no value at the task point", evidence, sealed)
    if agrees:
        return Outcome.CERTIFIED, f"agrees with physvec's recomputation ({recomputation.pipeline})", evidence, sealed
    return (Outcome.FAILED, f"{int(np.sum(~close))} of {close.size} values differ from physvec's recomputation "
            f"({recomputation.pipeline}) {at}", evidence, sealed)


def _compared_through_state(subject: Subject, recomputation: Recomputation, where: dict[str, Any]
                            ) -> tuple[Outcome, str, dict[str, Any], dict[str, Any]]:
    """(outcome, message, evidence, sealed) of the script's network against physvec's: the exact energies of the
    states their weights define, at the point both ran (the task's, or the reduced one)."""
    absent = [name for name in REPRESENTATION if name not in recomputation.script or name not in recomputation.trusted]
    if absent:
        return (Outcome.UNKNOWN, f"the task relies on a network's weights but not on its {', '.join(absent)}, so "
                "physvec cannot rebuild the state they define", where, {})
    failed = [name for name in REPRESENTATION if not recomputation.script[name].ok]
    if failed:
        return (Outcome.UNKNOWN if recomputation.script[failed[0]].died else Outcome.FAILED,
                f"the script's run gave no {failed[0]}: {recomputation.script[failed[0]].error[:300]}", where, {})
    model, lattice = subject.task.task.spec.model, subject.task.task.spec.lattice
    point = {**recomputation.point, **(recomputation.reduced.overrides if recomputation.reduced else {})}
    try:
        trusted = _network_energy(model, lattice, point,
                                  {name: recomputation.trusted[name].value for name in REPRESENTATION})
    except RepresentationError as error:
        return Outcome.UNKNOWN, f"physvec cannot evaluate its own network: {error}", where, {}
    try:
        energy = _network_energy(model, lattice, point,
                                 {name: recomputation.script[name].value for name in REPRESENTATION})
    except NotEvaluable as error:
        return Outcome.UNKNOWN, f"physvec cannot evaluate the script's network: {error}", where, {}
    except RepresentationError as error:
        return Outcome.FAILED, f"the script's weights are no network of the task's lattice: {error}", where, {}
    tolerance = REPRESENTATION_TOLERANCE
    evidence = {**where, "network_energy": energy, "rtol": tolerance.rtol}
    sealed = {"recomputed_network_energy": trusted}
    close = abs(energy - trusted) <= tolerance.rtol * abs(trusted) + tolerance.atol
    said = f"the state the script's weights define has exact energy {energy:.6g}"
    if not close:
        return (Outcome.FAILED, f"{said}, {abs(energy - trusted) / abs(trusted):.2%} from physvec's network at the "
                "same parameters", evidence, sealed)
    if recomputation.elsewhere:
        return (Outcome.UNKNOWN, f"{said}, as physvec's network does, but the script's PARAMS hold "
                f"{recomputation.elsewhere}: results.json and the figure are not at the task point", evidence, sealed)
    if recomputation.reduced is not None:
        return (Outcome.UNKNOWN, f"{said}, as physvec's network does at a reduced size; a script can branch on the "
                "size, so that is no value at the task point", evidence, sealed)
    return (Outcome.CERTIFIED, f"{said}, within {tolerance.rtol:.1%} of physvec's network at the task's parameters",
            evidence, sealed)


def _network_energy(model: str, lattice: str, point: dict[str, Any], values: dict[str, Any]) -> float:
    """network_energy, summed once per network: the three weight observables share one comparison."""
    return _summed(model, lattice, json.dumps(point, sort_keys=True), json.dumps(values, sort_keys=True))


@lru_cache(maxsize=8)
def _summed(model: str, lattice: str, point: str, values: str) -> float:
    return network_energy(model, json.loads(point), json.loads(values), lattice)


def _reference_outcome(observable: str, references: list[Obligation]) -> Obligation | None:
    return next((o for o in references if _covers(observable, o.name.removeprefix("reference:"))), None)


def evidence_obligation(subject: Subject, observable: str, references: list[Obligation],
                        recomputation: Recomputation) -> Obligation:
    """Which independent values ``observable`` was compared with at the task point, and whether it agreed."""
    kinds: dict[str, str] = {}
    reference = _reference_outcome(observable, references)
    if reference is not None:
        kinds[SEALED_REFERENCE] = reference.outcome.value
    outcome, message, evidence, sealed = _compared_with_recomputation(subject, observable, recomputation)
    recomputed = TRUSTED_RECOMPUTATION if recomputation.reduced is None else TRUSTED_RECOMPUTATION_AT_REDUCED_SIZE
    if outcome is not Outcome.UNKNOWN or observable in recomputation.trusted:
        kinds[recomputed] = outcome.value
    failed = [kind for kind, result in kinds.items() if result == Outcome.FAILED.value]
    certified = [kind for kind, result in kinds.items() if result == Outcome.CERTIFIED.value]
    if failed:
        verdict = Outcome.FAILED
        text = message if recomputed in failed else "disagrees with the sealed reference data"
    elif certified:
        said = {SEALED_REFERENCE: "sealed reference data", TRUSTED_RECOMPUTATION: message}
        verdict = Outcome.CERTIFIED
        text = "independent value at the task point: " + "; ".join(said[kind] for kind in certified)
    else:
        why = message or recomputation.missing or "the task has no reference data for it"
        verdict = Outcome.UNKNOWN
        text = (f"no independent value at the task point: {why}" if recomputation.reduced is not None
                else f"no independent value at the task point, only the script's agreement with itself: {why}")
    return Obligation(name=f"{EVIDENCE}:{observable}", category=EVIDENCE, outcome=verdict, message=text,
                      evidence={"kinds": kinds, **evidence}, sealed=sealed, required=True)


def evidence_obligations(subject: Subject, contract: ScriptContract, references: list[Obligation]
                         ) -> list[Obligation]:
    """One obligation per relied-on observable; every number the task relies on needs one that certifies.  A task
    that relies on no named observable gets one unknown obligation saying so: nothing was compared with an
    independent value, and a run certified on its rubric votes and self-consistency alone would be vacuous."""
    observables = relied_observables(subject)
    if not observables:
        return [Obligation(
            name=EVIDENCE, category=EVIDENCE, outcome=Outcome.UNKNOWN, required=True,
            message="no independent value at the task point: the task names no observable to compare (no "
                    "reference data, no spec, no convergence ladder, no rubric leaf reading results), so no number "
                    "of the script was compared with a value physvec computed or sealed")]
    recomputation = recompute(subject, contract, observables)
    return [evidence_obligation(subject, name, references, recomputation) for name in observables]


def independent_agreement(subject: Subject, contract: ScriptContract, observable: str,
                          results: dict[str, Any]) -> Outcome | None:
    """Whether ``observable`` at the task point agrees with an independent value (CERTIFIED), disagrees
    (FAILED), or has none (None): the convergence judge's tie-breaker for a ladder that cannot decide.  Its
    calls were made by the scientific stage and come from the memo."""
    references = reference_obligations(subject, results, overlay=False)
    obligation = evidence_obligation(subject, observable, references, recompute(subject, contract, [observable]))
    return obligation.outcome if obligation.outcome in (Outcome.CERTIFIED, Outcome.FAILED) else None
