"""The Programming verifier: does the Author's script run, and which function is wrong if not?

One round finds every programming error, not just the first: the contract analysis, one instrumented
execution (executability and every integration level), and a unit test per element function all run
in parallel in the sandbox.  Where the task's spec is one the verifier library covers, a unit test also
compares its function with the library function of the same role on the same inputs (differential.py).
Julia scripts get the same contract, execution and unit tests (julia_verification), run through juliacall
where Julia with ITensors is installed.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest
from physvec.verifiers.execution import figure_obligation, results_obligation
from physvec.verifiers.library import best_pipeline, pipeline_for_spec, pipeline_named, pipelines_for
from physvec.verifiers.library.composer import library_problem
from physvec.verifiers.programming.contract import ElementFunction, ScriptContract, analyse_script, contract_obligations
from physvec.verifiers.programming.differential import differential_obligation, plan_differential
from physvec.verifiers.programming.integration import (
    INTEGRATION, all_levels, execution_folder, execution_obligation, instrumented_job, integration_obligation,
    read_report,
)
from physvec.verifiers.programming.julia_contract import analyse_julia_script
from physvec.verifiers.programming.julia_verification import verify_julia_script
from physvec.verifiers.programming.methods import METHOD_ENTRY_POINTS, demanded_method, method_obligation
from physvec.verifiers.programming.unit_tests import (
    UNIT, UnitTest, embeds_identically, glue_problem, syntax_unit_obligation, unbound_report, unit_obligation, unit_test_program,
)
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool


def _background(spec: ProposerSpec | None, backend: str, script_params: dict[str, Any]) -> str | None:
    """The library pipeline the unit tests run in: the one sharing most of the script's PARAMS, and on a tie the
    task's own spec pipeline (the task names it, not the script; a square torus's PARAMS are a ring's).  None: the
    harness picks by PARAMS alone."""
    preferred = None
    if spec is not None and library_problem(spec, backend) is None:
        preferred = pipeline_for_spec(backend, spec.model, spec.lattice, spec.method)
    background = best_pipeline(backend, script_params, preferred)
    return background.name if background is not None and background is preferred else None


def _host(name: str, backend: str, background: str | None, script_params: dict[str, Any]) -> str | None:
    """The pipeline a function's unit test runs in: the script's background, unless that has no step of this name
    while another library pipeline has one (a library function a composed step calls, such as the super-lattice
    scan's Hamiltonian); then that pipeline, whose earlier steps make the function's inputs."""
    chosen = pipeline_named(backend, background) if background else best_pipeline(backend, script_params)
    if chosen is None or any(step.function.__name__ == name for step in chosen.steps):
        return background
    host = next((p for p in pipelines_for(backend) if any(step.function.__name__ == name for step in p.steps)), None)
    return background if host is None else host.name


def _unit_tests(contract: ScriptContract, backend: str, workdir: Path, spec: ProposerSpec | None = None
                ) -> tuple[list[UnitTest], list[Obligation]]:
    """A unit test per element function (with its differential test where the task's spec makes one), and the
    obligations decided without running anything."""
    tests, obligations = [], []
    background = _background(spec, backend, contract.params or {})
    for function in contract.elements.values():
        if contract.syntax is not None and contract.syntax.function == function.name:
            obligations.append(syntax_unit_obligation(function.name, f"line {contract.syntax.line}: "
                                                                     f"{contract.syntax.message}"))
            continue
        plan = plan_differential(function, contract, spec, backend)
        if isinstance(plan, Obligation):
            obligations.append(plan)
            plan = None
        host = _host(function.name, backend, background, contract.params or {})
        program = unit_test_program(contract, function, backend, pipeline=host, differential=plan)
        if not embeds_identically(program, contract, function.name):
            obligations.append(Obligation(name=f"unit:{function.name}", category=UNIT, outcome=Outcome.ERROR,
                                          message="the test program does not embed the function byte-identically"))
            continue
        tests.append(UnitTest(function, program, workdir / "unit" / function.name, differential=plan,
                              pipeline=host))
    return tests, obligations


GlueWriter = Callable[[ElementFunction, list[str], dict[str, str]], str | None]
"""(function, unbound parameter names, background namespace types) -> source of glue_arguments."""


def _glued(contract: ScriptContract, backend: str, test: UnitTest, glue_writer: GlueWriter
           ) -> UnitTest | Obligation | None:
    """A unit test with model-written glue, an error obligation if the glue is unacceptable, or None."""
    report = unbound_report(test)
    if report is None:
        return None
    glue = glue_writer(test.function, report["unbound"], report.get("namespace", {}))
    if glue is None:
        return None
    name = f"unit:{test.function.name}"
    problem = glue_problem(glue)
    if problem is not None:
        return Obligation(name=name, category=UNIT, outcome=Outcome.ERROR, message=problem, evidence={"glue": glue})
    program = unit_test_program(contract, test.function, backend, glue, pipeline=test.pipeline)
    if not embeds_identically(program, contract, test.function.name):
        return Obligation(name=name, category=UNIT, outcome=Outcome.ERROR, evidence={"glue": glue},
                          message="with the glue, the program no longer embeds the function byte-identically")
    return UnitTest(test.function, program, test.workdir.with_name(f"{test.function.name}-glue"), glue,
                    pipeline=test.pipeline)


def _glue_round(contract: ScriptContract, backend: str, tests: list[UnitTest], results: list[Obligation],
                glue_writer: GlueWriter, pool: SandboxPool, limits: SandboxLimits) -> list[Obligation]:
    """Re-run, with model-written glue, the unit tests whose inputs no background could make."""
    outcomes = {o.name: o for o in results}
    retries = []
    for test in tests:
        glued = _glued(contract, backend, test, glue_writer)
        if isinstance(glued, Obligation):
            outcomes[glued.name] = glued
        elif glued is not None:
            retries.append(glued)
    for test, result in zip(retries, pool.run_all([t.job(limits) for t in retries])):
        obligation = unit_obligation(test, result)
        outcomes[obligation.name] = obligation.model_copy(update={"evidence": {**obligation.evidence, "glue": test.glue}})
    return list(outcomes.values())


def verify_python_script(script: Path, backend: str, workdir: Path, pool: SandboxPool,
                         limits: SandboxLimits, glue_writer: GlueWriter | None = None,
                         method: str | None = None, spec: ProposerSpec | None = None) -> list[Obligation]:
    """Every programming obligation of a Python script; ``method``, the method its task demands, is checked by
    the backend calls of its main run; ``spec``, the task's, gives the differential tests (differential.py)."""
    contract = analyse_script(script.read_text())
    obligations = contract_obligations(contract)
    if contract.tree is None:
        return obligations
    tests, unit_results = _unit_tests(contract, backend, workdir, spec)
    entry_points = METHOD_ENTRY_POINTS.get(method or "", ())
    executed = execution_folder(workdir)
    jobs = [instrumented_job(script, executed, limits, entry_points)] + [t.job(limits) for t in tests]
    execution, *unit_runs = pool.run_all(jobs)
    report = read_report(executed)
    obligations += [execution_obligation(report, execution), results_obligation(executed), figure_obligation(executed)]
    checked_method = method_obligation(method, report)
    if checked_method is not None:
        obligations.append(checked_method)
    obligations += [integration_obligation(levels) for levels in all_levels(contract, report)]
    unit_results += [unit_obligation(test, result) for test, result in zip(tests, unit_runs)]
    differential = [differential_obligation(test.function, test.differential, test.workdir, result)
                    for test, result in zip(tests, unit_runs) if test.differential is not None]
    if glue_writer is not None:
        unit_results = _glue_round(contract, backend, tests, unit_results, glue_writer, pool, limits)
    order = list(contract.elements)
    return obligations + sorted(unit_results + differential, key=lambda o: (
        order.index(o.name.partition(":")[2]), o.category != UNIT))


def analyse_for_backend(source: str, backend: str) -> ScriptContract:
    """The contract analysis in the script's language: Julia for ITensors, Python otherwise."""
    return analyse_julia_script(source) if backend == "itensors" else analyse_script(source)


def verify_script(script: Path, backend: str, workdir: Path, pool: SandboxPool, limits: SandboxLimits,
                  glue_writer: GlueWriter | None = None, method: str | None = None,
                  spec: ProposerSpec | None = None) -> Certificate:
    """The Programming verifier's certificate for one script file.

    Args:
        glue_writer: asked (in a second, parallel round) for argument-making code when no background
            function can make a unit test's inputs; without one those unit tests stay unknown.
        method: the method the task demands (methods.demanded_method), checked by the backend calls of the
            main run; None when no task demands one.
        spec: the task's spec: where the library covers it, element functions of the roles it has are compared
            with the library's (differential.py); None gives no differential tests.
    """
    if backend == "itensors" or script.suffix == ".jl":
        obligations = verify_julia_script(script, workdir, pool, limits)
    else:
        obligations = verify_python_script(script, backend, workdir, pool, limits, glue_writer, method, spec)
    return Certificate(verifier="programming", subject_digest=digest(script.read_bytes()),
                       obligations=(*obligations, pool.provenance(workdir)))


def programming_metrics(certificate: Certificate) -> dict[str, Any]:
    """Unit-test accuracy, integration accuracy and executability of one certificate."""
    units = [o for o in certificate.obligations if o.category == UNIT]
    integrations = [o for o in certificate.obligations if o.category == INTEGRATION]
    levels = sum(o.evidence.get("levels", 0) for o in integrations)
    executes = next((o for o in certificate.obligations if o.name == "script_executes"), None)
    return {
        "unit_accuracy": sum(o.outcome is Outcome.CERTIFIED for o in units) / len(units) if units else None,
        "integration_accuracy": sum(o.evidence.get("levels_passed", 0) for o in integrations) / levels if levels else None,
        "executable": executes is not None and executes.outcome is Outcome.CERTIFIED,
        "successful_element_functions": sorted(o.name.removeprefix("unit:") for o in units
                                               if o.outcome is Outcome.CERTIFIED),
    }


class ProgrammingVerifier:
    name = "programming"

    def __init__(self, glue_writer: GlueWriter | None = None) -> None:
        self.glue_writer = glue_writer

    def verify(self, subject: Subject) -> Certificate:
        return verify_script(subject.script, subject.task.task.backend, subject.workdir, subject.pool, subject.limits,
                             self.glue_writer, demanded_method(subject.task.task), subject.task.task.spec)
