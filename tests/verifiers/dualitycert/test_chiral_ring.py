"""The R-graded single-trace chiral ring on hand-countable cases."""

from __future__ import annotations

from fractions import Fraction

from tests.verifiers.dualitycert.conftest import dp0_data
from verifiers.dualitycert.chiral_ring import graded_dimensions, least_rotation, ring_preconditions, window
from verifiers.dualitycert.theory import parse_theory


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


def test_a_field_with_r_at_most_zero_makes_the_ring_not_applicable():
    data = dp0_data()
    data["arrows"][0]["r_charge"] = "0"
    problems = ring_preconditions(parse_theory(data))
    assert any("X0 has R = 0 <= 0" in p for p in problems)
    assert any("!= 2" in p for p in problems)


def test_a_free_singlet_makes_the_ring_not_applicable_but_a_trace_singlet_does_not():
    data = dp0_data()
    data["singlets"] = [{"label": "S", "r_charge": "2/3"}]
    assert any("singlet S is not a trace singlet" in p for p in ring_preconditions(parse_theory(data)))
    data["singlets"] = [{"label": "tr[M]", "r_charge": "2/3"}]
    assert ring_preconditions(parse_theory(data)) == []
