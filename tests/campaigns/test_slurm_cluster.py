"""A PHACT campaign through a real one-node Slurm on this machine (benchmarks/slurm_local.sh): dask-jobqueue
submits its worker jobs with sbatch, slurmd runs them, and the records equal those of the local executor.

The cluster is started once for the module and torn down after it; where slurmctld cannot start (no root to
install slurm-wlm, or a daemon that will not run here) the test is skipped with the reason.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("dask_jobqueue")

from physvec.agents.phact_campaign import PhactRun  # noqa: E402
from physvec.cli.phact import main as phact_main  # noqa: E402

pytestmark = pytest.mark.slow

SCRIPT = Path(__file__).resolve().parents[2] / "benchmarks" / "slurm_local.sh"
GOAL = "rc_filter/cutoff-at-1-khz"
"""1/(2 pi 10 kOhm 15.9 nF) = 1001 Hz meets 1 kHz +- 10 Hz: certified in one round (test_dask_campaigns.py)"""
TIMING = {"run_id", "seconds"}


@pytest.fixture(scope="module")
def slurm(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The SLURM_CONF of a one-node cluster started for this module."""
    if shutil.which("bash") is None:
        pytest.skip("no bash to run benchmarks/slurm_local.sh")
    folder = tmp_path_factory.mktemp("slurm")
    started = subprocess.run(["bash", str(SCRIPT), "up", str(folder)], capture_output=True, text=True, timeout=600)
    try:
        if started.returncode != 0:
            pytest.skip(f"slurmctld cannot start here: {(started.stderr or started.stdout).strip()[-400:]}")
        yield folder / "slurm.conf"
    finally:
        subprocess.run(["bash", str(SCRIPT), "down", str(folder)], capture_output=True, timeout=120)


def _jobqueue_config(folder: Path) -> Path:
    """One Slurm job per worker process, one core and one trial each, logs kept in ``folder``."""
    config = folder / "slurm.yaml"
    config.write_text(json.dumps({"jobqueue": {"slurm": {
        "name": "physvec-test", "queue": "local", "walltime": "00:15:00", "cores": 1, "processes": 1,
        "memory": "2GB", "python": sys.executable, "log-directory": str(folder / "logs"),
        "worker-extra-args": ["--resources", "trial=1"],
        "job-script-prologue": ["export OMP_NUM_THREADS=1 MKL_NUM_THREADS=1 OPENBLAS_NUM_THREADS=1"]}}}))
    return config


def _replies(folder: Path, trials: int) -> Path:
    """One certifying reply per trial: a local campaign serves one script trial after trial, a worker afresh."""
    path = folder / "replies.json"
    call = {"name": "propose_design", "args": {"values": {"capacitance_F": 1.59e-8}}, "id": "c0"}
    path.write_text(json.dumps({"replies": [{"content": "", "tool_calls": [call]}] * trials}))
    return path


def _records(folder: Path) -> list[dict]:
    return sorted((record.model_dump(exclude=TIMING) for record in PhactRun(folder).episodes.read()),
                  key=lambda record: record["trial"])


def test_a_campaign_on_a_real_slurm_records_what_the_local_executor_records(tmp_path, slurm, monkeypatch):
    monkeypatch.setenv("SLURM_CONF", str(slurm))
    base = ["run", "--model", f"scripted:{_replies(tmp_path, 4)}", "--goals", GOAL, "--trials", "4", "--rounds", "2",
            "--runs-dir", str(tmp_path)]
    assert phact_main([*base, "--run-id", "local"]) == 0
    assert phact_main([*base, "--run-id", "slurm", "--executor", "dask", "--jobs", "2",
                       "--scheduler", f"slurm:{_jobqueue_config(tmp_path)}"]) == 0
    local, on_slurm = _records(tmp_path / "local"), _records(tmp_path / "slurm")
    assert on_slurm == local and len(local) == 4 and {r["outcome"] for r in local} == {"certified"}
    said = "".join(path.read_text() for path in (tmp_path / "logs").glob("*.err"))
    assert "Starting Worker" in said, "the workers ran as Slurm jobs: their job logs show a Dask worker starting"
