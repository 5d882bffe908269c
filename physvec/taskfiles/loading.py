"""Loading and validating input files, with every problem reported as file, field and message.

A user fixing a task file wants all its problems at once, named precisely, and no traceback.
Referenced files (paper, rubric, assertions, reference data, domain inputs) must exist and, where
they are ours, be valid too.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, ValidationError

from physvec.taskfiles.assertions import AssertionFile
from physvec.taskfiles.physvec_shape import PHYSVEC_KEYS, PhysvecPaperTask
from physvec.taskfiles.rubric import Rubric
from physvec.taskfiles.task import Task

FileKind = Literal["task", "rubric", "assertions"]
ModelT = TypeVar("ModelT", bound=BaseModel)


@dataclass(frozen=True)
class Problem:
    """One thing wrong with one input file."""

    file: Path
    field: str
    message: str

    def __str__(self) -> str:
        return f"{self.file}: {self.field}: {self.message}"


class InputFileError(Exception):
    """Input files are missing or invalid; ``problems`` lists every problem found."""

    def __init__(self, problems: list[Problem]) -> None:
        super().__init__("\n".join(str(problem) for problem in problems))
        self.problems = problems


@dataclass(frozen=True)
class LoadedTask:
    """A validated task with its referenced files resolved to absolute paths and loaded."""

    task: Task
    path: Path
    paper: Path
    rubric_path: Path
    rubric: Rubric
    assertions_path: Path | None = None
    assertions: AssertionFile | None = None
    reference_path: Path | None = None
    domain_inputs: dict[str, Path] = field(default_factory=dict)


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, or an InputFileError naming what is wrong with the file."""
    if not path.is_file():
        raise InputFileError([Problem(path, "(file)", "no such file")])
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputFileError([Problem(path, "(file)", "not UTF-8 text")]) from None
    except json.JSONDecodeError as error:
        raise InputFileError(
            [Problem(path, "(json)", f"line {error.lineno} column {error.colno}: {error.msg}")]
        ) from None
    if not isinstance(data, dict):
        raise InputFileError([Problem(path, "(json)", f"top level must be an object, not {type(data).__name__}")])
    return data


def detect_kind(data: dict[str, Any]) -> FileKind | None:
    """Which kind of input file a JSON object is, from its top-level keys."""
    if "sections" in data:
        return "rubric"
    if PHYSVEC_KEYS & data.keys() or {"request", "paper", "backend"} & data.keys():
        return "task"
    if "assertions" in data:
        return "assertions"
    return None


def _validated(model: type[ModelT], data: dict[str, Any], path: Path) -> ModelT:
    try:
        return model.model_validate(data)
    except ValidationError as error:
        raise InputFileError([_problem(path, detail) for detail in error.errors()]) from None


def _problem(path: Path, detail: Any) -> Problem:
    location = ".".join(str(part) for part in detail["loc"]) or "(top level)"
    message = detail["msg"]
    if detail["type"] == "extra_forbidden":
        message = "unknown key (misspelled or not part of this file kind)"
    return Problem(path, location, message)


def load_rubric(path: Path) -> Rubric:
    return _validated(Rubric, read_json_object(path), path)


def load_assertions(path: Path) -> AssertionFile:
    return _validated(AssertionFile, read_json_object(path), path)


def parse_task(path: Path) -> Task:
    """The Task in ``path``, in our shape or the PhysVEC paper's, without checking referenced files."""
    data = read_json_object(path)
    if PHYSVEC_KEYS & data.keys():
        return _validated(PhysvecPaperTask, data, path).to_task(default_id=path.stem)
    return _validated(Task, data, path)


def _resolve(reference: str, task_dir: Path, library: str) -> Path | None:
    """Find a referenced file next to the task, or by name in the project's rubrics/ or assertions/."""
    given = Path(reference)
    candidates = [task_dir / given, Path.cwd() / library / given]
    candidates += [candidate.with_name(candidate.name + ".json") for candidate in candidates if not given.suffix]
    return next((candidate.resolve() for candidate in candidates if candidate.is_file()), None)


def load_task(path: Path) -> LoadedTask:
    """Load a task and everything it references; raise InputFileError listing every problem."""
    path = Path(path).resolve()
    task = parse_task(path)
    task_dir = path.parent
    problems: list[Problem] = []

    def existing(field_name: str, reference: str, library: str = "") -> Path | None:
        found = _resolve(reference, task_dir, library) if library else (task_dir / reference).resolve()
        if found is None or not found.is_file():
            where = f" (looked next to the task and in {library}/)" if library else ""
            problems.append(Problem(path, field_name, f"referenced file {reference!r} does not exist{where}"))
            return None
        return found

    def loaded(loader: Any, file: Path | None) -> Any:
        if file is None:
            return None
        try:
            return loader(file)
        except InputFileError as error:
            problems.extend(error.problems)
            return None

    paper = existing("paper.path", task.paper.path)
    rubric_path = existing("rubric", task.rubric, "rubrics")
    rubric = loaded(load_rubric, rubric_path)
    assertions_path = existing("assertions", task.assertions, "assertions") if task.assertions else None
    assertions = loaded(load_assertions, assertions_path)
    reference_path = existing("reference.path", task.reference.path) if task.reference else None
    if reference_path is not None:
        loaded(read_json_object, reference_path)
    domain_inputs = {
        check.checker: existing(f"domain_checks.{index}.input", check.input)
        for index, check in enumerate(task.domain_checks)
    }
    if problems:
        raise InputFileError(problems)
    assert paper is not None and rubric_path is not None and rubric is not None
    return LoadedTask(
        task=task, path=path, paper=paper, rubric_path=rubric_path, rubric=rubric,
        assertions_path=assertions_path, assertions=assertions, reference_path=reference_path,
        domain_inputs={name: file for name, file in domain_inputs.items() if file is not None},
    )


def validate_file(path: Path) -> list[Problem]:
    """Every problem with one input file of any kind (an empty list when it is valid)."""
    path = Path(path)
    try:
        data = read_json_object(path)
        kind = detect_kind(data)
        if kind is None:
            return [Problem(path, "(top level)", "cannot tell the file kind: expected a task "
                            "(request/paper/backend), a rubric (sections) or an assertion file (assertions)")]
        if kind == "task":
            load_task(path)
        elif kind == "rubric":
            load_rubric(path)
        else:
            load_assertions(path)
    except InputFileError as error:
        return error.problems
    return []
