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
by canonical forms (canonical.py).  W coefficients are ignored: a copy with rescaled couplings is still a
copy.

B is a copy of A when every sector of one of them appears in the other: B is A with sectors added
(B contains A), or A with sectors removed.  Matching is bounded (bounds.py).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Hashable

from physvec.verifiers.dualitycert.bounds import Budget
from physvec.verifiers.dualitycert.canonical import Graph, canonical
from physvec.verifiers.dualitycert.memo import per_theory
from physvec.verifiers.dualitycert.normal_form import normal_form
from physvec.verifiers.dualitycert.theory import Theory

MATCH_WORK = 5_000_000
"""Work units (graph nodes and edges compared, nodes of every isomorphism listed) one comparison may spend."""


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


@per_theory(maxsize=512)
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


def _sector_keys(theory: Theory, budget: Budget) -> Counter:
    """The normal form's sectors, each up to isomorphism and conjugation (the canonical keys of it and of its
    conjugate), counted; the comparison spends the size of every sector graph."""
    keys, size = _sector_forms(theory)
    budget.spend(size)
    return Counter(keys)


@per_theory(maxsize=1024)
def _sector_forms(theory: Theory) -> tuple[tuple[frozenset, ...], int]:
    keys, size = [], 0
    for sector in _sectors(normal_form(theory)):
        forms = [canonical(graph) for graph in sector]
        keys.append(frozenset(form.key for form in forms))
        size += sum(form.size for form in forms)
    return tuple(keys), size


@per_theory(maxsize=1024)
def _oriented_sector_forms(theory: Theory) -> tuple[tuple[tuple, ...], int]:
    """The normal form's sectors as written (one orientation each): the keys and the size of the graphs."""
    graph = theory_graph(normal_form(theory))
    forms = [canonical(graph.subgraph(nodes)) for nodes in _components(graph)]
    return tuple(form.key for form in forms), sum(form.size for form in forms)


def _contains(big: Counter, small: Counter) -> bool:
    """Every sector of ``small`` matched to its own sector of ``big``."""
    return all(big[key] >= count for key, count in small.items())


def same_sectors(first: Theory, second: Theory, budget: Budget | None = None) -> bool:
    """True when the normal forms have the same sectors up to labels, order, rotation and conjugation.

    Raises NotExact (normal form) or WorkBoundExceeded (matching).
    """
    budget = budget or Budget(MATCH_WORK, "graph matching")
    return _sector_keys(first, budget) == _sector_keys(second, budget)


def is_copy_of(candidate: Theory, original: Theory, budget: Budget | None = None) -> bool:
    """True when ``candidate`` is ``original`` with sectors added or removed, up to labels, list order,
    trace rotation, conjugation and massive fields.

    The original's sectors are taken in both orientations, the candidate's as written: a candidate sector
    is of an original sector's kind exactly when its key is one of that sector's two keys (isomorphism up to
    conjugation is an equivalence), and one of no original kind makes the candidate larger, never smaller.

    Raises NotExact (normal form) or WorkBoundExceeded (matching).
    """
    budget = budget or Budget(MATCH_WORK, "graph matching")
    theirs = _sector_keys(original, budget)
    keys, size = _oriented_sector_forms(candidate)
    budget.spend(size)
    kind_of = {key: kind for kind in theirs for key in kind}
    mine = Counter(kind_of.get(key) for key in keys)
    foreign = mine.pop(None, 0)
    return _contains(mine, theirs) or (not foreign and _contains(theirs, mine))
