"""The published QMP-Bench as it is: a converted upstream task (the domain-wall quench of npj Quantum Inf. 5,
106, Fig. 2a) compiled and reproduced end to end by the library proposer, certified against the upstream
truth it carries and an exact evolution; a script with the wrong initial state is not."""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np
import pytest

from physvec.verifiers.library.composer import compose_script, library_problem
from physvec.cli.qmp_bench import main as qmp_bench_main
from physvec.qmp_bench.campaign import Campaign
from physvec.qmp_bench.upstream import OVERLAYS_ROOT, at_published_size, compile_task, read_upstream, status_rows
from physvec.taskfiles.physvec_shape import infer_backend
from physvec.taskfiles.default_rubric import NO_PUBLISHED_RUBRIC
from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.programming.contract import analyse_script
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.assertions import assertion_obligations

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "data" / "upstream_qmp"
QUENCH = UPSTREAM / "tasks" / "qcmb" / "task_qcmb_1_1.json"
pytestmark = pytest.mark.skipif(not QUENCH.is_file(), reason=f"the published task files are not at {UPSTREAM}")


@pytest.mark.parametrize("overlay", sorted(OVERLAYS_ROOT.glob("*/*.json")), ids=lambda path: path.stem)
def test_every_overlay_names_a_published_task_and_a_spec_the_library_covers(overlay):
    upstream = read_upstream(UPSTREAM / "tasks" / overlay.parent.name / overlay.name)
    assert upstream.overlay is not None and upstream.overlay.upstream == f"{overlay.parent.name}/{overlay.name}"
    demanded = upstream.task.backend or infer_backend(upstream.task.request)
    backend = upstream.overlay.substitutions.get(demanded, demanded)
    assert library_problem(upstream.overlay.spec, backend) is None
    assert all(row.converted for row in upstream.conversion.rows if row.source in upstream.overlay.answers)


def test_the_quench_compiles_with_its_truth_its_provenance_and_an_exact_reference(tmp_path):
    task_file = compile_task(read_upstream(QUENCH), tmp_path)
    loaded = load_task(task_file)
    (published,) = loaded.assertions.assertions
    assert published.kind == "published_value" and published.expected == [1.0, 0.159, -0.661]
    assert published.overrides == {"times": [0.0, 1.0, 2.0]} and published.atol == 0.1
    assert "0.159" not in loaded.task.request and "0.159" not in json.dumps(loaded.task.spec.model_dump())
    provenance = json.loads((task_file.parent / "upstream.json").read_text())
    assert provenance["source"] == str(QUENCH) and len(provenance["sha256"]) == 64
    assert provenance["size"].startswith("published: N = 6") and provenance["rubric"].startswith(NO_PUBLISHED_RUBRIC)
    assert loaded.rubric.note == NO_PUBLISHED_RUBRIC, "the compiled task says so too, and so its run.json"
    assert loaded.task.reference is not None and loaded.task.reference.observable == "site_magnetization"


def test_a_script_starting_from_the_wrong_state_fails_the_upstream_truth(tmp_path):
    loaded = load_task(compile_task(read_upstream(QUENCH), tmp_path / "compiled"))
    script = compose_script(loaded.task.spec, loaded.task.backend).script
    all_up = script.replace("        circuit.x(qubit)\n", "        pass\n")
    assert all_up != script
    path = tmp_path / "script.py"
    path.write_text(all_up)
    (obligation,) = assertion_obligations(path, analyse_script(all_up), loaded.assertions, tmp_path / "work",
                                          SandboxPool(), SandboxLimits(wall_s=120))
    assert obligation.outcome is Outcome.FAILED
    assert "-0.661" not in obligation.message, "the expected values stay sealed"


