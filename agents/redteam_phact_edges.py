"""PHACT red-team classes at the numerical edge and outside physics (issue 36, item 5).

Each class carries its own truth, computed here from a closed form and never by the engine's search:

- numerical_edge_joint_windows: an RC low-pass asked for a cutoff >= X and at least 10 log10 2 dB (the
  attenuation at the cutoff itself) at X (1 + w), w log-uniform in [1e-15, 1e-9]. Every cutoff in
  [X, X (1 + w)] meets both targets in exact arithmetic, so the goal is feasible: an impossibility proof is
  false. The witness has its cutoff at X (1 + w/2).
- numerical_edge_equalities: a cutoff asked equal to a target (1234.5678 Hz or a random value) within a
  relative tolerance of 1e-9 .. 1e-15, or 0. R = 1 kOhm and C = 1 / (2 pi R T) meet it exactly in the reals
  and both lie inside the free box, so an impossibility proof is false.
- out_of_domain_inputs: inputs no physics allows, each with a target the closed forms would meet, so that a
  checker that evaluates them blindly certifies; any certificate is false.

A certified design is judged by the independent judge (ground_truth.design_meets), whose relative slack of
1e-9 is far wider than these tolerances: it can miss a false certificate of a near miss, never invent one.
"""

from __future__ import annotations

import math
import random
from typing import Any

from physvec.agents.redteam import DETAIL_CHARS, Judged, _crash, _judge_phact, _log_uniform, _parsed, _pick, _structural
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.phact.engines import gravitational_waves as gw

PHACT_EDGE_CLASSES = ("numerical_edge_joint_windows", "numerical_edge_equalities", "out_of_domain_inputs")
HALF_POWER_DB = 10 * math.log10(2)
"""A first-order low-pass is down 10 log10 2 = 3.0103 dB at its cutoff and more above it."""
EQUALITY_TARGETS = (1234.5678, 50.0, 1e6 / 7)
ATOMIC_RADIUS_M = 1e-10
"""A particle smaller than an atom (about 1 Angstrom) is no colloid."""
NACL_SOLUBILITY_M = 6.1
"""NaCl in water at 25 C, about 6.1 mol/kg (CRC Handbook, aqueous solubility of inorganic compounds)."""
NUCLEOTIDE_G_PER_MOL = 330.0
"""Average mass of a DNA nucleotide in a strand, about 330 g/mol; pure DNA is about 1.7 g/mL."""
DNA_DENSITY_G_PER_L = 1700.0


def _rc_box(resistance: float, capacitance: float, rng: random.Random) -> dict[str, dict[str, float]]:
    """Free R and C boxes that hold the witness, from a tight to a three-decade span."""
    spread = [10 ** rng.uniform(0.0, 1.5) for _ in range(4)]
    return {"resistance_ohm": {"min": resistance / spread[0], "max": resistance * spread[1]},
            "capacitance_F": {"min": capacitance / spread[2], "max": capacitance * spread[3]}}


def joint_window_goal(rng: random.Random, goal_id: str) -> tuple[dict[str, Any], dict[str, float], float]:
    """(goal, witness, w): cutoff >= X and >= 3.0103 dB at X (1 + w); the witness's cutoff is X (1 + w/2)."""
    w = _log_uniform(rng, 1e-15, 1e-9)
    cutoff = 10 ** rng.uniform(1, 5)
    resistance = 10 ** rng.uniform(2, 5)
    capacitance = 1 / (2 * math.pi * resistance * cutoff * (1 + w / 2))
    goal = {"id": goal_id, "domain": "rc_filter",
            "statement": f"a low-pass with cutoff at least {cutoff!r} Hz, still half-power down at {1 + w!r} times it",
            "bound": {"kind": "low_pass", "signal_Hz": cutoff * (1 + w)},
            "free": _rc_box(resistance, capacitance, rng),
            "targets": [{"quantity": "cutoff_Hz", "op": ">=", "value": cutoff},
                        {"quantity": "attenuation_dB", "op": ">=", "value": HALF_POWER_DB}],
            "tolerance": 0.0}
    return goal, {"resistance_ohm": resistance, "capacitance_F": capacitance}, w


