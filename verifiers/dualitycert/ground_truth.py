"""Ground truth for benchmark fixtures: is a candidate B a Seiberg dual of A, decided without the verdict?

A campaign must be able to see the verifier's own mistakes, so a fixture's label cannot come from the
registry it is meant to test.  It comes from construction instead: B is right when it is, structurally,
the dual that dualize.py computes for A at some node, and wrong otherwise.  "Structurally" means after
the normal form (massive fields integrated out) and up to relabelling, list order, trace rotation and
charge conjugation, with equal ranks and R-charges, and with W coefficients equal up to a rescaling of
the fields.  None of the anomaly, ring or flavour code is involved.

Rescalings.  Over C, fields phi_f -> lambda_f phi_f multiply a term's coefficient by the product of its
fields' lambdas, so coefficients c' = rho c are reachable exactly when rho_t = prod_f lambda_f^A(t, f)
is solvable in nonzero complex numbers (A: multiplicities of fields in terms; couplings.py).  That holds iff
prod_t rho_t^n_t = 1 for every integer n with n A = 0; an integer basis of that lattice comes from
unimodular row reduction, so the test is exact (a sign that only i = sqrt(-1) absorbs is absorbed).
"""

from __future__ import annotations

from enum import StrEnum
from fractions import Fraction

from physvec.verifiers.dualitycert.bounds import Budget, WorkBoundExceeded
from physvec.verifiers.dualitycert.couplings import left_kernel_lattice, rescalable, rescaling_invariants
from physvec.verifiers.dualitycert.dualize import DualisationError, dualize
from physvec.verifiers.dualitycert.isomorphism import MATCH_WORK, matchings, theory_graph
from physvec.verifiers.dualitycert.normal_form import NotExact, cyclic, normal_form
from physvec.verifiers.dualitycert.theory import Theory

MAX_MATCHINGS = 300
"""Isomorphisms tried for one comparison before the label is given up as undecidable."""


class Label(StrEnum):
    RIGHT = "right"
    WRONG = "wrong"
    UNLABELLED = "unlabelled"


def equivalent(first: Theory, second: Theory) -> bool | None:
    """True when the two theories are the same up to relabelling, conjugation, massive fields and field
    rescalings; None when that could not be decided (not exact, or too many isomorphisms)."""
    try:
        one, two = normal_form(first), normal_form(second)
    except NotExact:
        return None
    lattice = rescaling_invariants(one)
    if _same_labels(one, two):
        keyed = {cyclic(two, term.factors): term.coefficient for term in two.superpotential}
        ratios = [keyed[cyclic(one, term.factors)] / term.coefficient for term in one.superpotential]
        if rescalable(ratios, lattice):
            return True  # the identity map of labels already works
    budget = Budget(MATCH_WORK, "ground-truth matching")
    target = theory_graph(two)
    try:
        for conjugate in (False, True):
            source = theory_graph(one, conjugate)
            for count, mapping in enumerate(matchings(source, target, budget)):
                if count >= MAX_MATCHINGS:
                    return None
                images = {node[1]: image[1] for node, image in mapping.items() if node[0] == "slot"}
                ratios = [two.superpotential[images[index]].coefficient / term.coefficient
                          for index, term in enumerate(one.superpotential)]
                if rescalable(ratios, lattice):
                    return True
    except WorkBoundExceeded:
        return None
    return False


def _same_labels(one: Theory, two: Theory) -> bool:
    """Same nodes, same fields (labels, ends, R) and the same terms up to coefficients."""
    keys = [sorted(cyclic(t, term.factors) for term in t.superpotential) for t in (one, two)]
    return (one.ranks == two.ranks and set(one.arrows) == set(two.arrows) and set(one.singlets) == set(two.singlets)
            and keys[0] == keys[1] and len(set(keys[0])) == len(keys[0]))


def label(electric: Theory, candidate: Theory) -> tuple[Label, str]:
    """RIGHT when ``candidate`` is equivalent to dualize(electric, k) for some node k, WRONG when it is
    equivalent to none, UNLABELLED (with the reason) when some comparison could not be decided."""
    undecided = []
    for node in electric.nodes:
        try:
            dual = dualize(electric, node)
        except DualisationError:
            continue
        verdict = equivalent(candidate, dual)
        if verdict:
            return Label.RIGHT, f"the Seiberg dual of A at node {node}"
        if verdict is None:
            undecided.append(node)
    if undecided:
        return Label.UNLABELLED, f"equivalence to the dual at node(s) {undecided} could not be decided"
    return Label.WRONG, "not the Seiberg dual of A at any node"
