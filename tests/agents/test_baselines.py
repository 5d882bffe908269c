"""The ReAct baselines: the model sees only its script's execution errors; the verifiers judge at the end.

Scripted models stand in for the language model (tests/support/scripted.py).
"""

from __future__ import annotations

import json
from pathlib import Path

from physvec.agents.baselines import first_error
from physvec.knowledge_base.sources import library_files
from physvec.knowledge_base.store import KnowledgeBase
from physvec.cli.main import reproduce_main
from physvec.runstore.store import RunDirectory, list_runs
from physvec.runstore.transcript import EventType, read_events
from tests.support.scripted import GOOD_SCRIPT, MISSPELLED, WRONG_SIGN, write_replies


def react(task: Path, replies: Path, runs_dir: Path, method: str = "react") -> tuple[int, RunDirectory]:
    code = reproduce_main([str(task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir),
                           "--method", method])
    return code, list_runs(runs_dir)[-1]


def nodes_run(run: RunDirectory) -> list[str]:
    return [e.node for e in read_events(run.transcript_file) if e.type is EventType.NODE_FINISHED]


def model_prompts(run: RunDirectory) -> list[str]:
    return [json.dumps(e.data["prompt"]) for e in read_events(run.transcript_file) if e.type is EventType.MODEL_CALL]


def test_react_never_hears_of_wrong_physics_that_runs(tiny_task, runs_dir, tmp_path):
    code, run = react(tiny_task, write_replies(tmp_path / "r.json", WRONG_SIGN), runs_dir)
    assert code == 1 and run.metadata()["verdict"] == "failed"
    assert len(model_prompts(run)) == 1, "the script ran, so the model was never asked again"
    reference = {o.name: o.outcome.value for o in run.certificates()["scientific-v01"].obligations}["reference:energy"]
    assert reference == "failed", "the final judge still sees the wrong energy"


def test_react_stops_after_the_same_repair_budget_as_physvec(tiny_task, runs_dir, tmp_path):
    # one programming and no scientific repair allowed: one repair, still broken, then the judges
    data = json.loads(tiny_task.read_text())
    data["limits"].update(programming_iterations=1, scientific_iterations=0)
    tiny_task.write_text(json.dumps(data))
    code, run = react(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, MISSPELLED), runs_dir)
    assert code == 1 and nodes_run(run).count("react_repair") == 1 and nodes_run(run).count("execute") == 2
    assert "scientific_verify" not in nodes_run(run), "a script that does not run is judged by programming only"


def test_react_rag_retrieves_documentation_for_each_error(tiny_task, runs_dir, tmp_path, monkeypatch):
    store = tmp_path / "kb"
    KnowledgeBase(store).build(library_files())
    monkeypatch.setenv("PHYSVEC_KB", str(store))
    code, run = react(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, GOOD_SCRIPT), runs_dir, "react-rag")
    assert code == 0, "the repaired script runs, and the verifiers certify it"
    assert nodes_run(run) == ["plan", "retrieve", "author", "execute", "react_repair", "execute",
                              "judge_first_script", "programming_verify", "scientific_verify", "convergence",
                              "finalize"]
    error_queries = [e.data["query"] for e in read_events(run.transcript_file)
                     if e.type is EventType.RETRIEVAL and e.node == "react_repair"]
    assert len(error_queries) == 1 and "eigvalsh_" in error_queries[0]
    repair_prompt = model_prompts(run)[1]
    assert "AttributeError" in repair_prompt and "Documentation that may help" in repair_prompt
    assert "unit:" not in repair_prompt and "obligation" not in repair_prompt, "no verifier feedback"
    certificates = run.certificates()
    assert certificates["programming-v01"].verdict.value == "failed", "the first script is judged too"
    assert certificates["programming-v02"].verdict.value == "certified"


def test_the_library_model_cannot_run_a_baseline(tiny_task, runs_dir):
    assert reproduce_main([str(tiny_task), "--model", "library", "--method", "react", "--runs-dir",
                           str(runs_dir)]) == 2


def test_the_first_error_is_the_end_of_the_error_output():
    assert first_error(0, "a warning", False, 1.0) == ""
    assert first_error(1, "x" * 5000 + "ValueError: boom", False, 1.0).endswith("ValueError: boom")
    assert "time limit" in first_error(-9, "", True, 60.0)
