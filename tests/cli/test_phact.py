"""The phact command line: verdicts as exit codes, malformed files named, never a traceback."""

from __future__ import annotations

import json

from physvec.cli.phact import EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_NOT_CERTIFIED, main
from physvec.verifiers.phact.corpus import GOAL_FOLDER

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


def _scripted(tmp_path, *calls):
    """A scripted model file: each reply one tool call (the replies stand for a language model)."""
    path = tmp_path / "replies.json"
    path.write_text(json.dumps({"replies": [{"content": "", "tool_calls": [{"name": name, "args": args, "id": f"c{i}"}]}
                                            for i, (name, args) in enumerate(calls)]}))
    return path


def test_run_judges_each_goal_writes_records_and_a_report_and_refuses_a_changed_resume(tmp_path, capsys):
    # 1/(2 pi 10 kOhm 15.9 nF) = 1001 Hz meets 1 kHz +- 10 Hz; the fixed 10 kOhm, 10 nF high-pass cuts off at 1.59 kHz
    replies = _scripted(tmp_path, ("propose_design", {"values": {"capacitance_F": 1.59e-8}}),
                        ("propose_design", {"values": {}}))
    arguments = ["run", "--model", f"scripted:{replies}", "--goals", "rc_filter/cutoff-at-1-khz,*/fixed-rc-claimed-10-khz", "--runs-dir", str(tmp_path),
                 "--run-id", "r"]
    assert main(arguments) == 0
    out = capsys.readouterr().out
    assert "cutoff-at-1-khz trial 0: certified" in out and "fixed-rc-claimed-10-khz trial 0: impossible" in out
    summary = json.loads((tmp_path / "r" / "summary.json").read_text())
    assert summary["all"]["certified"]["count"] == 1 and summary["all"]["impossible"]["count"] == 1
    assert summary["all"]["false_certificate"]["count"] == 0 and (tmp_path / "r" / "report.md").is_file()
    assert main(arguments) == EXIT_BAD_INPUT and "--resume" in capsys.readouterr().err
    assert main([*arguments, "--resume", "--contract", "bare"]) == EXIT_BAD_INPUT
    assert "contract" in capsys.readouterr().err
    assert main([*arguments, "--resume"]) == 0  # nothing left to run: the report is written again
    assert main(["report", str(tmp_path / "r")]) == 0 and "Wilson" in capsys.readouterr().out


def test_run_settings_that_cannot_work_exit_2_naming_them(tmp_path, capsys):
    base = ["run", "--runs-dir", str(tmp_path)]
    assert main([*base, "--model", "gpt-4"]) == EXIT_BAD_INPUT and "run settings" in capsys.readouterr().err
    replies = _scripted(tmp_path)
    assert main([*base, "--model", f"scripted:{replies}", "--goals", "optics/*"]) == EXIT_BAD_INPUT
    assert "--goals" in capsys.readouterr().err
    assert main([*base, "--model", f"scripted:{replies}", "--rounds", "0"]) == EXIT_BAD_INPUT
    assert main(["report", str(tmp_path)]) == EXIT_BAD_INPUT and "no run.json" in capsys.readouterr().err
