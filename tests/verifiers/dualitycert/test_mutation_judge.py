"""The mutation judge: the campaigns' second, independent answer to "is B the Seiberg dual of A?".

Written as a specification: the dual's field content is checked against what a hand calculation gives,
disguises of the true dual are right, faults that no relabelling or rescaling undoes are wrong, a sign
that only a rescaling by sqrt(-1) absorbs is right, and the judge never reaches into the verdict's code.
"""

from __future__ import annotations

import subprocess
import sys
from collections import Counter
from fractions import Fraction

import pytest

from physvec.verifiers.dualitycert import mutation_judge
from physvec.verifiers.dualitycert.mutation_judge import (conjugate, dual_at, equivalent, integrate_out, judge, read,
                                                          r_problems, rescalable)
from physvec.verifiers.dualitycert.seeds import seed_cells
from physvec.verifiers.dualitycert.theory import Arrow, Claim, Singlet, Term, Theory, parse_theory

from .conftest import dp0_data

VERDICT_MODULES = ("dualize", "normal_form", "isomorphism", "couplings", "operator_map", "chiral_ring", "anomalies",
                   "registry", "obligations", "global_symmetries", "exact_linear", "ground_truth")


def _arrow_content(theory_or_quiver) -> Counter:
    quiver = theory_or_quiver if isinstance(theory_or_quiver, mutation_judge.Quiver) else read(theory_or_quiver)
    return Counter(quiver.arrows.values())


def _disguised(theory: Theory, conjugated: bool) -> Theory:
    """Fresh names, nodes in reverse order, lists reversed, traces rotated; optionally every arrow reversed
    and every trace read backwards (charge conjugation)."""
    names = {field.label: f"f{n}" for n, field in enumerate((*theory.arrows, *theory.singlets))}
    where = {old: len(theory.ranks) - 1 - old for old in theory.nodes}
    arrows = [Arrow(label=names[a.label], r_charge=a.r_charge,
                    source=where[a.target if conjugated else a.source], target=where[a.source if conjugated else a.target])
              for a in reversed(theory.arrows)]
    terms = []
    for term in reversed(theory.superpotential):
        factors = [names[f] for f in (reversed(term.factors) if conjugated else term.factors)]
        terms.append(Term(coefficient=term.coefficient, factors=tuple(factors[1:] + factors[:1])))
    return Theory(name="disguised", node_labels=tuple(f"n{n}" for n in theory.nodes), ranks=tuple(reversed(theory.ranks)),
                  arrows=tuple(arrows), singlets=tuple(Singlet(label=names[s.label], r_charge=s.r_charge)
                                                       for s in theory.singlets), superpotential=tuple(terms))


def _with_term(theory: Theory, index: int, coefficient: Fraction | None) -> Theory:
    """Term ``index`` dropped (coefficient None) or given a new coefficient."""
    terms = list(theory.superpotential)
    if coefficient is None:
        del terms[index]
    else:
        terms[index] = terms[index].model_copy(update={"coefficient": coefficient})
    return theory.model_copy(update={"superpotential": tuple(terms)})


def test_the_dual_of_dp0_at_node_0_has_the_hand_calculated_field_content(dp0: Theory) -> None:
    # SU(3)^3 with X: 0->1, Y: 1->2, Z: 2->0 (three each, R = 2/3).  At node 0: N_f = 3 x 3 = 9, dual rank 6;
    # X and Z turn round with R = 1/3; nine mesons [Z X]: 2 -> 1 with R = 4/3; eps X Y Z becomes the six mass
    # terms eps [Z_k X_i] Y_j, which remove the three Y and three meson combinations: six mesons stay.
    dual = dual_at(dp0, 0)
    assert dual.ranks == (6, 3, 3)
    third = Fraction(1, 3)
    assert _arrow_content(dual) == Counter({(1, 0, third): 3, (0, 2, third): 3, (2, 1, Fraction(4, 3)): 6})
    assert not dual.singlets
    # the cubic terms [Z_k X_i] X_i~ Z_k~: one per pair of dual quarks, each meson-X~-Z~, none lost
    pairs = Counter(frozenset(name for name in walk if name[0] == "q") for walk, _ in dual.potential)
    assert len(dual.potential) == 9 and set(pairs.values()) == {1} and all(len(p) == 2 for p in pairs)
    assert r_problems(dual) == []


