"""The copy guard: is a proposed B the electric theory A in disguise?

Matching obligations compare B with A, so B = A passes all of them.  A byte comparison is not enough:
relabelled nodes or fields, reordered lists, rotated W terms, or every arrow reversed (charge
conjugation: each representation conjugated, each trace read backwards) describe the same theory.
Both theories become coloured directed graphs (gauge nodes with their ranks, fields with their
R-charges, each W term as a directed cycle of factor slots pointing at fields) and networkx decides
graph isomorphism.  W coefficients are ignored: a copy with rescaled couplings is still a copy.
"""

from __future__ import annotations

import networkx as nx
from networkx.algorithms.isomorphism import DiGraphMatcher

from physvec.verifiers.dualitycert.theory import Theory


def theory_graph(theory: Theory, conjugate: bool = False) -> nx.DiGraph:
    """The theory as a coloured digraph; ``conjugate`` reverses every arrow and every trace."""
    graph = nx.DiGraph()
    for node, rank in enumerate(theory.ranks):
        graph.add_node(("gauge", node), colour=("gauge", rank))
    for arrow in theory.arrows:
        field = ("field", arrow.label)
        source, target = (arrow.target, arrow.source) if conjugate else (arrow.source, arrow.target)
        graph.add_node(field, colour=("field", str(arrow.r_charge)))
        graph.add_edge(("gauge", source), field, colour="out")
        graph.add_edge(field, ("gauge", target), colour="in")
    for singlet in theory.singlets:
        graph.add_node(("field", singlet.label), colour=("singlet", str(singlet.r_charge)))
    for index, term in enumerate(theory.superpotential):
        factors = list(reversed(term.factors)) if conjugate else list(term.factors)
        slots = [("slot", index, position) for position in range(len(factors))]
        for slot, factor in zip(slots, factors, strict=True):
            graph.add_node(slot, colour=("slot",))
            graph.add_edge(slot, ("field", factor), colour="is")
        for slot, following in zip(slots, slots[1:] + slots[:1], strict=True):
            if slot != following:
                graph.add_edge(slot, following, colour="next")
    return graph


def _same_colour(first: dict, second: dict) -> bool:
    return first["colour"] == second["colour"]


def is_copy_of(candidate: Theory, original: Theory) -> bool:
    """True when ``candidate`` is ``original`` up to labels, list order, trace rotation and conjugation."""
    target = theory_graph(original)
    for conjugate in (False, True):
        matcher = DiGraphMatcher(theory_graph(candidate, conjugate), target,
                                 node_match=_same_colour, edge_match=_same_colour)
        if matcher.is_isomorphic():
            return True
    return False
