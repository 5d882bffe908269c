"""A campaign folder read as tables, whatever campaign wrote it; and the viewer serves nothing outside the
folders it was given."""

from __future__ import annotations

import json

from physvec.view.campaigns import campaign_page, markdown_blocks
from physvec.view.catalogue import Catalogue


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