def test_a_node_whose_r_mixes_with_baryon_number_gets_the_shifted_dual_charges() -> None:
    # F0 phase II at node 0: quarks out (X01, X03) have R = 1/2, antiquarks in (X20) R = 1, N_c = 3, N_f = 12,
    # N~_c = 9.  R = 3/4 + beta B with beta = -1/4; B maps to N_c / N~_c on the dual quarks, so
    # delta = beta N_f / N~_c = -1/3: the dual of X01 has R = 1 - 1/2 - 1/3 = 1/6, the dual of X20 R = 1/3.
    cell = next(c for c in seed_cells() if c.name == "f0_phase_ii_N3_node0")
    dual = dual_at(cell.electric(), 0)
    turned = {name[1][1]: arrow[2] for name, arrow in dual.arrows.items() if name[0] == "q"}
    assert {label: str(r) for label, r in turned.items()} == {
        **{f"X01[{i}]": "1/6" for i in range(2)}, **{f"X03[{i}]": "1/6" for i in range(2)},
        **{f"X20[{i}]": "1/3" for i in range(4)}}
    assert r_problems(dual) == []
    naive = read(cell.electric())
    naive = mutation_judge.Quiver(dual.ranks, {n: (s, t, 1 - naive.arrows[n[1]][2]) if n[0] == "q" else (s, t, r)
                                               for n, (s, t, r) in dual.arrows.items()}, dual.singlets, dual.potential)
    assert any("anomaly" in problem for problem in r_problems(naive))  # 1 - R alone is anomalous at node 2


def _electric_theories() -> dict[str, Theory]:
    return {cell.electric_file: cell.electric() for cell in seed_cells()}


def test_fields_away_from_the_node_keep_their_r_charge_and_every_dual_is_consistent() -> None:
    # Duality at k is local: a field that does not touch k is a spectator, its charges unchanged.
    for name, electric in _electric_theories().items():
        for node in electric.nodes:
            try:
                dual = dual_at(electric, node)
            except mutation_judge.NotDualisable:
                continue
            kept = {("e", a.label): (a.source, a.target, a.r_charge) for a in electric.arrows
                    if node not in (a.source, a.target) and ("e", a.label) in dual.arrows}
            assert all(dual.arrows[n] == arrow for n, arrow in kept.items()), (name, node)
            assert r_problems(dual) == [], (name, node)


def test_dualising_twice_at_a_node_gives_back_a() -> None:
    # Seiberg duality is an involution: the second dual's mesons pair with the first's and leave, the dual
    # quarks of the dual quarks are A's quarks, and the baryonic R shifts cancel.
    for name, electric in _electric_theories().items():
        for node in electric.nodes:
            try:
                once = dual_at(electric, node)
            except mutation_judge.NotDualisable:
                continue
            try:
                twice = integrate_out(mutation_judge.mutate(once, node))
            except mutation_judge.Undecided as error:
                # SPP: the trace singlets of the two duals pair up, and their F-terms are double traces
                assert name.startswith("spp") and "double-trace" in str(error), (name, node, error)
                continue
            assert equivalent(read(electric), twice), (name, node)


def test_every_seed_cells_dual_from_the_verdict_path_is_judged_right(seed_claims: dict[str, Claim]) -> None:
    for name, claim in seed_claims.items():
        truth, why = judge(claim.theory_a, claim.theory_b)
        assert truth is True, (name, why)


@pytest.mark.parametrize("conjugated", [False, True])
def test_a_relabelled_permuted_copy_of_the_dual_is_right(seed_claims: dict[str, Claim], conjugated: bool) -> None:
    for name in ("dp2_phase1_N2_node4", "spp_N2_node0", "c3_z2z2_N2_node1"):
        claim = seed_claims[name]
        assert judge(claim.theory_a, _disguised(claim.theory_b, conjugated))[0] is True, name


def test_a_dropped_coupling_is_wrong(seed_claims: dict[str, Claim]) -> None:
    for name in ("dp1_N2_node0", "spp_N2_node2"):
        claim = seed_claims[name]
        for index in range(len(claim.theory_b.superpotential)):
            assert judge(claim.theory_a, _with_term(claim.theory_b, index, None))[0] is False, (name, index)


