"""The copy guard: is a proposed B the electric theory A in disguise?

Matching obligations compare B with A, so B = A passes all of them.  A byte comparison is not enough:
relabelled nodes or fields, reordered lists, rotated W terms, or every arrow reversed (charge
conjugation: each representation conjugated, each trace read backwards) describe the same theory.  So
do a massive vector-like pair added to W, or a decoupled sector (an inert singlet, an extra gauge node
that no arrow or W term ties to the rest).  Both theories are therefore brought to their normal form
(normal_form.py: massive fields integrated out) and become coloured directed graphs (gauge nodes with
their ranks, fields with their R-charges, each W term a node that holds a directed cycle of arrow slots
pointing at fields and points at its singlets, which commute).  The graph's connected components are the
theory's decoupled sectors; isomorphism is decided sector by sector, each sector in either orientation,
by individualisation and colour refinement (the method of nauty, in a few lines: refinement alone prunes
the symmetric quivers that make VF2 search for minutes).  W coefficients are ignored: a copy with
rescaled couplings is still a copy.

B is a copy of A when every sector of one of them appears in the other: B is A with sectors added
(B contains A), or A with sectors removed.  Graph matching is bounded (bounds.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator

import networkx as nx

from physvec.verifiers.dualitycert.bounds import Budget
from physvec.verifiers.dualitycert.normal_form import normal_form
from physvec.verifiers.dualitycert.theory import Theory

MATCH_WORK = 5_000_000
"""Node and edge visits (per refinement round) the matcher may spend on one comparison: a few seconds."""


def theory_graph(theory: Theory, conjugate: bool = False) -> nx.DiGraph:
    """The theory as a coloured digraph; ``conjugate`` reverses every arrow and every trace.

    A W term is a node ("term", index) that holds a directed cycle of slots, one per arrow factor in the
    trace's order, and points at each of its singlets with their multiplicity.  Singlets are gauge-neutral
    and commute with everything, so a term is (multiset of singlets) x (cyclic word of arrows): where a
    singlet is written inside the factor list carries no meaning, and relabelling fields, which moves a
    least rotation and any singlet written after it, must not change the graph.
    """
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
    singlets = {singlet.label for singlet in theory.singlets}
    for index, term in enumerate(theory.superpotential):
        _add_term(graph, index, [f for f in term.factors if f not in singlets],
                  Counter(f for f in term.factors if f in singlets), conjugate)
    return graph


def _add_term(graph: nx.DiGraph, index: int, walk: list[str], singlets: Counter, conjugate: bool) -> None:
    """One W term: its node, the cycle of its arrow slots (read backwards if ``conjugate``), its singlets."""
    term = ("term", index)
    graph.add_node(term, colour=("term",))
    factors = list(reversed(walk)) if conjugate else walk
    slots = [("slot", index, position) for position in range(len(factors))]
    for slot, factor in zip(slots, factors, strict=True):
        graph.add_node(slot, colour=("slot",))
        graph.add_edge(term, slot, colour="holds")
        graph.add_edge(slot, ("field", factor), colour="is")
    for slot, following in zip(slots, slots[1:] + slots[:1], strict=True):
        if slot != following:
            graph.add_edge(slot, following, colour="next")
    for singlet, multiplicity in singlets.items():
        graph.add_edge(term, ("field", singlet), colour=f"singlet x{multiplicity}")


def _same_colour(first: dict, second: dict) -> bool:
    return first["colour"] == second["colour"]


def _histogram(colour: dict) -> Counter:
    return Counter(colour.values())


def _refine(first: nx.DiGraph, second: nx.DiGraph, colours: tuple[dict, dict],
            budget: Budget) -> tuple[dict, dict] | None:
    """Colour refinement (1-dimensional Weisfeiler-Leman) of both graphs with one shared palette, until
    stable; None as soon as the two colour histograms differ (no isomorphism respects the colours).
    Each round spends the graphs' size in work units."""
    current = colours
    for _ in range(max(first.number_of_nodes(), 1)):
        budget.spend(first.number_of_nodes() + first.number_of_edges())
        palette: dict[tuple, int] = {}
        refined = []
        for graph, colour in zip((first, second), current, strict=True):
            signature = {node: (colour[node],
                                tuple(sorted((d["colour"], colour[t]) for _, t, d in graph.out_edges(node, data=True))),
                                tuple(sorted((d["colour"], colour[s]) for s, _, d in graph.in_edges(node, data=True))))
                         for node in graph}
            refined.append({node: palette.setdefault(sig, len(palette)) for node, sig in signature.items()})
        if _histogram(refined[0]) != _histogram(refined[1]):
            return None
        stable = len(set(refined[0].values())) == len(set(current[0].values()))
        current = (refined[0], refined[1])
        if stable:
            return current
    return current


