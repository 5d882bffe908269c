"""report.html: a run as a reader audits it: timeline, certificates, script diffs, cost per node."""

from __future__ import annotations

import difflib
from collections import defaultdict
from pathlib import Path
from typing import Any

from jinja2 import Environment, PackageLoader, StrictUndefined, select_autoescape

from physvec.runstore.store import RunDirectory
from physvec.runstore.transcript import Event, EventType, read_events

_ENVIRONMENT = Environment(loader=PackageLoader("physvec.runstore", "templates"), undefined=StrictUndefined,
                           autoescape=select_autoescape(["html", "j2"]))


def node_timeline(events: list[Event]) -> list[dict[str, Any]]:
    """One row per node execution; a start without a finish (a killed attempt) shows as interrupted."""
    rows: dict[tuple[str | None, int | None, int], dict[str, Any]] = {}
    first_time = events[0].time if events else 0.0
    for event in events:
        if event.type is EventType.NODE_STARTED:
            rows[(event.node, event.step, event.data["attempt"])] = {
                "node": event.node, "step": event.step, "attempt": event.data["attempt"],
                "start_s": round(event.time - first_time, 2), "seconds": None, "tokens": None, "state": "interrupted",
            }
        elif event.type is EventType.NODE_FINISHED:
            row = rows.get((event.node, event.step, event.data["attempt"]))
            if row is not None:
                row.update(seconds=event.data["seconds"], tokens=event.data["tokens"], state="finished")
    return list(rows.values())


def cost_per_node(timeline: list[dict[str, Any]]) -> list[dict[str, Any]]:
    totals: dict[str, dict[str, Any]] = defaultdict(lambda: {"runs": 0, "seconds": 0.0, "tokens": 0})
    for row in timeline:
        total = totals[row["node"]]
        total["runs"] += 1
        total["seconds"] += row["seconds"] or 0.0
        total["tokens"] += row["tokens"] or 0
    return [{"node": node, **total} for node, total in totals.items()]


def script_diffs(run: RunDirectory) -> list[dict[str, str]]:
    """Unified diffs between consecutive script versions."""
    scripts = run.scripts()
    diffs = []
    for older, newer in zip(scripts, scripts[1:]):
        lines = difflib.unified_diff(older.read_text().splitlines(), newer.read_text().splitlines(),
                                     older.name, newer.name, lineterm="")
        diffs.append({"title": f"{older.stem} → {newer.stem}", "diff": "\n".join(lines)})
    return diffs


def certificates_in_order(run: RunDirectory, events: list[Event]) -> dict[str, Any]:
    """Certificates in the order the run issued them (a re-run node's certificate counts once)."""
    stored = run.certificates()
    issued = [Path(e.data["path"]).stem for e in events if e.type is EventType.CERTIFICATE]
    ordered = list(dict.fromkeys(name for name in issued if name in stored))
    return {name: stored[name] for name in ordered + sorted(set(stored) - set(ordered))}


def render_report(run: RunDirectory) -> str:
    events = read_events(run.transcript_file)
    timeline = node_timeline(events)
    counts = defaultdict(int)
    for event in events:
        counts[event.type.value] += 1
    return _ENVIRONMENT.get_template("report.html.j2").render(
        meta=run.metadata(), timeline=timeline, costs=cost_per_node(timeline), certificates=certificates_in_order(run, events),
        first_script=run.scripts()[0].read_text() if run.scripts() else None, diffs=script_diffs(run),
        counts=counts, has_figure=(run.path / "figure.png").is_file(),
        has_overlay=(run.path / "reference_overlay.png").is_file(),
    )


def write_report(run: RunDirectory) -> Path:
    run.report_file.write_text(render_report(run), encoding="utf-8")
    return run.report_file
