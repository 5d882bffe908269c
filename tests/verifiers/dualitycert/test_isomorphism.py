"""The copy guard sees through relabelling, reordering, trace rotation, charge conjugation, massive fields
and decoupled sectors."""

from __future__ import annotations

import random
from fractions import Fraction

import pytest

from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.isomorphism import is_copy_of
from physvec.verifiers.dualitycert.normal_form import NotExact, normal_form
from physvec.verifiers.dualitycert.theory import Arrow, Singlet, Term, Theory


def _disguised(theory: Theory, conjugate: bool) -> Theory:
    """Fields renamed and listed backwards, nodes permuted, traces rotated (and reversed if conjugated)."""
    names = {arrow.label: f"F{index}" for index, arrow in enumerate(theory.arrows)}
    order = list(reversed(theory.nodes))
    place = {node: order.index(node) for node in theory.nodes}
    arrows = []
    for arrow in reversed(theory.arrows):
        source, target = (arrow.target, arrow.source) if conjugate else (arrow.source, arrow.target)
        arrows.append(arrow.model_copy(update={"label": names[arrow.label], "source": place[source],
                                               "target": place[target]}))
    terms = []
    for term in theory.superpotential:
        rotated = term.factors[1:] + term.factors[:1]
        factors = tuple(names[f] for f in (reversed(rotated) if conjugate else rotated))
        terms.append(term.model_copy(update={"factors": factors, "coefficient": 2 * term.coefficient}))
    return theory.model_copy(update={"ranks": tuple(theory.ranks[n] for n in order), "arrows": tuple(arrows),
                                     "superpotential": tuple(terms), "node_labels": ("p", "q", "r")})


def test_a_relabelled_copy_is_caught(dp0):
    assert is_copy_of(_disguised(dp0, conjugate=False), dp0)


def test_a_charge_conjugated_copy_is_caught(dp0):
    assert is_copy_of(_disguised(dp0, conjugate=True), dp0)


def test_a_genuine_dual_or_a_changed_theory_is_not_a_copy(dp0):
    assert not is_copy_of(dualize(dp0, 0), dp0)
    changed = dp0.model_copy(update={"arrows": (dp0.arrows[0].model_copy(update={"r_charge": Fraction(1, 3)}),
                                                *dp0.arrows[1:])})
    assert not is_copy_of(changed, dp0)
    assert not is_copy_of(dp0.model_copy(update={"superpotential": dp0.superpotential[1:]}), dp0)


def test_self_dual_seed_cells_are_recognised(seed_claims):
    # dP1 has a single toric phase: dualising a node with N_f = 2N returns the same quiver.
    assert is_copy_of(seed_claims["dp1_N2_node0"].theory_b, seed_claims["dp1_N2_node0"].theory_a)


# Class: the guard compares normal forms, so padding A does not make it "not a copy".

def _with(theory: Theory, arrows=(), singlets=(), terms=(), ranks=()) -> Theory:
    return theory.model_copy(update={
        "ranks": (*theory.ranks, *ranks), "node_labels": (*theory.node_labels, *(f"extra{i}" for i in range(len(ranks)))),
        "arrows": (*theory.arrows, *arrows), "singlets": (*theory.singlets, *singlets),
        "superpotential": (*theory.superpotential, *terms)})


def test_a_plus_a_massive_vector_like_pair_is_a_copy(dp0):
    pair = (Arrow(label="Y", source=0, target=1, r_charge=Fraction(1)),
            Arrow(label="Yt", source=1, target=0, r_charge=Fraction(1)))
    assert is_copy_of(_with(dp0, arrows=pair, terms=(Term(coefficient=Fraction(5), factors=("Y", "Yt")),)), dp0)


def test_a_plus_an_inert_singlet_or_a_decoupled_node_is_a_copy(dp0):
    assert is_copy_of(_with(dp0, singlets=(Singlet(label="S", r_charge=Fraction(1)),)), dp0)
    adjoint = Arrow(label="Phi", source=3, target=3, r_charge=Fraction(0))
    assert is_copy_of(_with(dp0, arrows=(adjoint,), ranks=(2,)), dp0)
    assert is_copy_of(dp0, _with(dp0, arrows=(adjoint,), ranks=(2,))), "A with a sector removed is a copy too"


