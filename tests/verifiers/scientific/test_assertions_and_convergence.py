"""Physical assertions and convergence ladders run the script's own functions and judge by code.

References: a tight-binding ring of L = 8 sites at half filling has E0 = -2 - 2 sqrt(2) (levels
-2 cos(2 pi m / L)); its spectrum is symmetric, so E(N) = E(L - N) (particle-hole symmetry); two
sites with open ends give E0 = -t.  A particle in a unit box has E1 = pi^2 / 2 (hbar = m = 1).
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from physvec.taskfiles.assertions import AssertionFile
from physvec.taskfiles.task import ConvergenceCase
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.assertions import assertion_obligations
from physvec.verifiers.scientific.convergence import convergence_obligations, probe_value

SCRIPTS = Path(__file__).resolve().parents[2] / "fixtures" / "scripts" / "scientific"
RING = (SCRIPTS / "hopping_ring.py").read_text()
BOX = (SCRIPTS / "particle_in_box.py").read_text()
LIMITS = SandboxLimits(wall_s=60)

RING_ASSERTIONS = AssertionFile.model_validate({"assertions": [
    {"kind": "analytic_regime", "name": "half-filled ring", "run": "run_ring", "overrides": {"L": 8, "N": 4},
     "observable": "energy", "expected": -2 - 2 * math.sqrt(2), "atol": 1e-10,
     "reference": "plane waves: E0 = sum of the N lowest -2t cos(2 pi m / L)"},
    {"kind": "limiting_case", "name": "open dimer", "run": "run_ring", "overrides": {"L": 2, "N": 1, "pbc": False},
     "observable": "energy", "expected": -1.0, "atol": 1e-12, "reference": "bonding orbital of two sites: -t"},
    {"kind": "symmetry", "name": "particle-hole", "run": "run_ring", "overrides_a": {"N": 2},
     "overrides_b": {"N": 6}, "observable": "energy", "relation": "equal", "atol": 1e-10,
     "reference": "bipartite lattice: symmetric spectrum"},
]})


def check_ring(tmp_path: Path, source: str, assertions: AssertionFile = RING_ASSERTIONS) -> dict:
    script = tmp_path / "ring.py"
    script.write_text(source)
    obligations = assertion_obligations(script, analyse_script(source), assertions, tmp_path / "work",
                                        SandboxPool(), LIMITS)
    return {o.name.removeprefix("assertion:"): o for o in obligations}


def test_the_correct_script_meets_every_assertion(tmp_path):
    found = check_ring(tmp_path, RING)
    assert {name: o.outcome for name, o in found.items()} == {
        "half-filled ring": Outcome.CERTIFIED, "open dimer": Outcome.CERTIFIED, "particle-hole": Outcome.CERTIFIED}
    assert found["open dimer"].evidence["observed"] == pytest.approx(-1.0)


@pytest.mark.parametrize(("bug", "old", "new", "caught_by"), [
    ("missing hermitian conjugate in hopping", "        H[j, i] = -t\n", "", "half-filled ring"),
    ("open instead of periodic boundary", "range(L - 1 + int(pbc))", "range(L - 1)", "half-filled ring"),
    ("hopping amplitude doubled", "H[i, j] = -t\n        H[j, i] = -t", "H[i, j] = -2 * t\n        H[j, i] = -2 * t",
     "open dimer"),
])
def test_a_seeded_physics_bug_fails_a_named_assertion(tmp_path, bug, old, new, caught_by):
    assert old in RING, bug
    found = check_ring(tmp_path, RING.replace(old, new))
    assert found[caught_by].outcome is Outcome.FAILED, bug


def test_failure_messages_and_evidence_never_carry_the_expected_value(tmp_path):
    found = check_ring(tmp_path, RING.replace("range(L - 1 + int(pbc))", "range(L - 1)"))
    failed = found["half-filled ring"]
    visible = json.dumps([failed.message, failed.evidence])
    assert "4.828" not in visible and failed.sealed["expected"] == pytest.approx(-2 - 2 * math.sqrt(2))


def test_assertions_on_parameters_or_functions_the_script_lacks_fail_clearly(tmp_path):
    assertions = AssertionFile.model_validate({"assertions": [
        {"kind": "limiting_case", "name": "no such run", "run": "run_chain", "observable": "energy",
         "expected": 0.0, "atol": 1, "reference": "-"},
        {"kind": "limiting_case", "name": "no such parameter", "run": "run_ring", "overrides": {"U": 4.0},
         "observable": "energy", "expected": 0.0, "atol": 1, "reference": "-"},
        {"kind": "limiting_case", "name": "no such observable", "run": "run_ring", "observable": "density",
         "expected": 0.0, "atol": 1, "reference": "-"},
    ]})
    found = check_ring(tmp_path, RING, assertions)
    assert "no run_chain" in found["no such run"].message
    assert "no parameter(s) U" in found["no such parameter"].message
    assert "density" in found["no such observable"].message
    assert all(o.outcome is Outcome.FAILED for o in found.values())


# Bounds, scalings and sum rules on the same ring: E0(L = 8, N = 4) = -2 - 2 sqrt(2) is a lower bound no
# state reaches below; H is linear in t, so E(2t) = 2 E(t); the levels of a hopping matrix sum to its trace, 0.
KINDS_ASSERTIONS = AssertionFile.model_validate({"assertions": [
    {"kind": "bound", "name": "variational bound", "run": "run_ring", "observable": "energy", "op": ">=",
     "value": -2 - 2 * math.sqrt(2), "atol": 1e-9, "reference": "exact ground energy of the half-filled ring"},
    {"kind": "symmetry", "name": "linear in t", "run": "run_ring", "overrides_a": {"t": 1.0},
     "overrides_b": {"t": 2.0}, "observable": "energy", "relation": "scaled", "factor": 2.0, "atol": 1e-10,
     "reference": "H is proportional to t"},
    {"kind": "analytic_regime", "name": "levels sum to the trace", "run": "run_ring", "observable": "levels",
     "reduce": "sum", "expected": 0.0, "atol": 1e-10, "reference": "sum of eigenvalues = trace of H = 0"},
]})


def test_bounds_scalings_and_sum_rules_hold_for_the_correct_script(tmp_path):
    found = check_ring(tmp_path, RING, KINDS_ASSERTIONS)
    assert {name: o.outcome for name, o in found.items()} == {
        "variational bound": Outcome.CERTIFIED, "linear in t": Outcome.CERTIFIED,
        "levels sum to the trace": Outcome.CERTIFIED}


@pytest.mark.parametrize(("bug", "old", "new", "caught_by"), [
    ("hopping doubled: energy below the exact ground state", "H[i, j] = -t\n        H[j, i] = -t",
     "H[i, j] = -2 * t\n        H[j, i] = -2 * t", "variational bound"),
    ("one hopping hard-coded: H no longer linear in t", "H[j, i] = -t", "H[j, i] = -1.0", "linear in t"),
    ("stray on-site energy: the trace is no longer zero", "        H[j, i] = -t\n",
     "        H[j, i] = -t\n        H[i, i] = 0.1\n", "levels sum to the trace"),
])
def test_a_bug_crosses_the_bound_breaks_the_scaling_or_the_sum_rule(tmp_path, bug, old, new, caught_by):
    assert old in RING, bug
    found = check_ring(tmp_path, RING.replace(old, new), KINDS_ASSERTIONS)
    assert found[caught_by].outcome is Outcome.FAILED, bug


def test_a_crossed_bound_is_reported_without_the_bound(tmp_path):
    found = check_ring(tmp_path, RING.replace("H[i, j] = -t\n        H[j, i] = -t",
                                              "H[i, j] = -2 * t\n        H[j, i] = -2 * t"), KINDS_ASSERTIONS)
    failed = found["variational bound"]
    assert "below the lower bound" in failed.message
    assert "4.828" not in json.dumps([failed.message, failed.evidence])
    assert failed.sealed["bound"] == pytest.approx(-2 - 2 * math.sqrt(2))


def converge(tmp_path: Path, source: str, independent=None) -> object:
    """The box's grid ladder; ``independent`` stands for the evidence judge (evidence.independent_agreement):
    the outcome of the comparison with an independent value at the task point, or None when there is none."""
    script = tmp_path / "box.py"
    script.write_text(source)
    case = ConvergenceCase(parameter="grid", ladder=[16, 32, 64, 128, 256], observable="energy", tolerance=1e-3)
    (obligation,) = convergence_obligations(script, analyse_script(source), [case], tmp_path / "work",
                                            SandboxPool(cores=2), LIMITS, independent)
    return obligation


def test_a_converged_script_certifies_with_the_table_of_runs_and_the_top_rung_never_runs(tmp_path):
    obligation = converge(tmp_path, BOX)
    assert obligation.outcome is Outcome.CERTIFIED
    assert obligation.evidence["converged_from"] == 64
    table = obligation.evidence["table"]
    assert [row["value"] for row in table] == [16, 32, 64, 128]  # settled between 64 and 128
    assert obligation.evidence["rungs_not_run"] == [256]
    assert table[-1]["observed"] == pytest.approx(math.pi**2 / 2, rel=1e-4)  # E1 = pi^2 / 2


def test_after_the_first_two_rungs_a_ladder_climbs_one_rung_at_a_time(tmp_path):
    # 256 would cost as much as every rung below it: started beside 128, it would double the last round for
    # nothing, since 128 settles the ladder.
    from tests.verifiers.scientific.recording import BatchRecordingPool

    script = tmp_path / "box.py"
    script.write_text(BOX)
    pool = BatchRecordingPool(cores=2)
    case = ConvergenceCase(parameter="grid", ladder=[16, 32, 64, 128, 256], observable="energy", tolerance=1e-3)
    convergence_obligations(script, analyse_script(BOX), [case], tmp_path / "work", pool, LIMITS)
    assert pool.batches == [2, 1, 1]


def test_a_script_below_the_converged_rung_is_not_converged(tmp_path):
    obligation = converge(tmp_path, BOX.replace('PARAMS = {"grid": 128}', 'PARAMS = {"grid": 32}'))
    assert obligation.outcome is Outcome.FAILED
    assert "converged from grid = 64, but the script uses 32" in obligation.message


def test_a_parameter_the_script_ignores_leaves_convergence_unknown(tmp_path):
    # the cheapest fake: a fixed grid whatever PARAMS says gives bit-identical rungs
    assert IGNORED_GRID != BOX
    obligation = converge(tmp_path, IGNORED_GRID)
    assert obligation.outcome is Outcome.UNKNOWN and "grid has no effect" in obligation.message
    assert "no independent value at the task point" in obligation.message
    assert obligation.evidence["probe"]["value"] == 4


IGNORED_GRID = BOX.replace('return {"energy": observable_lowest(hamiltonian_box(params["grid"]))}',
                           'return {"energy": observable_lowest(hamiltonian_box(128))}')
RUN_BOX = "def run_box(**params: Any) -> dict[str, Any]:\n"
CAPPED_GRID = BOX.replace('hamiltonian_box(params["grid"])', 'hamiltonian_box(min(params["grid"], 40))')


@pytest.mark.parametrize("agreement, outcome", [(Outcome.CERTIFIED, Outcome.CERTIFIED),
                                                (Outcome.FAILED, Outcome.FAILED)])
def test_a_parameter_with_no_effect_is_decided_by_an_independent_value_at_the_task_point(tmp_path, agreement,
                                                                                          outcome):
    """The minimal-basis SCF case: conv_tol changes no bit of an honest energy; physvec's own value decides."""
    assert IGNORED_GRID != BOX
    obligation = converge(tmp_path, IGNORED_GRID, lambda observable: agreement)
    assert obligation.outcome is outcome and "grid has no effect" in obligation.message
    assert obligation.evidence["independent_value"] == agreement.value


