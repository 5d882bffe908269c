"""The library proposer reproduces a benchmark task through the harness, and the campaign resumes.

One cheap task runs here (about half a minute); benchmarks/qmp_library_reproduction.py runs them all.
"""

from __future__ import annotations

from physvec.qmp_bench.campaign import Campaign
from physvec.cli.qmp_bench import main


def test_the_library_reproduces_the_trotter_quench_and_a_rerun_adds_no_trial(tmp_path, capsys):
    arguments = ["run", "--method", "physvec", "--model", "library", "--tasks", "qsim/lloyd1996-*",
                 "--out", str(tmp_path / "campaign")]
    assert main(arguments) == 0
    (record,) = Campaign(tmp_path / "campaign").records()
    assert record.verdict == "certified" and record.scientific_completion and record.executable
    assert record.unit_accuracy_final == 1.0 and record.tokens == 0
    assert "| physvec | library |" in (tmp_path / "campaign" / "results.md").read_text()
    assert main(arguments) == 0
    assert len(Campaign(tmp_path / "campaign").records()) == 1, "a finished trial is not run again"
