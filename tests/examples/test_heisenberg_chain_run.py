"""The README's main job: the example task with its scripted replies, on real TeNPy DMRG."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physvec.cli.main import reproduce_main
from physvec.runstore.store import list_runs

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "heisenberg_chain"


@pytest.mark.slow
def test_example_repairs_the_misspelled_call_and_is_certified(tmp_path):
    code = reproduce_main([str(EXAMPLE / "task.json"), "--model", f"scripted:{EXAMPLE / 'replies.json'}",
                           "--runs-dir", str(tmp_path)])
    (run,) = list_runs(tmp_path)
    verdicts = {name: c.verdict.value for name, c in run.certificates().items()}
    assert verdicts["programming-v01"] == "failed" and verdicts["programming-v02"] == "certified"
    assert verdicts["scientific-v02"] == "certified", "DMRG energies agree with exact diagonalisation"
    assert verdicts["convergence-v02"] == "certified", "chi_max = 64 is past the converged rung"
    assert code == 0 and run.metadata()["verdict"] == "certified"
    assert (run.path / "reference_overlay.png").is_file() and "reference_overlay.png" in run.report_file.read_text()
    reference = {o.name: o for o in run.certificates()["scientific-v02"].obligations}["reference:energies"]
    assert reference.sealed["curves"][0]["relative_l2"] < 1e-8
    energies = json.loads((run.path / "results.json").read_text())["energies"]
    assert energies[-1] == pytest.approx(-5.1420906328, abs=1e-8)  # ED value, ../shared/BACKENDS.md
