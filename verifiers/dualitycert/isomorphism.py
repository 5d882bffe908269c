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
the symmetric quivers that make VF2 search for minutes).  The graphs are plain integer adjacency lists
(refinement over networkx edge views was most of the checker's time, issue 36).  W coefficients are
ignored: a copy with rescaled couplings is still a copy.

B is a copy of A when every sector of one of them appears in the other: B is A with sectors added
(B contains A), or A with sectors removed.  Graph matching is bounded (bounds.py).
"""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from physvec.verifiers.dualitycert.bounds import Budget
from physvec.verifiers.dualitycert.normal_form import normal_form
from physvec.verifiers.dualitycert.theory import Theory

MATCH_WORK = 5_000_000
"""Node and edge visits (per refinement round) the matcher may spend on one comparison: a few seconds."""


@dataclass(frozen=True)
class Graph:
    """A coloured digraph on nodes 0..n-1: ``labels[i]`` names node i (("field", label), ("term", index),
    ...), ``colours[i]`` is its colour, ``edges`` are (source, target, edge colour)."""

    labels: tuple[Hashable, ...]
    colours: tuple[str, ...]
    edges: tuple[tuple[int, int, str], ...]

    def subgraph(self, nodes: list[int]) -> Graph:
        """The nodes given (in their order) and the edges between them, renumbered."""
        index = {node: position for position, node in enumerate(nodes)}
        return Graph(tuple(self.labels[n] for n in nodes), tuple(self.colours[n] for n in nodes),
                     tuple((index[u], index[v], c) for u, v, c in self.edges if u in index and v in index))


class _Builder:
    """Collects labelled nodes and edges; a node added again takes the later colour, as in networkx."""

    def __init__(self) -> None:
        self.index: dict[Hashable, int] = {}
        self.labels: list[Hashable] = []
        self.colours: list[str] = []
        self.edges: dict[tuple[int, int], str] = {}

    def node(self, label: Hashable, colour: tuple) -> None:
        if label not in self.index:
            self.index[label] = len(self.labels)
            self.labels.append(label)
            self.colours.append(str(colour))
        else:
            self.colours[self.index[label]] = str(colour)

    def edge(self, source: Hashable, target: Hashable, colour: str) -> None:
        """A digraph edge: a second edge between the same ordered pair replaces the first."""
        for label in (source, target):
            if label not in self.index:
                self.node(label, ())
        self.edges[self.index[source], self.index[target]] = colour

    def graph(self) -> Graph:
        return Graph(tuple(self.labels), tuple(self.colours), tuple((u, v, c) for (u, v), c in self.edges.items()))


@functools.lru_cache(maxsize=512)
def theory_graph(theory: Theory, conjugate: bool = False) -> Graph:
    """The theory as a coloured digraph; ``conjugate`` reverses every arrow and every trace.

    A W term is a node ("term", index) that holds a directed cycle of slots, one per arrow factor in the
    trace's order, and points at each of its singlets with their multiplicity.  Singlets are gauge-neutral
    and commute with everything, so a term is (multiset of singlets) x (cyclic word of arrows): where a
    singlet is written inside the factor list carries no meaning, and relabelling fields, which moves a
    least rotation and any singlet written after it, must not change the graph.  Cached (a Graph is
    immutable): the operator map and the copy guard draw the same theory's graph once per node and claim.
    """
    graph = _Builder()
    for node, rank in enumerate(theory.ranks):
        graph.node(("gauge", node), ("gauge", rank))
    for arrow in theory.arrows:
        field = ("field", arrow.label)
        source, target = (arrow.target, arrow.source) if conjugate else (arrow.source, arrow.target)
        graph.node(field, ("field", str(arrow.r_charge)))
        graph.edge(("gauge", source), field, "out")
        graph.edge(field, ("gauge", target), "in")
    for singlet in theory.singlets:
        graph.node(("field", singlet.label), ("singlet", str(singlet.r_charge)))
    singlets = {singlet.label for singlet in theory.singlets}
    for index, term in enumerate(theory.superpotential):
        _add_term(graph, index, [f for f in term.factors if f not in singlets],
                  Counter(f for f in term.factors if f in singlets), conjugate)
    return graph.graph()


def _add_term(graph: _Builder, index: int, walk: list[str], singlets: Counter, conjugate: bool) -> None:
    """One W term: its node, the cycle of its arrow slots (read backwards if ``conjugate``), its singlets."""
    term = ("term", index)
    graph.node(term, ("term",))
    factors = list(reversed(walk)) if conjugate else walk
    slots = [("slot", index, position) for position in range(len(factors))]
    for slot, factor in zip(slots, factors, strict=True):
        graph.node(slot, ("slot",))
        graph.edge(term, slot, "holds")
        graph.edge(slot, ("field", factor), "is")
    for slot, following in zip(slots, slots[1:] + slots[:1], strict=True):
        if slot != following:
            graph.edge(slot, following, "next")
    for singlet, multiplicity in singlets.items():
        graph.edge(term, ("field", singlet), f"singlet x{multiplicity}")


@dataclass(frozen=True)
class _Indexed:
    """A graph with colours as small integers of a palette shared with its partner, and adjacency lists."""

    graph: Graph
    out: tuple[tuple[tuple[int, int], ...], ...]
    """out[n]: (edge colour, target) per edge leaving n"""
    into: tuple[tuple[tuple[int, int], ...], ...]
    edge_colour: dict[tuple[int, int], int]
    size: int
    """nodes + edges: the work of one refinement round"""


def _indexed(graph: Graph, edge_palette: dict[str, int]) -> _Indexed:
    out: list[list[tuple[int, int]]] = [[] for _ in graph.labels]
    into: list[list[tuple[int, int]]] = [[] for _ in graph.labels]
    colour_of: dict[tuple[int, int], int] = {}
    for u, v, c in graph.edges:
        code = edge_palette.setdefault(c, len(edge_palette))
        out[u].append((code, v))
        into[v].append((code, u))
        colour_of[u, v] = code
    return _Indexed(graph, tuple(map(tuple, out)), tuple(map(tuple, into)), colour_of,
                    len(graph.labels) + len(graph.edges))


def _refine(first: _Indexed, second: _Indexed, colours: tuple[list[int], list[int]],
            budget: Budget) -> tuple[list[int], list[int]] | None:
    """Colour refinement (1-dimensional Weisfeiler-Leman) of both graphs with one shared palette, until
    stable; None as soon as the two colour histograms differ (no isomorphism respects the colours).
    Each round spends the graphs' size in work units."""
    current = colours
    kinds = 1 + max((e for graph in (first, second) for e in graph.edge_colour.values()), default=0)
    for _ in range(max(len(first.out), 1)):
        budget.spend(first.size)
        palette: dict[tuple, int] = {}
        refined = []
        for graph, colour in zip((first, second), current, strict=True):
            # (edge colour, neighbour colour) packed into one int: sorting ints is the round's main cost
            refined.append([palette.setdefault(
                (colour[n], tuple(sorted([e + kinds * colour[t] for e, t in graph.out[n]])),
                 tuple(sorted([e + kinds * colour[s] for e, s in graph.into[n]]))), len(palette))
                for n in range(len(colour))])
        if Counter(refined[0]) != Counter(refined[1]):
            return None
        stable = len(set(refined[0])) == len(set(current[0]))
        current = (refined[0], refined[1])
        if stable:
            return current
    return current


def _is_isomorphism(first: _Indexed, second: _Indexed, mapping: list[int]) -> bool:
    return all(first.graph.colours[n] == second.graph.colours[m] for n, m in enumerate(mapping)) and all(
        second.edge_colour.get((mapping[u], mapping[v])) == c for (u, v), c in first.edge_colour.items())


def _search(first: _Indexed, second: _Indexed, colours: tuple[list[int], list[int]],
            budget: Budget) -> Iterator[list[int]]:
    """Individualisation-refinement: fix one node of the smallest ambiguous colour class, try each
    partner, refine, recurse; a discrete colouring is a candidate isomorphism (node i -> mapping[i])."""
    refined = _refine(first, second, colours, budget)
    if refined is None:
        return
    ones, twos = refined
    classes: dict[int, list[int]] = {}
    for node, colour in enumerate(ones):
        classes.setdefault(colour, []).append(node)
    ambiguous = [(len(nodes), colour) for colour, nodes in classes.items() if len(nodes) > 1]
    if not ambiguous:
        partner = {colour: node for node, colour in enumerate(twos)}
        mapping = [partner[colour] for colour in ones]
        if _is_isomorphism(first, second, mapping):
            yield mapping
        return
    _, colour = min(ambiguous)
    chosen = min(classes[colour], key=lambda n: repr(first.graph.labels[n]))
    fresh = -1 - len(ones)  # a colour no refinement produces
    for candidate in sorted((n for n, c in enumerate(twos) if c == colour), key=lambda n: repr(second.graph.labels[n])):
        budget.spend()
        pinned_one, pinned_two = list(ones), list(twos)
        pinned_one[chosen], pinned_two[candidate] = fresh, fresh
        yield from _search(first, second, (pinned_one, pinned_two), budget)


def _fingerprint(graph: Graph) -> tuple:
    """Cheap isomorphism invariant: sizes and colour counts."""
    return len(graph.labels), len(graph.edges), sorted(Counter(graph.colours).items())


def matchings(first: Graph, second: Graph, budget: Budget) -> Iterator[dict]:
    """Every colour-preserving isomorphism first -> second (bounded), by individualisation-refinement,
    as {first's label: second's label}."""
    if _fingerprint(first) != _fingerprint(second):
        return iter(())
    palette: dict[str, int] = {}
    colours = tuple([palette.setdefault(c, len(palette)) for c in g.colours] for g in (first, second))
    edge_palette: dict[str, int] = {}
    one, two = _indexed(first, edge_palette), _indexed(second, edge_palette)
    return ({first.labels[n]: second.labels[m] for n, m in enumerate(mapping)}
            for mapping in _search(one, two, colours, budget))


def _components(graph: Graph) -> list[list[int]]:
    """Weakly connected components (union-find), each as its sorted node list."""
    parent = list(range(len(graph.labels)))

    def root(node: int) -> int:
        while parent[node] != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for u, v, _ in graph.edges:
        parent[root(u)] = root(v)
    groups: dict[int, list[int]] = {}
    for node in range(len(parent)):
        groups.setdefault(root(node), []).append(node)
    return list(groups.values())


def _sectors(theory: Theory) -> list[tuple[Graph, Graph]]:
    """Each decoupled sector as (graph, conjugated graph)."""
    graph, conjugated = theory_graph(theory), theory_graph(theory, conjugate=True)
    position = {label: node for node, label in enumerate(conjugated.labels)}
    return [(graph.subgraph(nodes), conjugated.subgraph([position[graph.labels[n]] for n in nodes]))
            for nodes in _components(graph)]


def _same_sector(first: tuple[Graph, Graph], second: tuple[Graph, Graph], budget: Budget) -> bool:
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
