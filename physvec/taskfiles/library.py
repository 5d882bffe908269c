"""Rubric and assertion libraries: named, parameterised templates that task files instantiate.

A library file (``rubrics/*.json`` or ``assertions/*.json``) holds templates, each with typed
parameters and a body in which ``${name}`` stands for a parameter.  Where a rubric node or an
assertion goes, a task's file may write ``{"use": "assertions/symmetries.json#reflection", "with":
{...}}``; code replaces it at load time by the body with the parameters filled in, so what is
validated, run and stored in a run's ``inputs/`` is the resolved file and a run never needs the
library again.  A missing template, a missing or unknown parameter and a parameter of the wrong type
are input errors that name the place in the task's file.

References are looked up next to the file that uses them, then under the working directory (a
user's own ``rubrics/`` and ``assertions/``), then in the library installed with physvec.
"""

from __future__ import annotations

import importlib.resources
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, model_validator

from physvec.taskfiles.base import StrictModel
from physvec.taskfiles.rubric import parse_check

LibraryKind = Literal["rubric", "assertions"]
ParameterType = Literal["number", "integer", "string", "boolean", "identifier", "run_function", "key_path",
                        "number_list", "numeric", "comparison", "object"]
INSTALLED_LIBRARIES: dict[str, str] = {"rubrics": "physvec.rubrics", "assertions": "physvec.assertions"}
"""The first folder of a reference that names a library installed with physvec, and its package."""
PLACEHOLDER = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_IDENTIFIER = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_KEY_PATH = re.compile(r"^[A-Za-z0-9_]+(\.[A-Za-z0-9_]+)*$")


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def _is_comparison(value: Any) -> bool:
    try:
        return isinstance(value, str) and parse_check(value) is not None
    except ValueError:
        return False


def _is_numeric(value: Any) -> bool:
    """A number, or a non-empty (nested) list of numbers: an expected value of any shape."""
    return _is_number(value) or (isinstance(value, list) and bool(value) and all(map(_is_numeric, value)))


_TYPE_CHECKS: dict[str, Callable[[Any], bool]] = {
    "number": _is_number,
    "integer": lambda value: isinstance(value, int) and not isinstance(value, bool),
    "string": lambda value: isinstance(value, str) and bool(value),
    "boolean": lambda value: isinstance(value, bool),
    "identifier": lambda value: isinstance(value, str) and bool(_IDENTIFIER.match(value)),
    "run_function": lambda value: isinstance(value, str) and bool(re.match(r"^run_[A-Za-z0-9_]+$", value)),
    "key_path": lambda value: isinstance(value, str) and bool(_KEY_PATH.match(value)),
    "number_list": lambda value: isinstance(value, list) and bool(value) and all(map(_is_number, value)),
    "numeric": _is_numeric,
    "comparison": _is_comparison,
    "object": lambda value: isinstance(value, dict),
}
_TYPE_WORDS = {
    "number": "a number", "integer": "an integer", "string": "a non-empty string", "boolean": "true or false",
    "identifier": "a name such as chi_max", "run_function": "a run_ function name such as run_energy",
    "key_path": "a key path such as energies.0", "number_list": "a non-empty list of numbers",
    "numeric": "a number or a list of numbers", "comparison": "a comparison such as 'U < 0'",
    "object": "an object",
}
_SAMPLES: dict[str, Any] = {
    "number": 1.0, "integer": 1, "string": "text", "boolean": True, "identifier": "x", "run_function": "run_x",
    "key_path": "x", "number_list": [1.0], "numeric": 1.0, "comparison": "x == 1",
    "object": {},
}
"""Stand-in values of each type, used to check that a template's body is valid once filled in."""


class TemplateParameter(StrictModel):
    """One parameter of a template: its type, what it means, and optionally a default."""

    type: ParameterType
    description: str = Field(min_length=1)
    default: Any = None

    @property
    def required(self) -> bool:
        return "default" not in self.model_fields_set

    @model_validator(mode="after")
    def _default_has_the_type(self) -> TemplateParameter:
        if not self.required and not _TYPE_CHECKS[self.type](self.default):
            raise ValueError(f"default {self.default!r} is not {_TYPE_WORDS[self.type]}")
        return self


