"""The deterministic parser reads number-and-unit forms and class words of the item's constraint only."""

from __future__ import annotations

import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from physvec.verifiers.matpcr.extraction import MAX_TEXT_CHARS, extract_claims
from physvec.verifiers.matpcr.schema import MalformedInput


def _read(text: str, constraint: str) -> list[tuple]:
    return [(c.value, c.unit, c.label, c.hkl) for c in extract_claims(text, constraint)]


def test_two_theta_with_and_without_an_assigned_reflection():
    text = "Peaks: the (111) reflection lies at 2θ = 28.44°, then (2 2 0) near 47.3 degrees and one at 56.1 deg."
    assert _read(text, "diffraction") == [(28.44, "deg", None, [1, 1, 1]), (47.3, "deg", None, [2, 2, 0]),
                                          (56.1, "deg", None, None)]


def test_a_bragg_angle_theta_is_read_as_the_two_theta_it_gives():
    assert _read("the Bragg angle θ = 14.2° gives 2θ = 28.4°", "diffraction") == [(28.4, "deg", None, None)] * 2


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


def test_magnetisation_per_atom_and_the_ordering_words():
    text = "Ferromagnetic Fe carries 2.2 μB per atom; NiO is antiferromagnetic and MgO non-magnetic."
    assert _read(text, "magnetisation") == [(None, None, "ferromagnetic", None), (2.2, "muB/atom", None, None),
                                            (None, None, "antiferromagnetic", None),
                                            (None, None, "zero_net_moment", None)]


def test_a_moment_per_atom_of_one_element_is_not_per_formula_unit():
    (per_fe,) = extract_claims("Fe3O4 has 4.1 μB per Fe atom.", "magnetisation")
    assert (per_fe.value, per_fe.unit, per_fe.per_element) == (4.1, "muB/atom", "Fe")
    (per_fu,) = extract_claims("Fe3O4 has 4.1 μB/f.u.", "magnetisation")
    assert (per_fu.unit, per_fu.per_element) == ("muB/f.u.", None)


def test_the_temperature_a_magnetic_claim_speaks_of_is_read_in_kelvin():
    (hot,) = extract_claims("At 900 °C iron still carries 2.2 μB per atom.", "magnetisation")
    assert hot.temperature_K == pytest.approx(1173.15)
    (gd,) = extract_claims("Gd is ferromagnetic at room temperature.", "magnetisation")
    assert (gd.label, gd.temperature_K) == ("ferromagnetic", 298.15)


# -- the red team's parser attacks (issue 35): each read as a physicist means it -------------------------------

def test_temperatures_are_not_two_theta():
    assert _read("Annealed at 900 °C for 2 h and measured at 25 °C: a peak at 28.44°.", "diffraction") == [
        (28.44, "deg", None, None)]


def test_an_uncertainty_is_not_a_peak_but_the_value_it_qualifies_is():
    assert _read("The (111) peak lies at 28.44 ± 0.05 deg.", "diffraction") == [(28.44, "deg", None, [1, 1, 1])]
    assert _read("Peak positions are known to ±0.05 deg.", "diffraction") == []


def test_a_bragg_angle_theta_becomes_two_theta():
    # Si (111) with Cu K-alpha1: theta = 14.22 deg, so 2theta = 28.44 deg (Bragg's law, a = 5.431 Å)
    assert _read("The Bragg angle θ = 14.22° for (111).", "diffraction") == [(28.44, "deg", None, None)]
    assert _read("2-θ = 60° and 2θ=47.3°", "diffraction") == [(60.0, "deg", None, None), (47.3, "deg", None, None)]


def test_widths_are_not_positions():
    assert _read("a FWHM of 0.2° and a linewidth of 3.5 cm-1", "diffraction") == []
    assert _read("a FWHM of 0.2° and a linewidth of 3.5 cm-1", "raman") == []


def test_a_decimal_comma_and_scientific_notation_are_read_and_a_thousands_comma_is_not_guessed():
    assert _read("a peak at 47,30°", "diffraction") == [(47.3, "deg", None, None)]
    assert _read("a gap of 1e-3 eV", "band_gap") == [(0.001, "eV", None, None)]
    assert _read("a line at 1,332 cm-1", "raman") == [], "1332 or 1.332: not guessed"


def test_ranges_claim_no_single_value():
    assert _read("grains of 20-30 nm and 40 to 60 nm", "microscopy") == []


def test_a_formation_energy_is_not_a_hull_distance():
    assert _read("Its formation energy is -3.12 eV/atom.", "stability") == []
    assert _read("It lies 18 meV/atom above the convex hull.", "stability") == [(18.0, "meV/atom", None, None)]


def test_metastable_is_its_own_label():
    assert _read("Anatase is metastable.", "stability") == [(None, None, "metastable", None)]


def test_a_working_distance_and_a_pixel_size_are_not_feature_sizes():
    text = "At a working distance of 10 mm and 0.2 nm per pixel, the fringes are 0.31 nm apart."
    assert _read(text, "microscopy") == [(0.31, "nm", None, None)]


def test_only_the_number_the_scale_bar_governs_is_skipped():
    text = "The scale bar shows 100 nm, and the particles measure 30 nm."
    assert _read(text, "microscopy") == [(30.0, "nm", None, None)]


def test_angstrom_lengths_are_read_in_nanometres():
    (claim,) = extract_claims("lattice fringes 3.1 Å apart", "microscopy")
    assert (claim.value, claim.unit) == (0.31, "nm")


def test_never_no_and_absent_are_negations():
    assert _read("It is never an insulator.", "band_gap") == []
    assert _read("There is no peak at 47.0°; the line at 520 cm-1 is absent.", "diffraction") == []
    assert _read("the line at 520 cm-1 is absent", "raman") == []


def test_a_band_gap_number_needs_a_gap_in_its_clause():
    assert _read("The phonon energy is 0.06 eV; the band gap is 1.12 eV.", "band_gap") == [(1.12, "eV", None, None)]


def test_a_text_longer_than_the_cap_is_malformed_input():
    with pytest.raises(MalformedInput, match="more than the parser reads"):
        extract_claims("x" * (MAX_TEXT_CHARS + 1), "raman")


PATHOLOGICAL = [
    "(1 1 1)" + " " * 250,
    "(1 1 1)" * 500,
    "2θ = " * 2000,
    "1" * 20_000,
    "1." * 10_000,
    "1e" * 10_000 + "1 eV",
    "( 1 , 1 , 1 , " * 2000,
    "° " * 10_000,
    "not " * 5000 + "an insulator",
    "at 300 K " * 3000,
]


@pytest.mark.parametrize("text", PATHOLOGICAL, ids=lambda text: repr(text[:12]))
def test_pathological_texts_are_read_in_linear_time(text):
    """Catastrophic backtracking turns tens of kilobytes into minutes; these finish far inside a second each
    (the bound is a hang guard with a wide margin, not a speed target)."""
    for constraint in ("diffraction", "microscopy", "raman", "stability", "band_gap"):
        started = time.perf_counter()
        extract_claims(text[:MAX_TEXT_CHARS], constraint)
        assert time.perf_counter() - started < 2.0, constraint


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet="0123456789 .,-±()θ2°Cnm µÅeV/atomhull notK", max_size=400))
def test_any_text_gives_claims_with_spans_that_point_into_it(text):
    for constraint in ("diffraction", "microscopy", "raman", "stability", "band_gap"):
        for claim in extract_claims(text, constraint):
            assert text[claim.span.start:claim.span.end] == claim.span.text
