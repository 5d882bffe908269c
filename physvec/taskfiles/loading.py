"""Loading and validating input files, with every problem reported as file, field and message.

A user fixing a task file wants all its problems at once, named precisely, and no traceback.
Referenced files (paper, rubric, assertions, reference data, domain inputs) must exist and, where
they are ours, be valid too.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, TypeVar

from pydantic import BaseModel, TypeAdapter, ValidationError

from physvec.taskfiles.assertions import Assertion, AssertionFile
from physvec.taskfiles.default_rubric import default_rubric
from physvec.taskfiles.input_files import UnreadableInput, file_problem, parse_json_text, read_input_text
from physvec.taskfiles.library import LibraryError, LibraryFile, Resolver, fill, resolve_list, sample_values
from physvec.taskfiles.physvec_shape import PHYSVEC_KEYS, PhysvecPaperTask
from physvec.taskfiles.upstream_checks import Conversion, convert_task
from physvec.taskfiles.upstream_rubric import is_upstream_rubric, to_rubric_data
from physvec.taskfiles.reference import ReferenceFile, reference_problems
from physvec.taskfiles.rubric import Rubric, RubricNode, rubric_keys
from physvec.taskfiles.task import PAPER_SUFFIXES, Task

FileKind = Literal["task", "rubric", "assertions", "library", "reference"]
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
    rubric_path: Path | None
    """None for a published task loaded with the default rubric (its ``note`` says so)."""
    rubric: Rubric
    assertions_path: Path | None = None
    assertions: AssertionFile | None = None
    reference_path: Path | None = None
    domain_inputs: dict[str, Path] = field(default_factory=dict)


def read_json_object(path: Path) -> dict[str, Any]:
    """The JSON object in ``path``, or an InputFileError naming what is wrong with the file
    (physvec/taskfiles/input_files.py: special files, size, encoding, nesting, non-finite numbers)."""
    try:
        text = read_input_text(path)
    except UnreadableInput as error:
        raise InputFileError([Problem(path, "(file)", _reason(error, path))]) from None
    try:
        data = parse_json_text(text, path)
    except UnreadableInput as error:
        raise InputFileError([Problem(path, "(json)", _reason(error, path))]) from None
    if not isinstance(data, dict):
        raise InputFileError([Problem(path, "(json)", f"top level must be an object, not {type(data).__name__}")])
    return data


def _reason(error: UnreadableInput, path: Path) -> str:
    return str(error).removeprefix(f"{path}: ")


def detect_kind(data: dict[str, Any], path: Path | None = None) -> FileKind | None:
    """Which kind of input file a JSON object is, from its top-level keys; reference data has no keys of
    its own, so it is known by its name (reference*.json), as a task's reference file is by the task."""
    if "sections" in data or is_upstream_rubric(data):
        return "rubric"
    if PHYSVEC_KEYS & data.keys() or {"request", "paper", "backend"} & data.keys():
        return "task"
    if "assertions" in data:
        return "assertions"
    if "templates" in data:
        return "library"
    if path is not None and path.name.startswith("reference"):
        return "reference"
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


def load_library(path: Path) -> LibraryFile:
    """A rubric or assertion library, every template checked to make a valid node or assertion once filled in."""
    library = _validated(LibraryFile, read_json_object(path), path)
    body_model: Any = RubricNode if library.library == "rubric" else TypeAdapter(Assertion)
    problems = []
    for name, template in library.templates.items():
        filled = fill(template.body, sample_values(template))
        for index, item in enumerate(filled if isinstance(filled, list) else [filled]):
            try:
                body_model.validate_python(item) if isinstance(body_model, TypeAdapter) \
                    else body_model.model_validate(item)
            except ValidationError as error:
                problems += [_problem(path, {**detail, "loc": ("templates", name, "body", index, *detail["loc"])})
                             for detail in error.errors()]
    if problems:
        raise InputFileError(problems)
    return library


def _resolved(path: Path, data: dict[str, Any], key: str, kind: Literal["rubric", "assertions"],
              children_key: str | None = None) -> dict[str, Any]:
    """``data`` with the template uses in its list under ``key`` (and, for rubrics, under every node's
    children) replaced by the instantiated templates; problems name the place in ``path``."""
    resolver = Resolver(path, kind, load_library)
    try:
        return {**data, key: resolve_list(data.get(key), key, resolver, children_key)}
    except LibraryError as error:
        raise InputFileError([Problem(path, error.field, str(error))]) from None


def load_rubric(path: Path) -> Rubric:
    """A rubric file with its library sections and leaves filled in, or an upstream rubric tree read as ours."""
    data = read_json_object(path)
    if is_upstream_rubric(data):
        return _validated(Rubric, to_rubric_data(data), path)
    return _validated(Rubric, _resolved(path, data, "sections", "rubric", "children"), path)


def load_assertions(path: Path) -> AssertionFile:
    """An assertion file with its library templates filled in."""
    return _validated(AssertionFile, _resolved(path, read_json_object(path), "assertions", "assertions"), path)


def load_reference(path: Path) -> ReferenceFile:
    """Reference data: named numbers or (nested) lists of finite numbers."""
    data = read_json_object(path)
    problems = reference_problems(data)
    if problems:
        raise InputFileError([Problem(path, location, message) for location, message in problems])
    return ReferenceFile(data)


def parse_upstream(path: Path) -> tuple[PhysvecPaperTask, Conversion]:
    """A file in the published benchmark's shape and its converted checks; InputFileError if it is not one."""
    data = read_json_object(path)
    if not PHYSVEC_KEYS & data.keys():
        raise InputFileError([Problem(path, "(top level)", "not a task in the published benchmark's shape")])
    upstream = _validated(PhysvecPaperTask, data, path)
    return upstream, convert_task(upstream)


