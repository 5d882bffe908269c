"""`qmp-bench upstream report`: the paper's comparison per topic and per method, read from a campaign's records
and the run folders behind them.

The campaign here is seven upstream-like trials over two topics and two methods, each a small run folder
written with the project's own writers (run.json, a transcript with model calls and issued certificates) and
recorded by the campaign's own ``record_from_run``: a certified run, one whose programming tests fail, one that
ends unknown, one that does not execute, and certified runs of a second topic and method.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import dataclass
from pathlib import Path

import pytest

from physvec.cli.qmp_bench import main as qmp_bench_main
from physvec.qmp_bench.campaign import Campaign, TrialKey, record_from_run
from physvec.qmp_bench.metrics import pass_at_k
from physvec.qmp_bench.upstream_report import (
    ALL_TOPICS, ReportRow, Spread, build_report, load_records, read_prices, ReportInputError, trial_facts,
)
from physvec.runstore.store import RunDirectory, file_digest
from physvec.runstore.transcript import EventType, Transcript
from physvec.view.campaigns import campaign_page
from physvec.verifiers.certificate import Certificate, Obligation, Outcome, digest

MODEL = "openai:gpt-x"
PRICES = {MODEL: {"input_per_mtok": 2.0, "output_per_mtok": 8.0}}
C, F, U = Outcome.CERTIFIED, Outcome.FAILED, Outcome.UNKNOWN


@dataclass(frozen=True)
class Trial:
    task: str
    method: str
    trial: int
    verdict: str
    executes: Outcome
    unit: Outcome
    reference: Outcome | None
    """the scientific certificate's reference obligation; None: the run never reached the scientific stage"""
    calls: tuple[tuple[int, int], ...]
    iterations: int
    seconds: float
    ended_by: str


TRIALS = (
    Trial("qcmb/upstream-qcmb-1-1", "physvec", 0, "certified", C, C, C, ((1000, 200), (500, 100)), 1, 10.0,
          "every stage ran"),
    Trial("qcmb/upstream-qcmb-1-1", "physvec", 1, "failed", C, F, None, ((2000, 400),), 3, 30.0,
          "programming repair budget spent (3 of 3 rounds)"),
    Trial("qcmb/upstream-qcmb-1-2", "physvec", 0, "unknown", C, C, U, ((800, 100),), 0, 20.0, "every stage ran"),
    Trial("dmrg/upstream-dmrg-1-1", "physvec", 0, "certified", C, C, C, ((3000, 600),), 2, 60.0, "every stage ran"),
    Trial("qcmb/upstream-qcmb-1-1", "react", 0, "failed", F, F, None, ((400, 50),), 1, 5.0,
          "programming repair budget spent (1 of 1 rounds)"),
    Trial("qcmb/upstream-qcmb-1-1", "react", 1, "certified", C, C, C, ((600, 60),), 2, 7.0, "every stage ran"),
    Trial("dmrg/upstream-dmrg-1-1", "react", 0, "certified", C, C, C, ((1000, 100),), 0, 15.0, "every stage ran"),
)


def _issue(run: RunDirectory, transcript: Transcript, name: str, *obligations: Obligation) -> None:
    """A certificate as the verifier issues one: its file, and its digest in the transcript."""
    certificate = Certificate(verifier=name.split("-v")[0], subject_digest=digest(name), obligations=obligations)
    path = run.write_certificate(name, certificate)
    transcript.append(EventType.CERTIFICATE, node=certificate.verifier, verifier=certificate.verifier, version=1,
                      path=str(path.relative_to(run.path)), sha256=file_digest(path),
                      verdict=certificate.verdict.value)


