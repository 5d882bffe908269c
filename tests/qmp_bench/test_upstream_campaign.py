"""A real `qmp-bench upstream run` over six published tasks, answered by scripted replies, and the report of it.

The replies stand in for a language model: a folder holding one fixture file per task
(``scripted:<folder>``), built here from the scripts in tests/fixtures/upstream_campaign/.  Each task is meant
to end one way, and the report must count it that way:

- qcmb 1_1: the first script starts from the mirrored domain wall; physvec's repair fixes it and certifies,
  the one-shot method (no repair) fails programming;
- qcmb 1_2: a correct script, certified by both methods;
- dft_qc 1_1: a script that reads a geometry file nobody gave it: it does not execute;
- dft_qc 4_1, 4_2 and 4_3 (ORCA, run with PySCF as asked): a working script of tasks the library cannot
  check, whose rubric votes are all yes: unknown, since nothing independent was computed, never certified.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from physvec.cli.qmp_bench import main as qmp_bench_main
from physvec.qmp_bench.campaign import Campaign, TrialRecord
from physvec.qmp_bench.upstream_report import ALL_TOPICS, Spread, build_report, load_records
from physvec.runstore.store import RunDirectory
from physvec.runstore.transcript import EventType, read_events
from physvec.verifiers.certificate import Outcome
from tests.support.scripted import fenced

UPSTREAM = Path(__file__).resolve().parents[3] / "shared" / "data" / "upstream_qmp"
SCRIPTS = Path(__file__).resolve().parents[1] / "fixtures" / "upstream_campaign"
pytestmark = [pytest.mark.slow, pytest.mark.skipif(not (UPSTREAM / "tasks").is_dir(),
                                                   reason=f"the published task files are not at {UPSTREAM}")]

QUENCH = (SCRIPTS / "xx_quench.py").read_text()
CORRECT_WALL = QUENCH[QUENCH.index("def initialstate_domain_wall"):QUENCH.index("def circuit_trotter")].rstrip()
MIRRORED_WALL = CORRECT_WALL.replace("circuit.x(range(L // 2))", "circuit.x(range(L // 2, L))")
WATER = (SCRIPTS / "water_orbitals_pyscf.py").read_text()
NO_GEOMETRY = WATER.replace('molecule_water(geometry=params["geometry"]',
                            'molecule_water(geometry=open("complex_2.xyz").read()')


def plan(system: str, method: str, observable: str) -> str:
    return "```json\n" + json.dumps({
        "system": system, "hamiltonian": "as the request states", "parameters": [], "method": method,
        "observables": [observable], "scaled_down": "nothing", "queries": []}) + "\n```\n"


def yes_votes(count: int) -> list[str]:
    return [json.dumps({"reasoning": "the script does what the leaf asks", "verdict": "yes"})] * count


QUENCH_PLAN = plan("open XX chain of six spins from a domain wall", "second-order Trotter circuits in Qiskit",
                   "<Z> of one site against time")
REPLIES = {
    "upstream-qcmb-1-1": [QUENCH_PLAN, fenced(QUENCH.replace(CORRECT_WALL, MIRRORED_WALL)),
                          f"The wall was mirrored.\n\n```python\n{CORRECT_WALL}\n```\n"],
    "upstream-qcmb-1-2": [QUENCH_PLAN, fenced(QUENCH.replace('"site": 4', '"site": 6'))],
    "upstream-dft-qc-1-1": [plan("the complex", "RHF in PySCF", "frontier orbitals"), fenced(NO_GEOMETRY)],
    **{f"upstream-dft-qc-4-{n}": [plan("water", "RHF in PySCF", "frontier orbitals"), fenced(WATER), *yes_votes(12)]
       for n in (1, 2, 3)},  # no overlay: physvec cannot recompute them
}
SIX = "qcmb/task_qcmb_1_[12].json,dft_qc/task_dft_qc_1_1.json,dft_qc/task_dft_qc_4_[123].json"


def write_reply_folder(folder: Path) -> Path:
    folder.mkdir()
    for task_id, replies in REPLIES.items():
        (folder / f"{task_id}.json").write_text(json.dumps({"replies": replies}))
    return folder


def upstream_run(out: Path, replies: Path, tasks: str, method: str) -> int:
    return qmp_bench_main(["upstream", "run", str(UPSTREAM), "--tasks", tasks, "--model", f"scripted:{replies}",
                           "--method", method, "--substitute", "orca=pyscf", "--out", str(out)])


@pytest.fixture(scope="module")
def campaign(tmp_path_factory) -> Campaign:
    folder = tmp_path_factory.mktemp("upstream-campaign")
    replies = write_reply_folder(folder / "replies")
    assert upstream_run(folder / "campaign", replies, SIX, "one-shot") == 0
    assert upstream_run(folder / "campaign", replies, "qcmb/task_qcmb_1_[12].json", "physvec") == 0
    return Campaign(folder / "campaign")


def ending(record: TrialRecord) -> str:
    return json.loads((Path(record.run_dir) / "run.json").read_text())["ended_by"]


def tokens_of(record: TrialRecord) -> tuple[int, int]:
    """The trial's model calls, read from its transcript here rather than by the report."""
    calls = [e.data for e in read_events(Path(record.run_dir) / "transcript.jsonl") if e.type is EventType.MODEL_CALL]
    return sum(c["input_tokens"] for c in calls), sum(c["output_tokens"] for c in calls)