@pytest.mark.slow
def test_qmp_bench_upstream_runs_the_quench_and_reports_it(tmp_path, capsys):
    out = tmp_path / "campaign"
    assert qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", "qcmb/task_qcmb_1_1.json",
                           "--model", "library", "--out", str(out)]) == 0
    (record,) = Campaign(out).records()
    assert record.task == "qcmb/upstream-qcmb-1-1" and record.verdict == "certified"
    run_dir = Path(record.run_dir)
    scientific = json.loads(sorted((run_dir / "certificates").glob("scientific-v*.json"))[-1].read_text())
    outcomes = {o["name"]: o["outcome"] for o in scientific["obligations"]}
    assert outcomes["assertion:upstream ScientificResults.0"] == "certified"
    assert outcomes["reference:site_magnetization"] == "certified"
    quench_row = next(row for row in status_rows(UPSTREAM, Campaign(out).records())
                      if row.task == "qcmb/task_qcmb_1_1.json")
    assert (quench_row.converted, quench_row.runnable, quench_row.verdict) == ("1/1", "yes", "certified")
    assert "certified" in capsys.readouterr().out


@pytest.mark.slow
def test_a_dry_run_with_the_library_ends_an_uncovered_task_unknown_within_seconds_never_an_error(tmp_path, capsys):
    """--model library shows what the library covers: a task it has no pipeline for (the spin-1 chain of dmrg 1_1;
    every qcmb and nnwf task has one now) is a recorded trial that ends unknown, naming why, not a campaign that
    stops with a traceback."""
    out = tmp_path / "campaign"
    started = time.monotonic()
    assert qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", "dmrg/task_dmrg_1_1.json",
                           "--model", "library", "--substitute", "itensors=tenpy", "--out", str(out)]) == 0
    assert time.monotonic() - started < 60
    (record,) = Campaign(out).records()
    assert record.verdict == "unknown" and not record.executable
    ended_by = json.loads((Path(record.run_dir) / "run.json").read_text())["ended_by"]
    assert ended_by.startswith("the library has no pipeline for this spec: ")
    assert "unknown" in capsys.readouterr().out


@pytest.mark.slow
def test_one_campaign_substitutes_each_task_only_where_it_demands_a_missing_package(tmp_path, capsys):
    """--substitute itensors=tenpy,orca=pyscf over DMRG and DFT tasks: the DFT task's ORCA becomes PySCF, and
    the ITensors substitution, which it does not concern, leaves it alone and is only noted."""
    out = tmp_path / "campaign"
    assert qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", "dft_qc/task_dft_qc_4_1.json",
                           "--model", "library", "--substitute", "itensors=tenpy,orca=pyscf", "--out", str(out)]) == 0
    assert "--substitute itensors=tenpy changes none of the chosen tasks" in " ".join(capsys.readouterr().out.split())
    (compiled,) = (out / "compiled").glob("dft_qc/*/task.json")
    task = json.loads(compiled.read_text())
    assert task["backend"] == "pyscf" and task["substitutions"] == {"orca": "pyscf"}
    (record,) = Campaign(out).records()
    assert record.verdict == "unknown"


def test_upstream_run_refuses_orca_tasks_without_a_substitute_and_names_it(tmp_path, capsys):
    """No silent backend switch: the dft_qc tasks demand ORCA, and physvec asks for --substitute orca=pyscf."""
    out = tmp_path / "campaign"
    assert qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", "dft_qc/task_dft_qc_4_*.json",
                           "--model", "library", "--out", str(out)]) == 2
    said = " ".join(capsys.readouterr().out.split())
    assert "demand orca, which cannot run here" in said and "--substitute orca=pyscf" in said
    assert not (out / "records.jsonl").exists(), "no trial ran"


@pytest.mark.parametrize(("by_the_library", "backend"), [(True, "tenpy"), (False, "itensors")])
def test_the_overlays_tenpy_is_taken_only_by_the_library_proposer(tmp_path, by_the_library, backend):
    """dmrg 7_2's overlay reproduces it with TeNPy; a model's run keeps the ITensors the task demands."""
    upstream = read_upstream(UPSTREAM / "tasks" / "dmrg" / "task_dmrg_7_2.json")
    loaded = load_task(compile_task(upstream, tmp_path, overlay_substitutions=by_the_library))
    assert loaded.task.backend == backend
    assert loaded.task.substitutions == ({"itensors": "tenpy"} if by_the_library else {})


XXZ_PANELS = [f"task_qcmb_1_{n}.json" for n in range(3, 10)]