def make_trial(campaign: Campaign, trial: Trial, model: str = MODEL) -> None:
    """The trial's run folder where the campaign keeps it, and its record, as `upstream run` appends it."""
    key = TrialKey(trial.task, trial.method, model, trial.trial)
    run = RunDirectory(campaign.runs_dir(key) / f"run-{trial.method}-{trial.trial}")
    run.path.mkdir(parents=True)
    (run.path / "run.json").write_text(json.dumps({
        "task_id": trial.task, "model": model, "status": "finished", "verdict": trial.verdict,
        "ended_by": trial.ended_by, "tokens_used": sum(i + o for i, o in trial.calls),
        "metrics": {"programming_iterations": trial.iterations, "scientific_iterations": 0}}))
    transcript = run.transcript()
    for tokens_in, tokens_out in trial.calls:
        transcript.append(EventType.MODEL_CALL, node="author", role="author", reply="...",
                          input_tokens=tokens_in, output_tokens=tokens_out)
    _issue(run, transcript, "programming-v01", Obligation(name="script_executes", category="execution",
                                                          outcome=trial.executes),
           Obligation(name="unit:energy", category="unit", outcome=trial.unit))
    if trial.reference is not None:
        _issue(run, transcript, "scientific-v01", Obligation(
            name="reference:energy", category="reference", outcome=trial.reference,
            message="" if trial.reference is C else "no independent value for L = 6"))
    transcript.append(EventType.RUN_FINISHED, node="finalize", status="finished", verdict=trial.verdict,
                      ended_by=trial.ended_by)
    campaign.append(record_from_run(run, key, trial.seconds))


@pytest.fixture(autouse=True)
def wide_terminal(monkeypatch):
    """Lines as printed, not wrapped at 80 columns (tmp paths are long)."""
    monkeypatch.setenv("COLUMNS", "1000")


@pytest.fixture
def campaign(tmp_path) -> Campaign:
    campaign = Campaign(tmp_path / "campaign")
    for trial in TRIALS:
        make_trial(campaign, trial)
    return campaign


def rows_of(campaign: Campaign, prices=PRICES) -> dict[tuple[str, str], ReportRow]:
    report = build_report(load_records([campaign.records_file]), None, read_prices_from(prices, campaign.folder))
    return {(row.topic, row.method): row for row in report.rows}


def read_prices_from(prices: dict | None, folder: Path):
    if prices is None:
        return None
    (folder / "prices.json").write_text(json.dumps(prices))
    return read_prices(folder / "prices.json")


def test_pass_at_k_is_the_unbiased_estimator_of_a_hand_computed_case():
    # n = 5 trials, c = 2 passed, k = 2: 1 - C(3, 2) / C(5, 2) = 1 - 3 / 10
    assert pass_at_k(5, 2, 2) == pytest.approx(0.7)
    assert pass_at_k(2, 1, 1) == pytest.approx(0.5) and pass_at_k(2, 1, 2) == 1.0


