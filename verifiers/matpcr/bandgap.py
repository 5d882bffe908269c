"""Band-gap oracle: a claimed gap in eV, or a class (metal, semiconductor, insulator), against the reference
gap with its uncertainty.

The reference is not taken as exact: it stands for an interval of true gaps.  A measured gap g with
uncertainty u (the record's own, else EXPERIMENT_GAP_UNCERTAINTY_EV) stands for [g - u, g + u]; a
semilocal-functional gap for [g, max(2g, g + 1 eV)], widened upwards only (tolerances.py gives the reasons
and sources).  A claimed number holds when it lies in that interval; a class holds when its range of gaps
(metal below METAL_BELOW_EV, insulator from INSULATOR_FROM_EV, semiconductor between) overlaps it.  So a
gap of 3.5 eV claimed for silicon fails although silicon is a semiconductor.
"""

from __future__ import annotations

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.references import BandGap, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem
from physvec.verifiers.matpcr.tolerances import (EXPERIMENT_GAP_UNCERTAINTY_EV, INSULATOR_FROM_EV, METAL_BELOW_EV,
                                                 SEMILOCAL_MIN_WIDENING_EV)

CLASS_RANGES_EV = {"metal": (0.0, METAL_BELOW_EV), "semiconductor": (METAL_BELOW_EV, INSULATOR_FROM_EV),
                   "insulator": (INSULATOR_FROM_EV, float("inf"))}


def gap_class(gap_ev: float) -> str:
    return next(name for name, (start, stop) in CLASS_RANGES_EV.items() if gap_ev < stop)


def admissible_interval(reference: BandGap) -> tuple[float, float]:
    """The true gaps (eV) the reference admits, given how it was obtained and how uncertain it is."""
    if reference.method == "experiment":
        spread = reference.uncertainty if reference.uncertainty is not None else EXPERIMENT_GAP_UNCERTAINTY_EV
        return max(0.0, reference.value - spread), reference.value + spread
    return reference.value, max(2 * reference.value, reference.value + SEMILOCAL_MIN_WIDENING_EV)


def admissible_classes(reference: BandGap) -> list[str]:
    """The classes whose gap range overlaps the reference's interval, in the order metal, semiconductor, insulator."""
    low, high = admissible_interval(reference)
    return [name for name, (start, stop) in CLASS_RANGES_EV.items() if low < stop and high > start]


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed gap lies in the reference's interval, or the claimed class overlaps it."""
    evidence: dict = {"classes": f"metal < {METAL_BELOW_EV} eV <= semiconductor < {INSULATOR_FROM_EV} eV <= "
                                 "insulator"}
    if claim.value is not None:
        if claim.value < 0:
            return refused("a band gap is never negative", {**evidence, "claimed_gap_eV": claim.value})
        evidence.update(claimed_gap_eV=claim.value, claimed_class=gap_class(claim.value))
    else:
        evidence["claimed_class"] = claim.label
    reference = provider.record(item.material).band_gap
    if reference is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} holds no band gap of {item.material}", evidence)
    low, high = admissible_interval(reference)
    classes = admissible_classes(reference)
    evidence["reference_method"] = reference.method
    sealed = {"reference_gap_eV": reference.value, "admissible_interval_eV": (low, high),
              "admissible_classes": classes, "source": reference.source}
    if claim.value is not None:
        return passes(low <= claim.value <= high, "within the reference gap's uncertainty",
                      "outside the gaps the reference, with its uncertainty, admits", evidence, sealed)
    return passes(claim.label in classes, "the class is one the reference gap admits",
                  "the reference gap, with its uncertainty, admits no such class", evidence, sealed)