def spread(values: list[float]) -> Spread:
    return Spread(pytest.approx(sum(values) / len(values)), max(values))


def test_every_trial_ends_as_its_replies_meant_and_keeps_its_run_folder(campaign):
    endings = {(r.task, r.method): (r.verdict, ending(r)) for r in campaign.records()}
    assert endings == {
        ("qcmb/upstream-qcmb-1-1", "one-shot"): ("failed", "programming repair budget spent (0 of 0 rounds)"),
        ("qcmb/upstream-qcmb-1-2", "one-shot"): ("certified", "every stage ran"),
        ("dft_qc/upstream-dft-qc-1-1", "one-shot"): ("failed", "programming repair budget spent (0 of 0 rounds)"),
        ("dft_qc/upstream-dft-qc-4-1", "one-shot"): ("unknown", "every stage ran"),
        ("dft_qc/upstream-dft-qc-4-2", "one-shot"): ("unknown", "every stage ran"),
        ("dft_qc/upstream-dft-qc-4-3", "one-shot"): ("unknown", "every stage ran"),
        ("qcmb/upstream-qcmb-1-1", "physvec"): ("certified", "every stage ran"),
        ("qcmb/upstream-qcmb-1-2", "physvec"): ("certified", "every stage ran"),
    }, "each trial once: the second `upstream run` ran only the tasks it chose"
    compiled = json.loads(next((campaign.folder / "compiled").glob("dft_qc/upstream-dft-qc-4-1/task.json")).read_text())
    assert compiled["backend"] == "pyscf" and compiled["substitutions"] == {"orca": "pyscf"}, "asked for, recorded"


def test_yes_votes_on_a_task_physvec_cannot_recompute_leave_it_unknown_not_certified(campaign):
    for record in campaign.records():
        if record.verdict == "unknown":
            scientific = RunDirectory(Path(record.run_dir)).issued_certificates()["scientific-v01"]
            evidence = {o.name: o for o in scientific.obligations}["evidence"]
            assert evidence.outcome is Outcome.UNKNOWN and "names no observable to compare" in evidence.message
            rubric = [o for o in scientific.obligations if o.category == "rubric"]
            assert rubric and all(o.outcome is Outcome.CERTIFIED for o in rubric), "the votes were all yes"


def test_a_rerun_of_the_campaign_runs_nothing_again(campaign):
    before = campaign.records_file.read_text()
    assert upstream_run(campaign.folder, campaign.folder.parent / "replies", SIX, "one-shot") == 0
    assert campaign.records_file.read_text() == before


