"""A call of a script's run_ function runs once per script version: identical calls share one sandbox run,
whichever check asks, and an override equal to PARAMS is no override; anything that could change the
result (other bytes, another override, an observable not recorded) runs again."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
from physvec.verifiers.scientific.override_runs import OverrideRun, observe

SCRIPT = '''
from typing import Any

PARAMS = {"J": 1.0, "L": 4, "sweeps": 10}


def observable_energy(J: float, L: int) -> float:
    return -J * (L - 1)


def run_chain(**params: Any) -> dict[str, Any]:
    return {"energy": observable_energy(params["J"], params["L"]), "sweeps": params["sweeps"]}
'''


def _ran(workdir: Path) -> list[str]:
    """The labels whose program actually ran (each run leaves its report in its own folder)."""
    return sorted(folder.name for folder in workdir.iterdir() if (folder / "observed.json").is_file())


@pytest.fixture
def script(tmp_path: Path) -> Path:
    path = tmp_path / "script.py"
    path.write_text(SCRIPT)
    return path


def _observe(script: Path, workdir: Path, *runs: OverrideRun):
    return observe(script, list(runs), workdir, SandboxPool(), SandboxLimits(wall_s=60))


def test_a_call_asked_again_by_another_check_is_not_run_again(script, tmp_path):
    workdir = tmp_path / "work"
    (first,) = _observe(script, workdir, OverrideRun("metamorphic-base", "run_chain", "energy"))
    (again,) = _observe(script, workdir, OverrideRun("assertion-00", "run_chain", "energy"))
    assert first.ok and again.ok and again.value == first.value == -3.0
    assert _ran(workdir) == ["metamorphic-base"]
    note = json.loads((workdir / "assertion-00" / "same_call.json").read_text())
    assert note["ran_in"].endswith("metamorphic-base"), "the served check's folder says where its call ran"


def test_a_rung_at_the_scripts_own_value_is_the_base_run(script, tmp_path):
    workdir = tmp_path / "work"
    _observe(script, workdir, OverrideRun("metamorphic-base", "run_chain", "energy"))
    at_params, above = _observe(script, workdir, OverrideRun("convergence-00-00", "run_chain", "energy", {"sweeps": 10}),
                                OverrideRun("convergence-00-01", "run_chain", "energy", {"sweeps": 20}))
    assert at_params.value == above.value == -3.0
    assert _ran(workdir) == ["convergence-00-01", "metamorphic-base"]


def test_other_bytes_another_override_or_an_unrecorded_observable_run_again(script, tmp_path):
    workdir = tmp_path / "work"
    _observe(script, workdir, OverrideRun("base", "run_chain", "energy"))
    _observe(script, workdir, OverrideRun("other-J", "run_chain", "energy", {"J": 2.0}))
    _observe(script, workdir, OverrideRun("new-observable", "run_chain", "sweeps"))
    script.write_text(SCRIPT.replace("-J * (L - 1)", "-J * L"))
    (edited,) = _observe(script, workdir, OverrideRun("edited-script", "run_chain", "energy"))
    assert edited.value == -4.0, "an edited script is never served the old script's numbers"
    assert _ran(workdir) == ["base", "edited-script", "new-observable", "other-J"]


def test_a_call_that_failed_is_tried_again(tmp_path):
    script = tmp_path / "script.py"
    script.write_text(SCRIPT.replace('return {"energy"', 'raise RuntimeError("flaky")\n    return {"energy"'))
    workdir = tmp_path / "work"
    (first,) = _observe(script, workdir, OverrideRun("first", "run_chain", "energy"))
    (second,) = _observe(script, workdir, OverrideRun("second", "run_chain", "energy"))
    assert not first.ok and not second.ok and "flaky" in second.error
    assert (workdir / "second" / "observe.py").is_file(), "a failed call is not remembered"