def test_the_table_per_topic_and_method_cell_by_cell(campaign):
    rows = rows_of(campaign)
    assert list(rows) == [("dmrg", "physvec"), ("dmrg", "react"), ("qcmb", "physvec"), ("qcmb", "react"),
                          (ALL_TOPICS, "physvec"), (ALL_TOPICS, "react")]

    qcmb = rows[("qcmb", "physvec")]  # certified, programming failed, unknown
    assert (qcmb.model, qcmb.tasks, qcmb.trials) == (MODEL, 2, 3)
    assert qcmb.executable_pass_at == {1: 1.0, 2: 1.0}  # every script executed, even the failing one
    assert qcmb.programming_pass == pytest.approx(1 / 3)  # the unknown run's certified programming does not count
    assert qcmb.scientific_pass == pytest.approx(1 / 3)
    assert qcmb.unknown_share == pytest.approx(1 / 3)
    assert qcmb.unknown_reasons == {"every stage ran": 1}
    assert qcmb.iterations == Spread(pytest.approx(4 / 3), 3)
    assert qcmb.tokens_in == Spread(pytest.approx(4300 / 3), 2000)
    assert qcmb.tokens_out == Spread(pytest.approx(800 / 3), 400)
    assert qcmb.seconds == Spread(20.0, 30.0)
    assert qcmb.cost == pytest.approx((4300 * 2.0 + 800 * 8.0) / 1e6)

    react = rows[("qcmb", "react")]  # one script that does not execute, then a certified one
    assert (react.tasks, react.trials) == (1, 2)
    assert react.executable_pass_at == {1: pytest.approx(0.5), 2: 1.0}
    assert (react.programming_pass, react.scientific_pass, react.unknown_share) == (0.5, 0.5, 0.0)
    assert react.unknown_reasons == {}
    assert (react.iterations, react.tokens_in, react.tokens_out) == (Spread(1.5, 2), Spread(500, 600), Spread(55, 60))
    assert react.cost == pytest.approx((1000 * 2.0 + 110 * 8.0) / 1e6)

    dmrg = rows[("dmrg", "physvec")]
    assert dmrg.executable_pass_at == {1: 1.0, 2: None}  # pass@2 needs two trials of a task
    assert (dmrg.programming_pass, dmrg.scientific_pass, dmrg.unknown_share) == (1.0, 1.0, 0.0)
    assert (dmrg.tokens_in, dmrg.tokens_out, dmrg.seconds) == (Spread(3000, 3000), Spread(600, 600), Spread(60, 60))
    assert rows[("dmrg", "react")].iterations == Spread(0, 0)

    pooled = rows[(ALL_TOPICS, "react")]
    assert (pooled.tasks, pooled.trials) == (2, 3)
    assert pooled.executable_pass_at == {1: pytest.approx(0.75), 2: 1.0}
    assert pooled.programming_pass == pytest.approx(2 / 3)
    assert rows[(ALL_TOPICS, "physvec")].unknown_share == 0.25


def test_an_unknown_run_never_counts_as_passed_even_with_certified_stages(tmp_path):
    campaign = Campaign(tmp_path / "campaign")
    make_trial(campaign, Trial("qcmb/upstream-qcmb-2-1", "physvec", 0, "unknown", C, C, C, ((10, 5),), 1, 1.0,
                               "the model is unavailable (no replies left)"))
    facts = trial_facts(campaign.records()[0], campaign.folder)
    assert facts.unknown and not facts.programming_passed and not facts.scientific_passed
    row = rows_of(campaign)[("qcmb", "physvec")]
    assert (row.programming_pass, row.scientific_pass, row.unknown_share) == (0.0, 0.0, 1.0)
    assert row.unknown_reasons == {"the model is unavailable (no replies left)": 1}


