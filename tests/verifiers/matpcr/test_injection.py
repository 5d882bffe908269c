"""Injection validation in CI on a small sample: every family at 10, 30 and 50 % has no false negative, and
a loosened oracle is caught (so the check can fail).  The full run is `matpcr validate-oracles --n 200`."""

from __future__ import annotations

import pytest

from physvec.verifiers.matpcr import diffraction, microscopy
from physvec.verifiers.matpcr.injection import RATES, lattice_two_thetas, sample, validate
from physvec.verifiers.matpcr.references import offline_snapshot
from physvec.verifiers.matpcr.schema import CONSTRAINTS


@pytest.mark.parametrize("family", CONSTRAINTS)
def test_no_injected_violation_is_certified_at_any_rate(family):
    for rate in RATES:
        result = validate(family, rate, 10, seed=0, provider=offline_snapshot())
        assert (result.false_negatives, result.injected) == (0, round(rate * 10))
        assert result.false_positives == 0 and result.unknown == 0


def test_the_lattice_ground_truth_ignores_extinctions():
    # Si (200) is extinct, yet the metric alone allows it: an injected violation keeps clear of it too
    angles = lattice_two_thetas("Si", 1.54056)
    assert abs(angles - 32.96).min() < 0.01 and abs(angles - 28.44).min() < 0.01


def test_injected_diffraction_violations_keep_clear_of_every_computed_peak():
    peaks = {}
    for case in sample("diffraction", 0.5, 20, seed=3, provider=offline_snapshot()):
        if case.violates:
            material = case.item.material
            peaks.setdefault(material, [p.two_theta for p in diffraction.structure_peaks(material, 1.54056)])
            assert min(abs(p - case.claim.value) for p in peaks[material]) > 0.5


def test_a_loosened_oracle_is_caught(monkeypatch):
    monkeypatch.setattr(diffraction, "TOLERANCE_DEG", 5.0)
    assert validate("diffraction", 0.5, 10, seed=0, provider=offline_snapshot()).false_negatives > 0


def test_a_microscopy_oracle_without_the_pixel_floor_is_caught(monkeypatch):
    monkeypatch.setattr(microscopy, "refused", lambda message, evidence=None, sealed=None: microscopy.passes(
        True, message, message, evidence or {}, sealed or {}))
    assert validate("microscopy", 0.5, 40, seed=0, provider=offline_snapshot()).false_negatives > 0
