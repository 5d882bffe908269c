"""One certificate per claims file: claims from the file and from the reasoning text, expected values sealed."""

from __future__ import annotations

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.feedback import Projection, project
from physvec.verifiers.matpcr import bounds
from physvec.verifiers.matpcr.oracles import ORACLES, certify
from physvec.verifiers.matpcr.schema import MalformedInput
from tests.verifiers.matpcr.conftest import claim, claims_file


def test_reasoning_is_parsed_into_claims_each_an_obligation_with_its_span():
    certificate = certify(claims_file("diffraction:Si", reasoning="(111) at 28.44° and (220) at 47.30°."))
    assert certificate.verdict is Verdict.CERTIFIED
    assert [o.evidence["span"]["text"] for o in certificate.obligations] == ["(111) at 28.44°", "(220) at 47.30°"]
    assert certificate.summary["parsed_from_reasoning"] == 2


def test_one_violated_claim_fails_the_certificate():
    certificate = certify(claims_file("raman:Si", claim("raman", 520.7, "cm-1"), claim("raman", 480.0, "cm-1")))
    assert certificate.verdict is Verdict.FAILED
    assert [o.outcome for o in certificate.obligations] == [Outcome.CERTIFIED, Outcome.FAILED]


def test_attack_reasoning_with_nothing_checkable_is_never_certified():
    certificate = certify(claims_file("diffraction:Si", reasoning="The pattern clearly matches silicon."))
    assert certificate.verdict is Verdict.UNKNOWN


def test_a_claim_about_another_constraint_is_malformed_input_naming_the_field():
    with pytest.raises(MalformedInput, match=r"claims\.0\.constraint"):
        certify(claims_file("diffraction:Si", claim("raman", 520.7, "cm-1")))


@pytest.mark.parametrize("item", ["diffraction:Unobtainium", "stability:Unobtainium", "nothing"])
def test_an_unknown_item_or_material_is_malformed_input(item):
    with pytest.raises(MalformedInput, match="item"):
        certify(claims_file(item, reasoning="x"))


def test_no_feedback_projection_shows_a_sealed_expected_value():
    certificate = certify(claims_file("stability:FeO", claim("stability", 0.3, "eV/atom")))
    assert certificate.obligations[0].sealed["e_above_hull_eV_per_atom"] == pytest.approx(0.0394, abs=1e-4)
    for projection in Projection:
        assert "0.039" not in str(project(certificate, projection))


def test_attack_repeating_an_accepted_claim_does_not_raise_the_count():
    reasoning = "(111) at 28.44°. " * 20 + "(200) at 32.96°."
    certificate = certify(claims_file("diffraction:Si", reasoning=reasoning))
    assert (certificate.summary["checkable"], certificate.summary["consistent"]) == (2, 1)


def test_attack_hiding_a_hot_moment_behind_the_same_number_cold_is_judged_twice():
    """Fe carries 2.22 muB per atom at 4.2 K and none above its Curie temperature (1043 K, Kittel Table 15.2):
    the same number at 1100 K is a second statement, and it fails."""
    cold = claim("magnetisation", 2.22, "muB/atom", temperature_K=4.2)
    hot = claim("magnetisation", 2.22, "muB/atom", temperature_K=1100.0)
    certificate = certify(claims_file("magnetisation:Fe", cold, hot))
    assert [o.outcome for o in certificate.obligations] == [Outcome.CERTIFIED, Outcome.FAILED]


@pytest.mark.parametrize(("item", "reasoning"), [
    ("raman:GaN:0", "There is no band at 568 cm-1; the GaN line lies at 568.0 cm-1."),
    ("diffraction:Si", "The forbidden (111) reflection of Si at 28.44° is absent, while (220) appears at 47.30°."),
    ("diffraction:Si", "Its (220) peak lies at 47.30°, and nothing between 50-52°."),
    ("raman:GaN:0", "The GaN line lies at 568.0 cm-1. No band, not even a weak one, appears at 734 cm-1."),
])
def test_attack_a_false_negation_or_range_beside_a_true_claim_leaves_the_reasoning_uncertified(item, reasoning):
    """The red team's cases: GaN's E2-high line is at 568 cm-1 and Si (111) is allowed at 28.44° (diamond
    structure, a = 5.431 Å), so each first statement is false; the parser cannot check it, and says so."""
    certificate = certify(claims_file(item, reasoning=reasoning))
    assert certificate.verdict is Verdict.UNKNOWN
    unchecked = [o for o in certificate.obligations if ":unchecked:" in o.name]
    assert unchecked and all(o.outcome is Outcome.UNKNOWN and o.required for o in unchecked)
    assert any(o.outcome is Outcome.CERTIFIED for o in certificate.obligations), "the true claim is still judged"


def test_an_oracle_past_its_time_bound_leaves_the_claim_unknown_with_the_reason(monkeypatch):
    def forever(item, claim):
        while True:
            pass

    monkeypatch.setitem(ORACLES, "diffraction", forever)
    monkeypatch.setattr(bounds, "ORACLE_SECONDS", 0.2)
    (only,) = certify(claims_file("diffraction:Si", claim("diffraction", 28.44, "deg"))).obligations
    assert only.outcome is Outcome.UNKNOWN and "ran past its 0.2 s bound" in only.message


def test_an_oracle_out_of_memory_leaves_the_claim_unknown_with_the_reason(monkeypatch):
    def hungry(item, claim):
        raise MemoryError

    monkeypatch.setitem(ORACLES, "diffraction", hungry)
    (only,) = certify(claims_file("diffraction:Si", claim("diffraction", 28.44, "deg"))).obligations
    assert only.outcome is Outcome.UNKNOWN and "out of memory" in only.message