def _is_isomorphism(first: nx.DiGraph, second: nx.DiGraph, mapping: dict) -> bool:
    return all(first.nodes[n]["colour"] == second.nodes[mapping[n]]["colour"] for n in first) and all(
        second.has_edge(mapping[u], mapping[v]) and second.edges[mapping[u], mapping[v]]["colour"] == d["colour"]
        for u, v, d in first.edges(data=True))


def _search(first: nx.DiGraph, second: nx.DiGraph, colours: tuple[dict, dict], budget: Budget) -> Iterator[dict]:
    """Individualisation-refinement: fix one node of the smallest ambiguous colour class, try each
    partner, refine, recurse; a discrete colouring is a candidate isomorphism."""
    refined = _refine(first, second, colours, budget)
    if refined is None:
        return
    ones, twos = refined
    classes: dict[int, list] = {}
    for node, colour in ones.items():
        classes.setdefault(colour, []).append(node)
    ambiguous = [(len(nodes), colour) for colour, nodes in classes.items() if len(nodes) > 1]
    if not ambiguous:
        partner = {colour: node for node, colour in twos.items()}
        mapping = {node: partner[colour] for node, colour in ones.items()}
        if _is_isomorphism(first, second, mapping):
            yield mapping
        return
    _, colour = min(ambiguous)
    chosen = min(classes[colour], key=repr)
    fresh = -1 - len(first)  # a colour no refinement produces
    for candidate in sorted((n for n, c in twos.items() if c == colour), key=repr):
        budget.spend()
        yield from _search(first, second, ({**ones, chosen: fresh}, {**twos, candidate: fresh}), budget)


def _fingerprint(graph: nx.DiGraph) -> tuple:
    """Cheap isomorphism invariant: sizes and colour counts."""
    colours = Counter(str(data["colour"]) for _, data in graph.nodes(data=True))
    return graph.number_of_nodes(), graph.number_of_edges(), sorted(colours.items())


def matchings(first: nx.DiGraph, second: nx.DiGraph, budget: Budget) -> Iterator[dict]:
    """Every colour-preserving isomorphism first -> second (bounded), by individualisation-refinement."""
    if _fingerprint(first) != _fingerprint(second):
        return iter(())
    palette: dict[str, int] = {}
    colours = tuple({node: palette.setdefault(str(data["colour"]), len(palette)) for node, data in g.nodes(data=True)}
                    for g in (first, second))
    return _search(first, second, colours, budget)


def _sectors(theory: Theory) -> list[tuple[nx.DiGraph, nx.DiGraph]]:
    """Each decoupled sector as (graph, conjugated graph)."""
    graph, conjugated = theory_graph(theory), theory_graph(theory, conjugate=True)
    return [(graph.subgraph(nodes).copy(), conjugated.subgraph(nodes).copy())
            for nodes in nx.weakly_connected_components(graph)]


def _same_sector(first: tuple[nx.DiGraph, nx.DiGraph], second: tuple[nx.DiGraph, nx.DiGraph], budget: Budget) -> bool:
    return any(next(matchings(candidate, second[0], budget), None) is not None for candidate in first)


def _contains(big: list, small: list, budget: Budget) -> bool:
    """Every sector of ``small`` matched to its own sector of ``big`` (greedy is exact: isomorphism up
    to conjugation is an equivalence relation, so any free isomorphic sector will do)."""
    free = list(range(len(big)))
    for sector in small:
        match = next((i for i in free if _same_sector(big[i], sector, budget)), None)
        if match is None:
            return False
        free.remove(match)
    return True


def same_sectors(first: Theory, second: Theory, budget: Budget | None = None) -> bool:
    """True when the normal forms have the same sectors up to labels, order, rotation and conjugation.

    Raises NotExact (normal form) or WorkBoundExceeded (matching).
    """
    budget = budget or Budget(MATCH_WORK, "graph matching")
    big, small = _sectors(normal_form(first)), _sectors(normal_form(second))
    return len(big) == len(small) and _contains(big, small, budget)


def is_copy_of(candidate: Theory, original: Theory, budget: Budget | None = None) -> bool:
    """True when ``candidate`` is ``original`` with sectors added or removed, up to labels, list order,
    trace rotation, conjugation and massive fields.

    Raises NotExact (normal form) or WorkBoundExceeded (matching).
    """
    budget = budget or Budget(MATCH_WORK, "graph matching")
    mine, theirs = _sectors(normal_form(candidate)), _sectors(normal_form(original))
    return _contains(mine, theirs, budget) or _contains(theirs, mine, budget)
