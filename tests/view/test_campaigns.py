"""A campaign folder read as tables, whatever campaign wrote it; and the viewer serves nothing outside the
folders it was given."""

from __future__ import annotations

import json
import os
from pathlib import Path

from physvec.runstore.report import PNG_SIGNATURE, read_png
from physvec.view.campaigns import campaign_page, markdown_blocks
from physvec.view.catalogue import Catalogue, Entry


def test_records_give_a_per_task_table_with_the_share_that_passed(tmp_path):
    records = [{"task": "dft/h2", "verdict": "certified", "tokens": 100, "seconds": 2.0},
               {"task": "dft/h2", "verdict": "failed", "tokens": 300, "seconds": 4.0},
               {"task": "dmrg/chain", "verdict": "unknown", "tokens": 0, "seconds": 1.0}]
    (tmp_path / "records.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n{\"task\": \"cut sho")
    page = campaign_page(tmp_path, {})
    assert page.per_task is not None
    assert page.per_task.rows == [["dft/h2", "2", "certified 1, failed 1", "0.50", "200", "3"],
                                  ["dmrg/chain", "1", "unknown 1", "0.00", "0", "1"]]
    (records_table,) = page.records
    assert len(records_table.rows) == 3, "the line a kill cut short is skipped"


def test_markdown_pipe_tables_become_tables_and_other_lines_paragraphs():
    blocks = markdown_blocks("# Results\n\n| method | pass@1 |\n|---|---|\n| physvec | 0.500 |\n\nnote")
    assert blocks[0] == "Results" and blocks[2] == "note"
    assert blocks[1].columns == ["method", "pass@1"] and blocks[1].rows == [["physvec", "0.500"]]


def test_a_key_never_resolves_outside_its_root(tmp_path):
    root = tmp_path / "runs"
    (root / "a").mkdir(parents=True)
    (tmp_path / "secret.txt").write_text("no")
    catalogue = Catalogue([root])
    assert catalogue.resolve("0/a") == (root / "a").resolve()
    assert catalogue.resolve("0/..") is None and catalogue.resolve("1/a") is None
    assert catalogue.file("0/a", "../../secret.txt") is None


def test_a_record_links_to_its_run_by_run_id_even_after_the_campaign_moved(tmp_path):
    records = [{"task": "t", "run_dir": "/elsewhere/runs/20260101-000000-t-ab12"}, {"task": "t", "run_dir": "gone"}]
    (tmp_path / "records.jsonl").write_text("\n".join(json.dumps(r) for r in records))
    (table,) = campaign_page(tmp_path, {"20260101-000000-t-ab12": "0/c/runs/20260101-000000-t-ab12"}).records
    assert table.runs == ("0/c/runs/20260101-000000-t-ab12", "")


def a_run(folder: Path) -> Path:
    """A folder the catalogue takes for a run, holding a real PNG figure, a figure.png look-alike and sealed
    inputs that hold records (as a campaign folder does)."""
    (folder / "inputs").mkdir(parents=True)
    (folder / "work" / "v01-programming").mkdir(parents=True)
    for name in ("run.json", "transcript.jsonl", "inputs/records.jsonl", "work/v01-programming/records.jsonl"):
        (folder / name).write_text("{}\n")
    (folder / "figure.png").write_bytes(PNG_SIGNATURE + b"rest of the image")
    (folder / "reference_overlay.png").write_text("<svg onload='alert(1)'/>")
    return folder


def test_a_key_names_only_a_folder_the_search_finds_never_one_inside_a_run(tmp_path):
    run = a_run(tmp_path / "runs" / "r")
    (run / "trial").mkdir()
    (run / "trial" / "records.jsonl").write_text("{}\n")
    catalogue = Catalogue([tmp_path / "runs"])
    assert catalogue.find() == ([Entry("0/r", run.resolve())], [])
    assert catalogue.resolve("0/r") == catalogue.resolve("0/r/inputs/..") == run.resolve()
    for key in ("0/r/inputs", "0/r/work/v01-programming", "0/r/trial", "0/r/inputs/\x00"):
        assert catalogue.resolve(key) is None, key


def test_a_run_folder_serves_only_its_figures_by_their_exact_names(tmp_path):
    run = a_run(tmp_path / "runs" / "r")
    catalogue = Catalogue([tmp_path / "runs"])
    assert catalogue.file("0/r", "figure.png") == run.resolve() / "figure.png"
    for name in ("./figure.png", "run.json", "transcript.jsonl", "inputs/records.jsonl", str(run / "run.json"),
                 "work/v01-programming/records.jsonl", "figure.png/", ""):
        assert catalogue.file("0/r", name) is None, name


def test_read_png_takes_a_regular_png_file_and_nothing_that_only_looks_like_one(tmp_path):
    run = a_run(tmp_path / "r")
    (run / "linked.png").symlink_to(run / "figure.png")
    os.mkfifo(run / "fifo.png")
    assert read_png(run / "figure.png") == PNG_SIGNATURE + b"rest of the image"
    for name in ("reference_overlay.png", "linked.png", "fifo.png", "inputs", "missing.png"):
        assert read_png(run / name) is None, name


def test_a_campaign_page_shows_only_the_plots_that_are_png_files(tmp_path):
    (tmp_path / "records.jsonl").write_text("{}\n")
    (tmp_path / "pass_at_k.png").write_bytes(PNG_SIGNATURE)
    (tmp_path / "plot.png").write_text("<html><script>alert(1)</script>")
    (tmp_path / "linked.png").symlink_to(tmp_path / "pass_at_k.png")
    assert campaign_page(tmp_path, {}).images == ["pass_at_k.png"]
    assert Catalogue([tmp_path]).file("0/.", "plot.png") is None
