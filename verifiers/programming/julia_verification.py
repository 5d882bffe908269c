"""The Programming verifier for Julia/ITensors scripts: the same contract, unit tests and execution.

A unit-test program keeps the element function byte-identical at its own script lines (so Julia's
backtrace line is the script's line), adds the script's using lines, helpers, constants and PARAMS,
includes the Julia harness and the ITensors background, and calls the harness.  Programs are
generated and checked here in Python; they run only where ``julia_runtime`` finds Julia with ITensors.
Where it does not, every obligation that needs running is unknown with the reason: never failed,
never certified.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.execution import figure_obligation, results_obligation
from physvec.verifiers.programming.contract import ElementFunction, ScriptContract, contract_obligations
from physvec.verifiers.programming.integration import INTEGRATION, execution_evidence, execution_folder
from physvec.verifiers.programming.julia_contract import (
    analyse_julia_script, julia_constants, julia_definitions, julia_imports, julia_params_definition,
)
from physvec.verifiers.programming.julia_runtime import JuliaRuntime, julia_runtime
from physvec.verifiers.programming.unit_tests import REPORT_FILE, UNIT, UnitTest, unit_obligation
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool, SandboxResult

HARNESS = Path(__file__).with_name("harness.jl")
BACKGROUND = Path(__file__).resolve().parents[1] / "library" / "itensors_background.jl"
JULIA_PIPELINES = {"heisenberg_chain": "HEISENBERG_CHAIN"}
"""Background pipeline name -> the constant that defines it in the ITensors background module."""
DEFAULT_PIPELINE = "heisenberg_chain"
PROGRAM_FILE = "unit_test.jl"
SCRIPT_FILE = "script.jl"


def _first_line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if line.startswith(text))


def julia_unit_test_program(contract: ScriptContract, function: ElementFunction,
                            pipeline: str = DEFAULT_PIPELINE) -> str:
    """The Julia program testing ``function`` inside the named background pipeline."""
    source = contract.source
    lines = [""] * (function.lineno - 1)
    trailing: list[str] = []
    for using in julia_imports(source):
        line = _first_line_of(source, using)
        if line < function.lineno:
            lines[line - 1] = using
        else:
            trailing.append(using)
    lines += function.source.splitlines() + [""] + trailing
    definitions, _ = julia_definitions(source)
    for helper in definitions:
        if helper.name != function.name and helper.name not in contract.elements \
                and helper.name not in contract.runs and helper.name != "main":
            lines += source[helper.start:helper.end].splitlines() + [""]
    lines += list(julia_constants(source))
    params = julia_params_definition(source)
    lines += [params, "script_params = Dict{String,Any}(string(k) => v for (k, v) in pairs(PARAMS))"] if params \
        else ["script_params = Dict{String,Any}()"]
    lines += [
        f'include(raw"{HARNESS}")',
        f'include(raw"{BACKGROUND}")',
        f'PhysvecHarness.run_unit_test({function.name}, "{function.role}", '
        f'PhysvecBackground.{JULIA_PIPELINES[pipeline]}, script_params, "{REPORT_FILE}", "{PROGRAM_FILE}")',
    ]
    return "\n".join(lines) + "\n"


def embeds_identically(program: str, function: ElementFunction) -> bool:
    """Whether the program holds the function's exact text at the function's own lines."""
    return program.splitlines()[function.lineno - 1:function.end_lineno] == function.source.splitlines()


def _unknown(contract: ScriptContract, reason: str) -> list[Obligation]:
    """What the verifier can say without running anything: every run-dependent obligation is unknown."""
    return [Obligation(name="script_executes", category="execution", outcome=Outcome.UNKNOWN, message=reason)] + [
        Obligation(name=f"unit:{name}", category=UNIT, outcome=Outcome.UNKNOWN, message=reason)
        for name in contract.elements]


def _execution_obligation(result: SandboxResult) -> Obligation:
    """The Julia script ran to its end: judged from the exit status (Julia runs are not instrumented)."""
    return Obligation(name="script_executes", category="execution",
                      outcome=Outcome.CERTIFIED if result.ok else Outcome.FAILED, message=result.summary(),
                      evidence=execution_evidence(result))


def _unit_tests(contract: ScriptContract, workdir: Path) -> tuple[list[UnitTest], list[Obligation]]:
    tests, refused = [], []
    for function in contract.elements.values():
        program = julia_unit_test_program(contract, function)
        if not embeds_identically(program, function):
            refused.append(Obligation(name=f"unit:{function.name}", category=UNIT, outcome=Outcome.ERROR,
                                      message="the test program does not embed the function byte-identically"))
            continue
        folder = workdir / "unit" / function.name
        folder.mkdir(parents=True, exist_ok=True)
        (folder / PROGRAM_FILE).write_text(program)
        tests.append(UnitTest(function, program, folder))
    return tests, refused


def _run(script: Path, contract: ScriptContract, runtime: JuliaRuntime, workdir: Path, pool: SandboxPool,
         limits: SandboxLimits) -> list[Obligation]:
    executed = execution_folder(workdir)
    executed.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(script, executed / SCRIPT_FILE)
    tests, unit_results = _unit_tests(contract, workdir)
    jobs = [runtime.job(executed / SCRIPT_FILE, limits)] + [runtime.job(t.workdir / PROGRAM_FILE, limits) for t in tests]
    execution, *unit_runs = pool.run_all(jobs)
    unit_results += [unit_obligation(test, result) for test, result in zip(tests, unit_runs)]
    integration = Obligation(name="integration", category=INTEGRATION, outcome=Outcome.NOT_IMPLEMENTED,
                             message="layered integration tests of Julia scripts are not built; "
                                     "the execution and the unit tests are")
    return [_execution_obligation(execution), results_obligation(executed), figure_obligation(executed),
            integration, *unit_results]


def verify_julia_script(script: Path, workdir: Path, pool: SandboxPool, limits: SandboxLimits) -> list[Obligation]:
    """Contract obligations, then execution and unit tests through juliacall, or unknown with the reason."""
    contract = analyse_julia_script(script.read_text())
    obligations = contract_obligations(contract)
    runtime = julia_runtime(pool, limits, workdir)
    if not runtime.available:
        return obligations + _unknown(contract, runtime.missing or "")
    return obligations + _run(script, contract, runtime, workdir, pool, limits)
