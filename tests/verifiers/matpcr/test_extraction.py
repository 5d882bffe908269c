"""The deterministic parser reads number-and-unit forms and class words of the item's constraint only."""

from __future__ import annotations

from physvec.verifiers.matpcr.extraction import extract_claims


def _read(text: str, constraint: str) -> list[tuple]:
    return [(c.value, c.unit, c.label, c.hkl) for c in extract_claims(text, constraint)]


def test_two_theta_with_and_without_an_assigned_reflection():
    text = "Peaks: the (111) reflection lies at 2θ = 28.44°, then (2 2 0) near 47.3 degrees and one at 56.1 deg."
    assert _read(text, "diffraction") == [(28.44, "deg", None, [1, 1, 1]), (47.3, "deg", None, [2, 2, 0]),
                                          (56.1, "deg", None, None)]


def test_a_bragg_angle_theta_is_not_read_as_two_theta():
    assert _read("the Bragg angle θ = 14.2° gives 2θ = 28.4°", "diffraction") == [(28.4, "deg", None, None)]


def test_each_claim_keeps_the_span_it_was_read_from():
    text = "A sharp line at 520.7 cm^-1."
    (claim,) = extract_claims(text, "raman")
    assert text[claim.span.start:claim.span.end] == claim.span.text == "520.7 cm^-1"
    assert claim.extracted_by == "parser"


def test_only_the_items_constraint_is_read():
    text = "Si: a line at 520.7 cm-1, a peak at 28.4°, gap 1.1 eV, particles of 50 nm."
    assert _read(text, "raman") == [(520.7, "cm-1", None, None)]
    assert _read(text, "microscopy") == [(50.0, "nm", None, None)]


def test_the_scale_bar_itself_is_not_a_feature_size():
    assert _read("The scale bar is 500 nm; grains are 1.2 µm across.", "microscopy") == [(1.2, "um", None, None)]


def test_negated_class_words_are_skipped():
    text = "Silicon is not a metal; it is a semiconductor with a 1.1 eV gap."
    assert _read(text, "band_gap") == [(None, None, "semiconductor", None), (1.1, "eV", None, None)]


def test_stability_in_mev_and_the_stable_label():
    assert _read("It is stable, about 12 meV/atom above the hull, not stable against X.", "stability") == [
        (None, None, "stable", None), (12.0, "meV/atom", None, None)]


def test_magnetisation_per_atom_and_antiferromagnetism_as_zero_net_moment():
    text = "Ferromagnetic Fe carries 2.2 μB per atom; NiO is antiferromagnetic."
    assert _read(text, "magnetisation") == [(None, None, "net_moment", None), (2.2, "muB/atom", None, None),
                                            (None, None, "zero_net_moment", None)]
