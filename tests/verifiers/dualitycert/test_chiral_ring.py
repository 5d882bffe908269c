"""The R-graded single-trace chiral ring on hand-countable cases."""

from __future__ import annotations

from fractions import Fraction

from tests.verifiers.dualitycert.conftest import dp0_data
from physvec.verifiers.dualitycert.chiral_ring import (graded_dimensions, least_rotation, min_cycle_mean, ring_preconditions,
                                               window)
from physvec.verifiers.dualitycert.theory import parse_theory


def test_the_window_of_level_l_is_r_up_to_two_l_over_three():
    assert window(3) == 2 and window(5) == Fraction(10, 3)


def test_cyclic_words_are_compared_in_their_least_rotation():
    assert least_rotation(("Y1", "Z0", "X2")) == ("X2", "Y1", "Z0")


def test_dp0_has_ten_operators_at_r_two(dp0):
    # The 27 cyclic words X_i Y_j Z_k; the F-terms (eps_ijk W) make them symmetric in (i, j, k), and the
    # symmetric tensors of rank 3 over C^3 number C(5, 3) = 10: the cubic invariants of C^3/Z3.
    table = graded_dimensions(dp0, window(5))
    assert table == {Fraction(2): {"words": 27, "relations": 17, "dimension": 10}}


def test_without_a_superpotential_nothing_is_related(dp0):
    free = dp0.model_copy(update={"superpotential": ()})
    assert graded_dimensions(free, window(3))[Fraction(2)]["dimension"] == 27


def test_a_field_may_have_r_at_most_zero_but_no_closed_walk_may():
    data = dp0_data()
    data["arrows"][0]["r_charge"] = "0"      # X0: every cycle X0 Y Z still has R = 4/3
    theory = parse_theory(data)
    assert min_cycle_mean(theory) == Fraction(4, 9)
    assert not any("closed walk" in p for p in ring_preconditions(theory))
    data["arrows"][3]["r_charge"] = "-2/3"   # Y0: the cycle X0 Y0 Z0 has R = 0
    problems = ring_preconditions(parse_theory(data))
    assert any("a closed walk of the quiver has R <= 0" in p for p in problems)
    assert any("!= 2" in p for p in problems)


def test_the_dp2_cells_with_fields_at_r_zero_and_below_have_matching_rings(seed_claims):
    # dP2's seeds encode R = 0 and R = -1/10 on some arrows, but every cycle keeps R > 0.
    for name in ("dp2_phase1_N2_node3", "dp2_phase1_N2_node4"):
        claim = seed_claims[name]
        dims = [{r: row["dimension"] for r, row in graded_dimensions(t, window(3)).items() if row["dimension"]}
                for t in (claim.theory_a, claim.theory_b)]
        assert dims[0] == dims[1] and sum(dims[0].values()) > 0, name


def test_a_free_singlet_makes_the_ring_not_applicable_but_a_trace_singlet_does_not():
    data = dp0_data()
    data["singlets"] = [{"label": "S", "r_charge": "2/3"}]
    assert any("singlet S is not a trace singlet" in p for p in ring_preconditions(parse_theory(data)))
    data["singlets"] = [{"label": "tr[M]", "r_charge": "2/3"}]
    assert ring_preconditions(parse_theory(data)) == []