@pytest.mark.parametrize("name", XXZ_PANELS)
def test_each_xxz_panel_compiles_with_a_reference_the_library_reproduces_and_a_request_naming_its_keys(tmp_path,
                                                                                                       name):
    # The reference is the product formula in numpy at the published parameters (independent/xxz_quench.py); the
    # verifier library's Qiskit pipeline at the same spec must give it to rounding, and the request must name the
    # run function, the PARAMS keys and the result keys, never a value.
    upstream = read_upstream(UPSTREAM / "tasks" / "qcmb" / name)
    loaded = load_task(compile_task(upstream, tmp_path))
    spec = loaded.task.spec
    reference = json.loads(loaded.reference_path.read_text())
    assert set(reference) == set(spec.observables) and loaded.task.reference.atol == 1e-8
    from physvec.verifiers.library.qiskit_xxz_quench import XXZ_QUENCH_TROTTER

    results = XXZ_QUENCH_TROTTER.run(**spec.parameters)
    for observable in spec.observables:
        assert np.max(np.abs(np.asarray(results[observable]) - np.asarray(reference[observable]))) < 1e-9
    request = loaded.task.request
    assert "run_figure(**params)" in request and all(f"'{key}'" in request for key in spec.observables)
    assert all(key in request for key in spec.parameters)
    shown = {f"{v:.4f}" for curve in np.ravel(reference[spec.observables[0]]) for v in [curve] if abs(v) > 0.05}
    assert not any(number in request for number in shown), "no reference value reaches the request"


def test_the_modified_haldane_shastry_panels_compile_with_exact_diagonalisation_and_say_what_is_scaled(tmp_path):
    # PRX 7, 021021 (2017), Fig. 7: panel b at its published N = 20, panel d's inset at N = 20 of 100, both judged by
    # exact diagonalisation of the ring (independent/haldane_shastry.py), never by the network's own numbers
    from physvec.independent.haldane_shastry import ground_state

    exact = ground_state(20)
    panel_b = load_task(compile_task(read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_2_1.json"), tmp_path / "b"))
    reference = json.loads(panel_b.reference_path.read_text())
    assert reference["energy"] == pytest.approx(exact.energy, abs=1e-9) == pytest.approx(-43.30969, abs=1e-5)
    assert reference["zz_correlations"] == pytest.approx(exact.zz_correlations(), abs=1e-9)
    assert panel_b.task.reference.atol == 0.03
    inset = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_2_4.json")
    assert inset.overlay.size.startswith("scaled: N = 20 of 100")
    bounds = [a for a in json.loads(load_task(compile_task(inset, tmp_path / "d")).assertions_path.read_text())
              ["assertions"] if "variational bound" in json.dumps(a)]
    assert len(bounds) == 1 and json.dumps(bounds[0]).count(str(round(exact.energy / 20, 10))) == 1


@pytest.mark.parametrize(("name", "exact"), [
    # free fermions of the critical ring, -2 / sin(pi / 40) at N = 20 (Pfeuty 1970); the Bethe ansatz, Pauli units
    ("task_nnwf_4_1.json", -25.49098968636475), ("task_nnwf_4_2.json", -35.6175461195058)])
def test_the_feature_map_panels_hold_the_network_to_the_exact_ground_energy_and_say_they_are_scaled(
        tmp_path, name, exact):
    # Science 355, 602 (2017), Fig. 2 left: the filters are compared through the state they define (the evidence
    # rule); the energy the network reports is held to the ring's exact ground energy, which no network made
    panel = read_upstream(UPSTREAM / "tasks" / "nnwf" / name)
    assert panel.overlay.size.startswith("scaled: N = 20 of 80")
    loaded = load_task(compile_task(panel, tmp_path))
    assert loaded.task.spec.observables[:3] == ["feature_maps", "hidden_biases", "visible_bias"]
    expected = {a["name"]: a.get("expected", a.get("value"))
                for a in json.loads(loaded.assertions_path.read_text())["assertions"]}
    assert expected["independent approach to the exact energy"] == pytest.approx(exact, abs=1e-9)
    assert expected["independent variational bound"] == pytest.approx(exact, abs=1e-9)


def test_a_scaled_panel_compiles_at_its_published_size_as_its_own_task_without_a_check_it_cannot_have(tmp_path):
    # Fig. 7d at N = 100: the spec moves there, the paper's E_0/N = -2.12 becomes a check, the script's limit is the
    # overlay's; exact diagonalisation cannot reach N = 100, so no reference is made up for it
    inset = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_2_4.json")
    loaded = load_task(compile_task(at_published_size(inset), tmp_path))
    assert loaded.task.id == inset.id + "-published-size" and loaded.task.spec.parameters["N"] == 100
    assert loaded.task.reference is None and loaded.task.limits.sandbox_wall_s == 72000
    assertions = json.loads(loaded.assertions_path.read_text())["assertions"]
    assert [a["expected"] for a in assertions if "paper" in a["name"]] == [-2.12]
    assert load_task(compile_task(inset, tmp_path)).task.spec.parameters["N"] == 20, "the scaled task is unchanged"


def test_upstream_run_at_the_published_size_refuses_a_scaled_task_with_no_such_run(tmp_path, capsys):
    # Fig. 4a of Carleo and Troyer is scaled to L = 8 because the paper's length is not in the stored sources
    code = qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", "nnwf/task_nnwf_4_4.json", "--published-size",
                           "--out", str(tmp_path / "campaign")])
    assert code == 2 and "no run at a published size" in capsys.readouterr().out
    assert not (tmp_path / "campaign" / "records.jsonl").exists()


