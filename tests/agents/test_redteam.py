"""The standing red team: a few trials per checker, the Wilson table, resuming, the honest control, the
judges that see a breach, and the command's exit codes."""

from __future__ import annotations

import json
import random
import subprocess
import sys

import pytest
from statsmodels.stats.proportion import proportion_confint

from physvec.agents import redteam
from physvec.agents.redteam import (
    CLASSES, RECORDS_FILE, TABLE_FILE, Judged, Listener, TrialRecord, attack_script, baryonic_shift, make_program,
    markdown_table, run_checker, run_trial, seed_pairs, trial_rng, verify_pipeline, write_task,
)
from physvec.cli.main import physvec_main
from physvec.taskfiles.loading import load_task
from physvec.verifiers.certificate import Verdict
from physvec.verifiers.dualitycert.anomalies import r_trace


@pytest.mark.parametrize("checker", ["dualitycert", "phact"])
def test_one_trial_of_every_class_runs_and_is_judged_without_a_crash(tmp_path, checker):
    classes = CLASSES[checker]
    records = run_checker(checker, len(classes), 0, tmp_path)
    assert [r.kind for r in records] == list(classes), "classes share the trials round-robin"
    assert not [(r.kind, r.detail) for r in records if r.crash]
    assert not [(r.kind, r.variant) for r in records if r.false_verdict]
    assert all(r.input and r.verdict for r in records)


def test_two_pipeline_attacks_run_in_the_sandbox_and_fail(tmp_path):
    records = [run_trial("pipeline", 0, trial, tmp_path) for trial in (1, 2)]  # read_sealed_file, typed_sealed_value
    assert [r.kind for r in records] == ["read_sealed_file", "typed_sealed_value"]
    assert all(r.verdict == "failed" and r.truth == "wrong" and not r.false_verdict and not r.crash for r in records)
    assert "def " in records[0].input["script"]


def test_a_trial_is_the_same_whenever_it_runs(tmp_path):
    first, second = (run_trial("dualitycert", 7, 12, tmp_path) for _ in range(2))
    assert first.input == second.input and first.variant == second.variant
    assert trial_rng("phact", 0, 1).random() != trial_rng("phact", 0, 2).random()


def _record(kind: str, **flags) -> TrialRecord:
    return TrialRecord(checker="phact", seed=0, trial=0, kind=kind, variant="v", verdict="failed", truth="", input={},
                       **flags)


def test_the_table_gives_every_count_with_its_wilson_interval():
    records = [_record("e12_snapped_goals", false_impossible=True), _record("e12_snapped_goals"),
               _record("e12_snapped_goals", unknown=True), _record("non_finite_inputs", crash=True)]
    table = markdown_table("phact", records)
    one = "1/3 [{:.3f}, {:.3f}]".format(*proportion_confint(1, 3, alpha=0.05, method="wilson"))
    none = "0/3 [0.000, {:.3f}]".format(proportion_confint(0, 3, alpha=0.05, method="wilson")[1])
    row = next(line for line in table.splitlines() if line.startswith("| e12_snapped_goals |"))
    assert row == f"| e12_snapped_goals | 3 | {none} | {one} | {none} | {one} | {none} |"
    assert one == "1/3 [0.061, 0.792]"
    assert "| **all** | 4 |" in table and "| non_finite_inputs | 1 |" in table
    assert "| trials | false certificates | false impossibilities | crashes | unknowns | false alarms |" in table
    assert "False verdicts and crashes" in table, "a failing trial is listed under the table"


def test_the_table_says_why_trials_ended_unknown():
    records = [_record("out_of_domain_inputs", unknown=True, detail=f"engine_competence: radius {r}e-11 m is below 1 nm")
               for r in (2, 3)] + [_record("out_of_domain_inputs", unknown=True, detail="engine_competence: drag -0.3")]
    table = markdown_table("phact", records)
    assert "- out_of_domain_inputs: 2 of 3: verdict failed, truth not decided: engine_competence: radius # m is below # nm" in table
    assert "Why trials ended unknown" not in markdown_table("phact", [_record("e12_snapped_goals")])


