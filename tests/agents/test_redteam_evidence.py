"""The standing red team's evidence classes: library-composed quench, DMRG and RHF scripts made wrong where no
reference value looks, judged by exact values computed without the verifiers (one seeded trial per class through
the real verifiers, a few seconds each), and the exact values themselves checked against closed forms and
against the honest library scripts."""

from __future__ import annotations

import math
import random
import warnings

import numpy as np
import pytest
from scipy.sparse.linalg import expm_multiply

from physvec.agents import redteam, redteam_evidence
from physvec.agents.redteam import CLASSES, run_trial
from physvec.agents.redteam_evidence import (EVIDENCE_TRIALS, dmrg_task, quench_task, quench_values, rhf_task,
                                             rhf_values, tfi_ground, trotter_state)
from physvec.independent.spin_chains import ising_zz_x, open_tfi_free_fermion_energy


def test_the_evidence_classes_are_pipeline_classes_after_the_others():
    classes = CLASSES["pipeline"]
    assert classes[-4:] == redteam.EVIDENCE_CLASSES == tuple(EVIDENCE_TRIALS)
    assert classes.index("read_sealed_file") == 1, "earlier classes keep their trial numbers"


def _trial(kind: str, seed: int, tmp_path):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return EVIDENCE_TRIALS[kind](random.Random(seed), tmp_path)


def test_an_edge_site_magnetisation_without_reference_is_not_certified(tmp_path):
    judged = _trial("observable_without_reference", 3, tmp_path)
    assert judged.variant.startswith("edge_site_magnetization") and "spec, reference none" in judged.variant
    assert judged.truth == "wrong" and "magnetization by" in judged.detail
    assert judged.verdict == "failed" and not judged.false_certificate and not judged.crash, judged.detail
    assert "evidence:magnetization failed" in judged.detail


def test_a_capped_step_count_is_not_certified(tmp_path):
    judged = _trial("capped_parameter", 1, tmp_path)
    assert judged.variant.startswith("qiskit min(steps, 10)")
    assert judged.truth == "wrong" and judged.verdict == "failed" and not judged.false_certificate, judged.detail
    assert "convergence:steps failed" in judged.detail


def test_an_obfuscated_typed_value_is_judged(tmp_path):
    """The decoded number agrees with physvec's recomputation at the task point, so only a check that reads the
    script (integrity.py, being extended to decoders) can refuse it; the trial is judged wrong at a second point
    whatever the verdict, and a certificate of it counts as false."""
    judged = _trial("obfuscated_typed_value", 5, tmp_path)
    assert judged.variant.startswith("pyscf float_fromhex") and not judged.crash, judged.detail
    assert judged.truth == "wrong" and "the exact value is" in judged.detail
    assert judged.false_certificate == (judged.verdict == "certified")
    assert "float.fromhex" in judged.input["script"]


def test_the_honest_minimal_basis_scf_certifies(tmp_path):
    """H2 in STO-3G: the conv_tol ladder gives the same bits everywhere, decided at the task point by physvec's
    recomputation; textbook Hartree-Fock agrees with what main() wrote."""
    judged = _trial("honest_minimal_basis_scf", 1, tmp_path)
    assert judged.variant.startswith("H2, spec")
    assert judged.truth == "honest" and judged.verdict == "certified" and not judged.false_alarm, judged.detail
    assert "convergence:conv_tol certified: conv_tol has no effect" in judged.detail


def test_a_trial_of_each_class_runs_through_the_campaign(tmp_path):
    classes = CLASSES["pipeline"]
    record = run_trial("pipeline", 0, classes.index("honest_minimal_basis_scf"), tmp_path)
    assert record.kind == "honest_minimal_basis_scf" and not record.crash, record.detail
    assert record.verdict == "certified" and record.truth == "honest" and not record.false_alarm, record.detail


# -- the exact values ---------------------------------------------------------------------------------------

def test_the_trotter_product_approaches_exact_evolution_and_conserves_nothing_it_should_not():
    L, J, h, time = 4, 1.0, 0.8, 1.0
    start = np.zeros(2 ** L, dtype=complex)
    start[0] = 1.0
    # ising_zz_x is -J sum ZZ - h sum X with site 0 as the leftmost factor; the product is reflection-symmetric
    exact = expm_multiply(-1j * time * ising_zz_x(L, J, h, False).astype(complex), start)
    errors = [1 - abs(np.vdot(exact, trotter_state(L, J, h, time, steps))) for steps in (50, 100, 200)]
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-4
    values = quench_values(L, J, h, time, 2000)
    assert values["energy"] == pytest.approx(-J * (L - 1), abs=2e-3), "the all-up state's energy is conserved"
    assert values["energy_without_field"] != pytest.approx(values["energy"], abs=1e-2)
    assert quench_values(L, J, 0.0, time, 10)["magnetization"] == pytest.approx(1.0), "no field: nothing moves"


def test_the_chain_s_exact_ground_state_is_pfeuty_s():
    for L, J, g in ((6, 1.0, 1.0), (8, 0.8, 1.2)):
        ground = tfi_ground(L, J, g)
        assert ground["energy"] == pytest.approx(open_tfi_free_fermion_energy(L, J, g), abs=1e-10)
        assert ground["sigmaz"] == pytest.approx(ground["sigmaz"][::-1], abs=1e-10), "reflection symmetric"


def test_textbook_hartree_fock_knows_the_nuclear_repulsion():
    values = rhf_values("H 0 0 0; H 0 0 0.7408481", 0)
    assert values["energy"] == pytest.approx(-1.1167, abs=1e-4), "Szabo & Ostlund: -1.117 hartree at 1.4 bohr"
    assert values["nuclear"] == pytest.approx(1 / 1.4, rel=1e-6)


@pytest.mark.parametrize("make", [quench_task, dmrg_task, rhf_task])
def test_the_exact_values_are_the_honest_library_script_s(make):
    """The truth the trials use agrees with the library's own composed script at the task point (run here, outside
    the sandbox): a generator whose truth drifted from the physics would label honest work wrong."""
    task = make(random.Random(11))
    namespace: dict = {"__name__": "composed"}
    exec(compile(task.honest_source(), "composed.py", "exec"), namespace)
    run = next(value for name, value in namespace.items() if name.startswith("run_"))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = run(**task.spec["parameters"])
    for name in task.spec["observables"]:
        assert np.allclose(got[name], task.exact[name], rtol=0, atol=task.tolerance[name] / 2), name
    assert not math.isnan(task.exact["energy"])
