"""The example Slurm configuration builds a SLURMCluster whose job runs one trial per worker process
(constructed only: no job is submitted, no Slurm is needed)."""

from __future__ import annotations

from pathlib import Path

import pytest

pytest.importorskip("dask_jobqueue")

from physvec.campaigns.slurm import SlurmConfigError, slurm_cluster  # noqa: E402

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "dask" / "slurm.yaml"


def test_the_example_config_builds_a_cluster_of_one_trial_per_core():
    with slurm_cluster(EXAMPLE) as cluster:
        script = cluster.job_script()
    assert "#SBATCH -J physvec-worker" in script and "#SBATCH --cpus-per-task=8" in script
    assert "#SBATCH -t 12:00:00" in script and "--nworkers 8" in script and "--nthreads 1" in script
    assert "--resources trial=1" in script and "OMP_NUM_THREADS=1" in script


@pytest.mark.parametrize("text, named", [("jobqueue: {pbs: {}}", "no jobqueue.slurm section"),
                                         ("jobqueue:\n  slurm:\n    cores: 1\n    memory: 1GB\n    coers: 2\n", "coers"),
                                         ("[unclosed", "slurm.yaml")])
def test_a_config_without_a_slurm_section_or_with_a_misspelled_setting_is_refused_naming_it(tmp_path, text, named):
    config = tmp_path / "slurm.yaml"
    config.write_text(text)
    with pytest.raises(SlurmConfigError, match=named):
        slurm_cluster(config)
