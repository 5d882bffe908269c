"""The R-graded single-trace chiral ring on hand-countable cases, and against a brute-force word count."""

from __future__ import annotations

import time
from collections import defaultdict
from fractions import Fraction

import pytest
from sympy import Matrix

from tests.verifiers.dualitycert.conftest import arrow, dp0_data
from physvec.verifiers.dualitycert.bounds import Budget, WorkBoundExceeded
from physvec.verifiers.dualitycert import chiral_ring
from physvec.verifiers.dualitycert.chiral_ring import (RING_WORK, graded_dimensions, graded_stream, min_cycle_mean,
                                                     ring_preconditions, window)
from physvec.verifiers.dualitycert.normal_form import derivative, least_rotation, superpotential_terms
from physvec.verifiers.dualitycert.perturb import candidates, apply
from physvec.verifiers.dualitycert.theory import Theory, parse_theory, structural_problems


def brute_force(theory: Theory, bound: Fraction) -> dict[Fraction, int]:
    """The same count by listing every cyclic word and every relation tr(dW/dX w) (small cases only)."""
    adjoints = {a.label for a in theory.arrows if a.is_adjoint}
    charge = theory.field_r()
    walks = defaultdict(list)  # (start, end) -> [(walk, R)], every walk with R <= bound, the empty ones too
    for node in theory.nodes:
        stack = [((), node, Fraction(0))]
        while stack:
            walk, at, r = stack.pop()
            walks[(node, at)].append((walk, r))
            stack += [((*walk, a.label), a.target, r + a.r_charge) for a in theory.arrows
                      if a.source == at and r + a.r_charge <= bound]
    def zero(walk):
        return len(walk) == 1 and walk[0] in adjoints
    words = defaultdict(set)
    for node in theory.nodes:
        for walk, r in walks[(node, node)]:
            if walk and not zero(walk):
                words[r].add(("w", least_rotation(walk)))
    for s in theory.singlets:
        if s.r_charge <= bound:
            words[s.r_charge].add(("s", s.label))
    relations = defaultdict(list)
    terms = superpotential_terms(theory)
    for field in (*theory.arrows, *theory.singlets):
        parts = derivative(terms, field.label)
        closings = walks[(field.source, field.target)] if field in theory.arrows else [((), Fraction(0))]
        for closing, r in closings:
            if field in theory.arrows and field.is_adjoint and not closing:
                continue
            row = defaultdict(Fraction)
            for c, walk, singlets in parts:
                full = walk + closing
                if full and not singlets and not zero(full):
                    row[("w", least_rotation(full))] += c
                elif not full and len(singlets) == 1:
                    row[("s", singlets[0])] += c
            grade = 2 - charge[field.label] + r
            if 0 < grade <= bound and any(row.values()):
                relations[grade].append(row)
    dims = {}
    for grade, basis in words.items():
        columns = sorted(basis)
        rank = Matrix([[row.get(c, 0) for c in columns] for row in relations.get(grade, [])]).rank() \
            if relations.get(grade) else 0
        dims[grade] = len(columns) - rank
    return {g: d for g, d in dims.items() if d}


def test_the_window_of_level_l_is_r_up_to_two_l_over_three():
    assert window(3) == 2 and window(5) == Fraction(10, 3)


def test_cyclic_words_are_compared_in_their_least_rotation():
    assert least_rotation(("Y1", "Z0", "X2")) == ("X2", "Y1", "Z0")


def test_dp0_has_ten_generators_at_r_two(dp0):
    # The 27 cyclic words X_i Y_j Z_k; the F-terms (eps_ijk W) make them symmetric in (i, j, k), and the
    # symmetric tensors of rank 3 over C^3 number C(5, 3) = 10: the cubic invariants of C^3/Z3.
    assert graded_dimensions(dp0, window(5)) == {Fraction(2): 10}