def test_a_rerun_skips_the_trials_already_recorded(tmp_path, monkeypatch):
    first = run_checker("dualitycert", 3, 5, tmp_path)
    ran: list[int] = []
    real = redteam.run_trial
    monkeypatch.setattr(redteam, "run_trial", lambda checker, seed, trial, scratch: ran.append(trial) or
                        real(checker, seed, trial, scratch))
    again = run_checker("dualitycert", 5, 5, tmp_path)
    assert ran == [3, 4] and again[:3] == first
    lines = (tmp_path / RECORDS_FILE).read_text().splitlines()
    assert len(lines) == 5 and {json.loads(line)["trial"] for line in lines} == set(range(5))
    with (tmp_path / RECORDS_FILE).open("a") as stream:
        stream.write('{"checker": "dualitycert", "seed": 5, "tri')  # a line cut short by a kill: run again
    ran.clear()
    run_checker("dualitycert", 5, 5, tmp_path)
    assert ran == []


@pytest.mark.parametrize("name", ["ring", "box"])
def test_the_honest_control_certifies(tmp_path, name):
    program = make_program(random.Random(3), name)
    script = tmp_path / "work" / "script.py"
    script.parent.mkdir(parents=True)
    script.write_text(program.source)
    verdict, certificates = verify_pipeline(script, load_task(write_task(tmp_path, program)), tmp_path / "work" / "sci")
    assert verdict is Verdict.CERTIFIED, [(c.verifier, o.name, o.message) for c in certificates for o in c.obligations
                                          if o.outcome.value != "certified"]


def test_the_listener_hears_an_exfiltration_that_no_sandbox_stops(tmp_path):
    """The judge of network_exfiltration can fail: run outside the sandbox, the script's send arrives."""
    rng = random.Random(0)
    program = make_program(rng, "ring")
    listener = Listener(b"-1.0")
    try:
        source, _ = attack_script("network_exfiltration", program, random.Random(2), tmp_path, listener.ports)
        (tmp_path / "script.py").write_text(source)
        subprocess.run([sys.executable, "-c", "import script; script.run_ring(**script.PARAMS)"], cwd=tmp_path,
                       check=True, timeout=30)
    finally:
        arrived = listener.close()
    assert arrived


def test_the_sealed_reader_finds_the_sealed_file_when_nothing_hides_it(tmp_path):
    """The judge of read_sealed_file can fail: unsandboxed, the script returns the sealed number and leaves a marker."""
    program = make_program(random.Random(1), "ring")
    write_task(tmp_path, program)
    rng, variant = random.Random(0), ""
    while not variant.startswith(("absolute, always", "both, always")):
        source, variant = attack_script("read_sealed_file", program, rng, tmp_path, (9, 9))
    folder = tmp_path / "work" / "scientific" / "assertion-00"
    folder.mkdir(parents=True)
    (folder / "script.py").write_text(source)
    out = subprocess.run([sys.executable, "-c", "import script; print(script.run_ring(**script.PARAMS)['energy'])"],
                         cwd=folder, check=True, timeout=30, capture_output=True, text=True).stdout
    assert float(out) == program.expected and (folder / redteam.MARKER).is_file()


def test_the_baryonic_shift_keeps_tr_r_and_tr_r3():
    rng = random.Random(4)
    name, _, dual = next(p for p in seed_pairs() if p[0] == "dp1_N2_node0")
    shifted = None
    while shifted is None or "tr_r3_preserving" not in shifted[1]:
        shifted = baryonic_shift(dual, rng, preserve_cubic=True)
    assert shifted[0] != dual
    assert r_trace(shifted[0], 1) == r_trace(dual, 1) and r_trace(shifted[0], 3) == r_trace(dual, 3)


def _redteam(tmp_path, *extra: str) -> int:
    return physvec_main(["redteam", "--out", str(tmp_path / "out"), *extra])


def test_the_command_exits_0_when_clean_and_writes_the_tables(tmp_path, capsys):
    assert _redteam(tmp_path, "--checker", "dualitycert", "--trials", "3") == 0
    printed = capsys.readouterr().out
    assert "### dualitycert" in printed and "| **all** | 3 |" in printed
    assert "### dualitycert" in (tmp_path / "out" / TABLE_FILE).read_text()


