"""The DualityCert red team's field-basis and huge-rational classes: a redefinition is undone by its inverse,
a huge spelling equals its value, and right claims so rewritten are neither failed nor refused."""

from __future__ import annotations

import sys
from fractions import Fraction

import pytest

from physvec.agents import redteam_duality_bases as bases
from physvec.agents.redteam import run_trial, seed_pairs


def _w(theory):
    return sorted((bases._cyclic(t.factors), t.coefficient) for t in theory.superpotential)


@pytest.mark.parametrize("cos, sin", bases.ROTATIONS)
def test_a_rotation_and_its_inverse_give_back_the_superpotential(cos, sin):
    assert cos * cos + sin * sin == 1
    _, a, _ = seed_pairs()[4]  # f0 phase II: W of 16 terms
    x, y = bases._equal_pairs(a)[0]
    there = bases.substituted(a, {x: [(cos, x), (sin, y)], y: [(-sin, x), (cos, y)]})
    back = bases.substituted(there, {x: [(cos, x), (-sin, y)], y: [(sin, x), (cos, y)]})
    assert _w(there) != _w(a) or len({x, y} & {f for t in a.superpotential for f in t.factors}) < 2
    assert _w(back) == _w(a)


def test_a_shift_mixes_only_fields_of_equal_ends_and_r_charge():
    for _, a, b in seed_pairs():
        for theory in (a, b):
            fields = {f.label: f for f in (*theory.arrows, *theory.singlets)}
            for x, y in bases._equal_pairs(theory):
                assert fields[x].r_charge == fields[y].r_charge
                assert getattr(fields[x], "source", None) == getattr(fields[y], "source", None)
                assert getattr(fields[x], "target", None) == getattr(fields[y], "target", None)


def test_a_huge_spelling_has_over_4300_digits_and_equals_its_value():
    text = bases._huge(Fraction(2, 3), 4301)
    numerator, denominator = text.split("/")
    assert len(numerator) == len(denominator) == 4301
    limit = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert Fraction(text) == Fraction(2, 3)
    finally:
        sys.set_int_max_str_digits(limit)


@pytest.mark.parametrize("kind", bases.BASIS_CLASSES)
def test_no_false_verdict_or_refusal_in_a_few_trials_of_each_class(tmp_path, kind):
    from physvec.agents.redteam import CLASSES
    first = CLASSES["dualitycert"].index(kind)
    records = [run_trial("dualitycert", 0, first + n * len(CLASSES["dualitycert"]), tmp_path) for n in range(4)]
    assert {r.kind for r in records} == {kind}
    assert not [(r.variant, r.detail) for r in records if r.crash or r.false_verdict or r.false_refusal]


@pytest.mark.parametrize("side", ["a", "b"])
def test_a_rotated_seed_pair_is_not_failed(side):
    # issue 36: "a unitary rotation of two fields with equal charges" left the claim right but FAILED
    from physvec.verifiers.certificate import Verdict
    from physvec.verifiers.dualitycert.registry import FINAL, certify
    from physvec.verifiers.dualitycert.theory import parse_claim
    _, a, b = seed_pairs()[4]  # f0 phase II at node 0
    theory = a if side == "a" else b
    x, y = bases._equal_pairs(theory)[0]
    cos, sin = bases.ROTATIONS[0]
    rotated = bases.substituted(theory, {x: [(cos, x), (sin, y)], y: [(-sin, x), (cos, y)]})
    shown = {"theory_a": bases._dumped(rotated if side == "a" else a),
             "theory_b": bases._dumped(rotated if side == "b" else b)}
    assert certify(parse_claim(shown), FINAL).verdict is not Verdict.FAILED