def test_without_a_superpotential_nothing_is_related(dp0):
    free = dp0.model_copy(update={"superpotential": ()})
    assert graded_dimensions(free, window(3))[Fraction(2)] == 27


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
        dims = [graded_dimensions(t, window(3)) for t in (claim.theory_a, claim.theory_b)]
        assert dims[0] == dims[1] and sum(dims[0].values()) > 0, name


def test_a_singlet_is_a_generator_whatever_its_name():
    # No singlet switches the ring off any more, and none is recognised by its label.
    for label in ("S", "tr[M]"):
        data = dp0_data()
        data["singlets"] = [{"label": label, "r_charge": "2/3"}]
        theory = parse_theory(data)
        assert ring_preconditions(theory) == []
        assert graded_dimensions(theory, window(3)) == {Fraction(2, 3): 1, Fraction(2): 10}


def test_an_su_n_adjoint_is_traceless():
    # SU(3) with one adjoint at R = 2/3 and no W: tr(Phi) = 0, tr(Phi^2) and tr(Phi^3) remain.
    theory = parse_theory({"node_labels": ["a"], "ranks": [3], "arrows": [arrow("Phi", 0, 0, "2/3")]})
    assert graded_dimensions(theory, window(3)) == {Fraction(4, 3): 1, Fraction(2): 1}


def test_a_trace_singlet_coupling_is_counted_so_dropping_it_shows(seed_claims):
    # C3/(Z2 x Z2) on node 0: each trace singlet S = tr M couples only through S q~ q / N; without that
    # coupling its F-term no longer removes tr(q~ q), and the ring at R = 2/3 grows.
    dual = seed_claims["c3_z2z2_N2_node0"].theory_b
    singlets = {s.label for s in dual.singlets}
    for index, term in enumerate(dual.superpotential):
        if singlets & set(term.factors):
            dropped = dual.model_copy(update={"superpotential": dual.superpotential[:index] + dual.superpotential[index + 1:]})
            assert graded_dimensions(dropped, window(3)) != graded_dimensions(dual, window(3)), term.factors


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "f0_phase_ii_N3_node0", "c3_z2z2_N2_node0", "dp1_N2_node0",
                                  "dp2_phase1_N2_node3", "spp_N2_node0"])
def test_the_jacobian_algebra_count_equals_listing_every_word(seed_claims, cell):
    claim = seed_claims[cell]
    theories = [claim.theory_a, claim.theory_b]
    theories += [apply(claim.theory_b, p) for pool in candidates(claim.theory_b).values() for p in pool[:2]]
    checked = 0
    for theory in theories:
        if structural_problems(theory) or ring_preconditions(theory):
            continue
        assert graded_dimensions(theory, window(3)) == brute_force(theory, window(3)), theory.name
        checked += 1
    assert checked >= 4


def test_two_light_adjoints_hit_the_work_bound_quickly():
    # Two adjoints at R = 1/50: the window R <= 10/3 holds about 2^166 words.  The count stops at its bound.
    theory = parse_theory({"node_labels": ["a"], "ranks": [2],
                           "arrows": [arrow("P", 0, 0, "1/50"), arrow("Q", 0, 0, "1/50")]})
    started = time.perf_counter()
    with pytest.raises(WorkBoundExceeded):
        graded_dimensions(theory, window(5), Budget(200_000, "test"))
    assert time.perf_counter() - started < 30


def test_a_replayed_stream_is_the_stream_built_afresh(dp0):
    # The cached stream (no budget given) must give every reader what a fresh count with its own budget gives,
    # also when two readers of one theory interleave (a claim whose B equals A).
    fresh = list(graded_stream(dp0, window(6), Budget(RING_WORK, "fresh")))
    first, second = graded_stream(dp0, window(6)), graded_stream(dp0, window(6))
    interleaved = list(zip(first, second))
    assert [one for one, _ in interleaved] == fresh == [two for _, two in interleaved]
    assert list(graded_stream(dp0, window(6))) == fresh
    assert fresh == [(Fraction(2), 10), (Fraction(4), 28)]  # dP0: Sym^3 of C^3 at R = 2, Sym^6 at R = 4


