"""Accuracy, kept apart from consistency: stricter criteria that a retreat to a safe value does not meet.

A claim is accurate when its oracle certified it and it also meets the independent criterion of its
family: within 0.1 degrees of the computed Bragg peak (diffraction), within 2 cm^-1 of the spectrum's
prominent maximum (Raman), or the same is_stable label as the reference (stability: on the hull or not).
The other families have no accuracy criterion in the published design; their accuracy is None.
"""

from __future__ import annotations

from physvec.verifiers.certificate import Obligation, Outcome
from physvec.verifiers.matpcr.diffraction import ACCURACY_DEG
from physvec.verifiers.matpcr.raman import ACCURACY_CM1

ON_HULL_EV = 1e-6


def accurate(obligation: Obligation) -> bool | None:
    """Whether a judged claim is accurate (None: no criterion for its family, or nothing was checked)."""
    if obligation.outcome not in (Outcome.CERTIFIED, Outcome.FAILED):
        return None
    evidence, sealed = obligation.evidence, obligation.sealed
    if obligation.category == "diffraction":
        expected = sealed.get("reflection_two_theta_deg", sealed.get("nearest_peak_deg"))
        return expected is not None and abs(expected - evidence["claimed_two_theta_deg"]) <= ACCURACY_DEG
    if obligation.category == "raman":
        expected = sealed.get("nearest_peak_cm1")
        return expected is not None and abs(expected - evidence["claimed_shift_cm1"]) <= ACCURACY_CM1
    if obligation.category == "stability":
        reference = sealed.get("e_above_hull_eV_per_atom")
        claimed = evidence["claimed_e_above_hull_eV_per_atom"]
        return reference is not None and (claimed < ON_HULL_EV) == (reference < ON_HULL_EV)
    return None
