"""Plain execution of a structured script: does main() run and write its results and figure?

The script contract says main() saves results.json (a JSON object) and figure.png in its working
directory; those files are checked here, by code, after a sandboxed run.
"""

from __future__ import annotations

import ast
import json
import math
import shutil
import sys
from pathlib import Path
from typing import Any

from verifiers.certificate import Obligation, Outcome
from verifiers.sandbox import SandboxJob, SandboxLimits, SandboxPool, SandboxResult

RESULTS_FILE = "results.json"
FIGURE_FILE = "figure.png"
_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def syntax_obligation(source: str) -> Obligation:
    """The script parses as Python; a syntax error names its line."""
    try:
        ast.parse(source)
    except SyntaxError as error:
        return Obligation(name="script_parses", category="execution", outcome=Outcome.FAILED,
                          message=f"syntax error at line {error.lineno}: {error.msg}",
                          evidence={"line": error.lineno, "text": (error.text or "").rstrip()})
    return Obligation(name="script_parses", category="execution", outcome=Outcome.CERTIFIED, message="parses")


def execute_script(script: Path, workdir: Path, pool: SandboxPool, limits: SandboxLimits) -> SandboxResult:
    """Copy the script into its working directory and run it there once, in the sandbox."""
    target = workdir / "script.py"
    shutil.copyfile(script, target)
    return pool.run_all([SandboxJob(argv=[sys.executable, target.name], workdir=workdir, limits=limits)])[0]


def execution_obligation(result: SandboxResult) -> Obligation:
    evidence = {"returncode": result.returncode, "wall_s": round(result.wall_s, 3),
                "stdout_tail": result.stdout[-2000:], "stderr_tail": result.stderr[-4000:]}
    outcome = Outcome.CERTIFIED if result.ok else Outcome.FAILED
    return Obligation(name="script_executes", category="execution", outcome=outcome,
                      message=result.summary(), evidence=evidence)


def _non_finite_paths(value: Any, path: str = "") -> list[str]:
    if isinstance(value, float) and not math.isfinite(value):
        return [path or "(top level)"]
    if isinstance(value, dict):
        return [bad for key, item in value.items() for bad in _non_finite_paths(item, f"{path}.{key}".lstrip("."))]
    if isinstance(value, list):
        return [bad for index, item in enumerate(value) for bad in _non_finite_paths(item, f"{path}[{index}]")]
    return []


def results_obligation(workdir: Path) -> Obligation:
    """results.json exists, is a JSON object, and holds only finite numbers."""
    name, category = "results_written", "execution"
    path = workdir / RESULTS_FILE
    if not path.is_file():
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"main() wrote no {RESULTS_FILE}")
    try:
        results = json.loads(path.read_text())
    except (json.JSONDecodeError, UnicodeDecodeError) as error:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"{RESULTS_FILE} is not valid JSON: {error}")
    if not isinstance(results, dict):
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"{RESULTS_FILE} must hold an object of named results")
    bad = _non_finite_paths(results)
    if bad:
        return Obligation(name=name, category=category, outcome=Outcome.FAILED,
                          message=f"non-finite numbers in results: {', '.join(bad[:5])}", evidence={"paths": bad})
    return Obligation(name=name, category=category, outcome=Outcome.CERTIFIED,
                      message=f"{len(results)} named results", evidence={"keys": sorted(results)})


def figure_obligation(workdir: Path) -> Obligation:
    """figure.png exists and is a PNG image."""
    path = workdir / FIGURE_FILE
    is_png = path.is_file() and path.read_bytes()[:8] == _PNG_SIGNATURE
    return Obligation(name="figure_written", category="execution",
                      outcome=Outcome.CERTIFIED if is_png else Outcome.FAILED,
                      message=f"{FIGURE_FILE} written" if is_png else f"main() wrote no PNG {FIGURE_FILE}")
