"""Gauge anomalies, R traces and central charges against values worked out by hand."""

from __future__ import annotations

from fractions import Fraction

from tests.verifiers.dualitycert.conftest import arrow
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.dualitycert.anomalies import central_charges, cubic_anomaly, mixed_r_anomaly, r_trace
from physvec.verifiers.dualitycert.obligations import cubic_gauge_anomaly, witten_anomaly
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import parse_theory


def test_dp0_at_rank_three_has_the_hand_computed_traces_and_central_charges(dp0):
    # Three SU(3) nodes give 3 x 8 = 24 gauginos (R - 1 = 1); nine bifundamentals of 3 x 3 = 9
    # components at R = 2/3 give 81 fermions with R - 1 = -1/3.
    # Tr R = 24 - 81/3 = -3; Tr R^3 = 24 - 81/27 = 21;
    # a = 3/32 (3 * 21 + 3) = 99/16; c = 1/32 (9 * 21 + 15) = 51/8.
    assert r_trace(dp0, 1) == -3
    assert r_trace(dp0, 3) == 21
    assert central_charges(dp0) == (Fraction(99, 16), Fraction(51, 8))


def test_dp0_nodes_are_anomaly_free(dp0):
    # Each node: 3 fundamentals and 3 antifundamentals of multiplicity 3 (cubic 9 - 9 = 0);
    # gauge-R: 3 + 6 bifundamentals x 1/2 x 3 x (2/3 - 1) = 3 - 3 = 0.
    assert [cubic_anomaly(dp0, n) for n in dp0.nodes] == [0, 0, 0]
    assert [mixed_r_anomaly(dp0, n) for n in dp0.nodes] == [0, 0, 0]


def test_every_seed_theory_is_free_of_gauge_anomalies():
    for cell in seed_cells():
        theory = cell.electric()
        assert all(mixed_r_anomaly(theory, n) == 0 for n in theory.nodes), cell.name
        assert cubic_gauge_anomaly(theory, "A").outcome is Outcome.CERTIFIED, cell.name
        assert witten_anomaly(theory, "A").outcome in (Outcome.CERTIFIED, Outcome.NOT_APPLICABLE), cell.name


def _su2_su3(*arrows):
    return parse_theory({"node_labels": ["SU(2)", "SU(3)"], "ranks": [2, 3], "arrows": list(arrows)})


def test_an_su2_node_with_an_odd_number_of_doublets_has_a_witten_anomaly():
    # One bifundamental (2, 3bar) gives SU(2) three doublets: odd.
    odd = _su2_su3(arrow("Q", 0, 1, "1/2"))
    assert witten_anomaly(odd, "A").outcome is Outcome.FAILED
    # A second one, (3, 2bar), makes six.
    even = _su2_su3(arrow("Q", 0, 1, "1/2"), arrow("P", 1, 0, "1/2"))
    assert witten_anomaly(even, "A").outcome is Outcome.CERTIFIED


def test_the_cubic_anomaly_counts_multiplicities_and_spares_su2():
    # SU(3) sees the single (2, 3bar) as two antifundamentals: anomaly -2, a failure.
    # SU(2) has no cubic invariant, so its +3 is reported but cannot fail.
    lone = _su2_su3(arrow("Q", 0, 1, "1/2"))
    assert [cubic_anomaly(lone, n) for n in lone.nodes] == [3, -2]
    obligation = cubic_gauge_anomaly(lone, "B")
    assert obligation.outcome is Outcome.FAILED
    assert obligation.message.endswith("SU(3)") and obligation.name == "B.cubic_gauge_anomaly"


def test_an_adjoint_counts_n_squared_minus_one_and_its_dynkin_index_is_n():
    theory = parse_theory({"node_labels": ["SU(3)"], "ranks": [3], "arrows": [arrow("Phi", 0, 0, "2/3")]})
    # Tr R = 8 (gauginos) + 8 (2/3 - 1) = 16/3; gauge-R anomaly 3 + 3 (2/3 - 1) = 2.
    assert r_trace(theory, 1) == Fraction(16, 3)
    assert mixed_r_anomaly(theory, 0) == 2
    assert cubic_anomaly(theory, 0) == 0
