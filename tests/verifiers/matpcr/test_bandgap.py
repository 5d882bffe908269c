"""Band-gap class oracle: a measured gap with its spread, a semilocal gap widened upwards for its known
underestimate."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.bandgap import admissible_classes, judge
from physvec.verifiers.matpcr.references import BandGap, MaterialRecord, OfflineSnapshot, offline_snapshot
from physvec.verifiers.matpcr.schema import MaterialItem
from tests.verifiers.matpcr.conftest import claim


def item(material: str) -> MaterialItem:
    return MaterialItem(constraint="band_gap", id=material, material=material)


@pytest.mark.parametrize(("material", "label", "outcome"), [
    ("Si", "semiconductor", Outcome.CERTIFIED), ("Si", "metal", Outcome.FAILED), ("Si", "insulator", Outcome.FAILED),
    ("Cu", "metal", Outcome.CERTIFIED), ("MgO", "insulator", Outcome.CERTIFIED), ("NiO", "semiconductor", Outcome.FAILED)])
def test_measured_gaps_decide_the_class(material, label, outcome):
    assert judge(item(material), claim("band_gap", label=label), offline_snapshot()).outcome is outcome


def test_a_claimed_gap_value_is_judged_by_its_class():
    assert judge(item("Si"), claim("band_gap", 1.5, "eV"), offline_snapshot()).outcome is Outcome.CERTIFIED
    assert judge(item("Si"), claim("band_gap", 0.0, "eV"), offline_snapshot()).outcome is Outcome.FAILED


def test_a_zero_semilocal_gap_admits_a_small_gap_semiconductor_but_a_measured_zero_does_not():
    # germanium's semilocal gap closes although it measures 0.66 eV: a PBE zero is not proof of a metal
    assert admissible_classes(BandGap(value=0.0, method="semilocal_dft", source="fixture")) == ["metal", "semiconductor"]
    assert admissible_classes(BandGap(value=0.0, method="experiment", source="fixture")) == ["metal"]


def test_a_semilocal_gap_is_widened_upwards_only():
    # 2.5 eV from PBE admits an insulator (true gap up to 5 eV) but never a metal
    assert admissible_classes(BandGap(value=2.5, method="semilocal_dft", source="fixture")) == ["semiconductor",
                                                                                              "insulator"]


def test_attack_a_negative_gap_is_refused():
    assert judge(item("Si"), claim("band_gap", -1.0, "eV"), offline_snapshot()).outcome is Outcome.FAILED


def test_a_semilocal_reference_from_another_provider_is_widened():
    provider = OfflineSnapshot([MaterialRecord(id="mp-fixture", formula="Ge",
                                               band_gap=BandGap(value=0.0, method="semilocal_dft", source="fixture"))])
    assert judge(item("mp-fixture"), claim("band_gap", label="semiconductor"), provider).outcome is Outcome.CERTIFIED