def test_a_replies_folder_lacking_a_chosen_task_is_refused_before_any_trial(campaign, tmp_path, capsys):
    replies = tmp_path / "replies"
    replies.mkdir()
    assert upstream_run(tmp_path / "campaign", replies, "qcmb/task_qcmb_1_1.json", "physvec") == 2
    assert "holds no upstream-qcmb-1-1.json for task upstream-qcmb-1-1" in " ".join(capsys.readouterr().out.split())
    assert not (tmp_path / "campaign" / "records.jsonl").exists()


def test_the_report_of_the_campaign_cell_by_cell(campaign):
    records = campaign.records()
    rows = {(row.topic, row.method): row for row in build_report(load_records([campaign.records_file]), None,
                                                                   None).rows}
    assert list(rows) == [("dft_qc", "one-shot"), ("qcmb", "one-shot"), ("qcmb", "physvec"),
                          (ALL_TOPICS, "one-shot"), (ALL_TOPICS, "physvec")]

    def of(topic: str, method: str) -> list[TrialRecord]:
        return [r for r in records if r.method == method and topic in (ALL_TOPICS, r.task.split("/")[0])]

    qcmb = rows[("qcmb", "one-shot")]  # failed programming, certified
    assert (qcmb.tasks, qcmb.trials, qcmb.executable_pass_at) == (2, 2, {1: 1.0})
    assert (qcmb.programming_pass, qcmb.scientific_pass, qcmb.unknown_share) == (0.5, 0.5, 0.0)
    assert (qcmb.unknown_reasons, qcmb.iterations) == ({}, Spread(0, 0))

    dft = rows[("dft_qc", "one-shot")]  # a script that does not execute, and three unknown: none counts as passed
    assert (dft.tasks, dft.trials, dft.executable_pass_at) == (4, 4, {1: 0.75})
    assert (dft.programming_pass, dft.scientific_pass, dft.unknown_share) == (0.0, 0.0, 0.75)
    assert dft.unknown_reasons == {"scientific: evidence": 3}, "what kept them unknown, not 'every stage ran'"

    repaired = rows[("qcmb", "physvec")]  # the mirrored wall repaired in one round, and the correct script
    assert (repaired.tasks, repaired.trials, repaired.executable_pass_at) == (2, 2, {1: 1.0})
    assert (repaired.programming_pass, repaired.scientific_pass, repaired.unknown_share) == (1.0, 1.0, 0.0)
    assert (repaired.iterations, repaired.unknown_reasons) == (Spread(0.5, 1), {})

    pooled = rows[(ALL_TOPICS, "one-shot")]
    assert (pooled.tasks, pooled.trials, pooled.executable_pass_at) == (6, 6, {1: pytest.approx(5 / 6)})
    assert (pooled.programming_pass, pooled.unknown_share) == (pytest.approx(1 / 6), 0.5)
    for (topic, method), row in rows.items():
        trials = of(topic, method)
        assert row.tokens_in == spread([tokens_of(r)[0] for r in trials])
        assert row.tokens_out == spread([tokens_of(r)[1] for r in trials])
        assert row.seconds == spread([r.seconds for r in trials])
        assert row.cost is None, "no price table was given"


def test_the_report_command_prints_the_table_and_writes_its_files(campaign, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "1000")
    out = tmp_path / "report"
    assert qmp_bench_main(["upstream", "report", str(campaign.folder), "--out", str(out)]) == 0
    said = " ".join(capsys.readouterr().out.split())
    assert "│ qcmb │ physvec │" in said and "│ 0.5 / 1 │" in said, "the repaired run's iterations, mean / max"
    for task in ("dft_qc/upstream-dft-qc-4-1", "dft_qc/upstream-dft-qc-4-2", "dft_qc/upstream-dft-qc-4-3"):
        assert f"{task} (one-shot, " in said, "each unknown trial is named"
    assert said.count("ended unknown: every stage ran; scientific: evidence unknown (no independent value") == 3
    with (out / "upstream_report.csv").open() as stream:
        table = {(row["topic"], row["method"]): row for row in csv.DictReader(stream)}
    assert table[("dft_qc", "one-shot")]["unknown reasons"] == "scientific: evidence x3"
    assert float(table[("qcmb", "physvec")]["scientific pass"]) == 1.0
    assert (out / "upstream_report.png").read_bytes().startswith(b"\x89PNG")
