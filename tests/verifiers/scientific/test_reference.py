"""The reference check: every compared observable of results.json against the task's reference file."""

from __future__ import annotations

import json
from pathlib import Path

from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Outcome
from physvec.verifiers.protocol import Subject
from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.reference import reference_obligations

FOUR_SITE_ENERGY = -0.75 - 3**0.5 / 2  # open four-site Heisenberg chain, closed form


def subject_comparing(task_file: Path, also: list[str], reference: dict, workdir: Path) -> Subject:
    data = json.loads(task_file.read_text())
    data["reference"]["also"] = also
    task_file.write_text(json.dumps(data))
    (task_file.parent / "reference.json").write_text(json.dumps(reference))
    return Subject(script=task_file.parent / "script_good.py", task=load_task(task_file), pool=SandboxPool(),
                   limits=SandboxLimits(), workdir=workdir)


def test_every_compared_observable_gets_its_own_obligation(tiny_task, tmp_path):
    subject = subject_comparing(tiny_task, ["gap"], {"energy": FOUR_SITE_ENERGY, "gap": 1.0}, tmp_path)
    outcomes = {o.name: o.outcome for o in reference_obligations(subject, {"energy": FOUR_SITE_ENERGY, "gap": 1.5})}
    assert outcomes == {"reference:energy": Outcome.CERTIFIED, "reference:gap": Outcome.FAILED}


def test_a_further_observable_missing_from_the_results_fails_clearly(tiny_task, tmp_path):
    subject = subject_comparing(tiny_task, ["gap"], {"energy": FOUR_SITE_ENERGY, "gap": 1.0}, tmp_path)
    missing = {o.name: o for o in reference_obligations(subject, {"energy": FOUR_SITE_ENERGY})}["reference:gap"]
    assert missing.outcome is Outcome.FAILED and "could not read" in missing.message
