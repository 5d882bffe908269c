"""Symmetries a field basis hides, and anomalies that no redefinition of fields changes (issue 36: a rotation
of two fields of equal charges left a right claim FAILED by thooft_flavour_u1)."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physvec.agents.redteam_duality_bases import ROTATIONS, _equal_pairs, substituted
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.dualitycert.field_basis import anomalies_on, cartan_subalgebra, hidden_symmetries, symmetry_algebra
from physvec.verifiers.dualitycert.global_symmetries import Anomalies, flavour_symmetries, map_invariants
from physvec.verifiers.dualitycert.obligations import thooft_flavour_u1
from physvec.verifiers.dualitycert.perturb import Perturbation, apply
from physvec.verifiers.dualitycert.theory import MAX_DIGITS, fraction_text, rational

def _rotated(theory, cos=ROTATIONS[0][0], sin=ROTATIONS[0][1]):
    x, y = _equal_pairs(theory)[0]
    return substituted(theory, {x: [(cos, x), (sin, y)], y: [(-sin, x), (cos, y)]})


def _shifted(theory, c=Fraction(2, 7)):
    x, y = _equal_pairs(theory)[0]
    return substituted(theory, {x: [(Fraction(1), x), (c, y)]})


def _diagonal_invariants(theory):
    return map_invariants(Anomalies(theory, flavour_symmetries(theory)))


def _cartan_invariants(theory):
    return map_invariants(anomalies_on(theory, cartan_subalgebra(symmetry_algebra(theory))))


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "spp_N2_node2", "dp2_phase1_N2_node4"])
def test_a_theory_as_written_hides_no_symmetry_and_its_torus_has_its_diagonal_anomalies(seed_claims, cell):
    # dP0's SU(3) rotates its three arrows per pair of nodes: an algebra larger than the diagonal U(1)s, of
    # the same rank, so nothing is hidden and the tori agree
    for theory in (seed_claims[cell].theory_a, seed_claims[cell].theory_b):
        assert hidden_symmetries(theory, len(flavour_symmetries(theory))) is None
        assert _cartan_invariants(theory) == _diagonal_invariants(theory)


@pytest.mark.parametrize("redefine", [_rotated, _shifted], ids=["rotation", "shift"])
def test_a_redefined_theory_hides_a_diagonal_u1_and_its_torus_gives_the_original_anomalies(seed_claims, redefine):
    # the reference is the theory before the redefinition, computed on its diagonal U(1)s
    original, redefined = next((c.theory_a, redefine(c.theory_a)) for c in seed_claims.values()
                               if _equal_pairs(c.theory_a)
                               and len(flavour_symmetries(redefine(c.theory_a))) < len(flavour_symmetries(c.theory_a)))
    diagonal = len(flavour_symmetries(redefined))
    assert diagonal < len(flavour_symmetries(original)), "the diagonal kernel loses a U(1)"
    assert len(hidden_symmetries(redefined, diagonal)) == len(flavour_symmetries(original))
    assert _cartan_invariants(redefined) == _diagonal_invariants(original)


def test_a_right_claim_with_a_rotated_dual_is_certified_by_the_flavour_anomalies(seed_claims):
    claim = next(c for c in seed_claims.values() if _equal_pairs(c.theory_b)
                 and len(flavour_symmetries(_rotated(c.theory_b))) < len(flavour_symmetries(c.theory_b)))
    row = thooft_flavour_u1(claim.theory_a, _rotated(claim.theory_b))
    assert row.outcome is Outcome.CERTIFIED and "Cartan subalgebra" in row.message


def test_a_wrong_dual_in_a_rotated_basis_is_never_certified(seed_claims):
    claim = next(c for c in seed_claims.values() if _equal_pairs(c.theory_b)
                 and len(flavour_symmetries(_rotated(c.theory_b))) < len(flavour_symmetries(c.theory_b)))
    x, _ = _equal_pairs(claim.theory_b)[0]
    wrong = apply(claim.theory_b, Perturbation("r_charge_perturb", x, "+1/7"))
    assert thooft_flavour_u1(claim.theory_a, wrong).outcome is not Outcome.CERTIFIED
    assert thooft_flavour_u1(claim.theory_a, _rotated(wrong)).outcome is not Outcome.CERTIFIED


def test_a_rational_beyond_4300_digits_is_read_and_written_exactly():
    numerator, denominator = 2 * 10 ** 5000 + 3, 3 * 10 ** 5000  # coprime; str() of either raises (5001 digits)
    assert rational(_spelled(2, 5000, 3) + "/" + _spelled(3, 5000, 0)) == Fraction(numerator, denominator)
    assert fraction_text(Fraction(numerator, denominator)) == _spelled(2, 5000, 3) + "/" + _spelled(3, 5000, 0)
    assert fraction_text(Fraction(-numerator, 1)) == "-" + _spelled(2, 5000, 3)


def test_a_rational_beyond_the_digit_bound_is_refused_naming_it():
    with pytest.raises(ValueError, match=f"{MAX_DIGITS}-digit work bound"):
        rational("1" * (MAX_DIGITS + 1) + "/3")


def _spelled(lead: int, zeros: int, last: int) -> str:
    """lead * 10^zeros + last (last < 10), in decimal digits."""
    return str(lead) + "0" * (zeros - 1) + str(last)


def _rescaled(theory, scale=Fraction(-5, 3)):
    field = theory.arrows[0].label
    return substituted(theory, {field: [(scale, field)]})


@pytest.mark.parametrize("redefine", [_rotated, _shifted, _rescaled], ids=["rotation", "shift", "rescaling"])
def test_no_seed_cell_is_failed_after_a_redefinition_of_either_side(seed_claims, redefine):
    # issue 36: "a failure verdict on a claim that is right up to a change of field basis" is not acceptable;
    # the flavour anomalies certify, and the operator map, which searches no redefinitions, may leave it unknown
    from physvec.verifiers.certificate import Verdict
    from physvec.verifiers.dualitycert.registry import FINAL, certify
    from physvec.verifiers.dualitycert.theory import Claim

    failed, certified_anomalies = [], 0
    for cell, claim in sorted(seed_claims.items()):
        for side in ("theory_a", "theory_b"):
            theory = getattr(claim, side)
            if redefine is not _rescaled and not _equal_pairs(theory):
                continue
            redone = claim.model_copy(update={side: redefine(theory)})
            certificate = certify(Claim(theory_a=redone.theory_a, theory_b=redone.theory_b), FINAL)
            rows = {o.name: o.outcome for o in certificate.obligations}
            certified_anomalies += rows["thooft_flavour_u1"] is Outcome.CERTIFIED
            if certificate.verdict is Verdict.FAILED:
                failed.append((cell, side, [o.name for o in certificate.failed()]))
    assert not failed
    assert certified_anomalies > 0
