"""Unit tests of element functions: each runs, byte-identical, inside a known-good background.

The test program keeps the script's line numbers (imports at their lines, the function under test at
its lines), so a traceback points at the script's own line.  Before a program runs, code checks that
the function in it is AST- and text-identical to the script's: a unit test can never test a function
that differs from the one in the script.
"""

from __future__ import annotations

import ast
import json
import sys
from dataclasses import dataclass
from pathlib import Path

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.programming.contract import ElementFunction, ScriptContract
from physvec.verifiers.programming.harness import PHASE_FILE
from physvec.verifiers.sandbox import SandboxJob, SandboxLimits, SandboxResult

UNIT = "unit"
REPORT_FILE = "unit_report.json"


@dataclass(frozen=True)
class UnitTest:
    """The program testing one element function, and where it runs."""

    function: ElementFunction
    program: str
    workdir: Path
    glue: str | None = None
    differential: dict | None = None
    """the plan of its differential test (differential.py), run by the same program; None without one"""
    pipeline: str | None = None
    """the library background it runs in (the task spec's pipeline); None: the one sharing most of PARAMS"""

    def job(self, limits: SandboxLimits) -> SandboxJob:
        path = self.workdir / "unit_test.py"
        self.workdir.mkdir(parents=True, exist_ok=True)
        path.write_text(self.program)
        return SandboxJob(argv=[sys.executable, path.name], workdir=self.workdir, limits=limits)


def _top_level(tree: ast.Module) -> dict[str, ast.stmt]:
    return {node.name: node for node in tree.body
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}


def _dependencies(contract: ScriptContract, name: str) -> list[ast.stmt]:
    """Module-level functions and classes that ``name`` uses, transitively (not ``name`` itself)."""
    definitions = _top_level(contract.tree)
    found: dict[str, ast.stmt] = {}
    pending = [definitions[name]]
    while pending:
        node = pending.pop()
        for used in {n.id for n in ast.walk(node) if isinstance(n, ast.Name)}:
            if used in definitions and used != name and used not in found:
                found[used] = definitions[used]
                pending.append(definitions[used])
    return sorted(found.values(), key=lambda node: node.lineno)


def _lines(source: str, node: ast.stmt) -> list[str]:
    start = min([node.lineno, *(d.lineno for d in getattr(node, "decorator_list", []))])
    return source.splitlines()[start - 1:node.end_lineno]


GLUE_FUNCTION = "glue_arguments"


def unit_test_program(contract: ScriptContract, function: ElementFunction, backend: str, glue: str | None = None,
                      pipeline: str | None = None, differential: dict | None = None) -> str:
    """The test program for ``function``: the script's imports and the function at their own lines,
    then the helpers it uses, then any glue, then the call into the harness (in the named background
    ``pipeline``, or the one matching the script's PARAMS; with the ``differential`` test's plan, a literal
    dict, when there is one)."""
    source, tree = contract.analysed_source, contract.tree
    node = _top_level(tree)[function.name]
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    lines = [""] * (start - 1)
    trailing: list[str] = []
    for statement in tree.body:
        if isinstance(statement, (ast.Import, ast.ImportFrom)):
            if statement.end_lineno < start:
                lines[statement.lineno - 1:statement.end_lineno] = _lines(source, statement)
            else:
                trailing += _lines(source, statement)
    lines += _lines(source, node) + ["", ""] + trailing
    for dependency in _dependencies(contract, function.name):
        lines += _lines(source, dependency) + [""]
    if glue is not None:
        lines += glue.splitlines() + [""]
    options = (f", glue={GLUE_FUNCTION}" if glue is not None else "") + (f", pipeline={pipeline!r}" if pipeline else "")
    options += f", differential={differential!r}" if differential is not None else ""
    lines += [
        "from physvec.verifiers.programming.harness import run_unit_test",
        f"run_unit_test({function.name}, {function.role!r}, {backend!r}, {contract.params or {}!r}, {REPORT_FILE!r}"
        f"{options})",
    ]
    return "\n".join(lines) + "\n"


def glue_problem(glue: str) -> str | None:
    """Why model-written glue is unacceptable, or None: it may only import and define glue_arguments."""
    try:
        tree = ast.parse(glue)
    except SyntaxError as error:
        return f"glue does not parse: {error.msg} (line {error.lineno})"
    for node in tree.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            continue
        if isinstance(node, ast.FunctionDef) and node.name == GLUE_FUNCTION:
            continue
        return f"glue may only import and define {GLUE_FUNCTION}(namespace), not line {node.lineno}"
    if not any(isinstance(node, ast.FunctionDef) for node in tree.body):
        return f"glue must define {GLUE_FUNCTION}(namespace) -> dict"
    return None


def embeds_identically(program: str, contract: ScriptContract, name: str) -> bool:
    """Whether ``program`` defines ``name`` exactly as the script does: same AST, same text."""
    try:
        embedded = _top_level(ast.parse(program)).get(name)
    except SyntaxError:
        return False
    original = _top_level(contract.tree)[name]
    if embedded is None or ast.dump(embedded) != ast.dump(original):
        return False
    return _lines(program, embedded) == _lines(contract.analysed_source, original)


def unbound_report(test: UnitTest) -> dict | None:
    """The harness report of a unit test that could not bind its parameters, or None."""
    path = test.workdir / REPORT_FILE
    report = json.loads(path.read_text()) if path.is_file() else None
    return report if report and report["status"] == "unbound" else None


def unit_obligation(test: UnitTest, result: SandboxResult) -> Obligation:
    """The outcome of one unit test, judged from the harness's recorded facts and the sandbox result."""
    name = f"unit:{test.function.name}"
    report_path = test.workdir / REPORT_FILE
    if not report_path.is_file():
        phase_path = test.workdir / PHASE_FILE
        phase = phase_path.read_text() if phase_path.is_file() else "startup"
        evidence = {"phase": phase, "stderr_tail": result.stderr[-3000:]}
        if phase == "call":
            return Obligation(name=name, category=UNIT, outcome=Outcome.FAILED,
                              message=f"{test.function.name} never returned: {result.summary()}", evidence=evidence)
        return Obligation(name=name, category=UNIT, outcome=Outcome.ERROR,
                          message=f"the unit-test program died during {phase}: {result.summary()}", evidence=evidence)
    report = json.loads(report_path.read_text())
    evidence = {key: report[key] for key in ("background", "bound", "seconds", "return_type", "annotation", "line",
                                             "traceback", "annotation_note", "phase") if key in report}
    status = report["status"]
    if status == "passed":
        return Obligation(name=name, category=UNIT, outcome=Outcome.CERTIFIED,
                          message=f"returned {report['return_type']} matching {report.get('annotation', 'its annotation')}",
                          evidence=evidence)
    if status == "failed":
        where = f" (line {report['line']})" if report.get("line") else ""
        return Obligation(name=name, category=UNIT, outcome=Outcome.FAILED,
                          message=f"{report['phase']}: {report['error']}{where}", evidence=evidence)
    if status == "unbound":
        return Obligation(name=name, category=UNIT, outcome=Outcome.UNKNOWN,
                          message=f"no background value for parameter(s) {', '.join(report['unbound'])}: "
                                  "the environment needs glue code", evidence=evidence)
    return Obligation(name=name, category=UNIT, outcome=Outcome.ERROR,
                      message=f"the background pipeline failed before {test.function.name} ran: {report['error']}",
                      evidence=evidence)


def syntax_unit_obligation(function_name: str, message: str) -> Obligation:
    return Obligation(name=f"unit:{function_name}", category=UNIT, outcome=Outcome.FAILED,
                      message=f"does not parse: {message}")
