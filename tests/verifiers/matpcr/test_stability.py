"""Stability oracle: the hull is computed from measured formation enthalpies, and agrees with a lower convex
hull computed by hand for binary oxides."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.references import offline_snapshot
from physvec.verifiers.matpcr.schema import MaterialItem
from physvec.verifiers.matpcr.stability import KJ_PER_MOL_PER_EV, energy_above_hull, judge
from tests.verifiers.matpcr.conftest import claim


def item(material: str) -> MaterialItem:
    return MaterialItem(constraint="stability", id=material, material=material)


def hand_e_above_hull(points: dict[str, tuple[float, float]], name: str) -> float:
    """Distance above the lower hull of (oxygen fraction, eV/atom) points, by checking every pair of points."""
    x, energy = points[name]
    below = [ea + (eb - ea) * (x - xa) / (xb - xa) for (xa, ea) in points.values() for (xb, eb) in points.values()
             if xa <= x <= xb and xb > xa]
    return energy - min(below + [energy])


def test_feo_lies_above_the_hull_by_the_hand_computed_amount():
    # FeO -272.0 kJ/mol over 2 atoms; Fe3O4 -1118.4 kJ/mol over 7 atoms (x_O = 4/7): FeO at x = 1/2 sits
    # 0.0394 eV/atom above the Fe - Fe3O4 tie line (wuestite is metastable at room temperature)
    points = {"Fe": (0.0, 0.0), "O": (1.0, 0.0), "FeO": (0.5, -272.0 / KJ_PER_MOL_PER_EV / 2),
              "Fe3O4": (4 / 7, -1118.4 / KJ_PER_MOL_PER_EV / 7), "Fe2O3": (0.6, -824.2 / KJ_PER_MOL_PER_EV / 5)}
    expected = hand_e_above_hull(points, "FeO")
    assert expected == pytest.approx(0.0394, abs=5e-4)
    reference, _ = energy_above_hull(offline_snapshot().record("FeO"), offline_snapshot())
    assert reference == pytest.approx(expected, abs=1e-9)


@pytest.mark.parametrize(("material", "value", "unit", "outcome"), [
    ("Li2O2", 0.0, "eV/atom", Outcome.CERTIFIED), ("FeO", 39, "meV/atom", Outcome.CERTIFIED),
    ("FeO", 0.1, "eV/atom", Outcome.FAILED), ("TiO2-anatase", 0.02, "eV/atom", Outcome.CERTIFIED),
    ("Al2O3-corundum", 0.3, "eV/atom", Outcome.FAILED)])
def test_a_claim_within_0_05_ev_per_atom_of_the_reference_is_certified(material, value, unit, outcome):
    assert judge(item(material), claim("stability", value, unit), offline_snapshot()).outcome is outcome


def test_attack_a_negative_hull_energy_is_refused_without_a_hull():
    judgement = judge(item("FeO"), claim("stability", -0.01, "eV/atom"), offline_snapshot())
    assert judgement.outcome is Outcome.FAILED and not judgement.sealed


def test_the_label_stable_claims_zero_and_the_reference_value_stays_sealed():
    judgement = judge(item("MgO"), claim("stability", label="stable"), offline_snapshot())
    assert judgement.outcome is Outcome.CERTIFIED and "e_above_hull_eV_per_atom" not in judgement.evidence


def test_a_material_without_elemental_references_is_unknown_not_certified():
    judgement = judge(item("GaN"), claim("stability", label="stable"), offline_snapshot())
    assert judgement.outcome is Outcome.UNKNOWN
