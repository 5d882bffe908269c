"""Dotted key paths into nested results (``energies.ground`` or ``densities.0``)."""

from __future__ import annotations

from typing import Any


class KeyPathError(LookupError):
    """The key path does not lead to a value."""


def lookup(data: Any, key_path: str) -> Any:
    """The value at ``key_path``; list items are addressed by integer parts."""
    value = data
    for part in key_path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.lstrip("-").isdigit() and -len(value) <= int(part) < len(value):
            value = value[int(part)]
        else:
            raise KeyPathError(f"no value at {key_path!r} (missing {part!r})")
    return value
