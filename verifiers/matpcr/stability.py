"""Stability oracle: a claimed energy above the convex hull must lie within 0.05 eV/atom of the reference's.

The reference's energy above the hull is computed here, not read: pymatgen's PhaseDiagram over every record
the provider holds in the material's chemical system (formation enthalpies, elements at zero).  With the
shipped snapshot these are measured enthalpies at 298.15 K, so the hull is the experimental enthalpy hull
(entropy and zero-point terms are left out, as in a 0 K DFT hull); with the Materials Project they are its
computed formation energies.  The energy above a hull is never negative, so a negative claim is refused.
"""

from __future__ import annotations

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.references import MaterialRecord, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem

TOLERANCE_EV = 0.05
KJ_PER_MOL_PER_EV = 96.48533212
"""the Faraday constant in kJ/(mol eV): an enthalpy per mole of formula units over this is eV per formula unit"""
EV_PER_UNIT = {"eV/atom": 1.0, "meV/atom": 1e-3}


def _pd_entry(record: MaterialRecord):  # -> PDEntry; pymatgen loads only when a hull is built
    from pymatgen.analysis.phase_diagram import PDEntry
    from pymatgen.core import Composition

    composition = Composition(record.formula)
    enthalpy = record.formation_enthalpy
    per_formula = enthalpy.value / KJ_PER_MOL_PER_EV if enthalpy.unit == "kJ/mol" else \
        enthalpy.value * composition.num_atoms
    return PDEntry(composition, per_formula, name=record.id)


def energy_above_hull(record: MaterialRecord, provider: ReferenceProvider) -> tuple[float, list[str]] | None:
    """(eV/atom above the hull, the ids the hull was built from), or None without every elemental reference."""
    from pymatgen.analysis.phase_diagram import PhaseDiagram

    records = provider.chemical_system(record.elements())
    present = {next(iter(r.elements())) for r in records if len(r.elements()) == 1}
    if record.formation_enthalpy is None or not record.elements() <= present:
        return None
    entries = [_pd_entry(r) for r in records]
    target = next(entry for entry in entries if entry.name == record.id)
    return float(PhaseDiagram(entries).get_e_above_hull(target)), [entry.name for entry in entries]


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed energy above the hull (the label 'stable' claims zero) is within 0.05 eV/atom."""
    claimed = 0.0 if claim.label == "stable" else float(claim.value) * EV_PER_UNIT[str(claim.unit)]  # type: ignore
    evidence = {"claimed_e_above_hull_eV_per_atom": claimed, "tolerance_eV_per_atom": TOLERANCE_EV}
    if claimed < 0:
        return refused("an energy above the convex hull is never negative", evidence)
    hull = energy_above_hull(provider.record(item.material), provider)
    if hull is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} lacks a formation enthalpy of {item.material} or of one "
                                          "of its elements, so no hull can be built", evidence)
    reference, built_from = hull
    return passes(abs(claimed - reference) <= TOLERANCE_EV, "within 0.05 eV/atom of the reference hull distance",
                  "more than 0.05 eV/atom from the reference's energy above the hull", evidence,
                  {"e_above_hull_eV_per_atom": reference, "hull_from": built_from, "provider": provider.name})
