"""Deterministic search over a goal's free box: the most favourable value of one outcome (evidence for an
impossibility certificate) and a design meeting every target (the solver the corpus tests use)."""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from typing import Any

import numpy as np
from scipy.optimize import minimize

from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS
from physvec.verifiers.phact.engines.colloids import OutsideCompetence
from physvec.verifiers.phact.schema import FreeInput, Goal, Target, margin, unmet

GRID_POINTS = 17
"""Points per continuous free input (log-spaced for a positive interval wider than a decade)."""
SEARCH = f"grid of {GRID_POINTS} points per interval, choices enumerated, Powell refinement on the unit box"


def _is_log_axis(free: FreeInput) -> bool:
    return free.min > 0 and free.max / free.min > 10


def _from_unit(free: FreeInput, u: float) -> float:
    """The input value at position u in [0, 1] of its interval (geometric on a log axis)."""
    u = min(max(u, 0.0), 1.0)
    if _is_log_axis(free):
        return float(free.min * (free.max / free.min) ** u)
    return float(free.min + u * (free.max - free.min))


def _to_unit(free: FreeInput, value: float) -> float:
    if _is_log_axis(free):
        return math.log(value / free.min) / math.log(free.max / free.min)
    return (value - free.min) / (free.max - free.min) if free.max > free.min else 0.0


def free_grid(goal: Goal) -> list[dict[str, Any]]:
    axes = []
    for name, free in sorted(goal.free.items()):
        if free.choices is not None:
            axes.append([(name, choice) for choice in free.choices])
        else:
            axes.append([(name, _from_unit(free, u)) for u in np.linspace(0.0, 1.0, GRID_POINTS)])
    return [dict(point) for point in itertools.product(*axes)] if axes else [{}]


def _minimise(goal: Goal, score: Callable[[dict[str, Any]], float]) -> tuple[float, dict[str, Any]] | None:
    """Grid, then Powell on the continuous inputs from the best grid point; None if nothing evaluates.

    Powell works on each interval mapped to [0, 1] (geometrically on a log axis): in raw units a
    capacitance of 1e-8 F sits far below the optimiser's tolerances, and the refinement would stall.
    """
    best: tuple[float, dict[str, Any]] | None = None
    for point in free_grid(goal):
        try:
            value = score(point)
        except ENGINE_REFUSALS:
            continue
        if best is None or value < best[0]:
            best = (value, point)
    continuous = [n for n in sorted(goal.free) if goal.free[n].choices is None]
    if best is None or not continuous:
        return best
    fixed = {n: v for n, v in best[1].items() if n not in continuous}

    def point_at(u: np.ndarray) -> dict[str, Any]:
        return {**fixed, **{n: _from_unit(goal.free[n], float(x)) for n, x in zip(continuous, u, strict=True)}}

    def objective(u: np.ndarray) -> float:
        try:
            return score(point_at(u))
        except ENGINE_REFUSALS:
            return math.inf
    start = [_to_unit(goal.free[n], best[1][n]) for n in continuous]
    refined = minimize(objective, start, method="Powell", bounds=[(0.0, 1.0)] * len(continuous),
                       options={"xtol": 1e-10, "ftol": 1e-14})
    if np.isfinite(refined.fun) and refined.fun < best[0]:
        return float(refined.fun), point_at(refined.x)
    return best


def best_value(goal: Goal, domain: Domain, target: Target) -> tuple[float, dict[str, Any]]:
    """The most favourable value of the target's quantity over the free box, and where it is reached."""
    def quantity(point: dict[str, Any]) -> float:
        return float(domain.evaluate({**goal.bound, **point}, [target.quantity])[target.quantity])

    def score(point: dict[str, Any]) -> float:
        value = quantity(point)
        return abs(value - target.value) if target.op == "==" else (-value if target.op == ">=" else value)
    found = _minimise(goal, score)
    if found is None:
        raise OutsideCompetence("the engine cannot evaluate any design in the free box")
    return quantity(found[1]), found[1]


def shortfall(goal: Goal, values: dict[str, Any]) -> float:
    """How far the targets are from being met, each in units of its own threshold."""
    return sum(max(0.0, -margin(t, float(values[t.quantity]), goal.tolerance)) / max(abs(t.value), 1e-12)
               for t in goal.targets)


def least_shortfall(goal: Goal, domain: Domain) -> tuple[float, dict[str, Any]] | None:
    """The smallest total shortfall over the free box and where it is reached (None if nothing evaluates)."""
    wanted = [t.quantity for t in goal.targets]
    return _minimise(goal, lambda point: shortfall(goal, domain.evaluate({**goal.bound, **point}, wanted)))


def find_design(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """Free values meeting every target, or None when the search finds none."""
    found = least_shortfall(goal, domain)
    if found is None:
        return None
    return None if unmet(goal, domain.evaluate({**goal.bound, **found[1]})) else found[1]
