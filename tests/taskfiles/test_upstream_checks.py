"""Upstream prose checks become code checks by fixed patterns: parameters from name=value pairs, expected
values and tolerances from the truth, symmetries from "spatially symmetric"; what does not parse stays
prose with its reason.  Fixtures are written in our own words in the upstream shape; one test pins the
conversion of the published tasks that carry LimitingCases (read from ../shared at run time)."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from physvec.taskfiles.assertions import PublishedValue, Symmetry
from physvec.taskfiles.physvec_shape import PhysvecPaperTask, ProseCheck, ProseConvergence
from physvec.taskfiles.upstream_checks import (
    ADAPTER_KEY, ENERGY_KEY, RUN_FUNCTION, Unreadable, convert_check, convert_convergence, convert_task, parse_pairs,
    renamed,
)

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "data" / "upstream_qmp"


def check(content: str, truth: str, source: str = "LimitingCases.0"):
    return convert_check(ProseCheck(content=content, truth=truth), source)[0]


@pytest.mark.parametrize(("content", "system", "arguments"), [
    ("the energy of the chain with L=4, J=1", {"L": 4, "J": 1}, {}),
    ("with size L=2, \\theta= pi/2", {"L": 2, "theta": math.pi / 2}, {}),
    ("with \\phi=-0.65\\pi and h=1/2", {"phi": -0.65 * math.pi, "h": 0.5}, {}),
    ("with size L=8, Nup=Ndown=4, U=2.5", {"L": 8, "Nup": 4, "Ndown": 4, "U": 2.5}, {}),
    ("size L=10, \\tan(\\theta) = 1/3", {"L": 10, "theta": math.atan(1 / 3)}, {}),
    ("hoppings t'=0.5, J'=1.0, <n> =0.5 and \\langle n \\rangle=0.5", {"t_prime": 0.5, "J_prime": 1.0, "n_mean": 0.5}, {}),
    ("a ladder of length 4 along the chain direction and 2 along the rung direction, U=3",
     {"Ly": 4, "Lx": 2, "U": 3}, {}),
    ("trap A=1 (with V=4A/L^2) and J=4t^2/U", {"A": 1}, {}),
    ("Ly=3 (legs), Lx=2(rungs)", {"Ly": 3, "Lx": 2}, {}),
    ("at distance r=3 for L=8", {"L": 8}, {"r": 3}),
    ("at time points t = 0.5, 1 for L=2", {"L": 2}, {"t": [0.5, 1.0]}),
    ("size L=4, quenching Jz from 1 to 1/2", {"L": 4, "Jz": 1.0}, {"Jz_quench": 0.5}),
])
def test_parameters_and_observable_arguments_are_read_from_name_value_pairs(content, system, arguments):
    found_system, found_arguments = parse_pairs(content)
    assert found_system == pytest.approx(system) and found_arguments == arguments


def test_a_total_energy_at_overrides_is_read_from_the_interface_key():
    assertion = check("The total ground state energy of this system with size L=3, J=2",
                      "The total ground state energy is -1.5. The relative error tolerance is +/- 0.02.")
    assert (assertion.kind, assertion.run, assertion.observable) == ("limiting_case", RUN_FUNCTION, ENERGY_KEY)
    assert (assertion.overrides, assertion.expected, assertion.rtol, assertion.atol) == ({"L": 3, "J": 2}, -1.5, 0.02, 0)


def test_a_relative_tolerance_around_zero_gets_the_same_absolute_floor():
    assertion = check("The total ground state energy with size L=2, t=0, U=1",
                      "The total ground state energy is 0.0. The relative error tolerance is +/- 0.01.")
    assert (assertion.expected, assertion.rtol, assertion.atol) == (0.0, 0.01, 0.01)


@pytest.mark.parametrize(("truth", "expected", "arguments"), [
    ("The counts are both 5. The relative error tolerance is +/- 0.05.", [5.0, 5.0], {}),
    ("The values at t = 0.5, 1 are constantly 1. The absolute error tolerance is +/- 0.1.", [1.0, 1.0], {"t": [0.5, 1.0]}),
    ("The values at t = 0.5, 1 are -0.4, -0.6. The absolute error tolerance is +/- 0.1.", [-0.4, -0.6], {"t": [0.5, 1.0]}),
    ("The ratio is 0.69, the relative error tolerance is +/- 0.1.", 0.69, {}),
])
def test_other_observables_go_to_an_adapter_that_never_hears_the_expected_value(truth, expected, arguments):
    times = " at time points t = 0.5, 1" if arguments else ""
    content = f"You calculate this system with size L=4{times}. You measure the spin-up count."
    assertion = check(content, truth)
    assert assertion.observable == ADAPTER_KEY and assertion.expected == pytest.approx(expected)
    assert assertion.arguments == arguments
    assert "You measure the spin-up count" in assertion.adapter
    numbers = [expected] if not isinstance(expected, list) else expected
    assert not any(f"{value:g}" in assertion.adapter for value in numbers if value not in (0.5, 1.0, 4.0)), \
        "the adapter's words carry no expected number beyond the parameters"


def test_spatially_symmetric_is_a_reflection_of_the_site_profile():
    assertion = check("You calculate this system with size L=6, U=2. You measure the density at each site.",
                      "The densities are spatially symmetric. The relative error tolerance is +/- 0.05 (for each site).")
    assert isinstance(assertion, Symmetry) and assertion.relation == "reversed"
    assert assertion.overrides_a == assertion.overrides_b == {"L": 6, "U": 2} and assertion.rtol == 0.05


def test_scientific_results_are_published_values():
    assertion = check("The results of Fig. 1 for the third spin. You check results of time Jt = 0, 1.",
                      "The magnetization at Jt = 0, 1 are 1.0, 0.2. The absolute error tolerance is +/- 0.1.",
                      source="ScientificResults.0")
    assert isinstance(assertion, PublishedValue) and assertion.expected == [1.0, 0.2]
    assert assertion.arguments == {"Jt": [0.0, 1.0]} and assertion.atol == 0.1


@pytest.mark.parametrize(("content", "truth", "reason"), [
    ("The energy of the system at t = 0.5, 1 with L=8.", "It should be constant. Relative error tolerance is +/- 0.1.",
     "no number and no symmetry"),
    ("The energy with L=2.", "The energy is -2.", "no relative or absolute tolerance"),
    ("The energy of the ladder of size two by two, t=1.", "The energy is -4. The relative error tolerance is +/- 0.01.",
     "system size"),
])
def test_what_the_patterns_cannot_read_stays_prose_with_the_reason(content, truth, reason):
    with pytest.raises(Unreadable, match=reason):
        check(content, truth)


def test_a_convergence_case_names_its_parameter_and_tolerance():
    case, _ = convert_convergence(ProseConvergence(
        content="Watch the energy.", parameter="The number of sweeps (nsweeps), raised as needed.",
        criteria="Stable within the absolute error tolerance of 1e-4."))
    assert (case.parameter, case.tolerance, case.observable, case.run) == ("nsweeps", 1e-4, ENERGY_KEY, RUN_FUNCTION)
    assert case.ladder == sorted(case.ladder) and len(case.ladder) >= 2
    with pytest.raises(Unreadable, match="parentheses"):
        convert_convergence(ProseConvergence(content="x", parameter="more sweeps", criteria="tolerance of 1e-3"))


def _demo_task(**changes) -> PhysvecPaperTask:
    return PhysvecPaperTask.model_validate({
        "pdf_name": "demo", "subplot_name": "Fig. 1", "rubrics_name": "r.json",
        "User_requests": "Compute the ladder by DMRG.", **changes})


def test_renaming_puts_checks_in_the_script_s_names():
    conversion = convert_task(_demo_task(LimitingCases=[
        {"content": "The total ground state energy with size Ly=2, Lx=2, Nup=Ndown=1",
         "truth": "The total ground state energy is -2. The relative error tolerance is +/- 0.01."},
        {"content": "The total ground state energy with size Ly=2, Lx=3, Nup=Ndown=1",
         "truth": "The total ground state energy is -3. The relative error tolerance is +/- 0.01."},
    ], ScientificResults=[
        {"content": "The spin magnetization at time points Jt = 0, 1 of L=4.",
         "truth": "They are 1.0, 0.5. The absolute error tolerance is +/- 0.1."},
    ]))
    result = renamed(conversion, aliases={"Ly": "L", "Nup": "N_up", "Ndown": "N_down"}, fixed={"Lx": 2},
                     observables={"ScientificResults.0": ("site_magnetization", {"Jt": "times"})})
    ladder, published = result.assertions
    assert ladder.overrides == {"L": 2, "N_up": 1, "N_down": 1}
    assert (published.observable, published.adapter, published.overrides) == (
        "site_magnetization", None, {"L": 4, "times": [0.0, 1.0]})
    prose = next(row for row in result.rows if row.source == "LimitingCases.1")
    assert not prose.converted and "fixes Lx = 2" in prose.reason
    assert set(result.parameters) == {"L", "N_up", "N_down", "times"}


PUBLISHED_CONVERSION = {
    "task_dmrg_1_3.json": ["energy", "energy", "energy", "symmetry", "energy", "convergence"],
    "task_dmrg_1_5.json": ["energy", "energy", "adapter", "symmetry", "energy", "convergence"],
    "task_dmrg_2_2.json": ["energy", "energy", "energy", "adapter", "adapter", "symmetry", "convergence"],
    "task_dmrg_2_3.json": ["energy", "energy", "energy", "adapter", "adapter", "symmetry", "convergence"],
    "task_dmrg_7_2.json": ["energy", "energy", "energy", "adapter", "symmetry", "adapter", "convergence"],
    "task_dmrg_9_1.json": ["energy", "energy", "energy", "adapter", "symmetry", "convergence"],
    "task_nnwf_4_4.json": ["energy"],
    "task_nnwf_4_5.json": ["energy", "adapter", "adapter", "adapter", "prose", "adapter"],
}
"""What each check of the published tasks with LimitingCases becomes, in order."""


def _category(derived: str) -> str:
    return ("prose" if derived.startswith("kept as prose") else "convergence" if derived.startswith("convergence")
            else "symmetry" if derived.startswith("symmetry") else "adapter" if "adapter" in derived else "energy")


@pytest.mark.skipif(not (UPSTREAM / "tasks").is_dir(), reason=f"the published task files are not at {UPSTREAM}")
def test_the_published_tasks_with_limiting_cases_convert_as_pinned():
    found = {}
    for path in sorted((UPSTREAM / "tasks").glob("*/*.json")):
        data = json.loads(path.read_text(encoding="utf-8-sig"))
        if "LimitingCases" in data:
            found[path.name] = [_category(row.derived) for row in convert_task(PhysvecPaperTask.model_validate(data)).rows]
    assert found == PUBLISHED_CONVERSION
    ladder = convert_task(PhysvecPaperTask.model_validate(json.loads(
        (UPSTREAM / "tasks" / "dmrg" / "task_dmrg_2_2.json").read_text()))).assertions[0]
    assert ladder.overrides == {"Ly": 2, "Lx": 2, "t": 1, "U": 0.0} and ladder.expected == -4.0