def test_flip_singlets_with_a_singlet_mass_term_are_integrated_out(dp0):
    # The debris of dualising twice: S flips an operator, T pairs with S.  Integrating out S and T exactly
    # (W0 - P Q / m with Q = 0) leaves A.
    flips = (Singlet(label="S", r_charge=Fraction(2, 3)), Singlet(label="T", r_charge=Fraction(4, 3)))
    terms = (Term(coefficient=Fraction(1), factors=("S", "T")),
             Term(coefficient=Fraction(1), factors=("X0", "Y0", "Z0", "S")))
    padded = _with(dp0, singlets=flips, terms=terms)
    assert normal_form(padded) == dp0
    assert is_copy_of(padded, dp0)


def test_a_double_trace_from_singlet_masses_is_not_exact(dp0):
    flips = (Singlet(label="S", r_charge=Fraction(0)), Singlet(label="T", r_charge=Fraction(2)))
    terms = (Term(coefficient=Fraction(1), factors=("S", "T")),
             Term(coefficient=Fraction(1), factors=("X0", "Y0", "Z0", "S")),
             Term(coefficient=Fraction(1), factors=("X1", "Y1", "Z1", "T")))
    with pytest.raises(NotExact, match="double-trace"):
        normal_form(_with(dp0, singlets=flips, terms=terms))


def test_a_dual_with_a_massive_pair_is_still_not_a_copy(dp0):
    dual = dualize(dp0, 0)
    pair = (Arrow(label="Y", source=0, target=1, r_charge=Fraction(1)),
            Arrow(label="Yt", source=1, target=0, r_charge=Fraction(1)))
    assert not is_copy_of(_with(dual, arrows=pair, terms=(Term(coefficient=Fraction(1), factors=("Y", "Yt")),)), dp0)


# Class: singlets are gauge-neutral and commute, so a W term is (multiset of singlets) x (cyclic word of
# arrows); where its factor list writes a singlet carries no meaning, while the arrows' cyclic order does.

def _singlets_moved(theory: Theory, rng: random.Random) -> Theory:
    """Every W term with its trace rotated and its singlets written at random places among the arrows."""
    singlets = {s.label for s in theory.singlets}
    terms = []
    for term in theory.superpotential:
        walk = [f for f in term.factors if f not in singlets]
        turn = rng.randrange(len(walk)) if walk else 0
        factors = walk[turn:] + walk[:turn]
        for singlet in (f for f in term.factors if f in singlets):
            factors.insert(rng.randrange(len(factors) + 1), singlet)
        terms.append(term.model_copy(update={"factors": tuple(factors)}))
    return theory.model_copy(update={"superpotential": tuple(terms)})


@pytest.mark.parametrize("cell", ["spp_N2_node0", "spp_N2_node2", "c3_z2z2_N2_node0", "c3_z2z2_N2_node1"])
def test_where_a_term_writes_its_singlets_does_not_change_the_graph(seed_claims, cell):
    dual, rng = seed_claims[cell].theory_b, random.Random(cell)
    for _ in range(6):
        moved = _singlets_moved(dual, rng)
        assert moved != dual or not dual.singlets
        assert is_copy_of(moved, dual) and is_copy_of(dual, moved)


def test_the_cyclic_order_of_the_arrows_still_matters():
    # Distinct R-charges pin every field, and the 3-cycle pins the orientation: the two traces below differ
    # only in the order of their arrows and must stay apart, wherever the singlet is written.
    arrows = tuple(Arrow(label=f"{name}{i}", source=s, target=t, r_charge=Fraction(3 * s + i, 7))
                   for name, s, t in (("X", 0, 1), ("Y", 1, 2), ("Z", 2, 0)) for i in (1, 2))

    def theory(*factors: str) -> Theory:
        return Theory(node_labels=("a", "b", "c"), ranks=(2, 2, 2), arrows=arrows,
                      singlets=(Singlet(label="S", r_charge=Fraction(1, 3)),),
                      superpotential=(Term(coefficient=Fraction(1), factors=factors),))

    ordered = theory("X1", "Y1", "Z1", "X2", "Y2", "Z2", "S")
    assert is_copy_of(theory("Z1", "S", "X2", "Y2", "Z2", "X1", "Y1"), ordered)
    assert not is_copy_of(theory("X1", "Y2", "Z1", "X2", "Y1", "Z2", "S"), ordered)
