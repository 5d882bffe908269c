"""Seiberg dualisation: the dual's content, exact integrating-out, the image of A's R-charges, refusals."""

from __future__ import annotations

from fractions import Fraction

import pytest

from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.anomalies import r_trace
from physvec.verifiers.dualitycert.dualize import DualisationError
from physvec.verifiers.dualitycert.dualize import dual_label
from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.dualize import meson_label
from physvec.verifiers.dualitycert.isomorphism import same_sectors
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.registry import FINAL, certify
from physvec.verifiers.dualitycert.theory import Claim
from physvec.verifiers.dualitycert.theory import Theory


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


SEEDS = {cell.name: cell for cell in seed_cells()}


def _duals(name: str) -> list[tuple[int, Theory]]:
    """(node, dual) at every dualisable node of the seed cell's electric theory."""
    electric, found = SEEDS[name].electric(), []
    for node in electric.nodes:
        try:
            found.append((node, dualize(electric, node)))
        except DualisationError:
            continue
    return found


@pytest.mark.parametrize("cell", sorted(SEEDS))
def test_the_dual_maps_r_charges_and_leaves_every_field_away_from_the_node_alone(cell):
    # Class: the R step may not move a spectator, and the dual quarks of one node's in- and out-arrows are
    # shifted by opposite amounts (the dual baryon number), whatever A's R mixes with.
    electric = SEEDS[cell].electric()
    for node, dual in _duals(cell):
        _assert_r_is_mapped(electric, node, dual)


def _assert_r_is_mapped(electric: Theory, node: int, dual: Theory) -> None:
    cell, r = electric.name, dual.field_r()
    into = [a for a in electric.arrows if a.target == node]
    out = [a for a in electric.arrows if a.source == node]
    for arrow in electric.arrows:
        if node not in (arrow.source, arrow.target) and arrow.label in r:
            assert r[arrow.label] == arrow.r_charge, (cell, node, arrow.label)
    for singlet in electric.singlets:
        assert r.get(singlet.label, singlet.r_charge) == singlet.r_charge
    shifts = {r[dual_label(a.label)] - (1 - a.r_charge) for a in out if dual_label(a.label) in r}
    shifts |= {(1 - a.r_charge) - r[dual_label(a.label)] for a in into if dual_label(a.label) in r}
    assert len(shifts) == 1, (cell, node, shifts)
    for a in into:
        for b in out:
            assert r.get(meson_label(a.label, b.label), a.r_charge + b.r_charge) == a.r_charge + b.r_charge


@pytest.mark.parametrize("cell", sorted(SEEDS))
def test_the_dual_keeps_the_r_anomalies_and_dualising_twice_gives_a_back(cell):
    # 't Hooft anomaly matching of U(1)_R holds for the image of A's R, not for a nearest consistent point.
    electric = SEEDS[cell].electric()
    for node, dual in _duals(cell):
        assert (r_trace(dual, 1), r_trace(dual, 3)) == (r_trace(electric, 1), r_trace(electric, 3)), node
        if not cell.startswith("spp"):  # SPP's double dual has a trace-singlet mass that makes a double trace
            assert same_sectors(dualize(dual, node), electric), f"node {node}: dualising twice is not A"


def test_a_node_whose_r_mixes_with_baryon_number_shifts_its_dual_quarks(seed_claims):
    # dP1 at node 2: A's R gives the quarks out of the node more than the antiquarks in, and the dual
    # quarks take 1 - R +/- (sum_out N R - sum_in N R) / (2 N~c); every other arrow keeps its R.
    electric = seed_claims["dp1_N2_node0"].theory_a
    dual = dualize(electric, 2)
    out = [a for a in electric.arrows if a.source == 2]
    into = [a for a in electric.arrows if a.target == 2]
    delta = (sum(electric.ranks[a.target] * a.r_charge for a in out)
             - sum(electric.ranks[a.source] * a.r_charge for a in into)) / (2 * dual.ranks[2])
    assert delta != 0
    r = dual.field_r()
    assert all(r[dual_label(a.label)] == 1 - a.r_charge + delta for a in out)
    assert all(r[dual_label(a.label)] == 1 - a.r_charge - delta for a in into)


def test_an_inconsistent_r_assignment_of_a_has_no_dual(dp0):
    # The dual's R is the image of A's R-symmetry; an A whose R breaks W = 2 (or a gauge-R anomaly) has
    # none, and is refused rather than moved somewhere consistent.
    moved = dp0.model_copy(update={"arrows": (dp0.arrows[0].model_copy(update={"r_charge": Fraction(1)}),
                                              *dp0.arrows[1:])})
    with pytest.raises(DualisationError, match="not consistent"):
        dualize(moved, 1)


@pytest.mark.parametrize("node, message", [(5, "not a node"), (0, "adjoint")])
def test_nodes_that_cannot_be_dualised_are_refused(dp0, node, message):
    with_adjoint = dp0.model_copy(update={"arrows": (*dp0.arrows, dp0.arrows[0].model_copy(
        update={"label": "Phi", "target": 0}))})
    with pytest.raises(DualisationError, match=message):
        dualize(with_adjoint, node)


def test_a_dual_rank_below_two_is_refused(dp0):
    with pytest.raises(DualisationError, match="dual rank"):
        dualize(dp0.model_copy(update={"ranks": (8, 3, 3)}), 0)


def test_a_node_that_cannot_be_dualised_says_so_every_time(dp0):
    # The dual is cached per (theory, node); the refusal must be cached as a refusal, not as a theory.
    inconsistent = dp0.model_copy(update={"name": "dP0 with W at R != 2",
                                          "superpotential": dp0.superpotential[:1]})
    broken = inconsistent.model_copy(update={"arrows": tuple(a.model_copy(update={"r_charge": a.r_charge / 2})
                                                             for a in inconsistent.arrows)})
    for _ in range(2):
        with pytest.raises(DualisationError, match="not consistent"):
            dualize(broken, 0)
    assert dualize(dp0, 0) is dualize(dp0, 0)