class Template(StrictModel):
    """A reusable body (rubric nodes or one assertion) with the parameters it is written in."""

    description: str = Field(min_length=1)
    parameters: dict[str, TemplateParameter] = Field(default_factory=dict)
    body: dict[str, Any] | list[dict[str, Any]]

    @model_validator(mode="after")
    def _placeholders_are_parameters(self) -> Template:
        used = placeholders(self.body)
        undeclared = sorted(used - self.parameters.keys())
        if undeclared:
            raise ValueError(f"body uses undeclared parameter(s) {', '.join(undeclared)}")
        unused = sorted(self.parameters.keys() - used)
        if unused:
            raise ValueError(f"parameter(s) {', '.join(unused)} are declared but never used in the body")
        if _uses(self.body):
            raise ValueError("a template body cannot itself use templates")
        return self


class LibraryFile(StrictModel):
    """A file of templates for rubrics or for assertions."""

    library: LibraryKind
    description: str = Field(min_length=1)
    templates: dict[str, Template] = Field(min_length=1)


class LibraryError(ValueError):
    """A template reference cannot be resolved; ``field`` says where in the using file."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


@dataclass(frozen=True)
class TemplateUse:
    """One ``{"use": ..., "with": ...}`` object found in a task's rubric or assertion file."""

    reference: str
    values: dict[str, Any]


def placeholders(value: Any) -> set[str]:
    """The parameter names written as ``${name}`` anywhere in a JSON value, keys included."""
    if isinstance(value, str):
        return set(PLACEHOLDER.findall(value))
    if isinstance(value, list):
        return set().union(*map(placeholders, value)) if value else set()
    if isinstance(value, dict):
        return set().union(*(placeholders(key) | placeholders(item) for key, item in value.items())) \
            if value else set()
    return set()


def fill(value: Any, values: dict[str, Any]) -> Any:
    """``value`` with every ``${name}`` replaced: a string that is only a placeholder takes the parameter's
    value with its type (a number stays a number); a placeholder inside text is written into the text."""
    if isinstance(value, str):
        whole = PLACEHOLDER.fullmatch(value)
        if whole:
            return values[whole.group(1)]
        return PLACEHOLDER.sub(lambda match: _as_text(values[match.group(1)]), value)
    if isinstance(value, list):
        return [fill(item, values) for item in value]
    if isinstance(value, dict):
        return {str(fill(key, values)): fill(item, values) for key, item in value.items()}
    return value


def _as_text(value: Any) -> str:
    return repr(value) if isinstance(value, float) else str(value)


def _uses(value: Any) -> bool:
    if isinstance(value, dict):
        return "use" in value or any(_uses(item) for item in value.values())
    if isinstance(value, list):
        return any(_uses(item) for item in value)
    return False


def template_use(value: Any, field: str) -> TemplateUse | None:
    """The template use that ``value`` is, or None when it is an ordinary node or assertion."""
    if not isinstance(value, dict) or "use" not in value:
        return None
    extra = sorted(value.keys() - {"use", "with"})
    if extra:
        raise LibraryError(field, f"a template use has only 'use' and 'with', not {', '.join(extra)}")
    reference, values = value["use"], value.get("with", {})
    if not isinstance(reference, str) or "#" not in reference:
        raise LibraryError(f"{field}.use", "must be 'FILE#TEMPLATE', e.g. 'assertions/symmetries.json#reflection'")
    if not isinstance(values, dict):
        raise LibraryError(f"{field}.with", "must be an object of parameter values")
    return TemplateUse(reference, values)


def library_folder(name: str) -> Path | None:
    """The installed library folder for ``rubrics`` or ``assertions`` (None for other names)."""
    package = INSTALLED_LIBRARIES.get(name)
    return Path(str(importlib.resources.files(package))) if package else None


def library_files(name: str) -> list[Path]:
    """The library files a user can use for ``rubrics`` or ``assertions``: the installed ones and, where the
    working directory has a folder of that name, the user's own."""
    folders = [folder for folder in (library_folder(name), Path.cwd() / name) if folder is not None and folder.is_dir()]
    unique = list(dict.fromkeys(folder.resolve() for folder in folders))
    return [path for folder in unique for path in sorted(folder.glob("*.json"))]