def test_the_momentum_spectrum_panels_are_held_to_exact_sector_minima_and_say_what_is_scaled(tmp_path):
    # PRL 121, 167204 (2018): Fig. 2a at its published N = L = 10 and Figs. 1a and 2b scaled, each sector's energy held
    # to exact diagonalisation in that sector, built without NetKet; the ten-boson ground energy -16.3604858 (k = 0)
    # was also found by the library's own projection onto momentum eigenspaces (netket_background.py)
    from physvec.independent.spin_momentum import heisenberg_lowest_energies_by_momentum

    published = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_1_3.json")
    assert published.overlay.size.startswith("published: N = 10 bosons on L = 10 sites")
    loaded = load_task(compile_task(published, tmp_path / "2a"))
    energies = json.loads(loaded.reference_path.read_text())["energies"]
    assert len(energies) == 6 and energies[0] == pytest.approx(-16.3604858, abs=1e-6)
    assert loaded.task.reference.rtol == 0.01
    spins = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_1_1.json")
    assert spins.overlay.size.startswith("scaled: L = 12 of 36")
    reference = json.loads(load_task(compile_task(spins, tmp_path / "1a")).reference_path.read_text())
    assert reference["energies"] == pytest.approx(heisenberg_lowest_energies_by_momentum(12, 1.0)[:7], abs=1e-9)
    at_size = load_task(compile_task(at_published_size(spins), tmp_path / "1a-36"))
    assert at_size.task.spec.parameters["L"] == 36 and at_size.task.reference is None, "no exact value at 36 spins"


def test_the_square_feature_map_panel_holds_the_network_to_lanczos_on_the_torus_and_says_it_is_scaled(tmp_path):
    # Science 355, 602 (2017), Fig. 2 right: the 4 x 4 torus's exact ground energy, -0.701780 per site in spin units
    # (Schulz, Ziman and Poilblanc 1996), is what the network's energy is held to; at L = 10 there is no such value
    panel = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_4_3.json")
    assert panel.overlay.size.startswith("scaled: L = 4 of 10") and panel.overlay.spec.lattice == "square"
    expected = {a["name"]: a.get("expected", a.get("value")) for a in json.loads(
        load_task(compile_task(panel, tmp_path / "4")).assertions_path.read_text())["assertions"]}
    assert expected["independent approach to the exact energy"] == pytest.approx(4 * 16 * -0.701780, abs=1e-4)
    published = load_task(compile_task(at_published_size(panel), tmp_path / "10"))
    assert published.task.spec.parameters["L"] == 10 and published.assertions_path is None, "no exact value at 10 x 10"


