"""Numbers in results: reading them as float arrays, and finding NaN and infinity among them."""

from __future__ import annotations

from typing import Any

import numpy as np


def non_finite_paths(value: Any, path: str = "value") -> list[str]:
    """Where ``value`` holds NaN or infinity, as paths like ``value['e'][1]`` (at most 10,000 items a list)."""
    if isinstance(value, (float, complex, np.floating, np.complexfloating)):
        return [] if np.isfinite(value) else [path]
    if isinstance(value, np.ndarray) and np.issubdtype(value.dtype, np.number):
        return [] if np.all(np.isfinite(value)) else [path]
    if isinstance(value, (list, tuple)):
        return [bad for i, item in enumerate(value[:10_000]) for bad in non_finite_paths(item, f"{path}[{i}]")]
    if isinstance(value, dict):
        return [bad for key, item in value.items() for bad in non_finite_paths(item, f"{path}[{key!r}]")]
    return []


def as_float_array(value: Any) -> np.ndarray | None:
    """``value`` as a float array, or None when it is not numeric (strings, ragged lists, dicts)."""
    try:
        return np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        return None