def equality_goal(rng: random.Random, goal_id: str) -> tuple[dict[str, Any], dict[str, float], float]:
    """(goal, witness, relative tolerance): cutoff == T within T * tolerance; R = 1 kOhm, C = 1/(2 pi R T)."""
    target = _pick(rng, EQUALITY_TARGETS) if rng.random() < 0.7 else 10 ** rng.uniform(0, 6)
    relative = 0.0 if rng.random() < 0.2 else _log_uniform(rng, 1e-15, 1e-9)
    resistance = 1000.0
    capacitance = 1 / (2 * math.pi * resistance * target)
    goal = {"id": goal_id, "domain": "rc_filter", "statement": f"a low-pass cutoff of {target!r} Hz",
            "bound": {"kind": "low_pass", "signal_Hz": target},
            "free": _rc_box(resistance, capacitance, rng),
            "targets": [{"quantity": "cutoff_Hz", "op": "==", "value": target}],
            "tolerance": target * relative}
    return goal, {"resistance_ohm": resistance, "capacitance_F": capacitance}, relative


def _edge_trial(goal_data: dict[str, Any], witness: dict[str, float], variant: str, rng: random.Random) -> Judged:
    """declare_impossible, or propose the witness: feasible by construction, so IMPOSSIBLE is false."""
    goal, domain = _parsed(goal_data)
    attack = _pick(rng, ("declare_impossible", "propose_witness"))
    given = {"goal": goal_data, "witness": witness, "attack": attack}
    try:
        if attack == "declare_impossible":
            certificate = _structural(goal, domain, "declare_impossible", {"reason": "below float resolution"})
        else:
            certificate = _structural(goal, domain, "propose_design", {"values": witness})
    except Exception as error:
        return _crash(variant, error, given)
    judged = _judge_phact(f"{attack}: {variant}", goal, certificate, witness, witness, given)
    if judged.verdict == Verdict.IMPOSSIBLE.value:  # the closed form is the truth here, not a grid
        judged.truth, judged.false_impossible, judged.unknown = "feasible", True, False
    return judged


def joint_windows_trial(rng: random.Random, goal_id: str) -> Judged:
    """May end unknown: the checker may decline a proof whose shortfall is below its numerical resolution
    (right), or fail to certify a witness whose margin (w/2 of the cutoff) is below float resolution."""
    goal, witness, w = joint_window_goal(rng, goal_id)
    return _edge_trial(goal, witness, f"w = {w:.3g}", rng)


def equalities_trial(rng: random.Random, goal_id: str) -> Judged:
    """May end unknown: a witness's float cutoff can miss a tolerance of a few ulps (or 0) by rounding alone,
    so the checker may neither certify it nor prove the goal unreachable."""
    goal, witness, relative = equality_goal(rng, goal_id)
    return _edge_trial(goal, witness, f"T = {goal['targets'][0]['value']!r} Hz, relative tolerance {relative:.3g}",
                       rng)


def _schwarzschild_m(total_msun: float) -> float:
    return 2 * gw.G_SI * total_msun * gw.SOLAR_MASS_KG / gw.C_SI ** 2


def _isco_Hz(total_msun: float) -> float:
    """The GW frequency at the innermost stable circular orbit, c^3 / (6^1.5 pi G M)."""
    return gw.C_SI ** 3 / (6 * math.sqrt(6) * math.pi * gw.G_SI * total_msun * gw.SOLAR_MASS_KG)