def test_the_pair_correlation_panels_hold_the_centre_row_to_wick_without_interaction_at_the_published_size(tmp_path):
    # PRL 100, 110403 (2008), Fig. 1 left: O(i, j) on 200 sites; at U = 0 the row through the trap centre is the
    # product of the two species' one-body density matrices, computed here directly from the trap's orbitals
    # (numpy only) rather than through independent/hubbard.py
    panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / "task_dmrg_7_3.json")
    assert panel.overlay.size.startswith("published: L = 200, (N_up, N_down) = (28, 12)")
    assertions = json.loads(load_task(compile_task(panel, tmp_path)).assertions_path.read_text())["assertions"]
    (pairs,) = [a for a in assertions if a["name"] == "independent free-fermion pair correlation"]
    sites = np.arange(200)
    hamiltonian = np.diag(0.16 * 4 / 200**2 * (sites - 99.5) ** 2) - np.eye(200, k=1) - np.eye(200, k=-1)
    orbitals = np.linalg.eigh(hamiltonian)[1]
    green_up, green_down = (orbitals[:, :n] @ orbitals[:, :n].T for n in (28, 12))
    assert pairs["observable"] == "onsite_pair_correlation.99" and pairs["overrides"] == {"U": 0.0}
    assert pairs["expected"] == pytest.approx(green_up[99] * green_down[99], abs=1e-9)
    assert {a["observable"] for a in assertions if a["name"].startswith("independent free fermions")} == {
        "density_up", "density_down"}


def test_the_pair_field_panel_is_scaled_to_the_paper_s_smallest_ladder_and_keeps_its_published_size_as_a_trial(
        tmp_path):
    # PRL 73, 882 (1994), Fig. 5: D_xx(l) at <n> = 0.875 and U = 8; the free-fermion check on 2 x 5 is Wick's
    # theorem with the ladder's orbitals, here from numpy's eigenvectors of the 10-site hopping matrix directly
    panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / "task_dmrg_2_5.json")
    assert panel.overlay.size.startswith("scaled: 2 x 16 of 2 x 32")
    assertions = json.loads(load_task(compile_task(panel, tmp_path / "16")).assertions_path.read_text())["assertions"]
    (free,) = [a for a in assertions if a["name"] == "independent free-fermion rung pair correlation"]
    legs = np.eye(10, k=2) + np.eye(10, k=-2)
    rungs = np.diag([1.0 if k % 2 == 0 else 0.0 for k in range(9)], k=1)
    hole = np.eye(10) - (lambda v: v[:, :4] @ v[:, :4].T)(np.linalg.eigh(-(legs + rungs + rungs.T))[1])
    i, j = 1, 3  # l = 2: rungs (5 - 1 - 2) // 2 and that plus 2
    expected = sum(hole[a, c] * hole[b, d] for a, b in [(2 * i, 2 * i + 1), (2 * i + 1, 2 * i)]
                   for c, d in [(2 * j, 2 * j + 1), (2 * j + 1, 2 * j)])
    assert free["overrides"] == {"U": 0.0, "L": 5, "N_up": 4, "N_down": 4}
    assert free["expected"][1] == pytest.approx(expected, abs=1e-9)
    published = load_task(compile_task(at_published_size(panel), tmp_path / "32")).task
    assert (published.spec.parameters["L"], published.spec.parameters["N_up"]) == (32, 28)


def test_the_superlattice_edge_panels_hold_hard_core_bosons_to_the_ssh_orbitals_at_the_published_length(tmp_path):
    # PRL 110, 260405 (2013), Fig. 2: 65 sites, t1/t2 = 5; at n_max = 1 the bosons are SSH fermions, whose
    # density is computed here from numpy's eigenvectors of the 65-site hopping matrix directly
    for name, t1 in (("task_dmrg_6_1.json", 0.1), ("task_dmrg_6_2.json", 0.3)):
        panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / name)
        assert panel.overlay.size.startswith("published: L = 65")
        assertions = json.loads(load_task(compile_task(panel, tmp_path / name)).assertions_path.read_text())
        checks = {a["observable"]: a for a in assertions["assertions"] if a["name"].startswith("independent hard-core")}
        bonds = [t1 if j % 2 else t1 / 5 for j in range(64)]
        orbitals = np.linalg.eigh(-np.diag(bonds, 1) - np.diag(bonds, -1))[1]
        for observable, bosons in (("density", 32), ("density_added_boson", 33)):
            assert checks[observable]["overrides"] == {"n_max": 1}
            assert checks[observable]["expected"] == pytest.approx((orbitals[:, :bosons] ** 2).sum(axis=1), abs=1e-9)


