"""A multirotor holding a course in a steady crosswind.

Drag F = 1/2 rho C_d A v^2; the roll that cancels it tilts thrust: tan(phi) = F / (m g); the thrust needed
is sqrt((m g)^2 + F^2).  When the roll is capped at phi_max, the uncancelled force F - m g tan(phi_max)
pushes the drone sideways with constant acceleration, drifting (1/2) a t^2 over a transit of t seconds.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from physvec.verifiers.phact.engines import OutsideCompetence

STANDARD_GRAVITY_M_PER_S2 = 9.80665


@dataclass(frozen=True)
class Crosswind:
    drag_N: float
    roll_needed_deg: float
    thrust_needed_N: float
    drift_m: float
    thrust_margin: float
    """available thrust / thrust needed - 1"""


def drag_N(air_density_kg_per_m3: float, drag_coefficient: float, frontal_area_m2: float, wind_m_per_s: float) -> float:
    return 0.5 * air_density_kg_per_m3 * drag_coefficient * frontal_area_m2 * wind_m_per_s ** 2


def _physical(air_density_kg_per_m3: float, **nonnegative: float) -> None:
    """Air has a positive density; a drag coefficient, an area and a duration are never negative (a negative
    one would turn drag into thrust and meet any drag target): such inputs are outside the engine."""
    if not air_density_kg_per_m3 > 0:
        raise OutsideCompetence(f"air_density_kg_per_m3 = {air_density_kg_per_m3}: air has a positive density")
    for name, value in nonnegative.items():
        if not value >= 0:
            raise OutsideCompetence(f"{name} = {value}: it cannot be negative")


def crosswind(mass_kg: float, max_thrust_N: float, max_roll_deg: float, air_density_kg_per_m3: float,
              drag_coefficient: float, frontal_area_m2: float, wind_m_per_s: float, transit_s: float) -> Crosswind:
    if mass_kg <= 0 or max_thrust_N <= 0 or not 0 < max_roll_deg < 90:
        raise ValueError("mass and thrust must be positive and the roll limit within (0, 90) degrees")
    _physical(air_density_kg_per_m3=air_density_kg_per_m3, drag_coefficient=drag_coefficient,
              frontal_area_m2=frontal_area_m2, transit_s=transit_s)
    weight = mass_kg * STANDARD_GRAVITY_M_PER_S2
    force = drag_N(air_density_kg_per_m3, drag_coefficient, frontal_area_m2, wind_m_per_s)
    roll = math.degrees(math.atan2(force, weight))
    uncancelled = max(0.0, force - weight * math.tan(math.radians(max_roll_deg)))
    drift = 0.5 * uncancelled / mass_kg * transit_s ** 2
    needed = math.hypot(weight, force)
    return Crosswind(force, roll, needed, drift, max_thrust_N / needed - 1)
