"""The obligation registry on a certified dual and on each class of wrong dual."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.perturb import Perturbation, apply
from physvec.verifiers.dualitycert.registry import FINAL, INTERACTION, UNBUILT, Settings, certify
from physvec.verifiers.dualitycert.theory import Claim, Singlet


@pytest.fixture
def dp0_claim(dp0) -> Claim:
    return Claim(theory_a=dp0, theory_b=dualize(dp0, 0))


def _failed(claim: Claim, settings: Settings = INTERACTION) -> set[str]:
    return {o.name for o in certify(claim, settings).failed()}


def test_the_dp0_dual_certifies_and_the_unbuilt_rows_say_so(dp0_claim):
    certificate = certify(dp0_claim, FINAL)
    assert certificate.verdict is Verdict.CERTIFIED
    outcomes = {o.name: o.outcome for o in certificate.obligations}
    assert all(outcomes[name] is Outcome.NOT_IMPLEMENTED for name, _, _ in UNBUILT)
    assert outcomes["A.a_maximisation"] is Outcome.NOT_APPLICABLE, "audits are opt-in"
    assert outcomes["required_checks"] is outcomes["not_a_copy"] is outcomes["thooft_flavour_u1"] is Outcome.CERTIFIED
    assert certificate.summary == {"level": 5, "audits": False}


def test_a_dropped_w_term_changes_the_chiral_ring(dp0_claim):
    # Dropping M Y~ X~ removes the F-term that ties a meson to its dual quarks: the ring's counts see it.  The
    # operator map sees B's W is no longer the image of A's, which proves nothing alone (dP0's three arrows
    # per pair of nodes could be mixed by a redefinition): unknown, so the required evidence is missing too,
    # which is no failure of its own.
    wrong = dp0_claim.model_copy(update={"theory_b": apply(dp0_claim.theory_b, Perturbation("drop_w_term", "0"))})
    assert _failed(wrong) == {"chiral_ring"}
    assert certify(wrong, FINAL).verdict is Verdict.FAILED


def test_a_sign_flip_no_field_redefinition_absorbs_changes_the_chiral_ring(dp0_claim):
    flips = [apply(dp0_claim.theory_b, Perturbation("flip_w_sign", str(i)))
             for i in range(len(dp0_claim.theory_b.superpotential))]
    caught = [_failed(dp0_claim.model_copy(update={"theory_b": b})) for b in flips]
    assert {"chiral_ring"} in caught
    assert all(failed in ({"chiral_ring"}, set()) for failed in caught)


def test_an_r_charge_off_by_a_third_breaks_w_the_gauge_r_anomaly_and_thooft_matching(dp0_claim):
    label = dp0_claim.theory_b.arrows[0].label
    wrong = dp0_claim.model_copy(update={
        "theory_b": apply(dp0_claim.theory_b, Perturbation("r_charge_perturb", label, "+1/3"))})
    failed = _failed(wrong)
    assert {"B.superpotential_r_charge", "B.gauge_r_anomaly", "thooft_tr_r", "thooft_tr_r3",
            "central_charge_a", "central_charge_c"} <= failed
    assert not any(name.startswith("A.") for name in failed)


def test_a_rank_off_by_one_breaks_the_cubic_and_gauge_r_anomalies(dp0_claim):
    wrong = dp0_claim.model_copy(update={"theory_b": apply(dp0_claim.theory_b, Perturbation("rank_perturb", "1", "+1"))})
    assert {"B.cubic_gauge_anomaly", "B.gauge_r_anomaly", "thooft_tr_r"} <= _failed(wrong)


def test_the_final_judge_sees_at_least_what_interaction_sees(seed_claims):
    for claim in list(seed_claims.values())[:4]:
        wrong = claim.model_copy(update={"theory_b": apply(claim.theory_b, Perturbation("drop_w_term", "1"))})
        assert _failed(wrong, INTERACTION) <= _failed(wrong, FINAL)


def test_audits_flag_r_charges_that_a_maximisation_rejects(seed_claims):
    # dP1's superconformal R-charges are irrational (a-maximisation gives square roots); the seed encodes
    # rationals, so the encoded R cannot be a critical point of the trial a.
    certificate = certify(seed_claims["dp1_N2_node0"], Settings(level=3, audits=True))
    outcomes = {o.name: o.outcome for o in certificate.obligations}
    assert outcomes["A.a_maximisation"] is Outcome.FAILED
    assert outcomes["A.unitarity"] is Outcome.CERTIFIED
    # The evidence locates the maximum.  With equal ranks and no adjoints the trial a is N^2 times a
    # function of R plus a constant, so the large-N dP1 values hold at N = 2: R = (sqrt(13) - 1)/3 and
    # sqrt(13) - 3 among them (Bertolini, Bigazzi, Cotrone, JHEP 0412 (2004) 024).
    evidence = next(o for o in certificate.obligations if o.name == "A.a_maximisation").evidence
    located = set(evidence["a_maximising_r"].values())
    assert round((13 ** 0.5 - 1) / 3, 6) in located and round(13 ** 0.5 - 3, 6) in located
    dp0_outcomes = {o.name: o.outcome for o in certify(seed_claims["dp0_toric_N3_node0"],
                                                         Settings(level=3, audits=True)).obligations}
    assert dp0_outcomes["A.a_maximisation"] is dp0_outcomes["B.a_maximisation"] is Outcome.CERTIFIED


def test_a_light_singlet_violates_unitarity(dp0_claim):
    light = dp0_claim.theory_b.model_copy(update={"singlets": (
        *dp0_claim.theory_b.singlets,
        Singlet(label="S", r_charge=Fraction(1, 3)))})
    outcomes = {o.name: o for o in certify(dp0_claim.model_copy(update={"theory_b": light}),
                                           Settings(audits=True)).obligations}
    assert outcomes["B.unitarity"].outcome is Outcome.FAILED
    assert "singlet S has R = 1/3 < 2/3" in outcomes["B.unitarity"].message
