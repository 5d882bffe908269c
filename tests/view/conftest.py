"""Runs and a campaign made once for the viewer's tests (the README example takes about a minute), and a copy of
the README run into which its program wrote active content."""

from __future__ import annotations

import json
import shutil
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


SEALED = "SEALED-EXPECTED-4711"
"""A value planted in the sealed inputs (and next to the roots): no response of the viewer may carry it."""
ATTACK = 'document.title = "pwned"; window.name = "pwned";'
"""What a page written by a generated program would do if the browser ran its script."""


@pytest.fixture(scope="session")
def attacked_root(example_runs: dict[str, RunDirectory], tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A root holding a copy of the README example's run after its program wrote active content: an HTML page
    and an SVG with script in work/, a figure.png that is HTML, a reference_overlay.png linking to the sealed
    assertions, and a records file in inputs/ that would make the sealed folder look like a campaign."""
    root = tmp_path_factory.mktemp("attacked") / "runs"
    run = root / example_runs["readme"].path.name
    shutil.copytree(example_runs["readme"].path, run, symlinks=True)
    (root.parent / "secret.txt").write_text(SEALED)
    (run / "inputs" / "assertions.json").write_text(json.dumps({"energy": SEALED}))
    (run / "inputs" / "records.jsonl").write_text(json.dumps({"task": SEALED}) + "\n")
    (run / "work" / "evil.html").write_text(f"<!doctype html><title>untouched</title><script>{ATTACK}</script>")
    (run / "work" / "evil.svg").write_text(f"<svg xmlns='http://www.w3.org/2000/svg' onload='{ATTACK}'>"
                                           f"<title>untouched</title><script>{ATTACK}</script></svg>")
    (run / "figure.png").write_text(f"<!doctype html><title>untouched</title><script>{ATTACK}</script>")
    (run / "reference_overlay.png").symlink_to(Path("inputs") / "assertions.json")
    return root
