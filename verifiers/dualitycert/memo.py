"""Per-theory memory: what a check derives from one theory, computed once and kept for the claims after it.

Why: a repair loop checks one electric theory A against proposal after proposal, a fixture set pairs A with
every wrong dual of it, and the final judge reads at L = 5 what the loop read at L = 3.  Everything kept is
a pure function of immutable inputs (theories hash and compare by their canonical JSON, theory.py), so a
kept answer is the answer.  Every store registers here, so that a benchmark can start cold (``clear``) and
say what a first claim costs.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, TypeVar

Function = TypeVar("Function", bound=Callable[..., Any])

_STORES: list[Any] = []


def per_theory(maxsize: int) -> Callable[[Function], Function]:
    """functools.lru_cache of ``maxsize`` entries, registered for ``clear``."""
    def decorate(function: Function) -> Function:
        kept = functools.lru_cache(maxsize=maxsize)(function)
        _STORES.append(kept)
        return kept  # type: ignore[return-value]
    return decorate


def clear() -> None:
    """Forget everything kept: the next claim is checked as the first one in a fresh process would be."""
    for store in _STORES:
        store.cache_clear()
