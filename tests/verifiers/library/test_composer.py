"""The library proposer: with no language model, a task's spec is composed from verified library functions.

The fixture task's reference (E = -3) is energy conservation for the all-up state of the open
four-qubit chain: <H> = -J (L - 1) at t = 0, and exact evolution keeps it.
"""

from __future__ import annotations

import ast
import json

import pytest

from physvec.verifiers.library.composer import SpecNotCovered, compose_script, library_problem
from physvec.cli.main import reproduce_main
from physvec.runstore.store import list_runs
from physvec.runstore.transcript import EventType, read_events
from physvec.taskfiles.loading import load_task
from physvec.taskfiles.task import ProposerSpec
from tests.support.scripted import FIXTURES
from physvec.verifiers.library import BACKEND_MODULES, RESULT_ROLES, pipelines_for
from physvec.verifiers.programming.contract import analyse_script

TFIM_TASK = FIXTURES / "library_tfim_task"
HUBBARD = ProposerSpec(model="trapped_hubbard", lattice="chain", method="dmrg",
                       parameters={"L": 8, "t": 1.0, "U": -4.0, "A": 2.0, "N_up": 4, "N_down": 4, "chi_max": 64,
                                   "svd_min": 1e-10, "max_sweeps": 10},
                       observables=["energy", "density"])


def test_a_composed_script_keeps_the_contract_and_the_specs_parameters():
    proposal = compose_script(HUBBARD, "tenpy")
    contract = analyse_script(proposal.script)
    assert proposal.pipeline == "trapped_hubbard_chain" and not contract.breaches
    assert contract.params == HUBBARD.parameters and list(contract.runs) == ["run_trapped_hubbard_chain"]
    assert {"lattice_harmonic_trap", "hamiltonian_trapped_hubbard", "effector_dmrg", "observable_density",
            "plot_results"} <= set(contract.elements)


@pytest.mark.parametrize(("change", "problem"), [
    ({"method": "tebd"}, "covers heisenberg/chain/dmrg, transverse_field_ising/chain/dmrg, trapped_hubbard/chain/dmrg"),
    ({"parameters": {k: v for k, v in HUBBARD.parameters.items() if k != "N_up"}}, "lacks N_up"),
    ({"parameters": {**HUBBARD.parameters, "V": 1.0}}, "V, which no function of trapped_hubbard_chain reads"),
    ({"observables": ["energy", "psi"]}, "psi are not results"),
])
def test_a_spec_the_library_cannot_compose_is_refused_saying_why(change, problem):
    with pytest.raises(SpecNotCovered, match=problem):
        compose_script(HUBBARD.model_copy(update=change), "tenpy")


def test_the_proposer_reads_the_spec_and_backend_only():
    task = load_task(TFIM_TASK / "task.json").task
    assert library_problem(task.spec, task.backend) is None
    assert "-3" not in compose_script(task.spec, task.backend).script, "no reference value reaches the script"


def test_with_no_model_configured_a_task_with_a_spec_is_certified_and_replays_with_the_library(tmp_path,
                                                                                              monkeypatch):
    monkeypatch.delenv("PHYSVEC_MODEL", raising=False)
    code = reproduce_main([str(TFIM_TASK / "task.json"), "--runs-dir", str(tmp_path / "runs")])
    (run,) = list_runs(tmp_path / "runs")
    assert code == 0 and run.metadata()["verdict"] == "certified" and run.metadata()["model"] == "library"
    events = list(read_events(run.transcript_file))
    assert not [e for e in events if e.type is EventType.MODEL_CALL], "no model was asked anything"
    (proposal,) = [e for e in events if e.type is EventType.LIBRARY_PROPOSAL]
    assert proposal.data["pipeline"] == "tfim_trotter"
    assert json.loads((run.path / "results.json").read_text())["energy"] == pytest.approx(-3.0, abs=1e-3)
    assert run.metadata()["metrics"]["unit_accuracy"] == 1.0, "plot_results too is tested on the pipeline's results"
    assert reproduce_main(["--replay", str(run.path), "--runs-dir", str(tmp_path / "replayed")]) == 0
    (replayed,) = list_runs(tmp_path / "replayed")
    assert replayed.metadata()["model"] == "library"
    assert (replayed.path / "scripts" / "v01.py").read_text() == (run.path / "scripts" / "v01.py").read_text()


