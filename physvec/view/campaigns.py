"""A campaign folder as tables: settings, one table per records file, a per-task table, the campaign's own
markdown and CSV tables and its plots.

Every campaign kind (qmp-bench trials, fault injection, DualityCert and PHACT episodes, upstream, MatPCR,
red team) writes append-only JSON-lines records and its own markdown/CSV/PNG summaries, so the page reads
those files as they are rather than importing each campaign's code: the viewer works on any campaign
folder, including one made by an older or newer physvec.
"""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from physvec.runstore.evidence import cell
from physvec.runstore.report import read_png

MAX_ROWS = 2000
"""Records shown per file; a campaign larger than this says how many rows it left out."""
PASSING = ("certified", "true", "True", "sound")


@dataclass(frozen=True)
class Table:
    title: str
    columns: list[str]
    rows: list[list[str]]
    left_out: int = 0
    runs: tuple[str, ...] = ()
    """Per row, the viewer key of the run the record names ('' for none); empty when no row names one."""


@dataclass(frozen=True)
class CampaignPage:
    name: str
    settings: list[tuple[str, str]]
    per_task: Table | None
    records: list[Table]
    documents: list[tuple[str, list[Any]]]
    """(file name, blocks) of each markdown file: a block is a Table or a paragraph string."""
    images: list[str]


def read_records(path: Path) -> list[dict[str, Any]]:
    """The JSON objects of a records file; a line cut short by a kill is skipped, as the campaigns do."""
    records = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        try:
            value = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            records.append(value)
    return records


def run_named_by(record: dict[str, Any], run_keys: dict[str, str]) -> str:
    """The key of the run a record names by its folder (``run_dir`` and the like), matched by the run id, the
    folder's last part, so that a campaign moved to another folder or machine still links its runs."""
    for value in record.values():
        if isinstance(value, str) and "/" in value and Path(value).name in run_keys:
            return run_keys[Path(value).name]
    return ""


def records_table(title: str, records: list[dict[str, Any]], run_keys: dict[str, str]) -> Table:
    columns = list(dict.fromkeys(key for record in records for key in record))
    shown = records[:MAX_ROWS]
    rows = [[cell(record.get(column)) for column in columns] for record in shown]
    runs = tuple(run_named_by(record, run_keys) for record in shown)
    return Table(title, columns, rows, left_out=max(0, len(records) - MAX_ROWS), runs=runs if any(runs) else ())


def _outcome(record: dict[str, Any]) -> str:
    for key in ("verdict", "outcome", "status", "caught", "detected"):
        if key in record:
            return str(record[key])
    return ""


def per_task_table(records: list[dict[str, Any]]) -> Table | None:
    """Per task: trials, how they ended, the share that passed, mean tokens and seconds; None when records
    name no task."""
    groups: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for record in records:
        task = record.get("task") or record.get("task_id") or record.get("goal") or record.get("claim")
        if task is not None:
            groups[str(task)].append(record)
    if not groups:
        return None
    rows = []
    for task, group in sorted(groups.items()):
        outcomes: dict[str, int] = defaultdict(int)
        for record in group:
            outcomes[_outcome(record)] += 1
        passed = sum(count for outcome, count in outcomes.items() if outcome in PASSING)
        rows.append([task, str(len(group)), ", ".join(f"{o or '—'} {n}" for o, n in sorted(outcomes.items())),
                     f"{passed / len(group):.2f}", _mean(group, "tokens"), _mean(group, "seconds")])
    return Table("per task", ["task", "records", "outcomes", "share passed", "mean tokens", "mean seconds"], rows)


def _mean(records: list[dict[str, Any]], key: str) -> str:
    values = [r[key] for r in records if isinstance(r.get(key), (int, float)) and not isinstance(r.get(key), bool)]
    return f"{sum(values) / len(values):.4g}" if values else "—"


def markdown_blocks(text: str) -> list[Any]:
    """Markdown as paragraphs and tables (the campaigns' summaries are headings, prose and pipe tables)."""
    blocks: list[Any] = []
    table: list[list[str]] = []
    for line in text.splitlines() + [""]:
        stripped = line.strip()
        if stripped.startswith("|") and stripped.endswith("|"):
            cells = [part.strip() for part in stripped[1:-1].split("|")]
            if not all(set(part) <= set("-: ") for part in cells):
                table.append(cells)
            continue
        if table:
            blocks.append(Table("", table[0], table[1:]))
            table = []
        if stripped:
            blocks.append(stripped.lstrip("#").strip())
    return blocks


def csv_table(path: Path) -> Table:
    with path.open(newline="", encoding="utf-8", errors="replace") as stream:
        rows = list(csv.reader(stream))
    return Table(path.name, rows[0] if rows else [], rows[1:MAX_ROWS + 1], left_out=max(0, len(rows) - 1 - MAX_ROWS))


def _settings(folder: Path) -> list[tuple[str, str]]:
    path = folder / "run.json"
    if not path.is_file():
        return []
    try:
        data = json.loads(path.read_text())
    except json.JSONDecodeError:
        return [("run.json", "unreadable")]
    return [(str(key), cell(value)) for key, value in data.items()] if isinstance(data, dict) else []


def campaign_plots(folder: Path) -> list[str]:
    """The names of the PNG files at a campaign folder's top level: the plots its page shows, and the only
    files of it the viewer serves (a symlink, or a file that is not really a PNG, is neither)."""
    return sorted(path.name for path in folder.iterdir() if path.suffix == ".png" and read_png(path) is not None)


def campaign_page(folder: Path, run_keys: dict[str, str]) -> CampaignPage:
    """Everything a campaign folder holds at its top level, as tables; ``run_keys`` maps the run ids the
    viewer knows to their keys, so records link to their runs."""
    files = sorted(path for path in folder.iterdir() if path.is_file())
    records = {path.name: read_records(path) for path in files if path.suffix == ".jsonl"}
    main = max(records.values(), key=len, default=[])
    tables = [records_table(name, rows, run_keys) for name, rows in records.items()]
    tables += [csv_table(path) for path in files if path.suffix == ".csv"]
    return CampaignPage(
        name=folder.name, settings=_settings(folder), per_task=per_task_table(main), records=tables,
        documents=[(path.name, markdown_blocks(path.read_text(errors="replace"))) for path in files
                   if path.suffix == ".md"],
        images=campaign_plots(folder),
    )
