"""The Programming verifier: does the Author's script run, and which function is wrong if not?

One round finds every programming error, not just the first: the contract analysis, one instrumented
execution (executability and every integration level), and a unit test per element function all run
in parallel in the sandbox.  Julia scripts are analysed as text; running them needs Julia.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from verifiers.certificate import Certificate, Obligation, Outcome, digest
from verifiers.execution import figure_obligation, results_obligation
from verifiers.programming.contract import ScriptContract, analyse_script, contract_obligations
from verifiers.programming.integration import (
    INTEGRATION, all_levels, execution_obligation, instrumented_job, integration_obligation, read_report,
)
from verifiers.programming.julia_contract import analyse_julia_script
from verifiers.programming.unit_tests import (
    UNIT, UnitTest, embeds_identically, syntax_unit_obligation, unit_obligation, unit_test_program,
)
from verifiers.protocol import Subject
from verifiers.sandbox import SandboxLimits, SandboxPool


def _sandbox_environment(backend: str, workdir: Path) -> dict[str, str]:
    """NetKet programs share a JAX compilation cache within one verification (halves their cost)."""
    if backend != "netket":
        return {}
    return {"JAX_COMPILATION_CACHE_DIR": str(workdir / "jax-cache"), "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
            "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0"}


def _unit_tests(contract: ScriptContract, backend: str, workdir: Path) -> tuple[list[UnitTest], list[Obligation]]:
    tests, obligations = [], []
    for function in contract.elements.values():
        if contract.syntax is not None and contract.syntax.function == function.name:
            obligations.append(syntax_unit_obligation(function.name, f"line {contract.syntax.line}: "
                                                                     f"{contract.syntax.message}"))
            continue
        program = unit_test_program(contract, function, backend)
        if not embeds_identically(program, contract, function.name):
            obligations.append(Obligation(name=f"unit:{function.name}", category=UNIT, outcome=Outcome.ERROR,
                                          message="the test program does not embed the function byte-identically"))
            continue
        tests.append(UnitTest(function, program, workdir / "unit" / function.name))
    return tests, obligations


def verify_python_script(script: Path, backend: str, workdir: Path, pool: SandboxPool,
                         limits: SandboxLimits) -> list[Obligation]:
    contract = analyse_script(script.read_text())
    obligations = contract_obligations(contract)
    if contract.tree is None:
        return obligations
    environment = _sandbox_environment(backend, workdir)
    tests, unit_results = _unit_tests(contract, backend, workdir)
    jobs = [instrumented_job(script, workdir, limits, environment)] + [t.job(limits, environment) for t in tests]
    execution, *unit_runs = pool.run_all(jobs)
    report = read_report(workdir)
    obligations += [execution_obligation(report, execution), results_obligation(workdir), figure_obligation(workdir)]
    obligations += [integration_obligation(levels) for levels in all_levels(contract, report)]
    unit_results += [unit_obligation(test, result) for test, result in zip(tests, unit_runs)]
    order = list(contract.elements)
    return obligations + sorted(unit_results, key=lambda o: order.index(o.name.removeprefix("unit:")))


def verify_julia_script(script: Path) -> list[Obligation]:
    obligations = contract_obligations(analyse_julia_script(script.read_text()))
    if shutil.which("julia") is None:
        obligations.append(Obligation(name="script_executes", category="execution", outcome=Outcome.UNKNOWN,
                                      message="Julia is not installed here: the script was analysed, not run"))
    else:
        obligations.append(Obligation(name="script_executes", category="execution", outcome=Outcome.NOT_IMPLEMENTED,
                                      message="running Julia scripts is not built yet"))
    return obligations


def verify_script(script: Path, backend: str, workdir: Path, pool: SandboxPool, limits: SandboxLimits) -> Certificate:
    """The Programming verifier's certificate for one script file."""
    if backend == "itensors" or script.suffix == ".jl":
        obligations = verify_julia_script(script)
    else:
        obligations = verify_python_script(script, backend, workdir, pool, limits)
    return Certificate(verifier="programming", subject_digest=digest(script.read_bytes()),
                       obligations=tuple(obligations))


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

    def verify(self, subject: Subject) -> Certificate:
        return verify_script(subject.script, subject.task.task.backend, subject.workdir, subject.pool, subject.limits)
