"""Magnetisation oracle: a claimed moment, net-moment class or magnetic state, judged at the claim's temperature.

The reference has two parts (snapshot.json): the ground-state magnetic order with its Curie or Neel
temperature, and the saturation moment per formula unit at 0 K with its uncertainty.  At a temperature T
(the claim's; the ground state, 0 K, when it states none, since an order and a moment are tabulated for it:
"MnO is antiferromagnetic" and "Gd carries 7.63 muB" are statements about it) an ordered material keeps its order
below the ordering
temperature and is paramagnetic above it; within ORDERING_TEMPERATURE_SPREAD_K of it the state is unknown.
Only a ferro- or ferrimagnet below its Curie temperature has a spontaneous (net) moment; every other state
has none, so a moment claimed for Fe above 1043 K or for Gd at room temperature (T_C = 292 K) fails.

A numeric claim is converted to Bohr magnetons per formula unit: per atom of the whole formula by its atom
count, per atom of one element ('per Fe atom', Claim.per_element) by that element's count.  Its sign is a
direction, not a magnitude, so its absolute value is compared.  Where the state has no spontaneous moment it
holds within ZERO_MOMENT_MUB_PER_FU of zero.  Below the Curie temperature the moment falls from the
saturation moment M0 at 0 K towards zero at T_C, so:
- at or below LIQUID_HELIUM_K it holds within the uncertainty u of M0;
- with no temperature stated it is read as the tabulated moment: within u of M0, or of the room-temperature
  moment where the table gives one (M_s at room temperature over M_s at 0 K);
- at a stated temperature up to room temperature (ROOM_TEMPERATURE_K) it holds between the room-temperature
  moment and M0 (widened by u), and is unknown below M0 where the table gives no room-temperature moment;
- warmer (still below T_C) it fails above the room-temperature moment (or M0) plus u, and is unknown
  otherwise: no table value bounds it from below.
"""

from __future__ import annotations

from physvec.verifiers.certificate import Outcome
from physvec.verifiers.matpcr.judgement import Judgement, passes
from physvec.verifiers.matpcr.references import MagneticOrder, Magnetisation, MaterialRecord, ReferenceProvider
from physvec.verifiers.matpcr.schema import Claim, MaterialItem
from physvec.verifiers.matpcr.tolerances import (DFT_MOMENT_ABSOLUTE_MUB_PER_FU, DFT_MOMENT_RELATIVE,
                                                 LIQUID_HELIUM_K, MOMENT_RELATIVE_UNCERTAINTY,
                                                 ORDERING_TEMPERATURE_SPREAD_K, ROOM_TEMPERATURE_K,
                                                 ZERO_MOMENT_MUB_PER_FU)

NET_MOMENT_STATES = ("ferromagnetic", "ferrimagnetic", "net")
"""the states with a spontaneous moment; 'net' (and 'zero') stand for a reference that states a moment but no
magnetic order (the Materials Project's), which says nothing of the order's kind or of its temperature"""


def temperature_of(claim: Claim) -> tuple[float, bool]:
    """The claim's temperature in kelvin, and whether it was assumed (the ground state) because the claim states
    none."""
    return (0.0, True) if claim.temperature_K is None else (float(claim.temperature_K), False)


def state_at(order: MagneticOrder, temperature: float) -> str | None:
    """The magnetic state at ``temperature``: the ordered one below the ordering temperature, paramagnetic
    above it, None (unknown) within ORDERING_TEMPERATURE_SPREAD_K of it."""
    ordering = order.ordering_temperature_K
    if ordering is None:
        return order.order
    if abs(temperature - ordering) < ORDERING_TEMPERATURE_SPREAD_K:
        return None
    return order.order if temperature < ordering else "paramagnetic"


def uncertainty(magnetisation: Magnetisation) -> float:
    """The uncertainty of a reference moment (muB/f.u.): its own, else the default of its method."""
    if magnetisation.uncertainty is not None:
        return magnetisation.uncertainty
    if magnetisation.method == "semilocal_dft":
        return max(DFT_MOMENT_ABSOLUTE_MUB_PER_FU, DFT_MOMENT_RELATIVE * magnetisation.value)
    return max(ZERO_MOMENT_MUB_PER_FU, MOMENT_RELATIVE_UNCERTAINTY * magnetisation.value)


def moment_bounds(magnetisation: Magnetisation, temperature: float, assumed: bool) -> tuple[float | None, float]:
    """(lowest, highest) spontaneous moment per formula unit below the Curie temperature; lowest is None where
    no table value bounds it from below at this temperature."""
    u, saturation = uncertainty(magnetisation), magnetisation.value
    reduced = magnetisation.room_temperature
    room = None if reduced is None else saturation * reduced.fraction
    if not assumed and temperature <= LIQUID_HELIUM_K:
        return saturation - u, saturation + u
    if assumed:
        return min(saturation, room if room is not None else saturation) - u, saturation + u
    if temperature <= ROOM_TEMPERATURE_K:
        return (None if room is None else room - u), saturation + u
    return None, (saturation if room is None else room) + u


