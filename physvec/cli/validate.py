"""``physvec validate``: every input file a user writes, recognised and validated in one place.

The task files' own kinds (task, rubric, assertions, library, reference data) are checked by the
core's loaders; DualityCert claims and theories and PHACT goals, designs and domain-check files by
their checkers' parsers; scripted replies by the provider that serves them.  A task is valid only
when the domain-check inputs it names are valid for their checker too, so a typo in a claim is found
before a run, not in its last node.  A file's form is checked here; whether a design keeps its
goal's contract is the engine's verdict (``phact certify``), not an input error.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from physvec.taskfiles.loading import (
    LOADERS, InputFileError, LoadedTask, Problem, detect_kind, load_task, read_json_object,
)

CHECKER_KINDS = ("dualitycert-claim", "dualitycert-theory", "phact-goal", "phact-design", "phact-check",
                 "matpcr-claims", "replies")
KINDS = (*LOADERS, *CHECKER_KINDS)
"""Every kind ``physvec validate --kind`` accepts."""


def detect_input_kind(data: dict[str, Any], path: Path) -> str | None:
    """The kind of an input file from its keys (and, for reference data, its name)."""
    keys = data.keys()
    if "replies" in keys:
        return "replies"
    if {"theory_a", "theory_b"} & keys:
        return "dualitycert-claim"
    if {"node_labels", "ranks", "arrows"} & keys:
        return "dualitycert-theory"
    if {"goal", "design"} <= keys:
        return "phact-check"
    if {"goal", "values"} <= keys:
        return "phact-design"
    if {"domain", "targets"} <= keys:
        return "phact-goal"
    if "item" in keys and {"claims", "reasoning"} & keys:
        return "matpcr-claims"
    return detect_kind(data, path)


def _split(path: Path, text: str) -> Problem:
    """A checker's 'field: message' line as a Problem."""
    field, separator, message = text.partition(": ")
    return Problem(path, field, message) if separator and " " not in field else Problem(path, "(file)", text)


def _checked(path: Path, check: Callable[[Path], list[Problem]]) -> list[Problem]:
    """Problems of a file ``check`` reads, every one it names; any other failure is a named problem too."""
    try:
        return check(path)
    except InputFileError as error:
        return error.problems
    except Exception as error:  # a checker bug must still reach the user as a named problem, never a traceback
        return [Problem(path, "(file)", f"could not be loaded ({type(error).__name__}: {error})")]


def _as_checker(load: Callable[[Path], Any]) -> Callable[[Path], list[Problem]]:
    """A core loader (it raises InputFileError naming every problem) as a checker."""
    def check(path: Path) -> list[Problem]:
        load(path)
        return []
    return check


# Each checker is imported only when a file of its kind is checked, so validating a task loads no engine.

def _dualitycert(path: Path, parse: Callable[[dict[str, Any]], Any]) -> list[Problem]:
    from physvec.verifiers.dualitycert.theory import MalformedTheory

    try:
        parse(read_json_object(path))
    except MalformedTheory as error:
        return [_split(path, problem) for problem in error.problems]
    return []


def _dualitycert_claim(path: Path) -> list[Problem]:
    from physvec.verifiers.dualitycert.theory import parse_claim

    return _dualitycert(path, parse_claim)


def _dualitycert_theory(path: Path) -> list[Problem]:
    from physvec.verifiers.dualitycert.theory import parse_theory

    return _dualitycert(path, parse_theory)


def _phact(path: Path, read: Callable[[Path], Any]) -> list[Problem]:
    from physvec.verifiers.phact.schema import MalformedInput

    try:
        read(path)
    except MalformedInput as error:
        return [_split(path, problem) for problem in str(error).split("; ")]
    return []


def _phact_goal(path: Path) -> list[Problem]:
    from physvec.verifiers.phact.schema import parse_goal

    return _phact(path, lambda file: parse_goal(read_json_object(file)))


def _phact_design(path: Path) -> list[Problem]:
    from physvec.verifiers.phact.schema import parse_design

    return _phact(path, lambda file: parse_design(read_json_object(file)))


def _phact_check(path: Path) -> list[Problem]:
    from physvec.verifiers.domain import read_phact_check

    return _phact(path, read_phact_check)


def _matpcr_claims(path: Path) -> list[Problem]:
    from physvec.verifiers.matpcr.schema import MalformedInput, parse_claims_file

    try:
        parse_claims_file(read_json_object(path))
    except MalformedInput as error:
        return [_split(path, problem) for problem in str(error).split("; ")]
    return []


def _replies(path: Path) -> list[Problem]:
    from physvec.agents.providers import ModelSpecError, scripted_replies

    try:
        scripted_replies(path)
    except ModelSpecError as error:
        return [_split(path, f"replies: {error}")]
    return []


CHECKERS: dict[str, Callable[[Path], list[Problem]]] = {
    "dualitycert-claim": _dualitycert_claim,
    "dualitycert-theory": _dualitycert_theory,
    "phact-goal": _phact_goal,
    "phact-design": _phact_design,
    "phact-check": _phact_check,
    "matpcr-claims": _matpcr_claims,
    "replies": _replies,
}
DOMAIN_INPUT_KINDS = {"dualitycert": "dualitycert-claim", "phact": "phact-check", "matpcr": "matpcr-claims"}
"""The kind of input file each domain checker named by a task reads."""


def validate_input_file(path: Path, kind: str | None = None) -> list[Problem]:
    """Every problem with one input file of any kind (an empty list when it is valid).

    Args:
        path: the file.
        kind: one of ``KINDS``, to override the detection from the file's keys and name.
    """
    path = Path(path)
    try:
        kind = kind or detect_input_kind(read_json_object(path), path)
    except InputFileError as error:
        return error.problems
    if kind is None:
        return [Problem(path, "(top level)", "cannot tell the file kind: expected a task (request/paper/backend), "
                        "a rubric (sections), an assertion file (assertions), a library (templates), reference "
                        "data (a file named reference*.json), a DualityCert claim (theory_a, theory_b) or theory "
                        "(node_labels, ranks, arrows), or a PHACT goal (domain, targets), design (goal, values) or "
                        "domain-check file (goal, design), or a MatPCR claims file (item with claims or reasoning)")]
    if kind in CHECKERS:
        return _checked(path, CHECKERS[kind])
    problems = _checked(path, _as_checker(LOADERS[kind]))
    if kind == "task" and not problems:
        loaded = load_task(path)
        problems = _domain_input_problems(loaded) + library_problems(loaded)
    return problems


def _domain_input_problems(loaded: LoadedTask) -> list[Problem]:
    """Problems of the domain-check inputs a (valid) task names, each for its checker."""
    return [problem for checker, file in loaded.domain_inputs.items() if checker in DOMAIN_INPUT_KINDS
            for problem in _checked(file, CHECKERS[DOMAIN_INPUT_KINDS[checker]])]


def library_problems(loaded: LoadedTask) -> list[Problem]:
    """Mistakes of a (valid) task that the library pipeline of its spec can see: a spec that does not match it,
    and checks naming a run function, parameter or observable its composed script will not have."""
    if loaded.task.spec is None:  # only a spec names a library pipeline; the library loads only then
        return []
    from physvec.verifiers.library.task_checks import task_mistakes

    files = {"task": loaded.path, "assertions": loaded.assertions_path or loaded.path}
    return [Problem(files[mistake.file], mistake.field, mistake.message)
            for mistake in task_mistakes(loaded.task, loaded.assertions)]
