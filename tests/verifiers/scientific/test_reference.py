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


def test_only_a_disagreeing_reference_makes_the_reference_the_suspect():
    from physvec.verifiers.certificate import Obligation, Outcome
    from physvec.verifiers.scientific.reference import suspect_reference

    def obligation(name: str, category: str, outcome: Outcome) -> Obligation:
        return Obligation(name=name, category=category, outcome=outcome)

    passed = [obligation("assertion:small", "limiting_case", Outcome.CERTIFIED),
              obligation("metamorphic:energy", "metamorphic", Outcome.CERTIFIED)]
    wrong_reference = obligation("reference:energy", "reference", Outcome.FAILED)
    assert suspect_reference([*passed, wrong_reference])
    assert not suspect_reference([*passed, wrong_reference, obligation("assertion:x", "symmetry", Outcome.FAILED)])
    assert not suspect_reference([obligation("metamorphic:e", "metamorphic", Outcome.CERTIFIED), wrong_reference]), \
        "without an independent assertion that passed, the script stays the suspect"
    assert not suspect_reference(passed)


def test_the_reference_s_provenance_text_is_sealed(tmp_path):
    """A task's source text may quote the number (szabo1996 quotes -1.117 hartree): it never reaches evidence a
    model could see."""
    import json as json_module
    import shutil
    from pathlib import Path

    from physvec.taskfiles.loading import load_task
    from physvec.verifiers.protocol import Subject
    from physvec.verifiers.sandbox import SandboxLimits, SandboxPool
    from physvec.verifiers.scientific.reference import reference_obligations

    example = Path(__file__).resolve().parents[3] / "examples" / "heisenberg_chain"
    shutil.copytree(example, tmp_path / "task")
    data = json_module.loads((tmp_path / "task" / "task.json").read_text())
    data["reference"]["source"] = "exact diagonalisation: E0(L=8) = -3.3749"
    (tmp_path / "task" / "task.json").write_text(json_module.dumps(data))
    loaded = load_task(tmp_path / "task" / "task.json")
    subject = Subject(task=loaded, script=tmp_path / "script.py", workdir=tmp_path / "work", pool=SandboxPool(),
                      limits=SandboxLimits())
    (obligation,) = reference_obligations(subject, {"energies": [-3.0, -4.0, -5.0]})
    assert "3.3749" not in json_module.dumps([obligation.message, obligation.evidence])
    assert obligation.sealed["source"].endswith("-3.3749")


def test_the_overlay_is_drawn_against_the_swept_parameter_the_task_names():
    import numpy as np

    from physvec.verifiers.scientific.reference import overlay_axis

    reference = {"lengths": [4, 6, 8], "energies": [-1.6, -2.5, -3.4], "sweep": {"L": [4, 6]}}
    x, label = overlay_axis(reference, "lengths", np.asarray(reference["energies"]))
    assert x.tolist() == [4, 6, 8] and label == "lengths"
    assert overlay_axis(reference, None, np.asarray(reference["energies"]))[1] == "index"
    assert overlay_axis(reference, "sweep.L", np.asarray(reference["energies"]))[1] == "index", \
        "values that do not match the curve point by point are not an axis"
