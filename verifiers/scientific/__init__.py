"""The Scientific verifier: is the script the right physics?

Rubric leaves (machine checks by code, prose by model votes), physical assertions run on the script's
own functions, the comparison with reference data and the independent evidence of every relied-on
observable (evidence.py: sealed data or physvec's own recomputation at the task point) form one certificate;
convergence ladders form another.  Expected values are sealed: no projection of these certificates shows them
to a model.
"""

from __future__ import annotations

import json
from collections import defaultdict

from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest
from physvec.verifiers.execution import RESULTS_FILE
from physvec.verifiers.programming.contract import ScriptContract, analyse_script
from physvec.verifiers.programming.julia_runtime import julia_runtime
from physvec.verifiers.protocol import Subject
from physvec.verifiers.scientific.adapters import AdapterWriter
from physvec.verifiers.scientific.assertions import assertion_obligations
from physvec.verifiers.scientific.convergence import convergence_obligations
from physvec.verifiers.scientific.evidence import evidence_obligations, independent_agreement, method_tolerance
from physvec.verifiers.scientific.integrity import typed_values_obligation
from physvec.verifiers.scientific.metamorphic import metamorphic_obligations
from physvec.verifiers.scientific.reference import reference_obligations, suspect_reference
from physvec.verifiers.scientific.rubric import VOTE_TEMPERATURES, ProseJudge, grade_rubric, without_code_evidence


def _results(subject: Subject) -> dict:
    path = subject.executed_dir / RESULTS_FILE if subject.executed_dir else None
    try:
        data = json.loads(path.read_text()) if path and path.is_file() else {}
    except json.JSONDecodeError:
        return {}
    return data if isinstance(data, dict) else {}


def _julia_certificate(verifier: str, subject: Subject) -> Certificate:
    """Scientific checks run a script with parameter overrides; for Julia scripts that is not built yet.

    Without a Julia runtime the obligation is unknown with the runtime's reason; with one it is
    not_implemented.  Either way nothing is certified or failed on a script nobody ran.
    """
    runtime = julia_runtime(subject.pool, subject.limits, subject.workdir)
    outcome, message = (Outcome.NOT_IMPLEMENTED, f"{verifier} checks of Julia scripts (override runs through "
                        "juliacall) are not built yet") if runtime.available else (Outcome.UNKNOWN, runtime.missing)
    obligation = Obligation(name=f"{verifier}:julia", category=verifier, outcome=outcome, message=message)
    return Certificate(verifier=verifier, subject_digest=digest(subject.script.read_text()), obligations=(obligation,))


class ScientificVerifier:
    name = "scientific"

    def __init__(self, judge: ProseJudge | None = None, temperatures: tuple[float, ...] = VOTE_TEMPERATURES,
                 adapter_writer: AdapterWriter | None = None) -> None:
        self.judge = judge
        self.temperatures = temperatures
        self.adapter_writer = adapter_writer

    def verify(self, subject: Subject) -> Certificate:
        if subject.script.suffix == ".jl":
            return _julia_certificate(self.name, subject)
        source = subject.script.read_text()
        contract = analyse_script(source)
        results = _results(subject)
        rubric, score = grade_rubric(subject.task.rubric, contract.params or {}, results, self.judge,
                                     self.temperatures, subject.task.task.substitutions)
        references = reference_obligations(subject, results)
        # independent evidence goes first: physvec's recomputation and the script's run at the task point run side
        # by side, and that run records the whole result, so the metamorphic base run, an assertion or a
        # convergence rung at the script's own PARAMS reuses it instead of running the script again
        evidence = evidence_obligations(subject, contract, references)
        metamorphic = self._metamorphic(subject, contract, results)
        obligations = list(rubric)
        if subject.task.assertions is not None:
            obligations += assertion_obligations(subject.script, contract, subject.task.assertions,
                                                 subject.workdir, subject.pool, subject.limits, self.adapter_writer)
        obligations += references
        obligations += evidence
        obligations.append(typed_values_obligation(source, subject.task))
        obligations += metamorphic
        obligations = without_code_evidence(obligations)
        obligations.append(subject.pool.provenance(subject.workdir))
        summary: dict[str, object] = {"rubric_score": round(score, 4)}
        if suspect_reference(obligations):
            summary["suspect_reference"] = ("every assertion passed and only the reference data disagrees: "
                                            "suspect the reference before the script")
        return Certificate(verifier=self.name, subject_digest=digest(source), obligations=tuple(obligations),
                           summary=summary)

    @staticmethod
    def _metamorphic(subject: Subject, contract: ScriptContract, main_results: dict) -> list[Obligation]:
        """Consistency and dependence checks for every run_ function the task's observables come from, each
        observable checked where the task relies on it: at PARAMS when a reference or a convergence ladder
        uses it, else at the parameters of the first assertion that does."""
        task = subject.task
        default_run = next(iter(contract.runs)) if len(contract.runs) == 1 else None
        relied: dict[str, dict[str, list[dict]]] = defaultdict(dict)
        if default_run is not None and task.task.reference:
            for name, _ in task.task.reference.compared():
                relied[default_run].setdefault(name, []).append({})
        for assertion in task.assertions.assertions if task.assertions else []:
            if not assertion.adapter:  # an adapter's observable is the adapter's, not the run_ function's
                relied[assertion.run].setdefault(assertion.observable, []).append(_point(assertion))
        for case in task.task.convergence.cases:
            if case.run or default_run:
                relied[case.run or default_run].setdefault(case.observable, []).append({})
        accuracy = {case.parameter for case in task.task.convergence.cases}
        reproducible_to = method_tolerance(subject)
        obligations: list[Obligation] = []
        for run, points in relied.items():
            if run not in contract.runs:
                continue
            at_params = [observable for observable, where in points.items() if {} in where]
            obligations += metamorphic_obligations(subject.script, contract, run, at_params, main_results,
                                                   subject.workdir, subject.pool, subject.limits, accuracy,
                                                   reproducible_to=reproducible_to)
            elsewhere: dict[str, tuple[dict, list[str]]] = {}
            for observable, where in points.items():
                if {} not in where:
                    elsewhere.setdefault(json.dumps(where[0], sort_keys=True, default=str),
                                         (where[0], []))[1].append(observable)
            for index, (point, observables) in enumerate(elsewhere.values()):
                obligations += metamorphic_obligations(subject.script, contract, run, observables, {},
                                                       subject.workdir, subject.pool, subject.limits, accuracy,
                                                       point, f"metamorphic-{run}-at{index}")
        return obligations


def _point(assertion: object) -> dict:
    """The parameters an assertion runs at (a symmetry's first side)."""
    return dict(getattr(assertion, "overrides", None) or getattr(assertion, "overrides_a", None) or {})


class ConvergenceVerifier:
    """Convergence ladders of the task; not_applicable when the task names none."""

    name = "convergence"

    def verify(self, subject: Subject) -> Certificate:
        if subject.script.suffix == ".jl":
            return _julia_certificate(self.name, subject)
        source = subject.script.read_text()
        cases = subject.task.task.convergence.cases
        if cases:
            contract, results = analyse_script(source), _results(subject)
            obligations = convergence_obligations(
                subject.script, contract, cases, subject.workdir, subject.pool, subject.limits,
                lambda observable: independent_agreement(subject, contract, observable, results))
        else:
            obligations = [Obligation(name="convergence", category="convergence", outcome=Outcome.NOT_APPLICABLE,
                                      message="the task names no convergence ladder")]
        return Certificate(verifier=self.name, subject_digest=digest(source), obligations=tuple(obligations))
