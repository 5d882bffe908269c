"""A structured script composed from verified library functions, with no model.

Two users: the library proposer (the model `library`, which writes a task's script without a language
model) and the Scientific verifier's trusted recomputation (physvec's own value of every observable at the
task point).  Composition reads only the task's spec and backend, never reference data, assertions, the
rubric or a script: it finds the library pipeline of the spec's model, lattice and method, copies the source of
each step the spec's observables need, writes PARAMS from the spec, one run_ function calling those steps in
order, and main() with the library's plot.  A spec the library does not cover, or whose parameters do not match what the
pipeline reads, is refused with a message that says what the library covers.
"""

from __future__ import annotations

import ast
import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

from physvec.taskfiles.task import ProposerSpec
from physvec.verifiers.library import (
    RESULT_ROLES, BackgroundPipeline, BackgroundStep, pipeline_for_spec, pipelines_for,
)
from physvec.verifiers.library.plots import plot_results



class SpecNotCovered(ValueError):
    """The library cannot compose a script for this spec; the message says why and what it covers."""


@dataclass(frozen=True)
class Proposal:
    """A composed script and the library pipeline it came from."""

    pipeline: str
    script: str


def coverage(backend: str) -> str:
    """What the library covers on a backend, as (model, lattice, method) triples."""
    triples = [f"{p.model}/{p.lattice}/{p.method}" for p in pipelines_for(backend)]
    return ", ".join(triples) if triples else "nothing"


def _read_parameters(pipeline: BackgroundPipeline) -> list[str]:
    outputs = {step.output for step in pipeline.steps}
    read: list[str] = []
    for step in pipeline.steps:
        read += [name for name in inspect.signature(step.function).parameters if name not in outputs | set(read)]
    return read


def pipeline_problems(spec: ProposerSpec, pipeline: BackgroundPipeline) -> list[str]:
    """What keeps ``spec`` from matching ``pipeline``: parameters it lacks or that nothing reads, observables
    the pipeline does not return."""
    read = _read_parameters(pipeline)
    problems = []
    if missing := [name for name in read if name not in spec.parameters]:
        problems.append(f"spec.parameters lacks {', '.join(missing)}")
    if unused := sorted(set(spec.parameters) - set(read)):
        problems.append(f"spec.parameters has {', '.join(unused)}, which no function of {pipeline.name} reads")
    results = {step.output for step in pipeline.steps if step.role in RESULT_ROLES}
    if unknown := [name for name in spec.observables if name not in results]:
        problems.append(f"spec.observables {', '.join(unknown)} are not results of {pipeline.name} "
                        f"(it returns {', '.join(sorted(results))})")
    return problems


def _check(spec: ProposerSpec, backend: str, pipeline: BackgroundPipeline | None) -> BackgroundPipeline:
    if pipeline is None:
        raise SpecNotCovered(f"the library has no {backend} pipeline for {spec.model}/{spec.lattice}/{spec.method}; "
                             f"it covers {coverage(backend)}")
    if problems := pipeline_problems(spec, pipeline):
        raise SpecNotCovered("; ".join(problems))
    return pipeline


def _alias(alias: ast.alias) -> str:
    return alias.name + (f" as {alias.asname}" if alias.asname else "")


def import_lines(module_sources: list[str], used: set[str], lines: list[str]) -> list[str]:
    """``lines``, then the import lines of the module sources that bind a name in ``used`` (not __future__,
    not our own, each line once).  Works on source text, so a caller need not import the backend library."""
    lines = list(lines)
    for source in module_sources:
        for node in ast.parse(source).body:
            if isinstance(node, ast.ImportFrom) and (node.module == "__future__"
                                                     or (node.module or "").startswith("physvec.verifiers")):
                continue
            if not isinstance(node, (ast.Import, ast.ImportFrom)):
                continue
            needed = [alias for alias in node.names if (alias.asname or alias.name.split(".")[0]) in used]
            if not needed:
                continue
            names = ", ".join(_alias(alias) for alias in needed)
            line = f"import {names}" if isinstance(node, ast.Import) else f"from {node.module} import {names}"
            if line not in lines:
                lines.append(line)
    return lines


def used_names(sources: Iterable[str]) -> set[str]:
    """Every name the sources' code reads or binds: what their import lines must provide."""
    return {node.id for source in sources for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}


def _imports(functions: list[Callable[..., Any]], lines: list[str]) -> list[str]:
    """``lines``, then the imports of the modules the functions come from that the functions use."""
    used = used_names(inspect.getsource(function) for function in functions)
    modules = dict.fromkeys(inspect.getmodule(function) for function in functions)
    return import_lines([inspect.getsource(module) for module in modules], used, lines)


