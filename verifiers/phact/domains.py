"""Each PHACT domain as a dependency graph: input nodes, derived nodes (engine functions of their
parents) and the quantities a goal may constrain.

A goal decides which inputs are bound (fixed by the goal file) and which are free (the only values a
design may write); the graph is the same for every goal of a domain, so the path from any input to any
outcome is known to code, never to the model.
"""

from __future__ import annotations

import functools
import graphlib
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from physvec.verifiers.phact.engines import OutsideCompetence, colloids, dna, drones, filters
from physvec.verifiers.phact.engines import gravitational_waves as gw

if TYPE_CHECKING:
    import networkx as nx


@dataclass(frozen=True)
class Derived:
    """A derived node: ``function`` of the named parent nodes."""

    name: str
    parents: tuple[str, ...]
    function: Callable[..., Any]
    cells: Callable[[float, float], list[tuple[float, float]]] | None = None
    """for a node that snaps its one parent to discrete values (E12 parts): the sub-intervals of [low, high]
    on whose inside it is constant, so that a search can enumerate what it reaches (search.py)"""


@dataclass(frozen=True)
class Domain:
    name: str
    inputs: dict[str, str]
    """input name -> what it is, with its unit"""
    derived: tuple[Derived, ...]
    labels: frozenset[str] = field(default_factory=frozenset)
    """inputs whose values are names (a sequence, a material); every other input is a finite number"""

    def graph(self) -> nx.DiGraph:
        """The graph itself, for the searches that walk it (networkx is imported only by them: certifying
        a design needs no more than the order and the ancestry below, which the standard library gives)."""
        import networkx as nx

        graph = nx.DiGraph()
        graph.add_nodes_from(self.inputs, role="input")
        for node in self.derived:
            graph.add_node(node.name, role="derived")
            graph.add_edges_from((parent, node.name) for parent in node.parents)
        return graph

    @functools.cached_property
    def _order(self) -> tuple[Derived, ...]:
        """The derived nodes in dependency order (computed once: a search evaluates thousands of points)."""
        by_name = {node.name: node for node in self.derived}
        parents = {node.name: node.parents for node in self.derived}
        return tuple(by_name[name] for name in graphlib.TopologicalSorter(parents).static_order() if name in by_name)

    @functools.cached_property
    def _ancestry(self) -> dict[str, frozenset[str]]:
        """Each node with everything it depends on (itself included)."""
        ancestry = {name: frozenset({name}) for name in self.inputs}
        for node in self._order:
            ancestry[node.name] = frozenset({node.name}).union(*(ancestry[parent] for parent in node.parents))
        return ancestry

    def upstream(self, quantity: str) -> frozenset[str]:
        """``quantity`` and every node it depends on."""
        return self._ancestry.get(quantity, frozenset({quantity}))

    def reaches(self, source: str, quantity: str) -> bool:
        """Whether ``quantity`` depends on ``source`` (a node reaches itself)."""
        return source in self.upstream(quantity)

    @property
    def quantities(self) -> set[str]:
        return set(self.inputs) | {node.name for node in self.derived}

    def evaluate(self, values: dict[str, Any], wanted: Iterable[str] | None = None) -> dict[str, Any]:
        """Every node's value from the inputs, in dependency order (OutsideCompetence propagates); with
        ``wanted``, only those quantities and what they depend on (a search evaluates thousands of points).

        A number that overflowed to infinity or lost itself in NaN is no value: it would meet any one-sided
        target, so the engine declines it (outside its competence) instead of judging with it."""
        known = dict(values)
        needed = None if wanted is None else frozenset().union(*(self.upstream(q) for q in wanted))
        for node in self._order:
            if needed is None or node.name in needed:
                value = node.function(*(known[parent] for parent in node.parents))
                if isinstance(value, float) and not math.isfinite(value):
                    raise OutsideCompetence(f"{node.name} is not a finite number here ({value})")
                known[node.name] = value
        return known


def _crosswind_field(field: str) -> Callable[..., float]:
    def compute(*arguments: float) -> float:
        return float(getattr(drones.crosswind(*arguments), field))
    return compute


DRONE_INPUTS = ("mass_kg", "max_thrust_N", "max_roll_deg", "air_density_kg_per_m3", "drag_coefficient",
                "frontal_area_m2", "wind_m_per_s", "transit_s")

