"""Band-gap oracle: a claimed gap is a number judged against the measured gap with its spread (or a semilocal gap
widened upwards for its known underestimate), and a class against the classes that interval admits."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.bandgap import admissible_classes, admissible_interval, judge
from physvec.verifiers.matpcr.references import BandGap, MaterialRecord, OfflineSnapshot, offline_snapshot
from physvec.verifiers.matpcr.schema import MaterialItem
from tests.verifiers.matpcr.conftest import claim


def item(material: str) -> MaterialItem:
    return MaterialItem(constraint="band_gap", id=material, material=material)


def outcome(material: str, provider=None, **fields) -> Outcome:
    return judge(item(material), claim("band_gap", **fields), provider or offline_snapshot()).outcome


@pytest.mark.parametrize(("material", "label", "expected"), [
    ("Si", "semiconductor", Outcome.CERTIFIED), ("Si", "metal", Outcome.FAILED), ("Si", "insulator", Outcome.FAILED),
    ("Cu", "metal", Outcome.CERTIFIED), ("MgO", "insulator", Outcome.CERTIFIED), ("NiO", "semiconductor", Outcome.FAILED)])
def test_measured_gaps_decide_the_class(material, label, expected):
    assert outcome(material, label=label) is expected


@pytest.mark.parametrize(("material", "gap"), [("Si", 3.5), ("NaCl", 4.0), ("Si", 1.5), ("Si", 0.0), ("GaAs", 1.2)])
def test_attack_a_gap_of_the_right_class_but_the_wrong_size_fails(material, gap):
    # the red team's cases: Si measures 1.11 eV at 300 K and 1.17 eV at 0 K (Kittel Table 8.1), NaCl about
    # 8.5 eV (Poole et al. 1975); 3.5 eV is a semiconductor's gap and 4.0 eV an insulator's, so the class passed
    assert outcome(material, value=gap, unit="eV") is Outcome.FAILED


@pytest.mark.parametrize(("material", "gap"), [("Si", 1.11), ("Si", 1.17), ("Ge", 0.7), ("GaAs", 1.52),
                                               ("NaCl", 8.5), ("MgO", 7.8), ("Cu", 0.0)])
def test_an_honest_gap_at_either_temperature_is_certified(material, gap):
    # Kittel Table 8.1 gives 0 K and 300 K gaps: Si 1.17/1.11, Ge 0.744/0.66, GaAs 1.52/1.43 eV
    assert outcome(material, value=gap, unit="eV") is Outcome.CERTIFIED


def test_a_record_with_its_own_uncertainty_admits_its_zero_kelvin_gap():
    # ZnS: 3.6 eV at 300 K, 3.91 eV at 0 K (Kittel Table 8.1); the record states +-0.31 eV for that spread
    assert admissible_interval(offline_snapshot().record("ZnS").band_gap) == pytest.approx((3.29, 3.91))
    assert outcome("ZnS", value=3.91, unit="eV") is Outcome.CERTIFIED
    assert outcome("ZnS", value=4.0, unit="eV") is Outcome.FAILED


def test_a_zero_semilocal_gap_admits_a_small_gap_semiconductor_but_a_measured_zero_does_not():
    # germanium's semilocal gap closes although it measures 0.66 eV: a PBE zero is not proof of a metal
    assert admissible_classes(BandGap(value=0.0, method="semilocal_dft", source="fixture")) == ["metal", "semiconductor"]
    assert admissible_classes(BandGap(value=0.0, method="experiment", source="fixture")) == ["metal"]


def test_a_semilocal_gap_is_widened_upwards_only():
    # 2.5 eV from PBE admits an insulator (true gap up to 5 eV) but never a metal
    reference = BandGap(value=2.5, method="semilocal_dft", source="fixture")
    assert admissible_classes(reference) == ["semiconductor", "insulator"]
    assert admissible_interval(reference) == (2.5, 5.0)


def test_a_semilocal_reference_from_another_provider_is_widened_as_a_number_too():
    provider = OfflineSnapshot([MaterialRecord(id="mp-fixture", formula="Ge",
                                               band_gap=BandGap(value=0.0, method="semilocal_dft", source="fixture"))])
    assert outcome("mp-fixture", provider, label="semiconductor") is Outcome.CERTIFIED
    assert outcome("mp-fixture", provider, value=0.66, unit="eV") is Outcome.CERTIFIED
    assert outcome("mp-fixture", provider, value=1.1, unit="eV") is Outcome.FAILED


def test_attack_a_negative_gap_is_refused():
    assert outcome("Si", value=-1.0, unit="eV") is Outcome.FAILED


def test_the_reference_gap_stays_sealed():
    judgement = judge(item("Si"), claim("band_gap", 3.5, "eV"), offline_snapshot())
    assert judgement.sealed["reference_gap_eV"] == 1.11 and "1.11" not in str(judgement.evidence)
