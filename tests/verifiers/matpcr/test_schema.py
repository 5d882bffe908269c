"""Items and claims as files: unknown keys, non-finite numbers and mismatched units are named, never ignored."""

from __future__ import annotations

import pytest

from physvec.verifiers.matpcr.schema import MalformedInput, parse_claims_file, parse_item


def test_an_unknown_key_in_a_claim_is_named():
    with pytest.raises(MalformedInput, match=r"claims\.0\.tolerance: Extra inputs"):
        parse_claims_file({"item": "diffraction:Si",
                           "claims": [{"constraint": "diffraction", "value": 28.4, "unit": "deg", "tolerance": 5}]})


def test_a_numeric_claim_needs_a_unit_of_its_constraint():
    with pytest.raises(MalformedInput, match=r"claims\.0: .*unit must be one of \['cm-1'\]"):
        parse_claims_file({"item": "raman:Si", "claims": [{"constraint": "raman", "value": 520.7, "unit": "deg"}]})


@pytest.mark.parametrize("value", [True, "28.4", None])
def test_a_value_that_is_no_finite_number_is_refused(value):
    with pytest.raises(MalformedInput, match="claims.0"):
        parse_claims_file({"item": "diffraction:Si", "claims": [{"constraint": "diffraction", "value": value,
                                                                 "unit": "deg"}]})


def test_a_label_outside_the_constraints_classes_is_named():
    with pytest.raises(MalformedInput, match="label must be one of"):
        parse_claims_file({"item": "stability:FeO", "claims": [{"constraint": "stability", "label": "unstable"}]})


def test_a_diffraction_item_takes_a_structure_or_a_pattern_not_both():
    with pytest.raises(MalformedInput, match="exactly one of material"):
        parse_item({"constraint": "diffraction", "id": "x", "material": "Si",
                    "pattern": {"two_theta": [1, 2, 3], "intensity": [0, 1, 0]}})


def test_a_spectrum_with_a_decreasing_axis_is_named():
    with pytest.raises(MalformedInput, match="item.raman: shift_cm1 must increase strictly"):
        parse_item({"constraint": "raman", "id": "x", "shift_cm1": [3, 2, 1], "intensity": [0, 1, 0]})


def test_a_claims_file_with_nothing_to_check_is_refused():
    with pytest.raises(MalformedInput, match="give claims, or reasoning"):
        parse_claims_file({"item": "diffraction:Si"})


@pytest.mark.parametrize("width", [True, 10**400, 2.5, 0])
def test_an_image_width_must_be_a_plain_positive_integer(width):
    with pytest.raises(MalformedInput, match="item.microscopy.image_width_px"):
        parse_item({"constraint": "microscopy", "id": "m", "scale_bar_px": 10, "scale_bar_length": 1,
                    "scale_bar_unit": "nm", "image_width_px": width, "image_height_px": 10})


@pytest.mark.parametrize("index", [True, 10**400])
def test_a_miller_index_must_be_a_small_integer(index):
    with pytest.raises(MalformedInput, match=r"claims\.0\.hkl\.0"):
        parse_claims_file({"item": "diffraction:Si", "claims": [{"constraint": "diffraction", "value": 28.4,
                                                                 "unit": "deg", "hkl": [index, 1, 1]}]})


def _moment_claim(**fields) -> dict:
    return {"constraint": "magnetisation", "value": 2.2, "unit": "muB/atom", **fields}


def test_a_magnetisation_claim_carries_its_temperature_and_the_element_its_moment_is_per():
    claims = parse_claims_file({"item": "magnetisation:Fe3O4",
                                "claims": [_moment_claim(temperature_K=300, per_element="Fe")]}).claims
    assert (claims[0].temperature_K, claims[0].per_element) == (300.0, "Fe")


@pytest.mark.parametrize(("fields", "named"), [
    ({"temperature_K": -1}, "temperature_K: Input should be greater than or equal to 0"),
    ({"temperature_K": True}, "temperature_K: must be a finite number"),
    ({"per_element": "iron"}, "per_element: String should match pattern"),
    ({"unit": "muB/f.u.", "per_element": "Fe"}, "per_element belongs to muB/atom claims only")])
def test_a_temperature_or_element_that_cannot_stand_is_named(fields, named):
    with pytest.raises(MalformedInput, match=named):
        parse_claims_file({"item": "magnetisation:Fe", "claims": [_moment_claim(**fields)]})


def test_a_temperature_on_another_constraint_is_named_not_ignored():
    # a temperature the band-gap oracle never reads would be a silently ignored option
    with pytest.raises(MalformedInput, match="temperature_K belongs to magnetisation claims only"):
        parse_claims_file({"item": "band_gap:Si", "claims": [{"constraint": "band_gap", "value": 1.1, "unit": "eV",
                                                              "temperature_K": 300}]})


@pytest.mark.parametrize(("constraint", "label"), [("stability", "metastable"), ("magnetisation", "antiferromagnetic"),
                                                    ("magnetisation", "diamagnetic")])
def test_the_agreed_class_labels_are_accepted(constraint, label):
    assert parse_claims_file({"item": f"{constraint}:MnO", "claims": [{"constraint": constraint, "label": label}]})