def test_the_superlattice_trap_panel_fills_every_hard_core_orbital_below_mu(tmp_path):
    # PRL 110, 260405 (2013), Fig. 3 (b): omega (j + 1/2)^2 with omega = 0.001, a step of 0.6 on j = -6 .. 5
    panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / "task_dmrg_6_5.json")
    assertions = json.loads(load_task(compile_task(panel, tmp_path)).assertions_path.read_text())["assertions"]
    (check,) = [a for a in assertions if a["name"] == "independent hard-core density"]
    labels = np.arange(-32, 32)
    potential = 0.001 * (labels + 0.5) ** 2 + 0.6 * ((labels >= -6) & (labels <= 5))
    bonds = np.where(labels[:-1] % 2 == 1, 0.2, 0.04)
    levels, orbitals = np.linalg.eigh(np.diag(potential) - np.diag(bonds, 1) - np.diag(bonds, -1))
    assert check["expected"] == pytest.approx((orbitals[:, levels < 0.55] ** 2).sum(axis=1), abs=1e-9)


def test_the_edge_scan_panels_hold_hard_core_lengths_to_the_ssh_zero_mode(tmp_path):
    # PRL 110, 260405 (2013), Fig. 2 (e, f): with chiral symmetry the filled lower band leaves n_j = (1 -+ |phi_0(j)|^2)/2
    # in the hole and particle states, so both lengths are the participation ratio of the zero mode |phi_0|^2,
    # computed here from numpy's eigenvectors of the 33-site hopping matrix directly
    for name in ("task_dmrg_6_3.json", "task_dmrg_6_4.json"):
        panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / name)
        assert panel.overlay.size.startswith("scaled: L = 33 of 65")
        assertions = json.loads(load_task(compile_task(panel, tmp_path / name)).assertions_path.read_text())
        checks = [a for a in assertions["assertions"] if a["name"].startswith("independent hard-core")]
        bonds = [1.0 if j % 2 else 0.2 for j in range(32)]
        levels, orbitals = np.linalg.eigh(-np.diag(bonds, 1) - np.diag(bonds, -1))
        weight = orbitals[:, np.argmin(np.abs(levels))] ** 2
        ratio = weight.sum() ** 2 / np.sum(weight ** 2)
        assert {check["observable"] for check in checks} == {"particle_localisation_lengths", "hole_localisation_lengths"}
        for check in checks:
            assert check["overrides"] == {"n_max": 1}
            assert check["expected"] == pytest.approx([ratio] * 6, rel=1e-6)


def test_the_spin_gap_panel_holds_the_paper_s_2_x_16_gap_and_ed_on_2_x_4(tmp_path):
    # PRL 73, 882 (1994), text on Fig. 3: 0.151 t_y on 2 x 16 and 0.132 t_y on 2 x 32 at U = 8; without interaction
    # the 2 x 4 gap is one level spacing of the hopping matrix, 2 - 4 cos(2 pi / 5), which the exact check must hold
    panel = read_upstream(UPSTREAM / "tasks" / "dmrg" / "task_dmrg_2_3.json")
    assert panel.overlay.size.startswith("scaled: 2 x 16 of 2 x 32")
    assertions = json.loads(load_task(compile_task(panel, tmp_path / "16")).assertions_path.read_text())["assertions"]
    (paper,) = [a for a in assertions if a.get("name") == "paper spin gap at U = 8 on 2 x 16"]
    assert (paper["observable"], paper["expected"]) == ("spin_gaps.1", 0.151)
    (exact,) = [a for a in assertions if a.get("name") == "independent exact spin gaps on 2 x 4"]
    assert exact["overrides"] == {"L": 4, "N_up": 4, "N_down": 4} and len(exact["expected"]) == 3
    published = load_task(compile_task(at_published_size(panel), tmp_path / "32")).task
    assert (published.spec.parameters["L"], published.spec.parameters["chi_max"]) == (32, 400)


