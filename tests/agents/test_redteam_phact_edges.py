"""The PHACT red team's numerical-edge and out-of-physics classes: their witnesses meet their goals by the
closed forms, their inputs lie outside physics, and the checker neither proves the feasible goals impossible
nor certifies the impossible inputs."""

from __future__ import annotations

import math
import random

import pytest

from physvec.agents import redteam_phact_edges as edges
from physvec.agents.redteam import _parsed, phact_trial
from physvec.verifiers.phact.ground_truth import design_meets


@pytest.mark.parametrize("seed", range(8))
def test_the_joint_window_witness_has_its_cutoff_inside_the_window(seed):
    goal, witness, w = edges.joint_window_goal(random.Random(seed), "g")
    cutoff = 1 / (2 * math.pi * witness["resistance_ohm"] * witness["capacitance_F"])
    low = goal["targets"][0]["value"]
    assert 1e-15 <= w <= 1e-9
    assert cutoff / low - 1 == pytest.approx(w / 2, rel=1e-3, abs=4e-16)
    assert design_meets(_parsed(goal)[0], witness)


@pytest.mark.parametrize("seed", range(8))
def test_the_equality_witness_meets_its_target_by_the_independent_judge(seed):
    goal, witness, relative = edges.equality_goal(random.Random(seed), "g")
    assert relative == 0 or 1e-15 <= relative <= 1e-9
    assert design_meets(_parsed(goal)[0], witness)


def test_a_60_solar_mass_binary_has_the_issue_s_177_km_schwarzschild_radius():
    # issue 36: "a binary separation of 1 km, inside its 177 km Schwarzschild radius"; 2GM/c^2 = 2.95 km per Msun
    assert edges._schwarzschild_m(60.0) == pytest.approx(177e3, rel=0.01)
    # f_ISCO = 4.4 kHz (Msun / M): 73 Hz at 60 Msun (issue 36: "above the 73 Hz ISCO frequency")
    assert edges._isco_Hz(60.0) == pytest.approx(73.3, rel=0.01)


@pytest.mark.parametrize("which", sorted(edges.OUT_OF_DOMAIN))
def test_every_out_of_domain_design_lies_outside_physics(which):
    goal, design, why = edges.OUT_OF_DOMAIN[which](random.Random(3), which)
    (name, value), = design.items()
    bound = goal["bound"]
    outside = {
        "inside_schwarzschild": lambda: value < edges._schwarzschild_m(bound["m1_msun"] + bound["m2_msun"]),
        "above_isco": lambda: value > edges._isco_Hz(bound["m1_msun"] + bound["m2_msun"]),
        "dense_strands": lambda: value * edges.NUCLEOTIDE_G_PER_MOL * len(bound["sequence"]) > edges.DNA_DENSITY_G_PER_L,
        "saturated_sodium": lambda: value > edges.NACL_SOLUBILITY_M,
        "negative_density": lambda: value < 0, "negative_drag": lambda: value < 0,
        "subatomic_colloid": lambda: value < edges.ATOMIC_RADIUS_M}[which]
    assert outside(), why
    assert goal["free"][name]["min"] <= value <= goal["free"][name]["max"]


@pytest.mark.parametrize("kind", edges.PHACT_EDGE_CLASSES)
def test_no_false_verdict_in_a_few_trials_of_each_class(tmp_path, kind):
    judged = [phact_trial(kind, random.Random(seed), tmp_path, str(seed)) for seed in range(6)]
    assert not [j.variant for j in judged if j.crash]
    assert not [(j.variant, j.detail) for j in judged if j.false_impossible or j.false_certificate]
