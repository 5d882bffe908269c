"""Targeted correction X_i <- x_i*: the smallest change of one free input that carries a violated
outcome across its threshold, and the three feedback forms built from it.

The search does not assume the outcome is monotone in the input: it walks outward from the current
value in both directions (geometric steps for a positive interval, even steps otherwise), stops at the
first sign change of (outcome - threshold), and refines that bracket with Brent's method.  Among the
free inputs on a dependency path to the outcome, the one needing the smallest relative change wins.

The walk stays inside the engine's competence: it stops at the first value the engine declines (a
colloid hotter than the tabulated water data), and a bracket the engine cannot evaluate throughout is
passed over, so a correction never proposes a value the engine could not judge, and never crashes a loop.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np
from scipy.optimize import brentq

from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS
from physvec.verifiers.phact.schema import Goal, Target, margin, meets

STEPS = 60


@dataclass(frozen=True)
class Correction:
    input: str
    current: float
    corrected: float
    path: list[str]
    predicted: float
    """the outcome at the corrected value, computed by the engine"""

    @property
    def relative_change(self) -> float:
        return abs(self.corrected - self.current) / max(abs(self.current), 1e-300)


def _ladder(current: float, low: float, high: float, upward: bool) -> list[float]:
    end = high if upward else low
    if low > 0 and current > 0:
        return [float(v) for v in np.geomspace(current, end, STEPS)]
    return [float(v) for v in np.linspace(current, end, STEPS)]


def _crossing(excess: Callable[[float], float], current: float, low: float, high: float) -> float | None:
    """The nearest value to ``current`` where ``excess`` changes sign from negative (violated); an
    ``excess`` that raises one of ENGINE_REFUSALS marks the edge of the engine's competence."""
    found = []
    for upward in (True, False):
        ladder = _ladder(current, low, high, upward)
        for before, after in zip(ladder, ladder[1:]):
            try:
                crosses = excess(after) >= 0 > excess(before)
            except ENGINE_REFUSALS:
                break  # the engine declines beyond here: the walk stays inside its competence
            if crosses:
                try:
                    found.append(_root(excess, before, after))
                except ENGINE_REFUSALS:
                    continue
                break
    return min(found, key=lambda value: abs(value - current)) if found else None


def _root(excess: Callable[[float], float], before: float, after: float) -> float:
    """The crossing inside a bracket, on the met side of it."""
    step = 1e-12 * max(abs(after), 1.0)
    root = brentq(excess, before, after, xtol=step)
    while excess(root) < 0:  # the root may sit a hair on the violated side: step across
        root, step = root + math.copysign(step, after - before), 2 * step
    return root


def correct(goal: Goal, domain: Domain, values: dict[str, Any], target: Target) -> Correction | None:
    """The one-input correction with the smallest relative change, or None when no single input can."""
    graph = domain.graph()
    candidates = []
    for name, free in sorted(goal.free.items()):
        if free.choices is not None or not domain.reaches(name, target.quantity):
            continue

        def excess(x: float, name: str = name) -> float:
            outcome = float(domain.evaluate({**goal.bound, **values, name: x}, [target.quantity])[target.quantity])
            return margin(target, outcome, goal.tolerance)

        current = float(values[name])
        corrected = _crossing(excess, current, free.min, free.max)
        if corrected is not None:
            try:
                predicted = float(domain.evaluate({**goal.bound, **values, name: corrected})[target.quantity])
            except ENGINE_REFUSALS:
                continue
            if meets(target, predicted, goal.tolerance):
                candidates.append(Correction(name, current, corrected, nx.shortest_path(graph, name, target.quantity),
                                             predicted))
    return min(candidates, key=lambda c: c.relative_change) if candidates else None


def feedback(form: str, goal: Goal, domain: Domain, values: dict[str, Any], target: Target) -> dict[str, Any]:
    """weak: the violation and its size; strong: the corrected value (the engine's root, which is the closed
    form where one exists); structural: the root input, its dependency path and the predicted outcome."""
    outcome = float(domain.evaluate({**goal.bound, **values})[target.quantity])
    view: dict[str, Any] = {"violated": f"{target.quantity} {target.op} {target.value:g}", "value": outcome,
                            "magnitude": abs(outcome - target.value)}
    if form == "weak":
        return view
    fix = correct(goal, domain, values, target)
    if fix is None:
        return {**view, "correction": "no single free input can meet this target within its bounds"}
    if form == "strong":
        return {**view, "set": {fix.input: fix.corrected}}
    if form == "structural":
        return {**view, "root_input": fix.input, "dependency_path": fix.path, "set": {fix.input: fix.corrected},
                "predicted": fix.predicted}
    raise ValueError(f"unknown feedback form {form!r} (weak, strong, structural)")

