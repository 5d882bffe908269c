"""Task mistakes a library pipeline can see before any run: a spec the pipeline does not match, and checks
(assertions, convergence ladders, the reference) that name a run function, parameter or observable the
composed script will not have.

Such a mistake would otherwise surface as a failed obligation of the *script* (exit 1), and with a model the
repair budget would be spent on the user's typo.  Only a spec the library covers is checked: for any other
task the script is the model's, and its run functions and parameters are not known before it is written.
"""

from __future__ import annotations

from dataclasses import dataclass

from physvec.taskfiles.assertions import Assertion, AssertionFile
from physvec.taskfiles.task import ProposerSpec, Task
from physvec.verifiers.library import BackgroundPipeline, pipeline_for_spec
from physvec.verifiers.library.composer import pipeline_problems, run_name


@dataclass(frozen=True)
class TaskMistake:
    """One mistake: the file it is in ("task" or "assertions"), the field, and what is wrong."""

    file: str
    field: str
    message: str


def task_mistakes(task: Task, assertions: AssertionFile | None) -> list[TaskMistake]:
    """Every mistake the library pipeline of the task's spec can see (none when no pipeline covers it)."""
    spec = task.spec
    pipeline = pipeline_for_spec(task.backend, spec.model, spec.lattice, spec.method) if spec is not None else None
    if spec is None or pipeline is None:
        return []
    mistakes = [TaskMistake("task", "spec", problem) for problem in pipeline_problems(spec, pipeline)]
    mistakes += _convergence_mistakes(task, spec, pipeline)
    if task.reference is not None:
        mistakes += [TaskMistake("task", "reference.observable" if name == task.reference.observable
                                 else "reference.also", message)
                     for name, _ in task.reference.compared()
                     if (message := _observable_problem(name, spec)) is not None]
    for index, assertion in enumerate(assertions.assertions if assertions is not None else []):
        mistakes += [TaskMistake("assertions", f"assertions.{index}.{field}", message)
                     for field, message in _assertion_mistakes(assertion, spec, pipeline)]
    return mistakes


def _observable_problem(path: str, spec: ProposerSpec) -> str | None:
    """Why the composed script's results have no ``path`` (a dotted key path), or None."""
    head = path.split(".", 1)[0]
    if head in spec.observables:
        return None
    return f"{path!r}: the composed script returns only {', '.join(spec.observables)} (spec.observables)"


def _run_problem(run: str | None, spec: ProposerSpec, pipeline: BackgroundPipeline) -> str | None:
    defined = run_name(spec, pipeline)
    if run is None or run == defined:
        return None
    return f"{run!r}: the composed script defines {defined!r} (set spec.run to name it otherwise)"


def _parameter_problems(names: list[str], spec: ProposerSpec) -> list[str]:
    return [f"{name!r} is not a parameter of the spec (it has {', '.join(spec.parameters)})"
            for name in names if name not in spec.parameters]


def _convergence_mistakes(task: Task, spec: ProposerSpec, pipeline: BackgroundPipeline) -> list[TaskMistake]:
    mistakes = []
    for index, case in enumerate(task.convergence.cases):
        where = f"convergence.cases.{index}"
        mistakes += [TaskMistake("task", f"{where}.parameter", message)
                     for message in _parameter_problems([case.parameter], spec)]
        if (message := _run_problem(case.run, spec, pipeline)) is not None:
            mistakes.append(TaskMistake("task", f"{where}.run", message))
        if (message := _observable_problem(case.observable, spec)) is not None:
            mistakes.append(TaskMistake("task", f"{where}.observable", message))
    return mistakes


def _assertion_mistakes(assertion: Assertion, spec: ProposerSpec, pipeline: BackgroundPipeline) -> list[tuple[str, str]]:
    found = []
    if (message := _run_problem(assertion.run, spec, pipeline)) is not None:
        found.append(("run", message))
    for field in ("overrides", "overrides_a", "overrides_b"):
        found += [(field, message) for message in _parameter_problems(list(getattr(assertion, field, {})), spec)]
    if assertion.adapter is None and (message := _observable_problem(assertion.observable, spec)) is not None:
        found.append(("observable", message))  # an adapter returns its own observable
    return found
