"""The programming repair loop: function-level replacements, and nothing else, in one iteration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from physvec.cli.main import reproduce_main
from physvec.runstore.store import RunDirectory, list_runs
from physvec.runstore.transcript import EventType, read_events
from tests.support.scripted import GOOD_SCRIPT, variant, write_replies
from tests.verifiers.programming.faults import reference

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tenpy_task"
TINY = FIXTURE.parent / "tiny_task"

GOOD = reference("tenpy")
TWO_FAULTS = GOOD.replace("dmrg.run(psi", "dmrg.rum(psi").replace('expectation_value("Sz")', 'expectation_value("Sq")')
FIXED_EFFECTOR = GOOD[GOOD.index("def effector_dmrg"):GOOD.index("def observable_sz")].rstrip()
FIXED_OBSERVABLE = GOOD[GOOD.index("def observable_sz"):GOOD.index("def plot_sz")].rstrip()
UNASKED_PLOT = "def plot_sz(sz: list[float], path: str) -> None:\n    pass"
REPAIR_REPLY = (f"Both fixed; I also simplified the plot.\n\n```python\nimport math\n\n{FIXED_EFFECTOR}\n\n\n"
                f"{FIXED_OBSERVABLE}\n\n\n{UNASKED_PLOT}\n```\n")
INVENTED_IMPORT = variant("import numpy as np\n", "import numpy as np\nfrom numpy import heisenberg_solvers\n")


def reproduce_copy(fixture: Path, tmp_path: Path, *replies: str, **limits: int) -> tuple[int, RunDirectory]:
    """`reproduce` on a copy of a fixture task (with ``limits`` changed), answered by scripted ``replies``."""
    task_dir = tmp_path / "task"
    shutil.copytree(fixture, task_dir)
    data = json.loads((task_dir / "task.json").read_text())
    data["limits"].update(limits)
    (task_dir / "task.json").write_text(json.dumps(data))
    replies_file = write_replies(tmp_path / "replies.json", *replies)
    code = reproduce_main([str(task_dir / "task.json"), "--model", f"scripted:{replies_file}",
                           "--runs-dir", str(tmp_path / "runs")])
    (run,) = list_runs(tmp_path / "runs")
    return code, run


def test_a_two_fault_script_is_fixed_in_one_iteration_and_an_unasked_edit_is_rejected(tmp_path):
    assert TWO_FAULTS.count("dmrg.rum") == 1 and TWO_FAULTS.count('"Sq"') == 1
    code, run = reproduce_copy(FIXTURE, tmp_path, TWO_FAULTS, REPAIR_REPLY)
    assert code == 0
    verdicts = {name: c.verdict.value for name, c in run.certificates().items()}
    assert verdicts["programming-v01"] == "failed" and verdicts["programming-v02"] == "certified"
    assert verdicts["scientific-v02"] == "certified", "the DMRG energy matches exact diagonalisation"

    events = read_events(run.transcript_file)
    (edits,) = [e for e in events if e.type is EventType.REPAIR_EDITS]
    assert sorted(edits.data["requested"]) == ["effector_dmrg", "observable_sz"]
    assert sorted(edits.data["applied"]) == ["effector_dmrg", "observable_sz"]
    assert edits.data["rejected"] == ["plot_sz"]
    assert edits.data["added_imports"] == ["import math"]
    assert "-    return float(dmrg.rum" in edits.data["diff"]

    repaired = run.script_path(2).read_text()
    assert repaired == GOOD.replace("from tenpy.networks.mps import MPS\n", "from tenpy.networks.mps import MPS\nimport math\n")
    prompt = json.dumps([e.data["prompt"] for e in events if e.type is EventType.MODEL_CALL][1])
    assert "rum" in prompt and "Sq" in prompt, "the repairer saw both failures"
    metrics = run.metadata()["metrics"]
    assert metrics["programming_iterations"] == 1 and metrics["unit_accuracy"] == 1.0 and metrics["executable"]


def test_a_module_level_import_of_a_missing_module_gets_a_whole_script_rewrite_that_quotes_the_error(tmp_path):
    """No function edit can remove a module-level import: the repairer is shown the ImportError and asked
    for the whole script, which replaces the old one (the contract holds for it)."""
    code, run = reproduce_copy(TINY, tmp_path, INVENTED_IMPORT, GOOD_SCRIPT)
    assert code == 0
    verdicts = {name: c.verdict.value for name, c in run.certificates().items()}
    assert verdicts["programming-v01"] == "failed" and verdicts["programming-v02"] == "certified"
    events = read_events(run.transcript_file)
    (plan,) = [e.data for e in events if e.type is EventType.REPAIR_PLAN]
    assert plan["kind"] == "rewrite" and any("imported" in problem for problem in plan["problems"])
    (edits,) = [e.data for e in events if e.type is EventType.REPAIR_EDITS]
    assert edits["applied"] == ["the whole script"] and "-from numpy import heisenberg_solvers" in edits["diff"]
    assert run.script_path(2).read_text() == GOOD_SCRIPT
    prompt = json.dumps([e.data["prompt"] for e in events if e.type is EventType.MODEL_CALL][1])
    assert "heisenberg_solvers" in prompt and "ImportError" in prompt and "Rewrite the whole script" in prompt


def test_a_rewrite_that_still_breaks_the_contract_is_answered_once_then_no_version_is_saved(tmp_path):
    """A rewrite gets one more reply to meet the contract; one that still breaks it is not verified."""
    from tests.agents.test_author import BREACHING

    still_breaching = BREACHING.replace("levels[0]", "min(levels)")
    code, run = reproduce_copy(TINY, tmp_path, INVENTED_IMPORT, BREACHING, still_breaching, programming_iterations=1)
    assert code != 0
    assert not run.script_path(2).exists()
    events = read_events(run.transcript_file)
    assert [e.data["final"] for e in events if e.type is EventType.AUTHOR_REFINEMENT] == [False, True]
    assert [e.data["verifier"] for e in events if e.type is EventType.CERTIFICATE] == ["programming", "isolation"]
    assert run.metadata()["ended_by"] == "programming repair budget spent (1 of 1 rounds)"
