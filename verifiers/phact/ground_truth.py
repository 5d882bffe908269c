"""An independent judge of ground truth for PHACT records: did a certified design really meet its goal,
and could an "impossible" goal really not be met?

A verdict comes from the domain graph (domains.py), the search, the correction and the contract.  If the
same code also said whether the verdict was true, a flaw in it would hide itself (a search that misses
the E12 part meeting a goal also "confirms" its own impossibility).  This module calls none of that code
and none of the engine functions: it has its own closed forms of each domain's physics, written again
from the same published equations and tables (the constants and tables are imported, the arithmetic is
not), vectorised over numpy arrays, and its own brute force over the free box.

- A design meets its goal when its free values lie within the goal's bounds (checked here) and, with the
  goal's bound values, every target holds within the goal's tolerance, give or take a relative SLACK for
  the two codes' different numerics.
- A goal is FEASIBLE when the brute force finds a witness that meets every target by at least SLACK: a
  fine grid over each continuous free input (log-spaced over a positive range wider than a decade) plus
  its ends, every listed choice, every E12 part inside the range of a resistor or capacitor, and a
  bisection at each sign change of an "==" target between neighbouring grid points.
- INFEASIBLE only when that enumeration is exhaustive and nothing comes within SLACK: no continuous free
  input at all, or the continuous ones reach the targets only through E12 snapping (their parts are few,
  and every part an interval reaches is the nearest part to an end or a part inside it).
- UNDECIDED otherwise: a grid that finds nothing proves nothing over a continuum.
"""

from __future__ import annotations

import functools
import itertools
import math
from collections.abc import Callable
from enum import StrEnum
from typing import Any

import numpy as np

from physvec.verifiers.phact.engines import colloids, dna, drones, filters
from physvec.verifiers.phact.engines import gravitational_waves as gw
from physvec.verifiers.phact.schema import Goal, Target

SLACK = {"colloid": 1e-5}
"""Relative numerical slack between this judge and the engine, per domain: closed forms agree to rounding;
the colloid barrier is a maximum that the engine reads off a fixed grid and this judge refines."""
DEFAULT_SLACK = 1e-9
GRID_BUDGET = {"colloid": 4_000}
"""Points of the continuous grid per combination of choices (the colloid barrier scans gaps per point)."""
DEFAULT_GRID_BUDGET = 250_000
BISECTIONS = 60

Arrays = dict[str, Any]


class Truth(StrEnum):
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    UNDECIDED = "undecided"


def _finite(value: Any) -> np.ndarray:
    array = np.asarray(value, dtype=float)
    return np.where(np.isfinite(array), array, np.nan)


# -- rc_filter -------------------------------------------------------------------------------------------

def _e12_table(values: np.ndarray) -> np.ndarray:
    """Every E12 part from a decade below the smallest positive value to a decade above the largest."""
    positive = values[np.isfinite(values) & (values > 0)]
    low, high = (math.floor(math.log10(positive.min())), math.floor(math.log10(positive.max()))) if positive.size else (0, 0)
    return np.array(sorted(m * 10.0 ** d for d in range(low - 1, high + 2) for m in filters.E_SERIES["E12"]))


def nearest_e12(value: Any) -> np.ndarray:
    """The E12 part nearest on a log scale (the lower one on a tie), by bisection in the sorted table."""
    values = np.asarray(value, dtype=float)
    table = _e12_table(np.atleast_1d(values))
    with np.errstate(all="ignore"):
        upper = np.clip(np.searchsorted(table, values), 1, len(table) - 1)
        below, above = table[upper - 1], table[upper]
        part = np.where(np.log(values / below) <= np.log(above / values), below, above)
    return np.where(values > 0, part, np.nan)


def _attenuation_dB(kind: str, cutoff: np.ndarray, signal: np.ndarray) -> np.ndarray:
    """-20 log10 |H|, rewritten: a low-pass 10 log10(1 + (f/fc)^2), a high-pass 10 log10(1 + (fc/f)^2)."""
    with np.errstate(all="ignore"):
        if kind == "low_pass":
            return _finite(10 * np.log10(1 + (signal / cutoff) ** 2))
        if kind == "high_pass":
            return _finite(10 * np.log10(1 + (cutoff / signal) ** 2))
    return np.full(np.broadcast(cutoff, signal).shape, np.nan)