def _inspiral(rng: random.Random, which: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    m1, m2 = rng.uniform(1, 40), rng.uniform(1, 40)
    radius = _schwarzschild_m(m1 + m2)
    bound = {"m1_msun": m1, "m2_msun": m2, "distance_Mpc": 400.0, "gw_frequency_Hz": 30.0,
             "separation_m": 10 * radius}
    if which == "inside_schwarzschild":
        name, value = "separation_m", radius * rng.uniform(0.001, 0.95)
        target = {"quantity": "merger_time_s", "op": ">=", "value": 0.0}
        why = f"separation {value:.3g} m inside the Schwarzschild radius {radius:.3g} m"
    else:
        isco = _isco_Hz(m1 + m2)
        name, value = "gw_frequency_Hz", isco * 10 ** rng.uniform(0.05, 2)
        target = {"quantity": "strain", "op": ">=", "value": 0.0}
        why = f"GW frequency {value:.3g} Hz above f_ISCO {isco:.3g} Hz"
    bound.pop(name)
    return {"domain": "inspiral", "bound": bound, "free": {name: {"min": value / 2, "max": value}},
            "targets": [target]}, {name: value}, why


def _random_strand(rng: random.Random, length: int) -> str:
    return "".join(_pick(rng, "ACGT") for _ in range(length))


def _dna(rng: random.Random, which: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    length = rng.randint(10, 30)
    sequence = _random_strand(rng, length)
    bound = {"strand_total_M": 1e-6, "sodium_M": 0.15}
    if which == "dense_strands":
        pure_M = DNA_DENSITY_G_PER_L / (NUCLEOTIDE_G_PER_MOL * length)
        name, value = "strand_total_M", pure_M * 10 ** rng.uniform(0.5, 3)
        why = f"{length}-mer at {value:.3g} mol/L, denser than pure DNA ({pure_M:.3g} mol/L)"
    else:
        name, value = "sodium_M", NACL_SOLUBILITY_M * 10 ** rng.uniform(0.3, 6)
        why = f"{value:.3g} M sodium, above NaCl's solubility of {NACL_SOLUBILITY_M} mol/kg"
    bound.pop(name)
    return {"domain": "dna", "bound": {**bound, "sequence": sequence}, "free": {name: {"min": value / 2, "max": value}},
            "targets": [{"quantity": "melting_temperature_C", "op": ">=", "value": -273.15}]}, {name: value}, why


def _drone(rng: random.Random, which: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    bound = {"mass_kg": 1.5, "max_thrust_N": 30.0, "max_roll_deg": 35.0, "air_density_kg_per_m3": 1.225,
             "drag_coefficient": 1.0, "frontal_area_m2": 0.05, "wind_m_per_s": 10.0, "transit_s": 60.0}
    name = "air_density_kg_per_m3" if which == "negative_density" else "drag_coefficient"
    value = -10 ** rng.uniform(-3, 0.5)
    bound.pop(name)
    return {"domain": "drone", "bound": bound, "free": {name: {"min": value * 2, "max": value}},
            "targets": [{"quantity": "drag_N", "op": "<=", "value": 0.0}]}, {name: value}, f"{name} = {value:.3g}"


def _colloid(rng: random.Random, which: str) -> tuple[dict[str, Any], dict[str, Any], str]:
    value = ATOMIC_RADIUS_M * 10 ** rng.uniform(-4, -0.5)
    bound = {"material": _pick(rng, ("polystyrene", "silica")), "zeta_V": -0.05, "ionic_strength_M": 0.01,
             "temperature_K": 298.15}
    return {"domain": "colloid", "bound": bound, "free": {"radius_m": {"min": value / 2, "max": value}},
            "targets": [{"quantity": "barrier_kT", "op": ">=", "value": 0.0}]}, {"radius_m": value}, \
        f"colloid radius {value:.3g} m, below atomic size"


OUT_OF_DOMAIN = {"inside_schwarzschild": _inspiral, "above_isco": _inspiral, "dense_strands": _dna,
                 "saturated_sodium": _dna, "negative_density": _drone, "negative_drag": _drone,
                 "subatomic_colloid": _colloid}
"""Per physically impossible input: a builder of (goal, design, why) whose design the closed forms accept."""


def out_of_domain_trial(rng: random.Random, goal_id: str) -> Judged:
    """May end unknown: unknown is a right answer here (the engine declines outside its validity domain), and
    is counted so; refusal (None) is right too."""
    which = _pick(rng, tuple(OUT_OF_DOMAIN))
    partial, design, why = OUT_OF_DOMAIN[which](rng, which)
    data = {"id": goal_id, "statement": why, "tolerance": 0.0, **partial}
    goal, domain = _parsed(data)
    variant = f"{which}: {why}"
    given = {"goal": data, "design": design}
    try:
        certificate = _structural(goal, domain, "propose_design", {"values": design})
    except Exception as error:
        return _crash(variant, error, given)
    verdict = "refused" if certificate is None else certificate.verdict.value
    reasons = [f"{o.name}: {o.message}" for o in certificate.obligations if o.outcome.value != "certified"] if certificate else []
    return Judged(variant, verdict, "outside_physics", false_certificate=verdict == Verdict.CERTIFIED.value,
                  unknown=verdict == Verdict.UNKNOWN.value, detail="; ".join(reasons)[:DETAIL_CHARS], input=given)


def phact_edge_trial(kind: str, rng: random.Random, goal_id: str) -> Judged:
    trial = {"numerical_edge_joint_windows": joint_windows_trial, "numerical_edge_equalities": equalities_trial,
             "out_of_domain_inputs": out_of_domain_trial}[kind]
    return trial(rng, goal_id)