def test_a_work_bound_met_once_is_met_again_by_every_reader(monkeypatch):
    # A stream that ran out of work for its first reader must not look complete (or shorter) to the next.
    monkeypatch.setattr(chiral_ring, "RING_WORK", 200_000)
    theory = parse_theory({"name": "two light adjoints, replayed", "node_labels": ["a"], "ranks": [2],
                           "arrows": [arrow("P", 0, 0, "1/50"), arrow("Q", 0, 0, "1/51")]})
    for _ in range(2):
        with pytest.raises(WorkBoundExceeded, match="200000 work units"):
            list(graded_stream(theory, window(5)))


def test_readers_at_different_levels_get_what_fresh_counts_give(seed_claims):
    # One ring per theory serves L = 3 and L = 5 (the repair loop, then the final judge), in either order.
    dual = seed_claims["spp_N2_node0"].theory_b
    fresh = {level: list(graded_stream(dual, window(level), Budget(RING_WORK, "fresh"))) for level in (3, 5)}
    assert fresh[3] == [(r, n) for r, n in fresh[5] if r <= 2] and len(fresh[5]) > len(fresh[3])
    for order in ((3, 5), (5, 3)):
        chiral_ring._quiver_ring.cache_clear()
        assert {level: list(graded_stream(dual, window(level))) for level in order} == fresh


def test_a_work_bound_met_high_up_leaves_lower_readers_their_grades(monkeypatch):
    # The bound is set to exactly the work a fresh count to R <= 2 needs, so the next grade built runs out; a
    # shared ring that met the bound for a reader to R <= 8/3 must still answer a reader to R <= 2.
    theory = parse_theory({"name": "two adjoints, met high up", "node_labels": ["a"], "ranks": [2],
                           "arrows": [arrow("P", 0, 0, "1/5"), arrow("Q", 0, 0, "1/7")]})
    measured = Budget(RING_WORK, "measured")
    low = list(graded_stream(theory, window(3), measured))
    with pytest.raises(WorkBoundExceeded):
        list(graded_stream(theory, window(4), Budget(measured.used, "fresh")))
    monkeypatch.setattr(chiral_ring, "RING_WORK", measured.used)
    chiral_ring._quiver_ring.cache_clear()
    with pytest.raises(WorkBoundExceeded):
        list(graded_stream(theory, window(4)))
    assert list(graded_stream(theory, window(3))) == low and low


def test_rational_couplings_count_as_their_integer_multiples(dp0):
    # Scaling W by a constant rescales every F-term, so the ring is unchanged; with 3/7 the elimination runs in
    # Fractions where +-1 couplings keep it in ints, and both must count the same.
    terms = tuple(t.model_copy(update={"coefficient": t.coefficient * Fraction(3, 7)}) for t in dp0.superpotential)
    scaled = dp0.model_copy(update={"superpotential": terms})
    assert graded_dimensions(scaled, window(6), Budget(RING_WORK, "scaled")) == \
        graded_dimensions(dp0, window(6), Budget(RING_WORK, "as written"))


def test_theories_that_differ_in_ranks_or_names_share_one_count(dp0):
    # The planar count has no rank in it: a rank-perturbed claim reads the ring its unperturbed twin built.
    renamed = dp0.model_copy(update={"ranks": (4, 5, 6), "name": "dP0 elsewhere", "node_labels": ("x", "y", "z")})
    assert chiral_ring._ring(renamed) is chiral_ring._ring(dp0)
    assert graded_dimensions(renamed, window(6)) == graded_dimensions(dp0, window(6), Budget(RING_WORK, "fresh"))
    assert chiral_ring._ring(dp0.model_copy(update={"superpotential": dp0.superpotential[1:]})) is not \
        chiral_ring._ring(dp0)