DOMAINS = {
    "dna": Domain("dna", labels=frozenset({"sequence"}), inputs={
        "sequence": "one strand, 5' to 3' (A, C, G, T)",
        "strand_total_M": "total strand concentration C_T, mol/L",
        "sodium_M": "Na+ concentration, mol/L",
    }, derived=(
        Derived("melting_temperature_C", ("sequence", "strand_total_M", "sodium_M"),
                lambda s, c, na: dna.melting_temperature_K(s, c, na) - dna.KELVIN_AT_0C),
        Derived("dG37_kcal_per_mol", ("sequence",), lambda s: dna.duplex(s).dG_kcal_per_mol()),
    )),
    "inspiral": Domain("inspiral", inputs={
        "m1_msun": "primary mass, solar masses",
        "m2_msun": "secondary mass, solar masses",
        "distance_Mpc": "luminosity distance, Mpc",
        "gw_frequency_Hz": "gravitational-wave frequency, Hz",
        "separation_m": "orbital separation, m",
    }, derived=(
        Derived("chirp_mass_msun", ("m1_msun", "m2_msun"), gw.chirp_mass_msun),
        Derived("total_mass_msun", ("m1_msun", "m2_msun"), lambda a, b: a + b),
        Derived("isco_frequency_Hz", ("total_mass_msun",), gw.isco_gw_frequency_Hz),
        Derived("strain", ("chirp_mass_msun", "gw_frequency_Hz", "distance_Mpc", "isco_frequency_Hz"),
                gw.inspiral_strain),
        Derived("merger_time_s", ("m1_msun", "m2_msun", "separation_m"), gw.merger_time_s),
    )),
    "rc_filter": Domain("rc_filter", labels=frozenset({"kind"}), inputs={
        "kind": "low_pass or high_pass",
        "resistance_ohm": "resistance, ohm",
        "capacitance_F": "capacitance, farad",
        "signal_Hz": "frequency of the signal to pass or reject, Hz",
    }, derived=(
        Derived("cutoff_Hz", ("resistance_ohm", "capacitance_F"), filters.cutoff_Hz),
        Derived("attenuation_dB", ("kind", "cutoff_Hz", "signal_Hz"), filters.attenuation_dB),
        # the same filter built from the nearest E12 preferred values (what a bench would actually hold)
        Derived("e12_resistance_ohm", ("resistance_ohm",), lambda r: filters.snap(r, "E12"),
                lambda low, high: filters.snap_cells(low, high, "E12")),
        Derived("e12_capacitance_F", ("capacitance_F",), lambda c: filters.snap(c, "E12"),
                lambda low, high: filters.snap_cells(low, high, "E12")),
        Derived("e12_cutoff_Hz", ("e12_resistance_ohm", "e12_capacitance_F"), filters.cutoff_Hz),
        Derived("e12_attenuation_dB", ("kind", "e12_cutoff_Hz", "signal_Hz"), filters.attenuation_dB),
    )),
    "colloid": Domain("colloid", labels=frozenset({"material"}), inputs={
        "material": "particle material (dielectric data needed)",
        "radius_m": "particle radius, m",
        "zeta_V": "zeta potential, V",
        "ionic_strength_M": "1:1 electrolyte ionic strength, mol/L",
        "temperature_K": "temperature, K",
    }, derived=(
        Derived("debye_length_m", ("ionic_strength_M", "temperature_K"), colloids.debye_length_m),
        Derived("barrier_kT", ("radius_m", "material", "zeta_V", "ionic_strength_M", "temperature_K"),
                colloids.barrier_kT),
    )),
    "drone": Domain("drone", inputs={
        "mass_kg": "take-off mass, kg",
        "max_thrust_N": "total available thrust, N",
        "max_roll_deg": "roll limit, degrees",
        "air_density_kg_per_m3": "air density, kg/m^3",
        "drag_coefficient": "drag coefficient (dimensionless)",
        "frontal_area_m2": "area facing the wind, m^2",
        "wind_m_per_s": "steady crosswind, m/s",
        "transit_s": "time spent crossing the corridor, s",
    }, derived=tuple(Derived(quantity, DRONE_INPUTS, _crosswind_field(quantity))
                     for quantity in ("drag_N", "roll_needed_deg", "thrust_needed_N", "drift_m", "thrust_margin"))),
}
