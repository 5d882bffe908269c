"""Layered integration tests from one instrumented execution per script.

Level k of a run_ function is its first k element calls (in evaluation order, from the contract).
Instead of running a truncated program per level, the script runs once with every element call
recorded; each level's outcome follows from that record, so integration costs one execution.
"""

from __future__ import annotations

import json
import shutil
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.programming.contract import ScriptContract
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxResult

INTEGRATION = "integration"
REPORT_FILE = "integration_report.json"
EXECUTION_FOLDER = "main"


def execution_folder(workdir: Path) -> Path:
    """Where the script's one execution runs: a folder of its own beside the unit tests', never above them.  In
    the verification folder itself the script could reach ``unit/`` and rewrite a unit test's program before it
    ran, or its report after (measured: a forged report turned a failing unit test into a passing one)."""
    return workdir / EXECUTION_FOLDER


def _launcher(entry_points: tuple[str, ...]) -> str:
    return ("import sys\n"
            "from physvec.verifiers.programming.harness import run_instrumented\n"
            f"run_instrumented('script.py', {REPORT_FILE!r}, {list(entry_points)!r})\n")


def instrumented_job(script: Path, workdir: Path, limits: SandboxLimits, entry_points: tuple[str, ...] = ()
                     ) -> SandboxJob:
    """The one execution of the script: its main(), with element calls (and the method's entry points) recorded."""
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(script, workdir / "script.py")
    (workdir / "instrumented.py").write_text(_launcher(entry_points))
    return SandboxJob(argv=[sys.executable, "instrumented.py"], workdir=workdir, limits=limits)


def read_report(workdir: Path) -> dict[str, Any] | None:
    path = workdir / REPORT_FILE
    return json.loads(path.read_text()) if path.is_file() else None


@dataclass(frozen=True)
class Levels:
    """The levels of one run_ function and how far the execution got through them."""

    run: str
    static_calls: tuple[str, ...]
    passed: int
    reached: bool
    failing_call: dict[str, Any] | None
    run_error: dict[str, Any] | None

    @property
    def total(self) -> int:
        return len(self.static_calls)

    @property
    def correct_ratio(self) -> float:
        return self.passed / self.total if self.total else 0.0


def levels_of(run: str, static_calls: tuple[str, ...], calls: list[dict[str, Any]] | None,
              run_outcome: dict[str, Any] | None) -> Levels:
    """Level outcomes from the recorded calls: levels before the first failing call pass."""
    if calls is None:
        return Levels(run, static_calls, 0, False, None, run_outcome)
    failing = next((call for call in calls if not call["ok"]), None)
    if failing is None:
        run_failed = run_outcome is not None and not run_outcome.get("ok", True)
        done = {call["function"] for call in calls}
        passed = len(static_calls) if not run_failed else sum(1 for name in static_calls if name in done)
        return Levels(run, static_calls, passed, True, None, run_outcome if run_failed else None)
    position = static_calls.index(failing["function"]) if failing["function"] in static_calls else len(static_calls)
    return Levels(run, static_calls, position, True, failing, None)


def integration_obligation(levels: Levels) -> Obligation:
    name = f"integration:{levels.run}"
    evidence: dict[str, Any] = {"levels": levels.total, "levels_passed": levels.passed,
                                "correct_ratio": round(levels.correct_ratio, 4),
                                "element_calls": list(levels.static_calls)}
    if not levels.reached:
        return Obligation(name=name, category=INTEGRATION, outcome=Outcome.FAILED,
                          message=f"{levels.run} was never reached: the script failed before it", evidence=evidence)
    if levels.failing_call is not None:
        call = levels.failing_call
        producers = call.get("inputs_from") or []
        interface = [producers[-1], call["function"]] if producers else [call["function"]]
        evidence.update(failing_level=levels.passed + 1, failing_function=call["function"], error=call["error"],
                        traceback=call.get("traceback", ""), interface=interface)
        pair = f"; its input came from {producers[-1]}" if producers else ""
        return Obligation(name=name, category=INTEGRATION, outcome=Outcome.FAILED,
                          message=f"level {levels.passed + 1} of {levels.total} fails in {call['function']}: "
                                  f"{call['error']}{pair}", evidence=evidence)
    if levels.run_error is not None:
        evidence.update(error=levels.run_error["error"], traceback=levels.run_error.get("traceback", ""))
        return Obligation(name=name, category=INTEGRATION, outcome=Outcome.FAILED,
                          message=f"{levels.run} failed outside its element calls: {levels.run_error['error']}",
                          evidence=evidence)
    return Obligation(name=name, category=INTEGRATION, outcome=Outcome.CERTIFIED,
                      message=f"all {levels.total} levels pass", evidence=evidence)


def all_levels(contract: ScriptContract, report: dict[str, Any] | None) -> list[Levels]:
    """Levels of every run_ function in the contract, from the instrumented report."""
    calls = report.get("calls", {}) if report else {}
    outcomes = report.get("run_outcomes", {}) if report else {}
    return [levels_of(name, run.element_calls, calls.get(name), outcomes.get(name))
            for name, run in contract.runs.items()]


def execution_evidence(result: SandboxResult) -> dict[str, Any]:
    """What a script_executes obligation keeps of the sandbox run: exit status, time, output tails."""
    return {"returncode": result.returncode, "wall_s": round(result.wall_s, 3),
            "stdout_tail": result.stdout[-2000:], "stderr_tail": result.stderr[-4000:]}


def execution_obligation(report: dict[str, Any] | None, result: SandboxResult) -> Obligation:
    """main() ran to its end in the sandbox."""
    evidence = execution_evidence(result)
    main = report.get("main") if report else None
    if result.ok and main and main["ok"]:
        return Obligation(name="script_executes", category="execution", outcome=Outcome.CERTIFIED,
                          message=result.summary(), evidence=evidence)
    if main and not main["ok"]:
        # "import": the script failed while it was loaded, before main() ran (a module-level import, say)
        evidence["phase"] = main.get("phase", "main")
    message = main["error"] if main and not main["ok"] else result.summary()
    return Obligation(name="script_executes", category="execution", outcome=Outcome.FAILED,
                      message=message, evidence=evidence)
