"""Reading theories and claims: exact rationals, and every schema problem named."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.verifiers.dualitycert.seeds import SEED_FOLDER
from physvec.verifiers.dualitycert.theory import MalformedTheory, parse_claim, parse_theory, read_json


def test_every_seed_theory_parses_with_exact_r_charges():
    for path in sorted(SEED_FOLDER.glob("*electric*.json")):
        theory = parse_theory(read_json(path))
        assert all(isinstance(a.r_charge, Fraction) for a in theory.arrows)


def test_a_theory_round_trips_through_the_seed_schema():
    theory = parse_theory(dp0_data())
    assert parse_theory(__import__("json").loads(theory.to_json())) == theory
    assert '"r_charge": "2/3"' in theory.to_json()


@pytest.mark.parametrize("change, named", [
    (lambda d: d["superpotential"][0]["factors"].append("Q7"), "unknown field 'Q7'"),
    (lambda d: d["arrows"][0].update(r_charge=0.5), "arrows.0.r_charge"),
    (lambda d: d["arrows"][0].update(r_charge="two thirds"), "'two thirds' is not a rational number"),
    (lambda d: d["ranks"].__setitem__(1, 1), "ranks.1: rank 1 < 2"),
    (lambda d: d["arrows"][0].update(target=5), "target 5 is not a node"),
    (lambda d: d["arrows"][1].update(label="X0"), "field label 'X0' is used 2 times"),
])
def test_a_malformed_theory_is_refused_with_the_problem_named(change, named):
    data = dp0_data()
    change(data)
    with pytest.raises(MalformedTheory) as refusal:
        parse_theory(data)
    assert named in str(refusal.value)


def test_a_claim_needs_both_theories_and_names_the_side_at_fault():
    with pytest.raises(MalformedTheory, match="theory_a and theory_b"):
        parse_claim({"theory_a": dp0_data()})
    broken = dp0_data()
    broken["ranks"] = [3, 3]
    with pytest.raises(MalformedTheory, match=r"theory_b\.node_labels: 3 labels for 2 ranks"):
        parse_claim({"theory_a": dp0_data(), "theory_b": broken})


def test_equality_and_hash_follow_the_fields_also_after_a_copy_with_changes(dp0):
    # Every per-theory cache keys on the theory: a copy with changed fields must not share the original's
    # identity (pydantic's model_copy carries cached attributes over), and an equal theory read afresh must.
    assert hash(dp0) and dp0.identity
    changed = dp0.model_copy(update={"ranks": (4, 4, 4)})
    assert changed != dp0 and changed.identity != dp0.identity and changed.ranks == (4, 4, 4)
    reread = parse_theory(json.loads(dp0.to_json()))
    assert reread == dp0 and hash(reread) == hash(dp0) and reread is not dp0
    assert dp0.model_copy() == dp0 and dp0 != "dP0"