def _parse(path: Path) -> tuple[Task, PhysvecPaperTask | None, Conversion | None]:
    """The Task, and for a file in the published benchmark's shape that file and its converted checks."""
    data = read_json_object(path)
    if not PHYSVEC_KEYS & data.keys():
        return _validated(Task, data, path), None, None
    upstream, conversion = parse_upstream(path)
    try:
        task = upstream.to_task(path, list(conversion.convergence))
    except ValidationError as error:
        raise InputFileError([_problem(path, detail) for detail in error.errors()]) from None
    return task, upstream, conversion


def _resolve(reference: str, task_dir: Path, library: str) -> Path | None:
    """Find a referenced file next to the task, or by name in the project's rubrics/ or assertions/."""
    given = Path(reference)
    candidates = [task_dir / given, Path.cwd() / library / given]
    candidates += [candidate.with_name(candidate.name + ".json") for candidate in candidates if not given.suffix]
    return next((candidate.resolve() for candidate in candidates if candidate.is_file()), None)


def _shown(candidate: Path, task_dir: Path) -> str:
    """A searched place, relative to the task folder where it lies near it."""
    try:
        return Path(os.path.relpath(candidate, task_dir)).as_posix()
    except ValueError:
        return str(candidate)


def _default_rubric(path: Path, task: Task) -> Rubric:
    """The default rubric of a published task whose rubric upstream never released (taskfiles/default_rubric.py)."""
    data = default_rubric(task.target.figure, task.backend)
    return _validated(Rubric, _resolved(path, data, "sections", "rubric", "children"), path)


def load_task(path: Path) -> LoadedTask:
    """Load a task and everything it references; raise InputFileError listing every problem."""
    path = Path(path).resolve()
    task, upstream, conversion = _parse(path)
    task_dir = path.parent
    problems: list[Problem] = []

    def existing(field_name: str, reference: str, library: str = "", searched: list[Path] | None = None) -> Path | None:
        found = _resolve(reference, task_dir, library) if library else (task_dir / reference).resolve()
        if found is None or not found.is_file():
            where = f" (looked next to the task and in {library}/)" if library else ""
            if searched:
                name = searched[0].name if field_name == "rubric" else Path(reference).name
                where = " (looked in " + ", ".join(_shown(candidate, task_dir) for candidate in searched) + ")"
                reference = name
            problems.append(Problem(path, field_name, f"referenced file {reference!r} does not exist{where}"))
            return None
        refused = file_problem(found)
        if refused is not None:
            problems.append(Problem(path, field_name, f"referenced file {reference!r} is {refused}"))
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

    paper = existing("paper.path", task.paper.path,
                     searched=upstream.paper_candidates(task_dir)[:len(PAPER_SUFFIXES)] if upstream else None)
    unpublished = upstream is not None and not any(c.is_file() for c in upstream.rubric_candidates(task_dir))
    rubric_path = None if unpublished else existing("rubric", task.rubric, "rubrics",
                                                    searched=upstream.rubric_candidates(task_dir) if upstream else None)
    rubric = loaded(lambda file: _default_rubric(file, task), path) if unpublished else loaded(load_rubric, rubric_path)
    assertions_path = existing("assertions", task.assertions, "assertions") if task.assertions else None
    assertions = loaded(load_assertions, assertions_path)
    if conversion is not None and conversion.assertions:
        assertions = AssertionFile(task=task.id, assertions=list(conversion.assertions))
    if upstream is not None and conversion is not None:
        interface = conversion.interface(rubric_keys(rubric) if rubric is not None else set())
        task = task.model_copy(update={"request": task.request + f"\n\n{interface}"}) if interface else task
    reference_path = existing("reference.path", task.reference.path) if task.reference else None
    reference = loaded(load_reference, reference_path)
    if reference is not None and task.reference is not None:
        problems.extend(Problem(path, "reference", f"{reference_path.name} has no value at {key!r}")
                        for key in reference.missing([key for _, key in task.reference.compared()]))
    domain_inputs = {
        check.checker: existing(f"domain_checks.{index}.input", check.input)
        for index, check in enumerate(task.domain_checks)
    }
    if problems:
        raise InputFileError(problems)
    assert paper is not None and rubric is not None
    return LoadedTask(
        task=task, path=path, paper=paper, rubric_path=rubric_path, rubric=rubric,
        assertions_path=assertions_path, assertions=assertions, reference_path=reference_path,
        domain_inputs={name: file for name, file in domain_inputs.items() if file is not None},
    )


LOADERS: dict[str, Any] = {"task": load_task, "rubric": load_rubric, "assertions": load_assertions,
                           "library": load_library, "reference": load_reference}
"""The loader of each core file kind; every one raises InputFileError listing the file's problems."""


def validate_file(path: Path, kind: FileKind | None = None) -> list[Problem]:
    """Every problem with one core input file (task, rubric, assertions, library, reference data); an empty
    list when it is valid.  ``kind`` overrides the detection from the file's keys and name."""
    path = Path(path)
    try:
        kind = kind or detect_kind(read_json_object(path), path)
        if kind is None:
            return [Problem(path, "(top level)", "cannot tell the file kind: expected a task (request/paper/backend), "
                            "a rubric (sections), an assertion file (assertions), a library (templates) or "
                            "reference data (a file named reference*.json)")]
        LOADERS[kind](path)
    except InputFileError as error:
        return error.problems
    except Exception as error:  # a loader bug must still reach the user as a named problem, never a traceback
        return [Problem(path, "(file)", f"could not be loaded ({type(error).__name__}: {error})")]
    return []
