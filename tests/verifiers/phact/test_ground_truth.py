"""The independent judge of ground truth: its own physics agrees with Biopython, published closed forms and
the engine, it shares no code with the verdict, and it knows what it can and cannot decide."""

from __future__ import annotations

import ast
import inspect
import itertools
import math
import random

import numpy as np
import pytest
from Bio.SeqUtils import MeltingTemp

from physvec.verifiers.phact import ground_truth
from physvec.verifiers.phact.corpus import corpus
from physvec.verifiers.phact.engines import filters
from physvec.verifiers.phact.ground_truth import Truth, design_meets, evaluate, goal_truth, nearest_e12
from physvec.verifiers.phact.schema import parse_goal

GOALS = corpus()


def test_the_judge_imports_nothing_of_the_verdicts_code_path():
    imported = {node.module for node in ast.walk(ast.parse(inspect.getsource(ground_truth)))
                if isinstance(node, ast.ImportFrom) and node.module}
    verdict_path = {"contract", "search", "correction", "domains", "tools"}
    assert not {module.rsplit(".", 1)[-1] for module in imported} & verdict_path
    # the engine modules are imported for constants and tables only: no engine function is called
    called = {node.func.attr for node in ast.walk(ast.parse(inspect.getsource(ground_truth)))
              if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
              and isinstance(node.func.value, ast.Name) and node.func.value.id in {"filters", "dna", "colloids", "gw", "drones"}}
    assert not called


@pytest.mark.parametrize("path, goal, domain", GOALS, ids=lambda v: getattr(v, "id", ""))
def test_the_judge_agrees_with_how_every_corpus_goal_was_written(path, goal, domain):
    truth = goal_truth(goal)
    if goal.impossible_because:
        assert truth is not Truth.FEASIBLE, "the judge found a witness for a goal written impossible"
    else:
        assert truth is Truth.FEASIBLE, "the judge found no witness for a goal written feasible"


def test_a_fixed_system_is_decided_either_way():
    decided = {goal.id: goal_truth(goal) for _, goal, _ in GOALS if not goal.free}
    assert decided["fixed-rc-claimed-995-hz"] is Truth.FEASIBLE
    assert decided["gw150914-claimed-chirp-30"] is Truth.INFEASIBLE


@pytest.mark.parametrize("sequence", ["CGTTGAAGCTTACG", "GCGCATGCGC", "ATATATATATATATATATAT"])
@pytest.mark.parametrize("strands_M, sodium_M", [(250e-9, 0.05), (1e-6, 0.15), (1e-7, 1.0)])
def test_the_judges_melting_temperature_equals_biopython(sequence, strands_M, sodium_M):
    symmetric = sequence == sequence[::-1].translate(str.maketrans("ACGT", "TGCA"))
    expected = MeltingTemp.Tm_NN(sequence, nn_table=MeltingTemp.DNA_NN3, selfcomp=symmetric,
                                 dnac1=strands_M * 1e9 if symmetric else strands_M * 1e9 / 2,
                                 dnac2=0 if symmetric else strands_M * 1e9 / 2,
                                 Na=sodium_M * 1e3, K=0, Tris=0, Mg=0, dNTPs=0, saltcorr=6)
    values = evaluate("dna", {"sequence": sequence, "strand_total_M": strands_M, "sodium_M": sodium_M},
                      ["melting_temperature_C"])
    assert float(values["melting_temperature_C"]) == pytest.approx(expected, abs=1e-9)


def test_the_nearest_e12_part_is_found_by_bisection_of_the_table():
    parts = [m * 10.0 ** d for d in (2, 3) for m in filters.E_SERIES["E12"]]
    assert list(nearest_e12(np.array(parts))) == pytest.approx(parts)
    # between 4.7 k and 5.6 k the cut is their geometric mean, 5.13 k
    assert list(nearest_e12(np.array([5.1e3, 5.2e3, 9.7e3]))) == pytest.approx([4.7e3, 5.6e3, 1e4])


