"""Deterministic search over a goal's free box: the most favourable value of one outcome (evidence for an
impossibility certificate) and a design meeting every target (the solver the corpus tests use).

A grid with a local refinement is evidence over a continuous box, not a proof over a discrete one: a
snapped quantity (an E12 part) is a step function of its input, and a grid misses every step it does not
land on.  So the box is first cut where snapped nodes change value (``pieces``): an input that reaches the
searched quantities only through snapped nodes becomes the finite list of its cells, enumerated, and when
every free input is such a list (or a list of choices) the search is an exhaustive enumeration.  Points
the engine declines are unreachable designs (nothing there can be certified); the search counts them and
keeps the first reason, so that a certificate built on it says which part of the box it could not judge.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import networkx as nx
import numpy as np

from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.engines import ENGINE_REFUSALS, OutsideCompetence
from physvec.verifiers.phact.schema import FreeInput, Goal, Target, margin, unmet

GRID_POINTS = 17
"""Points per continuous free input (log-spaced for a positive interval wider than a decade)."""
SEARCH = f"grid of {GRID_POINTS} points per interval, choices enumerated, Powell refinement on the unit box"
EXHAUSTIVE = "exhaustive: every value the snapped and listed free inputs reach, enumerated"
ENUMERATION_LIMIT = 50_000
"""The most engine evaluations a box cut into snapped cells may cost (a refined cell counts 200)."""
REFINEMENT_COST = 200
SEPARATE_REFINEMENTS = 256
"""Up to this many combinations of listed values, each is refined on its own (beyond, the best grid point's)."""
POWELL_XTOL = 1e-10
"""Powell's tolerance on a point, in unit coordinates of each interval."""
UNIT_STEP = 100 * POWELL_XTOL
"""A move of a continuous free input, in unit coordinates, that the refinement cannot tell from none (a small
multiple of its xtol): a miss smaller than what such a move changes is not resolved by the search."""
RELATIVE_FLOOR = 1e-9
"""The float floor of a computed quantity, relative to its size: a few dozen float operations (2^-53 each)
through an engine chain whose condition number may reach 1e6 (a log, a power, a difference of near-equal
terms) leave a result no surer than this."""

Box = dict[str, FreeInput]


class ProofOutOfReach(OutsideCompetence):
    """The search cannot cover this box (a snapped value with no finite list, or too many pieces): the
    engine then claims no impossibility there; the verdict on such a claim is unknown, with this reason."""


class WithinResolution(OutsideCompetence):
    """The best design found misses by less than the computation can resolve: a float miss is no proof, so
    the engine claims no impossibility and the verdict is unknown, with this reason."""


@dataclass(frozen=True)
class Found:
    """The best point of a search, and what the search covered."""

    score: float
    point: dict[str, Any]
    method: str
    """EXHAUSTIVE when every reachable value was enumerated, else the grid-and-refinement SEARCH"""
    declined: int = 0
    """grid points the engine declined (outside its competence)"""
    reason: str = ""
    """the first refusal's message"""

    def evidence(self) -> dict[str, Any]:
        """What an impossibility certificate says about the search behind it."""
        found: dict[str, Any] = {"search": self.method}
        if self.declined:
            found["declined"] = {"designs": self.declined, "reason": self.reason,
                                 "meaning": "outside the engine's competence: no design there can be certified"}
        return found


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


def free_grid(box: Box) -> list[dict[str, Any]]:
    axes = []
    for name, free in sorted(box.items()):
        if free.choices is not None:
            axes.append([(name, choice) for choice in free.choices])
        else:
            axes.append([(name, _from_unit(free, u)) for u in np.linspace(0.0, 1.0, GRID_POINTS)])
    return [dict(point) for point in itertools.product(*axes)] if axes else [{}]


def _inside(low: float, high: float) -> float:
    """A point strictly inside a cell (its geometric middle: snapped cells are positive)."""
    return math.sqrt(low) * math.sqrt(high) if low > 0 else (low + high) / 2


def pieces(goal: Goal, domain: Domain, quantities: list[str]) -> tuple[list[Box], bool]:
    """The free box as sub-boxes whose union the search covers, and whether they are all finite lists.

    An input feeding a snapped node on the way to ``quantities`` is cut into the node's cells.  If it
    reaches the quantities only through snapped nodes, the quantities do not change inside a cell, so one
    point inside each cell and the two ends of the interval stand for all of it (every value a snapped node
    takes on [low, high] is taken inside a cell or at an end): the input becomes a list, enumerated.  If it
    also reaches them directly, each cell is searched as an interval of its own.  An input with no path to
    the quantities cannot change them and is held at its first value.  Where continuous inputs remain,
    every combination of listed values (up to SEPARATE_REFINEMENTS) is a box of its own, so each gets its
    own refinement (a refinement from the best grid point alone would leave the others to the grid).

    Raises:
        ProofOutOfReach: a snapped value whose cells cannot be listed, or more pieces than the limit.
    """
    relevant = set().union(*(domain.upstream(q) for q in quantities))
    steps = [node for node in domain.derived if node.cells is not None and node.name in relevant]
    for node in steps:
        if node.parents[0] not in domain.inputs and any(domain.reaches(name, node.name) for name in goal.free):
            raise ProofOutOfReach(f"{node.name} snaps a computed value: its cells in the free box are unknown")
    smooth = domain.graph()
    smooth.remove_nodes_from(node.name for node in steps)
    axes: list[list[FreeInput]] = []
    cut = False
    for name, free in sorted(goal.free.items()):
        snapping = [node for node in steps if node.parents[0] == name]
        if name not in relevant:
            axes.append([FreeInput(choices=[free.first()])])
        elif free.choices is not None or not snapping:
            axes.append([free])
        else:
            try:
                edges = sorted({edge for node in snapping for cell in node.cells(free.min, free.max) for edge in cell})
            except ENGINE_REFUSALS as error:
                raise ProofOutOfReach(f"{name} in [{free.min:g}, {free.max:g}] is snapped to values the engine "
                                      f"cannot list ({error})") from None
            cells = list(zip(edges, edges[1:])) or [(free.min, free.max)]
            cut = True
            if any(q in smooth and nx.has_path(smooth, name, q) for q in quantities):
                axes.append([FreeInput(min=low, max=high) for low, high in cells])
            else:
                axes.append([FreeInput(choices=sorted({free.min, free.max, *(_inside(*cell) for cell in cells)}))])
    refined = any(free.choices is None for axis in axes for free in axis)
    listed = math.prod(len(free.choices) for axis in axes for free in axis if free.choices is not None and len(axis) == 1)
    if refined and listed <= SEPARATE_REFINEMENTS:  # each combination of listed values is refined on its own
        axes = [[FreeInput(choices=[c]) for free in axis for c in free.choices]
                if all(free.choices is not None for free in axis) else axis for axis in axes]
    count = math.prod(len(axis) for axis in axes)
    if cut and count > ENUMERATION_LIMIT:
        raise ProofOutOfReach(f"the snapped free inputs cut the box into {count} pieces, more than the engine "
                              f"enumerates ({ENUMERATION_LIMIT})")
    names = sorted(goal.free)
    boxes = [dict(zip(names, combination, strict=True)) for combination in itertools.product(*axes)]
    if cut:
        cost = sum(math.prod(len(f.choices) if f.choices is not None else GRID_POINTS for f in box.values())
                   + (REFINEMENT_COST if refined else 0) for box in boxes)
        if cost > ENUMERATION_LIMIT:
            raise ProofOutOfReach(f"the snapped free inputs cut the box into pieces costing {cost} evaluations, "
                                  f"more than the engine enumerates ({ENUMERATION_LIMIT})")
    return boxes, not refined


def _minimise_box(box: Box, score: Callable[[dict[str, Any]], float]) -> tuple[tuple[float, dict[str, Any]] | None, int, str]:
    """Grid, then Powell on the continuous inputs from the best grid point; the declined count and reason.

    Powell works on each interval mapped to [0, 1] (geometrically on a log axis): in raw units a
    capacitance of 1e-8 F sits far below the optimiser's tolerances, and the refinement would stall.
    """
    best: tuple[float, dict[str, Any]] | None = None
    declined, reason = 0, ""
    for point in free_grid(box):
        try:
            value = score(point)
        except ENGINE_REFUSALS as error:
            declined, reason = declined + 1, reason or str(error)
            continue
        if best is None or value < best[0]:
            best = (value, point)
    continuous = [n for n in sorted(box) if box[n].choices is None]
    if best is None or not continuous:
        return best, declined, reason
    fixed = {n: v for n, v in best[1].items() if n not in continuous}

    def point_at(u: np.ndarray) -> dict[str, Any]:
        return {**fixed, **{n: _from_unit(box[n], float(x)) for n, x in zip(continuous, u, strict=True)}}

    def objective(u: np.ndarray) -> float:
        try:
            return score(point_at(u))
        except ENGINE_REFUSALS:
            return math.inf
    from scipy.optimize import minimize  # here, not at the top: a design that needs no search never loads it

    start = [_to_unit(box[n], best[1][n]) for n in continuous]
    refined = minimize(objective, start, method="Powell", bounds=[(0.0, 1.0)] * len(continuous),
                       options={"xtol": POWELL_XTOL, "ftol": 1e-14})
    if np.isfinite(refined.fun) and refined.fun < best[0]:
        return (float(refined.fun), point_at(refined.x)), declined, reason
    return best, declined, reason


def _minimise(goal: Goal, domain: Domain, quantities: list[str],
              score: Callable[[dict[str, Any]], float]) -> Found | None:
    """The least ``score`` over every piece of the free box; None if the engine evaluates no point."""
    boxes, exhaustive = pieces(goal, domain, quantities)
    best: tuple[float, dict[str, Any]] | None = None
    declined, reason = 0, ""
    for box in boxes:
        found, refused, why = _minimise_box(box, score)
        declined, reason = declined + refused, reason or why
        if found is not None and (best is None or found[0] < best[0]):
            best = found
    if best is None:
        return None
    method = EXHAUSTIVE if exhaustive else SEARCH if len(boxes) == 1 else f"{SEARCH}, in each of {len(boxes)} " \
        "pieces where the snapped values are constant"
    return Found(best[0], best[1], method, declined, reason)


def best_value(goal: Goal, domain: Domain, target: Target) -> Found:
    """The most favourable value of the target's quantity over the free box (``score``), and where it is."""
    def quantity(point: dict[str, Any]) -> float:
        return float(domain.evaluate({**goal.bound, **point}, [target.quantity])[target.quantity])

    def score(point: dict[str, Any]) -> float:
        value = quantity(point)
        return abs(value - target.value) if target.op == "==" else (-value if target.op == ">=" else value)
    found = _minimise(goal, domain, [target.quantity], score)
    if found is None:
        raise OutsideCompetence("the engine cannot evaluate any design in the free box")
    return Found(quantity(found.point), found.point, found.method, found.declined, found.reason)


def shortfall(goal: Goal, values: dict[str, Any]) -> float:
    """How far the targets are from being met, each in units of its own threshold."""
    return sum(max(0.0, -margin(t, float(values[t.quantity]), goal.tolerance)) / max(abs(t.value), 1e-12)
               for t in goal.targets)


def least_shortfall(goal: Goal, domain: Domain) -> Found | None:
    """The smallest total shortfall over the free box and where it is reached (None if nothing evaluates)."""
    wanted = [t.quantity for t in goal.targets]
    return _minimise(goal, domain, wanted, lambda point: shortfall(goal, domain.evaluate({**goal.bound, **point}, wanted)))


def find_design(goal: Goal, domain: Domain) -> dict[str, Any] | None:
    """Free values meeting every target, or None when the search finds none."""
    found = least_shortfall(goal, domain)
    if found is None:
        return None
    return None if unmet(goal, domain.evaluate({**goal.bound, **found.point})) else found.point


def resolution(goal: Goal, domain: Domain, point: dict[str, Any], exhaustive: bool, targets: list[Target]) -> list[float]:
    """How far each target's quantity at ``point`` is uncertain, in its own units: the larger of the float
    floor (RELATIVE_FLOOR of the larger of the value and the target) and the search's own resolution, the most
    the quantity changes when one continuous free input moves by UNIT_STEP either way (0 after an exhaustive
    enumeration, which resolves nothing continuous).  A shortfall within it is what the search and float
    evaluation cannot tell from a hit, so it proves nothing."""
    wanted = [t.quantity for t in targets]
    here = domain.evaluate({**goal.bound, **point}, wanted)
    moved = []
    continuous = [] if exhaustive else [n for n in sorted(goal.free) if goal.free[n].choices is None]
    for name in continuous:
        u = _to_unit(goal.free[name], float(point[name]))
        for step in (-UNIT_STEP, UNIT_STEP):
            try:
                moved.append(domain.evaluate({**goal.bound, **point, name: _from_unit(goal.free[name], u + step)}, wanted))
            except ENGINE_REFUSALS:  # a declined neighbour is no design, and tells nothing about the change
                continue
    return [max([RELATIVE_FLOOR * max(abs(float(here[t.quantity])), abs(t.value)),
                 *(abs(float(m[t.quantity]) - float(here[t.quantity])) for m in moved)])
            for t in targets]
