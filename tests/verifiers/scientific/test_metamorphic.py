"""Which parameters the metamorphic check perturbs: physical floats, never the task's accuracy parameters."""

from __future__ import annotations

from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.scientific.metamorphic import _float_params_read

SCRIPT = '''
from typing import Any

PARAMS = {"g": 1.0, "conv_tol": 1e-8, "L": 4}


def observable_energy(g: float, conv_tol: float, L: int) -> float:
    return -g * L


def run_chain(**params: Any) -> dict[str, Any]:
    return {"energy": observable_energy(params["g"], params["conv_tol"], params["L"])}
'''


def test_float_parameters_are_perturbed_but_not_the_accuracy_parameters_a_ladder_climbs():
    contract = analyse_script(SCRIPT)
    assert _float_params_read(contract, "run_chain") == ["g", "conv_tol"]
    assert _float_params_read(contract, "run_chain", {"conv_tol"}) == ["g"]


NOISY_ZERO = '''
import random
from typing import Any

PARAMS = {"J": 1.0, "L": 4}


def observable_sz(J: float, L: int) -> list[float]:
    return [random.uniform(-1e-11, 1e-11) for _ in range(L)]


def observable_energy(J: float, L: int) -> float:
    return -J * L


def run_chain(**params: Any) -> dict[str, Any]:
    return {"sz": observable_sz(params["J"], params["L"]), "energy": observable_energy(params["J"], params["L"])}
'''


def test_rounding_noise_on_an_identically_zero_observable_is_not_a_change(tmp_path):
    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(NOISY_ZERO)
    obligations = metamorphic_obligations(script, analyse_script(NOISY_ZERO), "run_chain", ["sz", "energy"], {},
                                          tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60))
    outcomes = {o.name: o.outcome for o in obligations}
    assert outcomes["metamorphic:sz"] is Outcome.FAILED, "1e-11 wobble of a zero profile does not count as a change"
    assert outcomes["metamorphic:energy"] is Outcome.CERTIFIED


CONSERVED = '''
from typing import Any

PARAMS = {"U": 4.0, "L": 6, "N": 3}


def observable_particle_numbers(U: float, L: int, N: int) -> list[float]:
    return [float(N), float(N)]


def observable_typed_counts(U: float, L: int, N: int) -> list[int]:
    return [3, 3]


def observable_energy_ignoring_U(U: float, L: int, N: int) -> float:
    return -0.75 * L


def observable_energy(U: float, L: int, N: int) -> float:
    return -U * N / L


def run_chain(**params: Any) -> dict[str, Any]:
    U, L, N = params["U"], params["L"], params["N"]
    return {"particle_numbers": observable_particle_numbers(U, L, N), "typed": observable_typed_counts(U, L, N),
            "size_only": observable_energy_ignoring_U(U, L, N), "energy": observable_energy(U, L, N)}
'''


def _conserved_obligations(tmp_path, observables):
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(CONSERVED)
    obligations = metamorphic_obligations(script, analyse_script(CONSERVED), "run_chain", observables, {},
                                          tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60))
    return {o.name: o for o in obligations}


def test_a_conserved_particle_number_is_certified_by_the_integer_that_fixes_it(tmp_path):
    # The published ladder (PRL 73, 882) asks for N_up and N_down of the ground state: no coupling moves them,
    # one more particle does.  The integer whose value appears in the observable (N = 3) is tried first.
    from physvec.verifiers.certificate import Outcome

    found = _conserved_obligations(tmp_path, ["particle_numbers", "energy"])
    assert found["metamorphic:particle_numbers"].outcome is Outcome.CERTIFIED
    assert found["metamorphic:particle_numbers"].evidence["changed_with"] == ["N"]
    assert found["metamorphic:particle_numbers"].evidence["varied"] == {"U": "x1.25", "N": "+1"}
    assert "quantum number" in found["metamorphic:particle_numbers"].message
    assert found["metamorphic:energy"].outcome is Outcome.CERTIFIED


def test_typed_integers_that_nothing_moves_still_fail(tmp_path):
    from physvec.verifiers.certificate import Outcome

    found = _conserved_obligations(tmp_path, ["typed"])
    assert found["metamorphic:typed"].outcome is Outcome.FAILED
    assert found["metamorphic:typed"].evidence["changed_with"] == []


def test_a_non_integer_energy_that_ignores_its_coupling_gets_no_credit_for_moving_with_the_size(tmp_path):
    # The attack the integer rule must not open: -0.75 L moves with L, but it is no quantum number, so only a
    # coupling could certify it, and U does not move it.
    from physvec.verifiers.certificate import Outcome

    found = _conserved_obligations(tmp_path, ["size_only", "particle_numbers"])
    assert found["metamorphic:size_only"].outcome is Outcome.FAILED
    assert found["metamorphic:size_only"].evidence["changed_with"] == []
    assert found["metamorphic:particle_numbers"].outcome is Outcome.CERTIFIED


