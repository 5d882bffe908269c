"""`reproduce` end to end with scripted models: artefacts, repair loops, budgets, resume, replay."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from physvec.agents.model_client import REPEAT_SEED, REPEAT_TEMPERATURE, RetryPolicy
from physvec.agents.providers import ProviderSettings
from physvec.agents.runner import start_run
from physvec.knowledge_base.sources import library_files
from physvec.knowledge_base.store import KnowledgeBase
from physvec.cli.main import reproduce_main
from physvec.runstore.store import RunDirectory, file_digest, list_runs
from physvec.runstore.transcript import EventType, read_events
from tests.support.chat_completions_server import ChatCompletionsServer
from tests.support.scripted import (
    FIXTURES, GOOD_SCRIPT, MISSPELLED, SLOW_AND_BROKEN, WRONG_SIGN, fenced, variant, write_replies,
)

EXPECTED_ENERGY_TEXT = "1.6160254"  # the reference value; it must never reach a prompt


def reproduce(task: Path, replies: Path, runs_dir: Path) -> tuple[int, RunDirectory]:
    code = reproduce_main([str(task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir)])
    return code, list_runs(runs_dir)[-1]


def set_limits(task: Path, **limits) -> None:
    data = json.loads(task.read_text())
    data["limits"].update(limits)
    task.write_text(json.dumps(data))


def node_sequence(run: RunDirectory) -> list[str]:
    return [e.node for e in read_events(run.transcript_file) if e.type is EventType.NODE_FINISHED]


def outcome_map(run: RunDirectory) -> dict[str, dict[str, str]]:
    return {name: {o.name: o.outcome.value for o in cert.obligations} for name, cert in run.certificates().items()}


def prompts(run: RunDirectory) -> list[str]:
    return [json.dumps(e.data["prompt"]) for e in read_events(run.transcript_file) if e.type is EventType.MODEL_CALL]


def test_a_programming_fault_is_repaired_and_every_artefact_is_written(tiny_task, runs_dir, tmp_path):
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, GOOD_SCRIPT), runs_dir)
    assert code == 0, "repaired, executable, rubric checks hold, energy matches the closed form"
    assert node_sequence(run) == ["plan", "retrieve", "author", "programming_verify", "programming_repair",
                                  "programming_verify", "scientific_verify", "convergence", "domain_checks",
                                  "finalize"]
    for name in ("task.json", "transcript.jsonl", "run.json", "results.json", "figure.png", "report.html",
                 "scripts/v01.py", "scripts/v02.py", "inputs/rubric.json", "inputs/paper.tex"):
        assert (run.path / name).is_file(), name
    certificates = run.certificates()
    assert {name: c.verdict.value for name, c in certificates.items()} == {
        "programming-v01": "failed", "programming-v02": "certified", "scientific-v02": "certified",
        "convergence-v02": "unknown", "domain_checks-v02": "unknown", "isolation": "certified"}
    executes = {o.name: o for o in certificates["programming-v01"].obligations}["script_executes"]
    assert "eigvalsh_" in executes.evidence["stderr_tail"]
    assert "eigvalsh_" in prompts(run)[1], "the repairer saw the traceback"
    report = run.report_file.read_text()
    for name, certificate in certificates.items():
        assert f'id="certificate-{name}"' in report
        assert all(o.name in report for o in certificate.obligations)
    meta = run.metadata()
    assert meta["status"] == "finished" and meta["verdict"] == "certified" and meta["tokens_used"] > 0
    (retrieval,) = [e for e in read_events(run.transcript_file) if e.type is EventType.RETRIEVAL]
    assert retrieval.data["status"] == "not_built" and "physvec kb build" in retrieval.data["hint"]
    assert json.loads((run.path / "results.json").read_text())["energy"] == pytest.approx(-1.6160254037844386)


def test_a_scientific_fault_is_repaired_without_showing_the_expected_value(tiny_task, runs_dir, tmp_path):
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", WRONG_SIGN, GOOD_SCRIPT), runs_dir)
    assert code == 0
    (edits,) = [e for e in read_events(run.transcript_file) if e.type is EventType.REPAIR_EDITS]
    assert edits.data["applied"] == ["PARAMS"], "only the coupling's sign changed"
    verdicts = {name: c.verdict.value for name, c in run.certificates().items()}
    assert verdicts["scientific-v01"] == "failed" and verdicts["scientific-v02"] == "certified"
    assert "scientific_repair" in node_sequence(run)
    assert all(EXPECTED_ENERGY_TEXT not in prompt for prompt in prompts(run))
    sealed = {o.name: o for o in run.certificates()["scientific-v01"].obligations}["reference:energy"].sealed
    assert sealed["expected"] == pytest.approx(-1.6160254037844386), "the reader still sees it in the certificate"


def test_an_unconverged_script_is_repaired_by_raising_its_accuracy_parameter(runs_dir, tmp_path):
    """E_1 = pi^2 / 2 within 0.05 already at 16 grid points, so only the grid ladder objects."""
    box = FIXTURES / "box_task"
    coarse = (box / "script.py").read_text().replace('"grid": 128', '"grid": 16')
    raise_grid = 'Raise the grid.\n\n```python\nPARAMS = {"grid": 128}\n```\n'
    code, run = reproduce(box / "task.json", write_replies(tmp_path / "r.json", coarse, raise_grid), runs_dir)
    assert code == 0
    assert node_sequence(run)[5:8] == ["convergence", "scientific_repair", "programming_verify"]
    verdicts = {name: c.verdict.value for name, c in run.certificates().items()}
    assert verdicts["scientific-v01"] == "certified" and verdicts["convergence-v01"] == "failed"
    assert verdicts["convergence-v02"] == "certified"
    assert "converged from grid = 64, but the script uses 16" in prompts(run)[-1]


def test_an_assertion_beyond_overrides_runs_the_models_adapter_entry_point(tiny_task, runs_dir, tmp_path):
    """Every S_i . S_j is traceless, so the levels of the Heisenberg Hamiltonian sum to zero."""
    (tiny_task.parent / "assertions.json").write_text(json.dumps({"assertions": [
        {"kind": "analytic_regime", "name": "traceless Hamiltonian", "run": "run_ground_state",
         "observable": "trace", "expected": 0.0, "atol": 1e-9, "reference": "Tr(S_i . S_j) = 0 for i != j",
         "adapter": "the sum of all levels of the Hamiltonian, under the key trace"}]}))
    task = json.loads(tiny_task.read_text())
    tiny_task.write_text(json.dumps({**task, "assertions": "assertions.json"}))
    entry = ("def adapter(**params):\n    levels = observable_spectrum(hamiltonian_heisenberg(params['L'], params['J']))\n"
             "    return {'trace': float(sum(levels))}\n")
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT, fenced(entry)), runs_dir)
    assert code == 0
    trace = {o.name: o for o in run.certificates()["scientific-v01"].obligations}["assertion:traceless Hamiltonian"]
    assert trace.outcome.value == "certified" and abs(trace.evidence["observed"]) < 1e-9
    adapter_prompt = next(p for p in prompts(run) if "adapter(**params)" in p)
    assert "sum of all levels" in adapter_prompt and "Tr(S_i" not in adapter_prompt


def test_retrieved_documentation_is_recorded_with_its_sources_and_reaches_the_author(tiny_task, runs_dir, tmp_path,
                                                                                    monkeypatch):
    store = tmp_path / "kb"
    KnowledgeBase(store).build(library_files())
    monkeypatch.setenv("PHYSVEC_KB", str(store))
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT), runs_dir)
    assert code == 0
    retrievals = [e for e in read_events(run.transcript_file) if e.type is EventType.RETRIEVAL]
    assert retrievals and all(e.data["status"] == "ok" and e.data["query"] and e.data["summary"] for e in retrievals)
    sources = [source for e in retrievals for source in e.data["sources"]]
    assert sources and all(s["package"] == "physvec" and s["qualname"] and s["version"] for s in sources)
    assert "Documentation of the installed libraries" in prompts(run)[0]
    assert json.loads((run.path / "retrieval.json").read_text())


def test_a_repair_that_saves_no_version_is_asked_again_not_verified_again_and_every_digest_resolves(
        tiny_task, runs_dir, tmp_path):
    """A repair reply without a script leaves the version as it was: verifying it again would only repeat its
    certificate, so the repairer is asked again (from the same budget) and each issued digest names a file."""
    replies = write_replies(tmp_path / "r.json", MISSPELLED, "I cannot see the fault.", GOOD_SCRIPT)
    code, run = reproduce(tiny_task, replies, runs_dir)
    assert code == 0
    assert node_sequence(run)[3:7] == ["programming_verify", "programming_repair", "programming_repair",
                                       "programming_verify"]
    issues = [e.data for e in read_events(run.transcript_file) if e.type is EventType.CERTIFICATE]
    assert [Path(issue["path"]).stem for issue in issues] == [
        "programming-v01", "programming-v02", "scientific-v02", "convergence-v02", "domain_checks-v02", "isolation"]
    for issue in issues:
        assert file_digest(run.path / issue["path"]) == issue["sha256"], issue["path"]
    assert list(run.issued_certificates()) == [Path(issue["path"]).stem for issue in issues]
    assert 'id="certificate-programming-v01"' in run.report_file.read_text()
    assert run.metadata()["metrics"]["programming_iterations"] == 2


def test_an_unrepaired_fault_fails_after_the_iteration_budget_and_the_final_line_names_it(
        tiny_task, runs_dir, tmp_path, capsys):
    set_limits(tiny_task, programming_iterations=1)
    still_misspelled = variant("np.linalg.eigvalsh(H)", "np.linalg.eigvalsh__(H)")
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, still_misspelled), runs_dir)
    assert code == 1
    assert node_sequence(run)[-3:] == ["programming_repair", "programming_verify", "finalize"]
    assert run.metadata()["verdict"] == "failed"
    assert run.metadata()["ended_by"] == "programming repair budget spent (1 of 1 rounds)"
    assert "ended by: programming repair budget spent (1 of 1 rounds)" in capsys.readouterr().err


def test_the_token_budget_stops_the_run_cleanly(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, token_budget=1)
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, GOOD_SCRIPT), runs_dir)
    assert code == 1
    assert run.metadata()["status"] == "budget_exhausted"
    assert run.metadata()["ended_by"].startswith("token budget spent (")
    assert [e.type for e in read_events(run.transcript_file)].count(EventType.MODEL_CALL) == 1
    assert run.report_file.is_file()


def test_a_model_outage_inside_a_verifier_ends_the_run_with_its_status_not_a_crash(tiny_task, runs_dir, tmp_path,
                                                                                  capsys):
    set_limits(tiny_task, rubric_votes=1)  # scientific_verify asks the model to judge the prose leaves
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT), runs_dir)  # one reply only
    assert code == 1
    assert run.metadata()["status"] == "model_unavailable" and run.status() == "model_unavailable"
    assert node_sequence(run)[-2:] == ["scientific_verify", "finalize"]
    assert run.metadata()["verdict"] != "certified"
    cause = run.metadata()["error"]
    assert "replies were already served" in cause and "cause" in run.report_file.read_text()
    from physvec.cli.main import physvec_main

    assert physvec_main(["runs", "--runs-dir", str(runs_dir), "show", run.run_id]) == 0
    assert "replies were already served" in capsys.readouterr().out


def test_rubric_votes_are_asked_as_structured_output_and_read_from_their_json(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, rubric_votes=1)
    vote = json.dumps({"reasoning": "the Hamiltonian couples neighbours with J", "verdict": "yes"})
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT, *[vote] * 8), runs_dir)
    assert code == 0
    votes = [e.data for e in read_events(run.transcript_file)
             if e.type is EventType.MODEL_CALL and e.data["role"] == "rubric_judge"]
    assert votes and all(v["schema"] == "RubricVote" for v in votes)
    prose = [o for o in run.certificates()["scientific-v01"].obligations if "votes" in o.evidence]
    assert prose and all(o.evidence["votes"][0]["vote"] is True for o in prose)


def test_a_repair_that_leaves_the_script_byte_identical_is_retried_once_then_stops_as_a_repeat(
        tiny_task, runs_dir, tmp_path):
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", MISSPELLED, MISSPELLED, MISSPELLED), runs_dir)
    assert code == 1
    assert node_sequence(run) == ["plan", "retrieve", "author", "programming_verify", "programming_repair",
                                  "finalize"], "the unchanged script is not verified again"
    events = list(read_events(run.transcript_file))
    repair_calls = [e for e in events if e.type is EventType.MODEL_CALL and e.data["role"] == "programming_repair"]
    assert [c.data.get("seed") for c in repair_calls] == [None, REPEAT_SEED]
    assert repair_calls[1].data["temperature"] == REPEAT_TEMPERATURE
    assert [e.data["unchanged_script"] for e in events if e.type is EventType.REPEATED_REPLY] == ["v01", "v01"]
    assert run.metadata()["status"] == "model_repeats"
    assert run.metadata()["ended_by"].startswith("the model repeats itself")


def test_a_model_found_unavailable_while_planning_ends_the_run_at_once(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_plan=True)
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json"), runs_dir)  # no replies: the model is gone
    assert code == 1
    assert node_sequence(run) == ["plan", "finalize"], "neither retrieval nor the Author asks a gone model"
    assert run.metadata()["status"] == "model_unavailable"
    assert run.metadata()["ended_by"].startswith("the model is unavailable (")


def test_a_reply_without_a_script_is_an_invalid_reply_not_a_crash(tiny_task, runs_dir, tmp_path):
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", "I would rather not.", GOOD_SCRIPT),
                          runs_dir)
    assert code == 0 and run.metadata()["status"] == "finished"
    invalid = [e for e in read_events(run.transcript_file) if e.type is EventType.INVALID_MODEL_REPLY]
    assert len(invalid) == 1 and invalid[0].data["role"] == "author"
    assert [p.name for p in run.scripts()] == ["v01.py"]


def test_an_author_that_never_writes_a_script_ends_the_run(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, author_attempts=2)
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", "no", "still no"), runs_dir)
    assert code == 1
    assert run.metadata()["status"] == "author_failed"
    assert node_sequence(run) == ["plan", "retrieve", "author", "finalize"]


def test_an_openai_compatible_server_with_faults_still_finishes_the_run(tiny_task, runs_dir):
    with ChatCompletionsServer(["429", "500", "timeout", "malformed", fenced(GOOD_SCRIPT)],
                               timeout_sleep_s=1.5) as server:
        outcome = start_run(tiny_task, "openai:test-model", runs_dir,
                            ProviderSettings(base_url=server.base_url, timeout_s=0.5),
                            RetryPolicy(attempts=6, base_delay_s=0.01))
        log = [entry["behaviour"] for entry in server.request_log]
    assert outcome.status == "finished"
    assert log == ["429", "500", "timeout", "malformed", "reply"]
    types = Counter(e.type for e in read_events(outcome.run.transcript_file))
    assert types[EventType.INFRASTRUCTURE_FAULT] == 4 and types[EventType.MODEL_CALL] == 1
    assert types[EventType.INVALID_MODEL_REPLY] == 0
    assert outcome.run.metadata()["base_url"] == server.base_url


def _wait_for(predicate, timeout: float = 60.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < deadline, "timed out waiting"
        time.sleep(0.1)


def _processes_inside(folder: Path) -> list[int]:
    """Processes whose working directory lies inside ``folder``."""
    found = []
    for proc in Path("/proc").iterdir():
        try:
            if proc.name.isdigit() and Path(os.readlink(proc / "cwd")).is_relative_to(folder):
                found.append(int(proc.name))
        except OSError:
            continue
    return found


def _started(runs_dir: Path, node: str) -> bool:
    runs = list_runs(runs_dir)
    return bool(runs) and any(e.type is EventType.NODE_STARTED and e.node == node
                              for e in read_events(runs[-1].transcript_file))


@pytest.mark.slow
def test_a_killed_run_resumes_to_the_same_verdict_and_replays_without_a_model(tiny_task, tmp_path):
    replies = write_replies(tmp_path / "r.json", SLOW_AND_BROKEN, GOOD_SCRIPT)
    _, uninterrupted = reproduce(tiny_task, replies, tmp_path / "reference-runs")

    runs_dir = tmp_path / "runs"
    process = subprocess.Popen(
        [sys.executable, "-c", "import sys; from physvec.cli.main import reproduce_main; sys.exit(reproduce_main())",
         str(tiny_task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir)],
        start_new_session=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    _wait_for(lambda: _started(runs_dir, "programming_verify"))
    time.sleep(1.0)  # the sandboxed v01 sleeps for 4 s: we are inside programming_verify
    os.killpg(process.pid, signal.SIGKILL)
    process.wait()
    (run,) = list_runs(runs_dir)
    _wait_for(lambda: not _processes_inside(run.path), timeout=5)  # the sandboxed script died with its parent
    assert run.metadata()["status"] == "running"

    assert reproduce_main(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) == 0
    assert run.metadata()["status"] == "finished"
    assert run.metadata()["verdict"] == uninterrupted.metadata()["verdict"]
    assert outcome_map(run) == outcome_map(uninterrupted)

    events = read_events(run.transcript_file)
    assert [e.seq for e in events] == list(range(len(events))), "lost or duplicated events"
    finished = Counter((e.node, e.step) for e in events if e.type is EventType.NODE_FINISHED)
    assert set(finished.values()) == {1}, "a node finished twice"
    assert node_sequence(run) == node_sequence(uninterrupted)
    restarted = [e for e in events if e.type is EventType.NODE_STARTED and e.data["attempt"] == 2]
    assert [(e.node, e.step) for e in restarted] == [("programming_verify", 4)]
    calls = [e for e in events if e.type is EventType.MODEL_CALL]
    assert len(calls) == 2 and len({(e.step, e.data["request_hash"]) for e in calls}) == 2, "a repeated model call"

    replay_runs = tmp_path / "replays"
    assert reproduce_main(["--replay", str(run.path), "--runs-dir", str(replay_runs)]) == 0
    (replayed,) = list_runs(replay_runs)
    assert replayed.metadata()["model"] == f"replay:{run.path}"
    assert outcome_map(replayed) == outcome_map(run)
    assert [p.read_text() for p in replayed.scripts()] == [p.read_text() for p in run.scripts()]


def test_resuming_a_finished_run_changes_nothing(tiny_task, runs_dir, tmp_path):
    _, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT), runs_dir)
    before = len(read_events(run.transcript_file))
    assert reproduce_main(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) == 0
    events = read_events(run.transcript_file)
    assert [e.type for e in events[before:]] == [EventType.RUN_RESUMED]


def test_a_run_killed_before_its_first_checkpoint_resumes_from_the_start(tiny_task, runs_dir, tmp_path):
    replies = write_replies(tmp_path / "r.json", GOOD_SCRIPT)
    _, finished = reproduce(tiny_task, replies, tmp_path / "reference-runs")
    _, run = reproduce(tiny_task, replies, runs_dir)
    first_line = run.transcript_file.read_bytes().split(b"\n")[0] + b"\n"  # run_started, nothing after it
    run.transcript_file.write_bytes(first_line)
    run.checkpoint_file.unlink()
    shutil.rmtree(run.path / "certificates")  # a run killed before its first checkpoint has issued none
    run.update_metadata(status="running", verdict=None)
    assert run.status() == "interrupted", "no process holds it: it is not running"
    assert reproduce_main(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) == 0
    assert run.status() == "finished" and outcome_map(run) == outcome_map(finished)
    assert node_sequence(run) == node_sequence(finished)


def test_a_garbage_transcript_line_is_quarantined_and_the_resume_goes_on(tiny_task, runs_dir, tmp_path):
    _, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT), runs_dir)
    with run.transcript_file.open("ab") as stream:
        stream.write(b'{"seq": "garbage"}\n')
    assert reproduce_main(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) == 0
    events = read_events(run.transcript_file)
    assert [e.seq for e in events] == list(range(len(events)))
    assert EventType.TRANSCRIPT_QUARANTINE in [e.type for e in events]
    assert "garbage" in (run.path / "transcript.quarantine.jsonl").read_text()


def test_a_second_resume_of_a_held_run_exits_2_naming_the_holder(tiny_task, runs_dir, tmp_path, capsys):
    from physvec.runstore.lock import RunLock

    _, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT), runs_dir)
    before = run.transcript_file.read_bytes()
    with RunLock(run.path):
        assert reproduce_main(["--resume", run.run_id, "--runs-dir", str(runs_dir)]) == 2
    assert f"in use by process {os.getpid()}" in capsys.readouterr().err
    assert run.transcript_file.read_bytes() == before, "the refused resume wrote nothing"


def test_ctrl_c_stops_the_sandbox_at_once_and_says_how_to_resume(tiny_task, tmp_path):
    replies = write_replies(tmp_path / "r.json", SLOW_AND_BROKEN, GOOD_SCRIPT)
    runs_dir = tmp_path / "runs"
    # a terminal's Ctrl-C reaches a process whose SIGINT is not ignored; a test runner started in the
    # background (bash `&`) ignores SIGINT and its children inherit that, so the child restores it
    process = subprocess.Popen(
        [sys.executable, "-c", "import signal, sys; signal.signal(signal.SIGINT, signal.default_int_handler); "
         "from physvec.cli.main import reproduce_main; sys.exit(reproduce_main())",
         str(tiny_task), "--model", f"scripted:{replies}", "--runs-dir", str(runs_dir)],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )
    _wait_for(lambda: _started(runs_dir, "programming_verify"))
    time.sleep(1.0)
    interrupted_at = time.monotonic()
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=30)
    assert process.returncode == 130
    assert time.monotonic() - interrupted_at < 2.5, "the 4 s sandboxed program was not killed at once"
    (run,) = list_runs(runs_dir)
    assert f"reproduce --resume {run.run_id}" in stderr and "Traceback" not in stderr
    assert read_events(run.transcript_file)[-1].type is EventType.RUN_INTERRUPTED


def test_the_model_writes_glue_for_a_unit_test_no_background_can_feed(tiny_task, runs_dir, tmp_path):
    set_limits(tiny_task, unit_glue=True)
    glue = ("```python\nimport numpy as np\n\n\ndef glue_arguments(namespace: dict) -> dict:\n"
            "    return {'H': np.diag([1.0, -1.0])}\n```")
    code, run = reproduce(tiny_task, write_replies(tmp_path / "r.json", GOOD_SCRIPT, glue), runs_dir)
    calls = [e for e in read_events(run.transcript_file) if e.type is EventType.MODEL_CALL]
    assert [c.data["role"] for c in calls] == ["author", "unit_glue"]
    assert "observable_spectrum" in json.dumps(calls[1].data["prompt"])
    unit = {o.name: o for o in run.certificates()["programming-v01"].obligations}["unit:observable_spectrum"]
    assert unit.outcome.value == "certified" and "glue_arguments" in unit.evidence["glue"]
