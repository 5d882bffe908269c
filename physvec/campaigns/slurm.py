"""A dask-jobqueue SLURMCluster from a configuration file (examples/dask/slurm.yaml shows one).

Physics groups run long campaigns on Slurm; dask-jobqueue submits the worker jobs, and its own
configuration format is what a cluster's users already know, so physvec reads that format as it is
rather than inventing options of its own.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import yaml
from dask_jobqueue import SLURMCluster


class SlurmConfigError(ValueError):
    """The configuration file cannot be read or holds no jobqueue.slurm section."""


def slurm_settings(config: Path) -> dict[str, Any]:
    """The ``jobqueue.slurm`` section of ``config``.

    Raises:
        SlurmConfigError: the file is unreadable or lacks the section.
    """
    try:
        loaded = yaml.safe_load(config.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError) as error:
        raise SlurmConfigError(f"{config}: {str(error).splitlines()[0]}") from None
    section = (loaded or {}).get("jobqueue", {}).get("slurm") if isinstance(loaded, dict) else None
    if not isinstance(section, dict):
        raise SlurmConfigError(f"{config}: no jobqueue.slurm section (see examples/dask/slurm.yaml)")
    return section


def slurm_cluster(config: Path) -> SLURMCluster:
    """A SLURMCluster configured by ``config`` over dask-jobqueue's defaults, with no job submitted yet
    (``scale`` asks Slurm for workers).

    Raises:
        SlurmConfigError: the file is unreadable, or names a setting SLURMCluster does not know.
    """
    arguments = {name.replace("-", "_"): value for name, value in slurm_settings(config).items()}
    if "name" in arguments:  # the configuration's `name` is the job's name, SLURMCluster's the cluster's
        arguments["job_name"] = arguments.pop("name")
    try:
        return SLURMCluster(**arguments)
    except (TypeError, ValueError) as error:
        raise SlurmConfigError(f"{config}: {str(error).splitlines()[0]}") from None