SAMPLED = '''
from typing import Any

import numpy as np

PARAMS = {"J": 1.0, "n_samples": 64, "seed": 0}


def observable_sampled_correlation(J: float, n_samples: int, seed: int) -> float:
    """A diagonal correlation averaged over Metropolis-like samples: J tilts the acceptance too little to
    flip any of the seed's 64 decisions, as a converged state's small change does in a real chain."""
    accepted = np.random.default_rng(seed).random(n_samples) < 0.5 + 1e-9 * J
    return float(np.mean(np.where(accepted, 1.0, -1.0))) / 3


def observable_constant_correlation(J: float, n_samples: int, seed: int) -> float:
    return -0.38046875


def run_chain(**params: Any) -> dict[str, Any]:
    J, n_samples, seed = params["J"], params["n_samples"], params["seed"]
    return {"sampled": observable_sampled_correlation(J, n_samples, seed),
            "constant": observable_constant_correlation(J, n_samples, seed)}
'''


def test_a_monte_carlo_estimate_on_unchanged_samples_is_certified_by_its_seed_and_a_constant_is_not(tmp_path):
    # Found on the modified Haldane-Shastry ring (Deng et al. 2017): <sz_0 sz_j> over 1024 samples of a fixed
    # seed was bit for bit the same with J, the learning rate or the diagonal shift x1.25, a false alarm on the
    # reference script.  The seed moves a sample estimate; it cannot move a constant.
    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(SAMPLED)
    obligations = metamorphic_obligations(script, analyse_script(SAMPLED), "run_chain", ["sampled", "constant"], {},
                                          tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60))
    found = {o.name: o for o in obligations}
    assert found["metamorphic:sampled"].outcome is Outcome.CERTIFIED
    assert found["metamorphic:sampled"].evidence["changed_with"] == ["seed"]
    assert "Monte Carlo estimate" in found["metamorphic:sampled"].message
    assert found["metamorphic:constant"].outcome is Outcome.FAILED
    assert found["metamorphic:constant"].evidence["changed_with"] == []


def test_quantum_numbers_are_integer_valued_within_rounding_only():
    from physvec.verifiers.scientific.metamorphic import _is_quantum_number

    assert _is_quantum_number([32.0, 31.999999999999])
    assert not _is_quantum_number([32.0, 31.9999])
    assert not _is_quantum_number(-1.6160254037844386)
    assert not _is_quantum_number([])


def test_a_count_run_takes_a_core_that_would_idle_beside_the_first_perturbation(tmp_path):
    # results.json already shows the particle numbers integer-valued, so on three cores the N + 1 run starts
    # beside the base and the U perturbation instead of after them; the verdict is the one a later run gives.
    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.sandbox import SandboxLimits
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations
    from tests.verifiers.scientific.recording import BatchRecordingPool

    script = tmp_path / "script.py"
    script.write_text(CONSERVED)
    pool = BatchRecordingPool(cores=3)
    main_results = {"particle_numbers": [3.0, 3.0], "energy": -2.0}
    found = {o.name: o for o in metamorphic_obligations(
        script, analyse_script(CONSERVED), "run_chain", ["particle_numbers", "energy"], main_results,
        tmp_path / "work", pool, SandboxLimits(wall_s=60))}
    assert pool.batches == [3]
    assert found["metamorphic:particle_numbers"].outcome is Outcome.CERTIFIED
    assert found["metamorphic:particle_numbers"].evidence["changed_with"] == ["N"]


def test_results_written_only_under_the_instrumented_main_are_held_against_a_run_of_its_own(tmp_path):
    # A script can tell its instrumented main() from the override harness (its run_ function is wrapped
    # there).  This one writes numbers matching any reference into results.json there and computes honestly
    # everywhere else; the consistency check compares results.json with a run that is not main's.
    import json

    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.programming.integration import instrumented_job
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    cheat = CONSERVED + (
        "\n\ndef main() -> None:\n"
        "    import json\n"
        "    results = run_chain(**PARAMS)\n"
        "    if run_chain.__name__ != 'run_chain':  # wrapped: the instrumented execution\n"
        "        results = {**results, 'energy': -1.5}\n"
        "    with open('results.json', 'w') as stream:\n"
        "        json.dump(results, stream)\n")
    script = tmp_path / "script.py"
    script.write_text(cheat)
    executed = tmp_path / "work" / "v01-programming"
    (result,) = SandboxPool().run_all([instrumented_job(script, executed, SandboxLimits(wall_s=60))])
    assert result.returncode == 0, result.stderr
    main_results = json.loads((executed / "results.json").read_text())
    assert main_results["energy"] == -1.5, "the cheat did write its number under the instrumented main"
    found = {o.name: o for o in metamorphic_obligations(
        script, analyse_script(cheat), "run_chain", ["energy"], main_results, tmp_path / "work" / "v01-scientific",
        SandboxPool(), SandboxLimits(wall_s=60))}
    assert found["consistency:run_chain"].outcome is Outcome.FAILED
    assert found["consistency:run_chain"].evidence["keys"] == ["energy"]


