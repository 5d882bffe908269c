"""Stability oracle: a claimed energy above the convex hull, or the class stable / metastable, against the
hull computed here with the uncertainty its inputs carry.

The reference's energy above the hull is computed, not read: pymatgen's PhaseDiagram over every record the
provider holds in the material's chemical system (formation enthalpies, elements at zero).  With the
shipped snapshot these are measured enthalpies at 298.15 K, so the hull is the experimental enthalpy hull
(entropy and zero-point terms are left out, as in a 0 K DFT hull); with the Materials Project they are its
computed formation energies.

Each enthalpy carries its uncertainty (the record's own, else the per-source default of tolerances.py; an
element's is zero by definition), and the hull distance E_t - sum_j f_j E_j (per atom, f_j the atom
fractions of the phases the material decomposes into) carries sigma = sqrt(s_t^2 + sum_j (f_j s_j)^2),
the per-atom uncertainties added in quadrature.  Then:
- 'stable' holds when the distance is at most sigma (on the hull within the stated uncertainty);
- 'metastable' when it exceeds sigma but not METASTABLE_MAX_EV_PER_ATOM;
- a number holds when it lies within sigma of the distance.
The energy above a hull is never negative, so a negative claim is refused.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.references import MaterialRecord, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem
from physvec.verifiers.matpcr.tolerances import (DFT_FORMATION_ENERGY_UNCERTAINTY_EV_PER_ATOM,
                                                 METASTABLE_MAX_EV_PER_ATOM, TABLE_ENTHALPY_UNCERTAINTY_KJ_PER_MOL)

KJ_PER_MOL_PER_EV = 96.48533212
"""the Faraday constant in kJ/(mol eV): an enthalpy per mole of formula units over this is eV per formula unit"""
EV_PER_UNIT = {"eV/atom": 1.0, "meV/atom": 1e-3}


@dataclass(frozen=True)
class HullDistance:
    """A material's energy above the hull, its uncertainty, and what the hull was built from."""

    e_above_hull: float
    sigma: float
    built_from: list[str]
    decomposes_to: dict[str, float]


def _pd_entry(record: MaterialRecord):  # -> PDEntry; pymatgen loads only when a hull is built
    from pymatgen.analysis.phase_diagram import PDEntry
    from pymatgen.core import Composition

    composition = Composition(record.formula)
    enthalpy = record.formation_enthalpy
    per_formula = enthalpy.value / KJ_PER_MOL_PER_EV if enthalpy.unit == "kJ/mol" else \
        enthalpy.value * composition.num_atoms
    return PDEntry(composition, per_formula, name=record.id)


def uncertainty_per_atom(record: MaterialRecord) -> float:
    """The uncertainty of the record's formation enthalpy in eV/atom: its own, else the default of its kind
    (tabulated kJ/mol or DFT eV/atom); zero for an element, whose formation enthalpy is zero by definition."""
    enthalpy = record.formation_enthalpy
    if enthalpy is None:
        raise ValueError(f"{record.id} has no formation enthalpy")
    if len(record.elements()) == 1:
        return 0.0
    if enthalpy.unit == "eV/atom":
        return enthalpy.uncertainty if enthalpy.uncertainty is not None else \
            DFT_FORMATION_ENERGY_UNCERTAINTY_EV_PER_ATOM
    per_formula = enthalpy.uncertainty if enthalpy.uncertainty is not None else TABLE_ENTHALPY_UNCERTAINTY_KJ_PER_MOL
    return per_formula / KJ_PER_MOL_PER_EV / sum(record.counts().values())


def hull_distance(record: MaterialRecord, provider: ReferenceProvider) -> HullDistance | None:
    """The record's distance above the hull of its chemical system with its uncertainty, or None without a
    formation enthalpy of it and of every one of its elements."""
    from pymatgen.analysis.phase_diagram import PhaseDiagram

    records = {r.id: r for r in provider.chemical_system(record.elements())}
    present = {next(iter(r.elements())) for r in records.values() if len(r.elements()) == 1}
    if record.formation_enthalpy is None or not record.elements() <= present:
        return None
    entries = [_pd_entry(r) for r in records.values()]
    target = next(entry for entry in entries if entry.name == record.id)
    decomposition, e_above_hull = PhaseDiagram(entries).get_decomp_and_e_above_hull(target)
    fractions = {entry.name: float(amount) for entry, amount in decomposition.items()}
    others = sum((f * uncertainty_per_atom(records[name])) ** 2 for name, f in fractions.items() if name != record.id)
    sigma = math.sqrt(uncertainty_per_atom(record) ** 2 + others)
    return HullDistance(float(e_above_hull), sigma, list(records), fractions)


def _holds(claim: Claim, claimed: float | None, hull: HullDistance) -> tuple[bool, str, str]:
    """Whether the claim holds against the hull distance, and the messages for either case."""
    if claim.label == "stable":
        return (hull.e_above_hull <= hull.sigma, "on the hull within the reference's uncertainty",
                "above the hull by more than the reference's uncertainty: not stable")
    if claim.label == "metastable":
        return (hull.sigma < hull.e_above_hull <= METASTABLE_MAX_EV_PER_ATOM,
                f"above the hull by more than the reference's uncertainty, by at most {METASTABLE_MAX_EV_PER_ATOM} "
                "eV/atom", f"not metastable: on the hull within the reference's uncertainty, or more than "
                f"{METASTABLE_MAX_EV_PER_ATOM} eV/atom above it")
    return (abs(float(claimed) - hull.e_above_hull) <= hull.sigma,  # type: ignore[arg-type]
            "within the reference's uncertainty of its energy above the hull",
            "further from the reference's energy above the hull than its uncertainty")


def claimed_distance(claim: Claim) -> float:
    """The hull distance a claim states, in eV/atom: its number, zero for 'stable', and for 'metastable' the
    bound it claims to lie within (accuracy.py reads this to tell on-hull claims from the others)."""
    if claim.label is not None:
        return 0.0 if claim.label == "stable" else METASTABLE_MAX_EV_PER_ATOM
    return float(claim.value) * EV_PER_UNIT[str(claim.unit)]  # type: ignore[arg-type]


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed hull distance or class agrees with the reference hull, within its uncertainty."""
    claimed = None if claim.label is not None else claimed_distance(claim)
    evidence = {"claim": claim.label or f"{claimed:g} eV/atom above the hull",
                "claimed_e_above_hull_eV_per_atom": claimed_distance(claim),
                "tolerance": "the uncertainty of the reference's hull distance, propagated from its enthalpies"}
    if claimed is not None and claimed < 0:
        return refused("an energy above the convex hull is never negative", evidence)
    hull = hull_distance(provider.record(item.material), provider)
    if hull is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} lacks a formation enthalpy of {item.material} or of one "
                                          "of its elements, so no hull can be built", evidence)
    holds, message_if, message_else = _holds(claim, claimed, hull)
    return passes(holds, message_if, message_else, evidence,
                  {"e_above_hull_eV_per_atom": hull.e_above_hull, "uncertainty_eV_per_atom": hull.sigma,
                   "decomposes_to": hull.decomposes_to, "hull_from": hull.built_from, "provider": provider.name})
