"""Deterministic search over a goal's free box: the most favourable value of one outcome (evidence for an
impossibility certificate) and a design meeting every target (the solver the corpus tests use)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import minimize

from verifiers.phact.domains import Domain
from verifiers.phact.engines.colloids import OutsideCompetence
from verifiers.phact.engines.dna import SequenceError
from verifiers.phact.schema import Goal, Target, meets

GRID_POINTS = 17
"""Points per continuous free input (log-spaced for a positive interval wider than a decade)."""
SEARCH = f"grid of {GRID_POINTS} points per interval, choices enumerated, Powell refinement"
_ENGINE_REFUSALS = (OutsideCompetence, SequenceError, ValueError, ZeroDivisionError)


def free_grid(goal: Goal) -> list[dict[str, Any]]:
    axes = []
    for name, free in sorted(goal.free.items()):
        if free.choices is not None:
            axes.append([(name, choice) for choice in free.choices])
        elif free.min > 0 and free.max / free.min > 10:
            axes.append([(name, float(v)) for v in np.geomspace(free.min, free.max, GRID_POINTS)])
        else:
            axes.append([(name, float(v)) for v in np.linspace(free.min, free.max, GRID_POINTS)])
    return [dict(point) for point in itertools.product(*axes)] if axes else [{}]


def _minimise(goal: Goal, score: Callable[[dict[str, Any]], float]) -> tuple[float, dict[str, Any]] | None:
    """Grid, then Powell on the continuous inputs from the best grid point; None if nothing evaluates."""
    best: tuple[float, dict[str, Any]] | None = None
    for point in free_grid(goal):
        try:
            value = score(point)
        except _ENGINE_REFUSALS:
            continue
        if best is None or value < best[0]:
            best = (value, point)
    continuous = [n for n in sorted(goal.free) if goal.free[n].choices is None]
    if best is None or not continuous:
        return best
    fixed = {n: v for n, v in best[1].items() if n not in continuous}

    def objective(x: np.ndarray) -> float:
        try:
            return score({**fixed, **dict(zip(continuous, map(float, x), strict=True))})
        except _ENGINE_REFUSALS:
            return math.inf
    refined = minimize(objective, [best[1][n] for n in continuous], method="Powell",
                       bounds=[(goal.free[n].min, goal.free[n].max) for n in continuous])
    if np.isfinite(refined.fun) and refined.fun < best[0]:
        point = {**fixed, **{n: float(min(max(v, goal.free[n].min), goal.free[n].max))
                             for n, v in zip(continuous, refined.x, strict=True)}}
        return float(refined.fun), point
    return best


def best_value(goal: Goal, domain: Domain, target: Target) -> tuple[float, dict[str, Any]]:
    """The most favourable value of the target's quantity over the free box, and where it is reached."""
    def quantity(point: dict[str, Any]) -> float:
        return float(domain.evaluate({**goal.bound, **point})[target.quantity])

    def score(point: dict[str, Any]) -> float:
        value = quantity(point)
        return abs(value - target.value) if target.op == "==" else (-value if target.op == ">=" else value)
    found = _minimise(goal, score)
    if found is None:
        raise OutsideCompetence("the engine cannot evaluate any design in the free box")
    return quantity(found[1]), found[1]


def shortfall(goal: Goal, values: dict[str, Any]) -> float:
    """How far the targets are from being met, each in units of its own threshold."""
    total = 0.0
    for target in goal.targets:
        value, scale = float(values[target.quantity]), max(abs(target.value), 1e-12)
        if target.op == ">=":
            total += max(0.0, target.value - goal.tolerance - value) / scale
        elif target.op == "<=":
            total += max(0.0, value - target.value - goal.tolerance) / scale
        else:
            total += max(0.0, abs(value - target.value) - goal.tolerance) / scale
    return total


def find_design(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """Free values meeting every target, or None when the search finds none."""
    found = _minimise(goal, lambda point: shortfall(goal, domain.evaluate({**goal.bound, **point})))
    if found is None:
        return None
    values = domain.evaluate({**goal.bound, **found[1]})
    return found[1] if all(meets(t, float(values[t.quantity]), goal.tolerance) for t in goal.targets) else None
