"""Band-gap class oracle: metal, semiconductor or insulator, judged against the reference gap with its error.

The classes are ranges of the true gap: metal below 0.1 eV (semimetals included), insulator from 4.0 eV,
semiconductor between.  The reference is not taken as exact.  A measured gap stands for the interval
+- 0.1 eV (temperature and method spread).  A semilocal-functional gap (LDA, GGA/PBE, as the Materials
Project reports) is known to underestimate, by up to about half in sp semiconductors and more in
correlated oxides, and a zero semilocal gap can hide a real gap of about an electronvolt (germanium); it
stands for the interval from itself up to max(twice itself, itself + 1 eV).  This rule is ours, stated
here; it widens upwards only, since semilocal functionals rarely overestimate a gap.  A claim passes when
its class (a label, or the class of a claimed gap in eV) overlaps the interval.
"""

from __future__ import annotations

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes, refused
from physvec.verifiers.matpcr.references import BandGap, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem

METAL_BELOW_EV = 0.1
INSULATOR_FROM_EV = 4.0
EXPERIMENT_SPREAD_EV = 0.1
SEMILOCAL_MIN_WIDENING_EV = 1.0


def gap_class(gap_ev: float) -> str:
    if gap_ev < METAL_BELOW_EV:
        return "metal"
    return "insulator" if gap_ev >= INSULATOR_FROM_EV else "semiconductor"


def admissible_interval(reference: BandGap) -> tuple[float, float]:
    """The true gaps (eV) the reference admits, given how it was obtained."""
    if reference.method == "experiment":
        return max(0.0, reference.value - EXPERIMENT_SPREAD_EV), reference.value + EXPERIMENT_SPREAD_EV
    return reference.value, max(2 * reference.value, reference.value + SEMILOCAL_MIN_WIDENING_EV)


def admissible_classes(reference: BandGap) -> list[str]:
    """The classes whose gap range overlaps the reference's interval, in the order metal, semiconductor, insulator."""
    low, high = admissible_interval(reference)
    ranges = {"metal": (0.0, METAL_BELOW_EV), "semiconductor": (METAL_BELOW_EV, INSULATOR_FROM_EV),
              "insulator": (INSULATOR_FROM_EV, float("inf"))}
    return [name for name, (start, stop) in ranges.items() if low < stop and high > start]


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed class is one the reference gap admits."""
    evidence: dict = {"claimed_class": claim.label, "classes": f"metal < {METAL_BELOW_EV} eV <= semiconductor < "
                                                               f"{INSULATOR_FROM_EV} eV <= insulator"}
    if claim.value is not None:
        if claim.value < 0:
            return refused("a band gap is never negative", {**evidence, "claimed_gap_eV": claim.value})
        evidence.update(claimed_gap_eV=claim.value, claimed_class=gap_class(claim.value))
    reference = provider.record(item.material).band_gap
    if reference is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} holds no band gap of {item.material}", evidence)
    classes = admissible_classes(reference)
    evidence["reference_method"] = reference.method
    return passes(evidence["claimed_class"] in classes, "the class is one the reference gap admits",
                  "the reference gap, with its error, admits no such class", evidence,
                  {"reference_gap_eV": reference.value, "admissible_interval_eV": admissible_interval(reference),
                   "admissible_classes": classes, "source": reference.source})
