"""The operator map: are B's chiral-ring relations the images of A's under the duality map at some node?

Why this check exists.  The graded generator count (chiral_ring.py) says how many single-trace operators
survive at each R-charge, never which.  A singlet's F-term kills one combination of single traces; drop
one of the singlet's couplings and another combination dies, while every count, anomaly and central
charge stays as it was.  The SPP dual at N = 2 shows it: with W ⊃ tr[M] (tr X12 X21 + tr X02~ X20~) / 2
the trace singlet identifies tr X12 X21 with -tr X02~ X20~; without the first coupling it sets
tr X02~ X20~ = 0 instead, and the counts agree grade by grade.  The two rings are even isomorphic as
graded rings: the couplings differ by a point of the conformal manifold, not by a symmetry or a count.
Only a map of operators between A and B tells them apart.

What is compared.  Seiberg duality at node k maps A's gauge invariants to B's: a closed walk that avoids k
to itself, each pass a b through k to the meson M[a.b] (an adjoint meson is M_adj + tr[M]/N, its trace
the singlet tr[M]), and a meson that has a mass to what its F-term sets it equal to.  Under that map A's
superpotential becomes the magnetic one dualize.py writes (collapsed electric terms, M b~ a~ per meson,
massive fields integrated out).  A theory's F-term relations are the derivatives of its W, so B's
relations are the images of A's exactly when B's W is that image, up to what leaves the ring unchanged:
relabelling, list order, trace rotation, charge conjugation, massive pairs, and a rescaling of each field
(couplings.py).  The check therefore asks for a node k at which normal_form(B) and dualize(A, k) are the
same quiver with potential in that sense: a graph isomorphism (isomorphism.py and canonical.py, W terms as slot cycles)
whose coefficient ratios a field rescaling produces.

Evidence per node says whether the field content alone matches (gauge ranks, arrows and singlets with
their R-charges: what the dual at k must hold) and whether the couplings do; a dropped, added or altered
coupling shows as "fields match, couplings do not".

Bounds.  dualize integrates massive fields out exactly (W terms multiply), so it runs only up to
MAX_DUALISED_FIELDS fields; matching spends a Budget and tries at most MAX_MATCHINGS isomorphisms.  A node
that cannot be decided within them is reported as undecided, and the caller says unknown: never certified.
"""

from __future__ import annotations

from dataclasses import dataclass

from physvec.verifiers.dualitycert.bounds import Budget, WorkBoundExceeded
from physvec.verifiers.dualitycert.couplings import rescalable, rescaling_invariants
from physvec.verifiers.dualitycert.dualize import DualisationError, dualize
from physvec.verifiers.dualitycert.canonical import Graph, isomorphic, matchings
from physvec.verifiers.dualitycert.isomorphism import MATCH_WORK, theory_graph
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.theory import Theory

MAX_MATCHINGS = 300
"""Isomorphisms of the field content tried per node before the node is given up as undecided."""


@dataclass(frozen=True)
class NodeFinding:
    """What the comparison of B with A's dual at one node found."""

    node: int
    dualisable: bool
    fields_match: bool | None = None
    """None: not compared (not dualisable) or undecided within the bound"""
    couplings_match: bool | None = None
    reason: str = ""

    def row(self) -> dict[str, object]:
        return {"node": self.node, "dualisable": self.dualisable, "fields_match": self.fields_match,
                "couplings_match": self.couplings_match, "reason": self.reason}


@per_theory(maxsize=1024)
def _content_graph(theory: Theory, conjugate: bool) -> Graph:
    """The theory's field content (ranks, arrows, singlets; W left out) as a graph, once per theory: the
    theory graph's first nodes (gauge nodes, arrows, singlets) and the edges among them."""
    fields = len(theory.ranks) + len(theory.arrows) + len(theory.singlets)
    return theory_graph(theory, conjugate).subgraph(list(range(fields)))


def _graphs(first: Theory, second: Theory) -> list[tuple[Graph, Graph]]:
    """(first in each orientation, second): conjugation reverses every arrow and every trace."""
    target = theory_graph(second)
    return [(theory_graph(first, conjugate), target) for conjugate in (False, True)]


def same_field_content(first: Theory, second: Theory, budget: Budget) -> bool:
    """Same ranks, arrows and singlets (with R-charges) up to labels and conjugation, W ignored."""
    target = _content_graph(second, False)
    return any(isomorphic(_content_graph(first, conjugate), target, budget) for conjugate in (False, True))


def same_couplings(first: Theory, second: Theory, budget: Budget) -> bool | None:
    """True when some isomorphism of the theories (W terms included) carries first's couplings to
    second's up to a field rescaling; None when MAX_MATCHINGS isomorphisms were tried without deciding."""
    lattice = rescaling_invariants(first)
    tried = 0
    for one, two in _graphs(first, second):
        for mapping in matchings(one, two, budget):
            tried += 1
            if tried > MAX_MATCHINGS:
                return None
            images = {node[1]: image[1] for node, image in mapping.items() if node[0] == "term"}
            ratios = [second.superpotential[images[index]].coefficient / term.coefficient
                      for index, term in enumerate(first.superpotential)]
            if rescalable(ratios, lattice):
                return True
    return False


def compare_at_node(electric: Theory, candidate: Theory, node: int) -> NodeFinding:
    """B (in normal form) against dualize(A, node): fields first, then couplings."""
    try:
        dual = dualize(electric, node)
    except DualisationError as error:
        return NodeFinding(node, False, reason=str(error))
    budget = Budget(MATCH_WORK, f"operator map at node {node}")
    try:
        if not same_field_content(candidate, dual, budget):
            return NodeFinding(node, True, False, reason="B's field content is not that of the dual at this node")
        couplings = same_couplings(candidate, dual, budget)
    except WorkBoundExceeded as error:
        return NodeFinding(node, True, None, reason=str(error))
    if couplings is None:
        return NodeFinding(node, True, True, None, reason=f"more than {MAX_MATCHINGS} isomorphisms of the field "
                                                          "content: undecided")
    return NodeFinding(node, True, True, couplings,
                       reason="" if couplings else "the fields match but B's W is not the image of A's W: "
                                                   "some coupling, and so some chiral-ring relation, differs")