def test_results_json_is_held_to_a_rerun_within_what_two_honest_runs_of_the_method_differ_by(tmp_path):
    # t-VMC at eight spins (nnwf 4_4): the instrumented main() and a second run of the same library script came out
    # 0.15 % apart.  results.json 0.2 % off its rerun is consistent for a method reproducible to 1 %, never for a
    # deterministic one; 30 % off fails both.
    from physvec.taskfiles.base import Tolerances
    from physvec.verifiers.certificate import Outcome
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(CONSERVED)
    energy = -4.0 * 3 / 6  # observable_energy at PARAMS: -U N / L

    def consistency(written: float, tolerance: Tolerances | None) -> Outcome:
        extra = {} if tolerance is None else {"reproducible_to": tolerance}
        found = {o.name: o for o in metamorphic_obligations(
            script, analyse_script(CONSERVED), "run_chain", ["energy"], {"energy": written},
            tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60), **extra)}
        return found["consistency:run_chain"].outcome

    sampled = Tolerances(rtol=0.01, atol=0.01)
    assert consistency(energy * 1.002, sampled) is Outcome.CERTIFIED
    assert consistency(energy * 1.002, None) is Outcome.FAILED
    assert consistency(energy * 1.3, sampled) is Outcome.FAILED


def _at_point(tmp_path, source, observables, point):
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.metamorphic import metamorphic_obligations

    script = tmp_path / "script.py"
    script.write_text(source)
    obligations = metamorphic_obligations(script, analyse_script(source), "run_chain", observables, {},
                                          tmp_path / "work", SandboxPool(), SandboxLimits(wall_s=60),
                                          point=point, label="metamorphic-at0")
    return {o.name: o for o in obligations}


def test_an_observable_an_assertion_relies_on_is_checked_at_the_assertion_s_parameters(tmp_path):
    # PRL 73, 882 asks for N_up and N_down at L = 6 only: the check runs there, not at the published size.
    from physvec.verifiers.certificate import Outcome

    found = _at_point(tmp_path, CONSERVED, ["particle_numbers"], {"L": 4, "N": 2})
    assert "consistency:run_chain" not in found, "results.json is compared at PARAMS only"
    numbers = found["metamorphic:particle_numbers"]
    assert numbers.outcome is Outcome.CERTIFIED and numbers.evidence["at"] == {"L": 4, "N": 2}
    assert numbers.evidence["changed_with"] == ["N"]
    count_call = (tmp_path / "work" / "metamorphic-at0-N" / "observe.py").read_text()
    assert "{'L': 4, 'N': 3}" in count_call, "the count run grows the point's N, at the point's L"


def test_an_answer_typed_in_for_the_assertion_s_parameters_still_fails_there(tmp_path):
    # The cheapest cheat at a reliance point: return the expected counts whenever L is the assertion's L.
    from physvec.verifiers.certificate import Outcome

    cheat = CONSERVED.replace('    U, L, N = params["U"], params["L"], params["N"]\n',
                              '    U, L, N = params["U"], params["L"], params["N"]\n'
                              '    if L == 4:\n'
                              '        return {"particle_numbers": [2.0, 2.0], "energy": -1.0}\n')
    found = _at_point(tmp_path, cheat, ["particle_numbers", "energy"], {"L": 4, "N": 2})
    assert found["metamorphic:particle_numbers"].outcome is Outcome.FAILED
    assert found["metamorphic:energy"].outcome is Outcome.FAILED


def test_the_verifier_checks_each_observable_where_the_task_relies_on_it(tmp_path):
    from types import SimpleNamespace

    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific import ScientificVerifier

    script = tmp_path / "script.py"
    script.write_text(CONSERVED)
    assertion = SimpleNamespace(run="run_chain", observable="particle_numbers", adapter=None, overrides={"L": 4})
    reference = SimpleNamespace(compared=lambda: [("energy", None)])
    task = SimpleNamespace(task=SimpleNamespace(reference=reference, convergence=SimpleNamespace(cases=[]), spec=None),
                           assertions=SimpleNamespace(assertions=[assertion]))
    subject = SimpleNamespace(task=task, script=script, workdir=tmp_path / "work", pool=SandboxPool(),
                              limits=SandboxLimits(wall_s=60))
    found = {o.name: o for o in ScientificVerifier._metamorphic(subject, analyse_script(CONSERVED),
                                                                 {"energy": -2.0})}
    assert set(found) == {"consistency:run_chain", "metamorphic:energy", "metamorphic:particle_numbers"}
    assert "at" not in found["metamorphic:energy"].evidence
    assert found["metamorphic:particle_numbers"].evidence["at"] == {"L": 4}
    ran = sorted(folder.name for folder in (tmp_path / "work").iterdir())
    assert not any(name in ran for name in ("metamorphic-N", "metamorphic-L")), \
        "no count run at PARAMS for an observable only the assertion uses"
