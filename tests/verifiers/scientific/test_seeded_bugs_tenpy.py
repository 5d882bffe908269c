"""Real physics bugs seeded into a correct TeNPy DMRG script of a trapped attractive Hubbard chain.

The fixture's reference density and assertion values come from code independent of TeNPy
(independent/hubbard.py): exact diagonalisation in the (4, 4) sector of the eight-site chain,
free-fermion orbitals at U = 0, and n_i = 1 without a trap (particle-hole symmetry at half filling).
The DMRG runs take about five minutes together, so they are heavy tests, covered by
``python benchmarks/seeded_physics_bugs.py``; the exactness of the expected values runs in CI.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

from physvec.independent.hubbard import exact_ground_state, free_fermion_density
from tests.verifiers.scientific.seeded_tenpy import FIXTURE, SCRIPT, SEEDS, seeded, verify
from physvec.verifiers.certificate import Outcome, Verdict
from physvec.verifiers.scientific import ConvergenceVerifier, ScientificVerifier


def test_the_reference_density_and_assertion_values_are_exact():
    energy, density = exact_ground_state(L=8, t=1.0, U=-4.0, A=2.0, N_up=4, N_down=4)
    assert json.loads((FIXTURE / "reference.json").read_text())["density"] == pytest.approx(density, abs=1e-9)
    assertions = {a["name"]: a for a in json.loads((FIXTURE / "assertions.json").read_text())["assertions"]}
    free = free_fermion_density(L=8, t=1.0, A=2.0, N_up=4, N_down=4)
    assert assertions["free fermions in the trap"]["expected"] == pytest.approx(free, abs=1e-9)
    assert exact_ground_state(8, 1.0, 0.0, 2.0, 4, 4)[1] == pytest.approx(free, abs=1e-9), "ED agrees at U = 0"
    assert exact_ground_state(8, 1.0, -4.0, 0.0, 4, 4)[1] == pytest.approx(
        assertions["uniform density without a trap"]["expected"], abs=1e-9)
    assert np.sum(density) == pytest.approx(8.0) and energy < 0


@pytest.mark.heavy
def test_the_correct_script_passes_every_scientific_and_convergence_check(tmp_path):
    outcomes = verify(tmp_path, SCRIPT, (ScientificVerifier(), ConvergenceVerifier()))
    assert outcomes["verdict:scientific"] == Verdict.CERTIFIED and outcomes["verdict:convergence"] == Verdict.CERTIFIED
    assert Outcome.FAILED not in outcomes.values(), outcomes
    for name in ("reference:density", "assertion:free fermions in the trap", "assertion:uniform density without a trap",
                 "assertion:reflection about the trap centre", "rubric:half filling", "convergence:max_sweeps"):
        assert outcomes[name] == Outcome.CERTIFIED, name


@pytest.mark.heavy
@pytest.mark.parametrize("seed", list(SEEDS))
def test_a_seeded_bug_is_caught_by_its_named_check(tmp_path, seed):
    _, verifier, catching = SEEDS[seed]
    outcomes = verify(tmp_path, seeded(seed), (verifier(),))
    assert outcomes[catching] == Outcome.FAILED, outcomes
    assert outcomes[f"verdict:{verifier.name}"] == Verdict.FAILED