def per_formula_unit(claim: Claim, record: MaterialRecord) -> float | None:
    """The claimed moment in muB per formula unit (None when it is per atom of an element the formula lacks)."""
    counts, value = record.counts(), abs(float(claim.value))  # type: ignore[arg-type]
    if claim.unit == "muB/f.u.":
        return value
    if claim.per_element is None:
        return value * sum(counts.values())
    return value * counts[claim.per_element] if claim.per_element in counts else None


def _state(record: MaterialRecord, temperature: float, assumed: bool) -> tuple[str | None, str]:
    """The state at ``temperature``, or None with why it is unknown.  A record without a magnetic order is
    'zero' without a moment (none appears on heating), and 'net' with one only at liquid-helium temperature:
    without an ordering temperature nothing says whether it survives to a warmer one."""
    if record.magnetic_order is not None:
        state = state_at(record.magnetic_order, temperature)
        return state, f"within {ORDERING_TEMPERATURE_SPREAD_K:g} K of the ordering temperature the state is unknown"
    if record.magnetisation is not None and record.magnetisation.value < ZERO_MOMENT_MUB_PER_FU:
        return "zero", ""
    if temperature <= LIQUID_HELIUM_K:
        return "net", ""
    return None, "the reference states a moment but no ordering temperature, so its state here is unknown"


def _label(record: MaterialRecord, claim: Claim, temperature: float, assumed: bool, evidence: dict,
           sealed: dict) -> Judgement:
    state, why = _state(record, temperature, assumed)
    sealed["state"] = state
    if claim.label in ("zero_net_moment", "net_moment"):
        if state is None:
            return Judgement(Outcome.UNKNOWN, why, evidence, sealed)
        holds = (state in NET_MOMENT_STATES) == (claim.label == "net_moment")
        return passes(holds, "the label agrees with the reference's net moment at this temperature",
                      "the label contradicts the reference's net moment at this temperature", evidence, sealed)
    if state in (None, "zero", "net"):
        return Judgement(Outcome.UNKNOWN, why or "the reference states no magnetic order", evidence, sealed)
    return passes(state == claim.label, "the reference's magnetic state at this temperature",
                  "not the reference's magnetic state at this temperature", evidence, sealed)


def _moment(record: MaterialRecord, claim: Claim, temperature: float, assumed: bool, evidence: dict,
            sealed: dict) -> Judgement:
    claimed = per_formula_unit(claim, record)
    if claimed is None:
        return Judgement(Outcome.FAILED, f"{record.formula} has no {claim.per_element} atom", evidence, sealed)
    evidence["claimed_muB_per_fu"] = claimed
    state, why = _state(record, temperature, assumed)
    sealed["state"] = state
    if state is None:
        return Judgement(Outcome.UNKNOWN, why, evidence, sealed)
    if state not in NET_MOMENT_STATES:
        return passes(claimed <= ZERO_MOMENT_MUB_PER_FU, "no spontaneous moment, as the reference has none",
                      "a spontaneous moment where the reference has none at this temperature", evidence, sealed)
    if record.magnetisation is None:
        return Judgement(Outcome.UNKNOWN, "the reference states no saturation moment", evidence, sealed)
    low, high = moment_bounds(record.magnetisation, temperature, assumed)
    sealed.update(lowest_muB_per_fu=low, highest_muB_per_fu=high)
    if claimed > high:
        return Judgement(Outcome.FAILED, "above the reference's spontaneous moment at this temperature", evidence,
                         sealed)
    if low is None:
        return Judgement(Outcome.UNKNOWN, "below the saturation moment, as the moment at this temperature may be: "
                                          "no reference value bounds it from below", evidence, sealed)
    return passes(claimed >= low, "within the uncertainty of the reference's spontaneous moment",
                  "below the reference's spontaneous moment at this temperature", evidence, sealed)


def judge(item: MaterialItem, claim: Claim, provider: ReferenceProvider) -> Judgement:
    """Whether the claimed moment, net-moment class or magnetic state agrees with the reference at the claim's
    temperature."""
    record = provider.record(item.material)
    temperature, assumed = temperature_of(claim)
    evidence: dict = {"claim": claim.label or f"{claim.value} {claim.unit}"
                      + (f" per {claim.per_element} atom" if claim.per_element else ""),
                      "temperature_K": temperature,
                      "temperature": "none stated: the ground state (0 K) assumed, as tables state an order and a moment" if assumed else "stated by the claim"}
    sealed: dict = {"magnetic_order": None if record.magnetic_order is None else record.magnetic_order.model_dump(),
                    "magnetisation": None if record.magnetisation is None else record.magnetisation.model_dump()}
    if record.magnetic_order is None and record.magnetisation is None:
        return Judgement(Outcome.UNKNOWN, f"{provider.name} holds no magnetisation or magnetic order of "
                                          f"{item.material}", evidence)
    if claim.label is not None:
        return _label(record, claim, temperature, assumed, evidence, sealed)
    return _moment(record, claim, temperature, assumed, evidence, sealed)