def test_the_unknown_runs_reasons_name_the_ending_and_the_undecided_obligation(campaign, tmp_path, capsys):
    assert qmp_bench_main(["upstream", "report", str(campaign.folder), "--out", str(tmp_path / "out")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert ("qcmb/upstream-qcmb-1-2 (physvec, openai:gpt-x) trial 0 ended unknown: every stage ran; "
            "scientific: reference:energy unknown (no independent value for L = 6)") in printed


def test_a_moved_campaign_still_finds_its_run_folders(campaign, tmp_path):
    moved = tmp_path / "elsewhere"
    campaign.folder.rename(moved)
    report = build_report(load_records([moved]), None, None)
    assert report.unreadable == []
    assert {(row.topic, row.method): row.tokens_in.max for row in report.rows}[("qcmb", "physvec")] == 2000


def test_a_trial_whose_run_folder_is_gone_passes_nothing_and_has_no_cost(campaign):
    gone = next(r for r in campaign.records() if r.task == "dmrg/upstream-dmrg-1-1" and r.method == "react")
    shutil.rmtree(gone.run_dir)
    report = build_report(load_records([campaign.folder]), None, read_prices_from(PRICES, campaign.folder))
    assert [fact.record for fact in report.unreadable] == [gone]
    row = {(row.topic, row.method): row for row in report.rows}[("dmrg", "react")]
    assert (row.programming_pass, row.tokens_in, row.cost, row.unreadable_runs) == (0.0, Spread(None, None), None, 1)


def test_report_writes_csv_markdown_figure_and_a_page_physvec_view_shows(campaign, tmp_path):
    out = tmp_path / "out"
    prices = tmp_path / "prices.json"
    prices.write_text(json.dumps(PRICES))
    assert qmp_bench_main(["upstream", "report", str(campaign.records_file), "--prices", str(prices),
                           "--out", str(out)]) == 0
    csv_lines = (out / "upstream_report.csv").read_text().splitlines()
    header = csv_lines[0].split(",")
    assert header[:8] == ["topic", "method", "model", "tasks", "trials", "executable pass@1", "executable pass@2",
                          "programming pass"]
    qcmb = dict(zip(header, next(line for line in csv_lines if line.startswith("qcmb,physvec")).split(",")))
    assert (qcmb["programming pass"], qcmb["unknown share"], qcmb["tokens in max"], qcmb["cost"]) == (
        "0.333", "0.333", "2000", "0.0150")
    page = campaign_page(out, {})
    assert page.images == ["upstream_report.png"]
    assert [table.title for table in page.records] == ["upstream_report.csv"]


def test_report_on_an_empty_records_file_exits_2_saying_so(tmp_path, capsys):
    empty = tmp_path / "records.jsonl"
    empty.write_text("")
    assert qmp_bench_main(["upstream", "report", str(empty), "--out", str(tmp_path / "out")]) == 2
    assert f"no trial records in {empty} (the files are empty)" in " ".join(capsys.readouterr().out.split())


def test_report_on_a_missing_records_file_exits_2_naming_it(tmp_path, capsys):
    missing = tmp_path / "nowhere.jsonl"
    assert qmp_bench_main(["upstream", "report", str(missing), "--out", str(tmp_path / "out")]) == 2
    assert f"records {missing}: cannot be read" in " ".join(capsys.readouterr().out.split())


def test_a_bad_line_gives_a_partial_table_that_names_it(campaign, tmp_path, capsys):
    lines = campaign.records_file.read_text().splitlines()
    lines.insert(2, '{"task": "qcmb/upstream-qcmb-9-9", "method": "physvec"}')
    campaign.records_file.write_text("\n".join(lines) + "\n")
    assert qmp_bench_main(["upstream", "report", str(campaign.records_file), "--out", str(tmp_path / "out")]) == 0
    printed = " ".join(capsys.readouterr().out.split())
    assert f"partial table: skipped {campaign.records_file} line 3: model: Field required" in printed
    assert "qcmb" in printed and "dmrg" in printed
    assert "skipped" in (tmp_path / "out" / "upstream_report.md").read_text()


@pytest.mark.parametrize(("prices", "problem"), [
    ({MODEL: {"input_per_mtok": -1, "output_per_mtok": 8}}, f"{MODEL}.input_per_mtok: Input should be greater "
                                                             "than or equal to 0"),
    ({MODEL: {"input_per_mtok": 2}}, f"{MODEL}.output_per_mtok: Field required"),
    ({"openai:other": {"input_per_mtok": 1, "output_per_mtok": 1}}, f"no price for {MODEL}, which spent tokens"),
    ("not json", "Invalid JSON"),
])
def test_a_bad_price_table_exits_2_naming_the_problem(campaign, tmp_path, capsys, prices, problem):
    path = tmp_path / "prices.json"
    path.write_text(prices if isinstance(prices, str) else json.dumps(prices))
    assert qmp_bench_main(["upstream", "report", str(campaign.folder), "--prices", str(path),
                           "--out", str(tmp_path / "out")]) == 2
    assert problem in " ".join(capsys.readouterr().out.split())
    assert not (tmp_path / "out").exists()


def test_report_never_overwrites_another_commands_run_json(campaign, tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    (out / "run.json").write_text(json.dumps({"method": "physvec"}))
    assert qmp_bench_main(["upstream", "report", str(campaign.folder), "--out", str(out)]) == 2
    assert "holds another command's run.json" in " ".join(capsys.readouterr().out.split())
    assert json.loads((out / "run.json").read_text()) == {"method": "physvec"}


def test_read_prices_names_an_unreadable_file(tmp_path):
    with pytest.raises(ReportInputError, match="cannot be read"):
        read_prices(tmp_path / "absent.json")