def _rc_filter(v: Arrays, wanted: set[str]) -> Arrays:
    r, c, signal = (_finite(v[n]) for n in ("resistance_ohm", "capacitance_F", "signal_Hz"))
    with np.errstate(all="ignore"):
        cutoff = np.where((r > 0) & (c > 0), 1 / (2 * math.pi * r * c), np.nan)
        out: Arrays = {"cutoff_Hz": cutoff, "attenuation_dB": _attenuation_dB(v["kind"], cutoff, signal)}
        if any(q.startswith("e12_") for q in wanted):
            part_r, part_c = nearest_e12(r), nearest_e12(c)
            built = 1 / (2 * math.pi * part_r * part_c)
            out.update(e12_resistance_ohm=part_r, e12_capacitance_F=part_c, e12_cutoff_Hz=built,
                       e12_attenuation_dB=_attenuation_dB(v["kind"], built, signal))
    return out


# -- inspiral --------------------------------------------------------------------------------------------

def _inspiral(v: Arrays, wanted: set[str]) -> Arrays:
    m1, m2, distance, frequency, separation = (_finite(v[n]) for n in (
        "m1_msun", "m2_msun", "distance_Mpc", "gw_frequency_Hz", "separation_m"))
    masses_ok = (m1 > 0) & (m2 > 0)
    with np.errstate(all="ignore"):
        total = np.where(masses_ok, m1 + m2, np.nan)
        chirp = np.where(masses_ok, np.exp(0.6 * np.log(m1 * m2) - 0.2 * np.log(total)), np.nan)
        isco = gw.C_SI ** 3 / (6 * math.sqrt(6) * math.pi * gw.G_SI * total * gw.SOLAR_MASS_KG)
        length = gw.G_SI * chirp * gw.SOLAR_MASS_KG / gw.C_SI ** 2
        strain = np.where((frequency > 0) & (distance > 0), 4 * length ** (5 / 3) * (math.pi * frequency / gw.C_SI) ** (2 / 3)
                          / (distance * gw.MEGAPARSEC_M), np.nan)
        kg1, kg2 = m1 * gw.SOLAR_MASS_KG, m2 * gw.SOLAR_MASS_KG
        merger = np.where(separation > 0, 5 / 256 * gw.C_SI ** 5 * separation ** 4 / (gw.G_SI ** 3 * kg1 * kg2 * (kg1 + kg2)),
                          np.nan)
    return {"chirp_mass_msun": chirp, "total_mass_msun": total, "isco_frequency_Hz": _finite(isco),
            "strain": _finite(strain), "merger_time_s": _finite(merger)}


# -- drone -----------------------------------------------------------------------------------------------

def _drone(v: Arrays, wanted: set[str]) -> Arrays:
    mass, thrust, roll_limit, rho, cd, area, wind, transit = (_finite(v[n]) for n in (
        "mass_kg", "max_thrust_N", "max_roll_deg", "air_density_kg_per_m3", "drag_coefficient", "frontal_area_m2",
        "wind_m_per_s", "transit_s"))
    ok = (mass > 0) & (thrust > 0) & (roll_limit > 0) & (roll_limit < 90)
    with np.errstate(all="ignore"):
        weight = mass * drones.STANDARD_GRAVITY_M_PER_S2
        drag = 0.5 * rho * cd * area * wind * wind
        push = np.maximum(drag - weight * np.tan(np.radians(roll_limit)), 0.0)
        needed = np.sqrt(weight ** 2 + drag ** 2)
        out = {"drag_N": drag, "roll_needed_deg": np.degrees(np.arctan2(drag, weight)), "thrust_needed_N": needed,
               "drift_m": push / mass * transit ** 2 / 2, "thrust_margin": thrust / needed - 1}
    return {name: np.where(ok, _finite(value), np.nan) for name, value in out.items()}


# -- colloid ---------------------------------------------------------------------------------------------