def test_the_gap_panel_holds_both_levels_to_two_magnetisation_sectors_and_keeps_its_published_lengths(tmp_path):
    # PRL 121, 167204 (2018), Fig. 1c scaled to L = 6..12: the ground level is the lowest S^z = 0 state, the first
    # excited the lowest S^z = 1 state (the triplet), held to the paper's own bound of 3e-4; four spins' gap 4 J
    # is the closed form (H = 4 J S_A . S_B), and six spins' triplet sits at -4 - 2 sqrt 5
    from physvec.independent.spin_chains import heisenberg_ring_triplet_gap

    panel = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_1_2.json")
    assert panel.overlay.size.startswith("scaled: periodic Heisenberg rings of L = 6, 8, 10 and 12")
    loaded = load_task(compile_task(panel, tmp_path / "1c"))
    reference = json.loads(loaded.reference_path.read_text())
    assert reference["excited_energies"][0] == pytest.approx(-4 - 2 * np.sqrt(5), abs=1e-9)
    assert loaded.task.reference.rtol == 3e-4
    gaps = {a["name"]: a["expected"] for a in json.loads(loaded.assertions_path.read_text())["assertions"]
            if "triplet gap" in a["name"]}
    assert gaps["independent singlet-triplet gap at L = 12"] == pytest.approx(heisenberg_ring_triplet_gap(12, 1.0))
    at_size = load_task(compile_task(at_published_size(panel), tmp_path / "1c-40"))
    assert max(at_size.task.spec.parameters["lengths"]) == 40 and at_size.task.reference is None
    assert heisenberg_ring_triplet_gap(4, 1.0) == pytest.approx(4.0)


def test_the_convergence_panel_draws_one_exact_curve_per_network(tmp_path):
    # Science 355, 602 (2017), Fig. 6a scaled: one quench, one network per alpha, each curve held to the same exact
    # evolution (independent/spin_quench.py)
    panel = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_4_7.json")
    assert panel.overlay.spec.parameters["alpha"] == [1, 2]
    curves = json.loads(load_task(compile_task(panel, tmp_path)).reference_path.read_text())["transverse_polarizations"]
    assert len(curves) == 2 and len(curves[0]) == 11 and curves[0] == pytest.approx(curves[1], abs=1e-12)


def test_the_skyrmion_panels_are_scaled_below_the_first_skyrmion_and_keep_the_paper_s_n_2_for_9_x_9(tmp_path):
    # PRB 110, 104411 (2024), Fig. 2: at 3 x 3 the exact ground state is uniform and N = 0 whatever the couplings, so
    # N is no check there; the published 9 x 9 run adds N and Q, carries the paper's N = 2 and Q = 1.93 and no exact
    # value
    panel = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_3_1.json")
    assert panel.overlay.size.startswith("scaled: 3 x 3 periodic spins of the paper's 9 x 9")
    loaded = load_task(compile_task(panel, tmp_path / "a"))
    spins = np.asarray(json.loads(loaded.reference_path.read_text())["spin_expectations"])
    assert spins.shape == (9, 3) and np.ptp(spins[:, 2]) < 1e-9 and abs(spins[:, :2]).max() < 1e-9
    assert "skyrmion_number" not in loaded.task.spec.observables, "0 on every torus below 9 x 9: no check there"
    at_size = load_task(compile_task(at_published_size(panel), tmp_path / "a-9"))
    published = {a["observable"]: a["expected"] for a in json.loads(at_size.assertions_path.read_text())["assertions"]
                 if "paper" in a["name"] or a["observable"] in ("skyrmion_number", "skyrmion_charge")}
    assert published == {"skyrmion_number": 2.0, "skyrmion_charge": 1.93} and at_size.task.reference is None
    assert at_size.task.spec.observables[-2:] == ["skyrmion_number", "skyrmion_charge"]
    history = read_upstream(UPSTREAM / "tasks" / "nnwf" / "task_nnwf_3_2.json")
    bounds = [a for a in json.loads(load_task(compile_task(history, tmp_path / "b")).assertions_path.read_text())
              ["assertions"] if a.get("op") == ">="]
    assert len(bounds) == 1 and bounds[0]["observable"] == "energy_density_history"
