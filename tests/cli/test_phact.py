"""The phact command line: verdicts as exit codes, malformed files named, never a traceback."""

from __future__ import annotations

import json
import math

import pytest

from physvec.cli.conventions import EXIT_BAD_INPUT, EXIT_CERTIFIED, EXIT_NOT_CERTIFIED
from physvec.cli.phact import main
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


UNREADABLE = {
    "not UTF-8": (b"\xff\xfe{\"goal\": 1}", "not UTF-8"),
    "an integer of 4400 digits": (b'{"goal": "mains-hum-low-pass", "values": {"resistance_ohm": ' + b"1" * 4400 + b"}}",
                                  "unreadable JSON"),
    "JSON nested 100000 deep": (b'{"goal": ' + b"[" * 100_000 + b"]" * 100_000 + b"}", "nested too deeply"),
    "NaN where a number is meant": (b'{"goal": "mains-hum-low-pass", "values": {"resistance_ohm": NaN, '
                                    b'"capacitance_F": 1e-6}}', "design.values.resistance_ohm"),
    "a boolean where a number is meant": (b'{"goal": "mains-hum-low-pass", "values": {"resistance_ohm": true, '
                                          b'"capacitance_F": 1e-6}}', "design.values.resistance_ohm"),
}


@pytest.mark.parametrize("content, named", UNREADABLE.values(), ids=list(UNREADABLE))
@pytest.mark.parametrize("role", ["goal", "design"])
def test_every_unreadable_file_exits_2_naming_the_problem_never_a_traceback(tmp_path, capsys, role, content, named):
    bad = tmp_path / "bad.json"
    bad.write_bytes(content)
    files = [str(bad), str(_design(tmp_path, {}))] if role == "goal" else [str(HUM), str(bad)]
    assert main(["certify", *files]) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert "Traceback" not in err
    assert (named if role == "design" or "design.values" not in named else "goal.") in err


GOAL_HOLES = {"infinite tolerance": (("tolerance",), math.inf), "NaN target": (("targets", 0, "value"), math.nan),
              "infinite bound": (("free", "resistance_ohm", "max"), math.inf),
              "boolean bound": (("bound", "signal_Hz"), True)}


@pytest.mark.parametrize("where, value", GOAL_HOLES.values(), ids=list(GOAL_HOLES))
def test_a_goal_with_a_non_finite_or_boolean_number_exits_2_naming_the_field(tmp_path, capsys, where, value):
    goal = json.loads(HUM.read_text())
    holder = goal
    for key in where[:-1]:
        holder = holder[key]
    holder[where[-1]] = value
    path = tmp_path / "goal.json"
    path.write_text(json.dumps(goal))
    good = _design(tmp_path, {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6})
    assert main(["certify", str(path), str(good)]) == EXIT_BAD_INPUT
    assert "goal." + ".".join(map(str, where)) in capsys.readouterr().err


@pytest.mark.parametrize("content", [b"\xff\xfe", b'{"replies": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
                                     b'{"replies": [' + b"1" * 4400 + b"]}"], ids=["utf8", "deep", "digits"])
def test_run_with_an_unreadable_replies_file_exits_2(tmp_path, capsys, content):
    replies = tmp_path / "replies.json"
    replies.write_bytes(content)
    assert main(["run", "--model", f"scripted:{replies}", "--runs-dir", str(tmp_path), "--goals",
                 "rc_filter/cutoff-at-1-khz"]) == EXIT_BAD_INPUT
    assert "run settings" in capsys.readouterr().err


@pytest.mark.parametrize("damaged", ["run.json", "episodes.jsonl", "transcript.jsonl"])
def test_resume_or_report_of_a_run_with_a_damaged_file_exits_2_or_skips_the_line(tmp_path, capsys, damaged):
    replies = _scripted(tmp_path, ("propose_design", {"values": {"capacitance_F": 1.59e-8}}))
    arguments = ["run", "--model", f"scripted:{replies}", "--goals", "rc_filter/cutoff-at-1-khz", "--runs-dir",
                 str(tmp_path), "--run-id", "r"]
    assert main(arguments) == 0
    (tmp_path / "r" / damaged).write_bytes(b'{"x": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n\xff\n")
    for command in ([*arguments, "--resume"], ["report", str(tmp_path / "r")]):
        assert main(command) in (0, EXIT_BAD_INPUT)
        assert "Traceback" not in capsys.readouterr().err


def test_certify_a_design_claiming_impossibility_of_a_goal_it_meets_fails_on_the_claim(tmp_path, capsys):
    path = tmp_path / "design.json"
    path.write_text(json.dumps({"goal": "mains-hum-low-pass", "claims_impossible": True,
                                "values": {"resistance_ohm": 35_368.0, "capacitance_F": 1e-6}}))
    assert main(["certify", str(HUM), str(path), "--json"]) == EXIT_NOT_CERTIFIED
    certificate = json.loads(capsys.readouterr().out)
    assert certificate["verdict"] == "failed" and certificate["impossibility"] is None
    assert [o["name"] for o in certificate["obligations"] if o["outcome"] == "failed"] == ["design_claims_impossible"]