def test_a_sign_flip_no_rescaling_absorbs_is_wrong_and_one_it_absorbs_is_right(seed_claims: dict[str, Claim]) -> None:
    # dP1's dual at node 0: one invariant prod_t c_t^n_t with every n_t odd: a single flip or factor changes it
    claim = seed_claims["dp1_N2_node0"]
    for index, term in enumerate(claim.theory_b.superpotential):
        flipped = _with_term(claim.theory_b, index, -term.coefficient)
        assert judge(claim.theory_a, flipped)[0] is False, index
    b = claim.theory_b
    assert judge(claim.theory_a, _with_term(b, 0, 5 * b.superpotential[0].coefficient))[0] is False
    # field f -> -5 f multiplies each term by (-5)^(times f occurs): a rescaling, so still the dual
    field = b.superpotential[0].factors[0]
    rescaled = b.model_copy(update={"superpotential": tuple(
        t.model_copy(update={"coefficient": t.coefficient * Fraction(-5) ** t.factors.count(field)})
        for t in b.superpotential)})
    assert rescaled != b and judge(claim.theory_a, rescaled)[0] is True


def test_a_sign_only_sqrt_minus_one_absorbs_is_right_and_its_neighbour_is_wrong(dp0: Theory,
                                                                                seed_claims: dict[str, Claim]) -> None:
    # Add a decoupled sector of two singlets with R = 1/2 and W = S^4 + S^2 T^2 + T^4 to dP0 and its dual.
    # The only invariant is c(S^4) c(T^4) / c(S^2 T^2)^2: flipping S^2 T^2 keeps it (lambda_T = i, no real
    # rescaling does it), flipping S^4 does not.
    def with_sector(theory: Theory) -> Theory:
        half = Fraction(1, 2)
        return theory.model_copy(update={
            "singlets": (*theory.singlets, Singlet(label="S", r_charge=half), Singlet(label="T", r_charge=half)),
            "superpotential": (*theory.superpotential, Term(coefficient=1, factors=("S",) * 4),
                               Term(coefficient=1, factors=("S", "S", "T", "T")), Term(coefficient=1, factors=("T",) * 4))})

    electric, dual = with_sector(dp0), with_sector(seed_claims["dp0_toric_N3_node0"].theory_b)
    last = len(dual.superpotential) - 1
    assert judge(electric, _with_term(dual, last - 1, Fraction(-1)))[0] is True
    assert judge(electric, _with_term(dual, last - 2, Fraction(-1)))[0] is False


def test_rescalability_reads_the_integer_lattice_not_a_rational_basis() -> None:
    # terms S^2 and S^4: the invariant lattice is spanned by (-2, 1), not by a multiple such as (-4, 2)
    lattice = [[-2, 1]]
    assert rescalable([Fraction(-1), Fraction(1)], lattice)  # lambda = i: S^2 -> -S^2, S^4 -> S^4
    assert not rescalable([Fraction(1), Fraction(-1)], lattice)
    assert rescalable([Fraction(2), Fraction(4)], lattice) and not rescalable([Fraction(2), Fraction(3)], lattice)
    theory = parse_theory({"node_labels": ["a"], "ranks": [2], "arrows": [],
                           "singlets": [{"label": "S", "r_charge": "1/2"}],
                           "superpotential": [{"coefficient": "1", "factors": ["S", "S"]},
                                              {"coefficient": "1", "factors": ["S", "S", "S", "S"]}]})
    assert mutation_judge.invariant_lattice(read(theory)) in ([[-2, 1]], [[2, -1]])


def test_huge_coefficients_are_compared_exactly_without_factoring() -> None:
    big = (2**89 - 1) * (2**107 - 1) * 3**40  # two Mersenne primes: no trial division would finish
    assert rescalable([Fraction(big), Fraction(1, big)], [[1, 1]])
    assert not rescalable([Fraction(big), Fraction(big, 3)], [[1, -1]])
    assert sorted(mutation_judge.coprime_base([12, 18, big])) == sorted([2, 3, (2**89 - 1) * (2**107 - 1)])


@pytest.mark.parametrize("step", ["+1/3", "-1/3"])
def test_a_wrong_r_charge_is_wrong(seed_claims: dict[str, Claim], step: str) -> None:
    claim = seed_claims["c3_z2z2_N2_node0"]
    for field in (*claim.theory_b.arrows[:3], *claim.theory_b.singlets[:1]):
        moved = claim.theory_b.model_copy(update={
            "arrows": tuple(a.model_copy(update={"r_charge": a.r_charge + Fraction(step)}) if a == field else a
                            for a in claim.theory_b.arrows),
            "singlets": tuple(s.model_copy(update={"r_charge": s.r_charge + Fraction(step)}) if s == field else s
                              for s in claim.theory_b.singlets)})
        assert judge(claim.theory_a, moved)[0] is False, field.label