def _water_permittivity(temperature_K: np.ndarray) -> np.ndarray:
    """Malmberg and Maryott (1956), tabulated for 0-100 C (NaN outside)."""
    t = temperature_K - 273.15
    value = 87.740 + t * (-0.40008 + t * (9.398e-4 - 1.410e-6 * t))
    return np.where((t >= 0) & (t <= 100), value, np.nan)


def _colloid(v: Arrays, wanted: set[str]) -> Arrays:
    radius, zeta, salt, temperature = (_finite(v[n]) for n in ("radius_m", "zeta_V", "ionic_strength_M", "temperature_K"))
    with np.errstate(all="ignore"):
        permittivity = _water_permittivity(temperature) * colloids.VACUUM_PERMITTIVITY_F_PER_M
        charge_density = 2 * colloids.AVOGADRO_PER_MOL * colloids.ELEMENTARY_CHARGE_C ** 2 * salt * 1000
        debye = np.where(salt > 0, np.sqrt(permittivity * colloids.BOLTZMANN_J_PER_K * temperature / charge_density), np.nan)
    out: Arrays = {"debye_length_m": _finite(debye)}
    if "barrier_kT" in wanted:
        out["barrier_kT"] = _barrier_kT(v["material"], radius, zeta, debye, permittivity, temperature)
    return out


def _barrier_kT(material: str, radius: np.ndarray, zeta: np.ndarray, debye: np.ndarray, permittivity: np.ndarray,
                temperature: np.ndarray) -> np.ndarray:
    """The largest V_A + V_R over gaps from closest approach out, in kT: a dense log scan, then golden-section
    refinement around the best gap (the engine scans a fixed grid only)."""
    shape = np.broadcast(radius, zeta, debye, temperature).shape
    if material not in colloids.MATERIALS or material == "water":
        return np.full(shape, np.nan)
    (e1, n1), (e3, n3) = colloids.MATERIALS[material], colloids.MATERIALS["water"]
    hamaker = (0.75 * colloids.BOLTZMANN_J_PER_K * temperature * ((e1 - e3) / (e1 + e3)) ** 2
               + 3 * colloids.PLANCK_J_S * colloids.UV_ABSORPTION_HZ * (n1 ** 2 - n3 ** 2) ** 2
               / (16 * math.sqrt(2) * (n1 ** 2 + n3 ** 2) ** 1.5))
    a, z, k, eps, h_A = (np.broadcast_to(x, shape).reshape(-1, 1) for x in (radius, zeta, 1 / debye, permittivity, hamaker))
    closest = colloids.CLOSEST_APPROACH_M

    def energy(gap: np.ndarray) -> np.ndarray:  # one row per design
        return -h_A * a / (12 * gap) + 2 * math.pi * eps * a * z * z * np.log1p(np.exp(-k * gap))
    with np.errstate(all="ignore"):
        scan = closest * ((closest + 40 / k + 100e-9) / closest) ** np.linspace(0, 1, 800)
        values = np.nan_to_num(energy(scan), nan=-np.inf)
        best = np.argmax(values, axis=1)[:, None]
        low = np.take_along_axis(scan, np.maximum(best - 1, 0), axis=1)
        high = np.take_along_axis(scan, np.minimum(best + 1, scan.shape[1] - 1), axis=1)
        ratio = (math.sqrt(5) - 1) / 2
        for _ in range(60):
            left, right = high - ratio * (high - low), low + ratio * (high - low)
            higher_left = energy(left) > energy(right)
            high, low = np.where(higher_left, right, high), np.where(higher_left, low, left)
        peak = np.maximum(np.maximum(np.take_along_axis(values, best, axis=1), energy((low + high) / 2)), 0.0)
        barrier = peak.ravel() / (colloids.BOLTZMANN_J_PER_K * np.broadcast_to(temperature, shape).ravel())
    a, z, k = a.ravel(), z.ravel(), k.ravel()
    valid = (np.abs(z) <= 0.075) & np.isfinite(k) & (a > 0)
    return np.where(valid, barrier, np.nan).reshape(shape)


# -- dna -------------------------------------------------------------------------------------------------