def find_library_file(reference_path: str, using_file: Path) -> Path | None:
    """The library file a reference names: next to the using file, under the working directory, or installed."""
    relative = Path(reference_path)
    candidates = [using_file.parent / relative, Path.cwd() / relative]
    installed = library_folder(relative.parts[0]) if len(relative.parts) > 1 else None
    if installed is not None:
        candidates.append(installed.joinpath(*relative.parts[1:]))
    return next((candidate.resolve() for candidate in candidates if candidate.is_file()), None)


class Resolver:
    """Resolves template uses for one using file, reading each library file once."""

    def __init__(self, using_file: Path, kind: LibraryKind,
                 read_library: Callable[[Path], LibraryFile]) -> None:
        self.using_file = using_file
        self.kind = kind
        self._read_library = read_library
        self._libraries: dict[Path, LibraryFile] = {}

    def template(self, use: TemplateUse, field: str = "use") -> Template:
        """The template a use names, from a library file of this resolver's kind."""
        file_part, _, name = use.reference.partition("#")
        path = find_library_file(file_part, self.using_file)
        if path is None:
            raise LibraryError(f"{field}.use", f"no library file {file_part!r} (looked next to {self.using_file.name}, "
                                               "in the working directory and in the installed library)")
        library = self._libraries.get(path) or self._libraries.setdefault(path, self._read_library(path))
        if library.library != self.kind:
            raise LibraryError(f"{field}.use", f"{file_part} is a {library.library} library, not a {self.kind} one")
        template = library.templates.get(name)
        if template is None:
            raise LibraryError(f"{field}.use", f"no template {name!r} in {file_part} "
                                               f"(it has: {', '.join(sorted(library.templates))})")
        return template

    def instantiate(self, use: TemplateUse, field: str) -> list[Any]:
        """The body of the used template with its parameters filled in, as a list of items to splice."""
        template = self.template(use, field)
        values = _checked_values(template, use.values, f"{field}.with", use.reference)
        body = fill(template.body, values)
        return body if isinstance(body, list) else [body]


def _checked_values(template: Template, given: dict[str, Any], field: str, reference: str) -> dict[str, Any]:
    unknown = sorted(given.keys() - template.parameters.keys())
    if unknown:
        raise LibraryError(f"{field}.{unknown[0]}", f"unknown parameter of {reference} "
                                                    f"(it takes: {', '.join(sorted(template.parameters))})")
    values: dict[str, Any] = {}
    for name, parameter in template.parameters.items():
        if name not in given:
            if parameter.required:
                raise LibraryError(f"{field}", f"missing parameter {name!r} of {reference}: "
                                               f"{parameter.description}")
            values[name] = parameter.default
        elif not _TYPE_CHECKS[parameter.type](given[name]):
            raise LibraryError(f"{field}.{name}", f"must be {_TYPE_WORDS[parameter.type]}, got {given[name]!r}")
        else:
            values[name] = given[name]
    return values


def sample_values(template: Template) -> dict[str, Any]:
    """Values to check a template's body with: its default for a parameter that names something (a kind, a key),
    a stand-in of the type for the rest; numbers are always stand-ins, because a default tolerance of zero is
    valid on its own and only the use decides which tolerance is set."""
    numeric = {"number", "integer", "numeric", "number_list"}
    return {name: _SAMPLES[parameter.type] if parameter.required or parameter.type in numeric else parameter.default
            for name, parameter in template.parameters.items()}


def resolve_list(items: Any, field: str, resolver: Resolver, children_key: str | None = None) -> Any:
    """``items`` with every template use replaced by its instantiated body; with ``children_key``, the
    lists under that key of each item are resolved too (rubric trees)."""
    if not isinstance(items, list):
        return items
    resolved: list[Any] = []
    for index, item in enumerate(items):
        place = f"{field}.{index}"
        use = template_use(item, place)
        for entry in resolver.instantiate(use, place) if use else [item]:
            if children_key and isinstance(entry, dict) and children_key in entry:
                entry = {**entry, children_key: resolve_list(entry[children_key], f"{place}.{children_key}",
                                                             resolver, children_key)}
            resolved.append(entry)
    return resolved
