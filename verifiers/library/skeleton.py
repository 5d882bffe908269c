"""An example script per backend, built from the verifier library's own code, for the Author's prompt.

A small model that reads the script contract only in words invents modules (``tenpy.models.heisenberg``) and
takes the contract's role names for library classes; one that sees working code for the library imitates
its real imports and calls.  The skeleton is the backend's first pipeline whose steps are literal and whose
functions are short, a few more short element functions of the module (more of the API), the import lines
they use, the pipeline's small default PARAMS, a run_ function and main(), within a budget that local models
with 4k-8k contexts can afford.

It is read from the background module's source text, never imported (NetKet takes seconds and JAX to load,
and the prompt needs none of it), and depends on the backend alone, never on a task: it is an example of the
API, not a task's answer.  Docstrings are dropped, since that is where the library records the reference
numbers its tests check against.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from physvec.verifiers.library import BACKEND_MODULES, RESULT_ROLES
from physvec.verifiers.library.composer import (
    MAIN_GUARD, import_lines, main_function, params_literal, run_function, used_names,
)

LIBRARY = Path(__file__).resolve().parent
BUDGET_CHARS = 3000
"""The most characters a skeleton may have (about 750 tokens), so that it fits beside the task."""
BUDGET_LINES = 80
PIPELINE_FUNCTION_LINES = 12
"""The longest function (docstring dropped) the example pipeline may have: a long one would crowd out the rest."""
EXTRA_FUNCTION_LINES = 6
EXTRAS_PER_ROLE = 2
_PLAIN_RESULTS = {"float", "int", "bool", "str", "list"}
"""Return annotations of results that json.dump writes (an MPS or a Statevector is not returned)."""


@dataclass(frozen=True)
class _Function:
    """A top-level function of a background module: its parameters and source without its docstring."""

    name: str
    parameters: tuple[str, ...]
    source: str
    returns: str

    def lines(self) -> int:
        return self.source.count("\n")


@dataclass(frozen=True)
class _Pipeline:
    """A pipeline as its module declares it: its name, parameters and (role, function, output) steps."""

    name: str
    params: dict[str, Any]
    steps: tuple[tuple[str, str, str], ...]


def _without_docstring(source_lines: list[str], node: ast.FunctionDef) -> str | None:
    """The function's text with its docstring's lines removed; None where the docstring shares the def line."""
    start = min([node.lineno, *(d.lineno for d in node.decorator_list)])
    kept = range(start, (node.end_lineno or node.lineno) + 1)
    first = node.body[0]
    if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) and isinstance(first.value.value, str):
        if first.lineno == node.lineno:
            return None
        kept = [line for line in kept if not first.lineno <= line <= (first.end_lineno or first.lineno)]
    return "".join(source_lines[line - 1] for line in kept)


def _functions(source: str) -> dict[str, _Function]:
    lines = source.splitlines(keepends=True)
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, ast.FunctionDef) and (text := _without_docstring(lines, node)) is not None:
            arguments = [*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs]
            found[node.name] = _Function(node.name, tuple(a.arg for a in arguments), text,
                                         ast.unparse(node.returns) if node.returns else "")
    return found


def _literal_step(node: ast.expr) -> tuple[str, str, str] | None:
    """(role, function, output) of ``BackgroundStep("role", function, "output")``, or None."""
    if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "BackgroundStep"
            and len(node.args) == 3 and isinstance(node.args[1], ast.Name)):
        return None
    role, output = node.args[0], node.args[2]
    if not all(isinstance(part, ast.Constant) and isinstance(part.value, str) for part in (role, output)):
        return None
    return role.value, node.args[1].id, output.value


def _pipelines(source: str) -> list[_Pipeline]:
    """The module's pipelines whose name, parameters and steps are literals, in declaration order (a pipeline
    built by a helper, such as tenpy's trapped Hubbard ones, is left out)."""
    pipelines = []
    for node in ast.parse(source).body:
        call = node.value if isinstance(node, ast.Assign) else None
        if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                and call.func.id == "BackgroundPipeline"):
            continue
        keywords = {keyword.arg: keyword.value for keyword in call.keywords}
        steps = keywords.get("steps")
        if not isinstance(steps, ast.Tuple):
            continue
        literal = [_literal_step(element) for element in steps.elts]
        try:
            name, params = ast.literal_eval(keywords["name"]), ast.literal_eval(keywords["params"])
        except (KeyError, ValueError):
            continue
        if all(literal):
            pipelines.append(_Pipeline(name, params, tuple(literal)))
    return pipelines


def _example_pipeline(pipelines: list[_Pipeline], functions: dict[str, _Function]) -> _Pipeline:
    """The first pipeline all of whose functions are short: a fixed choice, never the task's."""
    return next(p for p in pipelines
                if all(functions[f].lines() <= PIPELINE_FUNCTION_LINES for _, f, _ in p.steps))


