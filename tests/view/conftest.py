"""Runs and a campaign made once for the viewer's tests (the README example takes about a minute)."""

from __future__ import annotations

from pathlib import Path

import pytest

from physvec.runstore.store import RunDirectory
from physvec.verifiers.isolation import ALLOW_REDUCED_VARIABLE, probe
from tests.support.example_runs import failed_run, model_unavailable_run, qmp_campaign, readme_example


@pytest.fixture(scope="session")
def example_runs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, RunDirectory]:
    """The README example, a failed and a model_unavailable run, in one runs folder of their own."""
    work = tmp_path_factory.mktemp("view-runs")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("PHYSVEC_KB", str(work / "no-knowledge-base"))
        if not probe().full:
            patch.setenv(ALLOW_REDUCED_VARIABLE, "1")
        return {"readme": readme_example(work / "runs"), "failed": failed_run(work, work / "runs"),
                "unavailable": model_unavailable_run(work, work / "runs")}


@pytest.fixture(scope="session")
def campaign_folder(example_runs: dict[str, RunDirectory], tmp_path_factory: pytest.TempPathFactory) -> Path:
    return qmp_campaign(tmp_path_factory.mktemp("view-campaigns") / "qmp-campaign", list(example_runs.values()))