def test_with_no_model_and_no_spec_reproduce_explains_how_to_configure_a_model_and_the_library_ends_it_unknown(
        tiny_task, tmp_path, monkeypatch, capsys):
    monkeypatch.delenv("PHYSVEC_MODEL", raising=False)
    assert reproduce_main([str(tiny_task), "--runs-dir", str(tmp_path / "runs")]) == 2
    message = capsys.readouterr().err
    assert "--model SPEC" in message and "no spec for the library proposer" in message
    assert not (tmp_path / "runs").exists() or not list_runs(tmp_path / "runs")
    assert reproduce_main([str(tiny_task), "--model", "library", "--runs-dir", str(tmp_path / "runs")]) == 1
    (run,) = list_runs(tmp_path / "runs")
    assert run.metadata()["verdict"] == "unknown", "asked for the library, the task's run ends unknown, saying why"
    assert run.metadata()["ended_by"].startswith("the library has no pipeline for this spec: the task has no spec")
    assert not (run.path / "scripts" / "v01.py").exists()


def _undefined_names(script: str) -> set[str]:
    """Names a script reads that it neither defines, imports, binds locally nor gets from builtins."""
    import builtins

    tree = ast.parse(script)
    defined = set(dir(builtins))
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            defined.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            defined.update((alias.asname or alias.name).split(".")[0] for alias in node.names)
        elif isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            defined.add(node.id)
        elif isinstance(node, ast.arg):
            defined.add(node.arg)
    return {node.id for node in ast.walk(tree) if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load)
            and node.id not in defined}


def _imported_names(script: str) -> set[str]:
    return {(alias.asname or alias.name).split(".")[0] for node in ast.parse(script).body
            if isinstance(node, (ast.Import, ast.ImportFrom)) for alias in node.names}


@pytest.mark.parametrize("pipeline", [p for backend in BACKEND_MODULES for p in pipelines_for(backend)],
                         ids=lambda p: f"{p.backend}:{p.name}")
def test_every_library_pipeline_composes_to_a_self_contained_script(pipeline):
    results = [step.output for step in pipeline.steps if step.role in RESULT_ROLES]
    spec = ProposerSpec(model=pipeline.model, lattice=pipeline.lattice, method=pipeline.method,
                        parameters=dict(pipeline.params), observables=results)
    script = compose_script(spec, pipeline.backend).script
    assert analyse_script(script).breaches == []
    assert _undefined_names(script) == set(), "every helper a step function uses is in the script"
    used = {node.id for node in ast.walk(ast.parse(script)) if isinstance(node, ast.Name)}
    assert _imported_names(script) - used - {"annotations"} == set(), "no import the script does not use"


def test_a_composed_script_runs_only_the_steps_its_observables_need():
    # The modified Haldane-Shastry pipeline also reads out correlations and the network's weights; a task relying
    # on the energy alone gets neither: they cost time, and a fault in them could change nothing it relies on.
    (pipeline,) = [p for p in pipelines_for("netket") if p.name == "modified_haldane_shastry_rbm"]
    spec = ProposerSpec(model=pipeline.model, lattice=pipeline.lattice, method=pipeline.method,
                        parameters=dict(pipeline.params), observables=["energy"])
    script = compose_script(spec, "netket").script
    defined = {node.name for node in ast.parse(script).body if isinstance(node, ast.FunctionDef)}
    assert {"effector_vmc_sr", "observable_final_energy", "hamiltonian_modified_haldane_shastry"} <= defined
    assert not defined & {"observable_zz_correlations", "observable_feature_maps", "observable_energy_density"}


def test_a_step_calling_other_library_functions_brings_them_into_the_script():
    # the super-lattice chain's N + 1 state runs the initial-state and DMRG functions again: a spec asking for that
    # state's density alone still gets both, though no step of its own needs them
    (pipeline,) = [p for p in pipelines_for("tenpy") if p.name == "superlattice_bose_hubbard"]
    spec = ProposerSpec(model=pipeline.model, lattice=pipeline.lattice, method=pipeline.method,
                        parameters=dict(pipeline.params), observables=["density_added_boson"])
    script = compose_script(spec, "tenpy").script
    defined = {node.name for node in ast.parse(script).body if isinstance(node, ast.FunctionDef)}
    assert {"effector_dmrg_one_more_boson", "initialstate_bosons", "effector_dmrg"} <= defined
    assert "observable_boson_density" not in defined
    assert _undefined_names(script) == set()
