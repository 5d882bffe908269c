"""The programming repair loop: function-level replacements, and nothing else, in one iteration."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from physvec.cli.main import reproduce_main
from physvec.runstore.store import list_runs
from physvec.runstore.transcript import EventType, read_events
from tests.support.scripted import write_replies
from tests.verifiers.programming.faults import reference

FIXTURE = Path(__file__).resolve().parents[1] / "fixtures" / "tenpy_task"

GOOD = reference("tenpy")
TWO_FAULTS = GOOD.replace("dmrg.run(psi", "dmrg.rum(psi").replace('expectation_value("Sz")', 'expectation_value("Sq")')
FIXED_EFFECTOR = GOOD[GOOD.index("def effector_dmrg"):GOOD.index("def observable_sz")].rstrip()
FIXED_OBSERVABLE = GOOD[GOOD.index("def observable_sz"):GOOD.index("def plot_sz")].rstrip()
UNASKED_PLOT = "def plot_sz(sz: list[float], path: str) -> None:\n    pass"
REPAIR_REPLY = (f"Both fixed; I also simplified the plot.\n\n```python\nimport math\n\n{FIXED_EFFECTOR}\n\n\n"
                f"{FIXED_OBSERVABLE}\n\n\n{UNASKED_PLOT}\n```\n")


def test_a_two_fault_script_is_fixed_in_one_iteration_and_an_unasked_edit_is_rejected(tmp_path):
    assert TWO_FAULTS.count("dmrg.rum") == 1 and TWO_FAULTS.count('"Sq"') == 1
    task_dir = tmp_path / "task"
    shutil.copytree(FIXTURE, task_dir)
    replies = write_replies(tmp_path / "replies.json", TWO_FAULTS, REPAIR_REPLY)
    code = reproduce_main([str(task_dir / "task.json"), "--model", f"scripted:{replies}",
                           "--runs-dir", str(tmp_path / "runs")])
    (run,) = list_runs(tmp_path / "runs")
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
