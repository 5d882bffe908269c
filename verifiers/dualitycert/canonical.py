"""Coloured digraphs in canonical form (nauty), and the isomorphisms between two of them.

Why: the copy guard and the operator map ask, claim after claim, whether two theories are the same quiver
with potential up to labels.  nauty (through pynauty) numbers a graph's nodes so that isomorphic graphs get
the same numbered graph; computed once per graph, a comparison is a key comparison, and a theory paired with
many others is brought to form once (a hand-written colour refinement in Python was most of the checker's
time, issue 36).

nauty is given an undirected graph with the same isomorphisms (on digraphs its refinement can search without
end: a 108-node theory graph did not finish in a minute).  An edge's type is (colour of its source, colour of
its target, its colour):
- between two node colours that one edge type alone joins, an edge stays an edge (the colours say the rest);
- between two node colours that several types join, it passes through a middle node coloured by its type;
- between nodes of one colour, through a tail node and a head node coloured by its type (the direction).
Which rule applies depends only on the types present, which any isomorphism keeps, so isomorphic graphs get
isomorphic encodings, and an encoding's isomorphism restricted to the original nodes is one of the graphs.
The colour classes go to nauty in sorted order of their names; nauty numbers each class in a block of its own,
in that order, so the classes with their sizes and nauty's certificate (the canonically numbered adjacency)
are the key.

Matching is bounded (bounds.py): a comparison spends the size of its graphs and every isomorphism it lists;
the size bounds of bounds.py cap what nauty is given, and its own search, though exponential in the worst case
known (graphs built to defeat refinement), is not counted.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Iterator
from dataclasses import dataclass

from physvec.verifiers.dualitycert.bounds import Budget
from physvec.verifiers.dualitycert.memo import per_theory


@dataclass(frozen=True)
class Graph:
    """A coloured digraph on nodes 0..n-1: ``labels[i]`` names node i (("field", label), ("term", index),
    ...), ``colours[i]`` is its colour, ``edges`` are (source, target, edge colour)."""

    labels: tuple[Hashable, ...]
    colours: tuple[str, ...]
    edges: tuple[tuple[int, int, str], ...]

    def subgraph(self, nodes: list[int]) -> Graph:
        """The nodes given (in their order) and the edges between them, renumbered."""
        if list(nodes) == list(range(len(self.labels))):
            return self
        index = {node: position for position, node in enumerate(nodes)}
        return Graph(tuple(self.labels[n] for n in nodes), tuple(self.colours[n] for n in nodes),
                     tuple((index[u], index[v], c) for u, v, c in self.edges if u in index and v in index))


def _undirected(graph: Graph) -> tuple[list[tuple], dict[int, list[int]]]:
    """nauty's input for ``graph`` (see the module note): colour names per node, original nodes first and
    numbered as in ``graph``, and an undirected adjacency."""
    colours = graph.colours
    types_between: dict[frozenset, set[tuple[str, str, str]]] = {}
    for u, v, c in graph.edges:
        types_between.setdefault(frozenset((colours[u], colours[v])), set()).add((colours[u], colours[v], c))
    names: list[tuple] = [("node", colour) for colour in colours]
    adjacency: dict[int, list[int]] = {}

    def joined(a: int, b: int) -> None:
        adjacency.setdefault(a, []).append(b)

    for u, v, c in graph.edges:
        kind = (colours[u], colours[v], c)
        if colours[u] == colours[v]:
            tail, head = len(names), len(names) + 1
            names += [("tail", kind), ("head", kind)]
            joined(u, tail), joined(tail, head), joined(head, v)
        elif len(types_between[frozenset((colours[u], colours[v]))]) > 1:
            middle = len(names)
            names.append(("middle", kind))
            joined(u, middle), joined(middle, v)
        else:
            joined(u, v)
    return names, adjacency


class Canonical:
    """A graph in canonical form: equal keys exactly when two graphs are isomorphic (colours respected).

    ``position[i]`` is node i's place in the canonical numbering and ``automorphisms`` generate the graph's
    automorphism group (each a permutation of its nodes); both are computed only when isomorphisms are listed.
    """

    def __init__(self, graph: Graph) -> None:
        import pynauty  # compiled: only where a copy guard or an operator map runs

        names, adjacency = _undirected(graph)
        classes: dict[tuple, set[int]] = {}
        for node, name in enumerate(names):
            classes.setdefault(name, set()).add(node)
        order = sorted(classes)
        self.nodes = len(graph.labels)
        self.size = self.nodes + len(graph.edges)
        """nodes + edges: the work units one comparison with this graph spends"""
        self._nauty = pynauty.Graph(len(names), directed=False, adjacency_dict=adjacency,
                                    vertex_coloring=[classes[name] for name in order])
        self.key = (tuple((name, len(classes[name])) for name in order), pynauty.certificate(self._nauty))

    @functools.cached_property
    def position(self) -> tuple[int, ...]:
        import pynauty

        position = [0] * self.nodes
        for place, node in enumerate(pynauty.canon_label(self._nauty)):
            if node < self.nodes:
                position[node] = place
        return tuple(position)

    @functools.cached_property
    def automorphisms(self) -> tuple[tuple[int, ...], ...]:
        import pynauty

        return tuple(tuple(generator[:self.nodes]) for generator in pynauty.autgrp(self._nauty)[0])


@per_theory(maxsize=2048)
def canonical(graph: Graph) -> Canonical:
    """The canonical form of ``graph``, computed once per graph."""
    return Canonical(graph)


def isomorphic(first: Graph, second: Graph, budget: Budget) -> bool:
    """True when some colour-preserving isomorphism maps ``first`` onto ``second``."""
    one, two = canonical(first), canonical(second)
    budget.spend(one.size + two.size)
    return one.key == two.key


def _group(generators: tuple[tuple[int, ...], ...], size: int, budget: Budget) -> Iterator[tuple[int, ...]]:
    """Every element of the permutation group the generators span, the identity first (breadth first)."""
    identity = tuple(range(size))
    found, queue = {identity}, [identity]
    for element in queue:
        budget.spend(size)
        yield element
        for generator in generators:
            product = tuple(element[generator[n]] for n in range(size))
            if product not in found:
                found.add(product)
                queue.append(product)


def matchings(first: Graph, second: Graph, budget: Budget) -> Iterator[dict]:
    """Every colour-preserving isomorphism first -> second, as {first's label: second's label}, lazily.

    One isomorphism comes from the two canonical numberings; the others are it after each automorphism of
    ``first`` (an isomorphism composed with an automorphism is one, and two isomorphisms differ by one)."""
    if not isomorphic(first, second, budget):
        return
    one, two = canonical(first), canonical(second)
    at_place = {place: node for node, place in enumerate(two.position)}
    for automorphism in _group(one.automorphisms, len(first.labels), budget):
        yield {first.labels[n]: second.labels[at_place[one.position[automorphism[n]]]]
               for n in range(len(first.labels))}
