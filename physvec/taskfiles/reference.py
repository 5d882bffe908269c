"""Reference data files: named numbers (or nested lists of numbers) a reproduction is compared with.

The comparison itself is the Scientific verifier's; here a file is checked before any run, so a
quoted number, a stray ``null`` or a ragged table is reported with its place instead of surfacing as
a failed comparison after an hour of physics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from physvec.taskfiles.keypaths import KeyPathError, lookup


@dataclass(frozen=True)
class ReferenceFile:
    """Validated reference data."""

    data: dict[str, Any]

    def missing(self, key_paths: list[str]) -> list[str]:
        """The key paths that lead to no value in the file."""
        missing = []
        for key_path in key_paths:
            try:
                lookup(self.data, key_path)
            except KeyPathError:
                missing.append(key_path)
        return missing


def reference_problems(data: dict[str, Any]) -> list[tuple[str, str]]:
    """(location, message) of every value that is not a finite number, a rectangular list of them, or an
    object of such; an empty list for valid reference data."""
    if not data:
        return [("(top level)", "reference data must name at least one value")]
    return [problem for key, value in data.items() for problem in _value_problems(value, str(key))]


def _value_problems(value: Any, location: str) -> list[tuple[str, str]]:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return [(location, f"must be a number or a list of numbers, not {value!r}")]
    if isinstance(value, (int, float)):
        return [] if math.isfinite(value) else [(location, "must be finite")]
    if isinstance(value, dict):
        return [problem for key, item in value.items() for problem in _value_problems(item, f"{location}.{key}")]
    if isinstance(value, list):
        if not value:
            return [(location, "must not be an empty list")]
        problems = [problem for index, item in enumerate(value) for problem in _value_problems(item, f"{location}.{index}")]
        if not problems and len({_shape(item) for item in value}) > 1:
            problems.append((location, "rows of different lengths (a table must be rectangular)"))
        return problems
    return [(location, f"must be a number or a list of numbers, not {type(value).__name__}")]


def _shape(value: Any) -> tuple[int, ...]:
    return (len(value), *_shape(value[0])) if isinstance(value, list) and value else ()