def with_called_library_functions(functions: list[Callable[..., Any]]) -> list[Callable[..., Any]]:
    """The functions and, transitively, the library functions they call by name: a step may run another step's
    function on a second state (DMRG again with one more boson), and the script must define what it calls."""
    found = list(functions)
    for function in found:
        module = inspect.getmodule(function)
        for name in sorted(used_names([inspect.getsource(function)])):
            called = getattr(module, name, None)
            if (inspect.isfunction(called) and called.__module__.startswith("physvec.verifiers.library.")
                    and called not in found):
                found.append(called)
    return found


def run_name(spec: ProposerSpec, pipeline: BackgroundPipeline) -> str:
    """The run_ function a composed script defines: the spec's name for it, else run_<pipeline>."""
    return spec.run or f"run_{pipeline.name}"


def run_function(name: str, calls: list[tuple[str, list[str], str]], returned: list[str]) -> str:
    """A run_ function making each call (function, its parameter names, its output) in order: an argument is
    an earlier output or read from params; it returns the ``returned`` outputs by name."""
    produced: set[str] = set()
    body = []
    for function, parameters, output in calls:
        arguments = ", ".join(f"{name}={name if name in produced else f'params[{name!r}]'}" for name in parameters)
        body.append(f"    {output} = {function}({arguments})")
        produced.add(output)
    results = ", ".join(f"{name!r}: {name}" for name in returned)
    return (f"def {name}(**params: Any) -> dict[str, Any]:\n" + "\n".join(body)
            + f"\n    return {{{results}}}\n")


def steps_for(pipeline: BackgroundPipeline, observables: list[str]) -> list[BackgroundStep]:
    """The pipeline's steps that the observables need, in order: each observable's step and, transitively, the
    steps making its inputs.  A step whose output nothing returned depends on is left out of the script: it would
    cost time, and a fault in it could change nothing the task relies on."""
    needed, kept = set(observables), []
    for step in reversed(pipeline.steps):
        if step.output in needed:
            kept.append(step)
            needed.update(inspect.signature(step.function).parameters)
    return kept[::-1]


def _run_function(steps: list[BackgroundStep], observables: list[str], name: str) -> str:
    calls = [(step.function.__name__, list(inspect.signature(step.function).parameters), step.output)
             for step in steps]
    return run_function(name, calls, observables)


def main_function(run: str) -> str:
    """main(): the run_ function with PARAMS, its results to results.json, the library's plot to figure.png."""
    return (f"def main() -> None:\n    results = {run}(**PARAMS)\n"
            '    with open("results.json", "w") as stream:\n        json.dump(results, stream)\n'
            '    plot_results(results, "figure.png")\n')


MAIN_GUARD = 'if __name__ == "__main__":\n    main()\n'


def params_literal(parameters: dict[str, Any], width: int = 110) -> str:
    """PARAMS = {...} as one literal, wrapped between items (never inside a string)."""
    lines, line = [], "PARAMS = {"
    for index, (name, value) in enumerate(parameters.items()):
        item = f"{name!r}: {value!r}" + ("," if index < len(parameters) - 1 else "}")
        if len(line) + len(item) + 1 > width and not line.endswith("{"):
            lines.append(line)
            line = "          " + item
        else:
            line += ("" if line.endswith("{") else " ") + item
    return "\n".join([*lines, line if parameters else "PARAMS = {}"]) + "\n"


def compose_script(spec: ProposerSpec, backend: str) -> Proposal:
    """The structured script for ``spec`` on ``backend``, composed from the verified library."""
    pipeline = _check(spec, backend, pipeline_for_spec(backend, spec.model, spec.lattice, spec.method))
    steps = steps_for(pipeline, spec.observables)
    functions = with_called_library_functions(list(dict.fromkeys(step.function for step in steps))) + [plot_results]
    imports = _imports(functions, ["import json", "from typing import Any"])
    blocks = [
        f'"""{pipeline.model} on a {pipeline.lattice} by {pipeline.method} ({backend}): composed by the physvec '
        f'library proposer\nfrom the verified pipeline {pipeline.name}, with no language model."""\n',
        "\n".join(imports) + "\n",
        params_literal(spec.parameters),
        *(inspect.getsource(function) for function in functions),
        _run_function(steps, spec.observables, run_name(spec, pipeline)),
        main_function(run_name(spec, pipeline)),
        MAIN_GUARD,
    ]
    return Proposal(pipeline=pipeline.name, script="\n\n".join(block.rstrip("\n") + "\n" for block in blocks))


def library_proposal(spec: ProposerSpec | None, backend: str) -> Proposal | str:
    """The library proposer's script for this task, or why it cannot write one."""
    if spec is None:
        return f"the task has no spec for the library proposer (the library covers {coverage(backend)} on {backend})"
    try:
        return compose_script(spec, backend)
    except SpecNotCovered as error:
        return str(error)


def library_problem(spec: ProposerSpec | None, backend: str) -> str | None:
    """Why the library proposer cannot write this task's script, or None when it can."""
    proposal = library_proposal(spec, backend)
    return proposal if isinstance(proposal, str) else None
