"""Each domain's dependency structure, as the certifying path reads it without networkx, is the graph's.

Certifying a design walks the derived nodes in an order and asks which inputs a target depends on; both
come from the standard library (graphlib) so that `phact certify` starts at once, while the searches walk
the networkx graph.  The two views must be the same graph, or a target could be judged unreachable from
an input that moves it (a false impossibility) or the other way round.
"""

from __future__ import annotations

import networkx as nx
import pytest

from physvec.verifiers.phact.domains import DOMAINS


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_a_domain_says_a_quantity_depends_on_a_node_exactly_when_the_graph_has_a_path(name):
    domain = DOMAINS[name]
    graph = domain.graph()
    for source in graph:
        for quantity in graph:
            assert domain.reaches(source, quantity) == nx.has_path(graph, source, quantity), (source, quantity)


@pytest.mark.parametrize("name", sorted(DOMAINS))
def test_a_domain_evaluates_every_derived_node_after_its_parents(name):
    domain = DOMAINS[name]
    position = {node.name: index for index, node in enumerate(domain._order)}
    assert sorted(position) == sorted(node.name for node in domain.derived)
    for node in domain.derived:
        assert all(position[node.name] > position[parent] for parent in node.parents if parent in position)


def test_an_rc_filter_s_cutoff_depends_on_its_parts_and_not_on_the_signal():
    # f_c = 1 / (2 pi R C): the signal frequency enters the attenuation only, through the cutoff beside it
    domain = DOMAINS["rc_filter"]
    assert domain.reaches("resistance_ohm", "cutoff_Hz") and domain.reaches("capacitance_F", "cutoff_Hz")
    assert not domain.reaches("signal_Hz", "cutoff_Hz")
    assert domain.reaches("signal_Hz", "attenuation_dB") and domain.reaches("resistance_ohm", "e12_attenuation_dB")
    assert not domain.reaches("cutoff_Hz", "resistance_ohm")