def test_a_parameter_that_stops_acting_below_the_script_s_value_is_capped_or_saturated(tmp_path):
    """min(grid, 40): the rungs 64 and 128 agree to the last bit while the probe at grid = 4 moves; the script
    claims grid = 128.  Without an independent value this cannot be told from a small system's saturation."""
    assert CAPPED_GRID != BOX
    obligation = converge(tmp_path, CAPPED_GRID)
    assert obligation.outcome is Outcome.UNKNOWN
    assert "grid stops acting at 64, below the script's 128" in obligation.message
    assert obligation.evidence["probe"]["value"] == 4


def test_a_capped_parameter_fails_when_the_task_point_disagrees_with_an_independent_value(tmp_path):
    obligation = converge(tmp_path, CAPPED_GRID, lambda observable: Outcome.FAILED)
    assert obligation.outcome is Outcome.FAILED and "disagrees with an independent value" in obligation.message


def test_a_saturated_parameter_certifies_when_the_task_point_agrees_with_an_independent_value(tmp_path):
    obligation = converge(tmp_path, CAPPED_GRID, lambda observable: Outcome.CERTIFIED)
    assert obligation.outcome is Outcome.CERTIFIED and "agrees with an independent value" in obligation.message


def test_a_probe_that_raises_fails_convergence(tmp_path):
    """A crashed probe is evidence: a script that refuses the coarse value hides that the parameter is ignored."""
    refusing = IGNORED_GRID.replace(RUN_BOX, RUN_BOX + "    if params['grid'] < 16:\n"
                                    "        raise ValueError('grid too coarse')\n")
    assert refusing != IGNORED_GRID
    obligation = converge(tmp_path, refusing, lambda observable: Outcome.CERTIFIED)
    assert obligation.outcome is Outcome.FAILED
    assert "coarse probe grid = 4 failed" in obligation.message and "ValueError" in obligation.message