def test_the_judge_evaluates_closed_forms_directly():
    rc = evaluate("rc_filter", {"kind": "high_pass", "resistance_ohm": 1e3, "capacitance_F": 1e-6, "signal_Hz": 1.0},
                  ["cutoff_Hz", "attenuation_dB", "e12_cutoff_Hz"])
    assert float(rc["cutoff_Hz"]) == pytest.approx(1 / (2 * math.pi * 1e-3))
    assert float(rc["attenuation_dB"]) == pytest.approx(10 * math.log10(1 + (1 / (2 * math.pi * 1e-3)) ** 2))
    chirp = evaluate("inspiral", {"m1_msun": 1.46, "m2_msun": 1.27, "distance_Mpc": 40.0, "gw_frequency_Hz": 100.0,
                                  "separation_m": 1e6}, ["chirp_mass_msun"])
    assert float(chirp["chirp_mass_msun"]) == pytest.approx(1.186, abs=0.002)
    outside = evaluate("colloid", {"material": "polystyrene", "radius_m": 1e-7, "zeta_V": -0.03,
                                   "ionic_strength_M": 0.01, "temperature_K": 390.0}, ["barrier_kT", "debye_length_m"])
    assert np.isnan(outside["barrier_kT"]) and np.isnan(outside["debye_length_m"])  # beyond the water data


@pytest.mark.parametrize("path, goal, domain", [g for g in GOALS if g[1].free], ids=lambda v: getattr(v, "id", ""))
def test_the_judge_and_the_engine_agree_on_random_designs(path, goal, domain):
    rng = random.Random(goal.id)
    for _ in range(12):
        values = {name: rng.choice(free.choices) if free.choices is not None else
                  rng.uniform(free.min, free.max) for name, free in goal.free.items()}
        try:
            engine = domain.evaluate({**goal.bound, **values}, [t.quantity for t in goal.targets])
        except ValueError:
            continue
        judged = evaluate(goal.domain, {**goal.bound, **values}, [t.quantity for t in goal.targets])
        for target in goal.targets:
            assert float(judged[target.quantity]) == pytest.approx(engine[target.quantity], rel=1e-5, abs=1e-300)


def test_a_design_is_judged_on_its_free_values_within_bounds_with_the_goals_bound_values():
    goal, _ = parse_goal({"id": "hum", "domain": "rc_filter", "bound": {"kind": "low_pass", "signal_Hz": 50.0},
                          "free": {"resistance_ohm": {"min": 1e3, "max": 1e6}, "capacitance_F": {"min": 1e-9, "max": 1e-5}},
                          "targets": [{"quantity": "attenuation_dB", "op": ">=", "value": 20.0}], "tolerance": 1e-6})
    good = {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6}
    assert design_meets(goal, good)
    assert design_meets(goal, {**good, "signal_Hz": 0.001})  # a written bound input changes nothing here
    assert not design_meets(goal, {"resistance_ohm": 35_368.0})
    assert not design_meets(goal, {**good, "resistance_ohm": 2e6})
    assert not design_meets(goal, {**good, "capacitance_F": True})
    assert not design_meets(goal, {"resistance_ohm": 1e3, "capacitance_F": 1e-9})


def test_an_exhaustive_e12_space_is_decided_and_a_continuous_one_without_witness_is_undecided():
    def rc_goal(quantity, value, tolerance):
        return parse_goal({"id": f"{quantity}-{value}", "domain": "rc_filter",
                           "bound": {"kind": "low_pass", "signal_Hz": 1e3},
                           "free": {"resistance_ohm": {"min": 1e3, "max": 1e5}, "capacitance_F": {"min": 1e-9, "max": 1e-6}},
                           "targets": [{"quantity": quantity, "op": "==", "value": value}], "tolerance": tolerance})[0]
    parts = itertools.product([m * 10.0 ** d for d in (3, 4) for m in filters.E_SERIES["E12"]] + [1e5],
                              [m * 10.0 ** d for d in (-9, -8, -7) for m in filters.E_SERIES["E12"]] + [1e-6])
    reachable = np.array(sorted(1 / (2 * math.pi * r * c) for r, c in parts))
    assert goal_truth(rc_goal("e12_cutoff_Hz", float(reachable[100]), 0.01)) is Truth.FEASIBLE
    gaps = np.diff(reachable)
    i = int(np.argmax(gaps * (reachable[:-1] > 1e3)))
    middle = float((reachable[i] + reachable[i + 1]) / 2)
    assert goal_truth(rc_goal("e12_cutoff_Hz", middle, 0.01)) is Truth.INFEASIBLE
    assert goal_truth(rc_goal("cutoff_Hz", 1e9, 1.0)) is Truth.UNDECIDED
