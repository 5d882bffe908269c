"""The copy guard sees through relabelling, reordering, trace rotation and charge conjugation."""

from __future__ import annotations

from fractions import Fraction

from physvec.verifiers.dualitycert.dualize import dualize
from physvec.verifiers.dualitycert.isomorphism import is_copy_of
from physvec.verifiers.dualitycert.theory import Theory


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
