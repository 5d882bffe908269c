"""Magnetisation oracle against measured saturation moments (Kittel's table) and antiferromagnets."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.magnetism import judge
from physvec.verifiers.matpcr.references import offline_snapshot
from physvec.verifiers.matpcr.schema import MaterialItem
from tests.verifiers.matpcr.conftest import claim


def item(material: str) -> MaterialItem:
    return MaterialItem(constraint="magnetisation", id=material, material=material)


@pytest.mark.parametrize(("material", "value", "unit", "outcome"), [
    ("Fe", 2.22, "muB/f.u.", Outcome.CERTIFIED), ("Fe", 2.2, "muB/atom", Outcome.CERTIFIED),
    ("Fe", 1.5, "muB/f.u.", Outcome.FAILED), ("Fe3O4", 4.1, "muB/f.u.", Outcome.CERTIFIED),
    ("Fe3O4", 4.1, "muB/atom", Outcome.FAILED), ("Ni", 0.6, "muB/f.u.", Outcome.CERTIFIED),
    ("NiO", 1.9, "muB/f.u.", Outcome.FAILED)])
def test_the_net_moment_is_compared_per_formula_unit(material, value, unit, outcome):
    assert judge(item(material), claim("magnetisation", value, unit), offline_snapshot()).outcome is outcome


@pytest.mark.parametrize(("material", "label", "outcome"), [
    ("NiO", "zero_net_moment", Outcome.CERTIFIED), ("NiO", "net_moment", Outcome.FAILED),
    ("Gd", "net_moment", Outcome.CERTIFIED), ("Si", "net_moment", Outcome.FAILED)])
def test_the_labels_speak_of_the_net_moment(material, label, outcome):
    assert judge(item(material), claim("magnetisation", label=label), offline_snapshot()).outcome is outcome


def test_attack_a_tiny_moment_on_a_ferromagnet_is_not_near_zero_enough():
    assert judge(item("Fe"), claim("magnetisation", 0.0, "muB/f.u."), offline_snapshot()).outcome is Outcome.FAILED


def test_a_material_without_a_measured_moment_is_unknown():
    assert judge(item("FeO"), claim("magnetisation", label="net_moment"), offline_snapshot()).outcome is Outcome.UNKNOWN