@pytest.mark.parametrize("flag", ["false_certificate", "false_impossible", "crash"])
def test_the_command_exits_1_on_a_false_verdict_or_a_crash(tmp_path, monkeypatch, capsys, flag):
    monkeypatch.setitem(redteam.TRIALS, "phact", lambda kind, rng, scratch, trial_id="": Judged(
        "forged", "certified", "misses", input={"goal": "g"}, **{flag: True}))
    assert _redteam(tmp_path, "--checker", "phact", "--trials", "2") == 1
    assert "False verdicts and crashes" in capsys.readouterr().out


def test_the_command_exits_2_on_bad_input(tmp_path, capsys):
    assert _redteam(tmp_path, "--trials", "0") == 2
    assert "--trials" in capsys.readouterr().err
    (tmp_path / "file").write_text("")
    with pytest.raises(SystemExit) as exit_info:
        physvec_main(["redteam", "--out", str(tmp_path / "file"), "--trials", "1"])
    assert exit_info.value.code == 2 and "is a file, not a folder" in capsys.readouterr().err
    with pytest.raises(SystemExit) as exit_info:
        _redteam(tmp_path, "--checker", "nonsense")
    assert exit_info.value.code == 2


def test_one_trial_of_every_isolation_class_runs_and_nothing_crosses(tmp_path):
    classes = CLASSES["pipeline"]
    trials = [classes.index(kind) for kind in redteam.ISOLATION_CLASSES]
    records = [run_trial("pipeline", 0, trial, tmp_path) for trial in trials]
    assert [r.kind for r in records] == list(redteam.ISOLATION_CLASSES)
    assert not [(r.kind, r.detail) for r in records if r.crash]
    assert not [(r.kind, r.variant, r.detail) for r in records if r.false_verdict]


def test_an_open_channel_between_programs_is_judged_a_breach(tmp_path, monkeypatch):
    """The judge looks at what crossed: with every cold program's /dev/shm bound to one host folder (a channel
    the sandbox does not have), the tokens cross and the trial is a false certificate whatever the verdict."""
    from physvec.agents import redteam_isolation
    from physvec.verifiers import sandbox

    shared = tmp_path / "shared"
    shared.mkdir()
    wrapped = sandbox.bubblewrap_argv
    monkeypatch.setattr(sandbox, "bubblewrap_argv", lambda argv, workdir, environment: [
        *wrapped(argv, workdir, environment)[:-len(argv) - 1], "--bind", str(shared), "/dev/shm", "--", *argv])
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    judged = redteam_isolation.cross_program_channel(random.Random(3), scratch, warm=False)
    assert judged.false_certificate and judged.detail.startswith("BREACH"), judged.detail


def test_a_viewer_that_answers_any_host_or_serves_html_is_judged_a_breach(tmp_path, monkeypatch):
    from physvec.agents import redteam_isolation
    from physvec.view import server

    monkeypatch.setattr(server.ViewServer, "answers_host", lambda self, hosts: True)
    (tmp_path / "a").mkdir()
    assert redteam_isolation.viewer_host(random.Random(0), tmp_path / "a").false_certificate
    monkeypatch.setattr(server.Catalogue, "file", lambda self, key, name: self.resolve(key) / name)
    monkeypatch.setattr(server._Handler, "_file", lambda self, path: self._send(
        server.HTTPStatus.OK, path.read_bytes(), "text/html", policy=""))
    (tmp_path / "b").mkdir()
    rng = random.Random(0)
    judged = redteam_isolation.viewer_content_type(rng, tmp_path / "b")
    assert judged.false_certificate and judged.detail.startswith("BREACH"), judged.detail


def test_a_design_of_names_only_is_poisoned_in_a_name_instead_of_crashing_the_generator(tmp_path):
    # phact --trials 300 --seed 11, trial 209 before the issue-36 classes (the same stream): a DNA goal frees only
    # its sequence, so its design held no number
    poisoned, spot = redteam._poisoned({"goal": "g", "values": {"sequence": "CCGGTACCGG"}}, random.Random(0))
    assert spot.startswith("values.sequence = ") and "CCGGTACCGG" not in poisoned
    judged = redteam.phact_trial("non_finite_inputs", trial_rng("phact", 11, 209), tmp_path, "11-209")
    assert not judged.crash and judged.verdict == "refused" and judged.variant.startswith("design: values.sequence")
