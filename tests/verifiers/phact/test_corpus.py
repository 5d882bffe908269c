"""The goal corpus: every goal written impossible gets an engine impossibility certificate, and every
feasible goal has a design the engine certifies, found by the search here (no model)."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.phact.contract import certify, impossibility
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.schema import Design
from physvec.verifiers.phact.search import find_design

GOALS = corpus()


def test_every_domain_has_ten_feasible_and_five_impossible_goals_and_fixed_system_checks():
    for domain in ("dna", "inspiral", "rc_filter", "colloid", "drone"):
        goals = [goal for _, goal, _ in GOALS if goal.domain == domain]
        assert sum(not goal.impossible_because for goal in goals) >= 10, domain
        assert sum(bool(goal.impossible_because) for goal in goals) >= 5, domain
        assert any(goal.kind == "verification" and not goal.free for goal in goals), domain


def test_goal_ids_are_unique_and_match_their_file_names():
    assert len({goal.id for _, goal, _ in GOALS}) == len(GOALS)
    assert all(path.stem == goal.id and path.parent.name == goal.domain for path, goal, _ in GOALS)


@pytest.mark.parametrize("path, goal, domain", [g for g in GOALS if not g[1].impossible_because], ids=lambda v: getattr(v, "id", ""))
def test_a_feasible_goal_has_a_design_the_engine_certifies(path, goal, domain):
    design = find_design(goal, domain) if goal.free else {}
    assert design is not None, f"{path.name}: the search found no design"
    assert certify(goal, domain, Design(goal=goal.id, values=design)).verdict is Verdict.CERTIFIED
    assert impossibility(goal, domain) is None, "the engine must never refuse a feasible goal"


@pytest.mark.parametrize("path, goal, domain", [g for g in GOALS if g[1].impossible_because], ids=lambda v: getattr(v, "id", ""))
def test_an_impossible_goal_gets_an_engine_impossibility_certificate(path, goal, domain):
    attempt = {name: (free.choices[0] if free.choices else free.max) for name, free in goal.free.items()}
    certificate = certify(goal, domain, Design(goal=goal.id, values=attempt))
    assert certificate.verdict is Verdict.IMPOSSIBLE, path.name
    assert certificate.impossibility["reason"] in (
        "the bound inputs alone fix this quantity", "no design in the free box reaches it",
        "each target is reachable alone, but no design in the free box meets them together")
