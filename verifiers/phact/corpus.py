"""The goal corpus shipped with PHACT: verifiers/phact/goals/<domain>/<id>.json, written by us."""

from __future__ import annotations

from pathlib import Path

from physvec.verifiers.phact.domains import Domain
from physvec.verifiers.phact.schema import Goal, MalformedInput, parse_goal, read_json

GOAL_FOLDER = Path(__file__).parent / "goals"


def corpus(domain: str | None = None) -> list[tuple[Path, Goal, Domain]]:
    """Every goal file of one domain (or all), parsed."""
    found = []
    for path in sorted(GOAL_FOLDER.glob(f"{domain or '*'}/*.json")):
        goal, engine = parse_goal(read_json(path, "goal"))
        found.append((path, goal, engine))
    return found


def corpus_goal(goal_id: str) -> tuple[Goal, Domain]:
    """The corpus goal with this id (MalformedInput if there is none)."""
    for _, goal, domain in corpus():
        if goal.id == goal_id:
            return goal, domain
    raise MalformedInput(f"goal: no corpus goal {goal_id!r} (see phact goals)")