def test_a_probe_that_dies_leaves_convergence_unknown(tmp_path):
    dying = IGNORED_GRID.replace(RUN_BOX, RUN_BOX + "    if params['grid'] < 16:\n        import os\n"
                                 "        os._exit(3)\n")
    assert dying != IGNORED_GRID
    obligation = converge(tmp_path, dying, lambda observable: Outcome.CERTIFIED)
    assert obligation.outcome is Outcome.UNKNOWN and "produced nothing" in obligation.message


def test_a_probe_a_library_refuses_leaves_convergence_unknown(tmp_path):
    """TeNPy raises at a tiny bond dimension (its truncation limit): the library refusing physvec's coarse value
    is not the script's doing, so it is no evidence against the script either way."""
    refused = IGNORED_GRID.replace(RUN_BOX, RUN_BOX + "    if params['grid'] < 16:\n"
                                   "        np.linalg.cholesky(-np.eye(2))\n")
    assert refused != IGNORED_GRID
    obligation = converge(tmp_path, refused, lambda observable: Outcome.CERTIFIED)
    assert obligation.outcome is Outcome.UNKNOWN and "a library refused the value" in obligation.message
    assert "LinAlgError" in obligation.message


def test_a_whole_number_probe_stays_at_two_or_above():
    case = ConvergenceCase(parameter="chi_max", ladder=[4, 8, 16], observable="energy", tolerance=1e-6)
    assert probe_value(case, 64) == 2
    assert probe_value(ConvergenceCase(parameter="grid", ladder=[16, 32], observable="energy", tolerance=1e-3),
                       128) == 4


def test_a_ladder_that_never_settles_fails(tmp_path):
    script = tmp_path / "box.py"
    script.write_text(BOX)
    case = ConvergenceCase(parameter="grid", ladder=[4, 8], observable="energy", tolerance=1e-6)
    (obligation,) = convergence_obligations(script, analyse_script(BOX), [case], tmp_path / "work",
                                            SandboxPool(), LIMITS)
    assert obligation.outcome is Outcome.FAILED and "still changes" in obligation.message
