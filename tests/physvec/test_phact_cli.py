"""The phact command line: verdicts as exit codes, malformed files named, never a traceback."""

from __future__ import annotations

import json

from physvec.phact_cli import EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, main
from verifiers.phact.corpus import GOAL_FOLDER

HUM = GOAL_FOLDER / "rc_filter" / "mains-hum-low-pass.json"


def _design(tmp_path, values, goal="mains-hum-low-pass"):
    path = tmp_path / "design.json"
    path.write_text(json.dumps({"goal": goal, "values": values}))
    return path


def test_certify_exits_by_verdict(tmp_path, capsys):
    good = _design(tmp_path, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6})
    assert main(["certify", str(HUM), str(good), "--json"]) == EXIT_CERTIFIED
    assert json.loads(capsys.readouterr().out)["verdict"] == "certified"
    forged = _design(tmp_path, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6, "signal_Hz": 0.1})
    assert main(["certify", str(HUM), str(forged)]) == EXIT_NOT_CERTIFIED
    assert "signal_Hz" in capsys.readouterr().out


def test_bad_files_and_unknown_domains_exit_2_naming_the_field(tmp_path, capsys):
    broken_goal = tmp_path / "goal.json"
    broken_goal.write_text(json.dumps({"id": "g", "domain": "optics", "bound": {}, "targets": [], "tolerance": 0}))
    assert main(["certify", str(broken_goal), str(_design(tmp_path, {}))]) == EXIT_BAD_INPUT
    assert "goal.targets" in capsys.readouterr().err
    assert main(["certify", str(HUM), str(_design(tmp_path, {}, goal="other"))]) == EXIT_BAD_INPUT
    assert "design.goal" in capsys.readouterr().err
    assert main(["goals", "--domain", "optics"]) == EXIT_BAD_INPUT
    assert "unknown domain 'optics'" in capsys.readouterr().err


def test_goals_lists_the_corpus(capsys):
    assert main(["goals", "--domain", "inspiral"]) == 0
    assert "gw150914-chirp-mass" in capsys.readouterr().out
