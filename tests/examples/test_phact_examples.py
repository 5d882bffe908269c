"""The PHACT examples the README points at: a filter design the engine certifies, and one that writes the
signal frequency the goal binds and fails by name."""

from __future__ import annotations

from pathlib import Path

from physvec.cli.conventions import EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.cli.phact import main
from physvec.verifiers.phact.corpus import GOAL_FOLDER

EXAMPLES = Path(__file__).resolve().parents[2] / "examples" / "phact"
GOAL = str(GOAL_FOLDER / "rc_filter" / "mains-hum-low-pass.json")


def test_the_designed_filter_certifies_and_the_forged_one_fails_naming_the_bound_input(capsys):
    # 1/(2 pi 39 kOhm 1 uF) = 4.08 Hz >= 4 Hz, and 50 Hz lies 21.8 dB down
    assert main(["certify", GOAL, str(EXAMPLES / "mains_hum_design.json")]) == EXIT_CERTIFIED
    capsys.readouterr()
    assert main(["certify", GOAL, str(EXAMPLES / "mains_hum_forged_design.json")]) == EXIT_NOT_CERTIFIED
    assert "signal_Hz" in capsys.readouterr().out
