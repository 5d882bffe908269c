"""Seiberg dualisation: the dual's content, exact integrating-out, nearest consistent R, refusals."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.dualitycert.dualize import DualisationError, dualize, nearest_consistent_r
from physvec.verifiers.dualitycert.registry import FINAL, certify
from physvec.verifiers.dualitycert.theory import Claim


def test_dp0_dualised_on_a_node_has_the_known_dual_content(dp0):
    dual = dualize(dp0, 0)
    # N_f = 3 arrows x rank 3 = 9 flavours: SU(3) -> SU(9 - 3) = SU(6).
    assert dual.ranks == (6, 3, 3)
    # The nine mesons Z_k X_i split into 6 (symmetric) + 3 (antisymmetric); the antisymmetric three pair
    # with the three Y_j in mass terms and are integrated out with them.
    mesons = [a for a in dual.arrows if a.label.startswith("M[")]
    assert len(mesons) == 6 and not any(a.label.startswith("Y") for a in dual.arrows)
    assert len([a for a in dual.arrows if a.label.endswith("~")]) == 6
    assert {a.r_charge for a in mesons} == {Fraction(4, 3)}
    assert {a.r_charge for a in dual.arrows if a.label.endswith("~")} == {Fraction(1, 3)}
    assert all(len(term.factors) == 3 for term in dual.superpotential)


def test_every_seed_cells_dual_certifies_against_its_electric_theory(seed_claims):
    for name, claim in seed_claims.items():
        certificate = certify(claim, FINAL)
        assert certificate.verdict is Verdict.CERTIFIED, (name, [o.name for o in certificate.failed()])


def test_adjoint_mesons_bring_their_trace_singlet_so_thooft_anomalies_match(seed_claims):
    # C3/(Z2 x Z2) on node 0: the mesons X_i0 X_0i are N x Nbar = adjoint + singlet of SU(2)_i.
    claim: Claim = seed_claims["c3_z2z2_N2_node0"]
    assert sorted(s.label for s in claim.theory_b.singlets) == [
        "tr[M[X10[0].X01[0]]]", "tr[M[X20[0].X02[0]]]", "tr[M[X30[0].X03[0]]]"]


def test_a_consistent_r_assignment_is_left_where_it_is(dp0):
    assert nearest_consistent_r(dp0) == dp0


def test_a_perturbed_r_assignment_moves_back_onto_the_consistent_space(dp0):
    moved = dp0.model_copy(update={"arrows": (dp0.arrows[0].model_copy(update={"r_charge": Fraction(1)}),
                                              *dp0.arrows[1:])})
    repaired = nearest_consistent_r(moved)
    outcomes = {o.name: o.outcome for o in certify(Claim(theory_a=dp0, theory_b=repaired)).obligations}
    assert outcomes["B.superpotential_r_charge"] is Outcome.CERTIFIED
    assert outcomes["B.gauge_r_anomaly"] is Outcome.CERTIFIED
    assert repaired.arrows[0].r_charge < 1


@pytest.mark.parametrize("node, message", [(5, "not a node"), (0, "adjoint")])
def test_nodes_that_cannot_be_dualised_are_refused(dp0, node, message):
    with_adjoint = dp0.model_copy(update={"arrows": (*dp0.arrows, dp0.arrows[0].model_copy(
        update={"label": "Phi", "target": 0}))})
    with pytest.raises(DualisationError, match=message):
        dualize(with_adjoint, node)


def test_a_dual_rank_below_two_is_refused(dp0):
    with pytest.raises(DualisationError, match="dual rank"):
        dualize(dp0.model_copy(update={"ranks": (8, 3, 3)}), 0)