def _extras(pipelines: list[_Pipeline], functions: dict[str, _Function], taken: set[str]) -> list[str]:
    """Short element functions of the other pipelines, at most EXTRAS_PER_ROLE a role, in declaration order."""
    role_of = {function: role for pipeline in pipelines for role, function, _ in pipeline.steps}
    chosen: list[str] = []
    for name, function in functions.items():
        role = role_of.get(name)
        if (role is not None and name not in taken and function.lines() <= EXTRA_FUNCTION_LINES
                and sum(role_of[other] == role for other in chosen) < EXTRAS_PER_ROLE):
            chosen.append(name)
    return chosen


def _plain(annotation: str) -> bool:
    return bool(annotation) and set(re.findall(r"\w+", annotation)) <= _PLAIN_RESULTS


def _python_script(backend: str, pipeline: _Pipeline, functions: list[_Function], module_sources: list[str]) -> str:
    """The script, laid out as the composer lays out a library proposal (one blank line between blocks, to
    save lines); the run_ function returns the results that json.dump can write."""
    used = used_names(function.source for function in functions)
    by_name = {function.name: function for function in functions}
    calls = [(function, list(by_name[function].parameters), output) for _, function, output in pipeline.steps]
    results = [output for role, function, output in pipeline.steps
               if role in RESULT_ROLES and _plain(by_name[function].returns)]
    run = f"run_{pipeline.name}"
    blocks = [
        f'"""The {pipeline.name} pipeline of physvec\'s verified {backend} library, as a script."""\n',
        "\n".join(import_lines(module_sources, used, ["import json", "from typing import Any"])) + "\n",
        params_literal(pipeline.params),
        *(function.source for function in functions),
        run_function(run, calls, results),
        main_function(run),
        MAIN_GUARD,
    ]
    return "\n".join(block.rstrip("\n") + "\n" for block in blocks)


def _python_skeleton(backend: str) -> str:
    source = (LIBRARY / f"{BACKEND_MODULES[backend]}.py").read_text()
    plots = (LIBRARY / "plots.py").read_text()
    functions, pipelines = _functions(source), _pipelines(source)
    pipeline = _example_pipeline(pipelines, functions)
    own = list(dict.fromkeys(function for _, function, _ in pipeline.steps))
    plot = _functions(plots)["plot_results"]

    def script(extras: list[str]) -> str:
        return _python_script(backend, pipeline, [functions[name] for name in own + extras] + [plot],
                              [source, plots])

    extras: list[str] = []
    for name in _extras(pipelines, functions, set(own)):
        if _fits(script(extras + [name])):
            extras.append(name)
    return script(extras)


_JULIA_STEP = re.compile(r'Step\("(\w+)",\s*(\w+),\s*"(\w+)"\)')
_JULIA_DEFINITION = re.compile(r"^(?:function\s+)?(\w+)\(([^)]*)\)", re.MULTILINE)
_JULIA_PARAMS = re.compile(r"Dict\{String,\s*Any\}\((.*?)\),\s*\n\s*\[", re.DOTALL)


def _julia_skeleton() -> str:
    """The ITensors background as a script: its using line, its functions as written (they have no
    docstrings), PARAMS from its pipeline's Dict, a run_ function and a main() that writes results.json.

    The library's Julia environment holds ITensors and ITensorMPS only, so the example draws no figure."""
    text = (LIBRARY / "itensors_background.jl").read_text()
    module = text[text.index("\nmodule "):]
    body = module[module.index("\n", module.index("PhysvecHarness")) + 1:module.index("\nconst ")].strip("\n")
    parameters = {name: [a.split("::")[0].split("=")[0].strip() for a in arguments.split(",") if a.strip()]
                  for name, arguments in _JULIA_DEFINITION.findall(body)}
    steps = _JULIA_STEP.findall(module)
    produced: set[str] = set()
    calls = []
    for _, function, output in steps:
        arguments = ", ".join(name if name in produced else f'params["{name}"]' for name in parameters[function])
        calls.append(f"    {output} = {function}({arguments})")
        produced.add(output)
    results = ", ".join(f'"{output}" => {output}' for role, _, output in steps if role == "observable")
    name = re.search(r'Pipeline\(\s*"(\w+)"', module).group(1)
    run = f"run_{name}"
    return "\n\n".join([
        f"# The {name} pipeline of physvec's verified itensors library, as a script.\nusing ITensors, ITensorMPS",
        f"const PARAMS = Dict({_JULIA_PARAMS.search(module).group(1)})",
        body,
        f"function {run}(params)\n" + "\n".join(calls) + f"\n    return Dict({results})\nend",
        f"function main()\n    results = {run}(PARAMS)\n    open(\"results.json\", \"w\") do io\n"
        '        write(io, "{" * join(("\\"$name\\": $value" for (name, value) in results), ", ") * "}")\n'
        "    end\nend",
        "main()",
    ]) + "\n"


def _fits(script: str) -> bool:
    return len(script) <= BUDGET_CHARS and script.count("\n") <= BUDGET_LINES


@cache
def example_script(backend: str) -> str | None:
    """A short working script for ``backend`` from the library's own functions, or None for a backend the
    library does not cover."""
    if backend == "itensors":
        return _julia_skeleton()
    return _python_skeleton(backend) if backend in BACKEND_MODULES else None
