"""Magnetisation oracle: the claimed net moment against the reference's, per formula unit.

A claim per atom is converted with the formula's atom count.  The tolerance is 0.1 Bohr magnetons per
formula unit or 10 % of the reference, whichever is larger (saturation moments are measured to a few per
cent; orbital contributions shift computed ones by about a tenth of a magneton).  The labels speak of the
net moment: zero_net_moment holds when the reference is below 0.05 muB/f.u., net_moment otherwise.  The sign
of a claimed moment is a direction, not a magnitude, so its absolute value is compared.
"""

from __future__ import annotations

import re

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes
from physvec.verifiers.matpcr.references import MaterialRecord, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem

ABSOLUTE_TOLERANCE = 0.1
RELATIVE_TOLERANCE = 0.1
ZERO_BELOW = 0.05


def atoms_per_formula_unit(record: MaterialRecord) -> int:
    return sum(int(count or 1) for _, count in re.findall(r"([A-Z][a-z]?)(\d*)", record.formula))


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed net moment (or its label) agrees with the reference."""
    record = provider.record(item.material)
    evidence: dict = {"claim": claim.label or f"{claim.value} {claim.unit}"}
    if record.magnetisation is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} holds no magnetisation of {item.material}", evidence)
    reference = record.magnetisation.value
    sealed = {"reference_muB_per_fu": reference, "source": record.magnetisation.source}
    if claim.label is not None:
        holds = (reference < ZERO_BELOW) == (claim.label == "zero_net_moment")
        return passes(holds, "the label agrees with the reference's net moment",
                      "the label contradicts the reference's net moment", evidence, sealed)
    per_fu = abs(float(claim.value)) * (atoms_per_formula_unit(record) if claim.unit == "muB/atom" else 1)  # type: ignore
    tolerance = max(ABSOLUTE_TOLERANCE, RELATIVE_TOLERANCE * reference)
    evidence.update(claimed_muB_per_fu=per_fu, tolerance=f"max({ABSOLUTE_TOLERANCE} muB/f.u., "
                                                          f"{RELATIVE_TOLERANCE:.0%} of the reference)")
    return passes(abs(per_fu - reference) <= tolerance, "within tolerance of the reference's net moment",
                  "outside the tolerance of the reference's net moment", evidence, sealed)