def _dna(v: Arrays, wanted: set[str]) -> Arrays:
    strands, sodium = _finite(v["strand_total_M"]), _finite(v["sodium_M"])
    bases = str(v["sequence"]).strip().upper()
    shape = np.broadcast(strands, sodium).shape
    if len(bases) < 2 or set(bases) - set("ACGT"):
        return {"melting_temperature_C": np.full(shape, np.nan), "dG37_kcal_per_mol": np.full(shape, np.nan)}
    pairing = {"A": "T", "T": "A", "G": "C", "C": "G"}
    symmetric = bases == "".join(pairing[b] for b in bases[::-1])
    enthalpy = sum(dna.NEAREST_NEIGHBOUR[bases[i:i + 2]][0] for i in range(len(bases) - 1))
    entropy = sum(dna.NEAREST_NEIGHBOUR[bases[i:i + 2]][1] for i in range(len(bases) - 1))
    for end in (bases[0], bases[-1]):
        enthalpy += (dna.INITIATION_GC if end in "GC" else dna.INITIATION_AT)[0]
        entropy += (dna.INITIATION_GC if end in "GC" else dna.INITIATION_AT)[1]
    if symmetric:
        enthalpy, entropy = enthalpy + dna.SYMMETRY[0], entropy + dna.SYMMETRY[1]
    gc = sum(b in "GC" for b in bases) / len(bases)
    with np.errstate(all="ignore"):
        at_1M = 1000 * enthalpy / (entropy + dna.GAS_CONSTANT_CAL_PER_MOL_K * np.log(strands / (1 if symmetric else 4)))
        log_na = np.log(sodium)
        melting = 1 / (1 / at_1M + (4.29 * gc - 3.95) * 1e-5 * log_na + 9.40e-6 * log_na ** 2)
    melting = np.where((strands > 0) & (sodium > 0), melting - 273.15, np.nan)
    free_energy = np.full(shape, enthalpy - 310.15 * entropy / 1000)
    return {"melting_temperature_C": _finite(melting), "dG37_kcal_per_mol": free_energy}


PHYSICS: dict[str, Callable[[Arrays, set[str]], Arrays]] = {
    "rc_filter": _rc_filter, "inspiral": _inspiral, "drone": _drone, "colloid": _colloid, "dna": _dna}
STEPPED = {"rc_filter": ({"resistance_ohm", "capacitance_F"}, "e12_")}
"""Per domain: the inputs that reach quantities named with the prefix only as their nearest E12 part."""


def evaluate(domain: str, values: Arrays, quantities: list[str]) -> Arrays:
    """The judge's own values of ``quantities`` (arrays; NaN where the physics has no value)."""
    computed = {**values, **PHYSICS[domain](values, set(quantities))}
    return {q: _finite(computed[q]) for q in quantities}


def _margin(target: Target, value: np.ndarray, tolerance: float, slack: float) -> tuple[np.ndarray, np.ndarray]:
    """How far inside the tolerance band a value lies (-inf where it has none), and the slack there."""
    if target.op == ">=":
        inside = value - (target.value - tolerance)
    elif target.op == "<=":
        inside = target.value + tolerance - value
    else:
        inside = tolerance - np.abs(value - target.value)
    allowed = slack * np.maximum(np.nan_to_num(np.abs(value)), abs(target.value))
    return np.where(np.isnan(value), -np.inf, inside), allowed


def _met(goal: Goal, values: Arrays, robustly: bool) -> np.ndarray:
    """Where every target holds: by at least the slack (robustly), or within it."""
    met = None
    for target in goal.targets:
        inside, slack = _margin(target, values[target.quantity], goal.tolerance, SLACK.get(goal.domain, DEFAULT_SLACK))
        holds = inside >= slack if robustly else inside >= -slack
        met = holds if met is None else met & holds
    return np.asarray(met)


def _admits(goal: Goal, name: str, value: Any) -> bool:
    free = goal.free[name]
    if isinstance(value, bool):
        return False
    if free.choices is not None:
        return any(value == choice for choice in free.choices)
    return isinstance(value, (int, float)) and math.isfinite(value) and free.min <= value <= free.max


