"""Canonical forms (nauty through pynauty) are what every comparison of theories rests on: a key that ignores the
numbering and sees every colour and direction, and isomorphisms that are isomorphisms."""

from __future__ import annotations

import random

import pytest

from physvec.verifiers.dualitycert.bounds import Budget, WorkBoundExceeded
from physvec.verifiers.dualitycert.canonical import Graph, canonical, matchings
from physvec.verifiers.dualitycert.isomorphism import theory_graph


def _renumbered(graph: Graph, order: list[int]) -> Graph:
    """The same graph with node i moved to place order[i] and the edge list shuffled."""
    labels, colours = [None] * len(order), [None] * len(order)
    for node, place in enumerate(order):
        labels[place], colours[place] = graph.labels[node], graph.colours[node]
    edges = [(order[u], order[v], c) for u, v, c in graph.edges]
    random.Random(len(edges)).shuffle(edges)
    return Graph(tuple(labels), tuple(colours), tuple(edges))


@pytest.mark.parametrize("cell", ["dp0_toric_N3_node0", "c3_z2z2_N2_node0", "dp2_phase1_N2_node4", "spp_N2_node0"])
def test_a_canonical_form_does_not_depend_on_the_numbering(seed_claims, cell):
    graph, rng = theory_graph(seed_claims[cell].theory_b), random.Random(cell)
    for _ in range(10):
        order = list(range(len(graph.labels)))
        rng.shuffle(order)
        assert canonical(_renumbered(graph, order)).key == canonical(graph).key


def test_a_canonical_form_sees_an_edge_colour_and_a_direction(dp0):
    graph = theory_graph(dp0)
    recoloured = Graph(graph.labels, graph.colours, ((*graph.edges[0][:2], "other"), *graph.edges[1:]))
    u, v, c = graph.edges[0]
    reversed_edge = Graph(graph.labels, graph.colours, ((v, u, c), *graph.edges[1:]))
    keys = {canonical(g).key for g in (graph, recoloured, reversed_edge)}
    assert len(keys) == 3


def test_every_isomorphism_is_listed_once_and_each_is_one(dp0):
    # dP0's field content: a directed triangle of three parallel arrows per edge, all alike.  Its automorphisms
    # are the 3 rotations of the triangle times the 3! orders of each bundle of parallel arrows: 3 * 6^3 = 648.
    graph = theory_graph(dp0.model_copy(update={"superpotential": ()}))
    found = list(matchings(graph, graph, Budget(10**7, "test")))
    assert len(found) == 648 == len({tuple(sorted(m.items())) for m in found})
    index = dict(zip(graph.labels, range(len(graph.labels))))
    edges = {(u, v, c) for u, v, c in graph.edges}
    for mapping in found[::37]:
        assert {(index[mapping[graph.labels[u]]], index[mapping[graph.labels[v]]], c) for u, v, c in edges} == edges


def test_listing_isomorphisms_spends_its_budget(dp0):
    graph = theory_graph(dp0.model_copy(update={"superpotential": ()}))
    with pytest.raises(WorkBoundExceeded):
        list(matchings(graph, graph, Budget(2_000, "test")))


@pytest.mark.parametrize("cell", ["spp_N2_node0", "dp2_phase1_N2_node4"])
def test_an_isomorphism_onto_a_renumbered_copy_maps_every_node_to_its_copy(seed_claims, cell):
    # Labels travel with their nodes when renumbering, so every isomorphism found must be an automorphism composed
    # with the renumbering: each one is checked edge by edge against the copy.
    graph, rng = theory_graph(seed_claims[cell].theory_b), random.Random(7)
    order = list(range(len(graph.labels)))
    rng.shuffle(order)
    copy = _renumbered(graph, order)
    where = {label: n for n, label in enumerate(copy.labels)}
    copy_edges = set(copy.edges)
    found = list(matchings(graph, copy, Budget(10**7, "test")))
    assert found and {label: label for label in graph.labels} in found
    for mapping in found:
        assert {(where[mapping[graph.labels[u]]], where[mapping[graph.labels[v]]], c)
                for u, v, c in graph.edges} == copy_edges