def test_a_wrong_rank_and_a_copy_of_a_that_is_not_self_dual_are_wrong(seed_claims: dict[str, Claim]) -> None:
    claim = seed_claims["dp0_toric_N3_node0"]
    ranks = list(claim.theory_b.ranks)
    ranks[0] += 1
    assert judge(claim.theory_a, claim.theory_b.model_copy(update={"ranks": tuple(ranks)}))[0] is False
    assert judge(claim.theory_a, claim.theory_a)[0] is False


def test_a_self_dual_cells_copy_of_a_is_right(seed_claims: dict[str, Claim]) -> None:
    claim = seed_claims["dp1_N2_node0"]
    assert judge(claim.theory_a, _disguised(claim.theory_a, conjugated=True))[0] is True


def test_massive_fields_leave_before_the_comparison(seed_claims: dict[str, Claim]) -> None:
    claim = seed_claims["spp_N2_node0"]
    b = claim.theory_b
    padded = b.model_copy(update={
        "arrows": (*b.arrows, Arrow(label="Y", source=0, target=1, r_charge=Fraction(3, 4)),
                   Arrow(label="Yt", source=1, target=0, r_charge=Fraction(5, 4))),
        "singlets": (*b.singlets, Singlet(label="P", r_charge=Fraction(1))),
        "superpotential": (*b.superpotential, Term(coefficient=Fraction(-3, 2), factors=("Y", "Yt")),
                           Term(coefficient=Fraction(2), factors=("P", "P")))})
    assert judge(claim.theory_a, padded)[0] is True
    inert = b.model_copy(update={"singlets": (*b.singlets, Singlet(label="I", r_charge=Fraction(1)))})
    assert judge(claim.theory_a, inert)[0] is False  # an inert singlet is a field of its own


def test_a_mass_whose_solution_is_a_double_trace_is_undecided() -> None:
    # S T + S tr(X Y) + T tr(X Y): S = T = -tr(X Y), and S T becomes tr(X Y)^2, which W cannot hold
    theory = parse_theory({
        "node_labels": ["a", "b"], "ranks": [2, 2],
        "arrows": [{"label": "X", "source": 0, "target": 1, "r_charge": "1/2"},
                   {"label": "Y", "source": 1, "target": 0, "r_charge": "1/2"}],
        "singlets": [{"label": "S", "r_charge": "1"}, {"label": "T", "r_charge": "1"}],
        "superpotential": [{"coefficient": "1", "factors": ["S", "T"]}, {"coefficient": "1", "factors": ["S", "X", "Y"]},
                           {"coefficient": "1", "factors": ["T", "X", "Y"]}]})
    with pytest.raises(mutation_judge.Undecided, match="double-trace"):
        integrate_out(read(theory))
    truth, why = judge(parse_theory(dp0_data()), theory)
    assert truth is None and "double-trace" in why


def test_a_search_over_budget_is_undecided_not_a_hang(seed_claims: dict[str, Claim],
                                                      monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mutation_judge, "MATCH_WORK", 3)
    claim = seed_claims["dp0_toric_N3_node0"]
    truth, why = judge(claim.theory_a, claim.theory_b)
    assert truth is None and "more than 3 steps" in why


def test_an_electric_theory_with_inconsistent_r_charges_is_not_judged(dp0: Theory) -> None:
    moved = dp0.model_copy(update={"arrows": tuple(a.model_copy(update={"r_charge": Fraction(1, 2)})
                                                   if a.label == "X0" else a for a in dp0.arrows)})
    truth, why = judge(moved, dp0)
    assert truth is None and "R-charges are not consistent" in why


def test_conjugation_is_an_involution_and_equivalence_sees_through_it(seed_claims: dict[str, Claim]) -> None:
    quiver = read(seed_claims["dp2_phase1_N2_node3"].theory_b)
    assert conjugate(conjugate(quiver)) == quiver
    assert equivalent(quiver, conjugate(quiver))


def test_the_judge_imports_none_of_the_verdicts_modules() -> None:
    code = ("import sys, physvec.verifiers.dualitycert.mutation_judge; "
            "print(' '.join(m for m in sys.modules if m.startswith('physvec.verifiers.dualitycert.')))")
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout.split()
    assert set(loaded) == {"physvec.verifiers.dualitycert.theory", "physvec.verifiers.dualitycert.mutation_judge"}
    assert not any(loaded_name.rsplit(".", 1)[1] in VERDICT_MODULES for loaded_name in loaded)
