"""The options every campaign command shares for where its trials run: --jobs, --executor, --scheduler.

Parsing them loads nothing: Dask is imported only once a campaign asks for --executor dask.
"""

from __future__ import annotations

import argparse
import contextlib
from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console

    from physvec.campaigns.executor import Executor
    from physvec.campaigns.progress import CampaignProgress

EXECUTORS = ("local", "dask")
"""physvec.campaigns.executor.EXECUTORS (a test keeps them equal), named here so that parsing imports nothing."""


def add_executor_options(parser: argparse.ArgumentParser) -> None:
    """--jobs, --executor and --scheduler on a campaign command."""
    parser.add_argument("--jobs", type=int, default=None,
                        help="trials at once (local; default 1), or worker processes (dask; default one per core)")
    parser.add_argument("--executor", choices=EXECUTORS, default="local",
                        help="local: threads of this process (default); dask: a Dask cluster (pip install 'physvec[dask]')")
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="with --executor dask: a running scheduler (tcp://host:8786) or slurm:CONFIG.yaml "
                             "(examples/dask/slurm.yaml); default: a LocalCluster on this machine")


def executor_problem(arguments: argparse.Namespace) -> str | None:
    """Why the executor options cannot work together, or None."""
    if arguments.jobs is not None and arguments.jobs < 1:
        return "--jobs must be at least 1"
    if arguments.scheduler is not None and arguments.executor != "dask":
        return "--scheduler needs --executor dask"
    return None


@contextlib.contextmanager
def campaign_executor(arguments: argparse.Namespace, console: Console,
                      description: str) -> Iterator[tuple[Executor, CampaignProgress]]:
    """The executor the options ask for and the campaign's progress bar on ``console``.

    Raises:
        physvec.campaigns.executor.ExecutorUnavailable: the executor cannot start (the caller exits 2).
    """
    from physvec.campaigns.executor import open_executor
    from physvec.campaigns.progress import CampaignProgress

    jobs = arguments.jobs or (1 if arguments.executor == "local" else 0)
    with open_executor(arguments.executor, jobs, arguments.scheduler) as executor, \
            CampaignProgress(console, description, executor.running, executor.dashboard_link) as progress:
        yield executor, progress


def model_problem(spec: str, task_ids: Iterable[str] = ()) -> str | None:
    """Why trials with ``spec`` could not ask their model, or None: a bad spec, an unreachable endpoint, or a
    ``scripted:<folder>`` without a replies file for one of the tasks.  Asked before any trial runs, so a
    campaign exits 2 with the reason instead of recording trials that never had a model."""
    from physvec.agents.preflight import ProviderUnreachable, preflight
    from physvec.agents.providers import LIBRARY_SPEC, ModelSpecError, ProviderSettings, make_chat_model

    if spec == LIBRARY_SPEC:
        return None
    try:
        for task_id in list(task_ids) or [None]:
            make_chat_model(spec, ProviderSettings(), task_id=task_id)
        preflight(spec, ProviderSettings())
    except (ModelSpecError, ProviderUnreachable) as error:
        return str(error)
    return None