def design_meets(goal: Goal, design: dict[str, Any] | None) -> bool:
    """Whether the free values of ``design`` (all of them, within bounds) meet ``goal`` with its bound
    values; inputs the goal binds are taken from the goal, whatever the design says."""
    values = design or {}
    if not all(name in values and _admits(goal, name, values[name]) for name in goal.free):
        return False
    inputs = {**goal.bound, **{name: values[name] for name in goal.free}}
    computed = evaluate(goal.domain, inputs, [t.quantity for t in goal.targets])
    return bool(_met(goal, computed, robustly=False).all())


def goal_truth(goal: Goal) -> Truth:
    """FEASIBLE with a witness, INFEASIBLE by exhaustive enumeration, else UNDECIDED (cached per goal)."""
    return _truth_of(goal.model_dump_json())


@functools.lru_cache(maxsize=1024)
def _truth_of(goal_json: str) -> Truth:
    goal = Goal.model_validate_json(goal_json)
    listed = sorted(n for n, f in goal.free.items() if f.choices is not None)
    continuous = sorted(n for n, f in goal.free.items() if f.choices is None)
    stepped, prefix = STEPPED.get(goal.domain, (set(), "\0"))
    exhaustive = set(continuous) <= stepped and all(t.quantity.startswith(prefix) for t in goal.targets) \
        if continuous else True
    budget = GRID_BUDGET.get(goal.domain, DEFAULT_GRID_BUDGET)
    points = max(9, min(20_001, int(budget ** (1 / len(continuous))))) if continuous else 0
    axes = [_samples(goal, name, points, goal.domain in STEPPED and name in stepped) for name in continuous]
    close = False
    for choice in itertools.product(*(goal.free[n].choices or [] for n in listed)):
        mesh = np.meshgrid(*axes, indexing="ij") if axes else []
        inputs = {**goal.bound, **dict(zip(listed, choice, strict=True)), **dict(zip(continuous, mesh, strict=True))}
        quantities = [t.quantity for t in goal.targets]
        values = evaluate(goal.domain, inputs, quantities)
        if _met(goal, values, robustly=True).any() or _bisected_witness(goal, inputs, continuous, values):
            return Truth.FEASIBLE
        close = close or bool(_met(goal, values, robustly=False).any())
    return Truth.INFEASIBLE if exhaustive and not close else Truth.UNDECIDED


def _samples(goal: Goal, name: str, points: int, with_parts: bool) -> np.ndarray:
    """A fine grid over the interval and its ends (log-spaced when positive and wider than a decade), and
    every E12 part inside it for an input that is snapped to one."""
    free = goal.free[name]
    low, high = float(free.min), float(free.max)
    grid = np.geomspace(low, high, points) if low > 0 and high / low > 10 else np.linspace(low, high, points)
    extra = [low, high]
    if with_parts and low > 0:
        table = _e12_table(np.array([low, high]))
        extra += [float(part) for part in table if low <= part <= high]
    return np.unique(np.concatenate([grid, extra]))


def _bisected_witness(goal: Goal, inputs: Arrays, continuous: list[str], values: Arrays) -> bool:
    """For each "==" target: where it changes side between neighbouring grid points along one input,
    bisect that edge and test every target at the crossing."""
    for target in (t for t in goal.targets if t.op == "=="):
        side = np.sign(values[target.quantity] - target.value)
        for axis, name in enumerate(continuous):
            before = [slice(None)] * len(continuous)
            after = list(before)
            before[axis], after[axis] = slice(None, -1), slice(1, None)
            edges = (side[tuple(before)] * side[tuple(after)]) < 0
            if not edges.any():
                continue
            low = inputs[name][tuple(before)][edges]
            high = inputs[name][tuple(after)][edges]
            fixed = {n: (inputs[n][tuple(before)][edges] if n in continuous else inputs[n]) for n in inputs}
            low_side = side[tuple(before)][edges]
            for _ in range(BISECTIONS):
                middle = (low + high) / 2
                here = np.sign(evaluate(goal.domain, {**fixed, name: middle}, [target.quantity])[target.quantity]
                               - target.value)
                move_low = here == low_side
                low, high = np.where(move_low, middle, low), np.where(move_low, high, middle)
            crossing = {**fixed, name: (low + high) / 2}
            found = evaluate(goal.domain, crossing, [t.quantity for t in goal.targets])
            if _met(goal, found, robustly=True).any():
                return True
    return False
